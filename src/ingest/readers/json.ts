// JSON and NDJSON as tables: a JSON array of objects (at the root, or inside an object, as CKAN's own answers hold
// their records), or one object per line. Read as a stream (@streamparser/json for JSON; a line at a time for NDJSON),
// so a file of any size is never held whole. Columns are the records' keys in the order they first appear; a key
// first seen late adds a column (earlier rows lack it).

import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync, writeSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { JSONParser } from '@streamparser/json';
import { LoadError } from '../csv.js';
import type { FieldType } from '../../catalog/types.js';
import { decodeText, textDecoder } from './mixed-utf8.js';
import type { RawCell, RawRow, TableReader } from './types.js';

export interface JsonOptions {
  encoding: string;
  bomLength: number;
  /** One record per line (NDJSON), or records in one document. */
  lines: boolean;
  /**
   * Where the records are, as keys from the root to the array holding them (`[]`: the root is the array; for NDJSON,
   * always `[]`: each line is a record).
   */
  recordsAt: readonly string[];
  /**
   * For records that are lists (a DataStore dump's `"records": [[1, "x"], …]`): the names of their positions, from the
   * document's `fields`. Without them, a list's positions are its columns ("0", "1", …).
   */
  names?: readonly string[];
  /** Types the document declares for its columns by name (CKAN's `fields`). */
  types?: ReadonlyMap<string, FieldType>;
  /** Records are GeoJSON features: their properties are the columns, beside their geometry (see geojsonColumn). */
  features?: boolean;
}

/** A GeoJSON feature's own members read as columns, besides its properties; its `type` ("Feature") is not. */
const FEATURE_MEMBERS = new Set(['id', 'geometry', 'bbox']);

/**
 * The column of a GeoJSON feature's value, by its path in the feature: a property by its name (`properties.<name>`
 * where a feature member has that name), a feature member by its own.
 */
export function geojsonColumn(path: readonly [string] | readonly ['properties', string]): string {
  if (path.length === 1) return path[0];
  return FEATURE_MEMBERS.has(path[1]) ? `properties.${path[1]}` : path[1];
}

/** The path in a GeoJSON feature of a column named by geojsonColumn. */
export function geojsonPath(column: string): string[] {
  if (FEATURE_MEMBERS.has(column)) return [column];
  const member = column.startsWith('properties.') ? column.slice('properties.'.length) : null;
  return ['properties', member !== null && FEATURE_MEMBERS.has(member) ? member : column];
}

/**
 * A field as a document describes it: CKAN's DataStore `fields` (dumps, datastore_search), a Table Schema's, or only a
 * name (pandas' "columns"). `type` is a CKAN type name, null where the document names the field without a type.
 */
export interface CkanField {
  id: string;
  type: string | null;
}

/**
 * How a JSON document holds its records: an array of objects (`records`, at the root or inside an object); CKAN's
 * `fields` beside `records`; a Table Schema's `schema` beside `data` (pandas' orient="table", Frictionless); pandas'
 * orient="split" (`columns`, `index`, `data` as lists); the values of the root object (pandas' orient="index"); the
 * root object's members as columns, each an object keyed by row (pandas' orient="columns", DataFrame.to_json's
 * default: read across by openJsonColumns); or a GeoJSON FeatureCollection's `features`, whose properties are the
 * columns.
 */
export type JsonShape = 'records' | 'ckan' | 'table-schema' | 'split' | 'index' | 'columns' | 'geojson';

/** Where a document's records are, and the fields it describes them with, where it does. */
export interface RecordsLocation {
  recordsAt: string[];
  fields: CkanField[] | null;
  /** Whether the records are lists, whose positions the fields name. */
  lists: boolean;
  shape: JsonShape;
}

/** Table Schema's types (pandas writes integer, number, boolean, datetime, string) as CKAN's. */
const TABLE_SCHEMA_TYPES: Record<string, string> = {
  integer: 'int8',
  number: 'float8',
  boolean: 'bool',
  date: 'date',
  datetime: 'timestamp',
  string: 'text',
};

const BATCH = 2048;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

