// The tokeniser of PostgreSQL's "default" text-search parser: splits text into typed tokens
// (words, hyphenated words and their parts, numbers, hosts, URLs, e-mails, files, tags, blanks).
// It is a backtracking state machine whose rules were worked out by comparing with ts_debug().

import { C_ALPHA, C_ASCLET, C_DIGIT, C_SPACE, C_SPECIAL, C_URLCHAR, C_XDIGIT, charFlags } from './chars.js';

/** Token type ids as PostgreSQL numbers them (ts_token_type('default')). */
export const enum Tok {
  AsciiWord = 1,
  Word,
  NumWord,
  AsciiHWord,
  HWord,
  NumHWord,
  HWordAsciiPart,
  HWordPart,
  HWordNumPart,
  Email,
  Protocol,
  Url,
  Host,
  UrlPath,
  File,
  SFloat,
  Float,
  Int,
  UInt,
  Version,
  Tag,
  Entity,
  Blank,
}

export const TOKEN_TYPE_NAMES: readonly string[] = [
  '',
  'asciiword',
  'word',
  'numword',
  'asciihword',
  'hword',
  'numhword',
  'hword_asciipart',
  'hword_part',
  'hword_numpart',
  'email',
  'protocol',
  'url',
  'host',
  'url_path',
  'file',
  'sfloat',
  'float',
  'int',
  'uint',
  'version',
  'tag',
  'entity',
  'blank',
];

// ---- rule encoding -------------------------------------------------------------------------------
// Each state is an ordered list of rules; the first whose test holds fires. Tests:
const T_ANY = 0,
  T_EOF = 1,
  T_CHAR = 2,
  T_CLASS = 3,
  T_NOTALNUM = 4,
  T_IGNORE = 5,
  T_STOPHOST = 6,
  T_ISHOST = 7,
  T_ISURLPATH = 8;
// Actions (bit flags):
const NEXT = 1; // consume the character, go to `to`
const PUSH = 2; // remember this state/rule/position to come back to, then as NEXT
const POP = 4; // give up: return to the last remembered point and try the rules after it
const EMIT = 8; // the token ends before the current character
const RERUN = 16; // go to `to` without consuming
const CLEAR = 32; // forget the last remembered point (commit)
const CLRALL = 64; // forget all remembered points

// Side effects run when a rule fires.
const X_NONE = 0,
  X_TAGNAME = 1,
  X_URL = 2,
  X_HYPHEN = 3,
  X_SIGNED_VERSION = 4,
  X_ESCAPED = 5;

interface Rule {
  test: number;
  arg: number;
  act: number;
  to: number;
  type: number;
  fx: number;
}

const S = {
  Base: 0,
  AsciiWord: 1,
  Word: 2,
  NumWord: 3,
  UInt: 4,
  SIntFirst: 5,
  SInt: 6,
  Space: 7,
  UDecFirst: 8,
  UDec: 9,
  DecFirst: 10,
  Dec: 11,
  SignedVersion: 12,
  VersionFirst: 13,
  Version: 14,
  MantFirst: 15,
  MantSign: 16,
  Mant: 17,
  EntFirst: 18,
  Ent: 19,
  EntNumFirst: 20,
  EntNum: 21,
  EntHexFirst: 22,
  EntHex: 23,
  EntEnd: 24,
  TagFirst: 25,
  XmlBegin: 26,
  TagCloseFirst: 27,
  TagName: 28,
  TagBeginEnd: 29,
  Tag: 30,
  TagQ1: 31,
  TagQ2: 32,
  TagQ1Esc: 33,
  TagQ2Esc: 34,
  TagEnd: 35,
  ComFirst: 36,
  ComLast: 37,
  Com: 38,
  ComCloseFirst: 39,
  ComCloseLast: 40,
  ComEnd: 41,
  HostFirstDomain: 42,
  HostDomainSecond: 43,
  HostDomain: 44,
  PortFirst: 45,
  Port: 46,
  HostFirstAN: 47,
  Host: 48,
  Email: 49,
  FileFirst: 50,
  FileTwiddle: 51,
  PathFirst: 52,
  PathFirstFirst: 53,
  PathSecond: 54,
  File: 55,
  FileNext: 56,
  UrlPathFirst: 57,
  UrlPathStart: 58,
  UrlPath: 59,
  FUrl: 60,
  ProtoFirst: 61,
  ProtoSecond: 62,
  ProtoEnd: 63,
  HypAsciiFirst: 64,
  HypAscii: 65,
  HypWordFirst: 66,
  HypWord: 67,
  HypNumFirst: 68,
  HypNum: 69,
  HypDigitLook: 70,
  ParseHyp: 71,
  ParseHypHyp: 72,
  HypWordPart: 73,
  HypAsciiPart: 74,
  HypNumPart: 75,
  HypUInt: 76,
} as const;
const STATE_COUNT = 77;
const SAME = -1;

