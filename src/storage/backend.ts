// The contract every store meets. A Store serves one version of the data at a time and switches to the next when a
// load is published; a StoreVersion is one such version, pinned: everything a request reads through it (rows, counts,
// streams, user SQL, the catalogue recorded with the load) belongs to that version, even if a newer one is published
// while the request runs. Backends never see plans or requests.

import type { CompiledQuery } from '../dialect/compiled.js';
import type { CompileTarget, SqlCompiler } from '../dialect/compiler.js';

export type DialectName = CompileTarget['dialect'];

import type { LoadedResource } from '../catalog/stored.js';

export type { LoadedResource };

export {
  DataVersionMoved,
  StatementRejected,
  StatementTimeout,
  StoreBusy,
  StoreUnavailable,
} from '../domain-errors.js';

export interface UserSqlResult {
  rows: unknown[][];
  columns: { id: string; type: string }[] | null;
}

export interface StoreHealth {
  ok: boolean;
  detail: string;
}

/** One version of the data as a store holds it: what a request reads, all of it from the same load. */
export interface StoreVersion {
  readonly dialect: DialectName;
  /** The catalogue (JSON text) the load recorded: the definitions that describe exactly this version's tables. */
  readonly catalog: string;
  /**
   * The SQL compiler for this version: its dialect, bound to what it must know of the store (schema, this load's
   * tables, the full-text index language). Made once per version, so actions compile through the store they read.
   */
  readonly compiler: SqlCompiler;
  /** Text search configuration of the whole-row full-text index. */
  readonly indexLanguage: string;
  /** Changes with every reload: the data's identity (/healthz, replicas). */
  readonly datasetVersion: string;
  /**
   * Versions cached answers and ETags: the dataset version, and which indexes are built (an index built after
   * publication changes the sizes datastore_info reports, never the records).
   */
  readonly answersVersion: string;
  readonly resources: ReadonlyMap<string, LoadedResource>;
  /** Size of the whole store in bytes, as measured at load time. */
  readonly databaseBytes: number;
  /** Rows as arrays, in the order of the query's select list. */
  rows(query: CompiledQuery): Promise<unknown[][]>;
  /**
   * Runs user SQL (datastore_search_sql) away from the serving thread, cancelled with StatementTimeout after `ms`.
   * `columns` are the result's names and PostgreSQL type names when the store reports them (PostgreSQL does).
   */
  userSql(query: CompiledQuery, ms: number): Promise<UserSqlResult>;
  /** Rows in batches of up to `batchRows`, streamed: memory stays flat whatever the result's size. */
  stream(query: CompiledQuery, batchRows: number): AsyncGenerator<unknown[][]>;
  /**
   * Rows of one batch of a long read that proceeds by many short queries (a dump's keyset walk): like rows(), but
   * read the way a stream is, so that a walk over a whole large resource leaves the process's memory where it was.
   */
  bulkRows(query: CompiledQuery): Promise<unknown[][]>;
  /** The first column of the first row, as a number. */
  count(query: CompiledQuery): Promise<number>;
  /** The store's own estimate of a resource's record count (PostgreSQL's statistics), if it keeps one. */
  estimateRows(resourceId: string): Promise<number | null>;
  health(): Promise<StoreHealth>;
}

/** A version in use by a request; released when the request is answered (or its stream ends). */
export interface Lease {
  readonly version: StoreVersion;
  release(): void;
}

/**
 * A store over time: it serves one version (`current`) and, when another process publishes a load, opens the new one
 * beside it; `serve` then switches to it at once, and the previous version is closed when its last lease is released.
 */
export interface Store {
  readonly dialect: DialectName;
  readonly current: StoreVersion;
  acquire(): Lease;
  /** The version the store now holds, opened, if it is not the current one; null when nothing changed. */
  openLatest(): Promise<StoreVersion | null>;
  /** Makes `version` (from openLatest) current; the previous one closes when no lease holds it any more. */
  serve(version: StoreVersion): void;
  /** Discards a version from openLatest that will not be served. */
  discard(version: StoreVersion): Promise<void>;
  /**
   * Calls `changed` as soon as another process may have published a load, where the store can tell (PostgreSQL's
   * notifications, a file renamed in the embedded store's folder); serving processes also poll, so a missed signal is
   * still picked up.
   */
  watch?(changed: () => void): void;
  health(): Promise<StoreHealth>;
  /** The store's own figures for metrics: connections in use and waited for, query workers busy and queued. */
  stats?(): Record<string, number>;
  close(): Promise<void>;
}
