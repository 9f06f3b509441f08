// The SQL functions translated statements call, registered on the store's connection: exact numeric
// arithmetic and aggregates, PostgreSQL's casts, text functions and LIKE, each raising PostgreSQL's errors.
// Everything here runs once per row, so the common cases (whole numbers, ASCII text) take short paths.

import type Database from 'better-sqlite3';
import { lowerText } from '../../text-search/chars.js';
import { BoundedCache } from '../../util/bounded-cache.js';
import {
  checkFloat,
  checkInt,
  checkIntNumber,
  compareText,
  decimalText,
  decimalToInt,
  floatText,
  floatToDecimal,
  floatToInt,
  fromDecimal,
  intBitsOf,
  roundTimestamp,
  textToBool,
  textToDate,
  textToDecimal,
  textToFloat,
  textToInt,
  textToTimestamp,
  toDecimal,
  toFloat,
  type IntBits,
} from './conversions.js';
import * as D from './decimal.js';
import { SqlFailure } from './failure.js';
import { likeMatch, parseLike, type LikePart } from './like.js';

/** Names of the runtime functions; the translation writes calls to these and nothing else of its own. */
export const RT = {
  numAdd: 'cc_num_add',
  numSub: 'cc_num_sub',
  numMul: 'cc_num_mul',
  numDiv: 'cc_num_div',
  numMod: 'cc_num_mod',
  numNeg: 'cc_num_neg',
  numAbs: 'cc_num_abs',
  numRound: 'cc_num_round',
  numTrunc: 'cc_num_trunc',
  numCeil: 'cc_num_ceil',
  numFloor: 'cc_num_floor',
  numCmp: 'cc_num_cmp',
  numKey: 'cc_num_key',
  numTypmod: 'cc_num_typmod',
  numToInt: 'cc_num_to_int',
  numToFloat: 'cc_num_to_float',
  numText: 'cc_num_text',
  floatToNum: 'cc_float_to_num',
  textToNum: 'cc_text_to_num',
  intCheck: 'cc_int_check',
  intDiv: 'cc_int_div',
  intMod: 'cc_int_mod',
  textToInt: 'cc_text_to_int',
  floatToInt: 'cc_float_to_int',
  floatDiv: 'cc_float_div',
  float4: 'cc_float4',
  floatCheck: 'cc_float_check',
  floatText: 'cc_float_text',
  textToFloat: 'cc_text_to_float',
  floatRound: 'cc_float_round',
  lower: 'cc_lower',
  upper: 'cc_upper',
  substr: 'cc_substr',
  left: 'cc_left',
  right: 'cc_right',
  like: 'cc_like',
  bpchar: 'cc_bpchar',
  textToBool: 'cc_text_to_bool',
  textToDate: 'cc_text_to_date',
  textToTimestamp: 'cc_text_to_timestamp',
  timestampRound: 'cc_timestamp_round',
  greatest: 'cc_greatest',
  least: 'cc_least',
  // aggregates
  numSum: 'cc_num_sum',
  numAvg: 'cc_num_avg',
  numMin: 'cc_num_min',
  numMax: 'cc_num_max',
  floatSum: 'cc_float_sum',
  floatAvg: 'cc_float_avg',
  scalar: 'cc_scalar',
} as const;

type Value = number | string | bigint | null;

const isNull = (v: unknown): v is null | undefined => v === null || v === undefined;

// ---------------------------------------------------------------------------------------------------------
// numeric

function numeric2(op: (a: D.Decimal, b: D.Decimal) => D.Decimal) {
  return (a: unknown, b: unknown): Value =>
    isNull(a) || isNull(b) ? null : fromDecimal(op(toDecimal(a), toDecimal(b)));
}

// Numeric functions receive SQLite integers as BigInt (exact beyond 2^53) and doubles as numbers.
function bothIntegers(a: unknown, b: unknown): boolean {
  return typeof a === 'bigint' && typeof b === 'bigint';
}

/** A whole-number result: a number while exact, else its digits (SQLite hands doubles back to JavaScript). */
function integerResult(n: bigint): number | string {
  return n >= -9007199254740991n && n <= 9007199254740991n ? Number(n) : n.toString();
}

function numAdd(a: unknown, b: unknown): Value {
  if (isNull(a) || isNull(b)) return null;
  if (bothIntegers(a, b)) return integerResult((a as bigint) + (b as bigint));
  return fromDecimal(D.add(toDecimal(a), toDecimal(b)));
}

