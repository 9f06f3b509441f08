// Delimited text (CSV, TSV, semicolon, pipe or space separated) as a table: decoded from its encoding, lines ended by
// CRLF, LF or CR in any mix, title lines above the header skipped, trailing note lines dropped, rows handed on in
// batches with the line each ends on. Quoting is CSV's (RFC 4180), through csv-parse.

import { createReadStream } from 'node:fs';
import { Parser, type Options as CsvOptions } from 'csv-parse';
import { findUnclosedQuote, LoadError } from '../csv.js';
import { repairC1 } from '../encoding.js';
import { textDecoder } from './mixed-utf8.js';
import type { EmptyRows, RawRow, TableReader } from './types.js';

export interface DelimitedOptions {
  /** An iconv-lite encoding name; `utf-8` is parsed from the bytes without decoding first. */
  encoding: string;
  /** Bytes of byte-order mark to skip. */
  bomLength: number;
  delimiter: string;
  /** The header's line, 1-based; lines above it are not read. 0: no header, every line is data. */
  headerRow: number;
  /** `windows-1252-c1`: C1 control characters left by a wrong conversion read as the Windows-1252 letters they were. */
  repair?: 'windows-1252-c1' | null;
  /**
   * PostgreSQL's CSV (COPY … CSV, what CKAN's DataStore dump writes) tells NULL from the empty string: an unquoted
   * empty field is NULL (a null cell), a quoted one ("") the empty string. Elsewhere both are "".
   */
  unquotedEmptyIsNull?: boolean;
  /**
   * `csv` (the default): a quote at the start of a field quotes it, as RFC 4180 says. `literal`: quotes are characters
   * like any other, as in tab-separated files that never quote (IANA's text/tab-separated-values, PostgreSQL's text
   * COPY), where a field may start with a quote that never closes.
   */
  quotes?: 'csv' | 'literal';
  /**
   * `backslash`: PostgreSQL's and MySQL's text format (COPY … TO, SELECT … INTO OUTFILE): a cell that is `\N` is NULL,
   * backslashes escape (`\t`, `\n`, `\\`, octal and hex codes), and quotes are characters. `none` (the default): a
   * backslash is a character.
   */
  escapes?: 'none' | 'backslash';
  /**
   * A cell that is exactly `NULL` is NULL (kept as null in text fields too), as SQL tools write one in their exports
   * (mysql --batch, SQL Server's): the word itself cannot be told from it there.
   */
  nullWord?: boolean;
  /** The spaces after each delimiter are the separator's, not the cell's (a file separated by ", "). */
  leadingSpaces?: boolean;
  /** A comment mark the header line starts with, in a cell of its own: no column (see DelimitedShape.headerPrefix). */
  headerPrefix?: string | null;
  /** Lines below the header that start with this mark are comments, left out (see DelimitedShape.commentMark). */
  commentMark?: string | null;
}

const SIMPLE_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** A cell of PostgreSQL's text format as the value it stands for (its COPY reading rules; MySQL's agree). */
export function unescapeTextFormat(cell: string): string | null {
  if (cell === '\\N') return null;
  if (!cell.includes('\\')) return cell;
  return cell.replace(
    /\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|([\s\S]))/g,
    (_match, octal?: string, hex?: string, other?: string) => {
      if (octal !== undefined) return String.fromCharCode(parseInt(octal, 8) & 0xff);
      if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
      return SIMPLE_ESCAPES[other!] ?? other!;
    },
  );
}

/**
 * In a tab- or pipe-separated file, a quoted field that takes in a line with a row's worth of cells, or a quote left
 * open to the end of the file: most likely a quote that was a character, read as CSV quoting, swallowing whole rows.
 * Reading the file with literal quotes fixes it.
 */
export class RunawayQuoteError extends LoadError {
  constructor(
    source: string,
    readonly startLine: number,
    readonly lines: number,
  ) {
    super(
      source,
      startLine,
      null,
      `a quote opens a field here that runs on over ${lines} lines, taking in what look like whole rows; if the file's quotes are characters rather than quoting, read it with --quotes literal (in the catalogue: "quotes": "literal")`,
    );
    this.name = 'RunawayQuoteError';
  }
}

/** Delimiters whose files seldom quote, so that a quoted field swallowing rows is suspect (see RunawayQuoteError). */
const RARELY_QUOTED = new Set(['\t', '|']);

