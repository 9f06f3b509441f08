// The tsvector value: building it from text through a configuration (to_tsvector), its text
// form (tsvector output and input syntax), and the lexeme ordering PostgreSQL uses.

import type { TextSearchConfig } from './dictionaries.js';
import { utf8Length } from './dictionaries.js';
import { tokenize } from './parser.js';

export interface TsVectorEntry {
  lexeme: string;
  /** 1-based, ascending, unique; empty for a lexeme stored without positions (e.g. 'a'::tsvector). */
  positions: number[];
  /** Weight of each position, parallel to `positions`: 3 = A, 2 = B, 1 = C, 0 = D. Absent = all D. */
  weights?: number[];
}

export interface TsVector {
  entries: TsVectorEntry[];
}

/** Positions above this are stored as this (PostgreSQL's MAXENTRYPOS - 1). */
export const MAX_POSITION = 16383;
/** A lexeme keeps at most this many positions (tsvector input)... */
const MAX_POSITIONS_PER_LEXEME = 256;
/** ...but to_tsvector keeps one fewer (observed). */
const MAX_POSITIONS_BUILT = 255;
/** Tokens of this many bytes or more are skipped (with a NOTICE in PostgreSQL). */
const MAX_TOKEN_BYTES = 2048;

/**
 * Lexeme order: byte-wise on UTF-8, shorter first on a common prefix. UTF-8 byte order is code
 * point order, which differs from JavaScript's UTF-16 order only between surrogates and U+E000+.
 */
export function compareLexemes(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        // lift surrogates above the rest of the BMP
        x = x <= 0xdfff ? x + 0x10000 : x;
        y = y <= 0xdfff ? y + 0x10000 : y;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/**
 * Runs the parser and the configuration's dictionaries over `text`, calling `emit` for every
 * lexeme with its position. Returns the last position used. Positions advance once per token that
 * a dictionary handled, stop words included, exactly as PostgreSQL counts them.
 */
export function lexize(cfg: TextSearchConfig, text: string, emit: (lexeme: string, pos: number) => void): number {
  let pos = 0;
  const dicts = cfg.dictionaryFor;
  tokenize(text, (type, start, end) => {
    const dict = dicts[type];
    if (dict === undefined) return;
    if (end - start >= MAX_TOKEN_BYTES / 3 && utf8Length(text.slice(start, end)) >= MAX_TOKEN_BYTES) return;
    const lexemes = dict(text.slice(start, end));
    pos++;
    for (let i = 0; i < lexemes.length; i++) emit(lexemes[i]!, pos);
  });
  return pos;
}

/**
 * Gathers lexemes with their positions, in ascending position order, into a tsvector as to_tsvector does: positions
 * capped at MAX_POSITION, a position kept once per lexeme, at most MAX_POSITIONS_BUILT positions per lexeme.
 */
export class TsvectorBuilder {
  private readonly byLexeme = new Map<string, number[]>();

  add(lexeme: string, pos: number): void {
    const p = pos > MAX_POSITION ? MAX_POSITION : pos;
    const list = this.byLexeme.get(lexeme);
    if (list === undefined) this.byLexeme.set(lexeme, [p]);
    else if (list[list.length - 1] !== p && list.length < MAX_POSITIONS_BUILT) list.push(p);
  }

  build(): TsVector {
    const entries: TsVectorEntry[] = [];
    for (const [lexeme, positions] of this.byLexeme) entries.push({ lexeme, positions });
    entries.sort((x, y) => compareLexemes(x.lexeme, y.lexeme));
    return { entries };
  }
}

/** to_tsvector(config, text). */
export function buildTsvector(cfg: TextSearchConfig, text: string): TsVector {
  const builder = new TsvectorBuilder();
  lexize(cfg, text, (lexeme, pos) => builder.add(lexeme, pos));
  return builder.build();
}

const WEIGHT_LETTERS = ['', 'C', 'B', 'A'];

function quoteLexeme(lexeme: string): string {
  if (lexeme.indexOf("'") < 0 && lexeme.indexOf('\\') < 0) return `'${lexeme}'`;
  return `'${lexeme.replace(/(['\\])/g, '$1$1')}'`;
}
export { quoteLexeme };

/**
 * Reads the quoted lexeme whose opening quote is at `text[start]`, as tsvector and tsquery input write it ('' for a
 * quote, a backslash taking the next character literally): the lexeme and the index after the closing quote, or null
 * when the quote is not closed or holds nothing. A backslash ending the text calls `escapeAtEnd`.
 */
export function readQuoted(text: string, start: number, escapeAtEnd: () => never): [string, number] | null {
  const n = text.length;
  let i = start + 1;
  let lexeme = '';
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 39 /* ' */) {
      if (text.charCodeAt(i + 1) !== 39) return lexeme.length === 0 ? null : [lexeme, i + 1];
      lexeme += "'";
      i += 2;
      continue;
    }
    if (c === 92 /* \ */) {
      if (i + 1 >= n) escapeAtEnd();
      lexeme += text[i + 1];
      i += 2;
      continue;
    }
    lexeme += text[i];
    i++;
  }
  return null;
}

