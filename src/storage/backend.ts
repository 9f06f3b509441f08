// The contract every storage backend meets: run compiled queries, report what is loaded, close.
// Backends never see plans or requests; they execute the SQL their dialect compiler produced.

import type { CompiledQuery } from '../sql/compiled.js';

export type DialectName = 'sqlite';

/** What the loader recorded about one loaded resource. */
export interface LoadedResource {
  id: string;
  total: number;
  loadedAt: string;
  sourceSha256: string;
  source: string;
  dataBytes: number;
  indexBytes: number;
}

export interface StorageBackend {
  readonly dialect: DialectName;
  /** Text search configuration of the whole-row full-text index. */
  readonly indexLanguage: string;
  /** Changes with every reload; versions cached answers and ETags. */
  readonly datasetVersion: string;
  readonly resources: ReadonlyMap<string, LoadedResource>;
  /** Size of the whole store in bytes, as measured at load time. */
  readonly databaseBytes: number;
  /** Rows as arrays, in the order of the query's select list. */
  rows(query: CompiledQuery): Promise<unknown[][]>;
  /** Rows in batches of up to `batchRows`, streamed: memory stays flat whatever the result's size. */
  stream(query: CompiledQuery, batchRows: number): AsyncGenerator<unknown[][]>;
  /** The first column of the first row, as a number. */
  count(query: CompiledQuery): Promise<number>;
  close(): Promise<void>;
}