// A rule's test in the specs: 'EOF', 'ANY', a named context check, a class mask number, or characters.
// A list of tests, or a string of several characters, stands for consecutive rules with the same action,
// one a test: the machine still tries them one by one, as its backtracking counts rules.
type Test = string | number;
type RuleSpec = [test: Test | readonly Test[], act: number, to?: number, type?: number, fx?: number];

const NOTALNUM = 'NOTALNUM',
  IGNORE = 'IGNORE',
  STOPHOST = 'STOPHOST',
  ISHOST = 'ISHOST',
  ISURLPATH = 'ISURLPATH';
const NAMED_TESTS: Readonly<Record<string, number>> = {
  EOF: T_EOF,
  ANY: T_ANY,
  [NOTALNUM]: T_NOTALNUM,
  [IGNORE]: T_IGNORE,
  [STOPHOST]: T_STOPHOST,
  [ISHOST]: T_ISHOST,
  [ISURLPATH]: T_ISURLPATH,
};
const ALNUM = C_ALPHA | C_DIGIT;

/** A state that goes on only by its rules: at the end of the text or on any other character it backtracks. */
function tentative(...rules: RuleSpec[]): RuleSpec[] {
  return [['EOF', POP], ...rules, ['ANY', POP]];
}

/** A state inside a token of `type`: it ends at the end of the text or at a character no rule takes. */
function inToken(type: Tok, ...rules: RuleSpec[]): RuleSpec[] {
  return [['EOF', EMIT, S.Base, type], ...rules, ['ANY', EMIT, S.Base, type]];
}

/** Inside a hyphenated word of `type`: where it ends it is emitted whole, then read again part by part. */
function inCompound(type: Tok, ...rules: RuleSpec[]): RuleSpec[] {
  return [
    ['EOF', EMIT | CLRALL, S.ParseHyp, type, X_HYPHEN],
    ...rules,
    ['ANY', EMIT | CLRALL, S.ParseHyp, type, X_HYPHEN],
  ];
}

/** Inside one part of a hyphenated word: the next part follows, unless the text ends. */
function inPart(type: Tok, ...rules: RuleSpec[]): RuleSpec[] {
  return [['EOF', EMIT, S.Base, type], ...rules, ['ANY', EMIT, S.ParseHyp, type]];
}

