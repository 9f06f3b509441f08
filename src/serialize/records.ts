// Renders result rows in the four record formats as PostgreSQL renders them for CKAN: compact JSON objects
// or lists (array_to_json), or CSV/TSV text with COPY's quoting and no header.

import { numberText, storedValue } from '../catalog/values.js';
import type { FieldDictionary, FieldInfo } from '../catalog/types.js';
import { formatFloat4 } from '../text-search/index.js';
import { pythonFloatText } from './python-json.js';

/** A result column: a field, or a full-text rank (`float`). */
export interface ResultColumn {
  id: string;
  type: FieldInfo['type'] | 'float';
  /** The field's data dictionary entry, reported with it when set (as CKAN reports a column comment's `_info`). */
  info?: FieldDictionary | null;
}

/** A result column as CKAN describes it in `fields`: id, type, and info when the field has one. */
export function fieldDescription(column: ResultColumn): { id: string; type: string; info?: FieldDictionary | null } {
  return column.info ? { id: column.id, type: column.type, info: column.info } : { id: column.id, type: column.type };
}

type Render = (value: unknown) => string;

/** How values are written where CKAN versions differ. */
export interface RenderOptions {
  /**
   * Timestamps with milliseconds, `YYYY-MM-DDTHH:MM:SS.mmm`, as CKAN 2.12 writes them by default
   * (`ckan.datastore.ms_in_timestamp`); otherwise `YYYY-MM-DDTHH:MM:SS`, as CKAN 2.10/2.11 and the service description.
   */
  timestampMilliseconds?: boolean;
  /**
   * `numeric` values as CKAN 2.10's JSON and XML dumps write them: its writers parse the records' JSON with Python's
   * json module, so a value with a point becomes a float (`12.50` → `12.5`, `0.0000001` → `1e-07`) and one without
   * an int of every digit.
   */
  numericAsPythonFloat?: boolean;
}

/** A numeric's text as Python writes the float (or int) its json module reads from it. */
export function pythonNumericText(text: string): string {
  return text.includes('.') ? pythonFloatText(Number(text)) : text;
}

/**
 * A stored timestamp (`YYYY-MM-DDTHH:MM:SS[.ffffff]`) as CKAN's to_char writes it: to the second, or to the
 * millisecond (truncated, as PostgreSQL's MS field is).
 */
export function timestampText(value: unknown, options: RenderOptions = {}): string {
  const text = String(value);
  const seconds = text.slice(0, 19);
  if (!options.timestampMilliseconds) return seconds;
  return `${seconds}.${(text.slice(20) + '000').slice(0, 3)}`;
}

/** Renders null (and a missing value) as `nullText`, anything else with `render`. */
function orNull(nullText: string, render: Render): Render {
  return (v) => (v === null || v === undefined ? nullText : render(v));
}

/** How a record format writes the values whose text differs between formats (never given null). */
interface CellFormat {
  nullText: string;
  bool: Render;
  /** text and date values */
  text: Render;
  timestamp(options: RenderOptions): Render;
  numeric(options: RenderOptions): Render;
}

const exactNumeric: Render = (v) => numberText(typeof v === 'string' ? v : Number(v), 'numeric');

const JSON_FORMAT: CellFormat = {
  nullText: 'null',
  bool: (v) => (v ? 'true' : 'false'),
  text: (v) => JSON.stringify(v),
  // CKAN formats timestamps with to_char(…, 'YYYY-MM-DD"T"HH24:MI:SS[.MS]'): no zone.
  timestamp: (options) => (v) => JSON.stringify(timestampText(v, options)),
  // The store's exact text where it kept one (every digit and the scale), as PostgreSQL's to_json writes it.
  numeric: (options) => (options.numericAsPythonFloat ? (v) => pythonNumericText(exactNumeric(v)) : exactNumeric),
};

