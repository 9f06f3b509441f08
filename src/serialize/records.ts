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

function jsonRenderer(type: ResultColumn['type'], options: RenderOptions = {}): Render {
  switch (type) {
    case 'float':
      return orNull('null', (v) => formatFloat4(Number(v)));
    case 'bool':
      return orNull('null', (v) => (v ? 'true' : 'false'));
    case 'timestamp':
      // CKAN formats timestamps with to_char(…, 'YYYY-MM-DD"T"HH24:MI:SS[.MS]'): no zone.
      return orNull('null', (v) => JSON.stringify(timestampText(v, options)));
    case 'text':
    case 'date':
      return orNull('null', (v) => JSON.stringify(v));
    case 'numeric':
      if (options.numericAsPythonFloat) {
        return orNull('null', (v) => pythonNumericText(numberText(typeof v === 'string' ? v : Number(v), type)));
      }
      // The store's exact text where it kept one (every digit and the scale), as PostgreSQL's to_json writes it.
      return orNull('null', (v) => numberText(typeof v === 'string' ? v : Number(v), type));
    default:
      return orNull('null', (v) => numberText(Number(v), type));
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

function csvQuote(text: string, needsQuotes: RegExp): string {
  // COPY quotes empty strings (to tell them from NULL) and anything holding the delimiter, a quote or a line break.
  if (text === '' || needsQuotes.test(text)) {
    return '"' + text.replace(/"/g, '""') + '"';
  }
  return text;
}

function csvRenderer(type: ResultColumn['type'], delimiter: string, options: RenderOptions = {}): Render {
  const needsQuotes = delimiter === '\t' ? /[\t"\n\r]/ : /[,"\n\r]/;
  switch (type) {
    case 'float':
      return orNull('', (v) => formatFloat4(Number(v)));
    case 'bool':
      return orNull('', (v) => (v ? 't' : 'f'));
    case 'timestamp':
      return orNull('', (v) => timestampText(v, options));
    case 'text':
    case 'date':
      return orNull('', (v) => csvQuote(String(v), needsQuotes));
    case 'numeric':
      return orNull('', (v) => numberText(typeof v === 'string' ? v : Number(v), type));
    default:
      return orNull('', (v) => numberText(Number(v), type));
  }
}

export interface RecordWriter {
  /** One record as compact JSON (objects/lists) or one CSV line with its "\n". */
  record(row: readonly unknown[]): string;
}

export function objectWriter(columns: readonly ResultColumn[], options: RenderOptions = {}): RecordWriter {
  const prefixes = columns.map((c, i) => (i === 0 ? '{' : ',') + JSON.stringify(c.id) + ':');
  const renders = columns.map((c) => jsonRenderer(c.type, options));
  return {
    record(row) {
      if (columns.length === 0) return '{}';
      let out = '';
      for (let i = 0; i < renders.length; i++) out += prefixes[i]! + renders[i]!(row[i]);
      return out + '}';
    },
  };
}

/**
 * Records whose JSON object text the store kept (rows are `[recordText, ...ranks]`): the text as it is, with any
 * rank fields spliced in before its closing brace.
 */
export function wholeRecordWriter(rankColumns: readonly ResultColumn[]): RecordWriter {
  if (rankColumns.length === 0) return { record: (row) => row[0] as string };
  const prefixes = rankColumns.map((c) => ',' + JSON.stringify(c.id) + ':');
  const render = jsonRenderer('float');
  return {
    record(row) {
      const text = row[0] as string;
      let out = text.slice(0, -1);
      for (let i = 0; i < prefixes.length; i++) out += prefixes[i]! + render(row[i + 1]);
      return out + '}';
    },
  };
}

/** Records whose CSV line the store kept (rows are `[line]`): the line as it is. */
export const storedLineWriter: RecordWriter = { record: (row) => row[0] as string };

export function listWriter(columns: readonly ResultColumn[], options: RenderOptions = {}): RecordWriter {
  const renders = columns.map((c) => jsonRenderer(c.type, options));
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
  const renders = columns.map((c) => csvRenderer(c.type, delimiter, options));
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
