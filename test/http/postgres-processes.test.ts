// PostgreSQL deployments: several API processes against one database answer byte for byte alike; a cluster of
// workers shares one port; and when the database goes away requests get 503 quickly, then service resumes by itself.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { Relay } from '../helpers/relay.js';
import { buildDatabase } from '../../src/ingest/build.js';
import { buildPendingIndexes } from '../../src/ingest/indexes.js';
import { PROJECT_ROOT } from '../../src/settings.js';
import { PostgresLoadTarget } from '../../src/storage/postgres/loader.js';
import {
  createTestDatabase,
  DATA_DIR,
  RESOURCE_A,
  RESOURCE_B,
  RESOURCE_C,
  silentLogger,
  startService,
  TEST_BACKENDS,
  type TestService,
} from '../helpers/service.js';

const enabled = TEST_BACKENDS.includes('postgres');

interface Server {
  process: ChildProcess;
  port: number;
  pids: Set<number>;
}

/** Starts `npm start`'s program with the given environment and waits until `workers` processes listen. */
async function startServer(env: Record<string, string>, workers = 1): Promise<Server> {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'src', 'main.js')], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const pids = new Set<number>();
  let port = 0;
  let output = '';
  for await (const chunk of child.stdout!) {
    output += String(chunk);
    for (const match of output.matchAll(/"pid":(\d+)[^\n]*"msg":"serving on http:\/\/127\.0\.0\.1:(\d+)"/g)) {
      pids.add(Number(match[1]));
      port = Number(match[2]);
    }
    if (pids.size >= workers) break;
  }
  child.stdout!.resume();
  assert.ok(port > 0, 'the server started');
  return { process: child, port, pids };
}

const REQUESTS = [
  `/api/3/action/datastore_search?resource_id=${RESOURCE_A}`,
  `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&q=Dublin&limit=7`,
  `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&filters=${encodeURIComponent('{"Party Abbreviation": ["F.F.", "S.F."]}')}&sort=Votes desc&fields=Surname,Votes,rank&limit=5`,
  `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&fields=Party Id&distinct=true&records_format=csv`,
  `/api/3/action/datastore_search?resource_id=${RESOURCE_B}&records_format=lists`,
  `/api/3/action/datastore_search?resource_id=${RESOURCE_C}&q=${encodeURIComponent('{"Constituency Name": "Galway"}')}&offset=10&limit=3`,
  `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&sort=Nope`,
  `/api/3/action/datastore_info?id=${RESOURCE_B}`,
  `/api/3/action/package_show?id=general-election-2020`,
  `/datastore/dump/${RESOURCE_B}?format=xml`,
  `/datastore/dump/${RESOURCE_A}?q=Cork&fields=Surname,Votes`,
];

