// Finds out what a file is from its first bytes, as a person opening it would: Parquet or an Excel workbook by their
// signatures, JSON or NDJSON by their first characters, otherwise delimited text, whose encoding, delimiter and header
// row (below any title lines) are read off the first lines. The extension is only a tie-breaker.

import { open } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { decodeText, MIXED_UTF8, MixedUtf8Decoder } from './mixed-utf8.js';

/**
 * How a text file is encoded: an iconv-lite name (`utf-8`, `utf-16le`, `utf-16be`, `windows-1252`) and its BOM's
 * length.
 */
export interface TextEncoding {
  encoding: string;
  bomLength: number;
  /** Where the whole file was read for it: the line of the first byte that is not UTF-8, in a file mostly UTF-8. */
  notUtf8Line?: number;
}

export interface DelimitedShape {
  delimiter: string;
  /**
   * Line of the header (1-based): lines above it are a title, a source note, blank lines. 0: the file has no header
   * (every line is data; the columns are named "Column 1", "Column 2", …).
   */
  headerRow: number;
  /** Where the header was found to be missing: the first line's cell that reads as the values below it do. */
  headerless: HeaderlessEvidence | null;
  /** The lines above the header, as read (for the report). */
  titleLines: string[];
  /** Whether any field in the sample is quoted. */
  quoted: boolean;
  /**
   * Whether a space follows (nearly) every delimiter, as in "1, Alice, 2.5" (hand-written files, numpy's savetxt with
   * ", "): the spaces are part of the separator, not of the cells, and a quote after them opens a quoted cell.
   */
  leadingSpaces: boolean;
  /** Whether line 1 names the delimiter, as Excel writes and reads it ("sep=;"): the delimiter is that one. */
  separatorLine: boolean;
  /**
   * A comment mark the header line starts with, a cell of its own that names no column: numpy's savetxt writes its
   * header as a comment ("# x y z" over rows of three values). Null when the header has none.
   */
  headerPrefix: string | null;
  /**
   * The mark comment lines start with, where the lines above the header are all comments ("# …", as tzdata's tables,
   * gnuplot's data files and numpy's savetxt write them) or the header itself is one: lines below the header that start
   * with it are comments too, not rows (R's read.table reads "#" so). Null where nothing says so.
   */
  commentMark: string | null;
  /**
   * In a tab-separated sample, the first line with a cell that is exactly `\N`: PostgreSQL's and MySQL's text format
   * (COPY … TO, SELECT … INTO OUTFILE), where that is NULL and backslashes escape. Null when there is none.
   */
  backslashNull: number | null;
  /**
   * The first line below the header with a cell that is exactly `NULL`, unquoted: how SQL tools write a NULL in their
   * exports (mysql --batch, SQL Server's and MySQL Workbench's). Null when there is none.
   */
  nullWordLine: number | null;
  /** Whether the sample holds a doubled backslash, a backslash escaped by one (mysql --batch writes `\\`). */
  doubledBackslash: boolean;
}

/** A cell of a file's first line that reads as a value of its column, as the cells below it do: that line is data. */
export interface HeaderlessEvidence {
  /** 1-based. */
  column: number;
  value: string;
  /** What the column's cells below it are ("whole numbers", "numbers", "dates"). */
  kind: string;
}

export type Sniffed =
  | ({ format: 'csv' } & TextEncoding & DelimitedShape)
  | ({ format: 'json' | 'ndjson' } & TextEncoding)
  | { format: 'xlsx' | 'parquet' };

/** A file that is not a table Count Centre reads, with what it is instead. */
export class NotATableError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'NotATableError';
  }
}

/** Bytes read to decide: enough for a few hundred lines of a wide file. */
const SAMPLE_BYTES = 256 * 1024;

/** The delimiters tried, in the order a tie goes. */
export const DELIMITERS = [',', ';', '\t', '|', ' '] as const;

export const DELIMITER_NAMES: Record<string, string> = {
  ',': 'comma',
  ';': 'semicolon',
  '\t': 'tab',
  '|': 'pipe',
  ' ': 'space',
};

const startsWith = (bytes: Uint8Array, signature: readonly number[]) => signature.every((b, i) => bytes[i] === b);

