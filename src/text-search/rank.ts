// ts_rank(vector, query, normalization) with the default weights, reproducing PostgreSQL's
// single-precision arithmetic step by step so that results agree to the last float4 bit.

import { matchingRange } from './match.js';
import type { TsQuery, TsQueryLexeme, TsQueryNode } from './tsquery.js';
import type { TsVector, TsVectorEntry } from './tsvector.js';
import { compareLexemes } from './tsvector.js';

const f = Math.fround;

/** Default weights of D, C, B, A (ts_rank's {0.1, 0.2, 0.4, 1.0}), as float4. */
const DEFAULT_WEIGHTS = [f(0.1), f(0.2), f(0.4), f(1.0)] as const;
/** Position used when a lexeme has no positions; ranks then see a weight-D hit there. */
const NO_POSITION = 16383;
/** pi^2 / 6 as PostgreSQL writes it: the limit of sum(1/i^2) normalising repeated hits. */
const ZETA2 = 1.64493406685;

export const RANK_NORM_LOGLENGTH = 1;
export const RANK_NORM_LENGTH = 2;
export const RANK_NORM_EXTDIST = 4;
export const RANK_NORM_UNIQ = 8;
export const RANK_NORM_LOGUNIQ = 16;
export const RANK_NORM_RDIVRPLUS1 = 32;

/**
 * The query's operands, each distinct lexeme once (NOT branches included), in lexeme order.
 * Which of several operands with the same lexeme survives (they may differ in the prefix flag)
 * follows PostgreSQL: operands are listed right subtree first (its prefix-notation storage) and
 * sorted with the BSD quicksort it uses, which is not stable from 7 operands on.
 */
function distinctOperands(q: TsQueryNode): TsQueryLexeme[] {
  const all: TsQueryLexeme[] = [];
  const walk = (n: TsQueryNode): void => {
    switch (n.type) {
      case 'lexeme':
        all.push(n);
        break;
      case 'not':
        walk(n.arg);
        break;
      default:
        walk(n.right);
        walk(n.left);
    }
  };
  walk(q);
  if (all.length < 2) return all;
  bsdQuicksort(all, (a, b) => compareLexemes(a.lexeme, b.lexeme));
  const out: TsQueryLexeme[] = [all[0]!];
  for (let i = 1; i < all.length; i++) if (all[i]!.lexeme !== out[out.length - 1]!.lexeme) out.push(all[i]!);
  return out;
}

/** Bentley & McIlroy's "engineered" quicksort in its BSD form (insertion sort below 7 items). */
export function bsdQuicksort<T>(arr: T[], cmp: (a: T, b: T) => number): void {
  const swap = (i: number, j: number): void => {
    const t = arr[i]!;
    arr[i] = arr[j]!;
    arr[j] = t;
  };
  const swapn = (i: number, j: number, n: number): void => {
    for (let k = 0; k < n; k++) swap(i + k, j + k);
  };
  const c = (i: number, j: number): number => cmp(arr[i]!, arr[j]!);
  const med3 = (x: number, y: number, z: number): number =>
    c(x, y) < 0 ? (c(y, z) < 0 ? y : c(x, z) < 0 ? z : x) : c(y, z) > 0 ? y : c(x, z) < 0 ? x : z;
  const sort = (a: number, n: number): void => {
    for (;;) {
      if (n < 7) {
        for (let pm = a + 1; pm < a + n; pm++) for (let pl = pm; pl > a && c(pl - 1, pl) > 0; pl--) swap(pl, pl - 1);
        return;
      }
      let presorted = true;
      for (let pm = a + 1; pm < a + n; pm++)
        if (c(pm - 1, pm) > 0) {
          presorted = false;
          break;
        }
      if (presorted) return;
      let pm = a + (n >> 1);
      if (n > 7) {
        let pl = a;
        let pn = a + n - 1;
        if (n > 40) {
          const d = n >> 3;
          pl = med3(pl, pl + d, pl + 2 * d);
          pm = med3(pm - d, pm, pm + d);
          pn = med3(pn - 2 * d, pn - d, pn);
        }
        pm = med3(pl, pm, pn);
      }
      swap(a, pm);
      let pa = a + 1,
        pb = pa;
      let pc = a + n - 1,
        pd = pc;
      for (;;) {
        let r: number;
        while (pb <= pc && (r = c(pb, a)) <= 0) {
          if (r === 0) {
            swap(pa, pb);
            pa++;
          }
          pb++;
        }
        while (pb <= pc && (r = c(pc, a)) >= 0) {
          if (r === 0) {
            swap(pc, pd);
            pd--;
          }
          pc--;
        }
        if (pb > pc) break;
        swap(pb, pc);
        pb++;
        pc--;
      }
      const pn = a + n;
      let d1 = Math.min(pa - a, pb - pa);
      swapn(a, pb - d1, d1);
      d1 = Math.min(pd - pc, pn - pd - 1);
      swapn(pb, pn - d1, d1);
      d1 = pb - pa;
      const d2 = pd - pc;
      if (d1 <= d2) {
        if (d1 > 1) sort(a, d1);
        if (d2 > 1) {
          a = pn - d2;
          n = d2;
          continue;
        }
      } else {
        if (d2 > 1) sort(pn - d2, d2);
        if (d1 > 1) {
          n = d1;
          continue;
        }
      }
      return;
    }
  };
  sort(0, arr.length);
}

