// Assembles the service from settings: reads the catalogue, brings the embedded database up to date,
// opens it and joins the two. Used by the process entry point and by the tests.

import type { Logger } from 'pino';
import { Catalog } from './catalog/catalog.js';
import { loadCatalogFile } from './catalog/load.js';
import type { Services } from './actions/types.js';
import { buildDatabase, type BuildResult } from './ingest/build.js';
import type { Settings } from './settings.js';
import { storageFor } from './storage/select.js';

export interface Prepared {
  services: Services;
  build: BuildResult;
  close(): Promise<void>;
}

export async function prepareServices(settings: Settings, logger: Logger): Promise<Prepared> {
  const definition = loadCatalogFile(settings.catalog);
  const storage = storageFor(settings);
  const target = storage.loadTarget();
  let build: BuildResult;
  try {
    build = await buildDatabase({ catalog: definition, sources: settings.sources, target, logger });
  } finally {
    await target.close();
  }
  const backend = await storage.openBackend();
  const catalog = new Catalog(definition, backend.resources);
  return { services: { settings, catalog, backend }, build, close: () => backend.close() };
}
