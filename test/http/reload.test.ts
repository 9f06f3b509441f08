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
import { silentLogger, startService, TEST_BACKENDS, testSettings, type TestService } from '../helpers/service.js';

const TALLY = '33333333-0000-4000-8000-000000000001';

function tallyCsv(rows: number): string {
  return 'Name,Votes\r\n' + Array.from({ length: rows }, (_, i) => `Candidate ${i + 1},${1000 + i}\r\n`).join('');
}

for (const backend of TEST_BACKENDS) describe(`loading while serving [${backend}]`, () => {
  let dir: string;
  let service: TestService;
  const search = `/api/3/action/datastore_search?resource_id=${TALLY}&sort=Votes%20desc&limit=2`;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-reload-'));
    writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify({
      datasets: [{ name: 'tally', resources: [{
        id: TALLY, name: 'Tally', source: { path: 'tally.csv' },
        fields: [{ id: 'Name', type: 'text' }, { id: 'Votes', type: 'numeric', index: true }],
      }] }],
    }));
    writeFileSync(path.join(dir, 'tally.csv'), tallyCsv(3));
    service = await startService({ catalog: path.join(dir, 'catalog.json'), sources: dir, databasePath: path.join(dir, 'tally.sqlite') }, backend);
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
    const load = buildDatabase({ catalog: loadCatalogFile(service.settings.catalog), sources: dir, target, logger: silentLogger })
      .finally(() => {
        loading = false;
        return target.close();
      });
    const totals = new Set<number>();
    let requests = 0;
    while (loading) {
      const [page, sql] = await Promise.all([
        service.getJson(search),
        service.getJson(`/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT count(*) AS n FROM "${TALLY}"`)}`),
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
    assert.deepEqual(result.outcomes.map((o) => [o.status, o.rows]), [['loaded', 4]]);
    assert.ok(requests >= 2);
    for (const total of totals) assert.ok(total === 3 || total === 4, `saw a total of ${total}`);

    assert.equal(await service.prepared.refresh(), true);
    assert.equal(await service.prepared.refresh(), false, 'nothing new the second time');
    const after = await service.getJson(search);
    assert.equal(after.body.result.total, 4);
    assert.deepEqual(after.body.result.records.map((r: { Name: string }) => r.Name), ['Candidate 4', 'Candidate 3']);
    assert.notEqual(after.raw.headers.etag, oldTag);
    const revalidated = await service.request({ method: 'GET', url: search, headers: { 'if-none-match': oldTag } });
    assert.equal(revalidated.statusCode, 200, 'the old entity tag no longer matches');
    const sql = await service.getJson(`/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT count(*) AS n FROM "${TALLY}"`)}`);
    assert.deepEqual(sql.body.result.records, [{ n: 4 }]);
    const dump = await service.request(`/datastore/dump/${TALLY}`);
    assert.equal(dump.body, '_id,Name,Votes\r\n1,Candidate 1,1000\n2,Candidate 2,1001\n3,Candidate 3,1002\n4,Candidate 4,1003\n');
  });

  test('COUNTCENTRE_LOAD_ON_START=false: serves the store as loaded (above), without reading the sources', async () => {
    const settings = testSettings({
      ...service.settings, sources: path.join(dir, 'no-such-folder'), loadOnStart: false,
    });
    const prepared = await prepareServices(settings, silentLogger, { load: settings.loadOnStart });
    try {
      assert.equal(prepared.build, null);
      const app = await buildApp(prepared.services, silentLogger);
      const response = await app.inject(search);
      assert.equal(response.statusCode, 200);
      assert.equal(JSON.parse(response.body).result.total, 4);
      assert.equal(response.body, (await service.request(search)).body);
      await app.close();
    } finally {
      await prepared.close();
    }
  });
});