async function* textChunks(file: string, options: Pick<JsonOptions, 'encoding' | 'bomLength'>): AsyncGenerator<string> {
  const raw = createReadStream(file, { start: options.bomLength, highWaterMark: 1 << 20 });
  const decoder = textDecoder(options.encoding);
  try {
    for await (const chunk of raw) {
      const text = decoder.write(chunk as Buffer);
      if (text) yield text;
    }
    const rest = decoder.end();
    if (rest) yield rest;
  } finally {
    raw.destroy();
  }
}

/**
 * Feeds a document to `parser` a chunk at a time, pausing after each so that a reader can hand on what it gathered. A
 * syntax error, or a document that ends before it is complete, throws the error `failure` makes of it.
 */
async function* feedDocument(
  parser: JSONParser,
  file: string,
  options: Pick<JsonOptions, 'encoding' | 'bomLength'>,
  failure: (problem: 'invalid' | 'unfinished', err: Error) => Error,
): AsyncGenerator<void> {
  let parseError: Error | null = null;
  parser.onError = (err) => {
    parseError = err;
  };
  let seenAny = false;
  for await (const chunk of textChunks(file, options)) {
    seenAny = true;
    try {
      parser.write(chunk);
    } catch (err) {
      parseError ??= err as Error;
    }
    if (parseError) throw failure('invalid', parseError);
    yield;
  }
  if (!seenAny || !parser.isEnded) {
    // With an error handler set, the parser reports a document cut short there rather than by throwing.
    try {
      parser.end();
    } catch (err) {
      parseError ??= err as Error;
    }
    if (parseError) throw failure('unfinished', parseError);
  }
}

