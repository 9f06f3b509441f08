// PostgreSQL's patched versions share storage: a patch makes a view over the published version's segments and one new
// segment, so a request that leased the previous version keeps reading exactly its rows, dropping a retired version
// leaves the segments a version in use still reads, segments are merged and compacted as they accumulate, and the
// union stays one the planner flattens (pages in `_id` order merge index scans). Each version's rows are compared with a
// fresh whole copy of the same upstream, column for column.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import pg from 'pg';
import { planMirror } from '../../src/cli/mirror.js';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { buildDatabase, type BuildResult } from '../../src/ingest/build.js';
import { loadSettings, type Settings } from '../../src/settings.js';
import type { Store, StoreVersion } from '../../src/storage/backend.js';
import { MAX_SEGMENTS } from '../../src/storage/postgres/patch.js';
import { storageFor } from '../../src/stores.js';
import { FakeCkan, PATCHING_MIRROR, SAMPLE_FIELDS, sampleRecords } from '../helpers/fake-ckan.js';
import { createTestDatabase, servedBodies, silentLogger, TEST_BACKENDS } from '../helpers/service.js';

/** Searches of every kind the API answers from a version's rows: pages, full text, filters, sorts, deep pages. */
const QUERIES = [
  'limit=1000',
  'limit=100&offset=900',
  'limit=1000&q=Edited',
  'limit=1000&q=Name',
  'limit=1000&filters=%7B%22Notes%22%3A%22%22%7D',
  'limit=5&sort=Votes%20desc',
  'limit=10&sort=Name',
  'limit=0&filters=%7B%22Votes%22%3A%7B%22gte%22%3A5000%7D%7D',
];

