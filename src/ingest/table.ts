// What sources hand to the loader and to each other: rows of typed values in the order of a list of fields, each
// with the place in the source files it came from, so that every problem can be reported where it is.

import type { FieldDefinition, FieldType } from '../catalog/types.js';
import { numberText, parseCell, parseInteger, ValueError, type StoredValue } from '../catalog/values.js';
import { LoadError } from './csv.js';

/** Where a row or value came from: a file and a line (CSV), or a file and a JSON pointer. */
export interface Origin {
  file: string;
  line: number | null;
  column: number | null;
  pointer: string | null;
}

export function origin(file: string, at: Partial<Omit<Origin, 'file'>> = {}): Origin {
  return { file, line: at.line ?? null, column: at.column ?? null, pointer: at.pointer ?? null };
}

export function loadError(at: Origin, problem: string): LoadError {
  return new LoadError(at.file, at.line, at.column, problem, at.pointer);
}

export interface TableRow {
  /** In the order of the table's fields. */
  values: StoredValue[];
  origin: Origin;
  /**
   * The record's `_id` where the source has its own (a mirrored resource keeps the upstream's); otherwise its position.
   */
  id?: number;
}

/** Rows read (or derived) and checked against their fields. */
export interface Table {
  fields: readonly FieldDefinition[];
  rows: TableRow[];
}

/** A row a transform yields: values by output column, and the source of the facts it was derived from. */
export interface DerivedRow {
  values: Record<string, unknown>;
  origin: Origin;
}

/**
 * A table's value as transforms compute with it: a numeric's exact text as the number it is (transforms count votes,
 * they do not republish a numeric's text).
 */
export function computedValue(value: StoredValue | undefined, type: FieldType): StoredValue {
  return type === 'numeric' && typeof value === 'string' ? Number(value) : (value ?? null);
}

/** Reads a table's values by field id, as transforms compute with them (computedValue). */
export function columnReader(table: Table): (row: TableRow, id: string) => StoredValue {
  const positions = new Map(table.fields.map((f, i) => [f.id, i]));
  return (row, id) => {
    const at = positions.get(id);
    if (at === undefined) throw new Error(`the table has no field "${id}"`);
    return computedValue(row.values[at], table.fields[at]!.type);
  };
}

const INTEGER_TYPES = new Set<FieldType>(['int4', 'int8']);
const NUMBER_TYPES = new Set<FieldType>(['numeric', 'float8', 'int4', 'int8']);

const DAY_MS = 86_400_000;
/** 0000-01-01 and 10000-01-01 UTC in milliseconds: the days dayText keeps. */
const FOUR_DIGIT_YEARS = [-62_167_219_200_000, 253_402_300_800_000] as const;
const MAX_DAY_TEXTS = 100_000;
const dayTexts = new Map<number, string>();

/**
 * `YYYY-MM-DD` of a day (counted from 1970-01-01), kept once made: the days of a date column repeat, and toISOString
 * was most of the time spent typing a Parquet or Excel date column.
 */
function dayText(day: number): string {
  let text = dayTexts.get(day);
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dayTexts.size >= MAX_DAY_TEXTS) dayTexts.clear();
    dayTexts.set(day, text);
  }
  return text;
}

const MAX_SAFE_BIGINT = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE_BIGINT = BigInt(Number.MIN_SAFE_INTEGER);

/** A whole number held in a number, as an integer field stores it: checked, not printed and parsed again. */
function wholeNumber(value: number, type: 'int4' | 'int8'): number {
  if (Number.isInteger(value) && value >= INT_LIMITS[type][0] && value <= INT_LIMITS[type][1])
    return value === 0 ? 0 : value;
  return parseInteger(String(value), type);
}

const INT_LIMITS: Record<'int4' | 'int8', readonly [number, number]> = {
  int4: [-2147483648, 2147483647],
  int8: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));

/**
 * A moment (milliseconds since 1970, within four-digit years) as a timestamp field stores it, YYYY-MM-DDTHH:MM:SS and
 * any milliseconds without trailing zeros: what toISOString gives, cut, but made from the day's kept text
 * (dayText), which was most of the time spent typing a Parquet timestamp column.
 */
