// Records rendered whole by SQLite (a page's JSON objects or lists, a CSV or TSV line) against the writers that render
// the same records from their values: byte for byte, over generated values of every field type, and on a resource
// too wide for a chain of `||` (SQLite refuses an expression more than 1,000 deep).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { csvSource, type FieldDefinition, type FieldInfo, type ResourceDefinition } from '../../src/catalog/types.js';
import { numberText, type StoredValue } from '../../src/catalog/values.js';
import { registerTextSearch } from '../../src/dialect/sqlite/functions.js';
import { doubleTextSql } from '../../src/dialect/sqlite/lines.js';
import { ApiError } from '../../src/errors.js';
import type { SearchPlan } from '../../src/query/plan.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch, type PlanOptions, type PlanResource } from '../../src/query/search-plan.js';
import {
  delimitedText,
  delimitedWriter,
  jsonArray,
  listWriter,
  objectWriter,
  type ResultColumn,
} from '../../src/serialize/records.js';
import { sqliteCompiler } from '../../src/sql/sqlite/search.js';
import type { SqliteStore } from '../../src/storage/sqlite/backend.js';
import { SqliteDatabaseBuilder } from '../../src/storage/sqlite/builder.js';
import { SqliteRowEncoder } from '../../src/storage/sqlite/row-encoder.js';
import { openSqliteStore } from '../../src/stores.js';

const field = (id: string, type: FieldDefinition['type']): FieldDefinition => ({
  id,
  type,
  column: id,
  format: 'ISO',
  index: false,
});

const TYPED: FieldDefinition[] = [
  field('Name "quoted"', 'text'),
  field('Amount', 'numeric'),
  field('Count', 'int4'),
  field('Big', 'int8'),
  field('Ratio', 'float8'),
  field('Elected', 'bool'),
  field('At', 'timestamp'),
  field('Día', 'date'),
];

/** Values as a load stores them, of every kind each type holds: the awkward ones more often than chance would. */
const VALUES = (
  [
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom('', 'Dún Laoghaire', 'a,b', 'say "hi"', 'tab\there', 'line\nbreak', '\u2028\u0000\u007f', '😀'),
    ),
    fc.oneof(
      fc.constantFrom('12.50', '0.0000001', '0.0', '100000', '123456789012345678901234567890.5', '3'),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    ),
    fc.integer({ min: -2147483648, max: 2147483647 }),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    // Finite, as loads keep them (an infinite or NaN float8 is refused).
    fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 0.1, 1e300, 5e-324, 123.456)),
    fc.boolean(),
    fc.constantFrom('2020-02-08T09:00:00', '1999-12-31T23:59:59.5', '2024-11-29T18:30:00.123456'),
    fc.constantFrom('2020-02-08', '1916-04-24'),
  ] as fc.Arbitrary<StoredValue>[]
).map((values) => fc.option(values, { freq: 5 }));

const ROWS = fc.sample(fc.tuple(...VALUES), { numRuns: 400, seed: 42 });

/** A resource of 700 text fields; each value names its record and field, with a comma and a quote for CSV to quote. */
const WIDE = Array.from({ length: 700 }, (_, i) => field(`f${i}`, 'text'));

async function buildStore(dir: string): Promise<SqliteStore> {
  const file = path.join(dir, 'db.sqlite');
  const builder = new SqliteDatabaseBuilder(file, 'english');
  const load = async (definition: ResourceDefinition, rows: readonly StoredValue[][]) =>
    builder.loadResource(
      definition,
      { id: definition.id, sourceSha256: 'x', specHash: 'y', source: 'x.csv' },
      async (write) => {
        const encoder = new SqliteRowEncoder(definition.fields, 'english', write);
        for (const row of rows) await encoder.insert(row, undefined);
        await encoder.flush();
        return encoder.facts();
      },
    );
  const definition = (id: string, fields: FieldDefinition[]): ResourceDefinition => ({
    id,
    name: id,
    description: '',
    datasetName: 'd',
    source: csvSource('x.csv'),
    indexes: [],
    role: null,
    fields,
  });
  await load(definition('typed', TYPED), ROWS);
  await load(
    definition('wide', WIDE),
    [0, 1].map((r) => WIDE.map((_, i) => `${r}:${i},"`)),
  );
  builder.commit({ datasetVersion: 'v1', catalog: '{"datasets": []}' });
  return openSqliteStore(file);
}

function resourceOf(id: string, definitions: FieldDefinition[], total: number): PlanResource {
  const fields: FieldInfo[] = [{ id: '_id', type: 'int' }, ...definitions.map((f) => ({ id: f.id, type: f.type }))];
  return { id, fields, fieldById: new Map(fields.map((f) => [f.id, f])), total };
}

