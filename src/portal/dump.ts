// The fast route for a mirror's copy: the portal's DataStore dump (`/datastore/dump/<id>?format=csv`), the whole table
// in one request with each value in PostgreSQL's own text. It is downloaded into a file as fast as the portal sends it
// (so that the portal is not held while the store works), checked against a probe taken once it is in, then read
// once, typed by the loader's own CSV reading and checked as it goes: its header, increasing `_id`s, sampled records
// value for value against the API, and at the end its count and largest `_id`. A dump that cannot be had or does not
// add up is a DumpUnusable: the caller copies the table page by page instead.

import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import type { FieldDefinition } from '../catalog/types.js';
import { ValueError, type StoredValue } from '../catalog/values.js';
import { LoadError } from '../ingest/csv.js';
import { readDelimitedRows } from '../ingest/layouts.js';
import { openDelimited, type DelimitedOptions } from '../ingest/readers/delimited.js';
import type { RawCell, RawRow, TableReader } from '../ingest/readers/types.js';
import type { TableRow } from '../ingest/table.js';
import { CkanError } from './client.js';
import {
  MirrorMismatch,
  probeDifference,
  upstreamValue,
  type Probe,
  type UpstreamField,
  type UpstreamResource,
} from './mirror.js';

/** The dump could not be had, or does not match the portal's API: the copy is to be made by pages instead. */
export class DumpUnusable extends Error {
  constructor(
    message: string,
    /** The portal has no dump route at all (not worth asking again this load). */ readonly routeMissing = false,
  ) {
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

/** A dump in a file, checked against the portal's probe: its rows, read once, verified as they go and at the end. */
export interface DumpCopy {
  /** Its size, and how long the portal took to send it. */
  readonly bytes: number;
  readonly ms: number;
  /**
   * The records, typed, with their upstream `_id`s. Throws DumpUnusable once the dump is found not to be the portal's
   * table, at the latest after the last row.
   */
  rows(): AsyncGenerator<TableRow & { id: number }>;
  /** Removes the file (also done when `rows` ends or is abandoned). */
  discard(): void;
}

const isArrayType = (type: string) => type.startsWith('_') || type.endsWith('[]');
const isJsonType = (type: string) => type === 'json' || type === 'jsonb' || type === 'nested';

type Adjuster = ((cell: RawCell, line: number) => RawCell) | null;

/**
 * How a dump cell differs from the API's value for some upstream types, column by column (null: taken as it is):
 * arrays and JSON come as JSON text (null as the word `null`), kept here as compact JSON as the paged copy keeps them;
 * numeric cells are PostgreSQL's own text, which the store keeps as it is.
 */
function cellAdjusters(fields: readonly UpstreamField[], name: string): Adjuster[] {
  const adjusters: Adjuster[] = [null];
  for (const field of fields) {
    const type = field.type.toLowerCase();
    if (isArrayType(type) || isJsonType(type)) {
      adjusters.push((cell, line) => {
        if (cell === null || cell === 'null') return null;
        try {
          return stringifyLossless(parseLossless(String(cell))) ?? null;
        } catch {
          throw new LoadError(
            name,
            line,
            null,
            `field "${field.id}" (${field.type}): ${String(cell).slice(0, 60)} is not JSON`,
          );
        }
      });
    } else {
      adjusters.push(null);
    }
  }
  return adjusters;
}

/** A reader whose rows are another's, adjusted column by column. */
function adjustedReader(reader: TableReader, adjusters: readonly Adjuster[]): TableReader {
  return {
    unit: reader.unit,
    columns: reader.columns,
    declaredTypes: reader.declaredTypes,
    rowCount: reader.rowCount,
    async *batches() {
      for await (const batch of reader.batches()) {
        for (const row of batch) {
          for (let i = 0; i < adjusters.length && i < row.cells.length; i++) {
            const adjust = adjusters[i];
            if (adjust) row.cells[i] = adjust(row.cells[i]!, row.line);
          }
        }
        yield batch as RawRow[];
      }
    },
    close: () => reader.close(),
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

const sameValue = (a: StoredValue, b: StoredValue) =>
  a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b));

/** The API's records of some pages, by `_id`, typed as the copy types them. */
async function sampledRecords(
  upstream: UpstreamResource,
  fields: readonly FieldDefinition[],
  before: Probe,
  options: DumpOptions,
): Promise<Map<number, StoredValue[]>> {
  const sampleSize = options.sampleSize ?? 50;
  const random = options.random ?? Math.random;
  const records = [...before.tail];
  if (before.total > 0) {
    records.push(...(await upstream.samplePage(fields, 0, sampleSize)));
    if (before.total > 2 * sampleSize)
      records.push(
        ...(await upstream.samplePage(fields, Math.floor(random() * (before.total - sampleSize)), sampleSize)),
      );
  }
  const typed = new Map<number, StoredValue[]>();
  for (const record of records) {
    const id = Number(String(record[0]));
    typed.set(
      id,
      fields.map((field, j) => {
        try {
          return upstreamValue(record[j + 1], field);
        } catch (err) {
          if (!(err instanceof ValueError)) throw err;
          throw new LoadError(
            upstream.id,
            null,
            null,
            `record _id ${id}, field "${field.id}" (${field.type}): ${err.message}`,
          );
        }
      }),
    );
  }
  return typed;
}

/**
 * Downloads the resource's CSV dump, once sampled pages of the API are in hand, and checks that the portal did not
 * change while it sent it (else MirrorMismatch). A dump the portal does not serve (or refuses, or breaks off) is a
 * DumpUnusable; a portal that cannot be reached at all, a CkanError. Its rows are then read with `rows()`.
 */
export async function openDump(
  upstream: UpstreamResource,
  fields: readonly FieldDefinition[],
  before: Probe,
  options: DumpOptions = {},
): Promise<DumpCopy> {
  const name = `the dump of ${upstream.id}`;
  const samples = await sampledRecords(upstream, fields, before, options);
  const dir = mkdtempSync(path.join(options.tmpDir ?? os.tmpdir(), 'countcentre-dump-'));
  const discard = () => rmSync(dir, { recursive: true, force: true });
  const file = path.join(dir, 'dump.csv');
  let bytes: number;
  const started = performance.now();
  try {
    try {
      ({ bytes } = await upstream.client.download(
        `datastore/dump/${encodeURIComponent(upstream.id)}?format=csv`,
        file,
      ));
    } catch (err) {
      // A portal that cannot be reached at all will not answer pages either; one that broke the dump off might.
      if (!(err instanceof CkanError) || (err.kind === 'network' && err.status === null)) throw err;
      throw new DumpUnusable(
        `the dump could not be downloaded (${err.message})`,
        err.status === 404 || err.status === 405,
      );
    }
    const ms = performance.now() - started;
    const after = await upstream.probe();
    const changed = probeDifference(before, after);
    if (changed) throw new MirrorMismatch(`the upstream changed during the copy (${changed})`, true);
    return { bytes, ms, discard, rows: () => verifiedRows(file, name, fields, after, samples, discard) };
  } catch (err) {
    discard();
    throw err;
  }
}

/** The dump's rows, typed and checked against the probe taken after it and the API's sampled records. */
async function* verifiedRows(
  file: string,
  name: string,
  fields: readonly FieldDefinition[],
  probe: Probe,
  samples: ReadonlyMap<number, StoredValue[]>,
  discard: () => void,
): AsyncGenerator<TableRow & { id: number }> {
  const expected = ['_id', ...fields.map((f) => f.id)];
  const read: DelimitedOptions = {
    encoding: 'utf-8',
    bomLength: bomLength(file),
    delimiter: ',',
    headerRow: 1,
    unquotedEmptyIsNull: true,
  };
  let reader: TableReader | null = null;
  try {
    let count = 0;
    let lastId = 0;
    const sampled = new Set<number>();
    try {
      reader = await openDelimited(file, name, read);
      const header = reader.columns;
      if (header.join('\u0000') !== expected.join('\u0000')) {
        throw new DumpUnusable(
          `its columns are ${header.map((h) => `"${h}"`).join(', ')}, not ${expected.map((h) => `"${h}"`).join(', ')}`,
        );
      }
      for await (const row of eachRow(
        readDelimitedRows(adjustedReader(reader, cellAdjusters(probe.fields, name)), name, fields, {
          idColumn: '_id',
          keepNulls: true,
        }),
      )) {
        const id = row.id!;
        if (!(id > lastId)) throw new DumpUnusable(`_id ${id} comes after _id ${lastId}: not in increasing order`);
        const theirs = samples.get(id);
        if (theirs) {
          for (let j = 0; j < fields.length; j++) {
            if (!sameValue(row.values[j]!, theirs[j]!)) {
              throw new DumpUnusable(
                `record _id ${id}, field "${fields[j]!.id}": ${JSON.stringify(row.values[j])} in the dump, ${JSON.stringify(theirs[j])} through the API`,
              );
            }
          }
          sampled.add(id);
        }
        lastId = id;
        count += 1;
        yield row as TableRow & { id: number };
      }
    } catch (err) {
      // Anything the dump's text could not give (a dump broken off in a quoted value, a value it writes otherwise than
      // the API) is asked of the API instead; what the API cannot give either fails the paged copy in its own words.
      if (err instanceof LoadError) throw new DumpUnusable(`it could not be read to its end (${err.message})`);
      throw err;
    }
    if (count !== probe.total || lastId !== probe.maxId) {
      throw new DumpUnusable(
        `it holds ${count} records up to _id ${lastId}, but the portal counts ${probe.total} up to _id ${probe.maxId} (a dump cut short?)`,
      );
    }
    const missing = [...samples.keys()].filter((id) => !sampled.has(id));
    if (missing.length > 0)
      throw new DumpUnusable(`records the API gives are not in it (_id ${missing.slice(0, 3).join(', ')})`);
  } finally {
    await reader?.close();
    discard();
  }
}

async function* eachRow<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}
