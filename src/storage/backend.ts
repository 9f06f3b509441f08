// The contract every storage backend meets: run compiled queries (all at once, within a deadline, or streamed),
// report what is loaded, notice a reload, say whether it is healthy. Backends never see plans or requests.

import type { CompiledQuery } from '../sql/compiled.js';
import type { CompileTarget } from '../sql/dialects.js';

export type DialectName = CompileTarget['dialect'];

/** What the loader recorded about one loaded resource. */
export interface LoadedResource {
  id: string;
  total: number;
  loadedAt: string;
  sourceSha256: string;
  source: string;
  dataBytes: number;
  indexBytes: number;
  nullFields: readonly string[];
}

/** A statement ran past its time limit and was cancelled. */
export class StatementTimeout extends Error {
  constructor(message = 'statement timeout') {
    super(message);
    this.name = 'StatementTimeout';
  }
}

/** The store refused a statement of user SQL (division by zero, a bad cast…); the message says why, without SQL. */
export class StatementRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementRejected';
  }
}

/** The store cannot be reached (connection refused, lost, or not accepting connections); answered with 503. */
export class StoreUnavailable extends Error {
  constructor(readonly detail: string) {
    super(`store unavailable: ${detail}`);
    this.name = 'StoreUnavailable';
  }
}

export interface UserSqlResult {
  rows: unknown[][];
  columns: { id: string; type: string }[] | null;
}

export interface StoreHealth {
  ok: boolean;
  detail: string;
}

export interface StorageBackend {
  readonly dialect: DialectName;
  /** What the dialect compiler needs to know about this store (schema, full-text index language…). */
  readonly compileTarget: CompileTarget;
  /** Text search configuration of the whole-row full-text index. */
  readonly indexLanguage: string;
  /** Changes with every reload; versions cached answers and ETags. */
  readonly datasetVersion: string;
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
  /** The first column of the first row, as a number. */
  count(query: CompiledQuery): Promise<number>;
  /** The store's own estimate of a resource's record count (PostgreSQL's statistics), if it keeps one. */
  estimateRows(resourceId: string): Promise<number | null>;
  /** Picks up a reload done by another process; true when the data changed. */
  refresh(): Promise<boolean>;
  /**
   * Calls `changed` as soon as another process has published a load, where the store can tell (PostgreSQL's
   * notifications); serving processes also poll refresh(), so a store that cannot tell is still picked up.
   */
  watch?(changed: () => void): void;
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
