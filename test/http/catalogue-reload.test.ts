// A running server follows catalogue changes published by a load in another process (as `npm run load` beside
// `npm start`), on both stores, without a restart: a new resource, a removed one, a renamed field, a changed type and
// a changed title each reach every action at once — records, fields, totals, the catalogue actions, dumps, SQL and
// entity tags — and while the load runs every answer is wholly the old version or wholly the new.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { buildDatabase } from '../../src/ingest/build.js';
import { buildPendingIndexes } from '../../src/ingest/indexes.js';
import { storageFor } from '../../src/stores.js';
import { silentLogger, startService, TEST_BACKENDS, type TestService } from '../helpers/service.js';

const TALLY = '44444444-0000-4000-8000-000000000001';
const SEATS = '44444444-0000-4000-8000-000000000002';

interface Entry {
  title?: string;
  tallyFields?: { id: string; type: string; column?: string }[];
  withSeats?: boolean;
}

function catalogue({
  title = 'Tally',
  tallyFields = [
    { id: 'Name', type: 'text' },
    { id: 'Votes', type: 'numeric' },
  ],
  withSeats = false,
}: Entry) {
  const resources: unknown[] = [{ id: TALLY, name: title, source: { path: 'tally.csv' }, fields: tallyFields }];
  if (withSeats)
    resources.push({
      id: SEATS,
      name: 'Seats',
      source: { path: 'seats.csv' },
      fields: [
        { id: 'Place', type: 'text' },
        { id: 'Seats', type: 'int4' },
      ],
    });
  return { datasets: [{ name: 'tally', title: `${title} dataset`, resources }] };
}

