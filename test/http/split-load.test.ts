// A PostgreSQL load split over two connections (COUNTCENTRE_PG_LOAD_SPLIT_ROWS), its COPY lines made partly on a
// helper thread (COUNTCENTRE_PG_LOAD_HELPER_ROWS), serves exactly what a load over one connection, made on one thread,
// serves: the elections loaded with a split after 500 records, so that every resource past that size is two tables,
// the second inheriting from the first, answer every request below with the same bytes as the unsplit load, and the
// recorded sizes count both tables. (Generations of split tables replaced in turn, and a failure in either stream:
// test/ingest/postgres-loader.test.ts.)

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import {
  RESOURCE_A,
  RESOURCE_B,
  RESOURCE_C,
  startService,
  TEST_BACKENDS,
  type TestService,
} from '../helpers/service.js';

const SPLIT = 500;
const HELPER = 300;

/** Requests covering paging, sorting, filters, full text, totals, fields, formats, SQL and dumps. */
function requests(resources: readonly string[]): string[] {
  const paths: string[] = [];
  for (const id of resources) {
    const search = (params: Record<string, string>) =>
      `/api/3/action/datastore_search?${new URLSearchParams({ resource_id: id, ...params })}`;
    paths.push(
      search({}),
      search({ limit: '50', offset: '400' }),
      search({ limit: '20', offset: '900' }),
      search({ sort: '_id desc', limit: '30' }),
      search({ q: 'dublin', limit: '20' }),
      search({ q: 'sinn fein', include_total: 'true', limit: '5' }),
      search({ include_total: 'false', limit: '3', offset: '700' }),
      search({ records_format: 'csv', limit: '40', offset: '480' }),
      search({ records_format: 'lists', sort: '_id', limit: '40', offset: '490' }),
      search({ include_next_page: 'true', limit: '100', offset: '450' }),
      search({ total_estimation_threshold: '100', limit: '1' }),
      `/datastore/dump/${id}`,
      `/datastore/dump/${id}?format=json&limit=700`,
      `/api/3/action/datastore_search_sql?${new URLSearchParams({ sql: `SELECT count(*) AS n, min("_id") AS lo, max("_id") AS hi FROM "${id}"` })}`,
      `/api/3/action/datastore_search_sql?${new URLSearchParams({ sql: `SELECT "_id" FROM "${id}" ORDER BY "_id" DESC LIMIT 5 OFFSET 500` })}`,
    );
  }
  return paths;
}

/** The first field of a resource that its searches can sort and filter by, with a value to filter on. */
async function fieldRequests(service: TestService, id: string): Promise<string[]> {
  const total = (await service.getJson(`/api/3/action/datastore_search?resource_id=${id}&limit=0`)).body.result.total;
  const { body } = await service.getJson(
    `/api/3/action/datastore_search?resource_id=${id}&limit=1&offset=${Math.floor(total * 0.6)}`,
  );
  const record = body.result.records[0] as Record<string, unknown>;
  const fields = (body.result.fields as { id: string; type: string }[]).filter((f) => !f.id.startsWith('_'));
  const paths: string[] = [];
  for (const field of fields.slice(0, 4)) {
    const search = (params: Record<string, string>) =>
      `/api/3/action/datastore_search?${new URLSearchParams({ resource_id: id, ...params })}`;
    paths.push(
      search({ sort: `"${field.id}" desc, _id`, limit: '25', offset: '510' }),
      search({ filters: JSON.stringify({ [field.id]: record[field.id] }), limit: '25' }),
      search({ distinct: 'true', fields: field.id, sort: field.id, limit: '25' }),
    );
  }
  return paths;
}

const onPostgres = TEST_BACKENDS.includes('postgres');

