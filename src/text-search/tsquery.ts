// The tsquery value: the query syntax (& | ! <-> <N> parentheses, :* prefix, :ABCD weights),
// to_tsquery/plainto_tsquery normalisation through a configuration, stop-word removal, and text output.

import type { TextSearchConfig } from './dictionaries.js';
import { lexize, quoteLexeme, readQuoted } from './tsvector.js';

export interface TsQueryLexeme {
  type: 'lexeme';
  lexeme: string;
  prefix: boolean;
  /** Restricts matches to positions with these weights: a subset of 'ABCD' in that order. */
  weights?: string;
}
export interface TsQueryNot {
  type: 'not';
  arg: TsQueryNode;
}
export interface TsQueryBinary {
  type: 'and' | 'or';
  left: TsQueryNode;
  right: TsQueryNode;
}
export interface TsQueryPhrase {
  type: 'phrase';
  left: TsQueryNode;
  right: TsQueryNode;
  distance: number;
}
export type TsQueryNode = TsQueryLexeme | TsQueryNot | TsQueryBinary | TsQueryPhrase;
/** `{ type: 'empty' }` is the query without lexemes (''::tsquery, or only stop words). */
export type TsQuery = TsQueryNode | { type: 'empty' };

export class TsQuerySyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TsQuerySyntaxError';
  }
}

export const MAX_PHRASE_DISTANCE = 16384;

// ---- lexical analysis of the query text -------------------------------------------------------------

type QToken =
  | { kind: 'operand'; text: string; prefix: boolean; weights: string }
  | { kind: 'not' }
  | { kind: 'open' }
  | { kind: 'close' }
  | { kind: 'and' }
  | { kind: 'or' }
  | { kind: 'phrase'; distance: number };

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** Characters that end an unquoted operand. */
function endsOperand(c: number): boolean {
  return (
    isSpace(c) ||
    c === 38 /* & */ ||
    c === 124 /* | */ ||
    c === 33 /* ! */ ||
    c === 40 /* ( */ ||
    c === 41 /* ) */ ||
    c === 60 /* < */ ||
    c === 58
  ); /* : */
}

/**
 * Splits the query into tokens and checks the grammar (operands and operators alternate,
 * parentheses balance). Throws TsQuerySyntaxError with PostgreSQL's messages.
 */
function scanQuery(text: string): QToken[] {
  const out: QToken[] = [];
  const n = text.length;
  let i = 0;
  let waitOperand = true;
  let depth = 0;
  const syntax = (): never => {
    throw new TsQuerySyntaxError(`syntax error in tsquery: "${text}"`);
  };
  const noEscaped = (): never => {
    throw new TsQuerySyntaxError(`there is no escaped character: "${text}"`);
  };
  for (;;) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i >= n) {
      if (waitOperand) {
        if (out.length === 0) return out;
        throw new TsQuerySyntaxError(`no operand in tsquery: "${text}"`);
      }
      if (depth !== 0) syntax();
      return out;
    }
    const c = text.charCodeAt(i);
    if (waitOperand) {
      if (c === 33) {
        out.push({ kind: 'not' });
        i++;
        continue;
      }
      if (c === 40) {
        out.push({ kind: 'open' });
        depth++;
        i++;
        continue;
      }
      if (c === 58 || c === 38 || c === 124 || c === 41 || c === 60) syntax();
      let word = '';
      if (c === 39 /* ' */) {
        [word, i] = readQuoted(text, i, noEscaped) ?? syntax();
      } else {
        while (i < n) {
          const d = text.charCodeAt(i);
          if (endsOperand(d)) break;
          // A backslash takes the next character literally, as in quoted operands.
          if (d === 92) {
            if (i + 1 >= n) noEscaped();
            const cp = text.codePointAt(i + 1)!;
            word += String.fromCodePoint(cp);
            i += cp > 0xffff ? 3 : 2;
            continue;
          }
          word += text[i];
          i++;
        }
      }
      let prefix = false;
      let wmask = 0;
      if (i < n && text.charCodeAt(i) === 58) {
        i++;
        for (; i < n; i++) {
          const d = text.charCodeAt(i);
          if (d === 42) prefix = true;
          else if (d === 65 || d === 97) wmask |= 8;
          else if (d === 66 || d === 98) wmask |= 4;
          else if (d === 67 || d === 99) wmask |= 2;
          else if (d === 68 || d === 100) wmask |= 1;
          else break;
        }
      }
      let weights = '';
      if (wmask & 8) weights += 'A';
      if (wmask & 4) weights += 'B';
      if (wmask & 2) weights += 'C';
      if (wmask & 1) weights += 'D';
      out.push({ kind: 'operand', text: word, prefix, weights });
      waitOperand = false;
      continue;
    }
    // waiting for an operator or ')'
    if (c === 38) {
      out.push({ kind: 'and' });
      i++;
      waitOperand = true;
      continue;
    }
    if (c === 124) {
      out.push({ kind: 'or' });
      i++;
      waitOperand = true;
      continue;
    }
    if (c === 41) {
      if (depth === 0) syntax();
      depth--;
      out.push({ kind: 'close' });
      i++;
      continue;
    }
    if (c === 60) {
      let j = i + 1;
      let distance: number;
      if (text.charCodeAt(j) === 45 && text.charCodeAt(j + 1) === 62) {
        distance = 1;
        j += 2;
      } else {
        const ds = j;
        while (j < n && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
        if (j === ds || text.charCodeAt(j) !== 62) syntax();
        distance = Number(text.slice(ds, j));
        j++;
        if (distance > MAX_PHRASE_DISTANCE) {
          throw new TsQuerySyntaxError(
            'distance in phrase operator must be an integer value between zero and 16384 inclusive',
          );
        }
      }
      // a phrase operator that ends the text is a syntax error (with text after it: no operand)
      if (j >= n) syntax();
      out.push({ kind: 'phrase', distance });
      i = j;
      waitOperand = true;
      continue;
    }
    syntax();
  }
}

