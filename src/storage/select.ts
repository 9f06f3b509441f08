// Chooses the store from the settings: PostgreSQL when DATABASE_URL is set, the embedded SQLite file otherwise.

import type { Settings } from '../settings.js';
import type { StorageBackend } from './backend.js';
import type { LoadTarget } from './load-target.js';
import { PostgresBackend, redact } from './postgres/backend.js';
import { PostgresLoadTarget } from './postgres/loader.js';
import { SqliteBackend } from './sqlite/backend.js';
import { SqliteLoadTarget } from './sqlite/builder.js';

export interface StorageChoice {
  /** For logs: which store, where (never a password). */
  description: string;
  loadTarget(): LoadTarget;
  openBackend(): Promise<StorageBackend>;
}

export function storageFor(settings: Settings): StorageChoice {
  const url = settings.databaseUrl;
  if (url) {
    const { pgSchema: schema, pgReaderRole: readerRole } = settings;
    return {
      description: `PostgreSQL ${redact(url)} (schema ${schema}${settings.databaseReadUrls.length > 0 ? `, ${settings.databaseReadUrls.length} replicas` : ''})`,
      loadTarget: () => new PostgresLoadTarget({ url, schema, readerRole }),
      openBackend: () => PostgresBackend.open({
        url, readUrls: settings.databaseReadUrls, schema, readerRole, poolSize: settings.pgPoolSize,
        searchTimeoutMs: settings.searchTimeoutMs, sqlTimeoutMs: settings.sqlTimeoutMs,
      }),
    };
  }
  return {
    description: `embedded SQLite at ${settings.databasePath}`,
    loadTarget: () => new SqliteLoadTarget(settings.databasePath),
    openBackend: async () => SqliteBackend.open(settings.databasePath),
  };
}