/**
 * The encoding of a text sample: its BOM where it has one; UTF-16 without one when every other byte is zero; UTF-8 when
 * the bytes are valid UTF-8 (a character cut at the end of the sample allowed); Windows-1252 otherwise. Null for bytes
 * that are not text at all (zero bytes that are not UTF-16's).
 */
export function detectEncoding(sample: Uint8Array, complete: boolean): TextEncoding | null {
  if (startsWith(sample, [0xef, 0xbb, 0xbf])) return { encoding: 'utf-8', bomLength: 3 };
  if (startsWith(sample, [0xff, 0xfe])) return { encoding: 'utf-16le', bomLength: 2 };
  if (startsWith(sample, [0xfe, 0xff])) return { encoding: 'utf-16be', bomLength: 2 };
  const pairs = Math.floor(Math.min(sample.length, 4096) / 2);
  if (pairs >= 2) {
    let evenZeros = 0;
    let oddZeros = 0;
    for (let i = 0; i < pairs; i++) {
      if (sample[2 * i] === 0) evenZeros += 1;
      if (sample[2 * i + 1] === 0) oddZeros += 1;
    }
    if (oddZeros > pairs * 0.9 && evenZeros === 0) return { encoding: 'utf-16le', bomLength: 0 };
    if (evenZeros > pairs * 0.9 && oddZeros === 0) return { encoding: 'utf-16be', bomLength: 0 };
  }
  if (sample.includes(0)) return null;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    decoder.decode(sample, { stream: !complete });
    return { encoding: 'utf-8', bomLength: 0 };
  } catch {
    // UTF-8's multi-byte characters beside bytes that are not UTF-8: a file put together from parts.
    const mixed = new MixedUtf8Decoder();
    mixed.write(Buffer.from(sample.buffer, sample.byteOffset, sample.length));
    return { encoding: mixed.sawMultibyte ? MIXED_UTF8 : 'windows-1252', bomLength: 0 };
  }
}

/**
 * Cells per line of a text, counted with CSV's quoting (a delimiter inside quotes does not count; a quoted newline does
 * not end a line), and how many of the delimiters a space follows. With `skipLeadingSpaces`, the spaces after a
 * delimiter are the separator's: a quote after them opens a quoted cell.
 */
export function fieldCounts(
  text: string,
  delimiter: string,
  maxLines = 200,
  skipLeadingSpaces = false,
): { counts: number[]; lines: string[]; quoted: boolean; delimiters: number; spaced: number } {
  const counts: number[] = [];
  const lines: string[] = [];
  let delimiters = 0;
  let spaced = 0;
  let count = 1;
  let inQuotes = false;
  let atFieldStart = true;
  let quoted = false;
  let lineStart = 0;
  for (let i = 0; i < text.length && counts.length < maxLines; i++) {
    const ch = text[i]!;
    if (inQuotes) {
      if (ch === '"') {
        if (text[i + 1] === '"') i += 1;
        else inQuotes = false;
      }
      continue;
    }
    if (ch === '"' && atFieldStart) {
      inQuotes = true;
      quoted = true;
      atFieldStart = false;
    } else if (ch === delimiter) {
      count += 1;
      atFieldStart = true;
      delimiters += 1;
      if (text[i + 1] === ' ') spaced += 1;
    } else if (ch === ' ' && atFieldStart && skipLeadingSpaces) {
      // Still at the cell's start: the spaces after a delimiter are the separator's.
    } else if (ch === '\n' || ch === '\r') {
      const line = text.slice(lineStart, i);
      counts.push(line.trim() === '' ? 0 : count);
      lines.push(line);
      if (ch === '\r' && text[i + 1] === '\n') i += 1;
      lineStart = i + 1;
      count = 1;
      atFieldStart = true;
    } else {
      atFieldStart = false;
    }
  }
  return { counts, lines, quoted, delimiters, spaced };
}

/** The most common value of a list (the smaller of two as common); 0 for none. */
function mode(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = 0;
  let bestCount = 0;
  for (const [value, n] of counts)
    if (n > bestCount || (n === bestCount && value < best)) [best, bestCount] = [value, n];
  return best;
}

