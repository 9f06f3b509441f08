// The embedded store at query time: a read-only SQLite connection with a prepared-statement cache, and extra
// connections for streams (an open iterator keeps its connection busy, so a dump must not hold the main one).

import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { CompiledQuery } from '../../sql/compiled.js';
import type { CompileTarget } from '../../sql/dialects.js';
import { availableParallelism } from 'node:os';
import type { LoadedResource, StorageBackend, StoreHealth, UserSqlResult } from '../backend.js';
import { BoundedCache } from '../bounded-cache.js';
import { CountMemo } from '../count-memo.js';
import type { StoreMeta } from '../load-target.js';
import { loadExtensions, openReadConnection, type LoadedExtension, type ReadConnection, type SqliteExtension } from './connection.js';
import { readMeta } from './meta.js';
import { SqlWorkerPool } from './worker-pool.js';

export { DeadlineExceeded } from './connection.js';

interface Opened {
  connection: ReadConnection;
  meta: StoreMeta;
  /** The file's identity when opened: the loader publishes by renaming a new file over it. */
  inode: number;
  statements: BoundedCache<string, Database.Statement>;
}

function openFile(file: string, extensions: readonly LoadedExtension[]): Opened {
  const inode = statSync(file).ino;
  const connection = openReadConnection(file, 'query', extensions);
  return { connection, meta: readMeta(connection.db), inode, statements: new BoundedCache(2000) };
}

/** The SQLite compiler binds only these. */
type SqliteParam = string | number | null;

export class SqliteBackend implements StorageBackend {
  readonly dialect = 'sqlite' as const;

  private readonly workers: SqlWorkerPool;
  private readonly counts = new CountMemo();

  private constructor(
    private readonly file: string,
    private current: Opened,
    private readonly extensions: readonly LoadedExtension[],
    extensionModules: readonly SqliteExtension[],
  ) {
    this.workers = new SqlWorkerPool(file, extensionModules, Math.max(1, Math.min(2, availableParallelism())));
  }

  /** `extensions`: SQL functions to register on every connection, the worker threads' included. */
  static async open(file: string, extensions: readonly SqliteExtension[] = []): Promise<SqliteBackend> {
    if (!existsSync(file)) throw new Error(`no Count Centre database at ${file}; run the loader first`);
    const loaded = await loadExtensions(extensions);
    return new SqliteBackend(file, openFile(file, loaded), loaded, extensions);
  }

  get indexLanguage(): string {
    return this.current.meta.fullTextLanguage;
  }

  get compileTarget(): CompileTarget {
    return { dialect: 'sqlite', indexLanguage: this.current.meta.fullTextLanguage };
  }

  get datasetVersion(): string {
    return this.current.meta.datasetVersion;
  }

  get databaseBytes(): number {
    return this.current.meta.databaseBytes;
  }

  get resources(): ReadonlyMap<string, LoadedResource> {
    return this.current.meta.resources;
  }

  private get db(): Database.Database {
    return this.current.connection.db;
  }

  private get deadline() {
    return this.current.connection.deadline;
  }

  /** Reopens the file when the loader has replaced it; queries running on the old one have already finished. */
  async refresh(): Promise<boolean> {
    let inode: number;
    try {
      inode = statSync(this.file).ino;
    } catch {
      return false;
    }
    if (inode === this.current.inode) return false;
    const previous = this.current;
    this.current = openFile(this.file, this.extensions);
    previous.connection.db.close();
    await this.workers.reset();
    return previous.meta.datasetVersion !== this.current.meta.datasetVersion;
  }

  async health(): Promise<StoreHealth> {
    return { ok: true, detail: `embedded store ${this.file}` };
  }

  async estimateRows(): Promise<number | null> {
    return null;
  }

  private statement(sql: string): Database.Statement {
    const { statements, connection } = this.current;
    return statements.getOrCreate(sql, () => connection.db.prepare(sql));
  }

  async rows(query: CompiledQuery): Promise<unknown[][]> {
    return this.statement(query.sql).raw(true).all(...(query.params as SqliteParam[])) as unknown[][];
  }

  async userSql(query: CompiledQuery, ms: number): Promise<UserSqlResult> {
    return { rows: await this.workers.run(query, ms), columns: null };
  }

  async count(query: CompiledQuery): Promise<number> {
    return this.counts.count(this.datasetVersion, query, async () => {
      const row = this.statement(query.sql).raw(true).get(...(query.params as SqliteParam[])) as unknown[] | undefined;
      return Number(row?.[0] ?? 0);
    });
  }

  /**
   * Rows in batches, read on a connection of the stream's own and closed when the consumer stops (also early:
   * a client that disconnects stops the work).
   */
  async *stream(query: CompiledQuery, batchRows: number): AsyncGenerator<unknown[][]> {
    const { db } = openReadConnection(this.file, 'stream', this.extensions);
    const rows = db.prepare(query.sql).raw(true).iterate(...(query.params as SqliteParam[])) as IterableIterator<unknown[]>;
    try {
      let batch: unknown[][] = [];
      for (const row of rows) {
        batch.push(row);
        if (batch.length === batchRows) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      rows.return?.();
      db.close();
    }
  }

  async close(): Promise<void> {
    await this.workers.close();
    this.db.close();
  }
}
