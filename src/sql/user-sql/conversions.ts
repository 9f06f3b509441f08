// Value conversions with PostgreSQL's rules and messages, shared by compile-time constant folding and the
// runtime functions: text input of each type, text output, and the embedded store's representation of numeric
// values (SQLite integer or double for stored data, canonical numeric text for computed values).

import { numberText } from '../../catalog/values.js';
import { formatFloat4 } from '../../text-search/index.js';
import { decimalText, fromFloat, parseDecimal, pow10, roundToInteger, toFloat, type Decimal } from './decimal.js';
import { SqlFailure } from './failure.js';

// ---------------------------------------------------------------------------------------------------------
// numeric in the store

/** A numeric cell as SQLite returns it (integer or double from the store, text from computation) as a Decimal. */
export function toDecimal(value: unknown): Decimal {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return { coef: BigInt(value), scale: 0 };
    // A double stands for its shortest decimal text (1.5 → 1.5): what was loaded.
    return parseDecimal(numberText(value, 'numeric'))!;
  }
  if (typeof value === 'bigint') return { coef: value, scale: 0 };
  if (typeof value === 'string') {
    const d = parseDecimal(value);
    if (d) return d;
  }
  throw new SqlFailure(`invalid numeric value ${JSON.stringify(String(value))}`);
}

/** How a computed numeric travels through SQLite: a number when it is a safe whole number of scale 0, else its text. */
export function fromDecimal(d: Decimal): number | string {
  if (d.scale === 0 && d.coef >= -9007199254740991n && d.coef <= 9007199254740991n) return Number(d.coef);
  return decimalText(d);
}

// ---------------------------------------------------------------------------------------------------------
// integers

export type IntBits = 16 | 32 | 64;

const INT_LIMITS: Record<IntBits, [bigint, bigint, string, string]> = {
  16: [-32768n, 32767n, 'smallint', 'smallint'],
  32: [-2147483648n, 2147483647n, 'integer', 'integer'],
  64: [-9223372036854775808n, 9223372036854775807n, 'bigint', 'bigint'],
};

export function intBitsOf(type: string): IntBits {
  return type === 'int2' ? 16 : type === 'int8' ? 64 : 32;
}

export function outOfRange(bits: IntBits): SqlFailure {
  return new SqlFailure(`${INT_LIMITS[bits][2]} out of range`);
}

export function checkInt(value: bigint, bits: IntBits): bigint {
  const [min, max] = INT_LIMITS[bits];
  if (value < min || value > max) throw outOfRange(bits);
  return value;
}

/** A number that an integer operation produced in SQLite (a double once it overflowed 64 bits). */
export function checkIntNumber(value: number, bits: IntBits): number {
  if (bits === 64) {
    if (!Number.isInteger(value) || value >= 9223372036854775808 || value < -9223372036854775808) throw outOfRange(64);
    return value;
  }
  const [min, max] = INT_LIMITS[bits];
  if (!Number.isInteger(value) || value < Number(min) || value > Number(max)) throw outOfRange(bits);
  return value;
}

const INT_INPUT = /^\s*([+-]?)(\d+)\s*$/;

/** int2in/int4in/int8in: spaces, sign, decimal digits. */
export function textToInt(text: string, bits: IntBits): bigint {
  const m = INT_INPUT.exec(text);
  const name = INT_LIMITS[bits][3];
  if (!m) throw new SqlFailure(`invalid input syntax for type ${name}: "${text}"`);
  const value = BigInt(m[1]! + m[2]!);
  const [min, max] = INT_LIMITS[bits];
  if (value < min || value > max) throw new SqlFailure(`value "${text}" is out of range for type ${name}`);
  return value;
}

export function decimalToInt(d: Decimal, bits: IntBits): bigint {
  return checkInt(roundToInteger(d), bits);
}

/** float → integer: rounds half to even (rint), then range-checks. */
export function floatToInt(value: number, bits: IntBits): bigint {
  if (!Number.isFinite(value)) throw outOfRange(bits);
  let r = Math.round(value);
  if (Math.abs(value - Math.trunc(value)) === 0.5 && r % 2 !== 0) r -= 1;
  if (Math.abs(r) > Number.MAX_SAFE_INTEGER) {
    const [min, max] = INT_LIMITS[bits];
    if (r < Number(min) || r >= Number(max) + 1) throw outOfRange(bits);
    return BigInt(r);
  }
  return checkInt(BigInt(r), bits);
}