const SPECS: Record<number, RuleSpec[]> = {
  [S.Base]: [
    ['EOF', EMIT, S.Base, 0],
    ['<', PUSH, S.TagFirst],
    [IGNORE, NEXT, S.Space],
    [C_ASCLET, NEXT, S.AsciiWord],
    [C_ALPHA, NEXT, S.Word],
    [C_DIGIT, NEXT, S.UInt],
    ['-+', PUSH, S.SIntFirst],
    ['&', PUSH, S.EntFirst],
    ['~', PUSH, S.FileTwiddle],
    ['/', PUSH, S.FileFirst],
    ['.', PUSH, S.PathFirstFirst],
    ['ANY', NEXT, S.Space],
  ],
  [S.AsciiWord]: inToken(
    Tok.AsciiWord,
    [C_ASCLET, NEXT, SAME],
    ['.', PUSH, S.HostFirstDomain],
    ['.', PUSH, S.FileNext],
    ['-', PUSH, S.HostFirstAN],
    ['-', PUSH, S.HypAsciiFirst],
    ['_', PUSH, S.HostFirstAN],
    ['@', PUSH, S.Email],
    [':', PUSH, S.ProtoFirst],
    ['/', PUSH, S.FileFirst],
    [C_DIGIT, PUSH, S.Host],
    [C_DIGIT, NEXT, S.NumWord],
    [[C_ALPHA, C_SPECIAL], NEXT, S.Word],
  ),
  [S.Word]: inToken(
    Tok.Word,
    [[C_ALPHA, C_SPECIAL], NEXT, SAME],
    [C_DIGIT, NEXT, S.NumWord],
    ['-', PUSH, S.HypWordFirst],
  ),
  [S.NumWord]: inToken(
    Tok.NumWord,
    [[ALNUM, C_SPECIAL], NEXT, SAME],
    ['@', PUSH, S.Email],
    ['/', PUSH, S.FileFirst],
    ['.', PUSH, S.FileNext],
    ['-', PUSH, S.HypNumFirst],
  ),
  [S.UInt]: inToken(
    Tok.UInt,
    [C_DIGIT, NEXT, SAME],
    ['.', PUSH, S.HostFirstDomain],
    ['.', PUSH, S.UDecFirst],
    ['eE', PUSH, S.MantFirst],
    ['-_', PUSH, S.HostFirstAN],
    ['@', PUSH, S.Email],
    [C_ASCLET, PUSH, S.Host],
    [[C_ALPHA, C_SPECIAL], NEXT, S.NumWord],
    ['/', PUSH, S.FileFirst],
  ),
  [S.SIntFirst]: tentative([C_DIGIT, NEXT | CLEAR, S.SInt]),
  [S.SInt]: inToken(Tok.Int, [C_DIGIT, NEXT, SAME], ['.', PUSH, S.DecFirst], ['eE', PUSH, S.MantFirst]),
  [S.Space]: [
    ['EOF', EMIT, S.Base, Tok.Blank],
    ['<', EMIT, S.Base, Tok.Blank],
    [IGNORE, NEXT, SAME],
    ['-+&/', EMIT, S.Base, Tok.Blank],
    [NOTALNUM, NEXT, SAME],
    ['ANY', EMIT, S.Base, Tok.Blank],
  ],
  [S.UDecFirst]: tentative([C_DIGIT, NEXT | CLEAR, S.UDec]),
  [S.UDec]: inToken(Tok.Float, [C_DIGIT, NEXT, SAME], ['.', PUSH, S.VersionFirst], ['eE', PUSH, S.MantFirst]),
  [S.DecFirst]: tentative([C_DIGIT, NEXT | CLEAR, S.Dec]),
  [S.Dec]: inToken(Tok.Float, [C_DIGIT, NEXT, SAME], ['.', PUSH, S.SignedVersion], ['eE', PUSH, S.MantFirst]),
  // "-1.2.3": the sign is dropped as a blank and the digits re-read as a version.
  [S.SignedVersion]: tentative([C_DIGIT, RERUN, S.UInt, Tok.Blank, X_SIGNED_VERSION]),
  [S.VersionFirst]: tentative([C_DIGIT, NEXT | CLEAR, S.Version]),
  [S.Version]: inToken(Tok.Version, [C_DIGIT, NEXT, SAME], ['.', PUSH, S.VersionFirst]),
  [S.MantFirst]: tentative([C_DIGIT, NEXT | CLEAR, S.Mant], ['+-', NEXT, S.MantSign]),
  [S.MantSign]: tentative([C_DIGIT, NEXT | CLEAR, S.Mant]),
  [S.Mant]: inToken(Tok.SFloat, [C_DIGIT, NEXT, SAME]),
  [S.EntFirst]: tentative(['#', NEXT, S.EntNumFirst], [[C_ASCLET, ':_'], NEXT, S.Ent]),
  [S.Ent]: tentative([[ALNUM, ':_.-'], NEXT, SAME], [';', NEXT, S.EntEnd]),
  [S.EntNumFirst]: tentative(['xX', NEXT, S.EntHexFirst], [C_DIGIT, NEXT, S.EntNum]),
  [S.EntHexFirst]: tentative([C_XDIGIT, NEXT, S.EntHex]),
  [S.EntNum]: tentative([C_DIGIT, NEXT, SAME], [';', NEXT, S.EntEnd]),
  [S.EntHex]: tentative([C_XDIGIT, NEXT, SAME], [';', NEXT, S.EntEnd]),
  [S.EntEnd]: [['ANY', EMIT | CLEAR, S.Base, Tok.Entity]],
  [S.TagFirst]: tentative(
    ['/', PUSH, S.TagCloseFirst],
    ['!', PUSH, S.ComFirst],
    ['?', PUSH, S.XmlBegin],
    [[C_ASCLET, ':_'], RERUN, S.TagName],
  ),
  [S.XmlBegin]: tentative(['x', NEXT, S.Tag]),
  [S.TagCloseFirst]: tentative([C_ASCLET, NEXT, S.TagName]),
  [S.TagName]: tentative(
    ['/', NEXT, S.TagBeginEnd],
    ['>', NEXT, S.TagEnd, 0, X_TAGNAME],
    [C_SPACE, NEXT, S.Tag, 0, X_TAGNAME],
    [[ALNUM, ':_.-'], NEXT, SAME],
  ),
  [S.TagBeginEnd]: tentative(['>', NEXT, S.TagEnd]),
  [S.Tag]: tentative(
    ['>', NEXT, S.TagEnd],
    ["'", NEXT, S.TagQ1],
    ['"', NEXT, S.TagQ2],
    [[C_ASCLET, C_DIGIT, '=-_#/:.&?%~', C_SPACE], NEXT, SAME],
  ),
  [S.TagQ1]: [
    ['EOF', POP],
    ['\\', NEXT, S.TagQ1Esc],
    ["'", NEXT, S.Tag],
    ['ANY', NEXT, SAME],
  ],
  [S.TagQ2]: [
    ['EOF', POP],
    ['\\', NEXT, S.TagQ2Esc],
    ['"', NEXT, S.Tag],
    ['ANY', NEXT, SAME],
  ],
  [S.TagQ1Esc]: [
    ['EOF', POP],
    ['ANY', NEXT, S.TagQ1, 0, X_ESCAPED],
  ],
  [S.TagQ2Esc]: [
    ['EOF', POP],
    ['ANY', NEXT, S.TagQ2, 0, X_ESCAPED],
  ],
  [S.TagEnd]: [['ANY', EMIT | CLRALL, S.Base, Tok.Tag]],
  [S.ComFirst]: tentative(['-', NEXT, S.ComLast], ['Dd', NEXT, S.Tag]),
  [S.ComLast]: tentative(['-', NEXT, S.Com]),
  [S.Com]: [
    ['EOF', POP],
    ['-', PUSH, S.ComCloseFirst],
    ['ANY', NEXT, SAME],
  ],
  [S.ComCloseFirst]: tentative(['-', NEXT, S.ComCloseLast]),
  [S.ComCloseLast]: tentative(['-', NEXT, SAME], ['>', NEXT, S.ComEnd]),
  [S.ComEnd]: [['ANY', EMIT | CLRALL, S.Base, Tok.Tag]],
  [S.HostFirstDomain]: tentative([C_ASCLET, NEXT, S.HostDomainSecond], [C_DIGIT, NEXT, S.Host]),
  [S.HostDomainSecond]: tentative(
    [C_ASCLET, NEXT, S.HostDomain],
    ['-_', PUSH, S.HostFirstAN],
    ['.', PUSH, S.HostFirstDomain],
    ['@', PUSH, S.Email],
    [C_DIGIT, PUSH, S.Host],
  ),
  [S.HostDomain]: [
    ['EOF', EMIT | CLRALL, S.Base, Tok.Host],
    [C_ASCLET, NEXT, SAME],
    [C_DIGIT, PUSH, S.Host],
    [':', PUSH, S.PortFirst],
    ['-_', PUSH, S.HostFirstAN],
    ['.', PUSH, S.HostFirstDomain],
    ['@', PUSH, S.Email],
    [C_DIGIT, POP],
    [STOPHOST, EMIT | CLRALL, S.UrlPathStart, Tok.Host],
    ['/', PUSH, S.FUrl],
    ['ANY', EMIT | CLRALL, S.Base, Tok.Host],
  ],
  [S.PortFirst]: tentative([C_DIGIT, NEXT, S.Port]),
  [S.Port]: [
    ['EOF', EMIT | CLRALL, S.Base, Tok.Host],
    [C_DIGIT, NEXT, SAME],
    [STOPHOST, EMIT | CLRALL, S.UrlPathStart, Tok.Host],
    ['/', PUSH, S.FUrl],
    ['ANY', EMIT | CLRALL, S.Base, Tok.Host],
  ],
  [S.HostFirstAN]: tentative([[C_DIGIT, C_ASCLET], NEXT, S.Host]),
  [S.Host]: tentative(
    [[C_DIGIT, C_ASCLET], NEXT, SAME],
    ['@', PUSH, S.Email],
    ['.', PUSH, S.HostFirstDomain],
    ['-_', PUSH, S.HostFirstAN],
  ),
  [S.Email]: [
    [STOPHOST, POP],
    [ISHOST, EMIT | CLRALL, S.Base, Tok.Email],
    ['ANY', POP],
  ],
  [S.FileFirst]: tentative(
    [[C_ASCLET, C_DIGIT], NEXT, S.File],
    ['.', NEXT, S.PathFirst],
    ['_', NEXT, S.File],
    ['~', PUSH, S.FileTwiddle],
  ),
  [S.FileTwiddle]: tentative([[C_ASCLET, C_DIGIT, '_'], NEXT, S.File], ['/', NEXT, S.FileFirst]),
  [S.PathFirst]: tentative(
    [[C_ASCLET, C_DIGIT, '_'], NEXT, S.File],
    ['.', NEXT, S.PathSecond],
    ['/', NEXT, S.FileFirst],
  ),
  [S.PathFirstFirst]: tentative(['.', NEXT, S.PathSecond], ['/', NEXT, S.FileFirst]),
  [S.PathSecond]: [
    ['EOF', EMIT | CLEAR, S.Base, Tok.File],
    ['/', NEXT | PUSH, S.FileFirst],
    [['/', C_SPACE], EMIT | CLEAR, S.Base, Tok.File],
    ['ANY', POP],
  ],
  [S.File]: inToken(
    Tok.File,
    [[C_ASCLET, C_DIGIT], NEXT, SAME],
    ['.', PUSH, S.FileNext],
    ['_-', NEXT, SAME],
    ['/', PUSH, S.FileFirst],
  ),
  [S.FileNext]: tentative([[C_ASCLET, C_DIGIT, '_'], NEXT | CLEAR, S.File]),
  [S.UrlPathFirst]: tentative([C_URLCHAR, NEXT, S.UrlPath]),
  [S.UrlPathStart]: [['ANY', NEXT, S.UrlPath]],
  [S.UrlPath]: inToken(Tok.UrlPath, [C_URLCHAR, NEXT, SAME]),
  [S.FUrl]: [
    [ISURLPATH, EMIT | CLRALL, S.Base, Tok.Url, X_URL],
    ['ANY', POP],
  ],
  [S.ProtoFirst]: tentative(['/', NEXT, S.ProtoSecond]),
  [S.ProtoSecond]: tentative(['/', NEXT, S.ProtoEnd]),
  [S.ProtoEnd]: [['ANY', EMIT | CLRALL, S.Base, Tok.Protocol]],
  [S.HypAsciiFirst]: tentative(
    [C_ASCLET, NEXT, S.HypAscii],
    [C_ALPHA, NEXT, S.HypWord],
    [C_DIGIT, NEXT, S.HypDigitLook],
  ),
  [S.HypAscii]: inCompound(
    Tok.AsciiHWord,
    [C_ASCLET, NEXT, SAME],
    [[C_ALPHA, C_SPECIAL], NEXT, S.HypWord],
    [C_DIGIT, NEXT, S.HypNum],
    ['-', PUSH, S.HypAsciiFirst],
  ),
  [S.HypWordFirst]: tentative([C_ALPHA, NEXT, S.HypWord], [C_DIGIT, NEXT, S.HypDigitLook]),
  [S.HypWord]: inCompound(
    Tok.HWord,
    [[C_ALPHA, C_SPECIAL], NEXT, SAME],
    [C_DIGIT, NEXT, S.HypNum],
    ['-', PUSH, S.HypWordFirst],
  ),
  [S.HypNumFirst]: tentative([C_ALPHA, NEXT, S.HypNum], [C_DIGIT, NEXT, S.HypDigitLook]),
  [S.HypNum]: inCompound(Tok.NumHWord, [[ALNUM, C_SPECIAL], NEXT, SAME], ['-', PUSH, S.HypNumFirst]),
  [S.HypDigitLook]: tentative([C_DIGIT, NEXT, SAME], [[C_ALPHA, C_SPECIAL], NEXT, S.HypNum]),
  [S.ParseHyp]: [
    ['EOF', EMIT, S.Base, 0],
    [C_ASCLET, NEXT, S.HypAsciiPart],
    [C_ALPHA, NEXT, S.HypWordPart],
    [C_DIGIT, PUSH, S.HypUInt],
    ['-', PUSH, S.ParseHypHyp],
    ['ANY', RERUN, S.Base],
  ],
  [S.ParseHypHyp]: tentative([[ALNUM, C_SPECIAL], EMIT | CLEAR, S.ParseHyp, Tok.Blank]),
  [S.HypWordPart]: inPart(Tok.HWordPart, [[C_ALPHA, C_SPECIAL], NEXT, SAME], [C_DIGIT, NEXT, S.HypNumPart]),
  [S.HypAsciiPart]: inPart(
    Tok.HWordAsciiPart,
    [C_ASCLET, NEXT, SAME],
    [[C_ALPHA, C_SPECIAL], NEXT, S.HypWordPart],
    [C_DIGIT, NEXT, S.HypNumPart],
  ),
  [S.HypNumPart]: inPart(Tok.HWordNumPart, [[ALNUM, C_SPECIAL], NEXT, SAME]),
  [S.HypUInt]: tentative([C_DIGIT, NEXT, SAME], [[C_ALPHA, C_SPECIAL], NEXT | CLEAR, S.HypNumPart]),
};

