// The SQLite compiler: the exact SQL and parameters for each kind of plan, then that SQL run on a small database
// built through the real loader path, asserting the rows.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { csvSource, type FieldInfo, type ResourceDefinition } from '../../src/catalog/types.js';
import { ApiError } from '../../src/errors.js';
import type { SearchPlan } from '../../src/query/plan.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch, planValueCounts, type PlanResource } from '../../src/query/search-plan.js';
import { sqliteCompiler } from '../../src/sql/sqlite/search.js';
import type { SqliteStore, SqliteVersion } from '../../src/storage/sqlite/backend.js';
import { openSqliteStore } from '../../src/stores.js';
import { SqliteDatabaseBuilder } from '../../src/storage/sqlite/builder.js';
import { SqliteRowEncoder } from '../../src/storage/sqlite/row-encoder.js';

const RID = 'r1';
const definition: ResourceDefinition = {
  id: RID,
  name: 'r',
  description: '',
  datasetName: 'd',
  source: csvSource('x.csv'),
  indexes: [],
  role: null,
  fields: [
    { id: 'Name', type: 'text', column: 'Name', format: 'ISO', index: true },
    { id: 'Votes', type: 'numeric', column: 'Votes', format: 'ISO', index: true },
    { id: 'Party "Id"', type: 'text', column: 'Party "Id"', format: 'ISO', index: true },
  ],
};
const ROWS: [string, number | null, string][] = [
  ['Mary Murphy', 10, 'F.F.'],
  ['John Murphy', null, 'F.G.'],
  ['Ann Byrne', 7, 'F.F.'],
  ['Seán Ó Briain', 10, 'S.F.'],
];
const fields: FieldInfo[] = [{ id: '_id', type: 'int' }, ...definition.fields.map((f) => ({ id: f.id, type: f.type }))];
const resource: PlanResource = {
  id: RID,
  fields,
  fieldById: new Map(fields.map((f) => [f.id, f])),
  total: ROWS.length,
};
const { compileCount, compileSearch, compileValueCounts } = sqliteCompiler({ indexLanguage: 'english' });
/** The row functions' arguments for this resource: its spec, then its values (a numeric's with every digit). */
const ROW = `'english:text,numeric,text', "Name", coalesce("_exact:Votes", "Votes"), "Party ""Id"""`;

function plan(input: Record<string, unknown>): SearchPlan {
  const result = planSearch(
    readSearchRequest({ resource_id: RID, ...input }, { rowsDefault: 100, rowsMax: 32000 }),
    resource,
    { defaultLanguage: 'english' },
  );
  if (result instanceof ApiError) assert.fail(JSON.stringify(result.validation));
  return result;
}

// A numeric field is read with every digit: its exact text where the store keeps one, else the double.
const ALL = '"_id", "Name", coalesce("_exact:Votes", "Votes"), "Party ""Id"""';

