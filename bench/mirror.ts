// The mirror's copy speed: a Count Centre process serves the synthetic resource (bench/synthetic.ts) as a CKAN
// portal, and the resource is mirrored from it into an embedded store (or PostgreSQL with --pg URL), timed.
//   node dist/bench/mirror.js [--rows 1000000] [--methods sql,offset] [--pg postgres://…]

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { planMirror } from '../src/cli/mirror.js';
import { loadCatalogFile } from '../src/catalog/load.js';
import { buildDatabase } from '../src/ingest/build.js';
import type { PagingMethod } from '../src/ingest/ckan/mirror.js';
import { loadSettings } from '../src/settings.js';
import { storageFor } from '../src/stores.js';
import { SYNTHETIC_RESOURCE_ID, writeSynthetic } from './synthetic.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, methods: { type: 'string' }, pg: { type: 'string' } } });
  const rows = Number(values.rows);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'countcentre-bench-mirror-'));
  try {
    console.log(`generating ${rows.toLocaleString('en-IE')} records`);
    const synthetic = writeSynthetic({ rows, outDir: path.join(tmp, 'upstream') });
    console.log('loading them into the upstream');
    const upstream = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli', 'count-centre.js'), 'serve'], {
      env: {
        ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', COUNTCENTRE_LOG_FORMAT: 'json', COUNTCENTRE_REQUEST_LOG_LEVEL: 'debug',
        COUNTCENTRE_CATALOG: synthetic.catalogPath, COUNTCENTRE_SOURCES: path.dirname(synthetic.csvPath), COUNTCENTRE_DB: path.join(tmp, 'upstream.sqlite'),
        COUNTCENTRE_SQL_TIMEOUT_MS: '10000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      let output = '';
      upstream.stdout!.on('data', (chunk) => {
        output += String(chunk);
        const match = /"msg":"serving on http:\/\/127\.0\.0\.1:(\d+)"/.exec(output);
        if (match) resolve(Number(match[1]));
      });
      upstream.once('exit', (code) => reject(new Error(`the upstream exited (${code})`)));
    });
    upstream.stdout!.resume();
    try {
      const catalog = path.join(tmp, 'mirror', 'catalog.json');
      const settings = loadSettings({}, {
        catalog, sources: path.join(tmp, 'mirror'), databasePath: path.join(tmp, 'mirror', 'store.sqlite'), databaseUrl: values.pg ?? null, logLevel: 'silent',
      });
      rmSync(path.dirname(catalog), { recursive: true, force: true });
      await import('node:fs').then((fs) => fs.mkdirSync(path.dirname(catalog), { recursive: true }));
      const plan = await planMirror({ portal: `http://127.0.0.1:${port}/`, ids: [SYNTHETIC_RESOURCE_ID] }, catalog);
      writeFileSync(catalog, plan.catalogText);
      const target = storageFor(settings).loadTarget();
      const methods = values.methods ? values.methods.split(',') as PagingMethod[] : undefined;
      let pages = 0;
      const started = performance.now();
      const result = await buildDatabase({
        catalog: loadCatalogFile(catalog), sources: settings.sources, target, logger: pino({ level: 'warn' }),
        mirror: { ...(methods ? { methods } : {}), onPage: () => void (pages += 1) },
      }).finally(() => target.close());
      const seconds = (performance.now() - started) / 1000;
      const outcome = result.outcomes[0]!;
      console.log(JSON.stringify({
        store: values.pg ? 'postgres' : 'sqlite', rows: outcome.rows, status: outcome.status, method: outcome.method, pages,
        seconds: Math.round(seconds * 10) / 10, rowsPerSecond: Math.round((outcome.rows ?? 0) / seconds), error: outcome.error,
      }));
    } finally {
      upstream.kill('SIGTERM');
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
