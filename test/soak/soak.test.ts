// Sustained load with a mix of real queries, on both stores, while a load published by another process swaps the
// data (renaming a field, adding records) and, on PostgreSQL, while the database connection is cut and restored. Every
// answer must be complete and consistent with one version of the data; the only errors allowed are the documented 503s
// while the database cannot be reached. The figures (requests, errors, p99) of each phase are reported.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test, type TestContext } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { PROJECT_ROOT } from '../../src/settings.js';
import { Relay } from '../helpers/relay.js';
import {
  createTestDatabase,
  httpCall,
  startService,
  TEST_BACKENDS,
  type TestResponse,
  type TestService,
} from '../helpers/service.js';

const run = promisify(execFile);
const TALLY = '55555555-0000-4000-8000-000000000001';
const PLACES = '55555555-0000-4000-8000-000000000002';
const PHASE_MS = Number(process.env.COUNTCENTRE_SOAK_PHASE_MS ?? 3000);
const CLIENTS = 6;

/** Version v of the tally: its size, the name of its candidate field and the marker every record carries. */
const VERSIONS = {
  1: { rows: 800, name: 'Name' },
  2: { rows: 1000, name: 'Candidate' },
} as const;
type Version = keyof typeof VERSIONS;

function catalogue(version: Version) {
  const { name } = VERSIONS[version];
  return {
    datasets: [
      {
        name: 'soak',
        title: `Soak v${version}`,
        resources: [
          {
            id: TALLY,
            name: `Tally v${version}`,
            source: { path: `tally-${version}.csv` },
            fields: [
              { id: name, type: 'text', column: 'Name' },
              { id: 'Votes', type: 'numeric' },
              { id: 'Marker', type: 'text' },
            ],
          },
          {
            id: PLACES,
            name: 'Places',
            source: { path: 'places.csv' },
            fields: [
              { id: 'Place', type: 'text' },
              { id: 'Seats', type: 'int4' },
            ],
          },
        ],
      },
    ],
  };
}

function tallyCsv(version: Version): string {
  return (
    'Name,Votes,Marker\r\n' +
    Array.from(
      { length: VERSIONS[version].rows },
      (_, i) => `Candidate ${i + 1},${(i * 37) % 5000},v${version}\r\n`,
    ).join('')
  );
}

interface Phase {
  name: string;
  requests: number;
  errors: string[];
  unavailable: number;
  latencies: number[];
  versions: Set<string>;
}

function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

/** The requests clients make: searches with filters and sorts, SQL, dumps, the catalogue. */
function nextRequest(i: number): string {
  switch (i % 7) {
    case 0:
      return `/api/3/action/datastore_search?resource_id=${TALLY}&limit=${1 + (i % 50)}&offset=${i % 700}`;
    case 1:
      return `/api/3/action/datastore_search?resource_id=${TALLY}&sort=Votes%20desc&limit=20&offset=${i % 300}`;
    case 2:
      return `/api/3/action/datastore_search?resource_id=${TALLY}&q=${i % 400}&limit=5`;
    case 3:
      return `/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT "Marker", count(*) AS n FROM "${TALLY}" WHERE "Votes" > ${i % 4000} GROUP BY 1`)}`;
    case 4:
      return `/datastore/dump/${TALLY}?limit=${5 + (i % 20)}&offset=${i % 500}`;
    case 5:
      return `/api/3/action/package_show?id=soak`;
    default:
      return `/api/3/action/datastore_search?resource_id=${PLACES}&limit=1&offset=${i % 3}`;
  }
}

/**
 * Whether an answer is complete and wholly one version: records, fields and total of the tally agree with each other
 * and with one version's data. Returns the version it saw (or '' when the answer names none), or throws.
 */
function versionOf(url: string, response: TestResponse): string {
  if (url.startsWith('/datastore/dump/')) {
    const lines = response.body.split('\n').filter(Boolean);
    const header = lines[0]!.trim();
    const version = header === '_id,Name,Votes,Marker' ? '1' : header === '_id,Candidate,Votes,Marker' ? '2' : null;
    assert.ok(version, `dump header ${header}`);
    for (const line of lines.slice(1))
      assert.ok(line.endsWith(`,v${version}`), `dump row ${line} in version ${version}`);
    return version;
  }
  const body = JSON.parse(response.body);
  assert.equal(body.success, true);
  const result = body.result;
  if (url.includes('package_show')) {
    const version = /^Soak v(\d)$/.exec(result.title)?.[1];
    assert.equal(result.resources.find((r: { id: string }) => r.id === TALLY).name, `Tally v${version}`);
    return version ?? '';
  }
  if (url.includes('datastore_search_sql')) {
    const markers = new Set<string>(result.records.map((r: { Marker: string }) => r.Marker));
    assert.ok(markers.size <= 1, `one version's rows: ${[...markers].join(', ')}`);
    return [...markers][0]?.slice(1) ?? '';
  }
  if (!url.includes(TALLY)) return '';
  const fieldIds = result.fields.map((f: { id: string }) => f.id);
  const version = fieldIds[1] === 'Name' ? '1' : fieldIds[1] === 'Candidate' ? '2' : null;
  assert.ok(version, `fields ${fieldIds.join(', ')}`);
  for (const record of result.records) {
    assert.deepEqual(Object.keys(record).slice(0, 4), fieldIds.slice(0, 4));
    assert.equal(record.Marker, `v${version}`);
  }
  if (!url.includes('&q=')) assert.equal(result.total, VERSIONS[Number(version) as Version].rows);
  return version;
}

