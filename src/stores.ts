// Chooses the store from the settings — PostgreSQL when DATABASE_URL is set, the embedded SQLite file otherwise — and
// equips it: the embedded store gets the SQL functions that translated datastore_search_sql statements call.

import type { Settings } from './settings.js';
import type { StorageBackend } from './storage/backend.js';
import type { LoadTarget } from './storage/load-target.js';
import { PostgresBackend, redact } from './storage/postgres/backend.js';
import { PostgresLoadTarget } from './storage/postgres/loader.js';
import { SqliteBackend } from './storage/sqlite/backend.js';
import { SqliteLoadTarget } from './storage/sqlite/builder.js';
import type { SqliteExtension } from './storage/sqlite/connection.js';

/** Loaded by module name so that the embedded store's worker threads can register them too. */
const SQLITE_EXTENSIONS: SqliteExtension[] = [
  { module: new URL('./sql/search-sql/index.js', import.meta.url).href, register: 'registerSqliteRuntime' },
];

export interface StorageChoice {
  /** For logs: which store, where (never a password). */
  description: string;
  loadTarget(): LoadTarget;
  openBackend(): Promise<StorageBackend>;
}

export function storageFor(settings: Settings): StorageChoice {
  const url = settings.databaseUrl;
  if (url) {
    const { pgReaderRole: readerRole } = settings;
    const schemas = { data: settings.pgDataSchema, public: settings.pgSchema };
    return {
      description: `PostgreSQL ${redact(url)} (schemas ${schemas.data}, ${schemas.public}${settings.databaseReadUrls.length > 0 ? `; ${settings.databaseReadUrls.length} replicas` : ''})`,
      loadTarget: () => new PostgresLoadTarget({ url, schemas, readerRole }),
      openBackend: () => PostgresBackend.open({
        url, readUrls: settings.databaseReadUrls, schemas, readerRole, poolSize: settings.pgPoolSize,
        searchTimeoutMs: settings.searchTimeoutMs, sqlTimeoutMs: settings.sqlTimeoutMs,
      }),
    };
  }
  return {
    description: `embedded SQLite at ${settings.databasePath}`,
    loadTarget: () => new SqliteLoadTarget(settings.databasePath),
    openBackend: () => SqliteBackend.open(settings.databasePath, SQLITE_EXTENSIONS),
  };
}