/**
 * Lines that statistical exports append below a table ("Source: …", "Note: …"), fewer cells wide than the table; a
 * trailing block of them is not data. Each is reported, never dropped silently. (psql's row count is one too.)
 */
const NOTE_LINE = /^(Source:|Sources:|Note:|Notes:)/;
/** The official election exports' own footer ("This is a provisional result, subject to change."), commas and all. */
const OFFICIAL_FOOTER = /^This is /;
/** The count psql writes below a query's rows in its unaligned output (`psql -A`): "(5 rows)", "(1 row)". */
const PSQL_ROW_COUNT = /^\(\d+ rows?\)$/;

/**
 * csv-parse's parsing core, driven directly: records arrive synchronously, one chunk at a time, and the parser's line
 * count is read as each record arrives. (Its stream interface would need `info: true`, which copies an object per
 * record and doubles the time a large file takes.)
 */
interface ParserCore {
  info: { lines: number };
  state: { wasQuoting?: boolean };
  parse(
    chunk: Buffer | undefined,
    end: boolean,
    push: (record: (string | null)[]) => void,
    close: () => void,
  ): Error | undefined;
  /** What csv-parse calls on each field when `cast` is set: [error, value]. */
  __cast?: (field: string) => [Error | undefined, string | null];
}

function parserCore(options: CsvOptions, unquotedEmptyIsNull = false): ParserCore {
  const core = (
    new Parser(unquotedEmptyIsNull ? { ...options, cast: true } : options) as unknown as { api?: ParserCore }
  ).api;
  if (!core || typeof core.parse !== 'function' || typeof core.info?.lines !== 'number')
    throw new Error('csv-parse changed: its parsing core is not where Count Centre reads it');
  if (unquotedEmptyIsNull) {
    // csv-parse's own cast hands each field a fresh object describing the whole parse (several spreads per field),
    // which makes a large file ten times slower; whether the field was quoted is all that is needed, and the core
    // keeps it in its state until the field is pushed.
    if (typeof core.__cast !== 'function' || typeof core.state?.wasQuoting !== 'boolean')
      throw new Error('csv-parse changed: its field cast is not where Count Centre reads it');
    core.__cast = function (this: ParserCore, field: string) {
      return [undefined, field === '' && this.state.wasQuoting === false ? null : field];
    };
  }
  return core;
}

interface CsvParseError extends Error {
  code?: string;
  lines?: number;
  index?: number;
}

/**
 * Chunks of the file: bytes as they are for UTF-8 (csv-parse reads UTF-8), otherwise decoded and re-encoded as UTF-8.
 */
async function* utf8Chunks(file: string, options: DelimitedOptions): AsyncGenerator<Buffer> {
  // Small reads: each chunk's records are alive until the chunk is handed on, and a 1 MiB chunk's 30,000 short records
  // outlived the young generation, so that the garbage collector copied them (scavenges of 1,000,000 narrow rows: 1.9 s
  // with 1 MiB chunks, 0.4 s with 64 KiB).
  const raw = createReadStream(file, { start: options.bomLength, highWaterMark: 1 << 16 });
  const plainUtf8 = options.encoding === 'utf-8' && !options.repair;
  const decoder = plainUtf8 ? null : textDecoder(options.encoding);
  try {
    for await (const chunk of raw) {
      if (!decoder) {
        yield chunk as Buffer;
        continue;
      }
      let text = decoder.write(chunk as Buffer);
      if (options.repair) text = repairC1(text);
      if (text) yield Buffer.from(text, 'utf8');
    }
    const rest = decoder?.end();
    if (rest) yield Buffer.from(options.repair ? repairC1(rest) : rest, 'utf8');
  } finally {
    raw.destroy();
  }
}

const BACKSLASH = 0x5c;
const HEX_DIGITS = '0123456789abcdef';

/**
 * MySQL's text format (SELECT … INTO OUTFILE, mysqldump --tab) escapes a tab, a line break or the delimiter in a value
 * by a backslash before the character itself, which a parser would still split at. Each such pair is rewritten as the
 * hex escape of the character (`\x09`), which unescapeTextFormat reads back. (A line counted after such a line break
 * is then one lower: the record's lines count as one.) PostgreSQL's format writes `\t` and `\n`, and passes unchanged.
 */