describe('PostgreSQL versions made by patches', { skip: !TEST_BACKENDS.includes('postgres') }, () => {
  let dir: string;
  let portal: FakeCkan;
  let databases: { url: string; drop(): Promise<void> }[] = [];

  before(async () => {
    portal = await new FakeCkan({
      version: '2.10',
      sql: true,
      rowsMax: 1000,
      fields: SAMPLE_FIELDS,
      // With blocks of 10 `_id`s (PATCHING_MIRROR), a change of one record is a patch of 10, far from a compaction.
      records: sampleRecords(1000),
    }).start();
  });
  after(async () => {
    await portal.stop();
  });
  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-mirror-pg-versions-'));
    portal.records = sampleRecords(1000);
    writeFileSync(
      path.join(dir, 'catalog.json'),
      (await planMirror({ portal: portal.url, ids: [portal.datasetName] }, path.join(dir, 'catalog.json'))).catalogText,
    );
  });
  afterEach(async () => {
    for (const database of databases) await database.drop();
    databases = [];
    rmSync(dir, { recursive: true, force: true });
  });

  async function store(): Promise<Settings> {
    const database = await createTestDatabase();
    databases.push(database);
    return loadSettings({}, { catalog: path.join(dir, 'catalog.json'), sources: dir, databaseUrl: database.url });
  }

  async function load(settings: Settings, mirror: Record<string, unknown> = {}): Promise<BuildResult> {
    const target = storageFor(settings).loadTarget();
    return buildDatabase({
      catalog: loadCatalogFile(settings.catalog),
      sources: dir,
      target,
      logger: silentLogger,
      mirror: { ...PATCHING_MIRROR, ...mirror },
    }).finally(() => target.close());
  }

  /** Runs `work` with a connection of the loader's (the owner's) to the store's database. */
  async function owner<T>(settings: Settings, work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: settings.databaseUrl! });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  const tableOf = (version: StoreVersion) =>
    (version.resources.get(portal.resourceId) as unknown as { table: string }).table;

  /** Every column of a version's records as stored, `_full_text` included, read through the version itself. */
  async function rowsOf(version: StoreVersion, schema: string): Promise<unknown[][]> {
    const table = `"${schema}"."${tableOf(version)}"`;
    return version.rows({
      sql: `SELECT "_id", "Name", "Votes", "Share"::text, "Big", "Seen"::text, "Notes", "_full_text"::text FROM ${table} ORDER BY "_id"`,
      params: [],
    });
  }

  /** What a fresh whole copy of the upstream holds now. */
  async function freshRows(): Promise<unknown[][]> {
    const settings = await store();
    assert.equal((await load(settings)).outcomes[0]!.method, 'dump');
    const fresh = await storageFor(settings).openStore();
    try {
      return await rowsOf(fresh.current, settings.pgDataSchema);
    } finally {
      await fresh.close();
    }
  }

  /** The API's whole answers to QUERIES. */
  const answers = (settings: Settings) =>
    servedBodies(
      settings,
      QUERIES.map((query) => `/api/3/action/datastore_search?resource_id=${portal.resourceId}&${query}`),
    );

  /** Patches the upstream's change in, serves the new version, and checks it holds what a fresh copy holds. */
  async function patched(settings: Settings, served: Store, change: () => void): Promise<StoreVersion> {
    change();
    const result = await load(settings);
    assert.equal(result.outcomes[0]!.method, 'patch (datastore_search_sql hashes)', result.outcomes[0]!.error ?? '');
    const latest = await served.openLatest();
    assert.ok(latest);
    served.serve(latest);
    assert.deepEqual(await rowsOf(served.current, settings.pgDataSchema), await freshRows());
    return served.current;
  }

  /** The relation's kind, and for a view the tables it reads. */
  async function relation(settings: Settings, name: string): Promise<{ kind: string | null; reads: string[] }> {
    return owner(settings, async (client) => {
      const kind = await client.query<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE oid = to_regclass($1)`, [
        `"${settings.pgDataSchema}"."${name}"`,
      ]);
      const reads = await client.query<{ relname: string }>(
        `SELECT DISTINCT t.relname FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid ` +
          `JOIN pg_class t ON t.oid = d.refobjid AND t.relkind = 'r' WHERE r.ev_class = to_regclass($1) ORDER BY 1`,
        [`"${settings.pgDataSchema}"."${name}"`],
      );
      return { kind: kind.rows[0]?.relkind ?? null, reads: reads.rows.map((r) => r.relname) };
    });
  }

  const edit = (index: number, name: string) => () => {
    portal.records = portal.records.map((r, i) => (i === index ? { ...r, Name: name, Votes: 7 } : r));
  };

  test('a lease on the previous version reads its rows after a patch; the new version is a view sharing its table', async () => {
    const settings = await store();
    await load(settings);
    const served = await storageFor(settings).openStore();
    try {
      const first = served.acquire();
      const before = await rowsOf(first.version, settings.pgDataSchema);
      const firstTable = tableOf(first.version);
      const second = await patched(settings, served, () => {
        edit(20, 'Edited Ní Bhriain')();
        portal.records = portal.records.filter((_, i) => i !== 500);
        portal.records = [...portal.records, ...sampleRecords(1, 2000)];
      });
      assert.deepEqual(await rowsOf(first.version, settings.pgDataSchema), before, 'the old lease reads the old rows');
      assert.notDeepEqual(await rowsOf(second, settings.pgDataSchema), before);
      const view = await relation(settings, tableOf(second));
      assert.equal(view.kind, 'v');
      assert.deepEqual(view.reads.sort(), [firstTable, `${tableOf(second)}+`].sort());
      // A page in _id order merges the segments' index scans: the union is flattened, not scanned and sorted.
      const plan = await owner(settings, async (client) =>
        (
          await client.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN SELECT "Name" FROM "${settings.pgDataSchema}"."${tableOf(second)}" ORDER BY "_id" LIMIT 10`,
          )
        ).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n'),
      );
      assert.match(plan, /Merge Append/);
      assert.doesNotMatch(plan, /Subquery Scan|Seq Scan/);
      first.release();
    } finally {
      await served.close();
    }
  });

  test('retired versions are dropped, never a segment that a version in use reads; segments are merged as they accumulate', async () => {
    const settings = await store();
    await load(settings);
    const served = await storageFor(settings).openStore();
    try {
      const base = tableOf(served.current);
      const versions: string[] = [base];
      for (let n = 1; n <= MAX_SEGMENTS; n++) {
        const version = await patched(settings, served, edit(n * 100, `Edited ${n}`));
        versions.push(tableOf(version));
        const { kind, reads } = await relation(settings, tableOf(version));
        assert.equal(kind, 'v');
        assert.ok(reads.includes(base), 'the first copy is still read');
        assert.ok(reads.length <= MAX_SEGMENTS, `${reads.length} segments`);
        // The current version and the one before it stay (a request may still read it), with whatever they read.
        const previous = await relation(settings, versions[versions.length - 2]!);
        assert.ok(previous.kind !== null, 'the previous version stays for the requests reading it');
        for (const table of previous.reads) assert.equal((await relation(settings, table)).kind, 'r');
        // The one before that is gone, unless it is a table a version in use still reads.
        if (versions.length >= 3) {
          const retired = versions[versions.length - 3]!;
          const stillRead = [...previous.reads, ...reads].includes(retired);
          assert.equal((await relation(settings, retired)).kind, stillRead ? 'r' : null, retired);
        }
      }
      const last = await relation(settings, versions[versions.length - 1]!);
      assert.equal(last.reads.length, 2, 'the later segments were merged into one');
      // Nothing else is left behind: every generation relation is in use, or read by a version in use.
      const inUse = new Set([
        ...versions.slice(-2),
        ...last.reads,
        ...(await relation(settings, versions.at(-2)!)).reads,
      ]);
      const left = await owner(settings, async (client) =>
        (
          await client.query<{ relname: string }>(
            `SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND relkind IN ('r', 'v') AND relname LIKE $2`,
            [settings.pgDataSchema, `${portal.resourceId}@%`],
          )
        ).rows.map((r) => r.relname),
      );
      assert.deepEqual(left.sort(), [...inUse].sort());
      const catalogueTables = await owner(
        settings,
        async (client) =>
          (
            await client.query<{ relname: string }>(
              `SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND relname LIKE '\\_table\\_metadata@%'`,
              [settings.pgDataSchema],
            )
          ).rows,
      );
      assert.equal(catalogueTables.length, 2, "_table_metadata's current and previous generations, no more");
      // The API answers from the merged segments as from a fresh copy, byte for byte.
      const fresh = await store();
      await load(fresh);
      assert.deepEqual(await answers(settings), await answers(fresh));
    } finally {
      await served.close();
    }
  });

  test('changes outgrowing a share of the first copy compact the version (a view) into one table again', async () => {
    const settings = await store();
    await load(settings);
    const served = await storageFor(settings).openStore();
    try {
      // A view first, so that the compaction reads segments with hidden ranges.
      assert.equal((await relation(settings, tableOf(await patched(settings, served, edit(7, 'Small'))))).kind, 'v');
      const first = served.acquire();
      const before = await rowsOf(first.version, settings.pgDataSchema);
      // 15 blocks of 10 out of 1,000 records: past an eighth of the table.
      const version = await patched(settings, served, () => {
        for (let n = 0; n < 15; n++) edit(n * 60, `Compacted ${n}`)();
      });
      assert.equal((await relation(settings, tableOf(version))).kind, 'r');
      assert.deepEqual(await rowsOf(first.version, settings.pgDataSchema), before, 'the old lease reads the old rows');
      first.release();
      // And a patch after that one is a view over the compacted table.
      const next = await patched(settings, served, edit(3, 'After compaction'));
      assert.deepEqual(
        (await relation(settings, tableOf(next))).reads.sort(),
        [tableOf(version), `${tableOf(next)}+`].sort(),
      );
    } finally {
      await served.close();
    }
  });
});
