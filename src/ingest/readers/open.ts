// Opens a table file by what it was found to be (src/ingest/readers/sniff.ts), with a publisher's overrides: the one
// place that knows which reader reads which format.

import { openDelimited } from './delimited.js';
import { fieldTypeOfCkan, findRecords, ndjsonShape, openJson, openJsonColumns, type RecordsLocation } from './json.js';
import { NotATableError, type Sniffed } from './sniff.js';
import type { TableReader } from './types.js';

/** What a publisher may say instead of what was sniffed. */
export interface ReadOverrides {
  delimiter?: string;
  headerRow?: number;
  quotes?: 'csv' | 'literal';
  escapes?: 'none' | 'backslash';
  /** `NULL`: a cell that is exactly NULL is null; `empty`: it is the word. */
  nulls?: 'NULL' | 'empty';
  /** `skip`: the spaces after each delimiter are not part of the cells; `keep`: they are. */
  leadingSpaces?: 'skip' | 'keep';
  /** The mark comment lines start with, or `none`: every line below the header is a row. */
  comments?: string;
  sheet?: string;
}

/** How a sniffed file is read: the sniffed shape with overrides applied, and for JSON where its records are. */
export type TableSpec =
  | (Extract<Sniffed, { format: 'csv' }> & {
      quotes: 'csv' | 'literal';
      /** Where reading quotes as CSV's went wrong, when that decided `literal` (null: the publisher said, or csv). */
      runawayQuote: { line: number; lines: number } | null;
      /**
       * `backslash` where the sample has a `\N` cell and no quoted field (see DelimitedShape.backslashNull), or, in a
       * tab-separated sample with no quoted field, a `NULL` cell and a doubled backslash (mysql --batch), unless the
       * publisher said.
       */
      escapes: 'none' | 'backslash';
      /**
       * What in the sample shows backslash escapes, whatever the publisher said: PostgreSQL's or MySQL's text format
       * (a `\N` cell), or mysql --batch (a `NULL` cell and a doubled backslash); null where nothing does.
       */
      escapesSeen: 'text-format' | 'mysql-batch' | null;
      /**
       * Whether a cell that is exactly NULL is null: where the sample has one (DelimitedShape.nullWordLine), unless the
       * publisher said.
       */
      nullWord: boolean;
    })
  | (Extract<Sniffed, { format: 'json' | 'ndjson' }> & RecordsLocation)
  | { format: 'xlsx'; sheet: string | null }
  | { format: 'parquet' };

export async function tableSpec(
  file: string,
  displayName: string,
  sniffed: Sniffed,
  overrides: ReadOverrides = {},
): Promise<TableSpec> {
  switch (sniffed.format) {
    case 'csv': {
      // The text format never quotes: a sample with quoted fields is CSV's quoting (a CKAN TSV dump), whatever its
      // cells say.
      const escapesSeen = sniffed.quoted
        ? null
        : sniffed.backslashNull !== null
          ? 'text-format'
          : sniffed.delimiter === '\t' && sniffed.nullWordLine !== null && sniffed.doubledBackslash
            ? 'mysql-batch'
            : null;
      return {
        ...sniffed,
        ...(overrides.delimiter ? { delimiter: overrides.delimiter } : {}),
        ...(overrides.headerRow !== undefined
          ? { headerRow: overrides.headerRow, titleLines: [], headerless: null, headerPrefix: null }
          : {}),
        quotes: overrides.quotes ?? 'csv',
        runawayQuote: null,
        escapes: overrides.escapes ?? (escapesSeen ? 'backslash' : 'none'),
        escapesSeen,
        nullWord: overrides.nulls === undefined ? sniffed.nullWordLine !== null : overrides.nulls === 'NULL',
        ...(overrides.leadingSpaces ? { leadingSpaces: overrides.leadingSpaces === 'skip' } : {}),
        ...(overrides.comments !== undefined
          ? { commentMark: overrides.comments === 'none' ? null : overrides.comments }
          : {}),
      };
    }
    case 'json':
      return { ...sniffed, ...(await findRecords(file, displayName, sniffed)) };
    case 'ndjson':
      return { ...sniffed, recordsAt: [], fields: null, lists: false, shape: await ndjsonShape(file, sniffed) };
    case 'xlsx':
      return { format: 'xlsx', sheet: overrides.sheet ?? null };
    case 'parquet':
      return { format: 'parquet' };
  }
}

export async function openTable(file: string, displayName: string, spec: TableSpec): Promise<TableReader> {
  switch (spec.format) {
    case 'csv':
      return openDelimited(file, displayName, spec);
    case 'json':
    case 'ndjson': {
      if (spec.shape === 'columns') return openJsonColumns(file, displayName, spec);
      const typed = spec.fields?.filter((f): f is { id: string; type: string } => f.type !== null) ?? [];
      const types = typed.length > 0 ? new Map(typed.map((f) => [f.id, fieldTypeOfCkan(f.type)])) : undefined;
      return openJson(file, displayName, {
        ...spec,
        lines: spec.format === 'ndjson',
        ...(spec.lists && spec.fields ? { names: spec.fields.map((f) => f.id) } : {}),
        ...(spec.shape === 'geojson' ? { features: true } : {}),
        ...(types ? { types } : {}),
      });
    }
    case 'xlsx':
    case 'parquet':
      return openTypedFile(file, displayName, spec);
  }
}

/**
 * A workbook's or Parquet file's reader: its cells carry their own types; a file the reader cannot read is not a table
 * (its message is one sentence naming the file).
 */
export async function openTypedFile(
  file: string,
  displayName: string,
  spec: { format: 'xlsx'; sheet: string | null } | { format: 'parquet' },
): Promise<TableReader> {
  let reader: TableReader;
  try {
    // Imported when first met: a serving process that never reads a workbook or a Parquet file does not hold these
    // readers and their libraries (about a hundred modules) in memory.
    reader =
      spec.format === 'xlsx'
        ? await (
            await import('./xlsx.js')
          ).openXlsx(file, { displayName, ...(spec.sheet ? { sheet: spec.sheet } : {}) })
        : await (await import('./parquet.js')).openParquet(file, { displayName });
  } catch (err) {
    if (err instanceof NotATableError) throw err;
    const message = (err as Error).message;
    throw new NotATableError(
      displayName,
      message.startsWith(`${displayName}: `) ? message.slice(displayName.length + 2) : message,
    );
  }
  return Object.defineProperty(reader, 'typed', { value: true, enumerable: true });
}
