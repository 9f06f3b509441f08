// A 1,000,000-record dump streams, on both stores: the server's memory barely moves, every record arrives, and a
// client that goes away stops the work. The server runs as its own process so that its memory and CPU can be read
// from /proc.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { parseCatalog } from '../../src/catalog/load.js';
import { buildDatabase } from '../../src/ingest/build.js';
import { PROJECT_ROOT } from '../../src/settings.js';
import { storageFor } from '../../src/stores.js';
import { createTestDatabase, silentLogger, TEST_BACKENDS, TEST_TMP, testSettings } from '../helpers/service.js';

const ROWS = 1_000_000;
const RESOURCE = 'synthetic-dump-test';
const dir = path.join(TEST_TMP, 'dump-large');
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];

async function writeSource(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write('Code,Value,Label\n');
  for (let i = 1; i <= ROWS; i++) {
    if (!out.write(`R${String(i).padStart(7, '0')},${i % 9973},${WORDS[i % 8]} ${WORDS[(i * 7) % 8]}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Resident memory (VmRSS) and its peak (VmHWM) in bytes, and CPU time in clock ticks, of a process. */
function processStats(pid: number): { rss: number; peak: number; cpuTicks: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), cpuTicks: Number(stat[11]) + Number(stat[12]) };
}

for (const backend of TEST_BACKENDS) describe(`a 1,000,000-record dump [${backend}]`, { timeout: 300_000 }, () => {
  let server: ChildProcess;
  let port: number;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;

  before(async () => {
    mkdirSync(dir, { recursive: true });
    const catalog = {
      datasets: [{
        name: 'synthetic', resources: [{
          id: RESOURCE, name: 'Synthetic records', source: { path: 'records.csv' },
          fields: [{ id: 'Code', type: 'text', index: false }, { id: 'Value', type: 'numeric', index: false }, { id: 'Label', type: 'text', index: false }],
        }],
      }],
    };
    writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify(catalog));
    await writeSource(path.join(dir, 'records.csv'));
    database = backend === 'postgres' ? await createTestDatabase() : null;
    const settings = testSettings({ databasePath: path.join(dir, 'store.sqlite'), ...(database ? { databaseUrl: database.url } : {}) });
    // Loaded here, so that the server process only ever reads: its memory is then the serving's alone.
    const target = storageFor(settings).loadTarget();
    await buildDatabase({ catalog: parseCatalog(catalog), sources: dir, target, logger: silentLogger }).finally(() => target.close());
    server = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'src', 'main.js')], {
      env: {
        ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', COUNTCENTRE_LOAD_ON_START: 'false',
        COUNTCENTRE_CATALOG: path.join(dir, 'catalog.json'), COUNTCENTRE_SOURCES: dir, COUNTCENTRE_DB: path.join(dir, 'store.sqlite'),
        ...(database ? { DATABASE_URL: database.url } : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    for await (const chunk of server.stdout!) {
      output += String(chunk);
      const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        port = Number(match[1]);
        break;
      }
    }
    assert.ok(port, 'the server started');
  });

  after(async () => {
    if (server && server.exitCode === null) {
      server.kill();
      await once(server, 'exit');
    }
    await database?.drop();
  });

  test('streams every record while the server\'s memory grows by less than 50 MB', async () => {
    const before = processStats(server.pid!);
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/datastore/dump/${RESOURCE}`);
    assert.equal(response.status, 200);
    let lines = 0;
    let tail = '';
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      for (const byte of chunk) if (byte === 10) lines++;
      tail = Buffer.from(chunk).toString('latin1').slice(-40);
    }
    const seconds = (performance.now() - started) / 1000;
    const afterDump = processStats(server.pid!);
    const growth = afterDump.peak - before.rss;
    assert.equal(lines, ROWS + 1, 'a header line and one line per record');
    assert.match(tail, /\n1000000,R1000000,\d+,\w+ \w+\n$/);
    assert.ok(growth < 50 * 1024 * 1024, `RSS grew by ${(growth / 1048576).toFixed(1)} MB`);
    // Reported, not asserted: speed depends on the machine.
    console.log(`# dump [${backend}]: ${ROWS} records in ${seconds.toFixed(2)} s (${Math.round(ROWS / seconds)} records/s), RSS +${(growth / 1048576).toFixed(1)} MB`);
  });

  test('a client that disconnects stops the work', async () => {
    const cpuBefore = processStats(server.pid!).cpuTicks;
    await new Promise<void>((resolve, reject) => {
      const req = request(`http://127.0.0.1:${port}/datastore/dump/${RESOURCE}?format=json`, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
      req.end();
    });
    await new Promise((r) => setTimeout(r, 300));
    const settled = processStats(server.pid!).cpuTicks;
    await new Promise((r) => setTimeout(r, 1000));
    const later = processStats(server.pid!).cpuTicks;
    // A dump that kept running would take about a second of CPU here (1,000,000 records).
    assert.ok(later - settled < 15, `the server used ${later - settled} ticks of CPU after the client left`);
    assert.ok(settled - cpuBefore < 100, 'and little before it noticed');
    const still = await fetch(`http://127.0.0.1:${port}/api/3/action/datastore_search?resource_id=${RESOURCE}&limit=1`);
    assert.equal(still.status, 200, 'and it serves on');
  });
});