/** tsvector::text */
export function formatTsvector(v: TsVector): string {
  let out = '';
  for (const e of v.entries) {
    if (out.length) out += ' ';
    out += quoteLexeme(e.lexeme);
    const ps = e.positions;
    if (ps.length === 0) continue;
    const ws = e.weights;
    out += ':';
    for (let i = 0; i < ps.length; i++) {
      if (i) out += ',';
      out += ps[i]!;
      if (ws) out += WEIGHT_LETTERS[ws[i]!]!;
    }
  }
  return out;
}

/**
 * The entries of some lexemes read straight from a tsvector's text as formatTsvector writes it (quoted lexemes in
 * order, positions without weights), without parsing the rest; null when the text holds weights, so that the caller
 * parses it whole. A lexeme is recognised only where an entry starts, so one cannot be found inside another.
 */
export function entriesInText(text: string, lexemes: readonly string[]): TsVector | null {
  const entries: TsVectorEntry[] = [];
  for (const lexeme of lexemes) {
    const needle = quoteLexeme(lexeme);
    for (let from = 0; ;) {
      const at = text.indexOf(needle, from);
      if (at < 0) break;
      let i = at + needle.length;
      const next = text.charCodeAt(i);
      if ((at > 0 && text.charCodeAt(at - 1) !== 32) || !(Number.isNaN(next) || next === 32 || next === 58)) {
        from = at + 1;
        continue;
      }
      const positions: number[] = [];
      if (next === 58 /* : */) {
        let value = 0;
        for (i++; i <= text.length; i++) {
          const c = text.charCodeAt(i);
          if (c >= 48 && c <= 57) value = value * 10 + (c - 48);
          else if (c === 44 /* , */ || c === 32 || Number.isNaN(c)) {
            positions.push(value);
            value = 0;
            if (c !== 44) break;
          } else return null;
        }
      }
      entries.push({ lexeme, positions });
      break;
    }
  }
  entries.sort((x, y) => compareLexemes(x.lexeme, y.lexeme));
  return { entries };
}

export class TsVectorSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TsVectorSyntaxError';
  }
}