async function* escapedSeparatorsAsHex(chunks: AsyncIterable<Buffer>, delimiter: string): AsyncGenerator<Buffer> {
  const separators = new Set([0x0a, 0x0d, ...(delimiter.charCodeAt(0) < 0x80 ? [delimiter.charCodeAt(0)] : [])]);
  // Whether the last chunk ended with a backslash that escapes the first byte of the next.
  let escaping = false;
  for await (const chunk of chunks) {
    if (!escaping && !chunk.includes(BACKSLASH)) {
      yield chunk;
      continue;
    }
    const out = Buffer.allocUnsafe(chunk.length * 3);
    let written = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (escaping) {
        escaping = false;
        if (separators.has(byte)) {
          out[written++] = 0x78; // x
          out[written++] = HEX_DIGITS.charCodeAt(byte >> 4);
          out[written++] = HEX_DIGITS.charCodeAt(byte & 15);
          continue;
        }
      } else if (byte === BACKSLASH) escaping = true;
      out[written++] = byte;
    }
    yield out.subarray(0, written);
  }
}

/**
 * Every record of the file with the line it ends on, in batches, from the header row on. A trailing block of note
 * lines ("This is a provisional result", "Source: …", one cell each) is held back and dropped at the end; if a data
 * row follows, the block was data after all and is handed on. A row of two or more cells, all empty (",,,"), holds
 * nothing and is left out, counted in `empty`; so is a comment line below the header (`commentMark`), in `comments`.
 */
export async function* recordBatches(
  file: string,
  displayName: string,
  options: DelimitedOptions,
  notes: { line: number; text: string }[] = [],
  empty: EmptyRows = { count: 0, first: null },
  comments: EmptyRows = { count: 0, first: null },
): AsyncGenerator<RawRow[]> {
  const core = parserCore(
    {
      delimiter: options.delimiter,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: true,
      // A quote inside an unquoted field (12" pizza, a note line with "quotes") is a character, as spreadsheets read
      // it.
      relax_quotes: true,
      ...(options.quotes === 'literal' || options.escapes === 'backslash' ? { quote: false } : {}),
      skip_empty_lines: true,
      ...(options.leadingSpaces ? { ltrim: true } : {}),
      ...(options.headerRow > 1 ? { from_line: options.headerRow } : {}),
    },
    options.unquotedEmptyIsNull === true,
  );
  const commentMark = options.headerRow > 0 ? options.commentMark : null;
  let batch: RawRow[] = [];
  let held: RawRow[] = [];
  let width = 0;
  const backslash = options.escapes === 'backslash';
  const watchQuotes = options.quotes !== 'literal' && !backslash && RARELY_QUOTED.has(options.delimiter);
  let lastLine = Math.max(options.headerRow, 1) - 1;
  let runaway: RunawayQuoteError | null = null;
  const push = (read: (string | null)[]) => {
    let cells = backslash ? read.map((cell) => (cell === null ? null : unescapeTextFormat(cell))) : read;
    if (options.nullWord && read.includes('NULL')) cells = cells.map((cell, i) => (read[i] === 'NULL' ? null : cell));
    const row: RawRow = { cells, line: core.info.lines };
    if (cells.length > 1 && cells.every((cell) => cell === '' || cell === null)) {
      empty.count += 1;
      empty.first ??= row.line;
      lastLine = row.line;
      return;
    }
    if (commentMark && row.line > options.headerRow && read[0]?.startsWith(commentMark)) {
      comments.count += 1;
      comments.first ??= row.line;
      lastLine = row.line;
      return;
    }
    if (
      watchQuotes &&
      row.line - lastLine > 1 &&
      runaway === null &&
      cells.some((cell) => swallowsRows(cell, options.delimiter, width))
    ) {
      runaway = new RunawayQuoteError(displayName, lastLine + 1, row.line - lastLine);
    }
    lastLine = row.line;
    const first = cells[0] ?? '';
    if (width === 0) width = cells.length;
    // A note is narrower than the table: in a one-column table, or a row as wide as the header, it is data.
    else if (
      width > 1 &&
      (((NOTE_LINE.test(first) || PSQL_ROW_COUNT.test(first)) && cells.length < width) || OFFICIAL_FOOTER.test(first))
    ) {
      held.push(row);
      return;
    }
    if (held.length > 0) {
      batch.push(...held);
      held = [];
    }
    batch.push(row);
  };
  const fail = async (err: Error): Promise<never> => {
    const e = err as CsvParseError;
    if (e.code === 'CSV_QUOTE_NOT_CLOSED') {
      const opened = await findUnclosedQuote(utf8Chunks(file, options), options.delimiter);
      // In a file that seldom quotes, a quote left open to the end is one more quote that was a character.
      if (opened && watchQuotes && core.info.lines > opened.line)
        throw new RunawayQuoteError(displayName, opened.line, core.info.lines - opened.line + 1);
      if (opened)
        throw new LoadError(displayName, opened.line, opened.field, 'a quoted field opens here and is never closed');
    }
    throw new LoadError(
      displayName,
      e.lines ?? null,
      typeof e.index === 'number' ? e.index + 1 : null,
      e.message.replace(/^Invalid [^:]*: /, ''),
    );
  };
  const noop = () => {};
  const chunks = backslash
    ? escapedSeparatorsAsHex(utf8Chunks(file, options), options.delimiter)
    : utf8Chunks(file, options);
  for await (const chunk of chunks) {
    const err = core.parse(chunk, false, push, noop);
    if (runaway) throw runaway;
    if (err) await fail(err);
    if (batch.length > 0) {
      yield batch;
      batch = [];
    }
  }
  const err = core.parse(undefined, true, push, noop);
  if (runaway) throw runaway;
  if (err) await fail(err);
  if (batch.length > 0) yield batch;
  for (const row of held) notes.push({ line: row.line, text: (row.cells as string[]).join(options.delimiter) });
}

