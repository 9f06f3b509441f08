// Indexes after publication, on both stores: a load publishes a resource with its key and full-text index only; the
// field and composite indexes the catalogue declares are built afterwards on the published data (answers identical
// before and after, /healthz listing what is still to come), a process that starts builds what a load left, and a
// search of a large resource on a field without an index asks for one, which is built in the background.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { buildDatabase } from '../../src/ingest/build.js';
import { buildPendingIndexes } from '../../src/ingest/indexes.js';
import { storageFor } from '../../src/stores.js';
import { readPostgresMeta } from '../../src/storage/postgres/meta.js';
import type { Settings } from '../../src/settings.js';
import { folderEnv, runCli } from '../helpers/processes.js';
import { createTestDatabase, silentLogger, startService, TEST_BACKENDS, testSettings } from '../helpers/service.js';

const RESOURCE = '55555555-0000-4000-8000-000000000001';
const ROWS = 300;

const csv = () => {
  const lines = ['Name,Party,Votes'];
  for (let i = 1; i <= ROWS; i++) lines.push(`Candidate ${i},${['FF', 'FG', 'SF', 'LAB'][i % 4]},${(i * 37) % 1000}`);
  return lines.join('\n') + '\n';
};

const catalogue = (indexed: boolean) => ({
  datasets: [
    {
      name: 'tally',
      resources: [
        {
          id: RESOURCE,
          name: 'Tally',
          source: { path: 'tally.csv' },
          fields: [
            { id: 'Name', type: 'text', index: indexed },
            { id: 'Party', type: 'text', index: indexed },
            { id: 'Votes', type: 'int4', index: indexed },
          ],
          ...(indexed ? { indexes: [['Party', 'Votes']] } : {}),
        },
      ],
    },
  ],
});

/**
 * A service over this suite's own store: its settings name the store (DATABASE_URL for PostgreSQL), so the helper is
 * not asked for a database of its own.
 */
const serviceOn = (settings: Settings) => startService(settings, 'sqlite');

