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

function jsonRenderer(type: ResultColumn['type']): Render {
  switch (type) {
    case 'float':
      return (v) => (v === null || v === undefined ? 'null' : formatFloat4(Number(v)));
    case 'bool':
      return (v) => (v === null || v === undefined ? 'null' : v ? 'true' : 'false');
    case 'timestamp':
      // CKAN 2.11 formats timestamps with to_char(…, 'YYYY-MM-DD"T"HH24:MI:SS'): no fraction, no zone.
      return (v) => (v === null || v === undefined ? 'null' : JSON.stringify(String(v).slice(0, 19)));
    case 'text':
    case 'date':
      return (v) => (v === null || v === undefined ? 'null' : JSON.stringify(v));
    default:
      return (v) => (v === null || v === undefined ? 'null' : numberText(Number(v), type));
  }
}

function csvQuote(text: string, delimiter: string): string {
  // COPY quotes empty strings (to tell them from NULL) and anything holding the delimiter, a quote or a line break.
  if (text === '' || text.includes(delimiter) || text.includes('"') || text.includes('\n') || text.includes('\r')) {
    return '"' + text.replace(/"/g, '""') + '"';
  }
  return text;
}

function csvRenderer(type: ResultColumn['type'], delimiter: string): Render {
  switch (type) {
    case 'float':
      return (v) => (v === null || v === undefined ? '' : formatFloat4(Number(v)));
    case 'bool':
      return (v) => (v === null || v === undefined ? '' : v ? 't' : 'f');
    case 'timestamp':
      return (v) => (v === null || v === undefined ? '' : String(v).slice(0, 19));
    case 'text':
    case 'date':
      return (v) => (v === null || v === undefined ? '' : csvQuote(String(v), delimiter));
    default:
      return (v) => (v === null || v === undefined ? '' : numberText(Number(v), type));
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
