// The fast route for a mirror's copy: the portal's DataStore dump (`/datastore/dump/<id>?format=csv`), the whole table
// in one request with each value in PostgreSQL's own text. It is downloaded to a file, checked against the portal
// (the probes before and after, its header, count and `_id`s, sampled pages value by value) before a row is stored,
// then typed by the loader's own CSV reading. A dump that cannot be had or does not add up is a DumpUnusable: the
// caller pages through datastore_search instead.

import { mkdtempSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isSafeNumber, parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import type { FieldDefinition } from '../../catalog/types.js';
import { ValueError, type StoredValue } from '../../catalog/values.js';
import { LoadError } from '../csv.js';
import { readDelimitedRows } from '../layouts.js';
import { openDelimited, recordBatches, type DelimitedOptions } from '../readers/delimited.js';
import type { RawCell, RawRow, TableReader } from '../readers/types.js';
import type { TableRow } from '../table.js';
import { CkanError } from './client.js';
import { MirrorMismatch, probeDifference, upstreamValue, type Probe, type UpstreamField, type UpstreamResource } from './mirror.js';

/** The dump could not be had, or does not match the portal's API: the copy is to be made by pages instead. */
export class DumpUnusable extends Error {
  constructor(message: string, /** The portal has no dump route at all (not worth asking again this load). */ readonly routeMissing = false) {
    super(message);
    this.name = 'DumpUnusable';
  }
}

export interface DumpOptions {
  /** Records per sampled page; the probe's last records are a sample too. */
  sampleSize?: number;
  /** Where the file is kept while it is read (the system's temporary folder by default). */
  tmpDir?: string;
  random?: () => number;
}

/** A verified dump on disk: its rows, read once, and the probe taken after it was downloaded. */
export interface VerifiedDump {
  after: Probe;
  records: number;
  bytes: number;
  rows(): AsyncGenerator<TableRow & { id: number }>;
  /** Removes the file (also done when `rows` is read to its end or abandoned). */
  discard(): void;
}

const isArrayType = (type: string) => type.startsWith('_') || type.endsWith('[]');
const isJsonType = (type: string) => type === 'json' || type === 'jsonb' || type === 'nested';

/**
 * How a dump cell differs from the API's value for some upstream types, column by column (null: taken as it is):
 * arrays and JSON come as JSON text (null as the word `null`), kept here as compact JSON as the paged copy keeps them;
 * a numeric with more digits than a double holds stops the copy, as it does when paging.
 */
function cellAdjusters(fields: readonly UpstreamField[], name: string): (((cell: RawCell, line: number) => RawCell) | null)[] {
  const adjusters: (((cell: RawCell, line: number) => RawCell) | null)[] = [null];
  for (const field of fields) {
    const type = field.type.toLowerCase();
    if (isArrayType(type) || isJsonType(type)) {
      adjusters.push((cell, line) => {
        if (cell === null || cell === 'null') return null;
        try {
          return stringifyLossless(parseLossless(String(cell))) ?? null;
        } catch {
          throw new LoadError(name, line, null, `field "${field.id}" (${field.type}): ${String(cell).slice(0, 60)} is not JSON`);
        }
      });
    } else if (type === 'numeric') {
      adjusters.push((cell, line) => {
        if (typeof cell === 'string' && cell !== '' && !isSafeNumber(cell)) {
          throw new LoadError(name, line, null, `field "${field.id}" (numeric): ${cell} has more digits than this store holds exactly`);
        }
        return cell;
      });
    } else {
      adjusters.push(null);
    }
  }
  return adjusters;
}

function adjusted(row: RawRow, adjusters: ReturnType<typeof cellAdjusters>): RawRow {
  for (let i = 0; i < adjusters.length && i < row.cells.length; i++) {
    const adjust = adjusters[i];
    if (adjust) row.cells[i] = adjust(row.cells[i]!, row.line);
  }
  return row;
}

/** A reader whose rows are another's, adjusted. */
function adjustedReader(reader: TableReader, adjusters: ReturnType<typeof cellAdjusters>): TableReader {
  return {
    unit: reader.unit, columns: reader.columns, declaredTypes: reader.declaredTypes, rowCount: reader.rowCount,
    async *batches() {
      for await (const batch of reader.batches()) yield batch.map((row) => adjusted(row, adjusters));
    },
    close: () => reader.close(),
  };
}

/** A reader over rows already in memory (the sampled rows of a dump), with the dump's columns. */
function memoryReader(columns: readonly string[], rows: RawRow[]): TableReader {
  return {
    unit: 'line', columns, declaredTypes: null, rowCount: rows.length,
    async *batches() {
      if (rows.length > 0) yield rows;
    },
    close: async () => {},
  };
}

function bomLength(file: string): number {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(3);
    const read = readSync(fd, head, 0, 3, 0);
    return read === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a dump through once without typing it: its header must be `expected`, its `_id`s whole numbers in increasing
 * order, each row as wide as the header. Returns how many records it holds, the last `_id`, and the rows of the
 * sampled `_id`s as they are.
 */
async function scanDump(
  file: string, name: string, read: DelimitedOptions, expected: readonly string[], samples: ReadonlyMap<number, unknown>,
): Promise<{ count: number; lastId: number; sampled: RawRow[] }> {
  let header: string[] | null = null;
  let count = 0;
  let lastId = 0;
  const sampled: RawRow[] = [];
  try {
    for await (const batch of recordBatches(file, name, read)) {
      for (const row of batch) {
        if (header === null) {
          header = row.cells.map((c) => String(c ?? '').trim());
          if (header.join('\u0000') !== expected.join('\u0000')) {
            throw new DumpUnusable(`its columns are ${header.map((h) => `"${h}"`).join(', ')}, not ${expected.map((h) => `"${h}"`).join(', ')}`);
          }
          continue;
        }
        const cell = row.cells[0];
        const id = typeof cell === 'string' && /^\d{1,15}$/.test(cell) ? Number(cell) : NaN;
        if (!(id > lastId)) throw new DumpUnusable(`line ${row.line} has _id ${JSON.stringify(cell ?? null)} after _id ${lastId}: not a whole number in increasing order`);
        if (row.cells.length !== expected.length) throw new DumpUnusable(`line ${row.line} has ${row.cells.length} cells, the header ${expected.length}`);
        lastId = id;
        count += 1;
        if (samples.has(id)) sampled.push({ cells: [...row.cells], line: row.line });
      }
    }
  } catch (err) {
    // A dump broken off inside a quoted value is not CSV to its end.
    if (err instanceof LoadError) throw new DumpUnusable(`it cannot be read to its end (${err.message})`);
    throw err;
  }
  return { count, lastId, sampled };
}

const sameValue = (a: StoredValue, b: StoredValue) => a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b));

