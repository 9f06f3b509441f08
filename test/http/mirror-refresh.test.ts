// A serving process keeps its mirrors fresh by itself (COUNTCENTRE_MIRROR_REFRESH_SECONDS): after an upstream change it
// copies, verifies and publishes the new data, and every answer while it does is wholly the old copy or wholly the
// new one. A table the portal is reloading in chunks is never served half-loaded. An upstream that stops answering
// leaves the last good copy serving. Each refresh cycle logs one line at info. On both stores.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { planMirror } from '../../src/cli/mirror.js';
import { FakeCkan, gonePrivate, SAMPLE_FIELDS, sampleRecords } from '../helpers/fake-ckan.js';
import { folderEnv, startServerProcess, type ServerProcess } from '../helpers/processes.js';
import { createTestDatabase, httpCall, TEST_BACKENDS } from '../helpers/service.js';

/** The server's JSON log lines so far. */
function logLines(server: ServerProcess): { level: number; msg: string }[] {
  return server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string });
}

for (const backend of TEST_BACKENDS)
  describe(`a serving process refreshes its mirrors [${backend}]`, () => {
    let dir: string;
    let portal: FakeCkan;
    let server: ServerProcess;
    let database: { url: string; drop(): Promise<void> } | null = null;

    const page = async () => {
      const response = await httpCall(
        server.port,
        `/api/3/action/datastore_search?resource_id=${portal.resourceId}&limit=1000`,
      );
      assert.equal(response.statusCode, 200, response.body);
      return JSON.parse(response.body).result as { total: number; records: { _id: number; Name: string }[] };
    };

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-mirror-refresh-'));
      portal = await new FakeCkan({
        version: '2.12',
        sql: false,
        rowsMax: 50,
        fields: SAMPLE_FIELDS,
        records: sampleRecords(200),
      }).start();
      const catalog = path.join(dir, 'catalog.json');
      writeFileSync(
        catalog,
        (await planMirror({ portal: portal.url, ids: [portal.datasetName] }, catalog)).catalogText,
      );
      if (backend === 'postgres') database = await createTestDatabase();
      const env = {
        ...folderEnv(dir, { catalog, databaseUrl: database?.url }),
        COUNTCENTRE_MIRROR_REFRESH_SECONDS: '1',
        COUNTCENTRE_MIRROR_SETTLE_SECONDS: '1',
      };
      server = await startServerProcess(env);
    });
    after(async () => {
      await server?.stop();
      await portal?.stop();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('the first copy is served, as upstream has it', async () => {
      const first = await page();
      assert.equal(first.total, 200);
      assert.deepEqual(
        first.records.map((r) => r._id),
        portal.records.map((r) => r._id),
      );
    });

    test('an upstream change is copied and published by the server itself; every answer meanwhile is one copy or the other', async () => {
      const oldNames = new Set(portal.records.map((r) => r.Name));
      portal.records = [
        ...portal.records.slice(10).map((r) => ({ ...r, Name: `${r.Name} (new)` })),
        ...sampleRecords(30, 1000),
      ];
      const newTotal = portal.records.length;
      const started = Date.now();
      let seenOld = 0;
      let seenNew = 0;
      for (;;) {
        const answer = await page();
        const allOld =
          answer.total === 200 && answer.records.length === 200 && answer.records.every((r) => oldNames.has(r.Name));
        const allNew =
          answer.total === newTotal &&
          answer.records.length === newTotal &&
          answer.records.every((r) => r.Name.endsWith('(new)') || r._id >= 1000);
        assert.ok(
          allOld || allNew,
          `an answer mixing the two copies: total ${answer.total}, ${answer.records.length} records`,
        );
        if (allOld) seenOld += 1;
        if (allNew) seenNew += 1;
        if (allNew && seenNew >= 3) break;
        assert.ok(Date.now() - started < 20_000, 'the new copy was published within 20 s');
        await delay(10);
      }
      assert.ok(seenOld > 0, 'the previous copy served until the new one was verified');
    });

    test('a DataPusher-style reload (the table re-created, 5,015 records sent 250 at a time) is never served half-loaded', async () => {
      const before = await page();
      const reloaded = sampleRecords(5015, 5000).map((r) => ({ ...r, Name: `${r.Name} (reloaded)` }));
      let over = false;
      const reload = portal
        .reloadInChunks(portal.tables[0]!, reloaded, { chunk: 250, pauseMs: 150 })
        .then(() => void (over = true));
      let seenOld = 0;
      let seenNew = 0;
      const started = Date.now();
      for (;;) {
        const answer = await page();
        const allOld =
          answer.total === before.total && JSON.stringify(answer.records) === JSON.stringify(before.records);
        const allNew =
          answer.total === 5015 &&
          answer.records.length === 1000 &&
          answer.records.every((r) => r.Name.endsWith('(reloaded)'));
        assert.ok(
          allOld || allNew,
          `a half-loaded table was served: total ${answer.total}, ${answer.records.length} records`,
        );
        if (allOld) seenOld += 1;
        if (allNew) {
          assert.ok(over, 'the new table was published only once the reload was over');
          seenNew += 1;
        }
        if (seenNew >= 3) break;
        assert.ok(Date.now() - started < 30_000, 'the reloaded table was published within 30 s');
        await delay(20);
      }
      await reload;
      assert.ok(seenOld > 50, `the last complete copy served throughout the reload (${seenOld} answers)`);
      const waiting = logLines(server).filter(
        (l) =>
          l.level === 40 &&
          /^not copied now: .*; still serving the last complete copy \(220 records, loaded /.test(l.msg),
      );
      assert.ok(
        waiting.length >= 1,
        `the log says why the last complete copy serves: ${JSON.stringify(
          logLines(server)
            .filter((l) => l.level >= 40)
            .map((l) => l.msg),
        )}`,
      );
    });

    test('each refresh cycle logs exactly one line at info: checked N, changed M, next in S', async () => {
      // A change copied at once (no settling for an append) leaves fewer cycles behind the tests before: a few more
      // are waited for.
      const cyclesSoFar = () =>
        logLines(server)
          .filter((l) => l.level === 30)
          .filter((l) => /^mirrors: /.test(l.msg)).length;
      const started = Date.now();
      while (cyclesSoFar() < 5 && Date.now() - started < 20_000) await delay(200);
      const lines = logLines(server);
      const serving = lines.findIndex((l) => /^serving on /.test(l.msg));
      const info = lines.slice(serving + 1).filter((l) => l.level === 30);
      const cycles = info.filter((l) => /^mirrors: /.test(l.msg));
      assert.ok(cycles.length >= 5, `${cycles.length} cycles logged`);
      for (const line of cycles)
        assert.match(
          line.msg,
          /^mirrors: checked 1, changed [01], next in [01] s( \(1 waiting for a reload to finish\))?$/,
        );
      assert.ok(
        cycles.some((l) => l.msg.startsWith('mirrors: checked 1, changed 0, next in')),
        'a cycle that found nothing changed says so',
      );
      assert.ok(cycles.some((l) => l.msg.startsWith('mirrors: checked 1, changed 1, next in')));
      assert.deepEqual(
        info
          .filter((l) => !cycles.includes(l))
          .map((l) => l.msg)
          .filter((m) => m !== 'data reloaded; now serving the new version'),
        [],
        'nothing else at info but the serving side picking up new data',
      );
    });

    test('the upstream gone private: the last good copy keeps serving', async () => {
      const before = await page();
      portal.faults = [gonePrivate()];
      const requestsBefore = portal.seen.length;
      const started = Date.now();
      while (portal.seen.length === requestsBefore || Date.now() - started < 2500) await delay(100);
      assert.ok(portal.seen.length > requestsBefore, 'the server probed the portal');
      assert.deepEqual(await page(), before);
      portal.faults = [];
    });
  });
