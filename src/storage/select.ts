// Chooses the store from the settings: PostgreSQL when DATABASE_URL is set, the embedded SQLite file otherwise.

import type { Settings } from '../settings.js';
import type { StorageBackend } from './backend.js';
import type { LoadTarget } from './load-target.js';
import { SqliteBackend } from './sqlite/backend.js';
import { SqliteLoadTarget } from './sqlite/builder.js';

export interface StorageChoice {
  /** For logs: which store, where. */
  description: string;
  loadTarget(): LoadTarget;
  openBackend(): Promise<StorageBackend>;
}

export function storageFor(settings: Settings): StorageChoice {
  return {
    description: `embedded SQLite at ${settings.databasePath}`,
    loadTarget: () => new SqliteLoadTarget(settings.databasePath),
    openBackend: async () => SqliteBackend.open(settings.databasePath),
  };
}