describe('SQLite compiler', () => {
  let dir: string;
  let store: SqliteStore;
  let backend: SqliteVersion;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-compiler-'));
    const file = path.join(dir, 'db.sqlite');
    const builder = new SqliteDatabaseBuilder(file, 'english');
    await builder.loadResource(
      definition,
      { id: RID, sourceSha256: 'x', specHash: 'y', source: 'x.csv' },
      async (write) => {
        const encoder = new SqliteRowEncoder(definition.fields, 'english', write);
        for (const row of ROWS) await encoder.insert(row, undefined);
        await encoder.flush();
        return encoder.facts();
      },
    );
    builder.commit({ datasetVersion: 'v1', catalog: '{"datasets": []}' });
    store = await openSqliteStore(file);
    backend = store.current;
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rows = (p: SearchPlan) => backend.rows(compileSearch(p));
  const count = (p: SearchPlan) => backend.count(compileCount(p));

  test('every column, _id order, page parameters bound; a page of the whole resource is found by seeking to its first _id', async () => {
    const p = plan({ limit: 2, offset: 1, records_format: 'lists' });
    assert.deepEqual(compileSearch(p), {
      sql: `SELECT ${ALL} FROM "r1" WHERE "_id" > ? ORDER BY "_id" LIMIT ? OFFSET ?`,
      params: [1, 2, 0],
    });
    assert.deepEqual(await rows(p), [
      [2, 'John Murphy', null, 'F.G.'],
      [3, 'Ann Byrne', 7, 'F.F.'],
    ]);
    const descending = plan({ limit: 2, offset: 1, sort: '_id desc', fields: '_id' });
    assert.deepEqual(compileSearch(descending), {
      sql: 'SELECT "_id" FROM "r1" WHERE "_id" <= ? ORDER BY "_id" DESC NULLS FIRST LIMIT ? OFFSET ?',
      params: [3, 2, 0],
    });
    assert.deepEqual(await rows(descending), [[3], [2]]);
    const first = plan({ limit: 2, records_format: 'lists' });
    assert.deepEqual(compileSearch(first), {
      sql: `SELECT ${ALL} FROM "r1" ORDER BY "_id" LIMIT ? OFFSET ?`,
      params: [2, 0],
    });
    const filtered = plan({ offset: 1, filters: { Votes: 10 }, fields: '_id' });
    assert.match(
      compileSearch(filtered).sql,
      /WHERE "Votes" = \? ORDER BY "_id" LIMIT \? OFFSET \?$/,
      'with a filter, offsets are offsets',
    );
    assert.deepEqual(await rows(filtered), [[4]]);
  });

  test("value counts (the explorer's facets): one grouped statement over the view, most frequent first, nulls last", async () => {
    const counted = (input: Record<string, unknown>, field: string, limit: number) => {
      const result = planValueCounts(
        readSearchRequest({ resource_id: RID, ...input, fields: field }, { rowsDefault: 100, rowsMax: 32000 }),
        resource,
        field,
        limit,
        { defaultLanguage: 'english' },
      );
      if (result instanceof ApiError) assert.fail(JSON.stringify(result.validation));
      return result;
    };
    const all = counted({}, 'Votes', 10);
    assert.deepEqual(compileValueCounts(all), {
      sql: 'SELECT "Votes", count(*) FROM "r1" GROUP BY "Votes" ORDER BY count(*) DESC, "Votes" NULLS LAST LIMIT ?',
      params: [10],
    });
    assert.deepEqual(await backend.rows(compileValueCounts(all)), [
      [10, 2],
      [7, 1],
      [null, 1],
    ]);
    const filtered = counted({ filters: { 'Party "Id"': 'F.F.' } }, 'Votes', 1);
    assert.deepEqual(compileValueCounts(filtered), {
      sql: 'SELECT "Votes", count(*) FROM "r1" WHERE "Party ""Id""" = ? GROUP BY "Votes" ORDER BY count(*) DESC, "Votes" NULLS LAST LIMIT ?',
      params: ['F.F.', 1],
    });
    assert.deepEqual(await backend.rows(compileValueCounts(filtered)), [[7, 1]]);
    const unknown = planValueCounts(
      readSearchRequest({ resource_id: RID, fields: 'Turnout' }, { rowsDefault: 100, rowsMax: 32000 }),
      resource,
      'Turnout',
      10,
      { defaultLanguage: 'english' },
    );
    assert.ok(unknown instanceof ApiError);
    assert.deepEqual(unknown.validation, { fields: ['invalid value "Turnout"'] });
  });

  test('whole records are the values, rendered when answered: no stored text is read', async () => {
    const p = plan({ limit: 1 });
    assert.equal(
      compileSearch(p).sql,
      'SELECT "_id", "Name", coalesce("_exact:Votes", "Votes"), "Party ""Id""" FROM "r1" ORDER BY "_id" LIMIT ? OFFSET ?',
    );
    assert.deepEqual(await rows(p), [[1, 'Mary Murphy', 10, 'F.F.']]);
    const csv = plan({ records_format: 'csv', sort: 'Votes desc', limit: 2 });
    assert.deepEqual(await rows(csv), [
      [2, 'John Murphy', null, 'F.G.'],
      [1, 'Mary Murphy', 10, 'F.F.'],
    ]);
  });

  test('filters: equality, IN through one JSON parameter, IS NULL, OR of alternatives; identifiers quoted', async () => {
    const p = plan({ filters: { 'Party "Id"': ['F.F.', 'S.F.'], Votes: 10 }, fields: '_id' });
    assert.deepEqual(compileSearch(p), {
      sql: 'SELECT "_id" FROM "r1" WHERE ("Party ""Id""" IN (SELECT value FROM json_each(?))) AND ("Votes" = ?) ORDER BY "_id" LIMIT ? OFFSET ?',
      params: ['["F.F.","S.F."]', 10, 100, 0],
    });
    assert.deepEqual(await rows(p), [[1], [4]]);
    const alternatives = plan({ filters: [{ Votes: null }, { Name: 'Ann Byrne' }], fields: '_id' });
    assert.equal(
      compileSearch(alternatives).sql,
      'SELECT "_id" FROM "r1" WHERE ("Votes" IS NULL) OR ("Name" = ?) ORDER BY "_id" LIMIT ? OFFSET ?',
    );
    assert.deepEqual(await rows(alternatives), [[2], [3]]);
    assert.equal(
      compileSearch(plan({ filters: { Votes: [] }, records_format: 'lists' })).sql,
      `SELECT ${ALL} FROM "r1" WHERE 1 = 0 ORDER BY "_id" LIMIT ? OFFSET ?`,
    );
  });

  test('sort: explicit null placement as PostgreSQL orders, _id as the tie-breaker; the page is found first, then fetched', async () => {
    const p = plan({ sort: 'Votes desc', fields: '_id,Votes' });
    assert.equal(
      compileSearch(p).sql,
      'SELECT "_id", coalesce("_exact:Votes", "Votes") FROM "r1" WHERE "_id" IN ' +
        '(SELECT "_id" FROM "r1" ORDER BY "Votes" DESC NULLS FIRST, "_id" LIMIT ? OFFSET ?) ORDER BY "Votes" DESC NULLS FIRST, "_id"',
    );
    assert.deepEqual(await rows(p), [
      [2, null],
      [1, 10],
      [4, 10],
      [3, 7],
    ]);
    const ascending = plan({ sort: 'Votes', fields: '_id' });
    assert.deepEqual(await rows(ascending), [[3], [1], [4], [2]]);
    assert.equal(
      compileSearch(plan({ sort: '_id desc', records_format: 'tsv' })).sql,
      `SELECT ${ALL} FROM "r1" ORDER BY "_id" DESC NULLS FIRST LIMIT ? OFFSET ?`,
    );
  });

  test('a field known to hold no nulls sorts without a NULLS clause, so an index can give the order', () => {
    const noNulls: PlanResource = {
      ...resource,
      fieldById: new Map([...resource.fieldById].map(([id, f]) => [id, { ...f, nullable: id === 'Votes' }])),
    };
    const result = planSearch(
      readSearchRequest(
        { resource_id: RID, sort: 'Name desc, Votes desc', fields: '_id' },
        { rowsDefault: 100, rowsMax: 32000 },
      ),
      noNulls,
      { defaultLanguage: 'english' },
    );
    assert.ok(!(result instanceof ApiError));
    assert.match(compileSearch(result).sql, /ORDER BY "Name" DESC, "Votes" DESC NULLS FIRST, "_id" LIMIT/);
  });

  test('distinct: grouped, ordered by first appearance, counted over distinct rows', async () => {
    const p = plan({ distinct: true, fields: 'Party "Id"' });
    assert.equal(
      compileSearch(p).sql,
      'SELECT "Party ""Id""" FROM "r1" GROUP BY 1 ORDER BY min("_id") LIMIT ? OFFSET ?',
    );
    assert.deepEqual(await rows(p), [['F.F.'], ['F.G.'], ['S.F.']]);
    assert.equal(compileCount(p).sql, 'SELECT count(*) FROM (SELECT DISTINCT "Party ""Id""" FROM "r1") AS counted');
    assert.equal(await count(p), 3);
  });

  test('full text: FTS5 narrows by hex lexeme keys (and decides alone for lexemes joined by & and |), the registered functions match and rank exactly', async () => {
    const p = plan({ q: 'Murphy', fields: '_id,rank' });
    // A function call per candidate row: the statement carries the deadline, so it can be stopped and run elsewhere.
    assert.deepEqual(compileSearch(p), {
      sql:
        `SELECT "_id", cc_row_ts_rank(?, 32, ${ROW}) FROM "r1" WHERE "_id" IN (SELECT "_id" FROM "r1" WHERE ("_id" IN (SELECT rowid FROM "r1__fts" WHERE "r1__fts" MATCH ?)) AND cc_deadline("_id") ` +
        `ORDER BY cc_row_ts_rank(?, 32, ${ROW}) DESC, "_id" LIMIT ? OFFSET ?) ORDER BY cc_row_ts_rank(?, 32, ${ROW}) DESC, "_id"`,
      params: ["'murphi'", `"${Buffer.from('murphi').toString('hex')}"`, "'murphi'", 100, 0, "'murphi'"],
      interruptible: true,
    });
    const phrase = plan({ q: 'Murphy <-> Byrne', plain: false, fields: '_id' });
    assert.match(
      compileSearch(phrase).sql,
      /MATCH \?\) AND cc_row_ts_match\(\?, 'english:text,numeric,text', "Name", /,
      'a phrase is checked row by row',
    );
    assert.deepEqual(await rows(phrase), []);
    // One occurrence among four words: ts_rank 0.1/1.6449 = 0.0608, normalised to 0.0573 and held as a float4.
    assert.deepEqual(await rows(p), [
      [1, Math.fround(0.057308756)],
      [2, Math.fround(0.057308756)],
    ]);
    assert.equal(await count(p), 2);
    const prefix = plan({ q: 'Br:* | Mary', plain: false, fields: '_id' });
    assert.match(compileSearch(prefix).params[0] as string, /^\("6272" \* OR "6d617269"\)$/);
    // "Byrne" stems to byrn, which does not begin with "br"; Briain does.
    assert.deepEqual(await rows(prefix), [[1], [4]]);
  });

  test("full text in one field: matched on the field's own text", async () => {
    const p = plan({ q: { Name: 'Seán' }, fields: '_id' });
    assert.match(compileSearch(p).sql, /cc_ts_match_value\(\?, "Name", \?, \?\)/);
    assert.deepEqual(await rows(p), [[4]]);
  });

  test('ranges: compared on the key expression, each bound a parameter; whole-number bounds made exact', async () => {
    const p = plan({ filters: { Votes: { gt: 7, lte: '10' }, Name: { lt: 'N' } }, fields: '_id' });
    assert.deepEqual(compileSearch(p), {
      sql: 'SELECT "_id" FROM "r1" WHERE ("Votes" > ?) AND ("Votes" <= ?) AND ("Name" < ?) ORDER BY "_id" LIMIT ? OFFSET ?',
      params: [7, 10, 'N', 100, 0],
    });
    assert.deepEqual(await rows(p), [[1]]);
    const ids = plan({ filters: { _id: { gt: 1.5, lt: 1e20 } }, fields: '_id' });
    assert.deepEqual(
      compileSearch(ids).sql,
      'SELECT "_id" FROM "r1" WHERE "_id" >= ? ORDER BY "_id" LIMIT ? OFFSET ?',
      'the bound beyond the range is no bound',
    );
    assert.deepEqual(compileSearch(ids).params[0], 2);
    assert.deepEqual(await rows(ids), [[2], [3], [4]]);
    assert.deepEqual(await rows(plan({ filters: { Votes: [null, { lt: 8 }] }, fields: '_id' })), [[2], [3]]);
  });

  test("_id ranges use the table's own key (EXPLAIN QUERY PLAN; field indexes are checked on a million records)", async () => {
    const query = compileSearch(plan({ filters: { _id: { gt: 2 } } }));
    const explained = (await backend.rows({ sql: `EXPLAIN QUERY PLAN ${query.sql}`, params: query.params }))
      .map((r) => String(r[3]))
      .join('\n');
    assert.match(explained, /SEARCH r1 USING INTEGER PRIMARY KEY \(rowid>\?\)/);
  });

  test('a range on an indexed field in _id order: candidates from the index, not a walk of the table in _id order', async () => {
    const indexed: PlanResource = {
      ...resource,
      fieldById: new Map([...resource.fieldById].map(([id, f]) => [id, { ...f, indexed: id !== '_id' }])),
    };
    const planOn = (input: Record<string, unknown>) => {
      const result = planSearch(
        readSearchRequest({ resource_id: RID, ...input }, { rowsDefault: 100, rowsMax: 32000 }),
        indexed,
        { defaultLanguage: 'english' },
      );
      assert.ok(!(result instanceof ApiError));
      return result;
    };
    const p = planOn({ filters: { Votes: { gte: 8 } }, fields: '_id,Name' });
    assert.deepEqual(compileSearch(p), {
      sql: 'SELECT "_id", "Name" FROM "r1" WHERE "_id" IN (SELECT "_id" FROM "r1" WHERE "Votes" >= ? ORDER BY +"_id" LIMIT ? OFFSET ?) ORDER BY "_id"',
      params: [8, 100, 0],
    });
    assert.deepEqual(await rows(p), [
      [1, 'Mary Murphy'],
      [4, 'Seán Ó Briain'],
    ]);
    const descending = planOn({ filters: { Votes: { gte: 8 } }, sort: '_id desc', fields: '_id', offset: 1 });
    assert.match(compileSearch(descending).sql, /ORDER BY \+"_id" DESC LIMIT \? OFFSET \?\) ORDER BY "_id" DESC$/);
    assert.deepEqual(await rows(descending), [[1]]);
    assert.doesNotMatch(
      compileSearch(planOn({ filters: { Votes: { gte: 8 }, _id: { gt: 1 } } })).sql,
      /\+"_id"/,
      'a bound on _id: walking on from it is the way',
    );
    assert.doesNotMatch(
      compileSearch(planOn({ filters: { Votes: 8 } })).sql,
      /\+"_id"/,
      'equality has good statistics',
    );
    assert.doesNotMatch(
      compileSearch(planOn({ filters: { Votes: { gte: 8 } }, limit: 5000 })).sql,
      /\+"_id"/,
      'large pages read on in order',
    );
  });

  test('keyset: the page after a record, and the keys carried after the output columns', async () => {
    const p = plan({ sort: 'Votes desc', count_centre_after: [10, 1], include_next_page: true, fields: 'Name' });
    assert.deepEqual(compileSearch(p), {
      sql:
        'SELECT "Name", "Votes", "_id" FROM "r1" WHERE "_id" IN (SELECT "_id" FROM "r1" WHERE ("Votes" <= ?) AND (("Votes" < ?) OR (("Votes" = ?) AND ("_id" > ?))) ' +
        'ORDER BY "Votes" DESC NULLS FIRST, "_id" LIMIT ? OFFSET ?) ORDER BY "Votes" DESC NULLS FIRST, "_id"',
      params: [10, 10, 10, 1, 100, 0],
    });
    assert.deepEqual(await rows(p), [
      ['Seán Ó Briain', 10, 4],
      ['Ann Byrne', 7, 3],
    ]);
    const nullFirst = plan({ sort: 'Votes desc', count_centre_after: [null, 2], fields: '_id' });
    assert.deepEqual(await rows(nullFirst), [[1], [4], [3]], 'after the empty cell come the values');
    const nullLast = plan({ sort: 'Votes', count_centre_after: [10, 4], fields: '_id' });
    assert.deepEqual(await rows(nullLast), [[2]], 'after the last value comes the empty cell');
  });

  test('counting applies the same conditions', async () => {
    assert.deepEqual(compileCount(plan({ filters: { Votes: 10 } })), {
      sql: 'SELECT count(*) FROM "r1" WHERE "Votes" = ?',
      params: [10],
    });
    assert.equal(await count(plan({ filters: { Votes: 10 } })), 2);
  });
});
