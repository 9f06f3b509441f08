// The embedded store at query time: a read-only SQLite connection with a prepared-statement cache and the
// PostgreSQL-compatible full-text functions registered.

import Database from 'better-sqlite3';
import { numberText } from '../../catalog/values.js';
import type { CompiledQuery } from '../../sql/compiled.js';
import { SQLITE_FUNCTIONS as F } from '../../sql/sqlite/functions.js';
import {
  parseTsquery, parseTsvector, toTsvector, tsMatches, tsRank, type TsQuery, type TsVector,
} from '../../text-search/index.js';
import type { LoadedResource, StorageBackend } from '../backend.js';
import { BoundedCache } from '../bounded-cache.js';
import { readMeta } from './meta.js';

/** The text PostgreSQL's `value::text` gives for a stored value of the field's type. */
function valueText(value: unknown, type: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (type === 'bool') return value ? 'true' : 'false';
    return numberText(value, type === 'float8' ? 'float8' : 'numeric');
  }
  const text = String(value);
  return type === 'timestamp' ? text.replace('T', ' ') : text;
}

function registerTextSearch(db: Database.Database): void {
  const queries = new BoundedCache<string, TsQuery>(1000);
  const query = (text: string) => queries.getOrCreate(text, () => parseTsquery(text));
  // Matching and ranking one row call this back to back with the same value; remembering one saves a parse.
  let lastVectorText: string | null = null;
  let lastVector: TsVector | null = null;
  const vector = (text: string) => {
    if (text !== lastVectorText) {
      lastVector = parseTsvector(text);
      lastVectorText = text;
    }
    return lastVector!;
  };
  const options = { deterministic: true };
  db.function(F.tsMatch, options, (vectorText: unknown, queryText: unknown) =>
    typeof vectorText === 'string' && tsMatches(vector(vectorText), query(String(queryText))) ? 1 : 0);
  db.function(F.tsRank, options, (vectorText: unknown, queryText: unknown, normalization: unknown) =>
    typeof vectorText === 'string' ? tsRank(vector(vectorText), query(String(queryText)), Number(normalization)) : 0);
  db.function(F.tsMatchValue, options, (config: unknown, value: unknown, type: unknown, queryText: unknown) => {
    const text = valueText(value, String(type));
    return text !== null && tsMatches(toTsvector(String(config), text), query(String(queryText))) ? 1 : 0;
  });
  db.function(F.tsRankValue, options, (config: unknown, value: unknown, type: unknown, queryText: unknown, normalization: unknown) => {
    const text = valueText(value, String(type));
    return text === null ? 0 : tsRank(toTsvector(String(config), text), query(String(queryText)), Number(normalization));
  });
}

/** Raised inside a statement by the deadline function once its time is up; SQLite aborts the statement. */
export class DeadlineExceeded extends Error {
  constructor() {
    super('statement deadline exceeded');
    this.name = 'DeadlineExceeded';
  }
}

/**
 * The deadline of the statement running on a connection. Reading the clock on every call would cost more than
 * most rows, so it is read once per CHECK_EVERY calls.
 */
class Deadline {
  private static readonly CHECK_EVERY = 256;
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
    if (this.at !== null && ++this.calls % Deadline.CHECK_EVERY === 0 && performance.now() > this.at) throw new DeadlineExceeded();
    return 1;
  }
}

export class SqliteBackend implements StorageBackend {
  readonly dialect = 'sqlite' as const;
  readonly indexLanguage: string;
  readonly datasetVersion: string;
  readonly resources: ReadonlyMap<string, LoadedResource>;
  readonly databaseBytes: number;
  private readonly statements = new BoundedCache<string, Database.Statement>(500);
  private readonly deadline = new Deadline();

  private constructor(private readonly db: Database.Database) {
    db.function(F.deadline, { deterministic: false }, (_rowValue: unknown) => this.deadline.tick());
    const meta = readMeta(db);
    this.indexLanguage = meta.fullTextLanguage;
    this.datasetVersion = meta.datasetVersion;
    this.databaseBytes = meta.databaseBytes;
    this.resources = new Map([...meta.resources.values()].map((r) => [r.id, {
      id: r.id, total: r.total, loadedAt: r.loadedAt, sourceSha256: r.sourceSha256, source: r.source, dataBytes: r.dataBytes, indexBytes: r.indexBytes,
    }]));
  }

  static open(file: string): SqliteBackend {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('query_only = ON');
    db.pragma('mmap_size = 268435456');
    db.pragma('cache_size = -65536');
    db.pragma('temp_store = MEMORY');
    registerTextSearch(db);
    return new SqliteBackend(db);
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

  async close(): Promise<void> {
    this.db.close();
  }
}
