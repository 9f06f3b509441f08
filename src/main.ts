// Process entry point of `npm start` (and of `count-centre serve`): reads the settings, then loads and serves
// (src/serve.ts). `--workers N` is WORKERS=N.

import './node-version.js';
import { parseArgs } from 'node:util';
import { createLogger } from './logging.js';
import { runServer } from './serve.js';
import { loadSettings, SettingsError } from './settings.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { workers: { type: 'string' } }, strict: false });
  const env = { ...process.env };
  if (typeof values.workers === 'string') env.WORKERS = values.workers;
  const settings = loadSettings(env);
  await runServer(settings, createLogger(settings));
}

main().catch((err: unknown) => {
  console.error(
    err instanceof SettingsError || !(err instanceof Error)
      ? String(err instanceof Error ? err.message : err)
      : err.message,
  );
  process.exit(1);
});