// ---- tree building ----------------------------------------------------------------------------------

// While the tree is built, an operand that normalised to nothing (a stop word) and anything
// left without operands by its removal is a Gap: it still occupies positions, so phrase
// distances across it grow by its width. Surviving subtrees carry the gap widths next to them.
interface Gap {
  gap: true;
  width: number;
}
interface Padded {
  gap: false;
  node: TsQueryNode;
  left: number;
  right: number;
}
type Part = Gap | Padded;

const PRIORITY = { or: 1, and: 2, phrase: 3, not: 4 } as const;

const GAP: Gap = { gap: true, width: 0 };
function padded(node: TsQueryNode, left = 0, right = 0): Padded {
  return { gap: false, node, left, right };
}

function combine(kind: 'and' | 'or' | 'phrase', L: Part, R: Part, distance: number): Part {
  if (kind !== 'phrase') {
    if (L.gap) return R.gap ? GAP : R;
    if (R.gap) return L;
    return padded({ type: kind, left: L.node, right: R.node });
  }
  if (L.gap) {
    if (R.gap) return { gap: true, width: L.width + distance + R.width };
    return padded(R.node, L.width + distance + R.left, R.right);
  }
  if (R.gap) return padded(L.node, L.left, L.right + distance + R.width);
  const d = Math.min(distance + L.right + R.left, MAX_PHRASE_DISTANCE);
  return padded({ type: 'phrase', left: L.node, right: R.node, distance: d }, L.left, R.right);
}

function buildTree(tokens: QToken[], operand: (t: Extract<QToken, { kind: 'operand' }>) => Part): Part | undefined {
  // Shunting-yard over the already validated token stream; binary operators are left-associative.
  type Op = { kind: 'and' | 'or' | 'phrase' | 'not' | 'open'; distance: number };
  const values: Part[] = [];
  const ops: Op[] = [];
  const apply = (op: Op): void => {
    if (op.kind === 'not') {
      const a = values.pop()!;
      values.push(a.gap ? a : padded({ type: 'not', arg: a.node }, a.left, a.right));
      return;
    }
    const r = values.pop()!;
    const l = values.pop()!;
    values.push(combine(op.kind as 'and' | 'or' | 'phrase', l, r, op.distance));
  };
  const prio = (k: Op['kind']): number => (k === 'open' ? 0 : PRIORITY[k]);
  for (const t of tokens) {
    switch (t.kind) {
      case 'operand':
        values.push(operand(t));
        break;
      case 'not':
        ops.push({ kind: 'not', distance: 0 });
        break;
      case 'open':
        ops.push({ kind: 'open', distance: 0 });
        break;
      case 'close': {
        while (ops.length && ops[ops.length - 1]!.kind !== 'open') apply(ops.pop()!);
        ops.pop();
        break;
      }
      default: {
        const p = prio(t.kind);
        while (ops.length && ops[ops.length - 1]!.kind !== 'open' && prio(ops[ops.length - 1]!.kind) >= p)
          apply(ops.pop()!);
        ops.push({ kind: t.kind, distance: t.kind === 'phrase' ? t.distance : 0 });
      }
    }
  }
  while (ops.length) apply(ops.pop()!);
  return values[0];
}

