// JSON and NDJSON as tables: a JSON array of objects (at the root, or inside an object, as CKAN's own answers hold
// their records), or one object per line. Read as a stream (@streamparser/json for JSON; a line at a time for NDJSON),
// so a file of any size is never held whole. Columns are the records' keys in the order they first appear; a key
// first seen late adds a column (earlier rows lack it).

import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { JSONParser } from '@streamparser/json';
import iconv from 'iconv-lite';
import { LoadError } from '../csv.js';
import type { FieldType } from '../../catalog/types.js';
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
}

/** A CKAN DataStore field as dumps and datastore_search describe them. */
export interface CkanField {
  id: string;
  type: string;
}

/** Where a document's records are, and the fields it describes them with, where it does (CKAN's `fields`). */
export interface RecordsLocation {
  recordsAt: string[];
  fields: CkanField[] | null;
  /** Whether the records are lists, whose positions the fields name. */
  lists: boolean;
}

const BATCH = 2048;

async function* textChunks(file: string, options: Pick<JsonOptions, 'encoding' | 'bomLength'>): AsyncGenerator<string> {
  const raw = createReadStream(file, { start: options.bomLength, highWaterMark: 1 << 20 });
  const decoder = iconv.getDecoder(options.encoding);
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
        value = JSON.parse(text);
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
  let parseError: Error | null = null;
  parser.onValue = ({ value }) => {
    count += 1;
    batch.push({ value, at: count, line: null });
  };
  parser.onError = (err) => {
    parseError = err;
  };
  let seenAny = false;
  for await (const chunk of textChunks(file, options)) {
    seenAny = true;
    try {
      parser.write(chunk);
    } catch (err) {
      parseError = err as Error;
    }
    if (parseError)
      throw new LoadError(
        displayName,
        null,
        null,
        `not valid JSON after record ${count}: ${(parseError as Error).message}`,
      );
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (!seenAny || !parser.isEnded) {
    try {
      parser.end();
    } catch (err) {
      throw new LoadError(
        displayName,
        null,
        null,
        `the JSON ends before it is complete (after record ${count}): ${(err as Error).message}`,
      );
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
 * `records` beside a `fields` list (CKAN's dumps and datastore_search answers, whose fields name and type them);
 * otherwise the array of objects with the most elements in the sample (many exports hold `data`).
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
  const text = iconv.decode(sample, options.encoding);
  if (text.trimStart().startsWith('[')) return { recordsAt: [], fields: null, lists: false };
  const counts = new Map<string, { keys: string[]; objects: number; lists: number }>();
  const fieldLists = new Map<string, CkanField[]>();
  const parser = new JSONParser({ keepStack: true });
  parser.onValue = ({ value, key, parent, stack }) => {
    // stack[0] is the root; each entry's key leads to the next.
    const keys = stack.slice(1).map((entry) => String(entry.key));
    if (
      key === 'fields' &&
      Array.isArray(value) &&
      value.every((f) => f !== null && typeof f === 'object' && typeof (f as { id?: unknown }).id === 'string')
    ) {
      fieldLists.set(
        JSON.stringify(keys),
        (value as unknown as { id: string; type?: unknown }[]).map((f) => ({
          id: f.id,
          type: typeof f.type === 'string' ? f.type : 'text',
        })),
      );
      return;
    }
    if (!Array.isArray(parent) || value === null || typeof value !== 'object') return;
    if (keys.some((k) => /^\d+$/.test(k))) return;
    const id = JSON.stringify(keys);
    const found = counts.get(id) ?? { keys, objects: 0, lists: 0 };
    if (Array.isArray(value)) found.lists += 1;
    else found.objects += 1;
    counts.set(id, found);
  };
  parser.onError = () => {};
  try {
    parser.write(text);
  } catch {
    // The sample ends mid-document; what it has seen is enough.
  }
  const fieldsBeside = (keys: string[]) => fieldLists.get(JSON.stringify(keys.slice(0, -1))) ?? null;
  let best: { keys: string[]; objects: number; lists: number } | null = null;
  for (const candidate of counts.values()) {
    const named = candidate.keys.at(-1) === 'records' && (candidate.objects > 0 || fieldsBeside(candidate.keys));
    const bestNamed = best !== null && best.keys.at(-1) === 'records' && (best.objects > 0 || fieldsBeside(best.keys));
    if (!best || (named && !bestNamed) || (named === bestNamed && candidate.objects > best.objects)) best = candidate;
  }
  if (!best || (best.objects === 0 && !(best.lists > 0 && fieldsBeside(best.keys)))) {
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
  return { recordsAt: best.keys, fields: fieldsBeside(best.keys), lists: best.lists > best.objects };
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
    for (const key of Object.keys(value)) {
      let at = positions.get(key);
      if (at === undefined) {
        at = columns.length;
        columns.push(key);
        declared.push(options.types?.get(key) ?? null);
        positions.set(key, at);
      }
      cells[at] = cellOf((value as Record<string, unknown>)[key]);
    }
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