function numSub(a: unknown, b: unknown): Value {
  if (isNull(a) || isNull(b)) return null;
  if (bothIntegers(a, b)) return integerResult((a as bigint) - (b as bigint));
  return fromDecimal(D.sub(toDecimal(a), toDecimal(b)));
}

function numMul(a: unknown, b: unknown): Value {
  if (isNull(a) || isNull(b)) return null;
  if (bothIntegers(a, b)) return integerResult((a as bigint) * (b as bigint));
  return fromDecimal(D.mul(toDecimal(a), toDecimal(b)));
}

function intArg(v: unknown): number {
  return Number(v);
}

/** A sort key whose byte order is the numeric order (zero, positives by exponent then digits; negatives mirrored). */
export function numericKey(d: D.Decimal): string {
  if (d.coef === 0n) return '1';
  const negative = d.coef < 0n;
  let digits = (negative ? -d.coef : d.coef).toString();
  const exponent = digits.length - 1 - d.scale;
  digits = digits.replace(/0+$/, '');
  const biased = exponent + 50000;
  if (!negative) return '2' + String(biased).padStart(5, '0') + digits;
  let complement = '';
  for (let i = 0; i < digits.length; i++) complement += String(9 - (digits.charCodeAt(i) - 48));
  return '0' + String(99999 - biased).padStart(5, '0') + complement + '~';
}

// ---------------------------------------------------------------------------------------------------------
// text

function codePoints(s: string): string[] | null {
  // null when every character is a single UTF-16 unit, so that plain indexing is by code point.
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return Array.from(s);
  }
  return null;
}

/** substring(s from start [for count]) by code points; a negative count is an error, as in PostgreSQL. */
export function substring(s: string, start: number, count: number | null): string {
  if (count !== null && count < 0) throw new SqlFailure('negative substring length not allowed');
  const first = Math.max(start, 1);
  const end = count === null ? Infinity : start + count; // exclusive, 1-based
  if (end <= first) return '';
  const cps = codePoints(s);
  if (cps === null) return s.slice(first - 1, end === Infinity ? undefined : end - 1);
  return cps.slice(first - 1, end === Infinity ? undefined : end - 1).join('');
}

function leftText(s: string, n: number): string {
  const cps = codePoints(s) ?? s;
  const len = cps.length;
  const take = n >= 0 ? Math.min(n, len) : Math.max(len + n, 0);
  return typeof cps === 'string' ? cps.slice(0, take) : cps.slice(0, take).join('');
}

function rightText(s: string, n: number): string {
  const cps = codePoints(s) ?? s;
  const len = cps.length;
  const take = n >= 0 ? Math.min(n, len) : Math.max(len + n, 0);
  return typeof cps === 'string' ? cps.slice(len - take) : cps.slice(len - take).join('');
}

const upperCache = new Map<number, string>();

/** towupper() code point by code point: a character whose upper case is more than one character stays as it is. */
export function upperText(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) >= 128) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s.toUpperCase();
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 128) {
      out += ch.toUpperCase();
      continue;
    }
    let up = upperCache.get(cp);
    if (up === undefined) {
      const u = ch.toUpperCase();
      up = [...u].length === 1 ? u : ch;
      upperCache.set(cp, up);
    }
    out += up;
  }
  return out;
}

/** char(n): truncated or padded with spaces to n characters. */
function bpchar(s: string, n: number): string {
  const cps = codePoints(s);
  const len = cps === null ? s.length : cps.length;
  if (len > n) return cps === null ? s.slice(0, n) : cps.slice(0, n).join('');
  return s + ' '.repeat(n - len);
}

// ---------------------------------------------------------------------------------------------------------
// comparison for greatest/least: 'n' numeric, 't' text (code points), 'x' native numbers (ints, floats, bools)