describe(
  'PostgreSQL processes',
  { skip: enabled ? false : 'PostgreSQL is not among COUNTCENTRE_TEST_BACKENDS', timeout: 120_000 },
  () => {
    let database: Awaited<ReturnType<typeof createTestDatabase>>;
    const servers: Server[] = [];

    before(async () => {
      if (!enabled) return;
      database = await createTestDatabase();
      const target = new PostgresLoadTarget({
        url: database.url,
        schemas: { data: 'countcentre', public: 'public' },
        readerRole: 'countcentre_reader',
      });
      await buildDatabase({
        catalog: loadCatalogFile(path.join(PROJECT_ROOT, 'catalog.json')),
        sources: DATA_DIR,
        target,
        logger: silentLogger,
      });
      // As `count-centre load` does: the indexes too, so that both processes serve the same version from the start.
      await buildPendingIndexes(target);
    });

    after(async () => {
      for (const server of servers) server.process.kill('SIGTERM');
      await Promise.all(
        servers.map(
          (s) =>
            new Promise((resolve) => (s.process.exitCode !== null ? resolve(null) : s.process.once('exit', resolve))),
        ),
      );
      await database?.drop();
    });

    test('two API processes against one database give byte-identical answers', async () => {
      const env = { DATABASE_URL: database.url, PORT: '0', SITE_URL: 'https://data.example.ie' };
      const [first, second] = [await startServer(env), await startServer(env)];
      servers.push(first!, second!);
      assert.notEqual(first!.port, second!.port);
      for (const url of REQUESTS) {
        const [a, b] = await Promise.all([first!, second!].map((s) => fetch(`http://127.0.0.1:${s.port}${url}`)));
        assert.equal(a!.status, b!.status, url);
        assert.equal(a!.headers.get('content-type'), b!.headers.get('content-type'));
        assert.equal(a!.headers.get('etag'), b!.headers.get('etag'), `${url}: the same entity tag`);
        assert.ok(
          Buffer.from(await a!.arrayBuffer()).equals(Buffer.from(await b!.arrayBuffer())),
          `${url}: the same bytes`,
        );
      }
    });

    test('--workers 2: two processes share one port', async () => {
      const cluster = await startServer({ DATABASE_URL: database.url, PORT: '0', WORKERS: '2' }, 2);
      servers.push(cluster);
      assert.equal(cluster.pids.size, 2, 'two workers are serving');
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${cluster.port}${REQUESTS[0]}`)),
      );
      assert.ok(answers.every((r) => r.status === 200));
    });
  },
);

describe(
  'PostgreSQL going away',
  { skip: enabled ? false : 'PostgreSQL is not among COUNTCENTRE_TEST_BACKENDS', timeout: 60_000 },
  () => {
    let service: TestService;
    const relay = new Relay();

    before(async () => {
      if (!enabled) return;
      await relay.open();
      const database = await createTestDatabase();
      const url = new URL(database.url);
      url.port = String(relay.port);
      service = await startService({ databaseUrl: url.toString() }, 'sqlite');
      const close = service.close.bind(service);
      service.close = async () => {
        await close();
        await database.drop();
      };
    });
    after(async () => {
      await service?.close();
      await relay.cut();
    });

    test('503 in the error envelope while the database is unreachable, then recovery without a restart', async () => {
      const search = `/api/3/action/datastore_search?resource_id=${RESOURCE_B}&limit=1`;
      // Asked twice: the response cache keeps an answer the second time it is made.
      for (let i = 0; i < 2; i++) assert.equal((await service.request(search)).statusCode, 200);
      assert.equal((await service.getJson('/healthz')).body.status, 'ok');

      await relay.cut();
      // An answer already in the response cache is still valid (the data has not changed) and is still given, and so
      // is a new search of a resource already held in memory: it is this version's data, whatever the database does.
      assert.equal((await service.request(search)).statusCode, 200);
      assert.equal((await service.request(`${search}&offset=1`)).statusCode, 200);
      // A resource that is not held yet has to be read from the database.
      const uncached = `/api/3/action/datastore_search?resource_id=${RESOURCE_C}&limit=1`;
      const started = Date.now();
      const down = await service.request(uncached);
      assert.ok(Date.now() - started < 5000, 'no hang');
      assert.equal(down.statusCode, 503);
      const body = JSON.parse(down.body);
      assert.deepEqual(Object.keys(body), ['help', 'error', 'success']);
      assert.equal(body.error.__type, 'Service Unavailable');
      assert.equal(down.headers.etag, undefined);
      const health = await service.getJson('/healthz');
      assert.equal(health.status, 503);
      assert.equal(health.body.status, 'unavailable');
      const dump = await service.request(`/datastore/dump/${RESOURCE_B}`);
      assert.equal(dump.statusCode, 503);

      await relay.open(relay.port);
      let recovered = false;
      for (let i = 0; i < 50 && !recovered; i++) {
        recovered = (await service.request(uncached)).statusCode === 200;
        if (!recovered) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(recovered, 'service resumed by itself');
      assert.equal((await service.getJson('/healthz')).body.status, 'ok');
    });
  },
);
