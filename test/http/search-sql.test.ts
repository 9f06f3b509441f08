// datastore_search_sql over HTTP on both backends: the corpus of statements with answers fixed from PostgreSQL, the
// attack corpus (and the data untouched after it), the row cap, the time limit — with other requests served while a
// slow statement is cancelled — and ckan.js's SQL client.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PROJECT_ROOT } from '../../src/settings.js';
import {
  RESOURCE_A,
  RESOURCE_B,
  RESOURCE_C,
  startService,
  TEST_BACKENDS,
  type TestService,
} from '../helpers/service.js';

const FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'search-sql');

interface CorpusEntry {
  name: string;
  ordered: boolean;
  sql: string;
  expect:
    { columns: { id: string; type: string }[]; records: unknown[][] } | { error: { status: number; message: string } };
}
type AttackExpectation = 'allowed' | 'deadline' | { status: number; type: string; message?: string };
interface Attack {
  name: string;
  sql: string;
  expect: AttackExpectation;
}

const corpus = (JSON.parse(readFileSync(path.join(FIXTURES, 'corpus.json'), 'utf8')) as { queries: CorpusEntry[] })
  .queries;
const attacks = (JSON.parse(readFileSync(path.join(FIXTURES, 'attacks.json'), 'utf8')) as { attacks: Attack[] })
  .attacks;

/**
 * An expected row as the API gives it: an object, where a repeated column name keeps its first place and last value.
 */