/** A position as PostgreSQL reads it: C atoi() semantics, then clamped and cut to 14 bits. */
function positionValue(digits: string): number {
  let v: number;
  if (digits.length <= 9) v = Number(digits);
  else {
    let big = BigInt(digits);
    if (big > 0x7fffffffffffffffn) big = 0x7fffffffffffffffn;
    v = Number(BigInt.asIntN(32, big));
  }
  return v >= MAX_POSITION + 1 ? MAX_POSITION : v & 0x3fff;
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** tsvector input syntax: 'lexeme':1,2A lexeme2 ... (duplicates merged, positions sorted). */
export function parseTsvectorText(text: string): TsVector {
  const raw: TsVectorEntry[] = [];
  const n = text.length;
  let i = 0;
  const fail = (): never => {
    throw new TsVectorSyntaxError(`syntax error in tsvector: "${text}"`);
  };
  for (;;) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i >= n) break;
    let lexeme: string;
    let c = text.charCodeAt(i);
    if (c === 39 /* ' */) {
      [lexeme, i] = readQuoted(text, i, fail) ?? fail();
    } else {
      // the first character is always part of the word, even ':'; quotes inside are literal
      const start = i;
      let simple = true;
      for (let first = true; i < n; first = false) {
        c = text.charCodeAt(i);
        if (isSpace(c) || (c === 58 /* : */ && !first)) break;
        if (c === 92) {
          simple = false;
          if (i + 1 >= n) fail();
          i += 2;
          continue;
        }
        i++;
      }
      lexeme = simple ? text.slice(start, i) : text.slice(start, i).replace(/\\(.)/gsu, '$1');
    }
    const positions: number[] = [];
    let weights: number[] | undefined;
    if (i < n && text.charCodeAt(i) === 58) {
      i++;
      for (;;) {
        const ds = i;
        while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
        if (i === ds) fail();
        const p = positionValue(text.slice(ds, i));
        if (p === 0) throw new TsVectorSyntaxError(`wrong position info in tsvector: "${text}"`);
        // after the number PostgreSQL reads up to ',' or a space: one weight letter (D, being the
        // default, may come before another), digits are ignored, anything else is an error
        let w = 0;
        let more = false;
        while (i < n) {
          const d = text.charCodeAt(i);
          if (isSpace(d)) break;
          i++;
          if (d === 44 /* , */) {
            more = true;
            break;
          }
          const lc = d | 0x20;
          if ((lc >= 97 && lc <= 100) || d === 42) {
            if (w !== 0) fail();
          }
          if (lc === 97 || d === 42) w = 3;
          else if (lc === 98) w = 2;
          else if (lc === 99) w = 1;
          else if (lc === 100) w = 0;
          else if (d < 48 || d > 57) fail();
        }
        positions.push(p);
        if (w !== 0) weights ??= new Array<number>(positions.length - 1).fill(0);
        if (weights) weights.push(w);
        if (!more) break;
      }
    }
    const entry: TsVectorEntry = { lexeme, positions };
    if (weights) entry.weights = weights;
    raw.push(entry);
  }
  return normaliseEntries(raw);
}

/** Sorts lexemes, merges duplicates, sorts and de-duplicates positions as tsvector input does. */
function normaliseEntries(raw: TsVectorEntry[]): TsVector {
  let sorted = true;
  for (let k = 1; k < raw.length; k++)
    if (compareLexemes(raw[k - 1]!.lexeme, raw[k]!.lexeme) >= 0) {
      sorted = false;
      break;
    }
  if (sorted) {
    for (const e of raw) if (!positionsClean(e)) cleanPositions(e);
    return { entries: raw };
  }
  const stable = raw.map((e, idx) => ({ e, idx }));
  stable.sort((x, y) => compareLexemes(x.e.lexeme, y.e.lexeme) || x.idx - y.idx);
  const entries: TsVectorEntry[] = [];
  for (const { e } of stable) {
    const last = entries[entries.length - 1];
    if (last && last.lexeme === e.lexeme) {
      if (e.positions.length) {
        const lw = last.weights ?? (e.weights ? new Array<number>(last.positions.length).fill(0) : undefined);
        last.positions = last.positions.concat(e.positions);
        if (lw) last.weights = lw.concat(e.weights ?? new Array<number>(e.positions.length).fill(0));
      }
    } else {
      entries.push({ ...e });
    }
  }
  for (const e of entries) if (!positionsClean(e)) cleanPositions(e);
  return { entries };
}

function positionsClean(e: TsVectorEntry): boolean {
  const ps = e.positions;
  for (let k = 1; k < ps.length; k++) if (ps[k - 1]! >= ps[k]!) return false;
  return ps.length <= MAX_POSITIONS_PER_LEXEME;
}

function cleanPositions(e: TsVectorEntry): void {
  const pairs = e.positions.map((p, k) => [p, e.weights ? e.weights[k]! : 0] as [number, number]);
  pairs.sort((x, y) => x[0] - y[0]);
  const ps: number[] = [];
  const ws: number[] = [];
  for (const [p, w] of pairs) {
    if (ps.length && ps[ps.length - 1] === p) {
      // the same position given twice keeps the higher weight
      if (w > ws[ws.length - 1]!) ws[ws.length - 1] = w;
      continue;
    }
    ps.push(p);
    ws.push(w);
  }
  e.positions = ps.slice(0, MAX_POSITIONS_PER_LEXEME);
  if (ws.some((w) => w !== 0)) e.weights = ws.slice(0, MAX_POSITIONS_PER_LEXEME);
  else delete e.weights;
}
