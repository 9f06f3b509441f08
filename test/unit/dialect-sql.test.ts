// Exact SQL for both dialects side by side: each case states a datastore_search request and the statement and
// parameters the SQLite and the PostgreSQL compilers make of it, so that a change to either shows next to the other.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csvSource, type FieldInfo, type ResourceDefinition } from '../../src/catalog/types.js';
import type { CompiledQuery } from '../../src/dialect/compiled.js';
import type { SqlCompiler } from '../../src/dialect/compiler.js';
import { ApiError } from '../../src/errors.js';
import type { SearchPlan } from '../../src/query/plan.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch, type PlanResource } from '../../src/query/search-plan.js';
import { sqlCompilerFor } from '../../src/sql/compilers.js';

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
    { id: 'Party', type: 'text', column: 'Party', format: 'ISO', index: false },
  ],
};
const fields: FieldInfo[] = [{ id: '_id', type: 'int' }, ...definition.fields.map((f) => ({ id: f.id, type: f.type }))];

function planOf(input: Record<string, unknown>, total = 1000, withFields: FieldInfo[] = fields): SearchPlan {
  const resource: PlanResource = {
    id: RID,
    fields: withFields,
    fieldById: new Map(withFields.map((f) => [f.id, f])),
    total,
  };
  const result = planSearch(
    readSearchRequest({ resource_id: RID, ...input }, { rowsDefault: 100, rowsMax: 32000 }),
    resource,
    { defaultLanguage: 'english' },
  );
  if (result instanceof ApiError) assert.fail(JSON.stringify(result.validation));
  return result;
}

const COMPILERS: Record<'sqlite' | 'postgres', SqlCompiler> = {
  sqlite: sqlCompilerFor({ dialect: 'sqlite', indexLanguage: 'english' }),
  postgres: sqlCompilerFor({ dialect: 'postgres', schema: 'countcentre', tables: new Map([[RID, 'r1@3']]) }),
};

/** What a case compiles: the page of a request, or its count. */
type Compile = (compiler: SqlCompiler, plan: SearchPlan) => CompiledQuery;
const page: Compile = (compiler, plan) => compiler.compileSearch(plan);
const count: Compile = (compiler, plan) => compiler.compileCount(plan);

/** Kysely's testSql: one request, and what each dialect makes of it. */
function testSql(
  input: Record<string, unknown>,
  expected: Record<'sqlite' | 'postgres', CompiledQuery>,
  options: { compile?: Compile; total?: number; fields?: FieldInfo[] } = {},
): void {
  const plan = planOf(input, options.total, options.fields);
  const compile = options.compile ?? page;
  for (const dialect of ['sqlite', 'postgres'] as const)
    assert.deepEqual(compile(COMPILERS[dialect], plan), expected[dialect], dialect);
}

/** The embedded store's row functions' arguments for this resource: its spec, then its values. */
const ROW = `'english:text,numeric,text', "Name", coalesce("_exact:Votes", "Votes"), "Party"`;

