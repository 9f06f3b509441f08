// `count-centre add FILE|URL`: finds out what the file is (delimited text in any common dialect, JSON, NDJSON, an
// Excel workbook or Parquet), reads it once to infer its schema (src/ingest/infer.ts), writes a catalogue entry for it
// (src/catalog/edit.ts keeps the rest of the file as it was), loads it, and prints what it decided and why. With
// --dry-run it prints all that and changes nothing.

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EMPTY_CATALOG, resourceWithPath, withDatasetKeys, withResource } from '../catalog/edit.js';
import { licenceById } from '../catalog/licences.js';
import { parseCatalog } from '../catalog/load.js';
import { inferTable, type InferredColumn, type InferredSchema } from '../ingest/infer.js';
import { openTable, tableSpec, type TableSpec } from '../ingest/readers/open.js';
import { RunawayQuoteError } from '../ingest/readers/delimited.js';
import { geojsonPath, type RecordsLocation } from '../ingest/readers/json.js';
import { MIXED_UTF8 } from '../ingest/readers/mixed-utf8.js';
import {
  DELIMITER_NAMES,
  NotATableError,
  sniffFile,
  type TextEncoding,
  withoutPadding,
} from '../ingest/readers/sniff.js';
import { notUtf8 } from '../ingest/encoding.js';
import { downloadFile, isUrl, uncompressed } from '../ingest/source.js';
import type { Settings } from '../settings.js';
import type { EmptyRows } from '../ingest/readers/types.js';
import { textTable } from './progress.js';

export interface AddRequest {
  /** A file path (relative to the working directory) or an http(s) URL. */
  source: string;
  dataset?: string;
  title?: string;
  id?: string;
  dateFormat?: 'DD/MM/YYYY' | 'MM/DD/YYYY';
  decimal?: ',' | '.';
  delimiter?: string;
  headerRow?: number;
  quotes?: 'csv' | 'literal';
  escapes?: 'none' | 'backslash';
  nulls?: 'NULL' | 'empty';
  leadingSpaces?: 'skip' | 'keep';
  /** The mark comment lines start with, or `none`. */
  comments?: string;
  sheet?: string;
  license?: string;
  attribution?: string;
  sourceUrl?: string;
  description?: string;
}

export interface AddPlan {
  spec: TableSpec;
  schema: InferredSchema;
  /** Lines left out below the table (notes), as read. */
  notes: readonly { line: number; text: string }[];
  /** Rows with every cell empty, left out, as read. */
  emptyRows: EmptyRows;
  /** Comment lines below the header, left out, as read. */
  commentRows: EmptyRows;
  /** Columns of delimited text with no name and nothing in them (a spreadsheet's empty columns), left out. */
  unnamedEmpty: readonly InferredColumn[];
  /** The catalogue's text with the entry in it. */
  catalogText: string;
  /** The catalogue's text before. */
  previousText: string | null;
  datasetName: string;
  resource: Record<string, unknown> & { id: string };
  /** Whether the resource replaces an entry for the same file. */
  replaces: boolean;
}

/** A publisher's mistake on the command line (an unknown licence id): exit 2. */
export class AddUsageError extends Error {}

/** A dataset name from a file name: CKAN's rules (lowercase letters, digits, - and _, 2 to 100 of them). */
export function datasetNameFor(stem: string): string {
  const name = stem
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
  return name.length >= 2 ? name : `dataset-${name || 'new'}`;
}

function titleFor(stem: string): string {
  const words = stem.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'New dataset';
}

/** A local copy of the source to read: the file itself, or a URL downloaded (streamed to a temporary file). */
async function localCopy(source: string, displayName: string): Promise<{ file: string; release(): Promise<void> }> {
  if (!isUrl(source)) return uncompressed({ file: path.resolve(source), release: async () => {} }, displayName);
  return uncompressed(
    await downloadFile(source, 120_000, { prefix: 'countcentre-add-', name: 'download' }),
    displayName,
  );
}

