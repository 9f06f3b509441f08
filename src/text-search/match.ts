// tsvector @@ tsquery, including phrase operators with their position arithmetic and negation,
// and the necessary lexeme condition used to pre-select rows through an inverted index.

import type { TsQuery, TsQueryLexeme, TsQueryNode } from './tsquery.js';
import type { TsVector, TsVectorEntry } from './tsvector.js';
import { compareLexemes } from './tsvector.js';

/** Index of the first entry whose lexeme is >= `lexeme` (entries are sorted). */
export function lowerBound(entries: TsVectorEntry[], lexeme: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareLexemes(entries[mid]!.lexeme, lexeme) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** [first, end) range of entries matched by a query operand (one entry, or all with the prefix). */
export function matchingRange(entries: TsVectorEntry[], q: TsQueryLexeme): [number, number] {
  const first = lowerBound(entries, q.lexeme);
  if (!q.prefix) {
    const e = entries[first];
    return e !== undefined && e.lexeme === q.lexeme ? [first, first + 1] : [first, first];
  }
  let end = first;
  while (end < entries.length && entries[end]!.lexeme.startsWith(q.lexeme)) end++;
  return [first, end];
}

const WEIGHT_BIT: Readonly<Record<string, number>> = { A: 8, B: 4, C: 2, D: 1 };
function weightMask(weights: string | undefined): number {
  if (!weights) return 0;
  let m = 0;
  for (const w of weights) m |= WEIGHT_BIT[w] ?? 0;
  return m;
}

// Three-valued logic: a phrase over lexemes stored without positions can be neither proven nor refuted.
const NO = 0,
  YES = 1,
  MAYBE = 2;
type Tri = 0 | 1 | 2;

function operandMatches(v: TsVector, q: TsQueryLexeme): Tri {
  const [first, end] = matchingRange(v.entries, q);
  if (first === end) return NO;
  const mask = weightMask(q.weights);
  if (mask === 0) return YES;
  for (let k = first; k < end; k++) {
    const e = v.entries[k]!;
    // PostgreSQL lets a lexeme stored without positions satisfy any weight restriction
    if (e.positions.length === 0) return YES;
    for (let i = 0; i < e.positions.length; i++) {
      if (mask & (1 << (e.weights ? e.weights[i]! : 0))) return YES;
    }
  }
  return NO;
}

/** Positions where a phrase sub-expression matches (its rightmost position), or everywhere but them. */
interface PhraseData {
  pos: number[];
  negate: boolean;
  width: number;
}

function operandPositions(v: TsVector, q: TsQueryLexeme, out: PhraseData): Tri {
  const [first, end] = matchingRange(v.entries, q);
  if (first === end) return NO;
  const mask = weightMask(q.weights);
  let collected: number[] = [];
  let several = false;
  for (let k = first; k < end; k++) {
    const e = v.entries[k]!;
    if (e.positions.length === 0) return MAYBE;
    let ps = e.positions;
    if (mask) ps = ps.filter((_, i) => (mask & (1 << (e.weights ? e.weights[i]! : 0))) !== 0);
    if (ps.length === 0) continue;
    if (collected.length) several = true;
    collected = collected.length ? collected.concat(ps) : ps;
  }
  if (collected.length === 0) return NO;
  if (several) {
    collected.sort((a, b) => a - b);
    collected = collected.filter((p, i) => i === 0 || p !== collected[i - 1]);
  }
  out.pos = collected;
  out.negate = false;
  out.width = 0;
  return YES;
}

const EMIT_BOTH = 1,
  EMIT_LEFT_ONLY = 2,
  EMIT_RIGHT_ONLY = 4;

/**
 * Merges two position lists shifted by their offsets: positions present in both (EMIT_BOTH),
 * only in the left (EMIT_LEFT_ONLY) or only in the right (EMIT_RIGHT_ONLY) are kept.
 */
function mergePositions(out: PhraseData, L: PhraseData, R: PhraseData, emit: number, lOff: number, rOff: number): Tri {
  const res: number[] = [];
  let i = 0,
    j = 0;
  const lp = L.pos,
    rp = R.pos;
  while (i < lp.length || j < rp.length) {
    const a = i < lp.length ? lp[i]! + lOff : Infinity;
    const b = j < rp.length ? rp[j]! + rOff : Infinity;
    if (a < b) {
      if (emit & EMIT_LEFT_ONLY) res.push(a);
      i++;
    } else if (a > b) {
      if (emit & EMIT_RIGHT_ONLY) res.push(b);
      j++;
    } else {
      if (emit & EMIT_BOTH) res.push(a);
      i++;
      j++;
    }
    if (!(emit & EMIT_LEFT_ONLY) && j >= rp.length) break;
    if (!(emit & EMIT_RIGHT_ONLY) && i >= lp.length) break;
  }
  out.pos = res;
  out.negate = false;
  return res.length > 0 ? YES : NO;
}

function phraseExec(v: TsVector, n: TsQueryNode, out: PhraseData): Tri {
  switch (n.type) {
    case 'lexeme':
      return operandPositions(v, n, out);
    case 'not': {
      const r = phraseExec(v, n.arg, out);
      if (r === NO) {
        out.pos = [];
        out.negate = true;
        return YES;
      } // nowhere -> everywhere
      if (r === MAYBE) return MAYBE;
      if (out.pos.length > 0) {
        out.negate = !out.negate;
        return YES;
      }
      if (out.negate) {
        out.negate = false;
        return NO;
      } // everywhere -> nowhere
      return NO;
    }
    case 'phrase':
    case 'and': {
      const L: PhraseData = { pos: [], negate: false, width: 0 };
      const R: PhraseData = { pos: [], negate: false, width: 0 };
      const lm = phraseExec(v, n.left, L);
      if (lm === NO) return NO;
      const rm = phraseExec(v, n.right, R);
      if (rm === NO) return NO;
      if (lm === MAYBE || rm === MAYBE) return MAYBE;
      let lOff: number, rOff: number;
      if (n.type === 'phrase') {
        lOff = n.distance + R.width;
        rOff = 0;
        out.width = n.distance + L.width + R.width;
      } else {
        const w = Math.max(L.width, R.width);
        lOff = w - L.width;
        rOff = w - R.width;
        out.width = w;
      }
      if (L.negate && R.negate) {
        mergePositions(out, L, R, EMIT_BOTH | EMIT_LEFT_ONLY | EMIT_RIGHT_ONLY, lOff, rOff);
        out.negate = true;
        return YES;
      }
      if (L.negate) return mergePositions(out, L, R, EMIT_RIGHT_ONLY, lOff, rOff);
      if (R.negate) return mergePositions(out, L, R, EMIT_LEFT_ONLY, lOff, rOff);
      return mergePositions(out, L, R, EMIT_BOTH, lOff, rOff);
    }
    case 'or': {
      const L: PhraseData = { pos: [], negate: false, width: 0 };
      const R: PhraseData = { pos: [], negate: false, width: 0 };
      const lm = phraseExec(v, n.left, L);
      const rm = phraseExec(v, n.right, R);
      if (lm === NO && rm === NO) return NO;
      if (lm === MAYBE || rm === MAYBE) return MAYBE;
      // a side that matched nowhere contributes nothing, not even its width
      if (lm === NO) {
        L.pos = [];
        L.negate = false;
        L.width = 0;
      }
      if (rm === NO) {
        R.pos = [];
        R.negate = false;
        R.width = 0;
      }
      const w = Math.max(L.width, R.width);
      const lOff = w - L.width;
      const rOff = w - R.width;
      out.width = w;
      if (L.negate && R.negate) {
        mergePositions(out, L, R, EMIT_BOTH, lOff, rOff);
        out.negate = true;
        return YES;
      }
      if (L.negate) {
        mergePositions(out, L, R, EMIT_LEFT_ONLY, lOff, rOff);
        out.negate = true;
        return YES;
      }
      if (R.negate) {
        mergePositions(out, L, R, EMIT_RIGHT_ONLY, lOff, rOff);
        out.negate = true;
        return YES;
      }
      return mergePositions(out, L, R, EMIT_BOTH | EMIT_LEFT_ONLY | EMIT_RIGHT_ONLY, lOff, rOff);
    }
  }
}

function exec(v: TsVector, n: TsQueryNode): Tri {
  switch (n.type) {
    case 'lexeme':
      return operandMatches(v, n);
    case 'not': {
      const r = exec(v, n.arg);
      return r === YES ? NO : r === NO ? YES : MAYBE;
    }
    case 'and':
      return connective(v, n.left, n.right, NO, YES);
    case 'or':
      return connective(v, n.left, n.right, YES, NO);
    case 'phrase': {
      const data: PhraseData = { pos: [], negate: false, width: 0 };
      const r = phraseExec(v, n, data);
      // without positions a phrase cannot be confirmed: @@ treats that as no match
      if (r === MAYBE) return NO;
      return r;
    }
  }
}

/**
 * Three-valued AND (`decisive` NO) or OR (`decisive` YES): a decisive side decides without the other (which is then
 * not evaluated), both sides `opposite` make the opposite, anything else is MAYBE.
 */
function connective(v: TsVector, left: TsQueryNode, right: TsQueryNode, decisive: Tri, opposite: Tri): Tri {
  const l = exec(v, left);
  if (l === decisive) return decisive;
  const r = exec(v, right);
  if (r === decisive) return decisive;
  return l === opposite && r === opposite ? opposite : MAYBE;
}

/** tsvector @@ tsquery */
export function matches(v: TsVector, q: TsQuery): boolean {
  if (q.type === 'empty') return false;
  return exec(v, q) !== NO;
}

export type CandidateFilter =
  | { kind: 'all' }
  | { kind: 'none' }
  | { kind: 'term'; lexeme: string; prefix: boolean }
  | { kind: 'and'; of: CandidateFilter[] }
  | { kind: 'or'; of: CandidateFilter[] };

const ALL: CandidateFilter = { kind: 'all' };
const NONE: CandidateFilter = { kind: 'none' };

function filterOf(n: TsQueryNode): CandidateFilter {
  switch (n.type) {
    case 'lexeme':
      return { kind: 'term', lexeme: n.lexeme, prefix: n.prefix };
    // a negated sub-query can be satisfied by a row without any particular lexeme
    case 'not':
      return ALL;
    case 'and':
    case 'phrase':
      return combined('and', filterOf(n.left), filterOf(n.right), NONE, ALL);
    case 'or':
      return combined('or', filterOf(n.left), filterOf(n.right), ALL, NONE);
  }
}

/**
 * `left` and `right` joined by `kind`, flattened into one list: `absorbing` decides the whole
 * (none for AND, all for OR) and `neutral` drops out.
 */
function combined(
  kind: 'and' | 'or',
  left: CandidateFilter,
  right: CandidateFilter,
  absorbing: CandidateFilter,
  neutral: CandidateFilter,
): CandidateFilter {
  const of: CandidateFilter[] = [];
  for (const c of [left, right]) {
    if (c.kind === absorbing.kind) return absorbing;
    if (c.kind === neutral.kind) continue;
    if (c.kind === kind) of.push(...c.of);
    else of.push(c);
  }
  return of.length === 0 ? neutral : of.length === 1 ? of[0]! : { kind, of };
}

/**
 * Whether candidateFilter(q) is also sufficient: a query of lexemes (prefixed or not, without weight restrictions)
 * joined only by & and | matches exactly the vectors that hold the lexemes the filter asks for.
 */
export function candidatesAreExact(q: TsQuery): boolean {
  const exact = (n: TsQueryNode): boolean =>
    n.type === 'lexeme' ? !n.weights : (n.type === 'and' || n.type === 'or') && exact(n.left) && exact(n.right);
  return q.type === 'empty' || exact(q);
}

/** A necessary condition on the lexemes of any vector matching `q` ('none': nothing matches). */
export function candidateFilter(q: TsQuery): CandidateFilter {
  return q.type === 'empty' ? NONE : filterOf(q);
}

/**
 * Lexemes are hex-encoded for the FTS5 candidate index so that no tokenizer rule or query syntax can split or
 * misread them, while a prefix of a lexeme's bytes stays a prefix of its key (for `:*` queries).
 */
export function lexemeKey(lexeme: string): string {
  // Most lexemes are ASCII, whose UTF-8 is its characters: written straight from a table, with no buffer per lexeme.
  let key = '';
  for (let i = 0; i < lexeme.length; i++) {
    const code = lexeme.charCodeAt(i);
    if (code >= 0x80) return Buffer.from(lexeme, 'utf8').toString('hex');
    key += HEX_BYTES[code]!;
  }
  return key;
}

const HEX_BYTES = Array.from({ length: 0x80 }, (_, code) => code.toString(16).padStart(2, '0'));
