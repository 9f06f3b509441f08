// The SQL corpus (test/fixtures/search-sql/corpus.json): statements over the three election resources with
// PostgreSQL 15's answers as CKAN renders them, recorded by generate-corpus.mjs there. Every statement goes
// through prepareSearchSql and the embedded store (the election database of the test harness), and must give
// PostgreSQL's columns, types and values, or its error. Rows of statements not marked "ordered" are compared
// as a multiset.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { toApiError } from '../../src/errors.js';
import { RawJson } from '../../src/serialize/python-json.js';
import { PROJECT_ROOT } from '../../src/settings.js';
import { initSearchSql, prepareSearchSql, renderSqlValue, type SqlResourceInfo } from '../../src/sql/user-sql/index.js';
import type { SqliteVersion } from '../../src/storage/sqlite/backend.js';
import { startService, type TestService } from '../helpers/service.js';

interface CorpusEntry {
  name: string;
  ordered: boolean;
  sql: string;
  expect:
    { columns: { id: string; type: string }[]; records: unknown[][] } | { error: { status: number; message: string } };
}

const corpus = JSON.parse(
  fs.readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'search-sql', 'corpus.json'), 'utf8'),
) as {
  queries: CorpusEntry[];
};

/** The backend's connection: the runtime functions must be registered on the connection that runs the SQL. */
let service: TestService;
let backend: SqliteVersion;
let lookup: (id: string) => SqlResourceInfo | undefined;

before(async () => {
  await initSearchSql();
  service = await startService();
  backend = service.prepared.services.backend as SqliteVersion;
  lookup = (id) => {
    const resource = service.prepared.services.catalog.get(id);
    return resource && resource.dataset
      ? { id: resource.id, fields: resource.fields, fullTextLanguage: backend.indexLanguage }
      : undefined;
  };
});

after(async () => {
  await service.close();
});

/**
 * A rendered cell as JSON reads it (float cells come as RawJson where Python's repr differs from JavaScript's). A
 * numeric is a JSON number written with str(Decimal)'s digits, which is what the corpus records: compared as that text,
 * exactly, rather than through a double.
 */
function jsonValue(value: unknown, type: string): unknown {
  if (type === 'numeric' && value !== null) {
    assert.ok(value instanceof RawJson, 'numeric cells are raw JSON numbers');
    return value.text;
  }
  return value instanceof RawJson ? JSON.parse(value.text) : value;
}

async function run(
  sql: string,
): Promise<
  { columns: { id: string; type: string }[]; records: unknown[][] } | { error: { status: number; message: string } }
> {
  try {
    const prepared = prepareSearchSql(sql, lookup, { maxRows: 32000 });
    const rows = (await backend.userSql(prepared.sqlite, 20_000)).rows;
    assert.ok(rows.length <= 32001, 'at most maxRows + 1 rows');
    const records = rows.map((row) =>
      row.map((cell, i) => jsonValue(renderSqlValue(cell, prepared.columns[i]!.type), prepared.columns[i]!.type)),
    );
    return { columns: prepared.columns, records };
  } catch (thrown) {
    const err = toApiError(thrown, () => assert.fail(thrown as Error));
    const query = (err.validation?.['query'] as string[] | undefined)?.[0];
    return { error: { status: err.status, message: query ?? err.message } };
  }
}

function canonical(records: unknown[][], ordered: boolean): string[] {
  const rows = records.map((r) => JSON.stringify(r));
  return ordered ? rows : rows.sort();
}

test('the corpus covers at least 100 statements', () => {
  assert.ok(corpus.queries.length >= 100, `${corpus.queries.length} statements`);
  const names = new Set(corpus.queries.map((q) => q.name));
  assert.equal(names.size, corpus.queries.length, 'statement names are unique');
});

for (const entry of corpus.queries) {
  test(`corpus: ${entry.name}`, async () => {
    const actual = await run(entry.sql);
    if ('error' in entry.expect) {
      assert.deepEqual(actual, { error: entry.expect.error }, entry.sql);
      return;
    }
    assert.ok(!('error' in actual), `${entry.sql}\nfailed: ${'error' in actual ? actual.error.message : ''}`);
    if ('error' in actual) return;
    assert.deepEqual(actual.columns, entry.expect.columns, entry.sql);
    assert.deepEqual(
      canonical(actual.records, entry.ordered),
      canonical(entry.expect.records, entry.ordered),
      entry.sql,
    );
  });
}