function csvQuote(text: string, needsQuotes: RegExp): string {
  // COPY quotes empty strings (to tell them from NULL) and anything holding the delimiter, a quote or a line break.
  if (text === '' || needsQuotes.test(text)) {
    return '"' + text.replace(/"/g, '""') + '"';
  }
  return text;
}

/** CSV/TSV as COPY writes it: NULL as nothing, booleans as t/f, text quoted only where it must be. */
function delimitedFormat(delimiter: string): CellFormat {
  const needsQuotes = delimiter === '\t' ? /[\t"\n\r]/ : /[,"\n\r]/;
  return {
    nullText: '',
    bool: (v) => (v ? 't' : 'f'),
    text: (v) => csvQuote(String(v), needsQuotes),
    timestamp: (options) => (v) => timestampText(v, options),
    numeric: () => exactNumeric,
  };
}

function renderer(type: ResultColumn['type'], format: CellFormat, options: RenderOptions = {}): Render {
  switch (type) {
    case 'float':
      return orNull(format.nullText, (v) => formatFloat4(Number(v)));
    case 'bool':
      return orNull(format.nullText, format.bool);
    case 'timestamp':
      return orNull(format.nullText, format.timestamp(options));
    case 'text':
    case 'date':
      return orNull(format.nullText, format.text);
    case 'numeric':
      return orNull(format.nullText, format.numeric(options));
    default:
      return orNull(format.nullText, (v) => numberText(Number(v), type));
  }
}

/**
 * A stored value as the JSON of a record holds it, as a value rather than text: what a presenter reading records
 * itself sees where a client parsing the API's JSON would see the same (numbers as numbers, timestamps as CKAN writes
 * them).
 */
export function valueReader(type: ResultColumn['type'], options: RenderOptions = {}): (value: unknown) => unknown {
  switch (type) {
    case 'float':
      return (v) => (v === null || v === undefined ? null : Number(formatFloat4(Number(v))));
    case 'timestamp':
      return (v) => (v === null || v === undefined ? null : timestampText(v, options));
    default:
      return (v) => storedValue(v, type);
  }
}

export interface RecordWriter {
  /** One record as compact JSON (objects/lists) or one CSV line with its "\n". */
  record(row: readonly unknown[]): string;
}

export function objectWriter(columns: readonly ResultColumn[], options: RenderOptions = {}): RecordWriter {
  const prefixes = columns.map((c, i) => (i === 0 ? '{' : ',') + JSON.stringify(c.id) + ':');
  const renders = columns.map((c) => renderer(c.type, JSON_FORMAT, options));
  return {
    record(row) {
      if (columns.length === 0) return '{}';
      let out = '';
      for (let i = 0; i < renders.length; i++) out += prefixes[i]! + renders[i]!(row[i]);
      return out + '}';
    },
  };
}

/** Records the store rendered as lines of delimited text (rows are `[line]`, see `delimitedLines`): as they are. */
export const renderedLineWriter: RecordWriter = { record: (row) => row[0] as string };

export function listWriter(columns: readonly ResultColumn[], options: RenderOptions = {}): RecordWriter {
  const renders = columns.map((c) => renderer(c.type, JSON_FORMAT, options));
  return {
    record(row) {
      let out = '[';
      for (let i = 0; i < renders.length; i++) out += (i === 0 ? '' : ',') + renders[i]!(row[i]);
      return out + ']';
    },
  };
}

export function delimitedWriter(
  columns: readonly ResultColumn[],
  delimiter: ',' | '\t',
  options: RenderOptions = {},
): RecordWriter {
  const format = delimitedFormat(delimiter);
  const renders = columns.map((c) => renderer(c.type, format, options));
  return {
    record(row) {
      let out = '';
      for (let i = 0; i < renders.length; i++) out += (i === 0 ? '' : delimiter) + renders[i]!(row[i]);
      return out + '\n';
    },
  };
}

/** A page of records as one JSON array text: records joined compactly, as PostgreSQL's array_to_json. */
export function jsonArray(writer: RecordWriter, rows: readonly (readonly unknown[])[]): string {
  // Joined, the records are one flat string, made in one go, rather than a chain of a few hundred concatenations.
  const records = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) records[i] = writer.record(rows[i]!);
  return '[' + records.join(',') + ']';
}

export function delimitedText(writer: RecordWriter, rows: readonly (readonly unknown[])[]): string {
  let out = '';
  for (const row of rows) out += writer.record(row);
  return out;
}