/**
 * The header row: the first of the first 30 lines with two or more cells that has at least as many cells as the lines
 * after it most often have. Title lines ("Table 1…", "Source: …", a blank line) have fewer, and so do they when a
 * spreadsheet saved them padded with empty cells ("Table 1…,,,,", ",,,,"); a data row with one cell too many does not
 * move the header; rows that leave out trailing empty cells are shorter than the header, never longer. Comment lines
 * ("# …") above the header do not count towards the 30: a preamble of them can be long (tzdata's zone1970.tab has 37).
 */
function headerRowOf(counts: readonly number[], lines: readonly string[], delimiter: string): number {
  let window = 30;
  for (let i = 0; i < Math.min(counts.length, window); i++) {
    const count = counts[i]!;
    if (count < 2 && lines[i]?.startsWith(COMMENT_MARK)) window += 1;
    if (count < 2 || isPaddedTitle(lines, i, delimiter)) continue;
    const after = counts.slice(i + 1).filter((c) => c > 0);
    if (after.length === 0 || count >= mode(after)) return i + 1;
  }
  return counts.findIndex((c) => c > 0) + 1 || 1;
}

/**
 * A line of one text cell (or none) followed by empty ones, above a line that reads as a header, as a spreadsheet saves
 * a title (or a blank line) above its table: "Table 1…,,,," over ",,,," over "state,abb,region". A header that names only
 * its first column ("a,,") over data is a header, and a first cell that reads as a value ("12,,,") is a sparse row's.
 */
function isPaddedTitle(lines: readonly string[], at: number, delimiter: string): boolean {
  const line = lines[at] ?? '';
  const text = withoutPadding(line, delimiter);
  if (text === line || delimiter === ' ') return false;
  if (text.trim() !== '') {
    const cell = text.trim().replace(/^"(.*)"$/s, '$1');
    if (fieldCounts(`${text}\n`, delimiter).counts[0] !== 1 || kindOf(cell) !== null) return false;
  }
  const next = lines.slice(at + 1).find((l) => withoutPadding(l, delimiter).trim() !== '');
  return next !== undefined && readsAsHeader(next, delimiter);
}

/** A line without the empty cells a spreadsheet pads it with (",,,,", ", , "): "" for a padded blank line. */
export function withoutPadding(line: string, delimiter: string): string {
  // Any character may be the delimiter a "sep=" line names.
  const escaped = delimiter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return line.replace(new RegExp(`(?:${escaped}[ \\t]*)+$`), '');
}

/** Two or more names and no values (a year may name a column): a line a header could be. */
function readsAsHeader(line: string, delimiter: string): boolean {
  let cells: string[];
  try {
    cells = (parseCsv(line, { delimiter, relax_quotes: true, relax_column_count: true }) as string[][])[0] ?? [];
  } catch {
    return false;
  }
  const named = cells.map((c) => c.trim()).filter((c) => c !== '');
  return named.length >= 2 && named.every((c) => kindOf(c) === null || YEAR.test(c));
}

/**
 * The delimiter and header row of a delimited text's first lines. A delimiter is scored by how many of the lines
 * below its header have the header's count of cells (a table's rows are as wide as its header); one that gives the
 * header a single cell scores nothing. The best score wins, then the fewest lines above the header, then the wider
 * table, then the order of DELIMITERS.
 * Space is taken only when it is the sole way to make columns, as prose has spaces too.
 * A first line that reads as data (see firstLineIsData) is no header: the header row is then 0.
 * A first line "sep=;" (Excel's) names the delimiter; the table is read below it.
 */
export function sniffDelimited(text: string): DelimitedShape {
  const firstLine = /^[^\r\n]*/.exec(text)![0];
  const named = SEPARATOR_LINE.exec(firstLine)?.[1];
  if (named === undefined) return sniffTable(text, DELIMITERS);
  const below = sniffTable(text.slice(firstLine.length).replace(/^\r?\n|^\r/, ''), [named]);
  const shifted = (line: number | null) => (line === null ? null : line + 1);
  return {
    ...below,
    delimiter: named,
    // Below a separator line there is a header: Excel writes one.
    headerRow: Math.max(below.headerRow, 1) + 1,
    headerless: null,
    titleLines: [firstLine, ...below.titleLines],
    separatorLine: true,
    backslashNull: shifted(below.backslashNull),
    nullWordLine: shifted(below.nullWordLine),
  };
}

