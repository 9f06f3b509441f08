// Process entry point: settings → data loaded → HTTP server listening; with --workers N (or WORKERS=N), the primary
// loads the data once and N worker processes share the port (node's cluster). Stops cleanly on SIGINT/SIGTERM.

import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { pino, type Logger } from 'pino';
import { buildApp } from './app.js';
import { prepareServices } from './bootstrap.js';
import { loadSettings, SettingsError, type Settings } from './settings.js';

function readSettings(): Settings {
  const { values } = parseArgs({ options: { workers: { type: 'string' } }, strict: false });
  const env = { ...process.env };
  if (typeof values.workers === 'string') env.WORKERS = values.workers;
  return loadSettings(env);
}

/** Loads (unless a primary already did), then serves until told to stop. */
async function serve(settings: Settings, logger: Logger, load: boolean): Promise<void> {
  const prepared = await prepareServices(settings, logger, { load });
  const served = prepared.services.catalog.resources.filter((r) => r.dataset !== null);
  if (served.length === 0) {
    logger.fatal('no resource could be loaded; nothing to serve');
    process.exit(1);
  }
  const app = await buildApp(prepared.services, logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app.close();
    await prepared.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  const address = await app.listen({ port: settings.port, host: settings.host });
  logger.info({
    store: prepared.description,
    resources: served.map((r) => `${r.id} (${r.total} records)`),
    datasetVersion: prepared.services.backend.datasetVersion,
  }, `serving on ${address}`);
}

/** Loads once, then keeps N workers serving; a worker that dies unexpectedly is replaced. */
async function supervise(settings: Settings, logger: Logger): Promise<void> {
  const prepared = await prepareServices(settings, logger, { load: settings.loadOnStart });
  if (prepared.services.catalog.resources.every((r) => r.dataset === null)) {
    logger.fatal('no resource could be loaded; nothing to serve');
    process.exit(1);
  }
  await prepared.close();
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
    logger.info({ signal, workers: settings.workers }, 'shutting down workers');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

async function main(): Promise<void> {
  const settings = readSettings();
  const logger = pino({ level: settings.logLevel, base: { pid: process.pid } });
  if (cluster.isPrimary && settings.workers > 1) return supervise(settings, logger);
  return serve(settings, logger, cluster.isPrimary && settings.loadOnStart);
}

main().catch((err: unknown) => {
  console.error(err instanceof SettingsError || !(err instanceof Error) ? String(err instanceof Error ? err.message : err) : err.message);
  process.exit(1);
});
