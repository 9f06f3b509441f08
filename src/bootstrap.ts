// Assembles the service from settings: reads the catalogue, brings the embedded database up to date,
// opens it and joins the two. Used by the process entry point and by the tests.

import type { Logger } from 'pino';
import { Catalog } from './catalog/catalog.js';
import { loadCatalogFile } from './catalog/load.js';
import type { Services } from './actions/types.js';
import { buildDatabase, type BuildResult } from './ingest/build.js';
import type { Settings } from './settings.js';
import { SqliteBackend } from './storage/sqlite/backend.js';

export interface Prepared {
  services: Services;
  build: BuildResult;
  close(): Promise<void>;
}

export async function prepareServices(settings: Settings, logger: Logger): Promise<Prepared> {
  const definition = loadCatalogFile(settings.catalog);
  const build = await buildDatabase({ catalog: definition, sources: settings.sources, databasePath: settings.databasePath, logger });
  const backend = SqliteBackend.open(settings.databasePath);
  const catalog = new Catalog(definition, backend.resources);
  return { services: { settings, catalog, backend }, build, close: () => backend.close() };
}
