// The PostgreSQL loader's layout on the real election files: every row has its _full_text, the key and the indexes
// built side by side are all there, the rows are visible to index-only scans, and searches reach the indexes; and a
// text-search configuration that only PostgreSQL implements can be used.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { loadCatalogFile, parseCatalog } from '../../src/catalog/load.js';
import type { CatalogDefinition } from '../../src/catalog/types.js';
import { buildDatabase } from '../../src/ingest/build.js';
import { buildPendingIndexes } from '../../src/ingest/indexes.js';
import { declaredIndexes } from '../../src/catalog/indexes.js';
import { PROJECT_ROOT } from '../../src/settings.js';
import { ApiError } from '../../src/errors.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch, type PlanResource } from '../../src/query/search-plan.js';
import { indexTableSql, INDEXED_FIELD_STATISTICS } from '../../src/dialect/postgres/ddl.js';
import { readPostgresMeta } from '../../src/storage/postgres/meta.js';
import { qualified } from '../../src/dialect/postgres/quote.js';
import { postgresCompiler } from '../../src/sql/postgres/search.js';
import { PostgresLoadTarget } from '../../src/storage/postgres/loader.js';
import { createTestDatabase, DATA_DIR, silentLogger, TEST_BACKENDS } from '../helpers/service.js';

const SCHEMAS = { data: 'countcentre', public: 'public' };

/** A load, then the indexes it leaves for after publication, as `count-centre load` runs them. */
async function load(url: string, catalog: CatalogDefinition, sources: string, splitAfterRows?: number) {
  const target = new PostgresLoadTarget({ url, schemas: SCHEMAS, readerRole: 'countcentre_reader', splitAfterRows });
  try {
    const result = await buildDatabase({ catalog, sources, target, logger: silentLogger, force: true });
    return Object.assign(result, { indexes: await buildPendingIndexes(target) });
  } finally {
    await target.close();
  }
}

/** A catalogue of one dataset, "fixture", holding `resources`; `top` adds catalogue-wide keys. */
function fixtureCatalog(resources: Record<string, unknown>[], top: Record<string, unknown> = {}): CatalogDefinition {
  return parseCatalog({ ...top, datasets: [{ name: 'fixture', resources }] });
}

/** A load of what changed (as a scheduled reload is), failing the test instead of waiting if it stalls. */
async function reloadWithin(url: string, catalog: CatalogDefinition, sources: string, splitAfterRows?: number) {
  const target = new PostgresLoadTarget({ url, schemas: SCHEMAS, readerRole: 'countcentre_reader', splitAfterRows });
  return Promise.race([
    buildDatabase({ catalog, sources, target, logger: silentLogger }).finally(() => target.close()),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the load stalled')), 60_000).unref()),
  ]);
}