function asRecord(columns: { id: string }[], row: unknown[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  columns.forEach((c, i) => {
    record[c.id] = row[i];
  });
  return record;
}

const SQL_TIMEOUT_MS = 300;

/**
 * Where PostgreSQL itself answers differently because the resources it exposes are views of CKAN's columns, not the
 * tables (docs/compatibility.md): a view has no primary key, so grouping by _id does not make the other columns
 * functionally dependent on it.
 */
const POSTGRES_VIEW_DIVERGENCES: Record<string, { status: number; message: string }> = {
  'group-by-primary-key': {
    status: 409,
    message: `column "${RESOURCE_A}.Surname" must appear in the GROUP BY clause or be used in an aggregate function`,
  },
};

for (const backend of TEST_BACKENDS)
  describe(`datastore_search_sql [${backend}]`, () => {
    let service: TestService;
    const sql = (statement: string) =>
      service.request({
        method: 'POST',
        url: '/api/3/action/datastore_search_sql',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ sql: statement }),
      });

    before(async () => {
      service = await startService({ sqlTimeoutMs: SQL_TIMEOUT_MS }, backend);
    });
    after(() => service.close());

    describe('the corpus (answers fixed from PostgreSQL)', () => {
      for (const entry of corpus) {
        test(entry.name, async () => {
          const response = await sql(entry.sql);
          const body = JSON.parse(response.body);
          const failure =
            'error' in entry.expect
              ? entry.expect.error
              : backend === 'postgres'
                ? POSTGRES_VIEW_DIVERGENCES[entry.name]
                : undefined;
          if (failure) {
            assert.equal(response.statusCode, failure.status, `${entry.sql}\n→ ${response.body.slice(0, 300)}`);
            assert.equal(body.error.query?.[0] ?? body.error.message, failure.message);
            return;
          }
          if ('error' in entry.expect) return;
          assert.equal(response.statusCode, 200, `${entry.sql}\n→ ${response.body.slice(0, 300)}`);
          const answer = entry.expect;
          assert.deepEqual(body.result.fields, answer.columns);
          // numeric values are JSON numbers since CKAN 2.11, with str(Decimal)'s digits, which the corpus records as
          // text:
          // compared by value here, and each one's exact text must be in the body.
          const ids = answer.columns.map((c) => c.id);
          // Of columns sharing a name, the record keeps the last one's value.
          const numeric = answer.columns.map((c, i) => c.type === 'numeric' && ids.lastIndexOf(c.id) === i);
          for (const row of answer.records) {
            row.forEach((cell, i) => {
              if (numeric[i] && cell !== null)
                assert.match(
                  response.body,
                  new RegExp(`: ${String(cell).replace(/[.+]/g, '\\$&')}[,}]`),
                  `${cell} written exactly`,
                );
            });
          }
          const expected = answer.records.map((row) =>
            JSON.stringify(
              asRecord(
                answer.columns,
                row.map((cell, i) => (answer.columns[i]!.type === 'numeric' && cell !== null ? Number(cell) : cell)),
              ),
            ),
          );
          const actual = (body.result.records as unknown[]).map((r) => JSON.stringify(r));
          if (entry.ordered) assert.deepEqual(actual, expected);
          else assert.deepEqual([...actual].sort(), [...expected].sort());
        });
      }
    });

    describe('the attack corpus', () => {
      let before: string;
      const fingerprint = async () => {
        const parts: string[] = [];
        for (const id of [RESOURCE_A, RESOURCE_B, RESOURCE_C])
          parts.push((await service.request(`/datastore/dump/${id}`)).body);
        parts.push((await service.request('/api/3/action/datastore_search?resource_id=_table_metadata')).body);
        return createHash('sha256').update(parts.join('\n')).digest('hex');
      };

      test('fingerprint of the data before', async () => {
        before = await fingerprint();
        assert.match(before, /^[0-9a-f]{64}$/);
      });

      for (const attack of attacks) {
        test(`attack: ${attack.name}`, async () => {
          const response = await sql(attack.sql);
          const body = JSON.parse(response.body);
          assert.ok([200, 403, 409].includes(response.statusCode), `${attack.sql} → ${response.statusCode}`);
          assert.doesNotMatch(response.body, /Internal Server Error/);
          const outcome: AttackExpectation =
            response.statusCode === 200
              ? 'allowed'
              : body.error.query?.[0] === 'Query took too long'
                ? 'deadline'
                : {
                    status: response.statusCode,
                    type: body.error.__type,
                    message: body.error.query?.[0] ?? body.error.message,
                  };
          const expected = attack.expect;
          if (expected === 'allowed' || expected === 'deadline') {
            // Expensive statements are bounded by the time limit, not refused; how far a store gets within it varies.
            assert.ok(outcome === 'allowed' || outcome === 'deadline', `${attack.sql} → ${JSON.stringify(outcome)}`);
          } else {
            assert.ok(typeof outcome === 'object', `${attack.sql} → ${outcome}`);
            assert.equal(outcome.status, expected.status, `${attack.sql} → ${JSON.stringify(outcome)}`);
            assert.equal(outcome.type, expected.type);
            if (expected.message !== undefined) assert.equal(outcome.message, expected.message);
          }
        });
      }

      test('no attack changed anything', async () => {
        assert.equal(await fingerprint(), before);
      });
    });

    test('a slow statement is cancelled with 409 while other requests are answered', async () => {
      const heavy = `SELECT count(*) FROM "${RESOURCE_C}" a, "${RESOURCE_C}" b, "${RESOURCE_C}" c`;
      const started = Date.now();
      const slow = sql(heavy);
      const quick: number[] = [];
      for (let i = 0; i < 10; i++) {
        const t = Date.now();
        const response = await service.request(
          `/api/3/action/datastore_search?resource_id=${RESOURCE_B}&offset=${i}&limit=1`,
        );
        assert.equal(response.statusCode, 200);
        quick.push(Date.now() - t);
      }
      const answer = await slow;
      const elapsed = Date.now() - started;
      assert.equal(answer.statusCode, 409);
      assert.deepEqual(JSON.parse(answer.body).error, { query: ['Query took too long'], __type: 'Validation Error' });
      assert.ok(elapsed < SQL_TIMEOUT_MS + 3000, `cancelled after ${elapsed} ms`);
      assert.ok(Math.max(...quick) < SQL_TIMEOUT_MS, `other requests took ${quick.join(', ')} ms while it ran`);
    });

    test("the row cap cuts results and says so; the echo and field types are CKAN's", async () => {
      const capped = await startService({ rowsDefault: 5, rowsMax: 5 }, backend);
      try {
        const response = await capped.request(
          `/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT "_id", "Surname" FROM "${RESOURCE_A}" ORDER BY "_id"`)}`,
        );
        const body = JSON.parse(response.body);
        assert.equal(response.statusCode, 200);
        assert.deepEqual(Object.keys(body.result), ['sql', 'records', 'fields', 'records_truncated']);
        assert.equal(body.result.records.length, 5);
        assert.equal(body.result.records_truncated, true);
        assert.deepEqual(body.result.fields, [
          { id: '_id', type: 'int4' },
          { id: 'Surname', type: 'text' },
        ]);
        const fits = JSON.parse(
          (await capped.request(`/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT 1 AS one`)}`))
            .body,
        );
        assert.equal('records_truncated' in fits.result, false);
      } finally {
        await capped.close();
      }
    });

    test('missing sql is 409; a GET works like a POST', async () => {
      const missing = await service.getJson('/api/3/action/datastore_search_sql');
      assert.equal(missing.status, 409);
      assert.deepEqual(missing.body.error, { sql: ['Missing value'], __type: 'Validation Error' });
      const get = await service.getJson(
        `/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT count(*) AS n FROM "${RESOURCE_B}"`)}`,
      );
      assert.deepEqual(get.body.result.records, [{ n: 39 }]);
      assert.match(get.body.help, /help_show\?name=datastore_search_sql$/);
    });

    test('ckan.js datastoreSqlQuery: hits and fields over node; errors as its browser path reads them', async () => {
      const CKAN = createRequire(import.meta.url)('ckan') as {
        Client: new (endpoint: string) => { datastoreSqlQuery(sql: string, cb: (err: any, out: any) => void): void };
      };
      const address = service.address;
      const client = new CKAN.Client(address);
      const out = await new Promise<any>((resolve, reject) =>
        client.datastoreSqlQuery(
          `SELECT "Constituency Name" AS name, "Quota" FROM "${RESOURCE_B}" ORDER BY "Quota" DESC LIMIT 2`,
          (err, o) => (err ? reject(err) : resolve(o)),
        ),
      );
      assert.deepEqual(out.hits, [
        { name: 'Tipperary', Quota: 13632 },
        { name: 'Kerry', Quota: 12945 },
      ]);
      assert.deepEqual(out.fields, [
        { id: 'name', type: 'string' },
        { id: 'Quota', type: 'numeric' },
      ]);
      // ckan.js's node path cannot read any error (it parses a string's .message); its browser path posts the JSON
      // URL-encoded as a lone form key and reads error.info.orig[0] from the response text.
      const failure = await service.request({
        method: 'POST',
        url: '/api/3/action/datastore_search_sql',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        payload: encodeURIComponent(JSON.stringify({ sql: 'SELECT nope FROM nowhere' })),
      });
      assert.equal(failure.statusCode, 409);
      assert.equal(JSON.parse(failure.body).error.info.orig[0], 'relation "nowhere" does not exist');
    });
  });
