// What the two threads of an embedded-store load hand each other: the reading thread reads and parses the source, the
// writing thread (./build-worker.ts) encodes the records (./row-encoder.ts) and stores them with ./builder.ts.

import type { ResourceDefinition } from '../../catalog/types.js';
import type { StoredValue } from '../../catalog/values.js';
import type { IdRange, LoadBase, Publication, ResourceLoadRecord } from '../load-target.js';
import type { IndexSpec } from '../../catalog/indexes.js';

/** What the builder needs of a resource's catalogue entry: plain data, so that it can cross to the worker. */
export type ResourceShape = Pick<ResourceDefinition, 'id' | 'fields' | 'indexes'>;

/**
 * Records as the store writes them: each row's columns (`_id`, the fields' values, the numeric fields' exact texts: see
 * exactColumn in the SQLite DDL), and each row's full-text index document.
 */
export interface EncodedRows {
  rows: (string | number | null)[][];
  documents: string[];
}

/**
 * Records as read, on their way to the writing thread: each one's `_id` when the source gives it (else null), and its
 * values; and, when the reading side made them (see RawRowBatcher), their full-text index documents.
 * `unusualNumbers` is set when a value is a number JSON cannot write (infinite, NaN, or -0).
 */
export interface RawRows {
  ids: (number | null)[];
  rows: (readonly StoredValue[])[];
  documents?: string[];
  unusualNumbers?: boolean;
}

/** A number JSON would not keep, written as a tagged string instead. */
const UNUSUAL_NUMBER = '$number';

/**
 * A batch as one string: JSON, which the engine writes and reads natively, costs far less to cross to the worker than
 * the structured clone of thousands of small arrays (and the garbage it leaves).
 */
export function packRows(batch: RawRows): string {
  const parts = batch.documents ? [batch.ids, batch.rows, batch.documents] : [batch.ids, batch.rows];
  if (!batch.unusualNumbers) return JSON.stringify(parts);
  return JSON.stringify(parts, (_key, value: unknown) =>
    typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))
      ? { [UNUSUAL_NUMBER]: Object.is(value, -0) ? '-0' : String(value) }
      : value,
  );
}

export function unpackRows(text: string): RawRows {
  const [ids, rows, documents] = (
    text.includes(`"${UNUSUAL_NUMBER}"`)
      ? JSON.parse(text, (_key, value: unknown) =>
          value !== null && typeof value === 'object' && UNUSUAL_NUMBER in value
            ? Number((value as Record<string, string>)[UNUSUAL_NUMBER])
            : value,
        )
      : JSON.parse(text)
  ) as [RawRows['ids'], RawRows['rows'], RawRows['documents']];
  return documents ? { ids, rows, documents } : { ids, rows };
}

/** What only the encoding side saw, which the written resource records. */
export interface RowFacts {
  count: number;
  maxId: number;
  nullFields: string[];
  quotedFields: string[];
  exactFields: string[];
}

/** Writes a batch of encoded rows into the resource being loaded. */
export type RowWriter = (batch: EncodedRows) => void;

/** Feeds a resource's rows to the writer it is given, then tells what the encoding side saw. */
export type RowFill = (write: RowWriter) => Promise<RowFacts>;

/** Where the worker builds: the served file, and whether to start from a copy of it; the rows' full-text language. */
export interface BuildStart {
  finalPath: string;
  fullTextLanguage: string;
  base: string | null;
}

/** A message to the writing thread. Rows, their end, or a failure follow a `load` or `patch`, in that order. */
export type ToWriter =
  | { kind: 'load'; seq: number; resource: ResourceShape; base: LoadBase }
  | {
      kind: 'patch';
      seq: number;
      resource: ResourceShape;
      base: LoadBase;
      previous: ResourceLoadRecord;
      ranges: readonly IdRange[];
    }
  | { kind: 'keep'; seq: number; resource: ResourceShape; record: ResourceLoadRecord }
  | { kind: 'index'; seq: number; resource: ResourceShape; record: ResourceLoadRecord; specs: readonly IndexSpec[] }
  | { kind: 'commit'; seq: number; publication: Publication }
  | { kind: 'abort'; seq: number }
  | { kind: 'rows'; packed: string }
  /** `base` as it stands once the records are read: the reading side may complete it meanwhile (block hashes). */
  | { kind: 'end'; base: LoadBase }
  | { kind: 'fail'; message: string };

/** A message from the writing thread: a call's answer, or that a batch of rows is written. */
export type FromWriter =
  { kind: 'done'; seq: number; value: unknown } | { kind: 'error'; seq: number; message: string } | { kind: 'written' };