/** Records as they come, each with its number: whole lines of NDJSON, or the elements of the array at `recordsAt`. */
async function* records(
  file: string,
  displayName: string,
  options: JsonOptions,
): AsyncGenerator<{ value: unknown; at: number; line: number | null }[]> {
  let batch: { value: unknown; at: number; line: number | null }[] = [];
  let count = 0;
  if (options.lines) {
    let rest = '';
    let line = 0;
    const take = (text: string) => {
      line += 1;
      if (text.trim() === '') return;
      let value: unknown;
      try {
        // GeoJSONSeq (RFC 8142) starts each record with a record separator.
        value = JSON.parse(text.charCodeAt(0) === 0x1e ? text.slice(1) : text);
      } catch (err) {
        throw new LoadError(displayName, line, null, `not a JSON value on this line: ${(err as Error).message}`);
      }
      count += 1;
      batch.push({ value, at: count, line });
    };
    for await (const chunk of textChunks(file, options)) {
      const text = rest + chunk;
      let start = 0;
      for (;;) {
        const newline = text.indexOf('\n', start);
        if (newline === -1) break;
        take(text.slice(start, newline));
        start = newline + 1;
      }
      rest = text.slice(start);
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (rest !== '') take(rest);
    if (batch.length > 0) yield batch;
    return;
  }
  const path = options.recordsAt.length === 0 ? '$.*' : `$.${options.recordsAt.join('.')}.*`;
  const parser = new JSONParser({ paths: [path], keepStack: false });
  parser.onValue = ({ value }) => {
    count += 1;
    batch.push({ value, at: count, line: null });
  };
  const failure = (problem: 'invalid' | 'unfinished', err: Error) =>
    new LoadError(
      displayName,
      null,
      null,
      problem === 'invalid'
        ? `not valid JSON after record ${count}: ${err.message}`
        : `the JSON ends before it is complete (after record ${count}): ${err.message}`,
    );
  for await (const _chunk of feedDocument(parser, file, options, failure)) {
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** A JSON value as a cell: objects and arrays stay as they are (they are stored as JSON text). */
function cellOf(value: unknown): RawCell {
  return value === undefined ? null : (value as RawCell);
}

/**
 * Where the records of a JSON document are, from its first bytes: the root when it is an array; an array named
 * `records` beside a `fields` list (CKAN's dumps and datastore_search answers, whose fields name and type them); `data`
 * beside a Table Schema's `schema` (whose fields name and type them) or beside pandas' `columns` (which name the
 * positions of its lists); otherwise the array of objects with the most elements in the sample (many exports hold
 * `data`); failing all of these, the root object's members when they are records (pandas' orient="index").
 */
export async function findRecords(
  file: string,
  displayName: string,
  options: Pick<JsonOptions, 'encoding' | 'bomLength'>,
): Promise<RecordsLocation> {
  const handle = await open(file, 'r');
  let sample: Buffer;
  try {
    const { size } = await handle.stat();
    sample = Buffer.alloc(Math.max(0, Math.min(size - options.bomLength, 4 << 20)));
    await handle.read(sample, 0, sample.length, options.bomLength);
  } finally {
    await handle.close();
  }
  const text = decodeText(sample, options.encoding);
  if (text.trimStart().startsWith('[')) return { recordsAt: [], fields: null, lists: false, shape: 'records' };
  const counts = new Map<string, { keys: string[]; objects: number; lists: number }>();
  /** Per object (its keys from the root, as JSON), the fields a `fields`, `schema` or `columns` member describes. */
  const described = new Map<string, { fields: CkanField[]; shape: JsonShape }>();
  /** Arrays that describe fields rather than hold records: a Table Schema's `fields`. */
  const descriptors = new Set<string>();
  /** The root object's members, while they are all objects: pandas' orient="index" or orient="columns". */
  let rootMembers: { key: string; value: Record<string, unknown> }[] | null = [];
  /** Values inside the root's first member, for a first column larger than the sample: keyed by row, all scalars. */
  const inFirstMember = { cells: 0, byRow: true };
  let featureCollection = false;
  const parser = new JSONParser({ keepStack: true });
  parser.onValue = ({ value, key, parent, stack }) => {
    // stack[0] is the root; each entry's key leads to the next.
    const keys = stack.slice(1).map((entry) => String(entry.key));
    const at = JSON.stringify(keys);
    if (stack.length === 1 && key === 'type' && value === 'FeatureCollection') featureCollection = true;
    if (stack.length === 1 && rootMembers !== null) {
      if (isObject(value) && !Array.isArray(parent)) rootMembers.push({ key: String(key), value });
      else rootMembers = null;
    }
    if (stack.length === 2 && rootMembers !== null && rootMembers.length === 0 && !Array.isArray(parent)) {
      inFirstMember.cells += 1;
      if (!ROW_LABEL.test(String(key)) || (value !== null && typeof value === 'object')) inFirstMember.byRow = false;
    }
    if (key === 'fields' && Array.isArray(value) && value.length > 0) {
      if (value.every((f) => isObject(f) && typeof f.id === 'string'))
        described.set(at, {
          fields: (value as unknown as { id: string; type?: unknown }[]).map((f) => ({
            id: f.id,
            type: typeof f.type === 'string' ? f.type : 'text',
          })),
          shape: 'ckan',
        });
      return;
    }
    if (
      key === 'schema' &&
      isObject(value) &&
      Array.isArray(value.fields) &&
      value.fields.length > 0 &&
      value.fields.every((f) => isObject(f) && typeof f.name === 'string')
    ) {
      descriptors.add(JSON.stringify([...keys, 'schema', 'fields']));
      described.set(at, {
        fields: (value.fields as { name: string; type?: unknown }[]).map((f) => ({
          id: f.name,
          type: (typeof f.type === 'string' && TABLE_SCHEMA_TYPES[f.type]) || null,
        })),
        shape: 'table-schema',
      });
      return;
    }
    if (key === 'columns' && Array.isArray(value) && value.length > 0 && value.every((c) => typeof c === 'string')) {
      if (!described.has(at)) described.set(at, { fields: value.map((id) => ({ id, type: null })), shape: 'split' });
      return;
    }
    if (!Array.isArray(parent) || value === null || typeof value !== 'object') return;
    // Arrays inside a list's items are a record's values, not records; an object's member named by digits is not a list.
    if (stack.slice(1).some((entry) => typeof entry.key === 'number')) return;
    const found = counts.get(at) ?? { keys, objects: 0, lists: 0 };
    if (Array.isArray(value)) found.lists += 1;
    else found.objects += 1;
    counts.set(at, found);
  };
  parser.onError = () => {};
  try {
    parser.write(text);
  } catch {
    // The sample ends mid-document; what it has seen is enough.
  }
  const besides = (keys: string[]) => described.get(JSON.stringify(keys.slice(0, -1))) ?? null;
  // The records an object's description is about: CKAN's "records", a Table Schema's or pandas' "data".
  const describedBy = (keys: string[]) => {
    const beside = besides(keys);
    const name = keys.at(-1);
    return beside && (beside.shape === 'ckan' ? name === 'records' : name === 'data') ? beside : null;
  };
  let best: { keys: string[]; objects: number; lists: number } | null = null;
  for (const candidate of counts.values()) {
    if (descriptors.has(JSON.stringify(candidate.keys))) continue;
    const named =
      describedBy(candidate.keys) !== null || (candidate.keys.at(-1) === 'records' && candidate.objects > 0);
    const bestNamed =
      best !== null && (describedBy(best.keys) !== null || (best.keys.at(-1) === 'records' && best.objects > 0));
    if (!best || (named && !bestNamed) || (named === bestNamed && candidate.objects > best.objects)) best = candidate;
  }
  if (!best || (best.objects === 0 && !(best.lists > 0 && describedBy(best.keys)))) {
    const byIndex =
      rootMembers !== null && rootMembers.length > 0
        ? pandasOrient(rootMembers)
        : // The first member did not end within the sample: a column of many rows, when its keys are rows.
          rootMembers !== null && inFirstMember.cells > 0 && inFirstMember.byRow
          ? 'columns'
          : null;
    if (byIndex !== null) return { recordsAt: [], fields: null, lists: false, shape: byIndex };
    throw new LoadError(
      displayName,
      null,
      null,
      'a JSON document with no array of records in it (Count Centre reads an array of objects, or an object holding one, or CKAN\'s "fields" and "records")',
    );
  }
  const odd = best.keys.find((k) => k.includes('.') || k.includes('*'));
  if (odd !== undefined)
    throw new LoadError(
      displayName,
      null,
      null,
      `the records are under the key "${odd}", whose "." or "*" cannot be followed; move them to a plain key`,
    );
  const description = describedBy(best.keys);
  const lists = best.lists > best.objects;
  const features = featureCollection && best.keys.length === 1 && best.keys[0] === 'features';
  return {
    recordsAt: best.keys,
    fields: description?.fields ?? null,
    lists,
    shape: features ? 'geojson' : (description?.shape ?? 'records'),
  };
}

/**
 * How an NDJSON file's lines hold records: objects, or GeoJSON features (GeoJSONSeq), by its first record. A first line
 * that does not parse is left for the read to report.
 */
export async function ndjsonShape(
  file: string,
  options: Pick<JsonOptions, 'encoding' | 'bomLength'>,
): Promise<'records' | 'geojson'> {
  // Its messages are never shown: a name is no matter.
  const lines = records(file, '', { ...options, lines: true, recordsAt: [] });
  try {
    const first = (await lines.next()).value?.[0]?.value;
    return isObject(first) && first.type === 'Feature' ? 'geojson' : 'records';
  } catch {
    return 'records';
  } finally {
    await lines.return(undefined);
  }
}

/** Row labels as pandas writes its default and date indexes: whole numbers (epoch milliseconds for dates). */
const ROW_LABEL = /^-?\d+$/;

/**
 * How pandas laid out a document whose root's members are all objects: `index`, each member a record keyed by its row
 * label (orient="index"); `columns`, each member a column whose members are keyed by row labels (orient="columns",
 * DataFrame.to_json's default). Row labels are told by their form (ROW_LABEL); where neither the outer nor the inner
 * keys have it, the members are taken as records.
 */
function pandasOrient(members: readonly { key: string; value: Record<string, unknown> }[]): 'index' | 'columns' {
  const innerKeys = members.flatMap((m) => Object.keys(m.value));
  const outerAreLabels = members.every((m) => ROW_LABEL.test(m.key));
  const innerAreLabels = innerKeys.length > 0 && innerKeys.every((k) => ROW_LABEL.test(k));
  const innerScalars = members.every((m) => Object.values(m.value).every((v) => v === null || typeof v !== 'object'));
  return innerAreLabels && !outerAreLabels && innerScalars ? 'columns' : 'index';
}

/**
 * Opens JSON or NDJSON records as a table; the columns are the keys of the first records, and grow as new keys appear.
 */
export async function openJson(file: string, displayName: string, options: JsonOptions): Promise<TableReader> {
  const source = records(file, displayName, options);
  const columns: string[] = [];
  const positions = new Map<string, number>();
  // A list's positions are keys "0", "1", …; where the document names them, the names are the columns.
  const declared: (FieldType | null)[] = [];
  options.names?.forEach((name, i) => {
    columns.push(name);
    declared.push(options.types?.get(name) ?? null);
    positions.set(String(i), i);
  });
  const unit = options.lines ? 'line' : 'record';
  const rowOf = (record: { value: unknown; at: number; line: number | null }): RawRow => {
    const { value } = record;
    const line = record.line ?? record.at;
    if (value === null || typeof value !== 'object') {
      throw new LoadError(
        displayName,
        record.line,
        null,
        `${unit === 'line' ? 'this line holds' : `record ${record.at} is`} ${JSON.stringify(value)?.slice(0, 40)}, not an object or a list`,
      );
    }
    const cells: RawCell[] = new Array(columns.length).fill(undefined);
    const put = (key: string, cell: unknown) => {
      let at = positions.get(key);
      if (at === undefined) {
        at = columns.length;
        columns.push(key);
        declared.push(options.types?.get(key) ?? null);
        positions.set(key, at);
      }
      cells[at] = cellOf(cell);
    };
    if (options.features) {
      const feature = value as Record<string, unknown>;
      if (isObject(feature.properties))
        for (const [name, cell] of Object.entries(feature.properties)) put(geojsonColumn(['properties', name]), cell);
      for (const member of Object.keys(feature)) if (FEATURE_MEMBERS.has(member)) put(member, feature[member]);
    } else for (const key of Object.keys(value)) put(key, (value as Record<string, unknown>)[key]);
    // Keys a record lacks are no value.
    for (let i = 0; i < cells.length; i++) if (cells[i] === undefined) cells[i] = null;
    return { cells, line };
  };
  // The first batch names the columns before anything is read of the rest.
  const first = await source.next();
  const firstRows = first.done ? [] : first.value.map(rowOf);
  if (columns.length === 0) {
    await source.return(undefined);
    throw new LoadError(displayName, null, null, first.done ? 'no records in the file' : 'the records have no keys');
  }
  let started = false;
  return {
    unit,
    columns,
    typed: true,
    declaredTypes: options.types ? declared : null,
    rowCount: null,
    async *batches() {
      if (started) throw new Error("a JSON file's rows are read once");
      started = true;
      if (firstRows.length > 0) yield firstRows;
      for await (const batch of source) yield batch.map(rowOf);
    },
    async close() {
      await source.return(undefined);
    },
  };
}

/** A line file of one column's values, read back a batch of lines at a time. */
class ColumnLines {
  private readonly fd: number;
  private readonly buffer: Buffer;
  private readonly decoder = new StringDecoder('utf8');
  private lines: string[] = [];
  private next = 0;
  private rest = '';

  constructor(file: string, bufferBytes: number) {
    this.fd = openSync(file, 'r');
    this.buffer = Buffer.alloc(bufferBytes);
  }

  take(n: number): string[] {
    const taken: string[] = [];
    while (taken.length < n) {
      if (this.next === this.lines.length) {
        const read = readSync(this.fd, this.buffer, 0, this.buffer.length, null);
        if (read === 0) break;
        const text = this.rest + this.decoder.write(this.buffer.subarray(0, read));
        const end = text.lastIndexOf('\n');
        this.lines = end === -1 ? [] : text.slice(0, end).split('\n');
        this.rest = text.slice(end + 1);
        this.next = 0;
        continue;
      }
      taken.push(this.lines[this.next++]!);
    }
    return taken;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** What the columns' files may buffer in all, while they are read side by side. */
const COLUMN_BUFFERS_BYTES = 32 << 20;

/**
 * Opens a document of columns (pandas' orient="columns": each member of the root a column, an object keyed by row) as
 * a table of its rows. The rows of a record are spread through the whole document, so it is read once, each column's
 * values written in turn to a file of their own, one JSON value a line; the rows are then read across those files,
 * side by side: memory stays flat in the size of the document. Rows are in the first column's order, which every
 * column must have (pandas writes them so); the row keys themselves are not a column (as pandas' orient="index" keys
 * are not).
 */
export async function openJsonColumns(
  file: string,
  displayName: string,
  options: Pick<JsonOptions, 'encoding' | 'bomLength'>,
): Promise<TableReader> {
  const dir = await mkdtemp(path.join(tmpdir(), 'countcentre-columns-'));
  const columns: string[] = [];
  const files: string[] = [];
  let rows: number | null = null;
  let order: string | null = null;
  let current: {
    fd: number;
    rows: number;
    pending: string[];
    bytes: number;
    labels: ReturnType<typeof createHash>;
  } | null = null;
  const flush = () => {
    if (!current || current.pending.length === 0) return;
    writeSync(current.fd, current.pending.join(''));
    current.pending = [];
    current.bytes = 0;
  };
  const finish = () => {
    if (!current) return;
    flush();
    const done = current;
    current = null;
    closeSync(done.fd);
    const labels = done.labels.digest('hex');
    const name = columns.at(-1)!;
    if (rows === null) [rows, order] = [done.rows, labels];
    else if (done.rows !== rows || labels !== order)
      throw new LoadError(
        displayName,
        null,
        null,
        `column "${name}" does not hold the rows of column "${columns[0]}" in the same order (${done.rows.toLocaleString('en-IE')} rows against ${rows.toLocaleString('en-IE')}): each column must be keyed by the same rows, as pandas writes them`,
      );
  };
  try {
    const parser = new JSONParser({ paths: ['$.*.*'], keepStack: false });
    parser.onValue = ({ value, key, stack }) => {
      const column = String(stack[1]!.key);
      if (!current || column !== columns.at(-1)) {
        finish();
        columns.push(column);
        const columnFile = path.join(dir, `${files.length}.ndjson`);
        files.push(columnFile);
        current = { fd: openSync(columnFile, 'w'), rows: 0, pending: [], bytes: 0, labels: createHash('sha1') };
      }
      const line = `${JSON.stringify(value)}\n`;
      current.pending.push(line);
      current.bytes += line.length;
      current.rows += 1;
      current.labels.update(`${String(key)}\n`);
      if (current.bytes >= 1 << 20) flush();
    };
    const failure = (problem: 'invalid' | 'unfinished', err: Error) =>
      new LoadError(
        displayName,
        null,
        null,
        `not valid JSON: ${problem === 'invalid' ? err.message : 'the document ends before it is complete'}`,
      );
    for await (const _chunk of feedDocument(parser, file, options, failure));
    finish();
    if (columns.length === 0) throw new LoadError(displayName, null, null, 'no columns in the file');
  } catch (err) {
    if (current) closeSync((current as { fd: number }).fd);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const total = rows ?? 0;
  const bufferBytes = Math.max(16 << 10, Math.min(256 << 10, Math.floor(COLUMN_BUFFERS_BYTES / files.length)));
  let readers: ColumnLines[] | null = null;
  let started = false;
  const release = async () => {
    for (const reader of readers ?? []) reader.close();
    readers = [];
    await rm(dir, { recursive: true, force: true });
  };
  return {
    unit: 'record',
    columns,
    typed: true,
    declaredTypes: null,
    rowCount: total,
    async *batches() {
      if (started) throw new Error("a JSON file's rows are read once");
      started = true;
      readers = files.map((f) => new ColumnLines(f, bufferBytes));
      for (let done = 0; done < total;) {
        const n = Math.min(BATCH, total - done);
        const values = readers.map((reader) => reader.take(n));
        const batch: RawRow[] = new Array(n);
        for (let i = 0; i < n; i++)
          batch[i] = { cells: values.map((column) => cellOf(JSON.parse(column[i]!) as unknown)), line: done + i + 1 };
        done += n;
        yield batch;
      }
    },
    close: release,
  };
}

/**
 * CKAN's DataStore types as Count Centre's field types: `int` (the `_id`) is int8; a type it has no kind for is text.
 */
export function fieldTypeOfCkan(type: string): FieldType {
  switch (type) {
    case 'int':
    case 'int8':
    case 'bigint':
      return 'int8';
    case 'int4':
    case 'integer':
    case 'int2':
    case 'smallint':
      return 'int4';
    case 'numeric':
    case 'decimal':
      return 'numeric';
    case 'float8':
    case 'float4':
    case 'double precision':
    case 'real':
      return 'float8';
    case 'bool':
    case 'boolean':
      return 'bool';
    case 'date':
      return 'date';
    case 'timestamp':
    case 'timestamp without time zone':
      return 'timestamp';
    default:
      return 'text';
  }
}
