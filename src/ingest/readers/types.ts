// What every table-file reader hands on, whatever the format: the columns the file names, the types it declares
// (where it has a schema), and its rows in batches, each cell as the format holds it, with where the row is.
// Inference (src/ingest/infer.ts) and the loader (src/ingest/layouts.ts) read every format through this.

import type { FieldType } from '../../catalog/types.js';

/**
 * A cell as the file holds it: text for delimited text (never null: an empty cell is ""), a JSON value for JSON and
 * NDJSON, a number, string, boolean or Date for a spreadsheet, and any of those or a bigint for Parquet. Null is "no
 * value" where the format has one. A Date is a moment in UTC: a date-only value is midnight UTC.
 */
export type RawCell =
  string | number | bigint | boolean | Date | null | readonly unknown[] | { readonly [key: string]: unknown };

export interface RawRow {
  /** In the order of the reader's columns; shorter when the row has fewer cells (a short CSV row). */
  cells: RawCell[];
  /** Where the row is: its line (text; 1-based, of the line the row ends on), its sheet row, or its record number. */
  line: number;
}

/** What a row's cell count is told against in messages: the header's, or the first rows' where there is none. */
export const widthOf = (reader: Pick<TableReader, 'headerless'>, width: number): string =>
  reader.headerless ? `the first rows have at most ${width}` : `the header has ${width}`;

/** Rows left out for having every cell empty: how many, and the line of the first. */
export interface EmptyRows {
  count: number;
  first: number | null;
}

/** A file opened for reading as a table. */
export interface TableReader {
  /** What the format calls a row's place in messages: `line`, `row` or `record`. */
  readonly unit: 'line' | 'row' | 'record';
  /** The column names, as the file gives them (a header row, the keys of records, a schema). */
  readonly columns: readonly string[];
  /** Per column, the type the file's own schema gives it (Parquet), or null where it gives none. */
  readonly declaredTypes: readonly (FieldType | null)[] | null;
  /**
   * Whether cells carry their own types (JSON, a sheet, Parquet): a string is then text even when it reads as a number
   * ("00501", "123" written as text), since the file could have held a number. Delimited text's cells are all text.
   */
  readonly typed?: boolean;
  /** Whether the file has no header: its columns are named by their places, as wide as its widest first rows. */
  readonly headerless?: boolean;
  /** How many rows the file holds, where it says so before they are read (Parquet's metadata), for progress. */
  readonly rowCount: number | null;
  /** Lines below the table that were notes, not data ("Source: …"), left out; known once the rows are read. */
  readonly notes?: readonly { line: number; text: string }[];
  /**
   * Rows of delimited text with every cell empty (",,,"), as spreadsheets export the rows below a table they once
   * formatted: left out, counted as read, with the line of the first.
   */
  readonly emptyRows?: EmptyRows;
  /** Lines below the header that start with the file's comment mark (DelimitedOptions.commentMark): left out, counted. */
  readonly commentRows?: EmptyRows;
  /**
   * The rows, in file order, in batches (a batch per chunk read, so that a consumer awaits once per batch, not per
   * row).
   */
  batches(): AsyncGenerator<RawRow[]>;
  /** Releases the file; safe to call more than once and after `batches` finished or was abandoned. */
  close(): Promise<void>;
}
