// Chooses the store from the settings — PostgreSQL when DATABASE_URL is set, the embedded SQLite file otherwise — and
// composes it, as a dialect is composed of a driver and its query compiler: each store gets the compiler of its
// dialect (src/sql/, which no store imports), and the embedded store the SQL functions that translated
// datastore_search_sql statements call. The PostgreSQL modules (and the driver) are loaded only when PostgreSQL is
// chosen.

import path from 'node:path';
import type { SortIndexDirections } from './catalog/indexes.js';
import type { Settings } from './settings.js';
import type { Store } from './storage/backend.js';
import type { LoadTarget } from './storage/load-target.js';
import type { PostgresLoadOptions } from './storage/postgres/loader.js';
import { redact } from './storage/postgres/redact.js';
import { sqlCompilerFor } from './sql/compilers.js';
import { SqliteStore, type SqliteStoreOptions } from './storage/sqlite/backend.js';
import { SqliteLoadTarget } from './storage/sqlite/load-target.js';
import type { SqliteExtension } from './storage/sqlite/connection.js';

/** Loaded by module name so that the embedded store's worker threads can register them too. */
const SQLITE_EXTENSIONS: SqliteExtension[] = [
  // The runtime alone: the statement translator (and PostgreSQL's parser behind it) loads with the first statement.
  { module: new URL('./sql/user-sql/runtime.js', import.meta.url).href, register: 'registerRuntime' },
];

/** PostgreSQL's load target, loading its module on first use (a LoadTarget's work is all asynchronous anyway). */
class PostgresLoadTargetOnDemand implements LoadTarget {
  private target: Promise<LoadTarget> | null = null;

  constructor(private readonly options: PostgresLoadOptions) {}

  private get loaded(): Promise<LoadTarget> {
    this.target ??= import('./storage/postgres/loader.js').then(
      ({ PostgresLoadTarget }) => new PostgresLoadTarget(this.options),
    );
    return this.target;
  }

  async readMeta() {
    return (await this.loaded).readMeta();
  }

  async otherLayout() {
    return (await this.loaded).otherLayout();
  }

  async begin(fullTextLanguage: string) {
    return (await this.loaded).begin(fullTextLanguage);
  }

  async beginIndexing() {
    return (await this.loaded).beginIndexing();
  }

  async close() {
    if (this.target) await (await this.target).close();
  }
}

export interface StorageChoice {
  /** For logs: which store, where (never a password). */
  description: string;
  loadTarget(): LoadTarget;
  openStore(): Promise<Store>;
  /**
   * Which sorts by a field of a large resource are given the field's sort index (see docs/architecture.md, "Sort
   * indexes"): a descending one on both stores; an ascending one on PostgreSQL only, since SQLite's own index on the
   * field already ends each entry with its `_id`.
   */
  sortIndexes: SortIndexDirections;
}

export function storageFor(settings: Settings): StorageChoice {
  const url = settings.databaseUrl;
  if (url) {
    const { pgReaderRole: readerRole } = settings;
    const schemas = { data: settings.pgDataSchema, public: settings.pgSchema };
    return {
      description: `PostgreSQL ${redact(url)} (schemas ${schemas.data}, ${schemas.public}${settings.databaseReadUrls.length > 0 ? `; ${settings.databaseReadUrls.length} replicas` : ''})`,
      loadTarget: () =>
        new PostgresLoadTargetOnDemand({
          url,
          schemas,
          readerRole,
          splitAfterRows: settings.pgLoadSplitRows,
          helperAfterRows: settings.pgLoadHelperRows,
        }),
      openStore: async () =>
        (await import('./storage/postgres/backend.js')).PostgresStore.open({
          compilerFor: sqlCompilerFor,
          url,
          readUrls: settings.databaseReadUrls,
          schemas,
          readerRole,
          poolSize: settings.pgPoolSize,
          searchTimeoutMs: settings.searchTimeoutMs,
          sqlTimeoutMs: settings.sqlTimeoutMs,
        }),
      sortIndexes: { ascending: true, descending: true },
    };
  }
  return {
    // Named by its file alone: a path on this machine is nobody else's business (logs leave it).
    description: `embedded SQLite (${path.basename(settings.databasePath)})`,
    loadTarget: () => new SqliteLoadTarget(settings.databasePath),
    openStore: () => openSqliteStore(settings.databasePath, { searchTimeoutMs: settings.searchTimeoutMs }),
    sortIndexes: { ascending: false, descending: true },
  };
}

/** The embedded store at `file`, composed with the SQLite compiler and the functions translated user SQL calls. */
export function openSqliteStore(
  file: string,
  options: Omit<SqliteStoreOptions, 'compilerFor' | 'extensions'> = {},
): Promise<SqliteStore> {
  return SqliteStore.open(file, { ...options, compilerFor: sqlCompilerFor, extensions: SQLITE_EXTENSIONS });
}