/** The rules one spec stands for, with `SAME` resolved to `state`. */
function rulesOf(state: number, [tests, act, to = SAME, type = 0, fx = X_NONE]: RuleSpec): Rule[] {
  const list = [tests].flat().flatMap((t) => (typeof t === 'string' && !(t in NAMED_TESTS) ? [...t] : [t]));
  return list.map((t) => {
    const named = typeof t === 'string' ? NAMED_TESTS[t] : undefined;
    const test = typeof t === 'number' ? T_CLASS : (named ?? T_CHAR);
    const arg = typeof t === 'number' ? t : named === undefined ? t.charCodeAt(0) : 0;
    return { test, arg, act, to: to === SAME ? state : to, type, fx };
  });
}

const TABLE: Rule[][] = [];
for (let s = 0; s < STATE_COUNT; s++) {
  const specs = SPECS[s];
  if (!specs) throw new Error(`text-search parser: state ${s} has no rules`);
  TABLE.push(specs.flatMap((spec) => rulesOf(s, spec)));
}

// ---- the machine ----------------------------------------------------------------------------------

/**
 * Tokenises `text`; `onToken` is called for every token in order (blanks included) with its
 * type id and [start, end) offsets in UTF-16 units.
 * Code points and their classes are decoded once up front so that rule tests are array loads.
 */
