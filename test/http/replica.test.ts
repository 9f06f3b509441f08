// Count Centre reading from a real streaming replica (test/helpers/replica.ts: a primary and a replica made by
// pg_basebackup -R, replaying WAL), through HTTP: reads go to the replica; a load published on the primary is read
// from the primary until the replica has replayed it, then from the replica again; with the replica stopped, every
// answer still comes (from the primary), never a 5xx, and /healthz names the replica; started again, it is read again.

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
import { buildPendingIndexes } from '../../src/ingest/indexes.js';
import { storageFor } from '../../src/stores.js';
import { replicaUnavailable, startReplicaPair, type ReplicaPair } from '../helpers/replica.js';
import { httpCall, silentLogger, TEST_BACKENDS, testSettings } from '../helpers/service.js';
import { tallyCsv, writeTallyCatalog } from '../helpers/tally.js';

const TALLY = '33333333-0000-4000-8000-0000000000aa';
const skip = !TEST_BACKENDS.includes('postgres')
  ? 'PostgreSQL is not among the backends tested'
  : (replicaUnavailable() ?? false);

describe('a real streaming replica [postgres]', { skip }, () => {
  let dir: string;
  let pair: ReplicaPair;
  let prepared: Awaited<ReturnType<typeof prepareServices>>;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let port: number;
  const database = 'countcentre';

  /** Loads the tally with `rows` records into the primary, as `count-centre load` would. */
  async function load(rows: number) {
    writeFileSync(path.join(dir, 'tally.csv'), tallyCsv(rows));
    const settings = testSettings({
      catalog: path.join(dir, 'catalog.json'),
      sources: dir,
      databaseUrl: pair.primary.url(database),
    });
    const target = storageFor(settings).loadTarget();
    try {
      await buildDatabase({ catalog: loadCatalogFile(settings.catalog), sources: dir, target, logger: silentLogger });
      // As `count-centre load` does: the indexes too, so that no build follows while the test watches the reads.
      await buildPendingIndexes(target);
    } finally {
      await target.close();
    }
  }

  /**
   * When a server last began a statement for the service's searches: the latest start among its search connections
   * (pg_stat_activity is live; the cumulative statistics reach their counters only seconds after a statement).
   */
  const lastSearch = async (cluster: ReplicaPair['primary']) => {
    const [row] = await cluster.query<{ at: Date | null }>(
      `SELECT max(query_start) AS at FROM pg_stat_activity WHERE datname = $1 AND application_name = 'count-centre'`,
      [database],
    );
    return row?.at?.getTime() ?? 0;
  };
  /** Which servers ran the searches `work` asks for. */
  const ranOn = async (work: () => Promise<void>) => {
    const [primary, replica] = [await lastSearch(pair.primary), await lastSearch(pair.replica)];
    await work();
    return { primary: (await lastSearch(pair.primary)) > primary, replica: (await lastSearch(pair.replica)) > replica };
  };
  const health = async () => {
    const answer = await httpCall(port, '/healthz');
    return { status: answer.statusCode, detail: JSON.parse(answer.body).detail as string };
  };
  /** A search no earlier request asked (the response cache is off too), so each reaches a store. */
  let asked = 0;
  const page = async () => {
    asked += 1;
    const answer = await httpCall(
      port,
      `/api/3/action/datastore_search?resource_id=${TALLY}&limit=${asked}&sort=Votes%20desc`,
    );
    assert.equal(answer.statusCode, 200, answer.body);
    return JSON.parse(answer.body).result as { total: number; records: unknown[] };
  };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-real-replica-'));
    writeTallyCatalog(dir, TALLY);
    pair = await startReplicaPair();
    await pair.primary.query(`CREATE DATABASE ${database}`);
    await load(3);
    await pair.caughtUp();
    const settings = testSettings({
      catalog: path.join(dir, 'catalog.json'),
      sources: dir,
      databaseUrl: pair.primary.url(database),
      databaseReadUrls: [pair.replica.url(database)],
      // Every search reaches a store: no answers remembered, no table kept in memory.
      loadOnStart: false,
      responseCacheMb: 0,
      residentMb: 0,
    });
    prepared = await prepareServices(settings, silentLogger, { load: false });
    app = await buildApp(prepared.state, silentLogger);
    port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
  });
  after(async () => {
    await app?.close();
    await prepared?.close();
    await pair?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('reads go to the replica', async () => {
    assert.deepEqual(await health(), { status: 200, detail: 'database reachable' });
    assert.deepEqual(
      await ranOn(async () => {
        for (let i = 0; i < 10; i++) assert.equal((await page()).total, 3);
      }),
      { primary: false, replica: true },
    );
  });

  test('a load on the primary is read from the primary until the replica has replayed it, then from the replica', async () => {
    await pair.replica.query('SELECT pg_wal_replay_pause()');
    try {
      await load(4);
      await prepared.refresh();
      assert.deepEqual(await health(), { status: 200, detail: 'primary reachable; replica 1 behind' });
      assert.deepEqual(
        await ranOn(async () => {
          for (let i = 0; i < 3; i++) {
            const result = await page();
            assert.equal(result.total, 4, 'the new version, from the primary');
            assert.equal(result.records.length, Math.min(asked, 4), 'records of the same version as the total');
          }
        }),
        { primary: true, replica: false },
      );
    } finally {
      await pair.replica.query('SELECT pg_wal_replay_resume()');
    }
    await pair.caughtUp();
    await prepared.refresh();
    assert.deepEqual(await health(), { status: 200, detail: 'database reachable' });
    assert.deepEqual(
      await ranOn(async () => {
        for (let i = 0; i < 5; i++) assert.equal((await page()).total, 4);
      }),
      { primary: false, replica: true },
    );
  });

  test('with the replica stopped, answers keep coming from the primary and /healthz names it; started again, it is read again', async () => {
    await pair.replica.stop();
    try {
      const started = Date.now();
      for (let i = 0; i < 8; i++) assert.equal((await page()).total, 4);
      assert.ok(Date.now() - started < 10_000, 'no request waited long on the stopped replica');
      const { status, detail } = await health();
      assert.equal(status, 200);
      assert.equal(detail, 'primary reachable; replica 1 unreachable');
    } finally {
      await pair.replica.start();
    }
    await pair.caughtUp();
    // A replica that failed is tried again a few seconds later.
    const deadline = Date.now() + 15_000;
    let detail = '';
    while (Date.now() < deadline) {
      await page();
      detail = (await health()).detail;
      if (detail === 'database reachable') break;
      await delay(250);
    }
    assert.equal(detail, 'database reachable');
    assert.deepEqual(
      await ranOn(async () => {
        for (let i = 0; i < 5; i++) assert.equal((await page()).total, 4);
      }),
      { primary: false, replica: true },
    );
  });
});
