// Loading while serving, on both backends: a load run beside a serving process (as `npm run load` would) never
// fails a request or shows half-loaded data; the process then serves the new version — new answers, new entity
// tags, nothing stale from the response cache — and a process started without loading serves a store loaded
// elsewhere, without the source files.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { buildApp } from '../../src/app.js';
import { prepareServices } from '../../src/bootstrap.js';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { buildDatabase } from '../../src/ingest/build.js';
import { storageFor } from '../../src/stores.js';
import {
  createTestDatabase,
  httpCall,
  silentLogger,
  startService,
  TEST_BACKENDS,
  testSettings,
  type TestService,
} from '../helpers/service.js';
import { tallyCsv, writeTallyCatalog } from '../helpers/tally.js';

const TALLY = '33333333-0000-4000-8000-000000000001';

for (const backend of TEST_BACKENDS)
  describe(`loading while serving [${backend}]`, () => {
    let dir: string;
    let service: TestService;
    const search = `/api/3/action/datastore_search?resource_id=${TALLY}&sort=Votes%20desc&limit=2`;

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-reload-'));
      writeTallyCatalog(dir, TALLY, { votesIndexed: true });
      writeFileSync(path.join(dir, 'tally.csv'), tallyCsv(3));
      service = await startService(
        { catalog: path.join(dir, 'catalog.json'), sources: dir, databasePath: path.join(dir, 'tally.sqlite') },
        backend,
      );
    });
    after(async () => {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('a load beside the server: every request answered, old or new, never partial; then the new version', async () => {
      const first = await service.getJson(search);
      assert.equal(first.status, 200);
      assert.equal(first.body.result.total, 3);
      const oldTag = first.raw.headers.etag as string;
      assert.match(oldTag, /^(W\/)?"[^"]+"$/);
      assert.equal((await service.request(search)).body, first.raw.body, 'a repeated request, answered from the cache');

      writeFileSync(path.join(dir, 'tally.csv'), tallyCsv(4));
      const target = storageFor(service.settings).loadTarget();
      let loading = true;
      const load = buildDatabase({
        catalog: loadCatalogFile(service.settings.catalog),
        sources: dir,
        target,
        logger: silentLogger,
      }).finally(() => {
        loading = false;
        return target.close();
      });
      const totals = new Set<number>();
      let requests = 0;
      while (loading) {
        const [page, sql] = await Promise.all([
          service.getJson(search),
          service.getJson(
            `/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT count(*) AS n FROM "${TALLY}"`)}`,
          ),
        ]);
        assert.equal(page.status, 200, JSON.stringify(page.body));
        assert.equal(sql.status, 200, JSON.stringify(sql.body));
        assert.equal(page.body.result.records.length, 2);
        totals.add(page.body.result.total);
        totals.add(sql.body.result.records[0].n);
        requests += 2;
        // Answers from the response cache complete without I/O; let the loader's own I/O proceed in between.
        await delay(2);
      }
      const result = await load;
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows]),
        [['loaded', 4]],
      );
      assert.ok(requests >= 2);
      for (const total of totals) assert.ok(total === 3 || total === 4, `saw a total of ${total}`);

      // As the poll (or, on PostgreSQL, the load's notification) would, whichever comes first.
      await service.prepared.refresh();
      const after = await service.getJson(search);
      assert.equal(after.body.result.total, 4);
      assert.deepEqual(
        after.body.result.records.map((r: { Name: string }) => r.Name),
        ['Candidate 4', 'Candidate 3'],
      );
      assert.notEqual(after.raw.headers.etag, oldTag);
      const revalidated = await service.request({ method: 'GET', url: search, headers: { 'if-none-match': oldTag } });
      assert.equal(revalidated.statusCode, 200, 'the old entity tag no longer matches');
      const sql = await service.getJson(
        `/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT count(*) AS n FROM "${TALLY}"`)}`,
      );
      assert.deepEqual(sql.body.result.records, [{ n: 4 }]);
      const dump = await service.request(`/datastore/dump/${TALLY}`);
      assert.equal(
        dump.body,
        '_id,Name,Votes\r\n1,Candidate 1,1000\n2,Candidate 2,1001\n3,Candidate 3,1002\n4,Candidate 4,1003\n',
      );
    });

    test('COUNTCENTRE_LOAD_ON_START=false: serves the store as loaded (above), without reading the sources', async () => {
      const settings = testSettings({
        ...service.settings,
        sources: path.join(dir, 'no-such-folder'),
        loadOnStart: false,
      });
      const prepared = await prepareServices(settings, silentLogger, { load: settings.loadOnStart });
      try {
        assert.equal(prepared.build, null);
        const app = await buildApp(prepared.state, silentLogger);
        const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
        const response = await httpCall(port, search);
        assert.equal(response.statusCode, 200);
        assert.equal(JSON.parse(response.body).result.total, 4);
        assert.equal(response.body, (await service.request(search)).body);
        await app.close();
      } finally {
        await prepared.close();
      }
    });
  });

describe(
  'a replica that has not replayed the latest load is not read [postgres]',
  { skip: !TEST_BACKENDS.includes('postgres') },
  () => {
    let dir: string;
    let primary: Awaited<ReturnType<typeof createTestDatabase>>;
    let replica: Awaited<ReturnType<typeof createTestDatabase>>;

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-replica-'));
      writeTallyCatalog(dir, TALLY);
      [primary, replica] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    });
    after(async () => {
      await Promise.all([primary.drop(), replica.drop()]);
      rmSync(dir, { recursive: true, force: true });
    });

    /**
     * Loads the tally with `rows` records into one database, standing in for the primary or a replica that replays it.
     */
    async function loadInto(url: string, rows: number) {
      writeFileSync(path.join(dir, 'tally.csv'), tallyCsv(rows));
      const settings = testSettings({ catalog: path.join(dir, 'catalog.json'), sources: dir, databaseUrl: url });
      const target = storageFor(settings).loadTarget();
      await buildDatabase({
        catalog: loadCatalogFile(settings.catalog),
        sources: dir,
        target,
        logger: silentLogger,
      }).finally(() => target.close());
    }

    test('reads move to the primary while the replica lags, and back once it has caught up', async () => {
      await loadInto(primary.url, 3);
      await loadInto(replica.url, 3);
      const settings = testSettings({
        catalog: path.join(dir, 'catalog.json'),
        sources: dir,
        databaseUrl: primary.url,
        databaseReadUrls: [replica.url],
        loadOnStart: false,
      });
      const prepared = await prepareServices(settings, silentLogger, { load: false });
      const app = await buildApp(prepared.state, silentLogger);
      const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
      const health = async () => JSON.parse((await httpCall(port, '/healthz')).body).detail as string;
      const page = async () =>
        JSON.parse((await httpCall(port, `/api/3/action/datastore_search?resource_id=${TALLY}`)).body).result;
      try {
        assert.equal(await health(), 'database reachable');
        assert.equal((await page()).total, 3);

        await loadInto(primary.url, 4);
        await prepared.refresh();
        assert.equal(await health(), 'primary reachable; replica 1 behind');
        for (let i = 0; i < 4; i++) {
          const result = await page();
          assert.equal(result.total, 4);
          assert.equal(result.records.length, 4, 'records from the primary, matching the total');
        }

        await loadInto(replica.url, 4);
        await prepared.refresh();
        assert.equal(await health(), 'database reachable');
        assert.equal((await page()).records.length, 4);
      } finally {
        await app.close();
        await prepared.close();
      }
    });

    test('a serving process hears of a load as soon as it is published, without waiting for its poll', async () => {
      await loadInto(primary.url, 5);
      const settings = testSettings({
        catalog: path.join(dir, 'catalog.json'),
        sources: dir,
        databaseUrl: primary.url,
      });
      const store = await storageFor(settings).openStore();
      try {
        let heard = 0;
        store.watch!(() => {
          heard += 1;
        });
        const listening = Date.now();
        while (heard === 0 && Date.now() - listening < 3000) await delay(10);
        assert.equal(heard, 1, 'one check once it listens, for anything published while it was not');
        const started = Date.now();
        await loadInto(primary.url, 6);
        while (heard === 1 && Date.now() - started < 5000) await delay(5);
        assert.equal(heard, 2);
        const latest = await store.openLatest();
        assert.ok(latest);
        store.serve(latest);
        assert.equal(store.current.resources.get(TALLY)!.total, 6);
      } finally {
        await store.close();
      }
    });
  },
);
