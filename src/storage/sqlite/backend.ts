// The embedded store at query time. The loader publishes a version by renaming a new file over the database path;
// each version a process serves is pinned by a hard link of its own to that file, so that every connection a request
// opens (its query, a dump's stream, a worker's user SQL) reads the version the request began with, however many
// loads are published meanwhile. A replaced version is closed, and its link removed, when its last request is done.

import { existsSync, linkSync, readdirSync, statSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { CompiledQuery } from '../../dialect/compiled.js';
import type { CompilerFor, SqlCompiler } from '../../dialect/compiler.js';
import type { Lease, Store, StoreHealth, UserSqlResult } from '../backend.js';
import { BoundedCache } from '../../util/bounded-cache.js';
import { OverrunMemory } from './overrun-memory.js';
import { CountMemo } from '../count-memo.js';
import type { StoreMeta } from '../load-target.js';
import { RecordedVersion, ServedVersions, type ClosableVersion } from '../versions.js';
import {
  loadExtensions,
  openReadConnection,
  type LoadedExtension,
  type ReadConnection,
  type SqliteExtension,
} from './connection.js';
import { readMeta } from './meta.js';
import { SqlWorkerPool } from './worker-pool.js';

export { DeadlineExceeded } from './connection.js';
import { DeadlineExceeded } from './connection.js';

/** The SQLite compiler binds only these. */
type SqliteParam = string | number | null;

/**
 * How long an interruptible statement may run on the event loop before it is stopped and run again on a worker thread
 * (where only the search time limit bounds it): long enough for nearly every query, short enough that a request others
 * are queued behind delays them by no more than this.
 */
const EVENT_LOOP_BUDGET_MS = 20;

export interface SqliteStoreOptions {
  /** Makes each version's SQL compiler (src/stores.ts composes the store with the SQLite dialect's). */
  compilerFor: CompilerFor;
  /** SQL functions to register on every connection, the worker threads' included. */
  extensions?: readonly SqliteExtension[];
  /** The time limit of a datastore_search statement (COUNTCENTRE_SEARCH_TIMEOUT_MS). */
  searchTimeoutMs?: number;
}

/** What every version of the store is opened with. */
interface VersionSetup {
  extensions: readonly LoadedExtension[];
  /** The same functions by module, for the worker threads to load. */
  extensionModules: readonly SqliteExtension[];
  searchTimeoutMs: number;
  compilerFor: CompilerFor;
}

const LINK_MARK = '.reader-';

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Links left behind by processes that ended without closing their versions (a crash, a kill -9). */
function removeStaleLinks(file: string): void {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}${LINK_MARK}`;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !processIsAlive(pid)) {
      try {
        unlinkSync(path.join(dir, name));
      } catch {
        // Another process cleaned it first.
      }
    }
  }
}

let links = 0;

/**
 * A private name for the file now at `file`, so that it stays readable after a load renames another file over `file`.
 * Where the folder does not allow hard links, the file is read by its own name (a load may then change it under a
 * request, which the version check in `open` reports).
 */
function pin(file: string): { path: string; pinned: boolean } {
  const link = `${file}${LINK_MARK}${process.pid}-${++links}`;
  try {
    linkSync(file, link);
    return { path: link, pinned: true };
  } catch {
    return { path: file, pinned: false };
  }
}

/** One version of the embedded store: a pinned file, a read connection, and the query caches that belong to it. */
export class SqliteVersion extends RecordedVersion implements ClosableVersion {
  readonly dialect = 'sqlite' as const;
  /**
   * Prepared statements by SQL text. Each holds SQLite's compiled program (tens of KB for a filtered, sorted search):
   * 300 answer a stream of 10,000 distinct queries as fast as 1,000 did, and keep some 16 MB less.
   */
  private readonly statements = new BoundedCache<string, Database.Statement>(300);
  private readonly counts = new CountMemo();
  private workers: SqlWorkerPool | null = null;
  private readonly streams = new Set<Database.Database>();
  /** A `stream` connection for long reads made of many short queries (bulkRows), opened when first needed. */
  private bulk: { connection: ReadConnection; statements: BoundedCache<string, Database.Statement> } | null = null;
  private readonly long = new OverrunMemory(1000);
  private moved = 0;
  private boundCompiler: SqlCompiler | null = null;

  private constructor(
    private readonly file: { path: string; pinned: boolean },
    readonly inode: number,
    private readonly connection: ReadConnection,
    meta: StoreMeta,
    private readonly setup: VersionSetup,
  ) {
    super(meta);
  }

  static open(file: string, setup: VersionSetup): SqliteVersion {
    const pinned = pin(file);
    try {
      const inode = statSync(pinned.path).ino;
      const connection = openReadConnection(pinned.path, 'query', setup.extensions);
      try {
        return new SqliteVersion(pinned, inode, connection, readMeta(connection.db), setup);
      } catch (err) {
        connection.db.close();
        throw err;
      }
    } catch (err) {
      if (pinned.pinned) unlinkSync(pinned.path);
      throw err;
    }
  }

  get compiler(): SqlCompiler {
    this.boundCompiler ??= this.setup.compilerFor({ dialect: 'sqlite', indexLanguage: this.meta.fullTextLanguage });
    return this.boundCompiler;
  }

  async health(): Promise<StoreHealth> {
    return { ok: true, detail: 'embedded store' };
  }

  async estimateRows(): Promise<number | null> {
    return null;
  }

  private statement(sql: string): Database.Statement {
    return this.statements.getOrCreate(sql, () => this.connection.db.prepare(sql));
  }

  /** Query workers busy and queued, and statements moved off the event loop since this version opened. */
  get stats(): Record<string, number> {
    const pool = this.workers?.stats ?? { busy: 0, workers: 0, queued: 0 };
    return {
      query_workers: pool.workers,
      query_workers_busy: pool.busy,
      query_workers_queued: pool.queued,
      statements_moved_to_workers: this.moved,
    };
  }

  private get pool(): SqlWorkerPool {
    this.workers ??= new SqlWorkerPool(
      this.file.path,
      this.setup.extensionModules,
      Math.max(1, Math.min(2, availableParallelism())),
    );
    return this.workers;
  }

  /**
   * Runs a statement where it costs least: on the event loop when it is bounded by construction; an interruptible one
   * there too, within a small budget, and if it runs past that (or did before), on a worker thread under the search
   * time limit, so that no search holds up the requests queued behind it.
   */
  private async run(query: CompiledQuery): Promise<unknown[][]> {
    const statement = this.statement(query.sql).raw(true);
    const params = query.params as SqliteParam[];
    if (!query.interruptible) return statement.all(...params) as unknown[][];
    if (this.long.tryOnLoop(query.sql)) {
      try {
        const rows = this.connection.deadline.run(EVENT_LOOP_BUDGET_MS, () => statement.all(...params) as unknown[][]);
        this.long.kept(query.sql);
        return rows;
      } catch (err) {
        if (!(err instanceof DeadlineExceeded)) throw err;
        this.long.overran(query.sql);
      }
    }
    this.moved += 1;
    return this.pool.run(query, this.setup.searchTimeoutMs);
  }

  async rows(query: CompiledQuery): Promise<unknown[][]> {
    return this.run(query);
  }

  /**
   * On a connection of its own without the memory map and large page cache that make repeated small queries fast:
   * a walk through a whole large resource would otherwise map all of the file into the process's memory. Each query
   * runs to completion, so the connection is shared by every walk in progress; it reads this version's pinned file.
   */
  async bulkRows(query: CompiledQuery): Promise<unknown[][]> {
    this.bulk ??= {
      connection: openReadConnection(this.file.path, 'stream', this.setup.extensions),
      statements: new BoundedCache(100),
    };
    const { connection, statements } = this.bulk;
    const statement = statements.getOrCreate(query.sql, () => connection.db.prepare(query.sql));
    return statement.raw(true).all(...(query.params as SqliteParam[])) as unknown[][];
  }

  async userSql(query: CompiledQuery, ms: number): Promise<UserSqlResult> {
    return { rows: await this.pool.run(query, ms), columns: null };
  }

  async count(query: CompiledQuery): Promise<number> {
    return this.counts.count(this.datasetVersion, query, async () => Number((await this.run(query))[0]?.[0] ?? 0));
  }

  /**
   * Rows in batches, read on a connection of the stream's own (an open iterator keeps its connection busy), closed
   * when the consumer stops (also early: a client that disconnects stops the work).
   */
  async *stream(query: CompiledQuery, batchRows: number): AsyncGenerator<unknown[][]> {
    const { db } = openReadConnection(this.file.path, 'stream', this.setup.extensions);
    this.streams.add(db);
    try {
      const rows = db
        .prepare(query.sql)
        .raw(true)
        .iterate(...(query.params as SqliteParam[])) as IterableIterator<unknown[]>;
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
      }
    } finally {
      this.streams.delete(db);
      db.close();
    }
  }

  async close(): Promise<void> {
    await this.workers?.close();
    for (const db of this.streams) db.close();
    this.bulk?.connection.db.close();
    this.connection.db.close();
    if (this.file.pinned) {
      try {
        unlinkSync(this.file.path);
      } catch {
        // Already gone.
      }
    }
  }
}

export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  private readonly versions: ServedVersions<SqliteVersion>;
  private watcher: FSWatcher | null = null;

  private constructor(
    private readonly file: string,
    first: SqliteVersion,
    private readonly setup: VersionSetup,
  ) {
    this.versions = new ServedVersions(first);
  }

  static async open(file: string, options: SqliteStoreOptions): Promise<SqliteStore> {
    if (!existsSync(file)) throw new Error(`no Count Centre database at ${file}; run the loader first`);
    removeStaleLinks(file);
    const extensionModules = options.extensions ?? [];
    const setup: VersionSetup = {
      extensions: await loadExtensions(extensionModules),
      extensionModules,
      searchTimeoutMs: options.searchTimeoutMs ?? 30_000,
      compilerFor: options.compilerFor,
    };
    return new SqliteStore(file, SqliteVersion.open(file, setup), setup);
  }

  get current(): SqliteVersion {
    return this.versions.current;
  }

  acquire(): Lease {
    return this.versions.acquire();
  }

  async openLatest(): Promise<SqliteVersion | null> {
    let inode: number;
    try {
      inode = statSync(this.file).ino;
    } catch {
      return null;
    }
    if (inode === this.current.inode) return null;
    const next = SqliteVersion.open(this.file, this.setup);
    // The file may have been replaced again between the look and the link: the link is what is read.
    if (next.inode === this.current.inode) {
      await next.close();
      return null;
    }
    return next;
  }

  serve(version: SqliteVersion): void {
    this.versions.serve(version);
  }

  async discard(version: SqliteVersion): Promise<void> {
    await version.close();
  }

  /** A load publishes by renaming its file into the folder: watching the folder hears of it at once. */
  watch(changed: () => void): void {
    const name = path.basename(this.file);
    try {
      this.watcher = watch(path.dirname(this.file), { persistent: false }, (_event, filename) => {
        if (filename === null || filename === name) changed();
      });
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = null;
      });
    } catch {
      // Polling still picks up loads.
    }
  }

  async health(): Promise<StoreHealth> {
    return { ok: true, detail: `embedded store ${this.file}` };
  }

  stats(): Record<string, number> {
    return { ...this.current.stats, versions_open: this.versions.open };
  }

  async close(): Promise<void> {
    this.watcher?.close();
    await this.versions.closeAll();
  }
}
