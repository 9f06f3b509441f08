// Whole records as one text each, rendered by SQLite: lines of delimited text as COPY writes them (CKAN's CSV and TSV)
// and compact JSON objects or lists as the API writes them. One string per row for the reader instead of one value per
// field is what makes a dump of a large resource, and a page never asked for before, fast. The text of each type is
// the serializers' (src/serialize/records.ts): NULL as nothing (or null), t/f (true/false), text quoted only where it
// must be (JSON text quoted by SQLite's json_quote, which escapes as JSON.stringify does), timestamps to the second or
// the millisecond, numbers with the digits PostgreSQL prints (doubles through cc_number_text, which shares the
// serializers' code, where SQLite's own digits are not those).

import type { FieldType } from '../../catalog/types.js';
import { exactColumn } from './ddl.js';
import { SQLITE_FUNCTIONS } from './functions.js';
import { quoteIdent, quoteLiteral } from './quote.js';

/**
 * Whether COPY quotes a text value: empty, or holding the delimiter, a quote or a line break. One GLOB (its pattern a
 * constant) costs a third of four instr calls.
 */
function quotingTest(column: string, delimiter: ',' | '\t'): string {
  return `${column} GLOB ${quoteLiteral(`*[${delimiter}"\n\r]*`)} OR ${column} = ''`;
}

/** A field as a line needs it: its type, and what loading found of its values (see PlanField). */
export interface LineField {
  id: string;
  type: FieldType | 'int';
  nullable?: boolean;
  quoted?: boolean;
}

/** What a record's text format writes differently from the others: NULL, booleans, text and timestamps' quotes. */
interface TextFormat {
  nullText: string;
  bools: [string, string];
  /** A text or date field's value, NULL included. */
  text(column: string, field: LineField): string;
  quotesTimestamps: boolean;
}

/** CSV or TSV as COPY writes them: NULL as nothing, t/f, text quoted only where it must be. */
function delimitedFormat(delimiter: ',' | '\t'): TextFormat {
  return {
    nullText: '',
    bools: ['t', 'f'],
    text: (c, field) =>
      // A field with no value to quote is its own text (the test for quotes is most of a line's cost).
      field.type === 'text' && field.quoted === false
        ? field.nullable === false
          ? c
          : `coalesce(${c}, '')`
        : `CASE WHEN ${c} IS NULL THEN '' WHEN ${quotingTest(c, delimiter)} ` +
          `THEN '"' || replace(${c}, '"', '""') || '"' ELSE ${c} END`,
    quotesTimestamps: false,
  };
}

/** JSON as the API's records write it: null, true/false, text quoted by json_quote (which writes NULL as null). */
const JSON_FORMAT: TextFormat = {
  nullText: 'null',
  bools: ['true', 'false'],
  // Text columns hold only text (their affinity makes it so), which json_quote quotes as JSON.stringify does.
  text: (c) => `json_quote(${c})`,
  quotesTimestamps: true,
};

/**
 * A double's text as PostgreSQL prints it (float8, or a numeric held as a double). Its shortest digits need a call into
 * JavaScript (cc_number_text) in general; but where SQLite's own 15 significant digits read back as the same double
 * and need no exponent (1e-4 ≤ |x| < 1e15), they are those shortest digits (with no trailing zeros), and SQLite writes
 * them at a fraction of a call's cost: most money, shares and measurements. 16 or 17 digits, zero, and large or tiny
 * values still go to JavaScript.
 */
export function doubleTextSql(column: string, type: 'float8' | 'numeric'): string {
  const digits = `printf('%.15g', ${column})`;
  return (
    `CASE WHEN abs(${column}) >= 1e-4 AND abs(${column}) < 1e15 AND CAST(${digits} AS REAL) = ${column} ` +
    `THEN ${digits} ELSE ${SQLITE_FUNCTIONS.numberText}(${column}, '${type}') END`
  );
}

function valueText(field: LineField, format: TextFormat, timestampMilliseconds: boolean): string {
  const c = quoteIdent(field.id);
  const nullText = quoteLiteral(format.nullText);
  switch (field.type) {
    case 'int':
    case 'int4':
    case 'int8':
      return `coalesce(CAST(${c} AS TEXT), ${nullText})`;
    case 'bool': {
      const [yes, no] = format.bools.map(quoteLiteral);
      return `CASE ${c} WHEN 1 THEN ${yes} WHEN 0 THEN ${no} ELSE ${nullText} END`;
    }
    case 'timestamp': {
      const seconds = `substr(${c}, 1, 19)`;
      const text = timestampMilliseconds ? `${seconds} || '.' || substr(substr(${c}, 21) || '000', 1, 3)` : seconds;
      return `CASE WHEN ${c} IS NULL THEN ${nullText} ELSE ${format.quotesTimestamps ? `'"' || ${text} || '"'` : text} END`;
    }
    case 'numeric':
      // The exact text where the load kept one; a whole number as SQLite writes it; any other double as PostgreSQL.
      return (
        `coalesce(${quoteIdent(exactColumn(field.id))}, CASE WHEN ${c} IS NULL THEN ${nullText} WHEN typeof(${c}) = 'integer' ` +
        `THEN CAST(${c} AS TEXT) ELSE ${doubleTextSql(c, 'numeric')} END)`
      );
    case 'float8':
      return `CASE WHEN ${c} IS NULL THEN ${nullText} ELSE ${doubleTextSql(c, 'float8')} END`;
    case 'text':
    case 'date':
      return format.text(c, field);
  }
}

/**
 * Texts joined by `||`, nested as a balanced tree: SQLite refuses an expression more than 1,000 deep, which a chain of
 * a few hundred fields' values and separators would be.
 */
function concatenated(parts: readonly string[]): string {
  if (parts.length === 1) return parts[0]!;
  const half = Math.ceil(parts.length / 2);
  return `(${concatenated(parts.slice(0, half))} || ${concatenated(parts.slice(half))})`;
}

/** One record's line, its values joined by the delimiter and ended by a line feed. */
export function delimitedLineSql(
  fields: readonly LineField[],
  delimiter: ',' | '\t',
  timestampMilliseconds: boolean,
): string {
  const separator = delimiter === ',' ? quoteLiteral(',') : 'char(9)';
  const format = delimitedFormat(delimiter);
  const parts = fields.flatMap((f, i) => [
    ...(i === 0 ? [] : [separator]),
    valueText(f, format, timestampMilliseconds),
  ]);
  return concatenated([...parts, 'char(10)']);
}

/** One record as a compact JSON object (each field's id and value) or list (the values), as the API's records. */
export function jsonRecordSql(fields: readonly LineField[], lists: boolean, timestampMilliseconds: boolean): string {
  if (fields.length === 0) return quoteLiteral(lists ? '[]' : '{}');
  const parts = fields.flatMap((f, i) => {
    const lead = (i === 0 ? (lists ? '[' : '{') : ',') + (lists ? '' : `${JSON.stringify(f.id)}:`);
    return [quoteLiteral(lead), valueText(f, JSON_FORMAT, timestampMilliseconds)];
  });
  return concatenated([...parts, quoteLiteral(lists ? ']' : '}')]);
}
