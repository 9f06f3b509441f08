// Exact decimal arithmetic with PostgreSQL `numeric` semantics: every value carries its display scale, and
// sums, products, quotients and rounding give PostgreSQL's digits and scale (BigInt coefficients).

import { SqlFailure } from './failure.js';

/** value = coef × 10^-scale; `scale` is PostgreSQL's display scale (dscale), never negative. */
export interface Decimal {
  readonly coef: bigint;
  readonly scale: number;
}

/** PostgreSQL's limits on display scale and on the digits before the point. */
const MAX_DISPLAY_SCALE = 1000;
const MAX_DSCALE = 16383;
const MAX_WEIGHT_DIGITS = 131072;
/** select_div_scale: a quotient keeps at least this many significant digits. */
const MIN_SIG_DIGITS = 16;

const POW10: bigint[] = [1n];
export function pow10(n: number): bigint {
  for (let i = POW10.length; i <= n; i++) POW10.push(POW10[i - 1]! * 10n);
  return POW10[n]!;
}

export function dec(coef: bigint, scale = 0): Decimal {
  return { coef, scale };
}

export const ZERO: Decimal = dec(0n);

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

/** The same value at a larger scale. */
function rescale(d: Decimal, scale: number): bigint {
  return scale === d.scale ? d.coef : d.coef * pow10(scale - d.scale);
}

/** Integer quotient of a / b rounded half away from zero (b > 0 or b < 0). */
function divRoundHalfAway(a: bigint, b: bigint): bigint {
  const negative = a < 0n !== b < 0n;
  const aa = abs(a);
  const bb = abs(b);
  let q = aa / bb;
  const r = aa - q * bb;
  if (r * 2n >= bb) q += 1n;
  return negative ? -q : q;
}

const NUMERIC_INPUT = /^\s*([+-])?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?\s*$/;

/**
 * PostgreSQL's numeric input: leading/trailing spaces, sign, digits, point, exponent. The display scale is
 * the number of digits after the point minus the exponent (at least 0). Returns null for anything else
 * (NaN and Infinity included: the embedded store does not model them).
 */
export function parseDecimal(text: string): Decimal | null {
  const m = NUMERIC_INPUT.exec(text);
  if (!m) return null;
  const [, sign, whole, fraction1, fraction2, exponentText] = m;
  const fraction = fraction1 ?? fraction2 ?? '';
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) return null;
  let coef = BigInt((whole ?? '') + fraction || '0');
  let scale = fraction.length - exponent;
  if (scale < 0) {
    coef *= pow10(-scale);
    scale = 0;
  }
  if (scale > MAX_DSCALE) return null;
  return dec(sign === '-' ? -coef : coef, scale);
}

/** PostgreSQL's numeric output: all digits of the display scale, no exponent. */
export function decimalText(d: Decimal): string {
  const negative = d.coef < 0n;
  let digits = abs(d.coef).toString();
  if (d.scale === 0) return (negative ? '-' : '') + digits;
  if (digits.length <= d.scale) digits = '0'.repeat(d.scale - digits.length + 1) + digits;
  const point = digits.length - d.scale;
  return (negative ? '-' : '') + digits.slice(0, point) + '.' + digits.slice(point);
}

/** Checks PostgreSQL's range for a numeric result (digits before the point, display scale). */
function checked(d: Decimal): Decimal {
  if (d.scale > MAX_DSCALE) throw new SqlFailure('value overflows numeric format');
  const wholeDigits = abs(d.coef).toString().length - d.scale;
  if (wholeDigits > MAX_WEIGHT_DIGITS) throw new SqlFailure('value overflows numeric format');
  return d;
}

export function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return checked(dec(rescale(a, scale) + rescale(b, scale), scale));
}

export function sub(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return checked(dec(rescale(a, scale) - rescale(b, scale), scale));
}

export function mul(a: Decimal, b: Decimal): Decimal {
  return checked(dec(a.coef * b.coef, a.scale + b.scale));
}

export function neg(a: Decimal): Decimal {
  return dec(-a.coef, a.scale);
}

export function absDecimal(a: Decimal): Decimal {
  return a.coef < 0n ? neg(a) : a;
}

