// The dump formats: each turns a header, rows and an end into text, as CKAN's dump writers do (csv, tsv, json,
// xml), plus NDJSON. Rows reuse the record writers, so a dump's values read exactly as datastore_search's.

import { numberText } from '../catalog/values.js';
import { formatFloat4 } from '../text-search/index.js';
import {
  delimitedWriter,
  fieldDescription,
  pythonNumericText,
  listWriter,
  objectWriter,
  renderedLineWriter,
  timestampText,
  type RecordWriter,
  type RenderOptions,
  type ResultColumn,
} from './records.js';

export const DUMP_FORMATS = ['csv', 'tsv', 'json', 'xml', 'ndjson'] as const;
export type DumpFormat = (typeof DUMP_FORMATS)[number];

export interface DumpWriter {
  contentType: string;
  extension: string;
  start(): string;
  row(row: readonly unknown[]): string;
  end(): string;
}

/** Python's csv module (excel dialects): quote only what needs it, end lines with \r\n. */
function pythonCsvLine(cells: readonly string[], delimiter: string): string {
  const quoted = cells.map((cell) =>
    cell.includes(delimiter) || cell.includes('"') || cell.includes('\n') || cell.includes('\r')
      ? `"${cell.replace(/"/g, '""')}"`
      : cell,
  );
  return quoted.join(delimiter) + '\r\n';
}

function delimited(
  columns: readonly ResultColumn[],
  delimiter: ',' | '\t',
  contentType: string,
  extension: string,
  options: RenderOptions,
  renderedLines: boolean,
): DumpWriter {
  // CKAN writes the header with Python's csv module (\r\n) and the rows with PostgreSQL's COPY (\n), which the store
  // may have written already (rows are then each its line).
  const rows: RecordWriter = renderedLines ? renderedLineWriter : delimitedWriter(columns, delimiter, options);
  return {
    contentType,
    extension,
    start: () =>
      pythonCsvLine(
        columns.map((c) => c.id),
        delimiter,
      ),
    row: (row) => rows.record(row),
    end: () => '',
  };
}

function json(columns: readonly ResultColumn[], options: RenderOptions): DumpWriter {
  const rows = listWriter(columns, { ...options, numericAsPythonFloat: true });
  let first = true;
  return {
    contentType: 'application/json; charset=utf-8',
    extension: 'json',
    start: () => `{\n  "fields": ${JSON.stringify(columns.map(fieldDescription))},\n  "records": [`,
    row(row) {
      const prefix = first ? '\n    ' : ',\n    ';
      first = false;
      return prefix + rows.record(row);
    },
    end: () => '\n]}\n',
  };
}

function ndjson(columns: readonly ResultColumn[], options: RenderOptions): DumpWriter {
  const rows = objectWriter(columns, options);
  return {
    contentType: 'application/x-ndjson; charset=utf-8',
    extension: 'ndjson',
    start: () => '',
    row: (row) => rows.record(row) + '\n',
    end: () => '',
  };
}

// Characters XML 1.0 cannot carry at all; dropping them is the only way to stay well-formed.
const XML_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function xmlText(text: string): string {
  return text.replace(XML_FORBIDDEN, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Field names made into XML element names, as CKAN 2.12 does it: spaces become "_", other characters that
 * cannot appear in a name are dropped, a leading "xml", digits, "." or "-" are removed, and clashes get suffixes.
 * CKAN 2.10/2.11 write names raw (`<Gender Id>`), which no XML parser accepts.
 */
export function xmlElementNames(ids: readonly string[]): string[] {
  const used = new Set<string>(['row']);
  return ids.map((id) => {
    let name = id
      .normalize('NFC')
      .replace(/^xml/i, '')
      .replace(/\s/gu, '_')
      .replace(/[^\p{L}\p{N}_.-]/gu, '')
      .replace(/^[\p{N}.-]+/u, '');
    if (name === '') name = 'field';
    const base = name;
    for (let n = 0; used.has(name); n++) name = `${base}_${n}`;
    used.add(name);
    return name;
  });
}

/** A value as Python's str() writes it in CKAN's XML dump (records come from the objects format). */
function xmlValue(value: unknown, type: ResultColumn['type'], options: RenderOptions): string {
  if (type === 'float') return formatFloat4(Number(value));
  if (type === 'bool') return value ? 'True' : 'False';
  if (type === 'timestamp') return timestampText(value, options);
  if (type === 'numeric') return pythonNumericText(numberText(typeof value === 'string' ? value : Number(value), type));
  if (typeof value === 'number') return numberText(value, type);
  return String(value);
}

function xml(columns: readonly ResultColumn[], options: RenderOptions): DumpWriter {
  const idAt = columns.findIndex((c) => c.id === '_id');
  const fields = columns.map((c, i) => ({ column: c, index: i })).filter(({ column }) => column.id !== '_id');
  const names = xmlElementNames(fields.map(({ column }) => column.id));
  return {
    contentType: 'text/xml; charset=utf-8',
    extension: 'xml',
    start: () => '<data xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n',
    row(row) {
      let out = idAt === -1 ? '<row>' : `<row _id="${xmlText(String(row[idAt]))}">`;
      fields.forEach(({ column, index }, i) => {
        const name = names[i]!;
        const value = row[index];
        if (value === null || value === undefined) out += `<${name} xsi:nil="true" />`;
        else {
          const text = xmlText(xmlValue(value, column.type, options));
          out += text === '' ? `<${name} />` : `<${name}>${text}</${name}>`;
        }
      });
      return out + '</row>\n';
    },
    end: () => '</data>\n',
  };
}

/** `renderedLines`: the store gives each record's line (SearchPlan's `delimitedLines`), for CSV and TSV. */
export function dumpWriter(
  format: DumpFormat,
  columns: readonly ResultColumn[],
  options: RenderOptions = {},
  renderedLines = false,
): DumpWriter {
  switch (format) {
    case 'csv':
      return delimited(columns, ',', 'text/csv; charset=utf-8', 'csv', options, renderedLines);
    case 'tsv':
      return delimited(columns, '\t', 'text/tab-separated-values; charset=utf-8', 'tsv', options, renderedLines);
    case 'json':
      return json(columns, options);
    case 'xml':
      return xml(columns, options);
    case 'ndjson':
      return ndjson(columns, options);
  }
}
