// Parsing text into the typed values the stores hold, shared by the loader (CSV cells) and the query stage
// (filter values). Dates and timestamps are held as ISO text, which sorts and compares correctly as text.

import { foldText } from '../text-search/index.js';
import type { DateFormat, FieldFormat, FieldType, NumberFormat } from './types.js';

/**
 * A value as the loader hands it to the stores: text (dates and timestamps as ISO text, numeric values as
 * PostgreSQL's numeric text, every digit and the scale kept), a number (int4, int8, float8), a boolean, or null.
 */
export type StoredValue = string | number | boolean | null;

export class ValueError extends Error {}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;

export function parseNumber(text: string): number {
  const trimmed = text.trim();
  if (!NUMBER.test(trimmed)) throw new ValueError(`"${text}" is not a number`);
  const value = Number(trimmed);
  if (!Number.isFinite(value)) throw new ValueError(`"${text}" is out of range`);
  return value;
}

/**
 * A number written in one of the catalogue's number formats, rewritten as plain digits with a decimal point; a text
 * that does not follow the format is not a number. Grouping is checked (three digits to a group), so "1,23" is not
 * read as 123 in the English format.
 */
const NUMBER_FORMAT_PATTERNS: Record<NumberFormat, { pattern: RegExp; group: RegExp; decimal: string }> = {
  '1,234.5': { pattern: /^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/, group: /,/g, decimal: '.' },
  '1.234,5': { pattern: /^[+-]?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?$/, group: /\./g, decimal: ',' },
  '1 234,5': {
    pattern: /^[+-]?(?:\d{1,3}(?:[ \u00a0\u202f]\d{3})+|\d+)(?:,\d+)?$/,
    group: /[ \u00a0\u202f]/g,
    decimal: ',',
  },
};

/** Whether a text (trimmed) is a number written in this format. */
export function fitsNumberFormat(trimmed: string, format: NumberFormat): boolean {
  return NUMBER_FORMAT_PATTERNS[format].pattern.test(trimmed);
}

export function plainNumberText(text: string, format: NumberFormat): string {
  const spec = NUMBER_FORMAT_PATTERNS[format];
  const trimmed = text.trim();
  if (!spec.pattern.test(trimmed))
    throw new ValueError(`"${text}" is not a number written ${format === '1,234.5' ? 'as 1,234.5' : `as ${format}`}`);
  const ungrouped = trimmed.replace(spec.group, '');
  return spec.decimal === ',' ? ungrouped.replace(',', '.') : ungrouped;
}

const NUMERIC_PARTS = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * A number as PostgreSQL's numeric reads and prints it: every digit and the scale kept ("12.50", "0.000"), no
 * exponent ("1.5e-7" → "0.00000015", "1.50E2" → "150": the scale is the digits after the point less the
 * exponent), no "+", no leading zeros, no negative zero. What a numeric value is, in the store and in every answer.
 */
export function parseNumeric(text: string): string {
  const trimmed = text.trim();
  const m = NUMBER.test(trimmed) ? NUMERIC_PARTS.exec(trimmed) : null;
  if (!m) throw new ValueError(`"${text}" is not a number`);
  const [, sign, whole = '', fraction = '', exponentText] = m;
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  // PostgreSQL's own limit on a numeric's exponent; a double's range is the embedded store's.
  if (Math.abs(exponent) > 1000 || !Number.isFinite(Number(trimmed))) throw new ValueError(`"${text}" is out of range`);
  let digits = whole + fraction;
  let scale = fraction.length - exponent;
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  digits = digits.replace(/^0+/, '').padStart(scale + 1, '0');
  const point = digits.length - scale;
  const body = scale === 0 ? digits : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return sign === '-' && /[1-9]/.test(digits) ? '-' + body : body;
}

const isNumberFormat = (format: FieldFormat): format is NumberFormat => format in NUMBER_FORMAT_PATTERNS;