export function tokenize(text: string, onToken: (type: number, start: number, end: number) => void): void {
  const input = decode(text);
  const m = new Machine(input);
  m.state = S.Base;
  for (;;) {
    const type = m.next();
    if (type < 0) break;
    onToken(type, input.off[m.tokStart]!, input.off[m.tokEnd]!);
  }
}

/** Convenience for tests and debugging: the ts_debug()-like list of [alias, token]. */
export function debugTokens(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  tokenize(text, (type, start, end) => {
    out.push([TOKEN_TYPE_NAMES[type]!, text.slice(start, end)]);
  });
  return out;
}

interface Decoded {
  cp: Int32Array;
  cls: Uint8Array;
  off: Int32Array;
  n: number;
}

function decode(text: string): Decoded {
  const len = text.length;
  const cp = new Int32Array(len);
  const cls = new Uint8Array(len);
  const off = new Int32Array(len + 1);
  let n = 0;
  for (let i = 0; i < len; i++) {
    let c = text.charCodeAt(i);
    off[n] = i;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < len) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        i++;
      }
    }
    cp[n] = c;
    cls[n] = charFlags(c);
    n++;
  }
  off[n] = len;
  return { cp, cls, off, n };
}

interface Checkpoint {
  state: number;
  pos: number;
  rule: number;
}