function timestampText(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  let rest = ms - day * DAY_MS;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  const time = `${dayText(day)}T${TWO_DIGITS[hours]!}:${TWO_DIGITS[minutes]!}:${TWO_DIGITS[seconds]!}`;
  return millis === 0 ? time : `${time}.${String(millis).padStart(3, '0').replace(/0+$/, '')}`;
}

/**
 * A value as a field of this type stores it. Text is parsed as a CSV cell is; JSON numbers and booleans must suit
 * the field (a whole number for an integer field); nothing (null or a missing value) is "" in a text field and null
 * in any other. Throws ValueError.
 */
export function typedValue(value: unknown, field: FieldDefinition): StoredValue {
  const { type } = field;
  if (value === null || value === undefined) return type === 'text' ? '' : null;
  if (typeof value === 'string') return parseCell(value, type, field.format);
  if (typeof value === 'number') {
    if (type === 'text') return numberText(value, 'numeric');
    if (!Number.isFinite(value)) throw new ValueError(`${value} is not a finite number`);
    if (INTEGER_TYPES.has(type)) return wholeNumber(value, type as 'int4' | 'int8');
    // A JSON number was parsed into a double: its shortest digits are all that is left of its text.
    if (type === 'numeric') return numberText(value, 'numeric');
    if (NUMBER_TYPES.has(type)) return value;
    throw new ValueError(`${value} is a number, not a ${type}`);
  }
  if (typeof value === 'boolean') {
    if (type === 'bool') return value;
    if (type === 'text') return value ? 'true' : 'false';
    throw new ValueError(`${value} is a boolean, not a ${type}`);
  }
  if (typeof value === 'bigint') {
    if (type === 'text') return String(value);
    if (type === 'numeric') return String(value);
    if (INTEGER_TYPES.has(type) || NUMBER_TYPES.has(type)) {
      if (value > MAX_SAFE_BIGINT || value < MIN_SAFE_BIGINT)
        throw new ValueError(`${value} is beyond what is held exactly (2^53)`);
      return INTEGER_TYPES.has(type) ? wholeNumber(Number(value), type as 'int4' | 'int8') : Number(value);
    }
    throw new ValueError(`${value} is a number, not a ${type}`);
  }
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) throw new ValueError('an invalid date');
    if (
      (type === 'date' || type === 'text') &&
      ms % DAY_MS === 0 &&
      ms >= FOUR_DIGIT_YEARS[0] &&
      ms < FOUR_DIGIT_YEARS[1]
    )
      return dayText(ms / DAY_MS);
    if (type === 'timestamp' && ms >= FOUR_DIGIT_YEARS[0] && ms < FOUR_DIGIT_YEARS[1]) return timestampText(ms);
    const iso = value.toISOString();
    const midnight = iso.endsWith('T00:00:00.000Z');
    if (type === 'date') {
      if (!midnight) throw new ValueError(`${iso} is a date and time, not a date`);
      return iso.slice(0, 10);
    }
    const stamp = iso.slice(0, 19) + (iso.slice(19, 23) === '.000' ? '' : iso.slice(19, 23).replace(/0+$/, ''));
    if (type === 'timestamp') return stamp;
    if (type === 'text') return midnight ? iso.slice(0, 10) : stamp;
    throw new ValueError(`${iso} is a date, not a ${type}`);
  }
  if (type === 'text') return JSON.stringify(value);
  throw new ValueError(`${JSON.stringify(value).slice(0, 60)} is not a ${type}`);
}

/** Types one value for a field, or throws a LoadError naming where it came from and which field it was for. */
export function checkedValue(value: unknown, field: FieldDefinition, at: Origin): StoredValue {
  try {
    return typedValue(value, field);
  } catch (err) {
    if (!(err instanceof ValueError)) throw err;
    throw loadError(at, `field "${field.id}" (${field.type}): ${err.message}`);
  }
}