/**
 * How the catalogue names the file: a URL as it is; a file under the sources folder by its path there (as the
 * elections' files are), a file beside the catalogue relative to it (`base: catalog`), any other by its absolute path
 * (which the service never shows: it names such a file by its file name alone).
 */
export function sourcePathFor(
  source: string,
  settings: Pick<Settings, 'sources' | 'catalog'>,
): { path: string; base?: 'catalog' } {
  if (isUrl(source)) return { path: source };
  const absolute = path.resolve(source);
  const within = (root: string) => {
    const relative = path.relative(root, absolute);
    return relative && !relative.startsWith('..') && !path.isAbsolute(relative)
      ? relative.split(path.sep).join('/')
      : null;
  };
  if (!isUrl(settings.sources)) {
    const underSources = within(path.resolve(settings.sources));
    if (underSources) return { path: underSources };
  }
  const besideCatalog = within(path.dirname(settings.catalog));
  if (besideCatalog) return { path: besideCatalog, base: 'catalog' };
  return { path: absolute };
}

/** A key as the json layouts' paths write it (RFC 6901: `~` as `~0`, `/` as `~1`). */
const pointerKey = (key: string) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * Whether a delimited file is read as a DataStore dump (CKAN's or ours), PostgreSQL's CSV: a table with its own
 * increasing _ids, not in the text format (which has its own NULL).
 */
function readAsDump(spec: TableSpec, schema: InferredSchema): boolean {
  return spec.format === 'csv' && schema.idColumn === '_id' && spec.escapes !== 'backslash' && !spec.nullWord;
}

/** Whether the entry names the encoding: `auto` finds UTF-8, and UTF-8 with some Windows-1252, itself. */
const declaresEncoding = (spec: TextEncoding) => spec.encoding !== 'utf-8' && spec.encoding !== MIXED_UTF8;

/** The catalogue's source entry for a file read as `spec`: only what differs from the defaults is written. */
function sourceEntry(
  where: { path: string; base?: 'catalog' },
  spec: TableSpec,
  schema: InferredSchema,
): Record<string, unknown> {
  const source: Record<string, unknown> = { path: where.path };
  if (where.base) source.base = where.base;
  if (schema.idColumn !== null) source.id_column = columnFor(spec, schema.idColumn);
  switch (spec.format) {
    case 'csv':
      if (declaresEncoding(spec)) source.encoding = spec.encoding;
      if (spec.delimiter !== ',') source.delimiter = spec.delimiter;
      if (spec.headerRow !== 1) source.header_row = spec.headerRow;
      if (schema.shortRows > 0) source.short_rows = 'pad';
      if (spec.quotes === 'literal') source.quotes = 'literal';
      if (spec.escapes === 'backslash') source.escapes = 'backslash';
      if (readAsDump(spec, schema)) source.nulls = 'unquoted-empty';
      if (spec.nullWord) source.nulls = 'NULL';
      if (schema.missing.length > 0) source.missing = schema.missing;
      if (spec.leadingSpaces) source.leading_spaces = 'skip';
      if (spec.headerPrefix !== null) source.header_prefix = spec.headerPrefix;
      if (spec.commentMark !== null) source.comments = spec.commentMark;
      break;
    case 'json':
      source.layout = 'json';
      if (declaresEncoding(spec)) source.encoding = spec.encoding;
      source.records = `${spec.recordsAt.map(pointerKey).join('')}/*`;
      if (spec.shape === 'columns') source.orient = 'columns';
      break;
    case 'ndjson':
      source.layout = 'ndjson';
      if (declaresEncoding(spec)) source.encoding = spec.encoding;
      break;
    case 'xlsx':
      source.layout = 'xlsx';
      if (spec.sheet) source.sheet = spec.sheet;
      break;
    case 'parquet':
      source.layout = 'parquet';
      break;
  }
  // The id column reads best last.
  const { id_column: idColumn, ...rest } = source;
  return idColumn === undefined ? rest : { ...rest, id_column: idColumn };
}

/**
 * Where a column's value is, as the layout names it: a header, or a JSON path (a list's position, where records are
 * lists).
 */
function columnFor(spec: TableSpec, header: string): string {
  if (spec.format === 'json') {
    const keys =
      spec.shape === 'geojson'
        ? geojsonPath(header)
        : [spec.lists && spec.fields ? String(spec.fields.findIndex((f) => f.id === header)) : header];
    return `${spec.recordsAt.map(pointerKey).join('')}/*${keys.map(pointerKey).join('')}`;
  }
  if (spec.format === 'ndjson')
    return spec.shape === 'geojson' ? geojsonPath(header).map(pointerKey).join('') : pointerKey(header);
  return header;
}

/**
 * Rows of delimited text, a sheet or Parquet read to infer types before the load, which checks every later row: a file
 * whose later rows do not fit is read again whole (`add` does that on its own). JSON is always read whole, since a key
 * may first appear at its end.
 */
export const SAMPLE_ROWS = 100_000;

/**
 * Reads the file (its first `sampleRows`, or all of it) and works out the entry and the catalogue text with it,
 * changing nothing.
 */
export async function planAdd(
  request: AddRequest,
  settings: Pick<Settings, 'sources' | 'catalog'>,
  onRows?: (rows: number) => void,
  sampleRows = Infinity,
): Promise<AddPlan> {
  const licence = request.license === undefined ? null : licenceById(request.license);
  if (licence === undefined)
    throw new AddUsageError(
      `unknown licence id "${request.license}" (for example cc-by, CC-BY-4.0, CC0-1.0, odc-odbl; see docs/configuration.md)`,
    );
  const displayName = isUrl(request.source) ? request.source : path.basename(request.source);
  const local = await localCopy(request.source, displayName);
  let spec: TableSpec;
  let schema: InferredSchema;
  let notes: readonly { line: number; text: string }[] = [];
  let emptyRows: EmptyRows = { count: 0, first: null };
  let commentRows: EmptyRows = { count: 0, first: null };
  try {
    const sniffed = await sniffFile(local.file, displayName);
    spec = await tableSpec(local.file, displayName, sniffed, request);
    // The first bytes were UTF-8; the rest may not be (rows pasted in from a Windows-1252 file), as the load will find.
    if ((spec.format === 'csv' || spec.format === 'json' || spec.format === 'ndjson') && spec.encoding === 'utf-8') {
      const found = await notUtf8(local.file, spec.bomLength);
      if (found) spec = { ...spec, encoding: found.encoding, notUtf8Line: found.firstLine };
    }
    for (;;) {
      let reader: Awaited<ReturnType<typeof openTable>> | null = null;
      try {
        reader = await openTable(local.file, displayName, spec);
        schema = await inferTable(
          reader,
          {
            name: displayName,
            ...(request.dateFormat ? { dateFormat: request.dateFormat } : {}),
            ...(request.decimal ? { decimal: request.decimal } : {}),
            ...(spec.format === 'csv' ? { delimiter: spec.delimiter } : {}),
          },
          onRows,
          spec.format === 'json' || spec.format === 'ndjson' ? Infinity : sampleRows,
        );
        notes = reader.notes ?? [];
        emptyRows = reader.emptyRows ?? emptyRows;
        commentRows = reader.commentRows ?? commentRows;
        break;
      } catch (err) {
        // A quote that swallows whole rows was a character: the file is read again with quotes as characters, unless
        // the publisher said how to read them.
        if (!(err instanceof RunawayQuoteError) || spec.format !== 'csv' || request.quotes !== undefined) throw err;
        spec = { ...spec, quotes: 'literal', runawayQuote: { line: err.startLine, lines: err.lines } };
      } finally {
        await reader?.close();
      }
    }
  } finally {
    await local.release();
  }
  // A delimited file's columns with no name and nothing in them hold nothing to publish; the layout passes over them.
  const unnamedEmpty = spec.format === 'csv' ? schema.columns.filter((c) => c.header.trim() === '' && c.blank) : [];
  if (unnamedEmpty.length > 0) schema = { ...schema, columns: schema.columns.filter((c) => !unnamedEmpty.includes(c)) };
  if (schema.columns.length === 0) throw new NotATableError(displayName, 'no columns');

  const stem = path
    .basename(isUrl(request.source) ? new URL(request.source).pathname : request.source)
    .replace(/\.gz$/i, '')
    .replace(/\.[^.]*$/, '');
  const previousText = existsSync(settings.catalog) ? readFileSync(settings.catalog, 'utf8') : null;
  let text = previousText ?? EMPTY_CATALOG;
  const where = sourcePathFor(request.source, settings);
  const existing = resourceWithPath(text, where.path);
  const datasetName = request.dataset ?? existing?.dataset ?? datasetNameFor(stem);
  const id = request.id ?? existing?.id ?? randomUUID();
  const title = request.title ?? titleFor(stem);
  const resource = {
    id,
    name: title,
    ...(request.description ? { description: request.description } : {}),
    source: sourceEntry(where, spec, schema),
    fields: schema.columns.map((c) => {
      const field: Record<string, unknown> = { id: c.id, type: c.type };
      if (c.format !== 'ISO') field.format = c.format;
      const column = columnFor(spec, c.header);
      if (column !== c.id) field.column = column;
      return field;
    }),
  };
  // A new dataset takes the publisher's statements; an existing one has them set or replaced.
  const statements: Record<string, unknown> = {};
  if (licence)
    Object.assign(statements, { license_id: licence.id, license_title: licence.title, license_url: licence.url });
  if (request.attribution) statements.attribution = request.attribution;
  if (request.sourceUrl) statements.url = request.sourceUrl;
  text = withResource(
    text,
    { name: datasetName, title, ...(request.description ? { notes: request.description } : {}), ...statements },
    resource,
  );
  if (Object.keys(statements).length > 0) text = withDatasetKeys(text, datasetName, statements);
  // The new catalogue must read as one: a mistake is found here, before anything is written.
  parseCatalog(JSON.parse(text), {
    text,
    name: path.basename(settings.catalog),
    baseDir: path.dirname(settings.catalog),
  });
  return {
    spec,
    schema,
    notes,
    emptyRows,
    commentRows,
    unnamedEmpty,
    catalogText: text,
    previousText,
    datasetName,
    resource,
    replaces: existing?.id === id,
  };
}

/** Writes the catalogue in one step (a rename), so a server reading it never sees half a file. */
export function writeCatalog(file: string, text: string): void {
  const temporary = `${file}.adding-${process.pid}`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

const ENCODING_NAMES: Record<string, string> = {
  'utf-8': 'UTF-8',
  'utf-16le': 'UTF-16 LE',
  'utf-16be': 'UTF-16 BE',
  'windows-1252': 'Windows-1252',
};

/** A text file's encoding as people read it, with where a file read as UTF-8 at first stopped being so. */
function encodingName(spec: TextEncoding): string {
  const from = spec.notUtf8Line === undefined ? '' : `: line ${count(spec.notUtf8Line)} is the first that is not UTF-8`;
  if (spec.encoding === MIXED_UTF8)
    return `UTF-8 with some Windows-1252 (each byte that is not UTF-8 read as its Windows-1252 letter${from})`;
  return `${ENCODING_NAMES[spec.encoding] ?? spec.encoding}${from}`;
}

const count = (n: number) => n.toLocaleString('en-IE');
const quoted = (text: string) => `"${text.length > 50 ? `${text.slice(0, 50)}…` : text}"`;

/** How a delimited file's quotes were read, and what decided it. */
function quoting(spec: Extract<TableSpec, { format: 'csv' }>): string {
  if (spec.escapes === 'backslash' && spec.escapesSeen === 'mysql-batch')
    return "MySQL's batch format (mysql --batch): backslashes escape, as a doubled backslash in the first lines shows; quotes are characters (--escapes none to read them as they are)";
  if (spec.escapes === 'backslash')
    return spec.backslashNull === null
      ? "PostgreSQL's or MySQL's text format (--escapes backslash): \\N is an empty cell, backslashes escape, quotes are characters"
      : `PostgreSQL's or MySQL's text format: line ${count(spec.backslashNull)} has a cell \\N, read as an empty cell; backslashes escape, quotes are characters (--escapes none to read them as they are)`;
  if (spec.quotes === 'csv') return spec.quoted ? 'quoted fields' : 'no quoted fields';
  if (spec.runawayQuote === null) return 'quotes read as characters (--quotes literal)';
  const { line, lines } = spec.runawayQuote;
  return `quotes read as characters: read as quoting, the quote on line ${count(line)} would run on over ${count(lines)} lines, taking in whole rows (--quotes csv to read them as quoting)`;
}

/** Where a JSON document's records were found, and what named or typed them. */
function jsonLayout(spec: RecordsLocation): string {
  const at = spec.recordsAt.length === 0 ? 'in the top-level array' : `at ${spec.recordsAt.join('.')}`;
  switch (spec.shape) {
    case 'records':
      return `records ${at}`;
    case 'ckan':
      return `records ${at}, ${spec.lists ? 'lists named' : 'typed'} by the document's "fields"`;
    case 'table-schema':
      return `records ${at}, typed by the document's Table Schema ("schema", as pandas' orient="table" writes it)`;
    case 'split':
      return `records ${at}, lists named by the document's "columns" (pandas' orient="split")`;
    case 'index':
      return 'records as the members of the top-level object, keyed by row (pandas\' orient="index")';
    case 'columns':
      return 'columns as the members of the top-level object, each keyed by row (pandas\' DataFrame.to_json() by default, orient="columns"): each record read across them';
    case 'geojson':
      return "GeoJSON features: each property a column, the geometry as GeoJSON text (a property named as a feature's member, id or geometry, is properties.<name>)";
  }
}

/** How the file was read, in a line or a few. */
function readingReport(plan: AddPlan): string[] {
  const { spec, schema } = plan;
  const rows = schema.sampled
    ? `types from the first ${count(schema.rows)} records (every later one is checked as it loads)`
    : `${count(schema.rows)} ${schema.rows === 1 ? 'record' : 'records'}`;
  const lines: string[] = [];
  switch (spec.format) {
    case 'csv': {
      const encoding = `${encodingName(spec)}${spec.bomLength > 0 ? ' with BOM' : ''}`;
      const delimiter = DELIMITER_NAMES[spec.delimiter] ?? `"${spec.delimiter}"`;
      const separated = `${delimiter}-separated${spec.separatorLine ? `, as line 1 "sep=${spec.delimiter === '\t' ? '\\t' : spec.delimiter}" says (Excel's way of naming it)` : ''}`;
      lines.push(`${rows}; ${encoding}; ${separated}; ${quoting(spec)}`);
      if (spec.leadingSpaces)
        lines.push(
          `a space after each ${delimiter} is the separator's, not the cell's (--leading-spaces keep to keep it)`,
        );
      if (spec.headerPrefix !== null)
        lines.push(
          `the header, line ${count(spec.headerRow)}, starts with "${spec.headerPrefix}", a comment mark that names no column: the rows below it are a cell narrower (numpy's savetxt writes its header so)`,
        );
      if (spec.nullWord)
        lines.push(
          spec.nullWordLine === null
            ? 'a cell NULL is an empty cell (--nulls NULL)'
            : `a cell NULL is an empty cell, as SQL tools write one: line ${count(spec.nullWordLine)} has one (--nulls empty to read it as the word)`,
        );
      if (spec.headerRow === 0) {
        const evidence = spec.headerless;
        lines.push(
          `no header: ${evidence ? `line 1 is data (its cell ${quoted(evidence.value)} in column ${evidence.column} reads as the ${evidence.kind} below it do)` : 'every line is data'}; columns named Column 1, Column 2, … (--header-row 1 if line 1 is the header)`,
        );
      } else if (spec.headerRow > (spec.separatorLine ? 2 : 1)) {
        // A blank line a spreadsheet padded with empty cells (",,,,") is as blank as an empty one.
        const titles = spec.titleLines
          .slice(spec.separatorLine ? 1 : 0)
          .filter((l) => withoutPadding(l, spec.delimiter).trim() !== '');
        lines.push(
          `header on line ${spec.headerRow}${titles.length > 0 ? `; above it, left out: ${titles.map(quoted).join(', ')}` : ''} (--header-row N to choose another)`,
        );
      }
      break;
    }
    case 'json':
      lines.push(`${rows}; JSON, ${encodingName(spec)}; ${jsonLayout(spec)}`);
      break;
    case 'ndjson':
      lines.push(
        spec.shape === 'geojson'
          ? `${rows}; GeoJSON features, one a line (GeoJSONSeq), ${encodingName(spec)}: each property a column, the geometry as GeoJSON text`
          : `${rows}; NDJSON (a JSON record per line), ${encodingName(spec)}`,
      );
      break;
    case 'xlsx':
      lines.push(`${rows}; Excel workbook, ${spec.sheet ? `sheet "${spec.sheet}"` : 'first sheet'}`);
      break;
    case 'parquet':
      lines.push(`${rows}; Parquet`);
      break;
  }
  if (schema.shortRows > 0)
    lines.push(
      `${count(schema.shortRows)} ${schema.shortRows === 1 ? 'row has' : 'rows have'} fewer cells than the header (the first on line ${count(schema.firstShortRow!)}): padded with empty cells`,
    );
  if (schema.idColumn !== null)
    lines.push(
      `the column "${schema.idColumn}" holds the records' own ids, increasing: kept as their _id${readAsDump(spec, schema) ? '; read as a DataStore dump: an unquoted empty cell is null, "" the empty string' : ''}`,
    );
  if (plan.emptyRows.count > 0)
    lines.push(
      `${count(plan.emptyRows.count)} ${plan.emptyRows.count === 1 ? 'row' : 'rows'} with every cell empty left out (the first on line ${count(plan.emptyRows.first!)})`,
    );
  if (plan.commentRows.count > 0 && spec.format === 'csv')
    lines.push(
      `${count(plan.commentRows.count)} comment ${plan.commentRows.count === 1 ? 'line' : 'lines'} below the header left out, as the lines starting with "${spec.commentMark}" above it are (the first on line ${count(plan.commentRows.first!)}; --comments none to read them as rows)`,
    );
  if (plan.unnamedEmpty.length > 0)
    lines.push(
      `${plan.unnamedEmpty.length === 1 ? 'an unnamed column' : `${plan.unnamedEmpty.length} unnamed columns`} with every cell empty left out (${plan.unnamedEmpty.length === 1 ? 'column' : 'columns'} ${plan.unnamedEmpty.map((c) => c.position).join(', ')})`,
    );
  if (plan.notes.length > 0)
    lines.push(
      `below the table, left out as notes: ${plan.notes.map((n) => `line ${count(n.line)} ${quoted(n.text)}`).join(', ')}`,
    );
  return lines;
}

/** What was decided, as people read it: how the file was read, then a row per field with its type and why. */
export function schemaReport(plan: AddPlan): string {
  const rows = plan.schema.columns.map((c) => [
    shortened(c.id, MAX_FIELD_CHARS),
    c.type,
    c.format === 'ISO' ? '' : c.format,
    count(c.empty),
    shortened(c.example, MAX_EXAMPLE_CHARS),
    c.note ?? '',
  ]);
  const cut = plan.schema.columns.some((c) => c.id.length > MAX_FIELD_CHARS)
    ? '\nLong field names are cut short above; the catalogue entry (--dry-run prints it) has them whole.\n'
    : '';
  return `${readingReport(plan).join('\n')}\n\n${textTable(['field', 'type', 'format', 'empty', 'example', 'why'], rows, new Set([3]))}\n${cut}`;
}

// A header can be a sentence (some files explain each column in its name): cut short, so that one long name does
// not push the types and reasons off the screen.
const MAX_FIELD_CHARS = 40;
const MAX_EXAMPLE_CHARS = 24;

function shortened(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