describe('records rendered by SQLite', () => {
  let dir: string;
  let store: SqliteStore;
  const { compileSearch } = sqliteCompiler({ indexLanguage: 'english' });

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-rendered-'));
    store = await buildStore(dir);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const plan = (
    resource: PlanResource,
    input: Record<string, unknown>,
    options: Omit<PlanOptions, 'defaultLanguage'>,
  ) => {
    const result = planSearch(
      readSearchRequest({ resource_id: resource.id, limit: 1000, ...input }, { rowsDefault: 100, rowsMax: 32000 }),
      resource,
      { defaultLanguage: 'english', ...options },
    );
    if (result instanceof ApiError) assert.fail(JSON.stringify(result.validation));
    return result;
  };
  const columnsOf = (p: SearchPlan): ResultColumn[] =>
    p.columns.map((c) => (c.kind === 'field' ? { id: c.id, type: c.field.type } : { id: c.id, type: 'float' }));

  /** The page as SQLite renders it, and as the writers render the values of the same page. */
  async function both(resource: PlanResource, input: Record<string, unknown>, timestampMilliseconds: boolean) {
    const format = (input['records_format'] as string | undefined) ?? 'objects';
    const rendered = { timestampMilliseconds };
    const values = plan(resource, input, {});
    const whole = plan(resource, input, { delimited: rendered, json: rendered });
    assert.ok(whole.jsonRecords || whole.delimitedLines, 'the plan asks for whole records');
    assert.equal(values.jsonRecords, null);
    const valueRows = await store.current.rows(compileSearch(values));
    const renderedRows = await store.current.rows(compileSearch(whole));
    assert.ok(renderedRows.every((row) => row.length === 1 && typeof row[0] === 'string'));
    const columns = columnsOf(values);
    const texts = renderedRows.map((row) => row[0] as string);
    if (format === 'csv' || format === 'tsv') {
      const writer = delimitedWriter(columns, format === 'csv' ? ',' : '\t', rendered);
      return { store: texts.join(''), writers: delimitedText(writer, valueRows) };
    }
    const writer = (format === 'lists' ? listWriter : objectWriter)(columns, rendered);
    return { store: `[${texts.join(',')}]`, writers: jsonArray(writer, valueRows) };
  }

  test('every type, every format, to the second and to the millisecond: the same text as the writers', async () => {
    const resource = resourceOf('typed', TYPED, ROWS.length);
    for (const records_format of ['objects', 'lists', 'csv', 'tsv'])
      for (const ms of [false, true]) {
        const { store: byStore, writers } = await both(resource, { records_format }, ms);
        assert.equal(byStore, writers, `${records_format}, milliseconds ${ms}`);
        if (records_format === 'objects') assert.equal(JSON.parse(byStore).length, ROWS.length);
      }
  });

  test('named fields in any order, sorted and filtered pages: JSON rendered by the store', async () => {
    const resource = resourceOf('typed', TYPED, ROWS.length);
    const inputs = [
      { fields: 'Ratio,_id,Name "quoted"', sort: 'Ratio desc' },
      { fields: 'At,Elected', records_format: 'lists', sort: 'Amount', offset: 7, limit: 50 },
      { filters: { Elected: true }, sort: 'Count desc, Big' },
    ];
    for (const input of inputs) {
      const { store: byStore, writers } = await both(resource, input, false);
      assert.equal(byStore, writers, JSON.stringify(input));
    }
  });

  test('not rendered by the store: ranks, distinct records, and a presenter that asked for values', () => {
    const resource = resourceOf('typed', TYPED, ROWS.length);
    const rendered = { delimited: { timestampMilliseconds: false }, json: { timestampMilliseconds: false } };
    assert.equal(plan(resource, { q: 'murphy' }, rendered).jsonRecords, null);
    assert.equal(plan(resource, { distinct: true, fields: 'Elected' }, rendered).jsonRecords, null);
    assert.equal(plan(resource, {}, { delimited: rendered.delimited }).jsonRecords, null);
    assert.deepEqual(plan(resource, { records_format: 'lists' }, rendered).jsonRecords, {
      lists: true,
      timestampMilliseconds: false,
    });
  });

  test('700 fields: lines and JSON are joined as a balanced tree, within SQLite’s expression depth', async () => {
    const resource = resourceOf('wide', WIDE, 2);
    for (const records_format of ['objects', 'lists', 'csv', 'tsv']) {
      const { store: byStore, writers } = await both(resource, { records_format }, false);
      assert.equal(byStore, writers, records_format);
    }
    const [first] = JSON.parse((await both(resource, {}, false)).store) as Record<string, unknown>[];
    assert.equal(Object.keys(first!).length, 701);
    assert.equal(first!['f699'], '0:699,"');
  });
});

test("a double's digits: SQLite's own where they are PostgreSQL's, JavaScript's elsewhere, the same text either way", () => {
  const db = new Database(':memory:');
  registerTextSearch(db);
  const render = (type: 'float8' | 'numeric') => db.prepare(`SELECT ${doubleTextSql('x', type)} FROM (SELECT ? AS x)`);
  const float8 = render('float8').pluck();
  const numeric = render('numeric').pluck();
  // Which of the two paths a value took: SQLite's digits, asked for alone.
  const own = db
    .prepare(`SELECT abs(x) >= 1e-4 AND abs(x) < 1e15 AND CAST(printf('%.15g', x) AS REAL) = x FROM (SELECT ? AS x)`)
    .pluck();
  let sqlitePath = 0;
  const doubles = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    // Decimals of 1 to 17 significant digits, of every size the fast path takes and either side of its bounds.
    fc
      .tuple(
        fc.integer({ min: 1, max: 17 }),
        fc.double({ min: 1, max: 10, noNaN: true }),
        fc.integer({ min: -6, max: 16 }),
      )
      .map(([precision, mantissa, exponent]) =>
        Number(mantissa.toExponential(precision - 1).replace(/e.*$/, `e${exponent}`)),
      ),
    fc.integer({ min: -1e9, max: 1e9 }).map((cents) => cents / 100),
    fc.constantFrom(1e-4, 9.999999999999999e-5, 1e15, 999999999999999.9, 0.1 + 0.2, 1 / 3, -0, 0, 5e-324, 1e300),
  );
  fc.assert(
    fc.property(doubles, fc.boolean(), (magnitude, negative) => {
      const value = negative ? -magnitude : magnitude;
      assert.equal(float8.get(value), numberText(value, 'float8'), String(value));
      assert.equal(numeric.get(value), numberText(value, 'numeric'), String(value));
      if (own.get(value) === 1) sqlitePath += 1;
    }),
    { numRuns: 20_000 },
  );
  // Both paths were taken, often.
  assert.ok(sqlitePath > 5_000 && sqlitePath < 19_000, String(sqlitePath));
  db.close();
});