// ---------------------------------------------------------------------------------------------------------
// numeric

export function textToDecimal(text: string): Decimal {
  const d = parseDecimal(text);
  if (!d) {
    if (/^\s*[+-]?(nan|infinity|inf)\s*$/i.test(text)) {
      throw new SqlFailure(`numeric value ${text.trim()} is not supported by the embedded store`);
    }
    throw new SqlFailure(`invalid input syntax for type numeric: "${text}"`);
  }
  return d;
}

export function floatToDecimal(value: number, bits: 32 | 64): Decimal {
  return fromFloat(value, bits === 32 ? 6 : 15);
}

export { decimalText, toFloat };

// ---------------------------------------------------------------------------------------------------------
// floats

const FLOAT_INPUT = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

export function textToFloat(text: string, bits: 32 | 64): number {
  const name = bits === 32 ? 'real' : 'double precision';
  const trimmed = text.trim();
  if (/^[+-]?(infinity|inf|nan)$/i.test(trimmed)) {
    throw new SqlFailure(`${name} value ${trimmed} is not supported by the embedded store`);
  }
  if (!FLOAT_INPUT.test(text)) throw new SqlFailure(`invalid input syntax for type ${name}: "${text}"`);
  const value = Number(trimmed);
  if (!Number.isFinite(value) || (bits === 32 && !Number.isFinite(Math.fround(value)))) {
    throw new SqlFailure(`"${trimmed}" is out of range for type ${name}`);
  }
  return bits === 32 ? Math.fround(value) : value;
}

/**
 * float8out / float4out: shortest round-trip digits, exponent outside 1e-4 ≤ |x| < 1e15 (float4: 1e6? no: same rule).
 */
export function floatText(value: number, bits: 32 | 64): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  return bits === 32 ? formatFloat4(value) : numberText(value, 'float8');
}

export function checkFloat(value: number): number {
  if (!Number.isFinite(value)) throw new SqlFailure('value out of range: overflow');
  return value;
}

// ---------------------------------------------------------------------------------------------------------
// boolean

const BOOL_WORDS: readonly [string, boolean, number][] = [
  // word, value, shortest accepted prefix
  ['true', true, 1],
  ['false', false, 1],
  ['yes', true, 1],
  ['no', false, 1],
  ['on', true, 2],
  ['off', false, 2],
];

/** boolin: true/false/yes/no/on/off (or an unambiguous prefix), 1/0, any case, spaces around. */
export function textToBool(text: string): boolean {
  const word = text.trim().toLowerCase();
  if (word === '1') return true;
  if (word === '0') return false;
  if (word.length > 0) {
    for (const [full, value, min] of BOOL_WORDS) {
      if (word.length >= min && full.startsWith(word)) return value;
    }
  }
  throw new SqlFailure(`invalid input syntax for type boolean: "${text}"`);
}

// ---------------------------------------------------------------------------------------------------------
// dates and timestamps (held as ISO text: 'YYYY-MM-DD', 'YYYY-MM-DDTHH:MM:SS[.ffffff]', fraction trimmed)

const DATE_TIME_INPUT =
  /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(?:Z|[+-]\d{1,2}(?::?\d{2})?)?)?\s*$/i;
const COMPACT_DATE_INPUT = /^\s*(\d{4})(\d{2})(\d{2})\s*$/;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

interface DateTimeParts {
  year: number;
  month: number;
  day: number;
  micros: number;
}