/** The field and composite indexes the store has on the resource's table(s), by the columns they cover. */
async function storeIndexes(settings: Settings): Promise<string[]> {
  if (!settings.databaseUrl) {
    const db = new Database(settings.databasePath, { readonly: true });
    try {
      const names = db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`)
        .pluck()
        .all(RESOURCE) as string[];
      return names
        .map((name) =>
          (
            db
              .prepare(
                `SELECT name || CASE WHEN "desc" THEN ' DESC' ELSE '' END FROM pragma_index_xinfo(?) WHERE key ORDER BY seqno`,
              )
              .pluck()
              .all(name) as string[]
          ).join('+'),
        )
        .sort();
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: settings.databaseUrl });
  await client.connect();
  try {
    // The published generation's table (and a split load's second one): earlier ones stay a while for old requests.
    const table = (await readPostgresMeta(client, settings.pgDataSchema))!.resources.get(RESOURCE)!.table;
    const rows = await client.query<{ def: string }>(
      `SELECT indexdef AS def FROM pg_indexes WHERE schemaname = $1 AND tablename IN ($2::text, $2::text || '+')`,
      [settings.pgDataSchema, table],
    );
    return rows.rows
      .map((r) => /\((.*?)\)(?: WITH \(fillfactor='100'\))?$/.exec(r.def)![1]!)
      .filter((columns) => columns !== '_id' && !columns.includes('_full_text'))
      .map((columns) =>
        columns
          .replace(/ COLLATE "C"/g, '')
          .replace(/"/g, '')
          .replace(/, /g, '+'),
      )
      .sort();
  } finally {
    await client.end();
  }
}

for (const backend of TEST_BACKENDS)
  describe(`indexes after publication [${backend}]`, () => {
    let dir: string;
    let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
    let settings: Settings;

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-indexes-'));
      writeFileSync(path.join(dir, 'tally.csv'), csv());
      writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify(catalogue(true)));
      database = backend === 'postgres' ? await createTestDatabase() : null;
      settings = testSettings({
        catalog: path.join(dir, 'catalog.json'),
        sources: dir,
        databasePath: path.join(dir, 'store.sqlite'),
        ...(database ? { databaseUrl: database.url } : {}),
      });
    });
    after(async () => {
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('a load publishes with the key and full-text index only; the declared indexes come after, answers unchanged', async () => {
      const target = storageFor(settings).loadTarget();
      try {
        const result = await buildDatabase({
          catalog: loadCatalogFile(settings.catalog),
          sources: dir,
          target,
          logger: silentLogger,
        });
        assert.equal(result.outcomes[0]!.status, 'loaded');
        assert.deepEqual(await storeIndexes(settings), [], 'no field index at publication');
      } finally {
        await target.close();
      }
      // A server that does not build them: it serves at once, and says what is still to come.
      const service = await serviceOn({ ...settings, indexBuilds: false });
      const query =
        `/api/3/action/datastore_search?resource_id=${RESOURCE}` +
        `&filters=${encodeURIComponent('{"Party": "SF"}')}&sort=${encodeURIComponent('Votes desc')}&limit=3`;
      let unindexed: string;
      try {
        const health = await service.getJson('/healthz');
        assert.equal(health.status, 200);
        assert.deepEqual(health.body.indexes_building, [
          { resource_id: RESOURCE, index: '"Name"' },
          { resource_id: RESOURCE, index: '"Party"' },
          { resource_id: RESOURCE, index: '"Votes"' },
          { resource_id: RESOURCE, index: '("Party", "Votes")' },
        ]);
        const answer = await service.request(query);
        assert.equal(answer.statusCode, 200);
        unindexed = answer.body;
      } finally {
        await service.close();
      }
      const sf = Array.from({ length: ROWS }, (_, i) => i + 1)
        .filter((i) => i % 4 === 2)
        .map((i) => ({ _id: i, Name: `Candidate ${i}`, Party: 'SF', Votes: (i * 37) % 1000 }))
        .sort((a, b) => b.Votes - a.Votes || a._id - b._id)
        .slice(0, 3);
      assert.deepEqual((JSON.parse(unindexed) as { result: { records: unknown[] } }).result.records, sf);

      // Built on what is published: the same dataset version, the same answer, now through the indexes.
      const builder = storageFor(settings).loadTarget();
      try {
        const built = await buildPendingIndexes(builder);
        assert.deepEqual(
          built.built.map((b) => b.index),
          ['"Name"', '"Party"', '"Votes"', '("Party", "Votes")'],
        );
        assert.equal(built.busy, false);
      } finally {
        await builder.close();
      }
      assert.deepEqual(await storeIndexes(settings), ['Name', 'Party', 'Party+Votes', 'Votes']);
      const served = await serviceOn({ ...settings, indexBuilds: false });
      try {
        const health = await served.getJson('/healthz');
        assert.deepEqual(health.body.indexes_building, []);
        const answer = await served.request(query);
        assert.equal(answer.statusCode, 200);
        assert.equal(answer.body, unindexed, 'the same bytes before and after the indexes');
      } finally {
        await served.close();
      }
    });

    test('`load --defer-indexes` leaves them; a server that starts builds them; `load` reports both times', async () => {
      writeFileSync(path.join(dir, 'tally.csv'), csv() + 'Candidate 301,FF,5\n');
      const env = folderEnv(dir, {
        catalog: settings.catalog,
        store: settings.databasePath,
        databaseUrl: settings.databaseUrl,
      });
      const deferred = await runCli(['load', '--defer-indexes'], env);
      assert.equal(deferred.code, 0, deferred.stderr);
      assert.match(
        deferred.stdout,
        /\nserved after \d+\.\d s\nindexes: left to a serving process \(--defer-indexes\)\n$/,
      );
      assert.deepEqual(await storeIndexes(settings), []);
      const service = await serviceOn(settings);
      try {
        assert.deepEqual((await service.getJson('/healthz')).body.indexes_building, []);
        assert.deepEqual(await storeIndexes(settings), ['Name', 'Party', 'Party+Votes', 'Votes']);
      } finally {
        await service.close();
      }
      writeFileSync(path.join(dir, 'tally.csv'), csv());
      const loaded = await runCli(['load'], env);
      assert.equal(loaded.code, 0, loaded.stderr);
      assert.match(loaded.stdout, /\nserved after (\d+\.\d) s\nindexes: 4 built, done after (\d+\.\d) s\n$/);
      const [, served, indexed] = /served after (\d+\.\d) s\nindexes: 4 built, done after (\d+\.\d) s/.exec(
        loaded.stdout,
      )!;
      assert.ok(Number(indexed) >= Number(served), 'the indexes are done after the data is served');
      assert.deepEqual(await storeIndexes(settings), ['Name', 'Party', 'Party+Votes', 'Votes']);
    });

    test('a search of a large resource on a field without an index asks for one, built in the background', async () => {
      writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify(catalogue(false)));
      const target = storageFor(settings).loadTarget();
      try {
        await buildDatabase({ catalog: loadCatalogFile(settings.catalog), sources: dir, target, logger: silentLogger });
      } finally {
        await target.close();
      }
      assert.deepEqual(await storeIndexes(settings), []);
      const service = await serviceOn({ ...settings, indexOnDemandRows: 100 });
      try {
        assert.deepEqual((await service.getJson('/healthz')).body.indexes_building, [], 'none declared');
        const filtered = await service.getJson(
          `/api/3/action/datastore_search?resource_id=${RESOURCE}&filters=${encodeURIComponent('{"Party": "LAB"}')}&sort=Votes`,
        );
        assert.equal(filtered.status, 200);
        assert.equal(filtered.body.result.total, ROWS / 4);
        // Asked for at once (listed while it is built), built within seconds. The sort also asks PostgreSQL for the
        // field's sort index: its index on Votes alone keeps each vote count's records in no order by _id.
        assert.deepEqual(
          ((await service.getJson('/healthz')).body.indexes_building as { index: string }[]).map((i) => i.index).sort(),
          backend === 'postgres' ? ['"Party"', '"Votes"', '("Votes", "_id")'] : ['"Party"', '"Votes"'],
        );
        await service.prepared.indexes.idle();
        assert.deepEqual(
          await storeIndexes(settings),
          backend === 'postgres' ? ['Party', 'Votes', 'Votes+_id'] : ['Party', 'Votes'],
        );
        assert.deepEqual((await service.getJson('/healthz')).body.indexes_building, []);
        // Sorted descending, either store is given the field's descending sort index: its own index, walked backwards,
        // has each vote count's records in descending _id order.
        const descending = await service.getJson(
          `/api/3/action/datastore_search?resource_id=${RESOURCE}&sort=Votes%20desc`,
        );
        assert.equal(descending.status, 200);
        await service.prepared.indexes.idle();
        assert.deepEqual(
          await storeIndexes(settings),
          backend === 'postgres' ? ['Party', 'Votes', 'Votes DESC+_id', 'Votes+_id'] : ['Party', 'Votes', 'Votes DESC'],
        );
        // A small resource asks for nothing: its own searches are quick without one.
        const small = await serviceOn({ ...settings, indexOnDemandRows: ROWS });
        try {
          await small.getJson(`/api/3/action/datastore_search?resource_id=${RESOURCE}&sort=Name`);
          assert.deepEqual((await small.getJson('/healthz')).body.indexes_building, []);
        } finally {
          await small.close();
        }
      } finally {
        await service.close();
      }
    });
  });
