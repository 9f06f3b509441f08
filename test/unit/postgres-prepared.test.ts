// Searches as prepared statements (src/storage/postgres/prepared.ts): a statement is prepared once per connection, then
// bound and planned for each search's values; a connection that reaches its bound is replaced; none is prepared when
// the bound is 0; a view whose columns change under a prepared statement is answered afresh. Live, against
// 127.0.0.1:5432; skipped when none answers.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { CompiledQuery } from '../../src/dialect/compiled.js';
import { createPool } from '../../src/storage/postgres/connection.js';
import { PreparedQueries } from '../../src/storage/postgres/prepared.js';
import { createTestDatabase, livePostgres } from '../helpers/service.js';

const connect = livePostgres();

describe('searches as prepared statements', () => {
  let database: { url: string; drop(): Promise<void> } | null = null;
  let skip: string | false = false;
  const pools: pg.Pool[] = [];
  /** A pool of one connection, so that each statement runs on the connection the last one did (unless replaced). */
  const onePool = () => {
    const pool = createPool({
      url: database!.url,
      schema: 'public',
      max: 1,
      role: null,
      statementTimeoutMs: null,
      readOnly: true,
      applicationName: 'count-centre-test',
    });
    pools.push(pool);
    return pool;
  };
  const sql = (text: string, ...params: CompiledQuery['params']): CompiledQuery => ({ sql: text, params });
  const backendPid = async (pool: pg.Pool) =>
    (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  const preparedHere = async (pool: pg.Pool) =>
    (await pool.query('SELECT statement FROM pg_prepared_statements ORDER BY statement')).rows.map((r) => r.statement);
  const plansHere = async (pool: pg.Pool) =>
    (await pool.query('SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY statement'))
      .rows;

  before(async () => {
    const live = await connect();
    if (typeof live === 'string') {
      skip = live;
      return;
    }
    database = await createTestDatabase();
    const setup = new pg.Client({ connectionString: database.url });
    await setup.connect();
    await setup.query('CREATE TABLE t (n integer, word text)');
    await setup.query("INSERT INTO t SELECT i, 'w' || i FROM generate_series(1, 50) i");
    await setup.query('CREATE VIEW v AS SELECT n, word FROM t');
    await setup.end();
  });
  after(async () => {
    for (const pool of pools) await pool.end();
    await database?.drop();
  });

  test('a statement is prepared once on its connection, then bound to each search’s values and planned for them', async (t) => {
    if (skip) return t.skip(skip);
    const pool = onePool();
    const queries = new PreparedQueries(10);
    const pid = await backendPid(pool);
    const select = 'SELECT n, word FROM t WHERE n > $1 ORDER BY n LIMIT $2';
    for (const [after, limit] of [
      [0, 2],
      [10, 3],
      [48, 5],
    ] as const) {
      const result = await queries.run(pool, sql(select, after, limit));
      assert.deepEqual(
        result.rows,
        Array.from({ length: Math.min(limit, 50 - after) }, (_, i) => [after + i + 1, `w${after + i + 1}`]),
      );
    }
    assert.deepEqual(await preparedHere(pool), [select]);
    assert.equal(await backendPid(pool), pid);
    // Each run is planned for its own values, past the five after which PostgreSQL would otherwise try a plan made for
    // none in particular.
    const lookup = 'SELECT word FROM t WHERE n = $1';
    for (let n = 1; n <= 8; n++) assert.deepEqual((await queries.run(pool, sql(lookup, n))).rows, [[`w${n}`]]);
    assert.deepEqual(await plansHere(pool), [
      { statement: select, generic_plans: '0', custom_plans: '3' },
      { statement: lookup, generic_plans: '0', custom_plans: '8' },
    ]);
  });

  test('a connection that has prepared its bound is replaced, and its statements go with it', async (t) => {
    if (skip) return t.skip(skip);
    const pool = onePool();
    const queries = new PreparedQueries(3);
    const pid = await backendPid(pool);
    await queries.run(pool, sql('SELECT count(*) FROM t WHERE n > $1', 1));
    await queries.run(pool, sql('SELECT count(*) FROM t WHERE n < $1', 1));
    assert.equal((await preparedHere(pool)).length, 2);
    assert.equal(await backendPid(pool), pid);
    const third = await queries.run(pool, sql('SELECT count(*) FROM t WHERE n = $1', 7));
    assert.deepEqual(third.rows, [['1']]);
    assert.notEqual(await backendPid(pool), pid);
    assert.deepEqual(await preparedHere(pool), []);
  });

  test('with a bound of 0 nothing is prepared (a pooler in transaction mode)', async (t) => {
    if (skip) return t.skip(skip);
    const pool = onePool();
    const queries = new PreparedQueries(0);
    const result = await queries.run(pool, sql('SELECT word FROM t WHERE n = $1', 4));
    assert.deepEqual(result.rows, [['w4']]);
    assert.deepEqual(await preparedHere(pool), []);
  });

  test('a view whose columns changed under a prepared statement is answered as it is now', async (t) => {
    if (skip) return t.skip(skip);
    const pool = onePool();
    const queries = new PreparedQueries(10);
    const select = 'SELECT * FROM v WHERE n = $1';
    assert.deepEqual((await queries.run(pool, sql(select, 3))).rows, [[3, 'w3']]);
    const ddl = new pg.Client({ connectionString: database!.url });
    await ddl.connect();
    try {
      await ddl.query('DROP VIEW v');
      await ddl.query("CREATE VIEW v AS SELECT n, word, 'x' AS extra FROM t");
    } finally {
      await ddl.end();
    }
    assert.deepEqual((await queries.run(pool, sql(select, 3))).rows, [[3, 'w3', 'x']]);
  });

  test("PostgreSQL's own refusal reaches the caller with its code, and the connection is not kept", async (t) => {
    if (skip) return t.skip(skip);
    const pool = onePool();
    const queries = new PreparedQueries(10);
    const pid = await backendPid(pool);
    await assert.rejects(queries.run(pool, sql('SELECT * FROM missing_table WHERE n = $1', 1)), { code: '42P01' });
    await assert.rejects(queries.run(pool, sql('SELECT n FROM t WHERE n = $1', 'not a number')), { code: '22P02' });
    assert.deepEqual((await queries.run(pool, sql('SELECT n FROM t WHERE n = $1', 9))).rows, [[9]]);
    assert.notEqual(await backendPid(pool), pid);
  });
});