/**
 * Whether a cell holds, after a line break, a line with the cells of a row of `width` (or one fewer, as rows may leave
 * out a trailing empty cell): rows swallowed by a quote. A quoted cell of a spreadsheet's export may hold a line break,
 * and even a tab, but not a row.
 */
function swallowsRows(cell: string | null, delimiter: string, width: number): boolean {
  if (cell === null || width < 2) return false;
  const lines = cell.split(/\r\n|\n|\r/);
  for (let i = 1; i < lines.length; i++) if (lines[i]!.split(delimiter).length >= Math.max(2, width - 1)) return true;
  return false;
}

/** A column of a file with no header: named by its place, as spreadsheets and pandas' readers name it. */
export const unnamedColumn = (position: number) => `Column ${position}`;

/**
 * Opens a delimited text file: reads up to its header, whose cells (trimmed) are the columns. A file with no header
 * (headerRow 0) has as many columns as the widest of its first rows, named by their places (unnamedColumn).
 */
export async function openDelimited(
  file: string,
  displayName: string,
  options: DelimitedOptions,
): Promise<TableReader> {
  const notes: { line: number; text: string }[] = [];
  const emptyRows: EmptyRows = { count: 0, first: null };
  const commentRows: EmptyRows = { count: 0, first: null };
  const batches = recordBatches(file, displayName, options, notes, emptyRows, commentRows);
  let first: RawRow[] = [];
  let columns: string[] | null = null;
  for (;;) {
    const next = await batches.next();
    if (next.done) break;
    if (next.value.length === 0) continue;
    if (options.headerRow === 0) {
      const width = next.value.reduce((most, row) => Math.max(most, row.cells.length), 0);
      columns = Array.from({ length: width }, (_, i) => unnamedColumn(i + 1));
      first = next.value;
      break;
    }
    const [head, ...rest] = next.value;
    columns = (head!.cells as (string | null)[]).map((c) => (c ?? '').trim());
    if (options.headerPrefix && columns.length > 1 && columns[0] === options.headerPrefix) columns.shift();
    first = rest;
    break;
  }
  if (columns === null) {
    await batches.return(undefined);
    throw new LoadError(
      displayName,
      null,
      null,
      options.headerRow > 1
        ? `the file has no header at line ${options.headerRow} or below`
        : options.headerRow === 0
          ? 'the file is empty (no rows)'
          : 'the file is empty (no header row)',
    );
  }
  let started = false;
  return {
    unit: 'line',
    columns,
    ...(options.headerRow === 0 ? { headerless: true } : {}),
    declaredTypes: null,
    rowCount: null,
    notes,
    emptyRows,
    commentRows,
    async *batches() {
      if (started) throw new Error("a delimited file's rows are read once");
      started = true;
      if (first.length > 0) yield first;
      yield* batches;
    },
    async close() {
      await batches.return(undefined);
    },
  };
}

/** Every record of a file, the header included, one at a time: for small files read whole (corrections). */
export async function* readCsvRecords(
  file: string,
  displayName: string,
  options: DelimitedOptions,
): AsyncGenerator<{ cells: string[]; line: number }> {
  for await (const batch of recordBatches(file, displayName, options)) {
    for (const row of batch) yield { cells: row.cells as string[], line: row.line };
  }
}
