// A read-only connection to the embedded store, configured for querying: pragmas, the PostgreSQL-compatible
// full-text functions, and the per-statement deadline. Every connection the backend opens is set up here.

import Database from 'better-sqlite3';
import { registerTextSearch, SQLITE_FUNCTIONS as F } from '../../dialect/sqlite/functions.js';
import { StatementTimeout } from '../backend.js';

/** Raised inside a statement by the deadline function once its time is up; SQLite aborts the statement. */
export class DeadlineExceeded extends StatementTimeout {
  constructor() {
    super('statement deadline exceeded');
    this.name = 'DeadlineExceeded';
  }
}

/**
 * The deadline of the statement running on a connection. Reading the clock on every call would cost more than
 * most rows, so it is read once per CHECK_EVERY calls: every 16 rows of a full-text search, whose functions cost
 * microseconds a row, and every 1,024 of any other statement, which calls it on one row in 64 (sparseDeadlineSql).
 */
export class Deadline {
  private static readonly CHECK_EVERY = 16;
  private at: number | null = null;
  private calls = 0;

  run<T>(ms: number, work: () => T): T {
    this.at = performance.now() + ms;
    this.calls = 0;
    try {
      return work();
    } finally {
      this.at = null;
    }
  }

  tick(): number {
    if (this.at !== null && ++this.calls % Deadline.CHECK_EVERY === 0 && performance.now() > this.at)
      throw new DeadlineExceeded();
    return 1;
  }
}

export interface ReadConnection {
  db: Database.Database;
  deadline: Deadline;
}

/**
 * SQL functions a connection needs beyond the store's own (e.g. those user SQL is translated to use), named by module
 * and export so that a worker thread can load them too: `register(db)` is called on every connection opened.
 */
export interface SqliteExtension {
  module: string;
  register: string;
}

export type LoadedExtension = (db: Database.Database) => void;

export async function loadExtensions(extensions: readonly SqliteExtension[]): Promise<LoadedExtension[]> {
  return Promise.all(
    extensions.map(async ({ module, register }) => {
      const loaded = (await import(module)) as Record<string, unknown>;
      const fn = loaded[register];
      if (typeof fn !== 'function') throw new Error(`${module} exports no function ${register}`);
      return fn as LoadedExtension;
    }),
  );
}

/**
 * How a connection reads: `query` connections memory-map the file and keep a large page cache, which makes repeated
 * small queries fast; a `stream` reads a large result once, front to back, where both would only grow the process's
 * memory (mapped and cached pages count in its RSS) without saving any reads.
 */
export type ConnectionRole = 'query' | 'stream';

export function openReadConnection(
  file: string,
  role: ConnectionRole = 'query',
  extensions: readonly LoadedExtension[] = [],
): ReadConnection {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  db.pragma(role === 'query' ? 'mmap_size = 268435456' : 'mmap_size = 0');
  db.pragma(role === 'query' ? 'cache_size = -65536' : 'cache_size = -2048');
  db.pragma('temp_store = MEMORY');
  registerTextSearch(db);
  const deadline = new Deadline();
  db.function(F.deadline, { deterministic: false }, (_rowValue: unknown) => deadline.tick());
  for (const extend of extensions) extend(db);
  return { db, deadline };
}