function positionsOf(e: TsVectorEntry): { pos: readonly number[]; w: readonly number[] | undefined } {
  if (e.positions.length === 0) return { pos: [NO_POSITION], w: undefined };
  return { pos: e.positions, w: e.weights };
}

function rankOr(v: TsVector, items: TsQueryLexeme[]): number {
  let res = 0;
  for (const item of items) {
    const [first, end] = matchingRange(v.entries, item);
    for (let k = first; k < end; k++) {
      const e = v.entries[k]!;
      const n = e.positions.length === 0 ? 1 : e.positions.length;
      let resj = 0;
      let wjm = -1;
      let jm = 0;
      for (let j = 0; j < n; j++) {
        const w = DEFAULT_WEIGHTS[e.weights && e.positions.length ? e.weights[j]! : 0]!;
        resj = f(resj + f(w / ((j + 1) * (j + 1))));
        if (w > wjm) {
          wjm = w;
          jm = j;
        }
      }
      const sum = f(f(wjm + resj) - f(wjm / ((jm + 1) * (jm + 1))));
      res = f(res + sum / ZETA2);
    }
  }
  if (items.length > 0) res = f(res / items.length);
  return res;
}

function wordDistance(d: number): number {
  if (d > 100) return f(1e-30);
  return f(1.0 / (1.005 + 0.05 * Math.exp(d / 1.5 - 2)));
}

function rankAnd(v: TsVector, items: TsQueryLexeme[]): number {
  if (items.length < 2) return rankOr(v, items);
  let res = -1;
  const seen: Array<{ pos: readonly number[]; w: readonly number[] | undefined; none: boolean } | undefined> =
    new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const [first, end] = matchingRange(v.entries, items[i]!);
    // every matching entry is paired with the earlier items, but only the last one is kept for later items
    for (let k = first; k < end; k++) {
      const e = v.entries[k]!;
      const cur = { ...positionsOf(e), none: e.positions.length === 0 };
      seen[i] = cur;
      for (let m = 0; m < i; m++) {
        const prev = seen[m];
        if (!prev) continue;
        for (let l = 0; l < cur.pos.length; l++) {
          for (let p = 0; p < prev.pos.length; p++) {
            let dist = Math.abs(cur.pos[l]! - prev.pos[p]!);
            if (dist === 0 && !(cur.none || prev.none)) continue;
            if (dist === 0) dist = NO_POSITION + 1;
            const wa = DEFAULT_WEIGHTS[cur.w ? cur.w[l]! : 0]!;
            const wb = DEFAULT_WEIGHTS[prev.w ? prev.w[p]! : 0]!;
            const curw = f(Math.sqrt(f(f(wa * wb) * wordDistance(dist))));
            res = res < 0 ? curw : f(1.0 - (1.0 - res) * (1.0 - curw));
          }
        }
      }
    }
  }
  return res;
}

function lengthOf(v: TsVector): number {
  let len = 0;
  for (const e of v.entries) len += e.positions.length === 0 ? 1 : e.positions.length;
  return len;
}

/** ts_rank(v, q, normalization) as a float4 value. */
export function rank(v: TsVector, q: TsQuery, normalization = 0): number {
  if (v.entries.length === 0 || q.type === 'empty') return 0;
  const items = distinctOperands(q);
  let res = q.type === 'and' || q.type === 'phrase' ? rankAnd(v, items) : rankOr(v, items);
  if (res < 0) res = f(1e-20);
  const method = normalization;
  if (method & RANK_NORM_LOGLENGTH) res = f(res / (Math.log(lengthOf(v) + 1) / Math.log(2.0)));
  if (method & RANK_NORM_LENGTH) {
    const len = lengthOf(v);
    if (len > 0) res = f(res / f(len));
  }
  if (method & RANK_NORM_UNIQ) res = f(res / f(v.entries.length));
  if (method & RANK_NORM_LOGUNIQ) res = f(res / (Math.log(v.entries.length + 1) / Math.log(2.0)));
  if (method & RANK_NORM_RDIVRPLUS1) res = f(res / f(res + 1));
  return res;
}