export function compare(a: Decimal, b: Decimal): number {
  if (a.scale === b.scale) return a.coef < b.coef ? -1 : a.coef > b.coef ? 1 : 0;
  const scale = Math.max(a.scale, b.scale);
  const x = rescale(a, scale);
  const y = rescale(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function isZero(a: Decimal): boolean {
  return a.coef === 0n;
}

/**
 * Weight and first digit of a value in PostgreSQL's base-10000 representation (groups of four decimal digits
 * aligned on the point): what select_div_scale looks at.
 */
function baseTenThousand(d: Decimal): { weight: number; first: number } {
  const a = abs(d.coef);
  if (a === 0n) return { weight: 0, first: 0 };
  const exponent = a.toString().length - 1 - d.scale; // of the most significant decimal digit
  const weight = Math.floor(exponent / 4);
  const shift = d.scale + 4 * weight; // value / 10000^weight = a / 10^shift
  const group = shift >= 0 ? a / pow10(shift) : a * pow10(-shift);
  return { weight, first: Number(group % 10000n) };
}

/** The scale PostgreSQL gives a quotient: at least 16 significant digits and no less than either input's scale. */
export function divisionScale(a: Decimal, b: Decimal): number {
  const x = baseTenThousand(a);
  const y = baseTenThousand(b);
  let qweight = x.weight - y.weight;
  if (x.first <= y.first) qweight--;
  let scale = MIN_SIG_DIGITS - qweight * 4;
  scale = Math.max(scale, a.scale, b.scale, 0);
  return Math.min(scale, MAX_DISPLAY_SCALE);
}

/** a / b at `scale`, rounded half away from zero. */
function divideAt(a: Decimal, b: Decimal, scale: number): bigint {
  // a/b = (A / B) × 10^(b.scale - a.scale); the result's coefficient at `scale` is that × 10^scale.
  const k = scale + b.scale - a.scale;
  const numerator = k >= 0 ? a.coef * pow10(k) : a.coef;
  const denominator = k >= 0 ? b.coef : b.coef * pow10(-k);
  return divRoundHalfAway(numerator, denominator);
}

export function div(a: Decimal, b: Decimal): Decimal {
  if (isZero(b)) throw new SqlFailure('division by zero');
  const scale = divisionScale(a, b);
  return checked(dec(divideAt(a, b, scale), scale));
}

/** Truncating integer quotient, as numeric (PostgreSQL's div()). */
function truncQuotient(a: Decimal, b: Decimal): bigint {
  const scale = Math.max(a.scale, b.scale);
  return rescale(a, scale) / rescale(b, scale);
}

/** a - trunc(a / b) × b; the sign follows a; scale is the larger input scale. */
export function mod(a: Decimal, b: Decimal): Decimal {
  if (isZero(b)) throw new SqlFailure('division by zero');
  const scale = Math.max(a.scale, b.scale);
  const x = rescale(a, scale);
  const y = rescale(b, scale);
  return dec(x - (x / y) * y, scale);
}

export { truncQuotient };

/** round(a, s): half away from zero; a negative s rounds to tens, hundreds…; the scale becomes max(s, 0). */
export function round(a: Decimal, s: number): Decimal {
  if (s >= a.scale) return checked(dec(rescale(a, Math.min(s, MAX_DISPLAY_SCALE)), Math.min(s, MAX_DISPLAY_SCALE)));
  const dropped = a.scale - s;
  if (dropped > a.scale + 1000) return dec(0n, Math.max(s, 0));
  let coef = divRoundHalfAway(a.coef, pow10(dropped));
  if (s < 0) coef *= pow10(-s);
  return checked(dec(coef, Math.max(s, 0)));
}

/** trunc(a, s): towards zero; the scale becomes max(s, 0). */
export function trunc(a: Decimal, s: number): Decimal {
  if (s >= a.scale) return dec(rescale(a, Math.min(s, MAX_DISPLAY_SCALE)), Math.min(s, MAX_DISPLAY_SCALE));
  const dropped = a.scale - s;
  if (dropped > a.scale + 1000) return dec(0n, Math.max(s, 0));
  let coef = a.coef / pow10(dropped);
  if (s < 0) coef *= pow10(-s);
  return dec(coef, Math.max(s, 0));
}

export function ceil(a: Decimal): Decimal {
  const t = trunc(a, 0);
  return a.coef > 0n && compare(t, a) !== 0 ? dec(t.coef + 1n, 0) : t;
}

export function floor(a: Decimal): Decimal {
  const t = trunc(a, 0);
  return a.coef < 0n && compare(t, a) !== 0 ? dec(t.coef - 1n, 0) : t;
}

/**
 * numeric(precision, scale): rounds to the scale, then refuses values whose integer part needs more than
 * precision - scale digits, with PostgreSQL's message.
 */
export function applyTypmod(a: Decimal, precision: number, scale: number): Decimal {
  const r = round(a, scale);
  const wholeDigits = abs(r.coef) === 0n ? 0 : abs(r.coef).toString().length - r.scale;
  if (wholeDigits > precision - scale) {
    throw new SqlFailure('numeric field overflow');
  }
  return r;
}

/** The integer nearest (half away from zero), as PostgreSQL's numeric → integer casts round. */
export function roundToInteger(a: Decimal): bigint {
  return a.scale === 0 ? a.coef : divRoundHalfAway(a.coef, pow10(a.scale));
}

export function fromBigInt(n: bigint): Decimal {
  return dec(n, 0);
}

/** A double as PostgreSQL's float8 → numeric cast reads it: 15 significant digits (%.15g), trailing zeros dropped. */
export function fromFloat(value: number, significantDigits = 15): Decimal {
  if (!Number.isFinite(value))
    throw new SqlFailure(`cannot convert ${Number.isNaN(value) ? 'NaN' : 'infinity'} to numeric`);
  if (value === 0) return ZERO;
  const text = value.toPrecision(significantDigits);
  const d = parseDecimal(text)!;
  return stripTrailingZeros(d);
}

function stripTrailingZeros(d: Decimal): Decimal {
  let { coef, scale } = d;
  while (scale > 0 && coef % 10n === 0n) {
    coef /= 10n;
    scale--;
  }
  return dec(coef, scale);
}

export function toFloat(a: Decimal): number {
  return Number(decimalText(a));
}

/**
 * Python's str() of the decimal.Decimal that psycopg2 makes of PostgreSQL's numeric text: CKAN renders numeric
 * cells with it. Plain digits, except that values whose leading digit lies beyond the sixth decimal place
 * switch to exponent form ('1E-7', '1.2E-7', '0E-7').
 */
export function pythonDecimalStr(a: Decimal): string {
  const negative = a.coef < 0n;
  const digits = abs(a.coef).toString();
  const exp = -a.scale;
  const leftDigits = exp + digits.length;
  if (exp <= 0 && leftDigits > -6) return decimalText(a);
  // Scientific notation: one digit before the point.
  const intPart = digits[0]!;
  const fracPart = digits.length > 1 ? '.' + digits.slice(1) : '';
  const e = leftDigits - 1;
  return (negative ? '-' : '') + intPart + fracPart + 'E' + (e < 0 ? '-' : '+') + Math.abs(e);
}
