// The embedded store at query time: a read-only SQLite connection with a prepared-statement cache, and extra
// connections for streams (an open iterator keeps its connection busy, so a dump must not hold the main one).

import type Database from 'better-sqlite3';
import type { CompiledQuery } from '../../sql/compiled.js';
import type { LoadedResource, StorageBackend } from '../backend.js';
import { BoundedCache } from '../bounded-cache.js';
import { openReadConnection, type Deadline } from './connection.js';
import { readMeta } from './meta.js';

export { DeadlineExceeded } from './connection.js';

export class SqliteBackend implements StorageBackend {
  readonly dialect = 'sqlite' as const;
  readonly indexLanguage: string;
  readonly datasetVersion: string;
  readonly resources: ReadonlyMap<string, LoadedResource>;
  readonly databaseBytes: number;
  private readonly statements = new BoundedCache<string, Database.Statement>(500);

  private constructor(
    private readonly file: string,
    private readonly db: Database.Database,
    private readonly deadline: Deadline,
  ) {
    const meta = readMeta(db);
    this.indexLanguage = meta.fullTextLanguage;
    this.datasetVersion = meta.datasetVersion;
    this.databaseBytes = meta.databaseBytes;
    this.resources = new Map([...meta.resources.values()].map((r) => [r.id, {
      id: r.id, total: r.total, loadedAt: r.loadedAt, sourceSha256: r.sourceSha256, source: r.source, dataBytes: r.dataBytes, indexBytes: r.indexBytes,
    }]));
  }

  static open(file: string): SqliteBackend {
    const { db, deadline } = openReadConnection(file);
    return new SqliteBackend(file, db, deadline);
  }

  private statement(sql: string): Database.Statement {
    return this.statements.getOrCreate(sql, () => this.db.prepare(sql));
  }

  async rows(query: CompiledQuery): Promise<unknown[][]> {
    return this.statement(query.sql).raw(true).all(...query.params) as unknown[][];
  }

  /** Runs a query that SQLite aborts (throwing DeadlineExceeded) once `ms` have passed. */
  async rowsWithin(query: CompiledQuery, ms: number): Promise<unknown[][]> {
    const statement = this.statement(query.sql);
    return this.deadline.run(ms, () => statement.raw(true).all(...query.params) as unknown[][]);
  }

  async count(query: CompiledQuery): Promise<number> {
    const row = this.statement(query.sql).raw(true).get(...query.params) as unknown[] | undefined;
    return Number(row?.[0] ?? 0);
  }

  /**
   * Rows in batches, read on a connection of the stream's own and closed when the consumer stops (also early:
   * a client that disconnects stops the work).
   */
  async *stream(query: CompiledQuery, batchRows: number): AsyncGenerator<unknown[][]> {
    const { db } = openReadConnection(this.file, 'stream');
    const rows = db.prepare(query.sql).raw(true).iterate(...query.params) as IterableIterator<unknown[]>;
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
    this.db.close();
  }
}