describe(
  'a load split over two connections',
  { skip: !onPostgres && 'PostgreSQL is not among the test backends' },
  () => {
    let single: TestService;
    let split: TestService;

    before(async () => {
      // The single load makes every COPY line on its reading thread (no election resource reaches the helper's
      // default threshold); the split one hands batches past the first 300 records to a helper thread too, so that
      // the comparison also covers lines and vectors made there.
      single = await startService({}, 'postgres');
      split = await startService({ pgLoadSplitRows: SPLIT, pgLoadHelperRows: HELPER }, 'postgres');
    });

    after(async () => {
      await single?.close();
      await split?.close();
    });

    test('resources past the threshold are two tables, the second inheriting from the first', async () => {
      const client = new pg.Client({ connectionString: split.settings.databaseUrl! });
      await client.connect();
      try {
        const schema = split.settings.pgDataSchema;
        const { rows } = await client.query<{ child: string; parent: string }>(
          `SELECT c.relname AS child, p.relname AS parent FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid ` +
            `JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace n ON n.oid = p.relnamespace WHERE n.nspname = $1 ORDER BY 2`,
          [schema],
        );
        assert.ok(rows.length >= 3, `${rows.length} split resources`);
        for (const { child, parent } of rows) {
          assert.equal(child, `${parent}+`);
          const counts = await client.query<{ own: string; second: string }>(
            `SELECT (SELECT count(*) FROM ONLY "${schema}"."${parent}") AS own, (SELECT count(*) FROM "${schema}"."${child}") AS second`,
          );
          const own = Number(counts.rows[0]!.own);
          const second = Number(counts.rows[0]!.second);
          // The first table takes every record up to the threshold, then the two take turns.
          assert.ok(own >= SPLIT && second > 0, `${parent}: ${own} + ${second}`);
        }
        // And the resources under the threshold are one table.
        const single = await client.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ` +
            `WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE '%@%' AND NOT c.relhassubclass AND c.relname NOT LIKE '%+'`,
          [schema],
        );
        assert.ok(Number(single.rows[0]!.n) > 0);
      } finally {
        await client.end();
      }
    });

    test('every answer is byte for byte the unsplit load’s', async () => {
      const resources = [RESOURCE_A, RESOURCE_B, RESOURCE_C];
      const paths = [...requests(resources)];
      for (const id of resources) paths.push(...(await fieldRequests(single, id)));
      let compared = 0;
      for (const url of paths) {
        const [a, b] = await Promise.all([single.request(url), split.request(url)]);
        assert.equal(b.statusCode, a.statusCode, url);
        assert.equal(a.statusCode, 200, `${url}: ${a.body.slice(0, 200)}`);
        assert.equal(b.headers['content-type'], a.headers['content-type'], url);
        assert.equal(b.body, a.body, url);
        compared += 1;
      }
      assert.equal(compared, paths.length);
    });

    test('the recorded sizes are the two tables’ together', async () => {
      const client = new pg.Client({ connectionString: split.settings.databaseUrl! });
      await client.connect();
      try {
        const schema = split.settings.pgDataSchema;
        const { rows } = await client.query<{
          id: string;
          data: string;
          indexes: string;
          both: string;
          both_indexes: string;
        }>(
          `SELECT r.id, r.data_bytes AS data, r.index_bytes AS indexes, ` +
            `pg_table_size(format('%I.%I', $1::text, r.table_name)::regclass) + pg_table_size(format('%I.%I', $1::text, r.table_name || '+')::regclass) AS both, ` +
            `pg_indexes_size(format('%I.%I', $1::text, r.table_name)::regclass) + pg_indexes_size(format('%I.%I', $1::text, r.table_name || '+')::regclass) AS both_indexes ` +
            `FROM "${schema}"._countcentre_resources r WHERE to_regclass(format('%I.%I', $1::text, r.table_name || '+')) IS NOT NULL`,
          [schema],
        );
        assert.ok(rows.length >= 3);
        for (const r of rows) {
          assert.equal(r.data, r.both, r.id);
          assert.equal(r.indexes, r.both_indexes, r.id);
        }
      } finally {
        await client.end();
      }
    });
  },
);