/** Excel's first line naming a file's delimiter. */
const SEPARATOR_LINE = /^"?sep=([^\r\n"])"?$/i;

function sniffTable(text: string, delimiters: readonly string[]): DelimitedShape {
  let best: {
    delimiter: string;
    headerRow: number;
    quoted: boolean;
    leadingSpaces: boolean;
    lines: string[];
    score: number;
    width: number;
    headerPrefix: string | null;
  } | null = null;
  for (const delimiter of delimiters) {
    let counted = fieldCounts(text, delimiter);
    // A space after nine in ten delimiters is a file separated by ", " or "; " (never so for a space or a tab, whose
    // cells may well start with spaces): counted again with the spaces as the separator's.
    const leadingSpaces =
      delimiter !== ' ' && delimiter !== '\t' && counted.delimiters > 0 && counted.spaced >= counted.delimiters * 0.9;
    if (leadingSpaces) counted = fieldCounts(text, delimiter, 200, true);
    // Only lines ended by a newline are counted: the last line of a sample cut short is not.
    const { counts: complete, lines, quoted } = counted;
    const headerRow = headerRowOf(complete, lines, delimiter);
    const body = complete.slice(headerRow).filter((c) => c > 0);
    const headerPrefix = commentedHeader(lines[headerRow - 1] ?? '', delimiter, complete[headerRow - 1] ?? 0, body);
    const width = (complete[headerRow - 1] ?? 0) - (headerPrefix === null ? 0 : 1);
    if (width < 2) continue;
    let score = body.length === 0 ? 0.5 : body.filter((c) => c === width).length / body.length;
    // Rows may leave out trailing empty cells (they are padded): count them half.
    if (body.length > 0) score += (body.filter((c) => c < width && c >= 2).length / body.length) * 0.5;
    if (delimiter === ' ') score -= 0.25;
    const tie = best !== null && Math.abs(score - best.score) <= 1e-9;
    // A tie goes to the reading with fewer lines above its header (title lines are the exception), then the wider
    // table.
    if (
      !best ||
      score > best.score + 1e-9 ||
      (tie && (headerRow < best.headerRow || (headerRow === best.headerRow && width > best.width)))
    ) {
      best = { delimiter, headerRow, quoted, leadingSpaces, lines, score, width, headerPrefix };
    }
  }
  if (!best)
    return {
      delimiter: ',',
      headerRow: (({ counts, lines }) => headerRowOf(counts, lines, ','))(fieldCounts(text, ',')),
      titleLines: [],
      quoted: false,
      leadingSpaces: false,
      separatorLine: false,
      headerPrefix: null,
      commentMark: null,
      backslashNull: null,
      nullWordLine: null,
      doubledBackslash: false,
      headerless: null,
    };
  const { delimiter, quoted, leadingSpaces, lines } = best;
  const headerless = best.headerRow === 1 ? firstLineIsData(lines, delimiter, leadingSpaces) : null;
  const headerRow = headerless ? 0 : best.headerRow;
  return {
    delimiter,
    headerRow,
    headerless,
    titleLines: lines.slice(0, Math.max(headerRow - 1, 0)),
    quoted,
    leadingSpaces,
    separatorLine: false,
    headerPrefix: headerless ? null : best.headerPrefix,
    commentMark: headerless ? null : commentMarkOf(lines, headerRow, best.headerPrefix),
    backslashNull: delimiter === '\t' ? cellLine(lines, headerRow, '\t', '\\N') : null,
    nullWordLine: cellLine(lines, headerRow, delimiter, 'NULL', leadingSpaces),
    doubledBackslash: text.includes('\\\\'),
  };
}

/** The comment mark a header may start with (numpy's savetxt, gnuplot's data files). */
const COMMENT_MARK = '#';

/**
 * The header's comment mark, when its first cell is the mark alone and the rows below it are one cell narrower than it
 * (most of them): the mark names no column, and reading it as one would put every value under its neighbour's name.
 * A first column named "#" over row numbers has rows as wide as the header, and is kept.
 */