function compareKind(kind: string, a: unknown, b: unknown): number {
  if (kind === 'n') return D.compare(toDecimal(a), toDecimal(b));
  if (kind === 't') return compareText(String(a), String(b));
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function extreme(sign: 1 | -1) {
  return (kind: unknown, ...values: unknown[]): unknown => {
    let best: unknown = null;
    for (const v of values) {
      if (isNull(v)) continue;
      if (best === null || compareKind(String(kind), v, best) * sign > 0) best = v;
    }
    return best;
  };
}

// ---------------------------------------------------------------------------------------------------------
// aggregates (each with an inverse, so that SQLite can also use it as a window function over moving frames)

interface NumSumState {
  n: number;
  dec: D.Decimal;
  scales: Map<number, number>;
}

function numSumStep(state: NumSumState, v: unknown): void {
  if (isNull(v)) return;
  const d = toDecimal(v);
  state.dec = D.add(state.dec, d);
  state.n++;
  state.scales.set(d.scale, (state.scales.get(d.scale) ?? 0) + 1);
}

function numSumInverse(state: NumSumState, v: unknown): void {
  if (isNull(v)) return;
  const d = toDecimal(v);
  state.dec = D.sub(state.dec, d);
  state.n--;
  const left = (state.scales.get(d.scale) ?? 1) - 1;
  if (left === 0) state.scales.delete(d.scale);
  else state.scales.set(d.scale, left);
}

/** The running sum at the largest scale among the values in the frame (as PostgreSQL recomputes it). */
function numSumValue(state: NumSumState): D.Decimal {
  let scale = 0;
  for (const s of state.scales.keys()) scale = Math.max(scale, s);
  return scale === state.dec.scale ? state.dec : D.round(state.dec, scale);
}

interface ExtremeState {
  best: D.Decimal | null;
  raw: unknown;
  counts: Map<string, [number, D.Decimal, unknown]>;
}

function numExtreme(sign: 1 | -1) {
  return {
    start: (): ExtremeState => ({ best: null, raw: null, counts: new Map() }),
    step(state: ExtremeState, v: unknown): void {
      if (isNull(v)) return;
      const d = toDecimal(v);
      const key = decimalText(d);
      const entry = state.counts.get(key);
      if (entry) entry[0]++;
      else state.counts.set(key, [1, d, v]);
      // Among equal values (1.0, 1.00) the later one wins, as PostgreSQL's numeric_smaller/larger keep it.
      if (state.best === null || D.compare(d, state.best) * sign >= 0) {
        state.best = d;
        state.raw = v;
      }
    },
    inverse(state: ExtremeState, v: unknown): void {
      if (isNull(v)) return;
      const key = decimalText(toDecimal(v));
      const entry = state.counts.get(key);
      if (!entry) return;
      if (--entry[0] === 0) state.counts.delete(key);
      if (state.best !== null && decimalText(state.best) === key && entry[0] === 0) {
        state.best = null;
        state.raw = null;
        for (const [, d, raw] of state.counts.values()) {
          if (state.best === null || D.compare(d, state.best) * sign > 0) {
            state.best = d;
            state.raw = raw;
          }
        }
      }
    },
    result: (state: ExtremeState): unknown => (state.best === null ? null : state.raw),
  };
}

/** Floats are summed one by one in row order, as PostgreSQL's float8pl does (SQLite's sum() compensates). */
interface FloatSumState {
  values: number[];
  first: number;
  sum: number;
  dirty: boolean;
}

function floatSumValue(state: FloatSumState): number | null {
  if (state.values.length - state.first === 0) return null;
  if (state.dirty) {
    let s = 0;
    for (let i = state.first; i < state.values.length; i++) s += state.values[i]!;
    state.sum = s;
    state.dirty = false;
  }
  return state.sum;
}

// ---------------------------------------------------------------------------------------------------------
// registration

const likeCache = new BoundedCache<string, LikePart[]>(500);

export function registerRuntime(db: Database.Database): void {
  // safeIntegers: integer arguments arrive as BigInt, so that values beyond 2^53 stay exact.
  const det = { deterministic: true, safeIntegers: true };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- SQLite passes each function the arguments of its own SQL types
  const fn = (name: string, impl: (...args: any[]) => unknown, varargs = false) =>
    db.function(name, { deterministic: true, safeIntegers: true, varargs }, impl as (...args: unknown[]) => unknown);

  // numeric
  fn(RT.numAdd, numAdd);
  fn(RT.numSub, numSub);
  fn(RT.numMul, numMul);
  fn(RT.numDiv, numeric2(D.div));
  fn(RT.numMod, numeric2(D.mod));
  fn(RT.numNeg, (a: unknown) => (isNull(a) ? null : fromDecimal(D.neg(toDecimal(a)))));
  fn(RT.numAbs, (a: unknown) => (isNull(a) ? null : fromDecimal(D.absDecimal(toDecimal(a)))));
  fn(RT.numRound, (a: unknown, s: unknown) =>
    isNull(a) || isNull(s) ? null : fromDecimal(D.round(toDecimal(a), intArg(s))),
  );
  fn(RT.numTrunc, (a: unknown, s: unknown) =>
    isNull(a) || isNull(s) ? null : fromDecimal(D.trunc(toDecimal(a), intArg(s))),
  );
  fn(RT.numCeil, (a: unknown) => (isNull(a) ? null : fromDecimal(D.ceil(toDecimal(a)))));
  fn(RT.numFloor, (a: unknown) => (isNull(a) ? null : fromDecimal(D.floor(toDecimal(a)))));
  fn(RT.numCmp, (a: unknown, b: unknown) => {
    if (isNull(a) || isNull(b)) return null;
    // Numbers and BigInts compare exactly with each other in JavaScript.
    if (typeof a !== 'string' && typeof b !== 'string')
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    return D.compare(toDecimal(a), toDecimal(b));
  });
  fn(RT.numKey, (a: unknown) => (isNull(a) ? null : numericKey(toDecimal(a))));
  fn(RT.numTypmod, (a: unknown, p: unknown, s: unknown) =>
    isNull(a) ? null : fromDecimal(D.applyTypmod(toDecimal(a), intArg(p), intArg(s))),
  );
  fn(RT.numToInt, (a: unknown, bits: unknown) => {
    if (isNull(a)) return null;
    if (typeof a === 'bigint') return checkInt(a, intArg(bits) as IntBits);
    return decimalToInt(toDecimal(a), intArg(bits) as IntBits);
  });
  fn(RT.numToFloat, (a: unknown, bits: unknown) => {
    if (isNull(a)) return null;
    const f = typeof a === 'number' ? a : typeof a === 'bigint' ? Number(a) : toFloat(toDecimal(a));
    return intArg(bits) === 32 ? Math.fround(f) : f;
  });
  fn(RT.numText, (a: unknown) => (isNull(a) ? null : decimalText(toDecimal(a))));
  fn(RT.floatToNum, (a: unknown, bits: unknown) =>
    isNull(a) ? null : fromDecimal(floatToDecimal(Number(a), intArg(bits) === 32 ? 32 : 64)),
  );
  fn(RT.textToNum, (a: unknown) => (isNull(a) ? null : fromDecimal(textToDecimal(String(a)))));

  // integers: results come back as BigInt (an SQLite integer, exact); an operation SQLite computed natively
  // arrives here as a double once it overflowed 64 bits.
  fn(RT.intCheck, (a: unknown, bits: unknown) => {
    if (isNull(a)) return null;
    if (typeof a === 'bigint') return checkInt(a, intArg(bits) as IntBits);
    return checkIntNumber(Number(a), intArg(bits) as IntBits);
  });
  fn(RT.intDiv, (a: unknown, b: unknown, bits: unknown) => {
    if (isNull(a) || isNull(b)) return null;
    const x = BigInt(a as bigint);
    const y = BigInt(b as bigint);
    if (y === 0n) throw new SqlFailure('division by zero');
    return checkInt(x / y, intArg(bits) as IntBits);
  });
  fn(RT.intMod, (a: unknown, b: unknown) => {
    if (isNull(a) || isNull(b)) return null;
    const x = BigInt(a as bigint);
    const y = BigInt(b as bigint);
    if (y === 0n) throw new SqlFailure('division by zero');
    return x % y;
  });
  fn(RT.textToInt, (a: unknown, bits: unknown) => (isNull(a) ? null : textToInt(String(a), intArg(bits) as IntBits)));
  fn(RT.floatToInt, (a: unknown, bits: unknown) => (isNull(a) ? null : floatToInt(Number(a), intArg(bits) as IntBits)));

  // floats
  fn(RT.floatDiv, (a: unknown, b: unknown, bits: unknown) => {
    if (isNull(a) || isNull(b)) return null;
    if (Number(b) === 0) throw new SqlFailure('division by zero');
    const q = Number(a) / Number(b);
    return checkFloat(intArg(bits) === 32 ? Math.fround(q) : q);
  });
  fn(RT.float4, (a: unknown) => (isNull(a) ? null : checkFloat(Math.fround(Number(a)))));
  fn(RT.floatCheck, (a: unknown) => (isNull(a) ? null : checkFloat(Number(a))));
  fn(RT.floatText, (a: unknown, bits: unknown) =>
    isNull(a) ? null : floatText(Number(a), intArg(bits) === 32 ? 32 : 64),
  );
  fn(RT.textToFloat, (a: unknown, bits: unknown) =>
    isNull(a) ? null : textToFloat(String(a), intArg(bits) === 32 ? 32 : 64),
  );
  fn(RT.floatRound, (a: unknown) => {
    if (isNull(a)) return null;
    const x = Number(a);
    // rint(): halves to even.
    const r = Math.round(x);
    return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  });

  // text
  fn(RT.lower, (s: unknown) => (isNull(s) ? null : lowerText(String(s))));
  fn(RT.upper, (s: unknown) => (isNull(s) ? null : upperText(String(s))));
  fn(
    RT.substr,
    (s: unknown, start: unknown, count?: unknown) => {
      if (isNull(s) || isNull(start) || count === null) return null;
      return substring(String(s), intArg(start), count === undefined ? null : intArg(count));
    },
    true,
  );
  fn(RT.left, (s: unknown, n: unknown) => (isNull(s) || isNull(n) ? null : leftText(String(s), intArg(n))));
  fn(RT.right, (s: unknown, n: unknown) => (isNull(s) || isNull(n) ? null : rightText(String(s), intArg(n))));
  fn(RT.like, (s: unknown, pattern: unknown, escape: unknown, insensitive: unknown) => {
    if (isNull(s) || isNull(pattern) || escape === null) return null;
    const ci = Number(insensitive) === 1;
    const key = `${ci ? 'i' : 's'}${String(escape)}\u0000${String(pattern)}`;
    const parts = likeCache.getOrCreate(key, () =>
      parseLike(ci ? lowerText(String(pattern)) : String(pattern), String(escape)),
    );
    return likeMatch(parts, ci ? lowerText(String(s)) : String(s)) ? 1 : 0;
  });
  fn(RT.bpchar, (s: unknown, n: unknown) => (isNull(s) ? null : bpchar(String(s), intArg(n))));
  fn(RT.textToBool, (s: unknown) => (isNull(s) ? null : textToBool(String(s)) ? 1 : 0));
  fn(RT.textToDate, (s: unknown) => (isNull(s) ? null : textToDate(String(s))));
  fn(RT.textToTimestamp, (s: unknown) => (isNull(s) ? null : textToTimestamp(String(s))));
  fn(RT.timestampRound, (s: unknown, p: unknown) => (isNull(s) ? null : roundTimestamp(String(s), intArg(p))));
  fn(RT.greatest, extreme(1), true);
  fn(RT.least, extreme(-1), true);

  // aggregates
  const numAggregate = (name: string, result: (state: NumSumState) => Value) =>
    db.aggregate(name, {
      ...det,
      start: (): NumSumState => ({ n: 0, dec: D.ZERO, scales: new Map() }),
      step: (state: NumSumState, v: unknown) => {
        numSumStep(state, v);
        return state;
      },
      inverse: (state: NumSumState, v: unknown) => {
        numSumInverse(state, v);
        return state;
      },
      result: (state: NumSumState) => (state.n === 0 ? null : result(state)),
    });
  numAggregate(RT.numSum, (state) => fromDecimal(numSumValue(state)));
  numAggregate(RT.numAvg, (state) => fromDecimal(D.div(numSumValue(state), D.fromBigInt(BigInt(state.n)))));
  for (const [name, sign] of [
    [RT.numMin, -1],
    [RT.numMax, 1],
  ] as const) {
    const impl = numExtreme(sign);
    db.aggregate(name, {
      ...det,
      start: impl.start,
      step: (state: ExtremeState, v: unknown) => {
        impl.step(state, v);
        return state;
      },
      inverse: (state: ExtremeState, v: unknown) => {
        impl.inverse(state, v);
        return state;
      },
      result: impl.result,
    });
  }
  const floatStart = (): FloatSumState => ({ values: [], first: 0, sum: 0, dirty: false });
  const floatStep = (state: FloatSumState, v: unknown) => {
    if (isNull(v)) return state;
    const x = Number(v);
    state.values.push(x);
    if (!state.dirty) state.sum += x;
    return state;
  };
  const floatInverse = (state: FloatSumState, v: unknown) => {
    if (isNull(v)) return state;
    state.first++;
    state.dirty = true;
    return state;
  };
  const floatAggregate = (name: string, result: (sum: number, state: FloatSumState) => number) =>
    db.aggregate(name, {
      ...det,
      start: floatStart,
      step: floatStep,
      inverse: floatInverse,
      result: (state: FloatSumState) => {
        const s = floatSumValue(state);
        return s === null ? null : checkFloat(result(s, state));
      },
    });
  floatAggregate(RT.floatSum, (sum) => sum);
  floatAggregate(RT.floatAvg, (sum, state) => sum / (state.values.length - state.first));
  db.aggregate(RT.scalar, {
    ...det,
    start: () => ({ rows: 0, value: null as unknown }),
    step: (state: { rows: number; value: unknown }, v: unknown) => {
      if (++state.rows > 1) throw new SqlFailure('more than one row returned by a subquery used as an expression');
      state.value = v;
      return state;
    },
    result: (state: { rows: number; value: unknown }) => state.value,
  });
}

export { intBitsOf };