function finish(p: Part | undefined): TsQuery {
  return p === undefined || p.gap ? { type: 'empty' } : p.node;
}

function lexemeNode(lexeme: string, prefix: boolean, weights: string): TsQueryLexeme {
  const node: TsQueryLexeme = { type: 'lexeme', lexeme, prefix };
  if (weights) node.weights = weights;
  return node;
}

/** Operand text through the configuration: several lexemes become a phrase by their positions. */
function morph(cfg: TextSearchConfig, text: string, prefix: boolean, weights: string): Part {
  const lex: string[] = [];
  const pos: number[] = [];
  lexize(cfg, text, (lexeme, p) => {
    lex.push(lexeme);
    pos.push(p);
  });
  if (lex.length === 0) return GAP;
  let acc: TsQueryNode | null = null;
  let accPos = 0;
  for (let k = 0; k < lex.length;) {
    // lexemes sharing a position are alternatives
    let group: TsQueryNode = lexemeNode(lex[k]!, prefix, weights);
    const p = pos[k]!;
    k++;
    while (k < lex.length && pos[k] === p) {
      group = { type: 'or', left: group, right: lexemeNode(lex[k]!, prefix, weights) };
      k++;
    }
    acc =
      acc === null
        ? group
        : { type: 'phrase', left: acc, right: group, distance: Math.min(p - accPos, MAX_PHRASE_DISTANCE) };
    accPos = p;
  }
  return padded(acc!);
}

/** to_tsquery(config, text) */
export function toTsqueryWith(cfg: TextSearchConfig, text: string): TsQuery {
  const tokens = scanQuery(text);
  if (tokens.length === 0) return { type: 'empty' };
  return finish(buildTree(tokens, (t) => morph(cfg, t.text, t.prefix, t.weights)));
}

/** tsquery input: operands are taken literally, nothing is removed. */
export function parseTsqueryText(text: string): TsQuery {
  const tokens = scanQuery(text);
  if (tokens.length === 0) return { type: 'empty' };
  return finish(buildTree(tokens, (t) => padded(lexemeNode(t.text, t.prefix, t.weights))));
}

/** plainto_tsquery(config, text): every lexeme AND-ed, stop words dropped. */
export function plainToTsqueryWith(cfg: TextSearchConfig, text: string): TsQuery {
  let acc: TsQueryNode | null = null;
  lexize(cfg, text, (lexeme) => {
    const node = lexemeNode(lexeme, false, '');
    acc = acc === null ? node : { type: 'and', left: acc, right: node };
  });
  return acc ?? { type: 'empty' };
}

// ---- output ----------------------------------------------------------------------------------------

function priority(n: TsQueryNode): number {
  return n.type === 'lexeme' ? 5 : PRIORITY[n.type];
}

function formatNode(n: TsQueryNode): string {
  switch (n.type) {
    case 'lexeme': {
      let s = quoteLexeme(n.lexeme);
      if (n.prefix || n.weights) s += ':' + (n.prefix ? '*' : '') + (n.weights ?? '');
      return s;
    }
    case 'not': {
      const inner = formatNode(n.arg);
      return n.arg.type === 'lexeme' || n.arg.type === 'not' ? '!' + inner : `!( ${inner} )`;
    }
    default: {
      const p = priority(n);
      const l = formatNode(n.left);
      const r = formatNode(n.right);
      const lp = priority(n.left) < p ? `( ${l} )` : l;
      const rp = priority(n.right) < p || (n.type === 'phrase' && n.right.type === 'phrase') ? `( ${r} )` : r;
      const op = n.type === 'phrase' ? (n.distance === 1 ? '<->' : `<${n.distance}>`) : n.type === 'and' ? '&' : '|';
      return `${lp} ${op} ${rp}`;
    }
  }
}

/** tsquery::text ('' for the empty query). */
export function formatTsquery(q: TsQuery): string {
  return q.type === 'empty' ? '' : formatNode(q);
}