function commentedHeader(header: string, delimiter: string, width: number, body: readonly number[]): string | null {
  if (!header.startsWith(`${COMMENT_MARK}${delimiter}`) || body.length === 0) return null;
  return mode(body) === width - 1 ? COMMENT_MARK : null;
}

/**
 * The comment mark of a file whose lines above the header (blank ones apart) all start with it, or whose header is
 * written as a comment (headerPrefix).
 */
function commentMarkOf(lines: readonly string[], headerRow: number, headerPrefix: string | null): string | null {
  if (headerPrefix === COMMENT_MARK) return COMMENT_MARK;
  const above = lines.slice(0, Math.max(headerRow - 1, 0)).filter((line) => line.trim() !== '');
  return above.length > 0 && above.every((line) => line.startsWith(COMMENT_MARK)) ? COMMENT_MARK : null;
}

/** Kinds of values a column's cells may all be, which a header's name is not. */
const VALUE_KINDS: readonly (readonly [string, RegExp])[] = [
  ['whole numbers', /^[-+]?(?:\d+|\d{1,3}(?:,\d{3})+)$/],
  ['numbers', /^[-+]?(?:\d+|\d{1,3}(?:,\d{3})+)?(?:[.,]\d+)?(?:[eE][-+]?\d+)?$/],
  [
    'dates',
    /^(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})$/,
  ],
];

const kindOf = (cell: string): string | null =>
  /\d/.test(cell) ? (VALUE_KINDS.find(([, pattern]) => pattern.test(cell))?.[0] ?? null) : null;

/** A year (a header may be one: "2019,2020,2021" over counts). */
const YEAR = /^(?:1[5-9]|2[01])\d\d$/;

/**
 * Whether a file's first line is data rather than a header, as in files written without one (PostgreSQL's COPY … TO
 * and MySQL's SELECT … INTO OUTFILE by default, loggers, instruments): evidence when some cell of it reads as the
 * values of its column below it do (whole numbers, numbers, dates), and no cell of a column of such values reads
 * otherwise (a name: "Votes" over whole numbers). Null when the line is, or may be, a header: a column of numbers
 * named by a year (unless the values are years too), and headers that number the columns ("0,1,2", pandas' default)
 * are names.
 */
function firstLineIsData(
  lines: readonly string[],
  delimiter: string,
  leadingSpaces: boolean,
): HeaderlessEvidence | null {
  let rows: string[][];
  try {
    rows = parseCsv(lines.slice(0, 100).join('\n'), {
      delimiter,
      ltrim: leadingSpaces,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
    }) as string[][];
  } catch {
    return null;
  }
  // Only rows as wide as the first are compared with it: a line broken by an escaped line break (MySQL's text format)
  // or a row with trailing cells left out tells less.
  const [first, ...rest] = rows as [string[], ...string[][]];
  const body = rest.filter((row) => row.length === first?.length);
  if (first === undefined || body.length === 0) return null;
  const numbered = first.map((c) => c.trim()).filter((c) => c !== '');
  if (
    numbered.length >= 2 &&
    numbered.every((c, i) => /^\d+$/.test(c) && Number(c) === Number(numbered[0]) + i) &&
    Number(numbered[0]) <= 1
  )
    return null;
  let evidence: HeaderlessEvidence | null = null;
  for (let column = 0; column < first.length; column++) {
    const cells = body.map((row) => (row[column] ?? '').trim()).filter((c) => c !== '' && c !== '\\N');
    const cell = first[column]!.trim();
    if (cell === '' || cell === '\\N') continue;
    // Whole numbers are numbers too: compared as numbers, told as whole numbers where every cell is one.
    const broadKind = (c: string) => (kindOf(c) === 'whole numbers' ? 'numbers' : kindOf(c));
    const below = new Set(cells.map(broadKind));
    if (below.size !== 1 || below.has(null)) continue;
    if (!below.has(broadKind(cell))) return null;
    const kind = [...cells, cell].every((c) => kindOf(c) === 'whole numbers') ? 'whole numbers' : broadKind(cell)!;
    if (YEAR.test(cell) && !cells.every((c) => YEAR.test(c))) continue;
    evidence ??= { column: column + 1, value: cell, kind };
  }
  return evidence;
}