describe('exact SQL, SQLite and PostgreSQL side by side', () => {
  test("a plain page: each record's values, in _id order, the page bound", () => {
    testSql(
      { limit: 2 },
      {
        sqlite: {
          sql: 'SELECT "_id", "Name", coalesce("_exact:Votes", "Votes"), "Party" FROM "r1" ORDER BY "_id" LIMIT ? OFFSET ?',
          params: [2, 0],
        },
        postgres: {
          sql: 'SELECT "_id", "Name", "Votes", "Party" FROM "countcentre"."r1@3" ORDER BY "_id" LIMIT $1 OFFSET $2',
          params: [2, 0],
        },
      },
    );
  });

  test('a deep page of the whole resource seeks to its first _id', () => {
    testSql(
      { limit: 2, offset: 500 },
      {
        sqlite: {
          sql: 'SELECT "_id", "Name", coalesce("_exact:Votes", "Votes"), "Party" FROM "r1" WHERE "_id" > ? ORDER BY "_id" LIMIT ? OFFSET ?',
          params: [500, 2, 0],
        },
        postgres: {
          sql: 'SELECT "_id", "Name", "Votes", "Party" FROM "countcentre"."r1@3" WHERE "_id" > $1 ORDER BY "_id" LIMIT $2 OFFSET $3',
          params: [500, 2, 0],
        },
      },
    );
  });

  test('filters: a list, an equality, chosen fields', () => {
    testSql(
      { filters: { Party: ['F.F.', 'S.F.'], Votes: 10 }, fields: 'Name,Votes' },
      {
        sqlite: {
          sql: 'SELECT "Name", coalesce("_exact:Votes", "Votes") FROM "r1" WHERE ("Party" IN (SELECT value FROM json_each(?))) AND ("Votes" = ?) ORDER BY "_id" LIMIT ? OFFSET ?',
          params: ['["F.F.","S.F."]', 10, 100, 0],
        },
        postgres: {
          sql: 'SELECT "Name", "Votes" FROM "countcentre"."r1@3" WHERE ("Party" COLLATE "C" = ANY($1::text[])) AND ("Votes" = $2) ORDER BY "_id" LIMIT $3 OFFSET $4',
          params: [['F.F.', 'S.F.'], 10, 100, 0],
        },
      },
    );
  });

  test('a range filter', () => {
    testSql(
      { filters: { Votes: { gte: 5, lt: 10 } }, fields: '_id' },
      {
        sqlite: {
          sql: 'SELECT "_id" FROM "r1" WHERE ("Votes" >= ?) AND ("Votes" < ?) ORDER BY "_id" LIMIT ? OFFSET ?',
          params: [5, 10, 100, 0],
        },
        postgres: {
          sql: 'SELECT "_id" FROM "countcentre"."r1@3" WHERE ("Votes" >= $1) AND ("Votes" < $2) ORDER BY "_id" LIMIT $3 OFFSET $4',
          params: [5, 10, 100, 0],
        },
      },
    );
  });

  test('full text on the whole record, ranked', () => {
    testSql(
      { q: 'murphy', fields: 'Name' },
      {
        sqlite: {
          sql: `SELECT "Name" FROM "r1" WHERE "_id" IN (SELECT "_id" FROM "r1" WHERE ("_id" IN (SELECT rowid FROM "r1__fts" WHERE "r1__fts" MATCH ?)) AND cc_deadline("_id") ORDER BY cc_row_ts_rank(?, 32, ${ROW}) DESC, "_id" LIMIT ? OFFSET ?) ORDER BY cc_row_ts_rank(?, 32, ${ROW}) DESC, "_id"`,
          params: ['"6d7572706869"', "'murphi'", 100, 0, "'murphi'"],
          interruptible: true,
        },
        postgres: {
          sql: 'SELECT "Name" FROM "countcentre"."r1@3" WHERE "_full_text" @@ $1::tsquery ORDER BY ts_rank("_full_text", $2::tsquery, 32) DESC, "_id" LIMIT $3 OFFSET $4',
          params: ["'murphi'", "'murphi'", 100, 0],
        },
      },
    );
  });

  test('full text with a negation: the index narrows, @@ decides', () => {
    testSql(
      { q: 'murphy & !mary', plain: false, fields: '_id', sort: '_id' },
      {
        sqlite: {
          sql: `SELECT "_id" FROM "r1" WHERE ("_id" IN (SELECT rowid FROM "r1__fts" WHERE "r1__fts" MATCH ?) AND cc_row_ts_match(?, ${ROW})) AND cc_deadline("_id") ORDER BY "_id" NULLS LAST LIMIT ? OFFSET ?`,
          params: ['"6d7572706869"', "'murphi' & !'mari'", 100, 0],
          interruptible: true,
        },
        postgres: {
          sql: 'SELECT "_id" FROM "countcentre"."r1@3" WHERE "_full_text" @@ $1::tsquery ORDER BY "_id" NULLS LAST LIMIT $2 OFFSET $3',
          params: ["'murphi' & !'mari'", 100, 0],
        },
      },
    );
  });

  test('full text on one field', () => {
    testSql(
      { q: { Name: 'murphy' }, fields: '_id' },
      {
        sqlite: {
          sql: 'SELECT "_id" FROM "r1" WHERE "_id" IN (SELECT "_id" FROM "r1" WHERE ("_id" IN (SELECT rowid FROM "r1__fts" WHERE "r1__fts" MATCH ?) AND cc_ts_match_value(?, "Name", ?, ?)) AND cc_deadline("_id") ORDER BY cc_ts_rank_value(?, "Name", ?, ?, 32) DESC, "_id" LIMIT ? OFFSET ?) ORDER BY cc_ts_rank_value(?, "Name", ?, ?, 32) DESC, "_id"',
          params: [
            '"6d7572706869"',
            'english',
            'text',
            "'murphi'",
            'english',
            'text',
            "'murphi'",
            100,
            0,
            'english',
            'text',
            "'murphi'",
          ],
          interruptible: true,
        },
        postgres: {
          sql: 'SELECT "_id" FROM "countcentre"."r1@3" WHERE to_tsvector($1::regconfig, "countcentre".countcentre_fold("Name"::text)) @@ $2::tsquery ORDER BY ts_rank(to_tsvector($3::regconfig, "countcentre".countcentre_fold("Name"::text)), $4::tsquery, 32) DESC, "_id" LIMIT $5 OFFSET $6',
          params: ['english', "'murphi'", 'english', "'murphi'", 100, 0],
        },
      },
    );
  });

  test('sort by fields, ties by _id', () => {
    testSql(
      { sort: 'Votes desc, Name', limit: 5, fields: 'Name' },
      {
        sqlite: {
          sql: 'SELECT "Name" FROM "r1" WHERE "_id" IN (SELECT "_id" FROM "r1" ORDER BY "Votes" DESC NULLS FIRST, "Name" NULLS LAST, "_id" LIMIT ? OFFSET ?) ORDER BY "Votes" DESC NULLS FIRST, "Name" NULLS LAST, "_id"',
          params: [5, 0],
        },
        postgres: {
          sql: 'SELECT "Name" FROM "countcentre"."r1@3" ORDER BY "Votes" DESC NULLS FIRST, "Name" COLLATE "C" NULLS LAST, "_id" LIMIT $1 OFFSET $2',
          params: [5, 0],
        },
      },
    );
  });

  test('distinct', () => {
    testSql(
      { distinct: true, fields: 'Party', sort: 'Party' },
      {
        sqlite: {
          sql: 'SELECT "Party" FROM "r1" GROUP BY 1 ORDER BY "Party" NULLS LAST, min("_id") LIMIT ? OFFSET ?',
          params: [100, 0],
        },
        postgres: {
          sql: 'SELECT "Party" FROM "countcentre"."r1@3" GROUP BY 1 ORDER BY "Party" COLLATE "C" NULLS LAST, min("_id") LIMIT $1 OFFSET $2',
          params: [100, 0],
        },
      },
    );
  });

  test('the count of a filtered request', () => {
    testSql(
      { filters: { Party: 'F.F.' } },
      {
        sqlite: { sql: 'SELECT count(*) FROM "r1" WHERE "Party" = ?', params: ['F.F.'] },
        postgres: { sql: 'SELECT count(*) FROM "countcentre"."r1@3" WHERE "Party" COLLATE "C" = $1', params: ['F.F.'] },
      },
      { compile: count },
    );
  });

  test('the count of a full-text request', () => {
    testSql(
      { q: 'murphy' },
      {
        sqlite: {
          sql: 'SELECT count(*) FROM "r1" WHERE ("_id" IN (SELECT rowid FROM "r1__fts" WHERE "r1__fts" MATCH ?)) AND cc_deadline("_id")',
          params: ['"6d7572706869"'],
          interruptible: true,
        },
        postgres: {
          sql: 'SELECT count(*) FROM "countcentre"."r1@3" WHERE "_full_text" @@ $1::tsquery',
          params: ["'murphi'"],
        },
      },
      { compile: count },
    );
  });

  test('the count of distinct records', () => {
    testSql(
      { distinct: true, fields: 'Party' },
      {
        sqlite: { sql: 'SELECT count(*) FROM (SELECT DISTINCT "Party" FROM "r1") AS counted', params: [] },
        postgres: {
          sql: 'SELECT count(*) FROM (SELECT DISTINCT "Party" FROM "countcentre"."r1@3") AS counted',
          params: [],
        },
      },
      { compile: count },
    );
  });

  test('keyset: the page after a record, its keys carried', () => {
    testSql(
      { sort: 'Votes desc', count_centre_after: [10, 1], include_next_page: true, fields: 'Name' },
      {
        sqlite: {
          sql: 'SELECT "Name", "Votes", "_id" FROM "r1" WHERE "_id" IN (SELECT "_id" FROM "r1" WHERE ("Votes" <= ?) AND (("Votes" < ?) OR (("Votes" = ?) AND ("_id" > ?))) ORDER BY "Votes" DESC NULLS FIRST, "_id" LIMIT ? OFFSET ?) ORDER BY "Votes" DESC NULLS FIRST, "_id"',
          params: [10, 10, 10, 1, 100, 0],
        },
        postgres: {
          sql: 'SELECT "Name", "Votes", "_id" FROM "countcentre"."r1@3" WHERE ("Votes" <= $1) AND (("Votes" < $2) OR (("Votes" = $3) AND ("_id" > $4))) ORDER BY "Votes" DESC NULLS FIRST, "_id" LIMIT $5 OFFSET $6',
          params: [10, 10, 10, 1, 100, 0],
        },
      },
    );
  });

  test('keyset where an index holds the whole order: the page from a seek to the start of each stretch', () => {
    // Votes full (no empty cells) and, like every field here, indexed in both directions as each store builds them.
    const indexed = fields.map((f) =>
      f.id === '_id'
        ? f
        : {
            ...f,
            ...(f.id === 'Votes' ? { nullable: false } : {}),
            indexed: true,
            sortIndexed: true,
            sortIndexedDescending: true,
          },
    );
    // The records of 10 votes after _id 1 (in _id order), then those of fewer votes: each a stretch of the index
    // ("Votes" DESC, "_id"), read in its order.
    const stretches = (table: string, $: (n: number) => string) =>
      `SELECT "_id" FROM (SELECT * FROM (SELECT "_id", "Votes" FROM ${table} WHERE ("Votes" = ${$(1)}) AND ("_id" > ${$(2)}) ORDER BY "_id" LIMIT ${$(3)}) AS seek0 UNION ALL SELECT * FROM (SELECT "_id", "Votes" FROM ${table} WHERE "Votes" < ${$(4)} ORDER BY "Votes" DESC, "_id" LIMIT ${$(5)}) AS seek1) AS seeks ORDER BY "Votes" DESC, "_id" LIMIT ${$(6)} OFFSET ${$(7)}`;
    testSql(
      { sort: 'Votes desc', count_centre_after: [10, 1], include_next_page: true, fields: 'Name', limit: 5, offset: 2 },
      {
        sqlite: {
          sql: `SELECT "Name", "Votes", "_id" FROM "r1" WHERE "_id" IN (${stretches('"r1"', () => '?')}) ORDER BY "Votes" DESC, "_id"`,
          params: [10, 1, 7, 10, 7, 5, 2],
        },
        postgres: {
          sql: `SELECT "Name", "Votes", "_id" FROM "countcentre"."r1@3" WHERE "_id" IN (${stretches('"countcentre"."r1@3"', (n) => `$${n}`)}) ORDER BY "Votes" DESC, "_id"`,
          params: [10, 1, 7, 10, 7, 5, 2],
        },
      },
      { fields: indexed },
    );
    // A text field with empty cells, ascending: after its value's ties, the greater values (no empty cells among
    // them, so no placement of them to sort by), then the empty cells (in _id order).
    const name = (table: string, $: (n: number) => string, key: string) =>
      `SELECT "_id" FROM (SELECT * FROM (SELECT "_id", "Name" FROM ${table} WHERE (${key} = ${$(1)}) AND ("_id" > ${$(2)}) ORDER BY "_id" LIMIT ${$(3)}) AS seek0 UNION ALL SELECT * FROM (SELECT "_id", "Name" FROM ${table} WHERE ${key} > ${$(4)} ORDER BY ${key}, "_id" LIMIT ${$(5)}) AS seek1 UNION ALL SELECT * FROM (SELECT "_id", "Name" FROM ${table} WHERE "Name" IS NULL ORDER BY "_id" LIMIT ${$(6)}) AS seek2) AS seeks ORDER BY ${key} NULLS LAST, "_id" LIMIT ${$(7)} OFFSET ${$(8)}`;
    testSql(
      { sort: 'Name', count_centre_after: ['Bo', 4], fields: '_id', limit: 3 },
      {
        sqlite: {
          sql: `SELECT "_id" FROM "r1" WHERE "_id" IN (${name('"r1"', () => '?', '"Name"')}) ORDER BY "Name" NULLS LAST, "_id"`,
          params: ['Bo', 4, 3, 'Bo', 3, 3, 3, 0],
        },
        postgres: {
          sql: `SELECT "_id" FROM "countcentre"."r1@3" WHERE "_id" IN (${name('"countcentre"."r1@3"', (n) => `$${n}`, '"Name" COLLATE "C"')}) ORDER BY "Name" COLLATE "C" NULLS LAST, "_id"`,
          params: ['Bo', 4, 3, 'Bo', 3, 3, 3, 0],
        },
      },
      { fields: indexed },
    );
    // Filtered, the candidates come from the filter: one statement, as before.
    const filtered = planOf(
      { sort: 'Votes desc', count_centre_after: [10, 1], filters: { Party: 'X' } },
      1000,
      indexed,
    );
    for (const dialect of ['sqlite', 'postgres'] as const)
      assert.doesNotMatch(COMPILERS[dialect].compileSearch(filtered).sql, /UNION ALL/, dialect);
  });
});