for (const backend of TEST_BACKENDS)
  describe(`a running server follows catalogue changes [${backend}]`, () => {
    let dir: string;
    let service: TestService;

    const write = (entry: Entry) => writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify(catalogue(entry)));
    /** A load run beside the server, as `npm run load` in another process would. */
    const load = async () => {
      const target = storageFor(service.settings).loadTarget();
      try {
        const result = await buildDatabase({
          catalog: loadCatalogFile(service.settings.catalog),
          sources: dir,
          target,
          logger: silentLogger,
        });
        // As `count-centre load` does: the indexes too, which the server would otherwise build meanwhile.
        await buildPendingIndexes(target);
        return result;
      } finally {
        await target.close();
      }
    };
    /**
     * Waits for the server to switch by itself (a file watch or notification, or its poll), as it does in production.
     */
    const switched = async (from: string) => {
      const started = Date.now();
      while (Date.now() - started < 8000) {
        const health = await service.getJson('/healthz');
        if (health.body.dataset_version !== from) return Date.now() - started;
        await delay(20);
      }
      assert.fail('the server did not switch to the new version within 8 s');
    };
    const version = async () => (await service.getJson('/healthz')).body.dataset_version as string;
    const search = (id: string, extra = '') =>
      service.getJson(`/api/3/action/datastore_search?resource_id=${id}${extra}`);
    const sql = (statement: string) =>
      service.getJson(`/api/3/action/datastore_search_sql?sql=${encodeURIComponent(statement)}`);

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-catalogue-reload-'));
      writeFileSync(path.join(dir, 'tally.csv'), 'Name,Votes\r\nAine,10\r\nBrid,20\r\nCian,30\r\n');
      writeFileSync(path.join(dir, 'seats.csv'), 'Place,Seats\r\nCork,5\r\nGalway,3\r\n');
      write({});
      service = await startService(
        { catalog: path.join(dir, 'catalog.json'), sources: dir, databasePath: path.join(dir, 'store.sqlite') },
        backend,
      );
    });
    after(async () => {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('a new resource is served by every action once the load is published', async () => {
      assert.equal((await search(SEATS)).status, 404);
      const before = await version();
      write({ withSeats: true });
      const result = await load();
      assert.deepEqual(
        result.outcomes.map((o) => [o.id, o.status]),
        [
          [TALLY, 'unchanged'],
          [SEATS, 'loaded'],
        ],
      );
      const waited = await switched(before);
      assert.ok(waited < 8000);

      const page = await search(SEATS);
      assert.equal(page.status, 200);
      assert.deepEqual(page.body.result.records, [
        { _id: 1, Place: 'Cork', Seats: 5 },
        { _id: 2, Place: 'Galway', Seats: 3 },
      ]);
      assert.equal(page.body.result.total, 2);
      assert.deepEqual(
        (await service.getJson('/api/3/action/package_show?id=tally')).body.result.resources.map(
          (r: { id: string }) => r.id,
        ),
        [TALLY, SEATS],
      );
      assert.equal((await service.getJson(`/api/3/action/resource_show?id=${SEATS}`)).body.result.name, 'Seats');
      assert.deepEqual(
        (await service.getJson(`/api/3/action/datastore_info?id=${SEATS}`)).body.result.fields.map(
          (f: { id: string }) => f.id,
        ),
        ['Place', 'Seats'],
      );
      assert.equal(
        (await service.request(`/datastore/dump/${SEATS}`)).body,
        '_id,Place,Seats\r\n1,Cork,5\n2,Galway,3\n',
      );
      assert.deepEqual((await sql(`SELECT sum("Seats") AS seats FROM "${SEATS}"`)).body.result.records, [{ seats: 8 }]);
      const tables = await search('_table_metadata', '&fields=name&sort=name');
      assert.deepEqual(
        tables.body.result.records.map((r: { name: string }) => r.name),
        [TALLY, SEATS].sort(),
      );
    });

    test('a renamed field: records, fields, filters, sorts, dumps and SQL all use the new name', async () => {
      const before = await version();
      const etag = (await service.request(`/api/3/action/datastore_search?resource_id=${TALLY}`)).headers.etag;
      write({
        withSeats: true,
        tallyFields: [
          { id: 'Candidate', type: 'text', column: 'Name' },
          { id: 'Votes', type: 'numeric' },
        ],
      });
      assert.deepEqual(
        (await load()).outcomes.map((o) => o.status),
        ['loaded', 'unchanged'],
      );
      await switched(before);

      const page = await search(TALLY, '&sort=Votes%20desc&limit=1');
      assert.deepEqual(page.body.result.fields, [
        { id: '_id', type: 'int' },
        { id: 'Candidate', type: 'text' },
        { id: 'Votes', type: 'numeric' },
      ]);
      assert.deepEqual(page.body.result.records, [{ _id: 3, Candidate: 'Cian', Votes: 30 }]);
      assert.notEqual(page.raw.headers.etag, etag);
      const oldName = await search(TALLY, `&filters=${encodeURIComponent('{"Name": "Aine"}')}`);
      assert.equal(oldName.status, 409);
      assert.deepEqual(oldName.body.error, { filters: ['Unknown field: Name'], __type: 'Validation Error' });
      const newName = await search(TALLY, `&filters=${encodeURIComponent('{"Candidate": "Aine"}')}`);
      assert.deepEqual(newName.body.result.records, [{ _id: 1, Candidate: 'Aine', Votes: 10 }]);
      assert.equal(
        (await service.request(`/datastore/dump/${TALLY}`)).body,
        '_id,Candidate,Votes\r\n1,Aine,10\n2,Brid,20\n3,Cian,30\n',
      );
      assert.deepEqual((await sql(`SELECT "Candidate" FROM "${TALLY}" WHERE "Votes" = 20`)).body.result.records, [
        { Candidate: 'Brid' },
      ]);
      const oldSql = await sql(`SELECT "Name" FROM "${TALLY}"`);
      assert.equal(oldSql.status, 409);
      assert.doesNotMatch(JSON.stringify(oldSql.body), /sqlite|SqliteError/i);
    });

    test('a changed type: values, fields and comparisons follow it', async () => {
      const before = await version();
      write({
        withSeats: true,
        tallyFields: [
          { id: 'Candidate', type: 'text', column: 'Name' },
          { id: 'Votes', type: 'text' },
        ],
      });
      await load();
      await switched(before);
      const page = await search(TALLY, '&sort=Votes%20desc&limit=1');
      assert.deepEqual(
        page.body.result.fields.map((f: { type: string }) => f.type),
        ['int', 'text', 'text'],
      );
      assert.deepEqual(page.body.result.records, [{ _id: 3, Candidate: 'Cian', Votes: '30' }]);
      const info = await service.getJson(`/api/3/action/datastore_info?id=${TALLY}`);
      assert.deepEqual(
        info.body.result.fields.map((f: { type: string }) => f.type),
        ['text', 'text'],
      );
    });

    test('a changed title: the catalogue actions and entity tags change, the data is not reloaded', async () => {
      const before = await version();
      const etag = (await service.request(`/api/3/action/package_show?id=tally`)).headers.etag;
      write({
        title: 'Count',
        withSeats: true,
        tallyFields: [
          { id: 'Candidate', type: 'text', column: 'Name' },
          { id: 'Votes', type: 'text' },
        ],
      });
      const result = await load();
      assert.deepEqual(
        result.outcomes.map((o) => o.status),
        ['unchanged', 'unchanged'],
      );
      await switched(before);
      const dataset = await service.request(`/api/3/action/package_show?id=tally`);
      assert.equal(JSON.parse(dataset.body).result.title, 'Count dataset');
      assert.notEqual(dataset.headers.etag, etag);
      assert.equal((await service.getJson(`/api/3/action/resource_show?id=${TALLY}`)).body.result.name, 'Count');
    });

    test('a removed resource: 404 everywhere, and gone from the lists', async () => {
      const before = await version();
      write({
        title: 'Count',
        tallyFields: [
          { id: 'Candidate', type: 'text', column: 'Name' },
          { id: 'Votes', type: 'text' },
        ],
      });
      await load();
      await switched(before);
      assert.equal((await search(SEATS)).status, 404);
      assert.equal((await service.request(`/datastore/dump/${SEATS}`)).statusCode, 404);
      assert.equal((await service.getJson(`/api/3/action/resource_show?id=${SEATS}`)).status, 404);
      assert.deepEqual(
        (await service.getJson('/api/3/action/package_show?id=tally')).body.result.resources.map(
          (r: { id: string }) => r.id,
        ),
        [TALLY],
      );
      const removedSql = await sql(`SELECT * FROM "${SEATS}"`);
      assert.equal(removedSql.status, 409, JSON.stringify(removedSql.body));
    });

    test('while a renaming load is published, every answer is wholly one version', async () => {
      const names = [
        ['Candidate', 'Name'],
        ['Name', 'Candidate'],
      ];
      for (const [from, to] of names) {
        const before = await version();
        write({
          tallyFields: [
            { id: to!, type: 'text', column: 'Name' },
            { id: 'Votes', type: 'numeric' },
          ],
        });
        const loading = load();
        let done = false;
        void loading.finally(() => {
          done = true;
        });
        let answers = 0;
        const check = async () => {
          const [page, dump] = await Promise.all([
            search(TALLY, '&limit=2'),
            service.request(`/datastore/dump/${TALLY}?limit=1`),
          ]);
          assert.equal(page.status, 200, JSON.stringify(page.body));
          const fieldIds = page.body.result.fields.map((f: { id: string }) => f.id);
          for (const record of page.body.result.records)
            assert.deepEqual(Object.keys(record), fieldIds, 'records and fields of one version');
          assert.ok([from, to].includes(fieldIds[1]));
          assert.equal(dump.statusCode, 200);
          assert.ok(dump.body.startsWith(`_id,${from},Votes`) || dump.body.startsWith(`_id,${to},Votes`), dump.body);
          answers += 1;
        };
        while (!done) {
          await Promise.all([check(), check()]);
          // Answers from the response cache complete without I/O; let the loader's own I/O proceed in between.
          await delay(2);
        }
        await loading;
        await switched(before);
        await check();
        assert.ok(answers > 2);
        assert.equal((await search(TALLY)).body.result.fields[1].id, to);
      }
    });
  });
