// Assembles the service from settings: brings the store up to date with the catalogue file and sources (unless another
// process does), opens it, and serves each version of the data with the catalogue that was loaded with it; then follows
// loads published by other processes, switching every part of an answer to the new version at once.

import type { Logger } from 'pino';
import { Catalog } from './catalog/catalog.js';
import { loadCatalogFile, parseCatalog } from './catalog/load.js';
import type { ServiceLease, Services, ServiceState } from './actions/types.js';
import { offsetMarkStats } from './actions/offset-marks.js';
import { ResidentTables } from './resident/tables.js';
import { buildDatabase, mirrorOptions, type BuildOptions, type BuildResult } from './ingest/build.js';
import { IndexBuilds } from './ingest/indexes.js';
import type { Settings } from './settings.js';
import type { StoreVersion, Store } from './storage/backend.js';
import { storageFor } from './stores.js';
import { withLimitedHeapGrowth } from './util/heap-growth.js';
import { VersionMemos } from './util/version-memos.js';

export interface Prepared {
  /** The current version's services (a request leases them through `state`). */
  readonly services: Services;
  readonly state: ServiceState;
  /** What this process loaded; null when it only opened a store that another process keeps up to date. */
  build: BuildResult | null;
  description: string;
  /** Checks whether the store now holds another version of the data and, if so, serves it; true when it changed. */
  refresh(): Promise<boolean>;
  /** The index builds this process runs after publication (src/ingest/indexes.ts). */
  indexes: IndexBuilds;
  close(): Promise<void>;
}

/** How often a serving process checks whether the data was reloaded by another process (besides being told). */
const REFRESH_EVERY_MS = 5000;

export interface PrepareOptions {
  /** Load the sources before serving (the default); worker processes leave that to the primary. */
  load?: boolean;
  /** How mirrored resources are read, for that load. */
  mirror?: BuildOptions['mirror'];
}

/** A version's catalogue, as recorded by the load that wrote it. */
function catalogOf(version: StoreVersion): Catalog {
  if (!version.catalog) throw new Error('the store holds no catalogue; run the loader first');
  return new Catalog(parseCatalog(JSON.parse(version.catalog)), version.resources);
}

/** The resident tables of one version, within the settings' limits (none when they are turned off). */
function residentTables(settings: Settings, version: StoreVersion): Pick<Services, 'resident'> {
  if (settings.residentMb === 0) return {};
  return {
    resident: new ResidentTables(
      { maxBytes: settings.residentMb * 1024 * 1024, maxRows: settings.residentRows },
      version.indexLanguage,
    ),
  };
}

/** Services per version of the store, each made once: the catalogue is parsed when the version is opened. */
class StoreServices implements ServiceState {
  private readonly byVersion = new WeakMap<StoreVersion, Services>();

  constructor(
    private readonly store: Store,
    private readonly settings: Settings,
    private readonly logger: Logger,
    private readonly indexes: IndexBuilds,
  ) {
    this.servicesOf(store.current);
  }

  private servicesOf(version: StoreVersion): Services {
    let services = this.byVersion.get(version);
    if (!services) {
      services = {
        settings: this.settings,
        catalog: catalogOf(version),
        backend: version,
        memos: new VersionMemos(),
        indexes: this.indexes,
        ...residentTables(this.settings, version),
      };
      this.byVersion.set(version, services);
    }
    return services;
  }

  get current(): Services {
    return this.servicesOf(this.store.current);
  }

  acquire(): ServiceLease {
    const lease = this.store.acquire();
    return { services: this.servicesOf(lease.version), release: lease.release };
  }

  /**
   * Opens the new version and its catalogue first, then switches to both in one step: no request sees the new
   * records with the old fields, or the reverse. A version whose catalogue cannot be read is not served.
   */
  private async switchIfChanged(): Promise<boolean> {
    const next = await this.store.openLatest();
    if (!next) return false;
    try {
      this.servicesOf(next);
    } catch (err) {
      await this.store.discard(next);
      throw err;
    }
    const previous = this.store.current.datasetVersion;
    this.store.serve(next);
    if (next.datasetVersion === previous)
      this.logger.debug({ datasetVersion: next.datasetVersion }, 'indexes built; now serving the data with them');
    else this.logger.info({ datasetVersion: next.datasetVersion }, 'data reloaded; now serving the new version');
    // What the load published is indexed next (a round finds nothing to do when another process builds it).
    this.indexes.schedule();
    return true;
  }

  // One check at a time; a request for another while one runs (a notification during a poll) runs once more after it,
  // since the running one may have looked before the load was published.
  private running: Promise<boolean> | null = null;
  private again: Promise<boolean> | null = null;

  storeStats(): Record<string, number> {
    return { ...this.store.stats?.(), ...offsetMarkStats() };
  }

  refresh(): Promise<boolean> {
    if (!this.running) {
      this.running = this.switchIfChanged().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.again ??= this.running
      .catch(() => false)
      .then(() => {
        this.again = null;
        return this.refresh();
      });
    return this.again;
  }
}

export async function prepareServices(
  settings: Settings,
  logger: Logger,
  { load = true, mirror }: PrepareOptions = {},
): Promise<Prepared> {
  const storage = storageFor(settings);
  let build: BuildResult | null = null;
  if (load) {
    const definition = loadCatalogFile(settings.catalog);
    const target = storage.loadTarget();
    try {
      build = await withLimitedHeapGrowth(() =>
        buildDatabase({
          catalog: definition,
          sources: settings.sources,
          target,
          logger,
          mirror: mirror ?? mirrorOptions(settings),
        }),
      );
    } finally {
      await target.close();
    }
  }
  const store = await storage.openStore();
  const indexes = new IndexBuilds(() => storage.loadTarget(), logger, storage.sortIndexes);
  let state: StoreServices;
  try {
    state = new StoreServices(store, settings, logger, indexes);
  } catch (err) {
    await store.close();
    throw err;
  }
  // What is still to be indexed (the load just made, or one a stopped process left) is built while serving.
  if (settings.indexBuilds) indexes.schedule();
  else indexes.stop();
  const check = () => {
    state.refresh().catch((err: unknown) => logger.warn({ err }, 'could not check for a reload'));
  };
  store.watch?.(check);
  const timer = setInterval(check, REFRESH_EVERY_MS);
  timer.unref();
  return {
    get services() {
      return state.current;
    },
    state,
    build,
    description: storage.description,
    refresh: () => state.refresh(),
    indexes,
    close: async () => {
      clearInterval(timer);
      indexes.stop();
      await indexes.idle();
      await store.close();
    },
  };
}
