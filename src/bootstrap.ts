// Assembles the service from settings: reads the catalogue, brings the store up to date (the embedded file or
// PostgreSQL), opens it and joins the two; then watches for reloads done by other processes.

import type { Logger } from 'pino';
import { Catalog } from './catalog/catalog.js';
import { loadCatalogFile } from './catalog/load.js';
import type { Services } from './actions/types.js';
import { buildDatabase, type BuildResult } from './ingest/build.js';
import type { Settings } from './settings.js';
import { initSearchSql } from './sql/search-sql/index.js';
import { storageFor } from './stores.js';

export interface Prepared {
  services: Services;
  /** What this process loaded; null when it only opened a store that another process keeps up to date. */
  build: BuildResult | null;
  description: string;
  /** Checks whether the store now holds another version of the data and, if so, serves it; true when it changed. */
  refresh(): Promise<boolean>;
  close(): Promise<void>;
}

/** How often a serving process checks whether the data was reloaded by another process. */
const REFRESH_EVERY_MS = 5000;

export interface PrepareOptions {
  /** Load the sources before serving (the default); worker processes leave that to the primary. */
  load?: boolean;
}

export async function prepareServices(settings: Settings, logger: Logger, { load = true }: PrepareOptions = {}): Promise<Prepared> {
  const definition = loadCatalogFile(settings.catalog);
  // PostgreSQL's parser (WebAssembly) is loaded once, before the first datastore_search_sql.
  const parser = initSearchSql();
  const storage = storageFor(settings);
  let build: BuildResult | null = null;
  if (load) {
    const target = storage.loadTarget();
    try {
      build = await buildDatabase({ catalog: definition, sources: settings.sources, target, logger });
    } finally {
      await target.close();
    }
  }
  const backend = await storage.openBackend();
  await parser;
  const services: Services = { settings, catalog: new Catalog(definition, backend.resources), backend };
  const swapIfChanged = async () => {
    if (!(await backend.refresh())) return false;
    services.catalog = new Catalog(definition, backend.resources);
    logger.info({ datasetVersion: backend.datasetVersion }, 'data reloaded; now serving the new version');
    return true;
  };
  // One check at a time; a request for another while one runs (a notification during a poll) runs once more after it,
  // since the running one may have looked before the load was published.
  let running: Promise<boolean> | null = null;
  let again: Promise<boolean> | null = null;
  const refresh = (): Promise<boolean> => {
    if (!running) {
      running = swapIfChanged().finally(() => {
        running = null;
      });
      return running;
    }
    again ??= running.catch(() => false).then(() => {
      again = null;
      return refresh();
    });
    return again;
  };
  const check = () => {
    refresh().catch((err: unknown) => logger.warn({ err }, 'could not check for a reload'));
  };
  backend.watch?.(check);
  const timer = setInterval(check, REFRESH_EVERY_MS);
  timer.unref();
  return {
    services,
    build,
    description: storage.description,
    refresh,
    close: async () => {
      clearInterval(timer);
      await backend.close();
    },
  };
}
