#!/usr/bin/env node
// The loader as a command: brings the embedded database in line with the catalogue and sources, prints what
// it did per resource, and exits non-zero when any resource failed to load.

import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadCatalogFile } from '../catalog/load.js';
import { loadSettings } from '../settings.js';
import { storageFor } from '../stores.js';
import { buildDatabase } from './build.js';

const USAGE = `Usage: count-centre-load [--force] [--catalog FILE] [--sources DIR|URL] [--db FILE]

Loads the catalogue's resources from their sources into the embedded database, rebuilding it only when a
source or the catalogue changed (or with --force). Settings default to the environment (COUNTCENTRE_CATALOG,
COUNTCENTRE_SOURCES, COUNTCENTRE_DB). Exits with status 1 if a resource failed to load; a resource that was
loaded before keeps its previous data.`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      force: { type: 'boolean', default: false },
      catalog: { type: 'string' },
      sources: { type: 'string' },
      db: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const env = { ...process.env };
  if (values.catalog) env.COUNTCENTRE_CATALOG = values.catalog;
  if (values.sources) env.COUNTCENTRE_SOURCES = values.sources;
  if (values.db) env.COUNTCENTRE_DB = values.db;
  const settings = loadSettings(env);
  const logger = pino({ level: settings.logLevel === 'info' ? 'warn' : settings.logLevel });
  const storage = storageFor(settings);
  const target = storage.loadTarget();
  const result = await buildDatabase({ catalog: loadCatalogFile(settings.catalog), sources: settings.sources, target, logger, force: values.force })
    .finally(() => target.close());
  console.log(result.rebuilt ? `database rebuilt: ${storage.description}` : `database up to date: ${storage.description}`);
  for (const outcome of result.outcomes) {
    const rows = outcome.rows === null ? '' : ` (${outcome.rows} records)`;
    console.log(`  ${outcome.status.padEnd(13)} ${outcome.id}  ${outcome.name}${rows}${outcome.error ? `\n                ${outcome.error}` : ''}`);
  }
  return result.outcomes.some((o) => o.status === 'failed' || o.status === 'kept-previous') ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(2);
  },
);