describe('PostgreSQL loader', { skip: !TEST_BACKENDS.includes('postgres') }, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;
  /** The table (of the published generation) that holds a resource. */
  const tableOf = async (resourceId: string) =>
    (await readPostgresMeta(client, SCHEMAS.data))!.resources.get(resourceId)!.table;

  before(async () => {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  after(async () => {
    await client.end();
    await database.drop();
  });

  test('the election files: _full_text, the key and every index', async () => {
    const catalog = loadCatalogFile(path.join(PROJECT_ROOT, 'catalog.json'));
    const result = await load(database.url, catalog, DATA_DIR);
    assert.deepEqual(
      result.outcomes.slice(0, 3).map((o) => [o.status, o.rows]),
      [
        ['loaded', 531],
        ['loaded', 39],
        ['loaded', 5015],
      ],
    );
    assert.deepEqual(
      result.outcomes.filter((o) => o.status !== 'loaded'),
      [],
      'every election resource loads',
    );
    for (const resource of catalog.resources) {
      const name = await tableOf(resource.id);
      assert.match(name, new RegExp(`^${resource.id}@[0-9a-z]+$`));
      const table = qualified(SCHEMAS.data, name);
      const check = await client.query<{ rows: number; empty: number }>(
        `SELECT count(*)::int AS rows, count(*) FILTER (WHERE "_full_text" IS NULL OR "_full_text" = ''::tsvector)::int AS empty FROM ${table}`,
      );
      assert.deepEqual(
        check.rows[0],
        { rows: result.outcomes.find((o) => o.id === resource.id)!.rows, empty: 0 },
        resource.id,
      );

      const key = await client.query<{ columns: string }>(
        `SELECT pg_get_constraintdef(oid) AS columns FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`,
        [table],
      );
      assert.deepEqual(key.rows, [{ columns: 'PRIMARY KEY (_id)' }]);
      const indexes = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_index WHERE indrelid = $1::regclass`,
        [table],
      );
      assert.equal(
        indexes.rows[0]!.n,
        indexTableSql(SCHEMAS.data, name, resource, declaredIndexes(resource)).indexes.length,
      );
      // Indexed fields get a finer histogram, so that the planner sees when a range is selective.
      const targets = await client.query<{ name: string; target: number }>(
        `SELECT attname AS name, attstattarget::int AS target FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
        [table],
      );
      for (const field of resource.fields) {
        assert.equal(
          targets.rows.find((r) => r.name === field.id)?.target,
          field.index ? INDEXED_FIELD_STATISTICS : -1,
          field.id,
        );
      }
    }
  });

  test('loaded rows are all-visible (counts are index-only scans) and text filters, ranges and sorts use the indexes', async () => {
    const catalog = loadCatalogFile(path.join(PROJECT_ROOT, 'catalog.json'));
    const candidates = catalog.resources[0]!;
    const tableName = await tableOf(candidates.id);
    const table = qualified(SCHEMAS.data, tableName);
    const visibility = await client.query<{ pages: number; visible: number }>(
      'SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE oid = $1::regclass',
      [table],
    );
    assert.ok(visibility.rows[0]!.pages > 0);
    assert.equal(
      visibility.rows[0]!.visible,
      visibility.rows[0]!.pages,
      'every page is marked all-visible by COPY … FREEZE',
    );

    const fields = [{ id: '_id', type: 'int' as const }, ...candidates.fields.map((f) => ({ id: f.id, type: f.type }))];
    const resource: PlanResource = {
      id: candidates.id,
      fields,
      fieldById: new Map(fields.map((f) => [f.id, f])),
      total: 531,
    };
    const plan = (input: Record<string, unknown>) => {
      const result = planSearch(
        readSearchRequest({ resource_id: candidates.id, ...input }, { rowsDefault: 100, rowsMax: 32000 }),
        resource,
        { defaultLanguage: 'english' },
      );
      if (result instanceof ApiError) assert.fail(JSON.stringify(result.validation));
      return result;
    };
    // On 531 rows the planner would rightly prefer a scan; with scans priced out, a query that cannot use an index
    // still shows one, which is what a collation mismatch between the query and the index looks like.
    await client.query('SET enable_seqscan = off');
    try {
      const searches = [
        plan({ filters: { 'Party Abbreviation': 'S.F.' }, sort: 'Votes desc' }),
        plan({ filters: { Constituency: ['Carlow Kilkenny', 'Cavan Monaghan'] } }),
        plan({ sort: 'Surname, Firstname', fields: '_id' }),
        // CKAN 2.12's ranges, on numbers and on text (compared as the index is built, COLLATE "C"), and keyset pages.
        plan({ filters: { Votes: { gte: 5000, lt: 10000 } }, sort: 'Votes desc' }),
        plan({ filters: { Surname: { gte: 'Mc', lt: 'Md' } }, fields: '_id,Surname' }),
        plan({ filters: { Constituency: [{ lt: 'C' }, { gt: 'W' }] }, sort: 'Constituency' }),
        plan({ filters: { _id: { gt: 100, lte: 200 } } }),
        plan({ sort: 'Votes desc', count_centre_after: [5000, 17], include_next_page: true }),
        plan({ sort: 'Surname', count_centre_after: ['Murphy', 17], fields: '_id' }),
      ];
      for (const search of searches) {
        const target = { schema: SCHEMAS.data, tables: new Map([[candidates.id, tableName]]) };
        const compiler = postgresCompiler(target);
        for (const query of [compiler.compileSearch(search), compiler.compileCount(search)]) {
          const explained = await client.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN ${query.sql}`,
            query.params as unknown[],
          );
          const planText = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
          assert.doesNotMatch(planText, /Seq Scan/, `${query.sql}\n${planText}`);
        }
      }
    } finally {
      await client.query('RESET enable_seqscan');
    }
  });

  test('a configuration only PostgreSQL implements (french) indexes the records', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-pg-loader-'));
    try {
      writeFileSync(path.join(dir, 'words.csv'), 'Text,N\r\nLes élections générales,1\r\ndes candidats,2\r\n');
      const catalog = fixtureCatalog(
        [
          {
            id: '22222222-0000-4000-8000-000000000001',
            name: 'Words',
            source: { path: 'words.csv' },
            fields: [
              { id: 'Text', type: 'text' },
              { id: 'N', type: 'numeric' },
            ],
          },
        ],
        { full_text_language: 'french' },
      );
      const result = await load(database.url, catalog, dir);
      assert.equal(result.outcomes[0]!.status, 'loaded');
      const table = qualified(SCHEMAS.data, await tableOf(catalog.resources[0]!.id));
      const rows = await client.query<{ text: string }>(
        `SELECT "_full_text"::text AS text FROM ${table} ORDER BY "_id"`,
      );
      // Accents are folded before indexing, as the queries are (docs/compatibility.md): "générales" is indexed as
      // "general".
      assert.deepEqual(
        rows.rows.map((r) => r.text),
        ["'1':4 'elect':2 'general':3 'le':1", "'2':3 'candidat':2"],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a text too long for a B-tree key: its indexes are left out, said in the outcome; the records load and filter', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-pg-loader-'));
    try {
      // Letters drawn from a fixed LCG: 12,000 of them compress to far more than a B-tree key's 2,704 bytes.
      let seed = 7;
      const letters = Array.from({ length: 12_000 }, () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return String.fromCharCode(97 + (seed % 26));
      }).join('');
      writeFileSync(path.join(dir, 'abstracts.csv'), `Title,Abstract,Pages\nShort,brief,3\nLong,${letters},40\n`);
      const catalog = fixtureCatalog([
        {
          id: '22222222-0000-4000-8000-000000000002',
          name: 'Abstracts',
          source: { path: 'abstracts.csv' },
          fields: [
            { id: 'Title', type: 'text' },
            { id: 'Abstract', type: 'text' },
            { id: 'Pages', type: 'int4' },
          ],
          indexes: [['Abstract', 'Pages']],
        },
      ]);
      const result = await load(database.url, catalog, dir);
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.warning]),
        [['loaded', 2, undefined]],
      );
      // Built after publication: the two that cannot be are left out, and recorded so that no build tries them again.
      assert.deepEqual(
        result.indexes.refused.map((r) => r.index),
        ['"Abstract"', '("Abstract", "Pages")'],
      );
      assert.deepEqual(
        (await readPostgresMeta(client, SCHEMAS.data))!.resources.get(catalog.resources[0]!.id)!.unbuiltIndexes,
        ['"Abstract"', '("Abstract", "Pages")'],
      );
      const name = await tableOf(catalog.resources[0]!.id);
      const indexes = await client.query<{ indexdef: string }>(
        'SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname',
        [SCHEMAS.data, name],
      );
      assert.deepEqual(
        indexes.rows.map((r) => r.indexdef.replace(/^.* USING /, '')),
        [
          'btree ("Title" COLLATE "C") WITH (fillfactor=\'100\')',
          'btree ("Pages") WITH (fillfactor=\'100\')',
          'gin (_full_text)',
          "btree (_id) WITH (fillfactor='100')",
        ],
      );
      const table = qualified(SCHEMAS.data, name);
      const found = await client.query<{ title: string }>(
        `SELECT "Title" AS title FROM ${table} WHERE "Abstract" = $1`,
        [letters],
      );
      assert.deepEqual(found.rows, [{ title: 'Long' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a schema written in another layout is never read as this one: every resource is loaded again, and the log says why', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-pg-layout-'));
    try {
      const catalog = fixtureCatalog([
        {
          id: '33333333-0000-4000-8000-000000000009',
          name: 'n',
          source: { path: 'n.csv' },
          fields: [{ id: 'N', type: 'int4' }],
        },
      ]);
      writeFileSync(path.join(dir, 'n.csv'), 'N\n1\n2\n');
      await load(database.url, catalog, dir);
      const meta = `${qualified(SCHEMAS.data, '_countcentre_meta')}`;
      const current = Number(
        (await client.query<{ value: string }>(`SELECT "value" FROM ${meta} WHERE "key" = 'schema_version'`)).rows[0]!
          .value,
      );
      await client.query(`UPDATE ${meta} SET "value" = $1 WHERE "key" = 'schema_version'`, [String(current - 1)]);
      const target = new PostgresLoadTarget({ url: database.url, schemas: SCHEMAS, readerRole: 'countcentre_reader' });
      const warnings: string[] = [];
      try {
        assert.equal(await target.readMeta(), null);
        assert.deepEqual(await target.otherLayout(), { found: current - 1, current });
        const result = await buildDatabase({
          catalog,
          sources: dir,
          target,
          logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) }),
        });
        assert.deepEqual(
          result.outcomes.map((o) => [o.status, o.rows]),
          [['loaded', 2]],
        );
        assert.equal(await target.otherLayout(), null);
        assert.equal((await target.readMeta())?.schemaVersion, current);
      } finally {
        await target.close();
      }
      assert.deepEqual(warnings, [
        `the store was written in layout ${current - 1} by an earlier Count Centre (this one writes layout ${current}): every resource is loaded again into a new store`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a resource whose rows fail part way through the COPY is abandoned; the previous data serves and the next resource loads', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-pg-loader-'));
    try {
      const resource = (id: string, file: string) => ({
        id,
        name: file,
        source: { path: file },
        fields: [{ id: 'N', type: 'int4' }],
      });
      const catalog = fixtureCatalog([
        resource('33333333-0000-4000-8000-000000000001', 'first.csv'),
        resource('33333333-0000-4000-8000-000000000002', 'second.csv'),
      ]);
      writeFileSync(path.join(dir, 'first.csv'), 'N\n1\n2\n');
      writeFileSync(path.join(dir, 'second.csv'), 'N\n5\n');
      await load(database.url, catalog, dir);
      writeFileSync(
        path.join(dir, 'first.csv'),
        `N\n${Array.from({ length: 20_000 }, (_, i) => i).join('\n')}\nnot a number\n`,
      );
      writeFileSync(path.join(dir, 'second.csv'), 'N\n6\n7\n');
      const result = await reloadWithin(database.url, catalog, dir);
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows]),
        [
          ['kept-previous', 2],
          ['loaded', 2],
        ],
      );
      assert.equal(
        result.outcomes[0]!.error,
        'first.csv, line 20002, column 1: field "N" (int4): "not a number" is not a whole number',
      );
      const values = async (id: string) =>
        (
          await client.query<{ n: number }>(
            `SELECT "N" AS n FROM ${qualified(SCHEMAS.data, await tableOf(id))} ORDER BY "_id"`,
          )
        ).rows.map((r) => r.n);
      assert.deepEqual(await values(catalog.resources[0]!.id), [1, 2]);
      assert.deepEqual(await values(catalog.resources[1]!.id), [6, 7]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  describe('a load split over two connections', () => {
    const ids = ['44444444-0000-4000-8000-000000000001', '44444444-0000-4000-8000-000000000002'];
    const catalog = parseCatalog({
      datasets: [
        {
          name: 'split',
          resources: ids.map((id, i) => ({
            id,
            name: `r${i}`,
            source: { path: `r${i}.csv` },
            fields: [
              { id: 'N', type: 'int4' },
              { id: 'T', type: 'text' },
            ],
          })),
        },
      ],
    });
    const rows = (count: number, text = (i: number) => `row ${i}`) =>
      `N,T\n${Array.from({ length: count }, (_, i) => `${i},${text(i)}`).join('\n')}\n`;
    /** The data schema's tables of a resource: every generation's, with the table each inherits from. */
    const tablesOf = async (id: string) =>
      (
        await client.query<{ name: string; parent: string | null }>(
          `SELECT c.relname AS name, p.relname AS parent FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ` +
            `LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent ` +
            `WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE $2 ORDER BY c.relname`,
          [SCHEMAS.data, `${id}@%`],
        )
      ).rows;

    test('each generation is two tables; the one before the previous goes with both', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-pg-split-'));
      try {
        const names: string[] = [];
        for (const version of [1, 2, 3]) {
          writeFileSync(path.join(dir, 'r0.csv'), rows(5000 + version));
          writeFileSync(path.join(dir, 'r1.csv'), rows(10));
          const result = await load(database.url, catalog, dir, 1000);
          assert.deepEqual(
            result.outcomes.map((o) => [o.status, o.rows]),
            [
              ['loaded', 5000 + version],
              ['loaded', 10],
            ],
          );
          const table = await tableOf(ids[0]!);
          names.push(table);
          const counts = await client.query<{ all: number; own: number; second: number }>(
            `SELECT (SELECT count(*)::int FROM ${qualified(SCHEMAS.data, table)}) AS all, ` +
              `(SELECT count(*)::int FROM ONLY ${qualified(SCHEMAS.data, table)}) AS own, ` +
              `(SELECT count(*)::int FROM ${qualified(SCHEMAS.data, `${table}+`)}) AS second`,
          );
          const { all, own, second } = counts.rows[0]!;
          assert.equal(all, 5000 + version);
          assert.ok(own >= 1000 && second > 0 && own + second === all, `${own} + ${second}`);
          // The small resource is one table.
          assert.deepEqual(
            (await tablesOf(ids[1]!)).filter((t) => t.name.endsWith('+')),
            [],
          );
        }
        // The first generation is gone, both its tables; the previous one stays for requests still reading it.
        assert.deepEqual(await tablesOf(ids[0]!), [
          { name: names[1]!, parent: null },
          { name: `${names[1]}+`, parent: names[1]! },
          { name: names[2]!, parent: null },
          { name: `${names[2]}+`, parent: names[2]! },
        ]);
        const estimate = await client.query<{ estimate: string }>(
          `SELECT sum(reltuples)::bigint AS estimate FROM pg_class WHERE oid IN ($1::regclass, $2::regclass)`,
          [qualified(SCHEMAS.data, names[2]!), qualified(SCHEMAS.data, `${names[2]}+`)],
        );
        assert.equal(Number(estimate.rows[0]!.estimate), 5003);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('a failure in either stream after the split abandons both tables; the previous data serves', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-pg-split-'));
      try {
        writeFileSync(path.join(dir, 'r0.csv'), rows(3));
        writeFileSync(path.join(dir, 'r1.csv'), rows(2));
        await load(database.url, catalog, dir, 1000);
        const before = await tablesOf(ids[0]!);
        const published = await tableOf(ids[0]!);
        // Two records past the split whose tsvectors PostgreSQL refuses (over 1 MB): each in a chunk of its own, so
        // that one of the two streams fails whichever the load is writing to.
        const huge = (i: number) => Array.from({ length: 160_000 }, (_, k) => `w${i}x${k}`).join(' ');
        writeFileSync(
          path.join(dir, 'r0.csv'),
          rows(4000, (i) => (i === 2500 || i === 2501 ? huge(i) : `row ${i}`)),
        );
        writeFileSync(path.join(dir, 'r1.csv'), rows(3));
        const result = await reloadWithin(database.url, catalog, dir, 1000);
        assert.deepEqual(
          result.outcomes.map((o) => [o.status, o.rows]),
          [
            ['kept-previous', 3],
            ['loaded', 3],
          ],
        );
        assert.match(result.outcomes[0]!.error ?? '', /tsvector/);
        // Nothing of the failed generation is left (tables of the generation before the previous go, as they would).
        const after = await tablesOf(ids[0]!);
        assert.ok(
          after.every((t) => before.some((b) => b.name === t.name)),
          JSON.stringify({ before, after }),
        );
        assert.equal(await tableOf(ids[0]!), published);
        const served = await client.query<{ n: number }>(
          `SELECT "N" AS n FROM ${qualified(SCHEMAS.data, await tableOf(ids[0]!))} ORDER BY "_id"`,
        );
        assert.deepEqual(
          served.rows.map((r) => r.n),
          [0, 1, 2],
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