for (const backend of TEST_BACKENDS)
  describe(`soak [${backend}]`, { timeout: 180_000 }, () => {
    let dir: string;
    let service: TestService;
    let relay: Relay | null = null;
    let databaseUrl: string | null = null;
    let dropDatabase: (() => Promise<void>) | null = null;
    const phases: Phase[] = [];

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-soak-'));
      for (const version of [1, 2] as Version[])
        writeFileSync(path.join(dir, `tally-${version}.csv`), tallyCsv(version));
      writeFileSync(path.join(dir, 'places.csv'), 'Place,Seats\r\nCork,5\r\nGalway,3\r\nKerry,5\r\n');
      writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify(catalogue(1)));
      const overrides = {
        catalog: path.join(dir, 'catalog.json'),
        sources: dir,
        databasePath: path.join(dir, 'soak.sqlite'),
        responseCacheMb: 1,
        pgPoolSize: 4,
        // The soak is about answers staying whole under load, not about the 1 s statement limit, which two busy cores
        // can reach with an honest GROUP BY (the limit has suites of its own).
        sqlTimeoutMs: 30_000,
      };
      if (backend === 'postgres') {
        // The server reaches PostgreSQL through a relay the test can cut; the loader reaches it directly.
        const database = await createTestDatabase();
        databaseUrl = database.url;
        dropDatabase = () => database.drop();
        relay = new Relay();
        await relay.open();
        service = await startService({ ...overrides, databaseUrl: relay.via(database.url) }, 'sqlite');
      } else {
        service = await startService(overrides, 'sqlite');
      }
    });
    after(async () => {
      await service?.close();
      await relay?.cut();
      await dropDatabase?.();
      rmSync(dir, { recursive: true, force: true });
    });

    /** Clients hammer the server for `ms` while `during` runs; every answer is checked. */
    async function phase(
      t: TestContext,
      name: string,
      ms: number,
      during: () => Promise<void> = async () => {},
      allow503 = false,
    ): Promise<Phase> {
      const result: Phase = { name, requests: 0, errors: [], unavailable: 0, latencies: [], versions: new Set() };
      let stop = false;
      let counter = 0;
      const client = async () => {
        while (!stop) {
          const url = nextRequest(counter++);
          const started = performance.now();
          let response: TestResponse;
          try {
            response = await Promise.race([
              httpCall(service.port, url),
              delay(10_000).then(() => Promise.reject(new Error('no answer within 10 s'))),
            ]);
          } catch (err) {
            result.errors.push(`${url}: no answer: ${(err as Error).message}`);
            continue;
          }
          result.latencies.push(performance.now() - started);
          result.requests += 1;
          if (response.statusCode === 503 && allow503) {
            result.unavailable += 1;
            assert.equal(JSON.parse(response.body).error.__type, 'Service Unavailable');
            continue;
          }
          if (response.statusCode !== 200) {
            result.errors.push(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
            continue;
          }
          try {
            const version = versionOf(url, response);
            if (version) result.versions.add(version);
          } catch (err) {
            result.errors.push(`${url}: ${(err as Error).message}`);
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, client);
      await Promise.all([during(), delay(ms)]);
      stop = true;
      await Promise.all(clients);
      t.diagnostic(
        `${backend} ${name}: ${result.requests} requests, ${result.errors.length} errors, ${result.unavailable} × 503, p99 ${p99(result.latencies).toFixed(1)} ms, versions seen ${[...result.versions].sort().join(', ')}`,
      );
      phases.push(result);
      return result;
    }

    /** `npm run load` in another process, as an operator would run it beside the server. */
    const loadElsewhere = async (version: Version) => {
      writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify(catalogue(version)));
      const env = {
        ...process.env,
        COUNTCENTRE_CATALOG: path.join(dir, 'catalog.json'),
        COUNTCENTRE_SOURCES: dir,
        COUNTCENTRE_DB: path.join(dir, 'soak.sqlite'),
        LOG_LEVEL: 'warn',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      };
      await run(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'count-centre-load.js')], { env });
    };

    test('steady load: every answer complete, none an error', async (t) => {
      const steady = await phase(t, 'steady', PHASE_MS);
      assert.deepEqual(steady.errors.slice(0, 5), []);
      assert.deepEqual([...steady.versions], ['1']);
    });

    test('a load published by another process in the middle: every answer wholly one version, no errors', async (t) => {
      const swapping = await phase(t, 'load in the middle', PHASE_MS * 2, async () => {
        await delay(PHASE_MS / 2);
        await loadElsewhere(2);
      });
      assert.deepEqual(swapping.errors.slice(0, 5), []);
      assert.ok(swapping.versions.has('2'), 'the new version was served before the phase ended');
      const settled = await phase(t, 'after the load', PHASE_MS / 2);
      assert.deepEqual(settled.errors.slice(0, 5), []);
      assert.deepEqual([...settled.versions], ['2']);
    });

    test(
      'the database connection cut and restored in the middle: only 503s while it is away, then full service',
      { skip: backend !== 'postgres' },
      async (t) => {
        const outage = await phase(
          t,
          'outage in the middle',
          PHASE_MS * 2,
          async () => {
            await delay(PHASE_MS / 2);
            await relay!.cut();
            await delay(PHASE_MS / 2);
            await relay!.open(relay!.port);
          },
          true,
        );
        assert.deepEqual(outage.errors.slice(0, 5), []);
        assert.ok(outage.unavailable > 0, 'the outage was seen');
        const recovered = await phase(t, 'after the outage', PHASE_MS);
        assert.deepEqual(recovered.errors.slice(0, 5), []);
        assert.ok(recovered.requests > 0);
      },
    );
  });