const INT_RANGE: Record<'int4' | 'int8', [number, number]> = {
  int4: [-2147483648, 2147483647],
  // The embedded store holds numbers as doubles; beyond 2^53 a whole number would silently change.
  int8: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

export function parseInteger(text: string, type: 'int4' | 'int8'): number {
  const trimmed = text.trim();
  if (!INTEGER.test(trimmed)) throw new ValueError(`"${text}" is not a whole number`);
  const value = Number(trimmed);
  const [min, max] = INT_RANGE[type];
  if (value < min || value > max)
    throw new ValueError(
      type === 'int8' && Math.abs(value) <= 9223372036854775807
        ? `"${text}" is beyond the whole numbers Count Centre holds exactly as int8 (±9,007,199,254,740,991, 2^53 − 1)`
        : `"${text}" is out of range for ${type}`,
    );
  return value;
}

const TRUE_WORDS = new Set(['true', 't', 'yes', 'y', '1', 'on']);
const FALSE_WORDS = new Set(['false', 'f', 'no', 'n', '0', 'off']);

export function parseBoolean(text: string): boolean {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new ValueError(`"${text}" is not a boolean`);
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function checkedDate(year: number, month: number, day: number, original: string): string {
  // Set as a full year: Date.UTC reads years 0-99 as 1900-1999, where PostgreSQL has year 50 (and no year 0).
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (
    year < 1 ||
    month < 1 ||
    month > 12 ||
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  ) {
    throw new ValueError(`"${original}" is not a valid date`);
  }
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

function checkedTime(hour: number, minute: number, second: number, fraction: string, original: string): string {
  if (hour > 23 || minute > 59 || second > 59) throw new ValueError(`"${original}" is not a valid time`);
  const micros = fraction ? '.' + fraction.slice(0, 6).replace(/0+$/, '') : '';
  return `${pad(hour)}:${pad(minute)}:${pad(second)}${micros === '.' ? '' : micros}`;
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;
/**
 * A date with the day and month first, in either order, and a four-digit year, separated by slashes, dots (as German and
 * Nordic exports write dates) or hyphens, the same one twice; a time may follow. Groups: the first number, the
 * separator, the second number, the year, then hour, minute, second and fraction.
 */
export const DAY_MONTH_DATE_TIME =
  /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAME =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const YEAR_FIRST_DATE = /^(\d{4})([/.])(\d{1,2})\2(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/;
const DAY_NAMED_MONTH = new RegExp(`^(\\d{1,2})(?:-${MONTH_NAME}-| ${MONTH_NAME},? )(\\d{4})$`, 'i');
const NAMED_MONTH_DAY = new RegExp(`^${MONTH_NAME} (\\d{1,2}),? (\\d{4})$`, 'i');

/** A time of day as a date's text gives it. */
export interface TimeOfDay {
  hour: number;
  minute: number;
  second: number;
  fraction: string;
}

/**
 * A date that reads one way only, other than ISO 8601's: year first with slashes or dots ("2024/03/01", "2024.03.01",
 * a time of day may follow: "2015/01/01 01:00:00" as PostgreSQL and many loggers write it), or with the month's English
 * name ("01-Mar-2024" as Oracle and Excel write it, "1 March 2024", "March 1, 2024"), as PostgreSQL's date input reads
 * them too. The parts may be no valid date or time (checked by the caller); null for any other text.
 */
export function namedOrYearFirstDate(
  text: string,
): { year: number; month: number; day: number; time: TimeOfDay | null } | null {
  const monthOf = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
  let m = YEAR_FIRST_DATE.exec(text);
  if (m) {
    const time =
      m[5] === undefined ? null : { hour: +m[5], minute: +m[6]!, second: +(m[7] ?? 0), fraction: m[8] ?? '' };
    return { year: +m[1]!, month: +m[3]!, day: +m[4]!, time };
  }
  m = DAY_NAMED_MONTH.exec(text);
  if (m) return { year: +m[4]!, month: monthOf(m[2] ?? m[3]!), day: +m[1]!, time: null };
  m = NAMED_MONTH_DAY.exec(text);
  if (m) return { year: +m[3]!, month: monthOf(m[1]!), day: +m[2]!, time: null };
  return null;
}

interface DateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  fraction: string;
}

function dateTimeParts(text: string, format: DateFormat): DateTimeParts {
  const trimmed = text.trim();
  if (format === 'ISO' || format === 'YYYY-MM-DD') {
    const m = ISO_DATE_TIME.exec(trimmed);
    const other = m ? null : namedOrYearFirstDate(trimmed);
    if (other)
      return {
        year: other.year,
        month: other.month,
        day: other.day,
        ...(other.time ?? { hour: 0, minute: 0, second: 0, fraction: '' }),
      };
    if (!m) throw new ValueError(`"${text}" is not a date in ISO 8601 form (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS)`);
    // A zone suffix is accepted and dropped, as PostgreSQL does for `timestamp without time zone`.
    return {
      year: +m[1]!,
      month: +m[2]!,
      day: +m[3]!,
      hour: +(m[4] ?? 0),
      minute: +(m[5] ?? 0),
      second: +(m[6] ?? 0),
      fraction: m[7] ?? '',
    };
  }
  const m = DAY_MONTH_DATE_TIME.exec(trimmed);
  if (!m) throw new ValueError(`"${text}" is not a date in ${format} form`);
  const [first, second] = [+m[1]!, +m[3]!];
  const [day, month] = format === 'DD/MM/YYYY' ? [first, second] : [second, first];
  return {
    year: +m[4]!,
    month,
    day,
    hour: +(m[5] ?? 0),
    minute: +(m[6] ?? 0),
    second: +(m[7] ?? 0),
    fraction: m[8] ?? '',
  };
}

/** `YYYY-MM-DDTHH:MM:SS[.ffffff]`. */
export function parseTimestamp(text: string, format: DateFormat): string {
  const p = dateTimeParts(text, format);
  return `${checkedDate(p.year, p.month, p.day, text)}T${checkedTime(p.hour, p.minute, p.second, p.fraction, text)}`;
}

/** `YYYY-MM-DD`; a time part, if any, must be midnight. */
export function parseDate(text: string, format: DateFormat): string {
  const p = dateTimeParts(text, format);
  if (p.hour || p.minute || p.second || /[1-9]/.test(p.fraction))
    throw new ValueError(`"${text}" is a date and time, not a date`);
  return checkedDate(p.year, p.month, p.day, text);
}

/**
 * The stored value of one text cell. An empty cell is the empty string in a text field (as CKAN stores it)
 * and NULL in any other.
 */
export function parseCell(text: string, type: FieldType, format: FieldFormat): StoredValue {
  if (type === 'text') return text;
  if (text.trim() === '') return null;
  switch (type) {
    case 'numeric':
      return parseNumeric(isNumberFormat(format) ? plainNumberText(text, format) : text);
    case 'float8':
      return parseNumber(isNumberFormat(format) ? plainNumberText(text, format) : text);
    case 'int4':
    case 'int8':
      return parseInteger(isNumberFormat(format) ? plainNumberText(text, format) : text, type);
    case 'bool':
      return parseBoolean(text);
    case 'date':
      return parseDate(text, isNumberFormat(format) ? 'ISO' : format);
    case 'timestamp':
      return parseTimestamp(text, isNumberFormat(format) ? 'ISO' : format);
  }
}

/** Writes out a number's decimal digits without an exponent ("1e-7" → "0.0000001"), as PostgreSQL prints numeric. */
function withoutExponent(shortest: string): string {
  if (!shortest.includes('e')) return shortest;
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(shortest);
  if (!match) return shortest;
  const [, sign, whole, fraction = '', exponentText] = match;
  const digits = whole! + fraction;
  const point = whole!.length + Number(exponentText);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`.replace(/0+$/, '');
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Whether the decimal `digits` × 10^`exponent` lies exactly halfway between `value` and a neighbouring double. Such a
 * decimal reads back as `value` (ties go to the even mantissa), so JavaScript may print it as the shortest digits, but
 * PostgreSQL's shortest-digits output (Ryu) only takes decimals strictly closer to the value than to any other.
 */
function isHalfwayDecimal(value: number, digits: bigint, exponent: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  if (biased === 0 || biased === 2047) return false;
  const mantissa = (bits & ((1n << 52n) - 1n)) | (1n << 52n);
  // value = mantissa × 2^e; the halfway points are (2·mantissa ± 1) × 2^(e − 1), the lower one a quarter step below a
  // power of two, where the spacing halves.
  const e = biased - 1075;
  const candidates = [2n * mantissa + 1n, 2n * mantissa - 1n];
  let scale = e - 1;
  let lowerAtPowerOfTwo: bigint | null = null;
  if (mantissa === 1n << 52n) lowerAtPowerOfTwo = 4n * mantissa - 1n;
  const equals = (numerator: bigint, twos: number) => {
    // digits × 10^exponent = numerator × 2^twos, compared exactly.
    let left = digits;
    let right = numerator;
    if (exponent >= 0) left *= 10n ** BigInt(exponent);
    else right *= 10n ** BigInt(-exponent);
    if (twos >= 0) right <<= BigInt(twos);
    else left <<= BigInt(-twos);
    return left === right;
  };
  if (equals(candidates[0]!, scale)) return true;
  if (lowerAtPowerOfTwo === null) return equals(candidates[1]!, scale);
  scale -= 1;
  return equals(lowerAtPowerOfTwo, scale);
}

/**
 * The shortest digits of `value` (as toExponential gives them) that PostgreSQL would print: JavaScript's, unless they
 * fall halfway to a neighbour (see isHalfwayDecimal), which only digits of a value of 2^52 or more can do; then the
 * shortest correctly rounded digits that do not.
 */
function shortestExponential(value: number): string {
  const shortest = value.toExponential();
  if (Math.abs(value) < 2 ** 52) return shortest;
  const [mantissa, exponent] = shortest.split('e') as [string, string];
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  if (!isHalfwayDecimal(value, BigInt(digits), Number(exponent) - (digits.length - 1))) return shortest;
  for (let precision = digits.length + 1; precision <= 17; precision++) {
    const longer = value.toExponential(precision - 1);
    const [m, x] = longer.split('e') as [string, string];
    const d = m.replace(/^-/, '').replace('.', '');
    if (Number(longer) === value && !isHalfwayDecimal(value, BigInt(d), Number(x) - (d.length - 1)))
      return longer.replace(/\.?0+e/, 'e');
  }
  return value.toExponential(16);
}

/** PostgreSQL's float8 output: shortest round-trip digits, exponent form outside 1e-4 ≤ |x| < 1e15. */
function float8Text(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  // Shortest digits keep a double's order, so comparing the value with the bounds tells the exponent's range.
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-4 && magnitude < 1e15) return withoutExponent(String(value));
  const [mantissa, exponent] = shortestExponential(value).split('e') as [string, string];
  const sign = exponent.startsWith('-') ? '-' : '+';
  return `${mantissa}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
}

/**
 * The text of a number as PostgreSQL would print a value of this type (JSON, CSV and the full-text document). A
 * numeric's exact text (a string) is that text already; a double standing for a numeric prints its shortest digits.
 */
export function numberText(value: number | string, type: FieldType | 'int'): string {
  if (typeof value === 'string') {
    if (type === 'numeric') return value;
    value = Number(value);
  }
  if (type === 'float8') return float8Text(value);
  // Integers below 2^53 print without an exponent; only larger or fractional values need checking.
  if (Number.isSafeInteger(value)) return String(value);
  return withoutExponent(String(value));
}

/**
 * A value read back from a store as the store's own type holds it, whichever store it came from: PostgreSQL's numeric
 * and int8 arrive as text, SQLite's booleans as 0 and 1. Numbers of every type, numeric too, are the doubles that
 * compare and sort as the stores do; a numeric's exact text is the store's value itself (see `numberText`).
 */
export function storedValue(value: unknown, type: FieldType | 'int'): StoredValue {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'text':
    case 'date':
    case 'timestamp':
      return String(value);
    case 'bool':
      return value === true || value === 1 || value === 't';
    default:
      return Number(value);
  }
}

/**
 * The text a field-targeted full-text query reads from a stored value: PostgreSQL's `value::text`, with accents folded
 * as the index folds them (timestamps with a space before the time, as PostgreSQL writes them). Null for no value.
 */
export function searchableText(value: unknown, type: FieldType | 'int'): string | null {
  if (value === null || value === undefined) return null;
  if (type === 'bool') return value === true || value === 1 || value === 't' ? 'true' : 'false';
  if (typeof value === 'number') return numberText(value, type === 'float8' ? 'float8' : 'numeric');
  if (type === 'numeric') return String(value);
  const text = String(value);
  return type === 'timestamp' ? text.replace('T', ' ') : foldText(text);
}
