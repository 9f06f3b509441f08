// Serving: settings → data loaded → HTTP server listening; with N workers, the primary loads the data once and the
// workers share the port (node's cluster). A process that loads also refreshes mirrored resources on an interval
// (COUNTCENTRE_MIRROR_REFRESH_SECONDS): the store's watch then brings the new copy to every serving process.

import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { buildApp, type FrontOptions } from './app.js';
import { prepareServices } from './bootstrap.js';
import { loadCatalogFile } from './catalog/load.js';
import { mirrorOptions } from './ingest/build.js';
import { PortalFront } from './portal/front.js';
import { PassThrough } from './portal/pass-through.js';
import { PassThroughCache } from './portal/pass-through-cache.js';
import { refreshMirrors } from './portal/refresh.js';
import type { Settings } from './settings.js';

/**
 * Standing in front of a portal, when one is named (COUNTCENTRE_PORTAL_URL, or the catalogue of `mirror --all`): the
 * pass-through and, in the process that loads, what keeps the copy in step with the portal (polls, writes read back).
 */
function standInFront(
  settings: Settings,
  logger: Logger,
  load: boolean,
  refreshed: () => Promise<unknown>,
): { front: FrontOptions; portal: PortalFront | null } | null {
  const catalog = loadCatalogFile(settings.catalog);
  const url = settings.portalUrl ?? catalog.portal?.url ?? null;
  if (url === null) return null;
  const scope = catalog.portal?.url === url ? catalog.portal : null;
  let portal: PortalFront | null = null;
  const passThrough: PassThrough = new PassThrough({
    portal: url,
    timeoutMs: settings.portalTimeoutSeconds * 1000,
    bodyLimitBytes: settings.portalBodyLimitMb * 1024 * 1024,
    cache: new PassThroughCache(settings.portalCacheMb * 1024 * 1024, settings.portalCacheSeconds * 1000),
    writeWaitMs: settings.portalWriteWaitSeconds * 1000,
    onWrite: (write) => portal?.copyWrite(write).then(() => undefined) ?? Promise.resolve(),
    onWriteProblem: (write, problem) =>
      logger.warn({ write }, `a write passed to the portal (${write.action}) is not read back yet: ${problem}`),
  });
  if (load) {
    portal = new PortalFront(
      settings,
      scope ?? { url, organizations: [], excludeOrganizations: [], maxRows: null, tokenEnv: null },
      logger,
      { refreshed, forget: () => passThrough.forget() },
      { wholePortal: scope !== null },
    );
    if (scope) portal.start();
  }
  return { front: { passThrough, explorerPath: settings.explorerPath ?? '/explore/' }, portal };
}

/** Loads (unless a primary already did), then serves until told to stop. */
async function serveHere(settings: Settings, logger: Logger, load: boolean): Promise<void> {
  const prepared = await prepareServices(settings, logger, { load, mirror: mirrorOptions(settings) });
  const served = prepared.services.catalog.resources.filter((r) => r.dataset !== null);
  const inFront = standInFront(settings, logger, load, () => prepared.state.refresh());
  // In front of a portal, a copy with nothing in it still passes every request on.
  if (served.length === 0 && !inFront) {
    logger.fatal('no resource could be loaded; nothing to serve');
    process.exit(1);
  }
  const app = await buildApp(prepared.state, logger, inFront?.front ?? null);
  const stopRefreshing = load ? refreshMirrors(settings, logger) : () => {};
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stopRefreshing();
    inFront?.portal?.stop();
    await app.close();
    await prepared.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  const address = await app.listen({ port: settings.port, host: settings.host });
  logger.info(
    {
      ...(inFront ? { portal: inFront.front.passThrough.portal.href, explorer: inFront.front.explorerPath } : {}),
      store: prepared.description,
      resources: served.map((r) => `${r.id} (${r.total} records)`),
      datasetVersion: prepared.services.backend.datasetVersion,
    },
    `serving on ${address}`,
  );
}

/** Loads once, then keeps N workers serving; a worker that dies unexpectedly is replaced. */
async function supervise(settings: Settings, logger: Logger): Promise<void> {
  const prepared = await prepareServices(settings, logger, {
    load: settings.loadOnStart,
    mirror: mirrorOptions(settings),
  });
  const scope = loadCatalogFile(settings.catalog).portal;
  if (prepared.services.catalog.resources.every((r) => r.dataset === null) && !scope) {
    logger.fatal('no resource could be loaded; nothing to serve');
    process.exit(1);
  }
  await prepared.close();
  const stopRefreshing = settings.loadOnStart ? refreshMirrors(settings, logger) : () => {};
  // The primary loads, so it polls a whole portal; the workers follow each load through the store, and forget the
  // portal's answers they kept within their own lifetime (COUNTCENTRE_PORTAL_CACHE_SECONDS).
  const poll =
    settings.loadOnStart && scope && (settings.portalUrl ?? scope.url) === scope.url
      ? new PortalFront(settings, scope, logger, { refreshed: async () => {}, forget: () => {} })
      : null;
  poll?.start();
  let stopping = false;
  const fork = () => cluster.fork({ COUNTCENTRE_WORKER: '1' });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error({ pid: worker.process.pid, code, signal }, 'worker exited; starting another');
    setTimeout(fork, 500);
  });
  for (let i = 0; i < settings.workers; i++) fork();
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    stopRefreshing();
    poll?.stop();
    logger.info({ signal, workers: settings.workers }, 'shutting down workers');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** Serves with these settings: one process, or a primary and its workers. */
export function runServer(settings: Settings, logger: Logger): Promise<void> {
  if (cluster.isPrimary && settings.workers > 1) return supervise(settings, logger);
  return serveHere(settings, logger, cluster.isPrimary && settings.loadOnStart);
}