function dateTimeParts(text: string, typeName: string): DateTimeParts {
  let m = DATE_TIME_INPUT.exec(text);
  if (!m) {
    const c = COMPACT_DATE_INPUT.exec(text);
    if (c) m = [c[0], c[1], c[2], c[3]] as unknown as RegExpExecArray;
  }
  if (!m) {
    const word = text.trim().toLowerCase();
    if (['epoch', 'infinity', '-infinity', 'now', 'today', 'tomorrow', 'yesterday', 'allballs'].includes(word)) {
      throw new SqlFailure(`${typeName} input "${text}" is not supported by the embedded store`);
    }
    // Without a digit no spelling of a date can be meant: PostgreSQL refuses it in the same words.
    if (!/[0-9]/.test(text)) throw new SqlFailure(`invalid input syntax for type ${typeName}: "${text}"`);
    throw new SqlFailure(
      `invalid input syntax for type ${typeName}: "${text}" (the embedded store reads ISO dates: YYYY-MM-DD[ HH:MM[:SS[.ffffff]]])`,
    );
  }
  const year = +m[1]!,
    month = +m[2]!,
    day = +m[3]!;
  const hour = +(m[4] ?? 0),
    minute = +(m[5] ?? 0),
    second = +(m[6] ?? 0);
  const fraction = m[7] ?? '';
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || year < 1) {
    throw new SqlFailure(`date/time field value out of range: "${text}"`);
  }
  if (
    hour > 24 ||
    minute > 59 ||
    second > 60 ||
    (hour === 24 && (minute > 0 || second > 0 || /[1-9]/.test(fraction)))
  ) {
    throw new SqlFailure(`date/time field value out of range: "${text}"`);
  }
  // Microseconds, rounded half up from any further digits (as PostgreSQL rounds input).
  let micros = fraction ? Math.round(Number('0.' + fraction) * 1e6) : 0;
  micros += ((hour * 60 + minute) * 60 + second) * 1e6;
  return { year, month, day, micros };
}

function formatTimestamp(year: number, month: number, day: number, micros: number): string {
  // Carry whole days (24:00:00, 23:59:60, rounding) into the date.
  const dayMicros = 86400e6;
  // Set as a full year: Date.UTC reads years 0-99 as 1900-1999.
  let date = new Date(0).setUTCFullYear(year, month - 1, day);
  if (micros >= dayMicros) {
    date += Math.floor(micros / dayMicros) * 86400000;
    micros %= dayMicros;
  }
  const d = new Date(date);
  const seconds = Math.floor(micros / 1e6);
  const fraction = micros % 1e6;
  const time = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
  const frac = fraction ? '.' + String(fraction).padStart(6, '0').replace(/0+$/, '') : '';
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${time}${frac}`;
}

export function textToTimestamp(text: string): string {
  const p = dateTimeParts(text, 'timestamp');
  return formatTimestamp(p.year, p.month, p.day, p.micros);
}

export function textToDate(text: string): string {
  const p = dateTimeParts(text, 'date');
  // A time part is allowed and ignored (PostgreSQL's date input does the same).
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** timestamp(p): rounds the fraction to p digits. */
export function roundTimestamp(ts: string, precision: number): string {
  const dot = ts.indexOf('.');
  if (dot < 0 || ts.length - dot - 1 <= precision) return ts;
  const [datePart, timePart] = ts.split('T') as [string, string];
  const [y, mo, d] = datePart.split('-').map(Number) as [number, number, number];
  const [h, mi, s] = timePart.split(':').map(Number) as [number, number, number];
  const wholeSeconds = Math.floor(s);
  const fraction = ts.slice(dot + 1);
  const scaled = Math.round(Number('0.' + fraction) * 10 ** precision) * 10 ** (6 - precision);
  return formatTimestamp(y, mo, d, ((h * 60 + mi) * 60 + wholeSeconds) * 1e6 + scaled);
}

/** timestamp → text as PostgreSQL prints it ('2020-02-08 00:00:00'). */
export function timestampText(ts: string): string {
  return ts.replace('T', ' ');
}

/** Python's datetime.isoformat(): microseconds (six digits) only when not zero. */
export function timestampIsoformat(ts: string): string {
  const dot = ts.indexOf('.');
  if (dot < 0) return ts;
  const fraction = ts
    .slice(dot + 1)
    .padEnd(6, '0')
    .slice(0, 6);
  return /^0+$/.test(fraction) ? ts.slice(0, dot) : ts.slice(0, dot + 1) + fraction;
}

// ---------------------------------------------------------------------------------------------------------
// text

/** Code-point comparison (PostgreSQL's C collation; JavaScript's < compares UTF-16 units instead). */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800–DFFF) encode code points above U+FFFF, which sort after U+E000–FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export { pow10 };