/**
 * Downloads the resource's CSV dump and verifies it against the portal before anything of it is stored:
 * - the probe after the download agrees with `before` (else MirrorMismatch: the upstream changed meanwhile);
 * - the header is `_id` and the fields, in order; every `_id` a whole number above the one before;
 * - as many records as the portal counts, the last with its largest `_id` (a dump cut short by an older CKAN is
 *   a 200 all the same: only the count tells);
 * - records of sampled pages (the first, one at random, and the probe's last records), typed as the copy types
 *   them, equal to the API's value for value.
 * Anything else is a DumpUnusable. The probe after is what the published copy's fingerprint is.
 */
export async function verifiedDump(
  upstream: UpstreamResource, fields: readonly FieldDefinition[], before: Probe, options: DumpOptions = {},
): Promise<VerifiedDump> {
  const name = `the dump of ${upstream.id}`;
  const sampleSize = options.sampleSize ?? 50;
  const random = options.random ?? Math.random;
  const samples = new Map<number, unknown[]>();
  const addSample = (records: readonly unknown[][]) => {
    for (const record of records) samples.set(Number(String(record[0])), record.slice(1));
  };
  addSample(before.tail);
  if (before.total > 0) {
    addSample(await upstream.samplePage(fields, 0, sampleSize));
    if (before.total > 2 * sampleSize) addSample(await upstream.samplePage(fields, Math.floor(random() * (before.total - sampleSize)), sampleSize));
  }

  const dir = mkdtempSync(path.join(options.tmpDir ?? os.tmpdir(), 'countcentre-dump-'));
  const discard = () => rmSync(dir, { recursive: true, force: true });
  try {
    const file = path.join(dir, 'dump.csv');
    let bytes: number;
    try {
      ({ bytes } = await upstream.client.download(`datastore/dump/${encodeURIComponent(upstream.id)}?format=csv`, file));
    } catch (err) {
      // A portal that cannot be reached at all will not answer pages either; one that broke the dump off might.
      if (!(err instanceof CkanError) || (err.kind === 'network' && err.status === null)) throw err;
      throw new DumpUnusable(`the dump could not be downloaded (${err.message})`, err.status === 404 || err.status === 405);
    }
    const after = await upstream.probe();
    const changed = probeDifference(before, after);
    if (changed) throw new MirrorMismatch(`the upstream changed during the copy (${changed})`, true);

    const expected = ['_id', ...fields.map((f) => f.id)];
    const adjusters = cellAdjusters(after.fields, name);
    const read: DelimitedOptions = { encoding: 'utf-8', bomLength: bomLength(file), delimiter: ',', headerRow: 1, unquotedEmptyIsNull: true };
    const { count, lastId, sampled } = await scanDump(file, name, read, expected, samples);
    if (count !== after.total || lastId !== after.maxId) {
      throw new DumpUnusable(`it holds ${count} records up to _id ${lastId}, but the portal counts ${after.total} up to _id ${after.maxId} (a dump cut short?)`);
    }

    const typed = new Map<number, StoredValue[]>();
    const sampledReader = adjustedReader(memoryReader(expected, sampled), adjusters);
    for await (const row of readDelimitedRows(sampledReader, name, fields, { idColumn: '_id', keepNulls: true })) typed.set(row.id!, row.values);
    for (const [id, record] of samples) {
      const ours = typed.get(id);
      if (!ours) throw new DumpUnusable(`record _id ${id}, which the API gives, is not in it`);
      for (let j = 0; j < fields.length; j++) {
        let theirs: StoredValue;
        try {
          theirs = upstreamValue(record[j], fields[j]!);
        } catch (err) {
          if (!(err instanceof ValueError)) throw err;
          throw new LoadError(upstream.id, null, null, `record _id ${id}, field "${fields[j]!.id}" (${fields[j]!.type}): ${err.message}`);
        }
        if (!sameValue(ours[j]!, theirs)) {
          throw new DumpUnusable(`record _id ${id}, field "${fields[j]!.id}": ${JSON.stringify(ours[j])} in the dump, ${JSON.stringify(theirs)} through the API`);
        }
      }
    }

    let started = false;
    return {
      after, records: count, bytes, discard,
      async *rows() {
        if (started) throw new Error('a dump\'s rows are read once');
        started = true;
        const reader = adjustedReader(await openDelimited(file, name, read), adjusters);
        try {
          for await (const row of readDelimitedRows(reader, name, fields, { idColumn: '_id', keepNulls: true })) yield row as TableRow & { id: number };
        } finally {
          await reader.close();
          discard();
        }
      },
    };
  } catch (err) {
    discard();
    throw err;
  }
}
