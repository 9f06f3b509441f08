// Renders result rows in the four record formats as PostgreSQL renders them for CKAN: compact JSON objects
// or lists (array_to_json), or CSV/TSV text with COPY's quoting and no header.

import { numberText } from '../catalog/values.js';
import type { FieldInfo } from '../catalog/types.js';
import { formatFloat4 } from '../text-search/index.js';

/** A result column: a field, or a full-text rank (`float`). */
export interface ResultColumn {
  id: string;
  type: FieldInfo['type'] | 'float';
}

type Render = (value: unknown) => string;

/** Renders null (and a missing value) as `nullText`, anything else with `render`. */
function orNull(nullText: string, render: Render): Render {
  return (v) => (v === null || v === undefined ? nullText : render(v));
}

function jsonRenderer(type: ResultColumn['type']): Render {
  switch (type) {
    case 'float':
      return orNull('null', (v) => formatFloat4(Number(v)));
    case 'bool':
      return orNull('null', (v) => (v ? 'true' : 'false'));
    case 'timestamp':
      // CKAN 2.11 formats timestamps with to_char(…, 'YYYY-MM-DD"T"HH24:MI:SS'): no fraction, no zone.
      return orNull('null', (v) => JSON.stringify(String(v).slice(0, 19)));
    case 'text':
    case 'date':
      return orNull('null', (v) => JSON.stringify(v));
    default:
      return orNull('null', (v) => numberText(Number(v), type));
  }
}

function csvQuote(text: string, needsQuotes: RegExp): string {
  // COPY quotes empty strings (to tell them from NULL) and anything holding the delimiter, a quote or a line break.
  if (text === '' || needsQuotes.test(text)) {
    return '"' + text.replace(/"/g, '""') + '"';
  }
  return text;
}

function csvRenderer(type: ResultColumn['type'], delimiter: string): Render {
  const needsQuotes = delimiter === '\t' ? /[\t"\n\r]/ : /[,"\n\r]/;
  switch (type) {
    case 'float':
      return orNull('', (v) => formatFloat4(Number(v)));
    case 'bool':
      return orNull('', (v) => (v ? 't' : 'f'));
    case 'timestamp':
      return orNull('', (v) => String(v).slice(0, 19));
    case 'text':
    case 'date':
      return orNull('', (v) => csvQuote(String(v), needsQuotes));
    default:
      return orNull('', (v) => numberText(Number(v), type));
  }
}

export interface RecordWriter {
  /** One record as compact JSON (objects/lists) or one CSV line with its "\n". */
  record(row: readonly unknown[]): string;
}

export function objectWriter(columns: readonly ResultColumn[]): RecordWriter {
  const prefixes = columns.map((c, i) => (i === 0 ? '{' : ',') + JSON.stringify(c.id) + ':');
  const renders = columns.map((c) => jsonRenderer(c.type));
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

export function listWriter(columns: readonly ResultColumn[]): RecordWriter {
  const renders = columns.map((c) => jsonRenderer(c.type));
  return {
    record(row) {
      let out = '[';
      for (let i = 0; i < renders.length; i++) out += (i === 0 ? '' : ',') + renders[i]!(row[i]);
      return out + ']';
    },
  };
}

export function delimitedWriter(columns: readonly ResultColumn[], delimiter: ',' | '\t'): RecordWriter {
  const renders = columns.map((c) => csvRenderer(c.type, delimiter));
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
  let out = '[';
  for (let i = 0; i < rows.length; i++) out += (i === 0 ? '' : ',') + writer.record(rows[i]!);
  return out + ']';
}

export function delimitedText(writer: RecordWriter, rows: readonly (readonly unknown[])[]): string {
  let out = '';
  for (const row of rows) out += writer.record(row);
  return out;
}
