// Process entry point: settings → database up to date → HTTP server listening; stops cleanly on SIGINT/SIGTERM.

import { pino } from 'pino';
import { buildApp } from './app.js';
import { prepareServices } from './bootstrap.js';
import { loadSettings } from './settings.js';

async function main(): Promise<void> {
  const settings = loadSettings();
  const logger = pino({ level: settings.logLevel, base: { pid: process.pid } });
  const prepared = await prepareServices(settings, logger);
  const served = prepared.services.catalog.resources;
  if (served.length === 0) {
    logger.fatal('no resource could be loaded; nothing to serve');
    process.exit(1);
  }
  const app = await buildApp({ ...prepared.services, logger });
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
  await app.listen({ port: settings.port, host: settings.host });
  logger.info({ resources: served.map((r) => `${r.id} (${r.total} records)`), datasetVersion: prepared.services.backend.datasetVersion }, `serving on http://${settings.host}:${settings.port}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