/**
 * The first line (1-based) below the header with a cell that is exactly `cell` (unquoted; after the spaces that follow a
 * delimiter, where those are skipped).
 */
function cellLine(
  lines: readonly string[],
  headerRow: number,
  delimiter: string,
  cell: string,
  leadingSpaces = false,
): number | null {
  for (let i = headerRow; i < lines.length; i++) {
    const cells = lines[i]!.split(delimiter);
    if ((leadingSpaces ? cells.map((c) => c.replace(/^ +/, '')) : cells).includes(cell)) return i + 1;
  }
  return null;
}

const NDJSON_EXTENSIONS = new Set(['.ndjson', '.jsonl', '.ldjson', '.geojsonl', '.geojsons', '.geojsonseq']);

/** Whether the first non-blank line is a whole JSON value, and a second line starts another: NDJSON. */
function looksLikeNdjson(text: string): boolean {
  // GeoJSONSeq (RFC 8142) starts each line with a record separator.
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.replace(/^\u001e/, ''))
    .filter((l) => l.trim() !== '');
  if (lines.length < 2) return false;
  try {
    JSON.parse(lines[0]!);
    return /^\s*[[{]/.test(lines[1]!);
  } catch {
    return false;
  }
}

/** What a file is and how to read it, from its first bytes (and its name, for a tie). */
export async function sniffFile(file: string, displayName = file): Promise<Sniffed> {
  const handle = await open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    throw new NotATableError(
      displayName,
      err.code === 'ENOENT' ? 'file not found' : err.code === 'EISDIR' ? 'is a folder, not a file' : err.message,
    );
  });
  let sample: Buffer;
  let size: number;
  let tail: Buffer;
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new NotATableError(displayName, 'is a folder, not a file');
    size = info.size;
    sample = Buffer.alloc(Math.min(size, SAMPLE_BYTES));
    await handle.read(sample, 0, sample.length, 0);
    tail = Buffer.alloc(Math.min(size, 65536));
    await handle.read(tail, 0, tail.length, size - tail.length);
  } finally {
    await handle.close();
  }
  if (size === 0) throw new NotATableError(displayName, 'the file is empty');
  // A compressed file's name keeps the extension of what it holds before its own (events.ndjson.gz).
  const extension = path.extname(displayName.replace(/\.gz$/i, '')).toLowerCase();

  if (startsWith(sample, [0x50, 0x41, 0x52, 0x31])) return { format: 'parquet' };
  if (startsWith(sample, [0x50, 0x4b, 0x03, 0x04])) {
    if (tail.includes('xl/workbook.xml') || sample.includes('xl/workbook.xml') || sample.includes('xl/worksheets/'))
      return { format: 'xlsx' };
    if (tail.includes('content.xml') && tail.includes('mimetype'))
      throw new NotATableError(displayName, 'an OpenDocument file (.ods): save it as .xlsx or CSV to publish it');
    throw new NotATableError(
      displayName,
      'a ZIP archive that is not an Excel workbook: unpack it and publish the table inside',
    );
  }
  if (startsWith(sample, [0xd0, 0xcf, 0x11, 0xe0]))
    throw new NotATableError(displayName, 'an Excel 97–2003 workbook (.xls): save it as .xlsx or CSV to publish it');
  if (startsWith(sample, [0x1f, 0x8b]))
    throw new NotATableError(displayName, 'gzip-compressed: decompress it (gunzip) and publish the file inside');

  const encoding = detectEncoding(sample, sample.length === size);
  if (!encoding)
    throw new NotATableError(
      displayName,
      'binary content, not a table file Count Centre reads (CSV or other delimited text, JSON, NDJSON, Excel .xlsx or Parquet)',
    );
  const text = decodeText(sample.subarray(encoding.bomLength), encoding.encoding);
  if (text.trim() === '') throw new NotATableError(displayName, 'the file holds only blank lines');
  const first = text.replace(/^[\s\u001e]+/, '')[0];
  if (first === '[' || first === '{') {
    if (NDJSON_EXTENSIONS.has(extension) || looksLikeNdjson(text)) return { format: 'ndjson', ...encoding };
    return { format: 'json', ...encoding };
  }
  return { format: 'csv', ...encoding, ...sniffDelimited(text) };
}
