// Incremental refresh against the fake CKAN portal: an append, an edit and a deletion upstream are found by comparing
// block hashes (the portal's own through datastore_search_sql, or sampled blocks without it) and patched into the
// store, reading only the changed blocks; a schema change or too many changes copy the table whole. Every patched copy
// is checked through the API against a fresh whole copy of the same upstream, answer for answer, on each store.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { planMirror } from '../../src/cli/mirror.js';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { buildDatabase, type BuildResult } from '../../src/ingest/build.js';
import { loadSettings } from '../../src/settings.js';
import { storageFor } from '../../src/stores.js';
import { FakeCkan, PATCHING_MIRROR, SAMPLE_FIELDS, sampleRecords, type FakeOptions } from '../helpers/fake-ckan.js';
import { createTestDatabase, servedBodies, silentLogger, TEST_BACKENDS } from '../helpers/service.js';

/** What each check asks of the copy: every record, a full-text search, a filter and a sort on indexed fields. */
const QUERIES = [
  'limit=1000',
  'limit=1000&q=Name',
  'limit=1000&q=Appended',
  'limit=1000&filters=%7B%22Notes%22%3A%22%22%7D',
  'limit=5&sort=Votes%20desc',
  'limit=1000&q=Edited',
];

for (const backend of TEST_BACKENDS) {
  describe(`incremental refresh of a mirror [${backend}]`, () => {
    let dir: string;
    let portal: FakeCkan;
    const databases: { url: string; drop(): Promise<void> }[] = [];

    beforeEach(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-mirror-incremental-'));
    });
    afterEach(async () => {
      await portal?.stop();
      for (const database of databases.splice(0)) await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A store of its own (a file, or a database): `name` tells the patched one from the fresh copy. */
    async function store(name: string) {
      const database = backend === 'postgres' ? await createTestDatabase() : null;
      if (database) databases.push(database);
      return loadSettings(
        {},
        {
          catalog: path.join(dir, 'catalog.json'),
          sources: dir,
          databasePath: path.join(dir, `${name}.sqlite`),
          logLevel: 'silent',
          ...(database ? { databaseUrl: database.url } : {}),
        },
      );
    }

    async function start(options: Partial<FakeOptions>) {
      portal = await new FakeCkan({
        version: '2.10',
        sql: true,
        rowsMax: 1000,
        fields: SAMPLE_FIELDS,
        // 150 records, more than the probe's last 100: with blocks of 10 (PATCHING_MIRROR) one change is one block,
        // and a patch may take up to 45 records.
        records: sampleRecords(150),
        ...options,
      }).start();
      await writeCatalog();
    }

    async function writeCatalog() {
      writeFileSync(
        path.join(dir, 'catalog.json'),
        (await planMirror({ portal: portal.url, ids: [portal.datasetName] }, path.join(dir, 'catalog.json')))
          .catalogText,
      );
    }

    async function load(
      settings: ReturnType<typeof loadSettings>,
      mirror: Record<string, unknown> = {},
    ): Promise<BuildResult> {
      const target = storageFor(settings).loadTarget();
      return buildDatabase({
        catalog: loadCatalogFile(settings.catalog),
        sources: dir,
        target,
        logger: silentLogger,
        mirror: { ...PATCHING_MIRROR, ...mirror },
      }).finally(() => target.close());
    }

    /** The API's whole answers to QUERIES, with the version-dependent parts (none in these bodies) as they are. */
    const answers = (settings: ReturnType<typeof loadSettings>) =>
      servedBodies(
        settings,
        QUERIES.map((query) => `/api/3/action/datastore_search?resource_id=${portal.resourceId}&${query}`),
      );

    /**
     * The patched store answers as a fresh whole copy of the same upstream does, and a further refresh finds nothing.
     */
    async function sameAsFreshCopy(patched: ReturnType<typeof loadSettings>): Promise<string[]> {
      const fresh = await store('fresh');
      const copy = await load(fresh);
      assert.equal(copy.outcomes[0]!.status, 'loaded');
      const theirs = await answers(fresh);
      const ours = await answers(patched);
      assert.deepEqual(ours, theirs);
      const again = await load(patched);
      assert.deepEqual(
        again.outcomes.map((o) => [o.status, o.rows]),
        [['unchanged', portal.records.length]],
        'the patch recorded the fingerprint its data matches',
      );
      return ours;
    }

    /** Requests that read records (pages, blocks, the dump) since `from`, as [action, records asked for]. */
    const reads = (from: number) =>
      portal.seen
        .slice(from)
        .filter(
          (r) =>
            r.action === 'dump' ||
            (r.action === 'datastore_search_sql' && /WHERE "_id" > \d+ AND/.test(String(r.params.sql))) ||
            (r.action === 'datastore_search' && r.params.filters && Array.isArray(r.params.filters._id)),
        );

    test('one record appended: only its block is read, and patched in', async () => {
      await start({});
      const settings = await store('patched');
      await load(settings);
      const sent = portal.seen.length;
      portal.records = [...portal.records, { ...sampleRecords(1, 200)[0]!, Name: 'Appended Ó Súilleabháin' }];
      const result = await load(settings);
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.method]),
        [['loaded', 151, 'patch (datastore_search_sql hashes)']],
      );
      assert.deepEqual(
        reads(sent).map((r) => r.params.sql),
        [
          `SELECT "_id", "Name", "Votes", "Share", "Big", "Seen", "Notes" FROM "${portal.resourceId}" WHERE "_id" > 200 AND "_id" <= 210 ORDER BY "_id" LIMIT 10000`,
        ],
      );
      const bodies = await sameAsFreshCopy(settings);
      assert.equal(JSON.parse(bodies[2]!).result.total, 1, 'the appended record is found by full-text search');
    });

    test("one record edited in the middle (the count and the last records unchanged): the portal's hashes see it; its block is read again", async () => {
      await start({});
      const settings = await store('patched');
      await load(settings);
      const sent = portal.seen.length;
      portal.records[20] = { ...portal.records[20]!, Name: 'Edited', Votes: 7 };
      const result = await load(settings);
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.method]),
        [['loaded', 150, 'patch (datastore_search_sql hashes)']],
      );
      assert.equal(reads(sent).length, 1);
      const bodies = await sameAsFreshCopy(settings);
      assert.deepEqual(
        JSON.parse(bodies[5]!).result.records.map((r: { _id: number }) => r._id),
        [portal.records[20]!._id],
      );
      assert.equal(JSON.parse(bodies[1]!).result.total, 149, 'the edited record is no longer found by its old name');
    });

    test('one record deleted: it is gone, and the total with it', async () => {
      await start({});
      const settings = await store('patched');
      await load(settings);
      const gone = portal.records[70]!._id;
      portal.records = portal.records.filter((r) => r._id !== gone);
      const result = await load(settings);
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.method]),
        [['loaded', 149, 'patch (datastore_search_sql hashes)']],
      );
      const bodies = await sameAsFreshCopy(settings);
      const all = JSON.parse(bodies[0]!).result as { total: number; records: { _id: number }[] };
      assert.equal(all.total, 149);
      assert.ok(!all.records.some((r) => r._id === gone));
    });

    test('an append, an edit and a deletion at once, without datastore_search_sql: sampled blocks find them', async () => {
      // A rows_max below the block size: a block is read in as many requests as it takes.
      await start({ sql: false, rowsMax: 4 });
      const settings = await store('patched');
      await load(settings);
      const sent = portal.seen.length;
      const last = portal.records.length - 1;
      const maxId = portal.records[last]!._id;
      const appended = { ...sampleRecords(1, maxId + 1)[0]!, Name: 'Appended' };
      portal.records[last] = { ...portal.records[last]!, Name: 'Edited' };
      portal.records = [...portal.records.filter((r) => r._id !== portal.records[last - 1]!._id), appended];
      const result = await load(settings);
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.method]),
        [['loaded', 150, 'patch (sampled blocks)']],
      );
      const newBlocks = Math.floor((appended._id - 1) / 10) - Math.floor((maxId - 1) / 10) + 1;
      assert.equal(
        reads(sent).length,
        1 + 3 * (newBlocks + PATCHING_MIRROR.sampleBlocks),
        'the last blocks (the edit, the deletion, the append) and the sampled ones are read, 4 records a request',
      );
      assert.ok(!portal.seen.slice(sent).some((r) => r.action === 'dump'), 'no copy of the whole table');
      await sameAsFreshCopy(settings);
    });

    test('without datastore_search_sql, a deletion outside the sampled blocks does not add up: copied whole', async () => {
      await start({ sql: false });
      const settings = await store('patched');
      await load(settings);
      portal.records = portal.records.filter((_, i) => i !== 3);
      const result = await load(settings, { sampleBlocks: 0 });
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.method]),
        [['loaded', 149, 'dump']],
      );
      await sameAsFreshCopy(settings);
    });

    test('the upstream changing while the blocks are read: the patch is not published; the table is copied whole', async () => {
      await start({});
      const settings = await store('patched');
      await load(settings);
      portal.records = [...portal.records, sampleRecords(1, 200)[0]!];
      let appended = false;
      portal.afterPage = () => {
        if (appended) return;
        appended = true;
        portal.records = [...portal.records, sampleRecords(1, 300)[0]!];
      };
      const result = await load(settings, { attempts: 2, retryWaitMs: 1 });
      portal.afterPage = null;
      assert.ok(appended, 'the portal changed while the patch read its blocks');
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.method]),
        [['loaded', 152, 'dump']],
        result.outcomes[0]!.error ?? '',
      );
      await sameAsFreshCopy(settings);
    });

    test("only the resource's metadata moved: no block differs, nothing is read, and the new checksum is recorded", async () => {
      await start({});
      const settings = await store('patched');
      await load(settings);
      const sent = portal.seen.length;
      portal.tables[0]!.modified = '2026-11-20T09:00:00.000000';
      const result = await load(settings);
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.method]),
        [['loaded', 150, 'patch (datastore_search_sql hashes)']],
      );
      assert.deepEqual(reads(sent), []);
      await sameAsFreshCopy(settings);
    });

    test('too many changes: copied whole', async () => {
      await start({});
      const settings = await store('patched');
      await load(settings);
      portal.records = portal.records.map((r, i) => (i % 2 === 0 ? { ...r, Name: `Edited ${r._id}` } : r));
      const result = await load(settings);
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.method]),
        [['loaded', 150, 'dump']],
      );
      await sameAsFreshCopy(settings);
    });

    test('a field added upstream (and taken by `count-centre mirror`): copied whole, with it', async () => {
      await start({});
      const settings = await store('patched');
      await load(settings);
      portal.tables[0]!.fields = [...SAMPLE_FIELDS, { id: 'Extra', type: 'text' }];
      portal.records = portal.records.map((r) => ({ ...r, Extra: `x${r._id}` }));
      await writeCatalog();
      const result = await load(settings);
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.method]),
        [['loaded', 150, 'dump']],
      );
      const bodies = await sameAsFreshCopy(settings);
      assert.equal(JSON.parse(bodies[0]!).result.records[0].Extra, 'x1');
    });
  });
}