class Machine {
  state: number = S.Base;
  pos = 0;
  tokStart = 0;
  tokEnd = 0;
  /** Inside <script>/<style>: everything up to the next tag is blank. */
  ignore = false;
  /** Set while re-reading a URL (or checking an e-mail's host): a host stops before '/'. */
  wanthost = false;
  private halted = false;
  private stack: Checkpoint[] = [];

  constructor(private readonly input: Decoded) {}

  /** Returns the type of the next token (its bounds in tokStart/tokEnd), or -1 at the end. */
  next(): number {
    if (this.halted) return -1;
    const { cp, cls, n } = this.input;
    const stack = this.stack;
    this.tokStart = this.pos;
    let from = 0;
    for (;;) {
      const rules = TABLE[this.state]!;
      const p = this.pos;
      const eof = p >= n;
      const c = eof ? -1 : cp[p]!;
      const f = eof ? 0 : cls[p]!;
      let k = from;
      let r: Rule = rules[k]!;
      from = 0;
      for (; k < rules.length; k++) {
        r = rules[k]!;
        let ok: boolean;
        switch (r.test) {
          case T_ANY:
            ok = true;
            break;
          case T_EOF:
            ok = eof;
            break;
          case T_CHAR:
            ok = c === r.arg;
            break;
          case T_CLASS:
            ok = (f & r.arg) !== 0;
            break;
          case T_NOTALNUM:
            ok = !eof && (f & (C_ALPHA | C_DIGIT)) === 0;
            break;
          case T_IGNORE:
            ok = !eof && this.ignore;
            break;
          case T_STOPHOST:
            ok = this.wanthost;
            if (ok) this.wanthost = false;
            break;
          case T_ISHOST:
            ok = !eof && this.isHost();
            break;
          case T_ISURLPATH:
            ok = !eof && this.isUrlPath();
            break;
          default:
            ok = false;
        }
        if (ok) break;
      }
      const act = r.act;
      if (act & POP) {
        const cpt = stack.pop();
        if (!cpt) {
          this.state = S.Space;
          continue;
        }
        this.state = cpt.state;
        this.pos = cpt.pos;
        from = cpt.rule + 1;
        continue;
      }
      if (act & PUSH) stack.push({ state: this.state, pos: p, rule: k });
      if (act & CLRALL) stack.length = 0;
      else if (act & CLEAR) stack.splice(stack.length - (act & PUSH ? 2 : 1), 1);
      if (r.fx === X_TAGNAME) this.tagName();
      // PostgreSQL stops tokenising altogether when a backslash-escaped character inside a quoted
      // attribute of a would-be tag is the last character of the text (observed, mimicked).
      else if (r.fx === X_ESCAPED && p + 1 >= n) {
        this.halted = true;
        return -1;
      }
      this.state = r.to;
      if (act & EMIT) {
        stack.length = 0;
        this.tokEnd = this.pos;
        if (r.fx === X_URL) {
          // The URL has been emitted whole; it is read again as host + path.
          this.wanthost = true;
          this.pos = this.tokStart;
        } else if (r.fx === X_HYPHEN) {
          // The compound has been emitted whole; it is read again part by part.
          this.pos = this.tokStart;
        }
        if (r.type === 0 && eof) return -1;
        if (this.tokEnd === this.tokStart) {
          this.tokStart = this.pos;
          from = 0;
          continue;
        }
        return r.type === 0 ? Tok.Blank : r.type;
      }
      if (r.fx === X_SIGNED_VERSION) {
        stack.length = 0;
        this.tokEnd = this.tokStart + 1;
        this.pos = this.tokEnd;
        return Tok.Blank;
      }
      if (act & RERUN) continue;
      if (eof) {
        this.tokEnd = this.pos;
        return this.tokEnd > this.tokStart ? Tok.Blank : -1;
      }
      this.pos = p + 1;
    }
  }

  /** At the end of a tag name: <script> and <style> switch to ignoring text until their end tag. */
  private tagName(): void {
    const { cp } = this.input;
    const len = this.pos - this.tokStart;
    if (len < 6 || len > 8) return;
    let name = '';
    for (let i = this.tokStart; i < this.pos; i++) {
      const c = cp[i]!;
      name += String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c);
    }
    if (name === '</script' || name === '</style') this.ignore = false;
    else if (name === '<script' || name === '<style') this.ignore = true;
  }

  /** After '@': does a host name start here? If so the e-mail token extends over it. */
  private isHost(): boolean {
    const sub = new Machine(this.input);
    sub.pos = this.pos;
    sub.state = S.Base;
    sub.wanthost = true;
    const type = sub.next();
    if (type !== Tok.Host || sub.tokStart !== this.pos) return false;
    this.pos = sub.tokEnd;
    return true;
  }

  /** After host + '/': does a URL path follow? If so the URL token extends over it. */
  private isUrlPath(): boolean {
    const sub = new Machine(this.input);
    sub.pos = this.pos;
    sub.state = S.UrlPathFirst;
    const type = sub.next();
    if (type !== Tok.UrlPath) return false;
    this.pos = sub.tokEnd;
    return true;
  }
}
