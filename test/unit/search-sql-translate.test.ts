// The guard and the translation of datastore_search_sql statements, without a store: what is refused and how
// (status, CKAN's wording), PostgreSQL's output names and types, and the exact SQLite SQL of each construct
// where the SQL itself is the point (deadline filters, null ordering, exact numeric functions, GLOB for LIKE…).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_KINDS, toApiError } from '../../src/errors.js';
import Database from 'better-sqlite3';
import {
  initSearchSql,
  prepareSearchSql,
  registerSqliteRuntime,
  type PreparedSql,
  type SqlResourceInfo,
} from '../../src/sql/user-sql/index.js';

const A = '60728fc9-2896-41d8-a70c-9c01dd3d57ce';
const B = 'f6a59fec-6f64-48bb-9f65-e6679aa23dba';

const RESOURCES: Record<string, SqlResourceInfo> = {
  [A]: {
    id: A,
    fullTextLanguage: 'english',
    fields: [
      { id: '_id', type: 'int' },
      { id: 'Constituency', type: 'text' },
      { id: 'Surname', type: 'text' },
      { id: 'Votes', type: 'numeric' },
      { id: 'Result', type: 'text' },
      { id: 'Constituency Number', type: 'numeric' },
    ],
  },
  [B]: {
    id: B,
    fullTextLanguage: 'english',
    fields: [
      { id: '_id', type: 'int' },
      { id: 'Constituency Name', type: 'text' },
      { id: 'Date Of Election', type: 'timestamp' },
      { id: 'Quota', type: 'numeric' },
      { id: 'Constituency Number', type: 'numeric' },
    ],
  },
  // What a lookup may also know: the store's own listing. It is never readable.
  _table_metadata: {
    id: '_table_metadata',
    fullTextLanguage: 'english',
    fields: [
      { id: '_id', type: 'int' },
      { id: 'name', type: 'text' },
    ],
  },
};

const lookup = (id: string) => RESOURCES[id];

function prepare(sql: string, maxRows = 100): PreparedSql {
  return prepareSearchSql(sql, lookup, { maxRows });
}

function sqlOf(sql: string, maxRows = 100): string {
  return prepare(sql, maxRows).sqlite.sql;
}

function refusal(sql: string): { status: number; type: string | null; message: string } {
  try {
    prepare(sql);
  } catch (thrown) {
    const err = toApiError(thrown, () => assert.fail(`a refusal, not ${String(thrown)}`));
    const query = (err.validation?.['query'] as string[] | undefined)?.[0];
    return { status: err.status, type: ERROR_KINDS[err.kind].type, message: query ?? err.message };
  }
  assert.fail(`not refused: ${sql}`);
}

const T = (id: string, alias: string) =>
  `(SELECT * FROM "${id}" WHERE (("_id" & 63) <> 0 OR cc_deadline("_id"))) AS "${alias}"`;

before(async () => {
  await initSearchSql();
});

describe('the prepared statement', () => {
  test('reads every resource through the deadline filter and caps the rows at maxRows + 1', () => {
    const p = prepare(`SELECT "Surname" FROM "${A}" WHERE "Votes" > 100`, 10);
    assert.deepEqual(p.resourceIds, [A]);
    assert.deepEqual(p.sqlite.params, []);
    assert.deepEqual(p.columns, [{ id: 'Surname', type: 'text' }]);
    assert.equal(
      p.sqlite.sql,
      `SELECT "t1"."Surname" AS "Surname" FROM ${T(A, 't1')} WHERE ("t1"."Votes" > 100) LIMIT 11`,
    );
  });

  test('a LIMIT of the statement below the cap stays; one above it is capped', () => {
    assert.match(sqlOf(`SELECT 1 FROM "${A}" LIMIT 3 OFFSET 2`, 10), / LIMIT 3 OFFSET 2$/);
    assert.match(sqlOf(`SELECT 1 FROM "${A}" LIMIT 500`, 10), / LIMIT 11$/);
    assert.match(sqlOf(`SELECT 1 FROM "${A}" OFFSET 5`, 10), / LIMIT 11 OFFSET 5$/);
  });

  test('lists every resource read, once, joins and subqueries included', () => {
    const p = prepare(
      `SELECT count(*) FROM "${A}" a JOIN "${B}" b USING ("Constituency Number") WHERE EXISTS (SELECT 1 FROM "${A}")`,
    );
    assert.deepEqual(p.resourceIds.sort(), [A, B].sort());
  });

  test("SELECT * gives _id, _full_text, then the fields, as CKAN's tables are laid out", () => {
    const p = prepare(`SELECT * FROM "${B}"`);
    assert.deepEqual(p.columns, [
      { id: '_id', type: 'int4' },
      { id: '_full_text', type: 'tsvector' },
      { id: 'Constituency Name', type: 'text' },
      { id: 'Date Of Election', type: 'timestamp' },
      { id: 'Quota', type: 'numeric' },
      { id: 'Constituency Number', type: 'numeric' },
    ]);
  });

  test('preparing a typical statement takes a few milliseconds at most, not tens', () => {
    const statements = [
      `SELECT "Constituency", count(*) AS n, sum("Votes") AS votes FROM "${A}" GROUP BY 1 ORDER BY n DESC`,
      `SELECT a."Surname", b."Quota" FROM "${A}" a JOIN "${B}" b USING ("Constituency Number") WHERE a."Votes" > b."Quota"`,
      `SELECT "Surname" FROM "${A}" WHERE "Surname" LIKE 'Mc%' ORDER BY "Votes" DESC LIMIT 10`,
    ];
    for (let i = 0; i < 200; i++) for (const s of statements) prepare(s);
    const rounds = 300;
    const start = performance.now();
    for (let i = 0; i < rounds; i++) for (const s of statements) prepare(s);
    const mean = (performance.now() - start) / (rounds * statements.length);
    // A quiet machine takes well under half a millisecond and two busy cores took two: the bound catches a parser gone
    // pathological, not a loaded machine.
    assert.ok(mean < 5, `${mean.toFixed(3)} ms per statement`);
  });
});

describe('the guard', () => {
  const readOnly = (what: string) => `${what} is not allowed: datastore_search_sql only runs SELECT statements`;

  test('anything but a SELECT is a 409 naming the statement', () => {
    const cases: [string, string][] = [
      [`INSERT INTO "${A}" ("Surname") VALUES ('x')`, 'INSERT'],
      [`UPDATE "${A}" SET "Votes" = 1`, 'UPDATE'],
      [`DELETE FROM "${A}"`, 'DELETE'],
      [`DROP TABLE "${A}"`, 'DROP'],
      ['CREATE TABLE t (a int)', 'CREATE TABLE'],
      [`TRUNCATE "${A}"`, 'TRUNCATE'],
      ['SET search_path = x', 'SET'],
      ['START TRANSACTION', 'START'],
      ['ROLLBACK', 'ROLLBACK'],
      [`COPY "${A}" TO STDOUT`, 'COPY'],
      ["CREATE SUBSCRIPTION s CONNECTION 'x' PUBLICATION p", 'CREATE SUBSCRIPTION'],
    ];
    for (const [sql, word] of cases) {
      assert.deepEqual(refusal(sql), { status: 409, type: 'Validation Error', message: readOnly(word) }, sql);
    }
  });

  test('writes hidden inside a SELECT are found too', () => {
    assert.equal(refusal(`WITH x AS (DELETE FROM "${A}" RETURNING 1) SELECT * FROM x`).message, readOnly('DELETE'));
    assert.equal(refusal(`SELECT * INTO t FROM "${A}"`).message, readOnly('SELECT INTO'));
    assert.equal(refusal(`SELECT * FROM "${A}" FOR NO KEY UPDATE`).message, readOnly('SELECT … FOR UPDATE/SHARE'));
  });

  test("one statement only, as CKAN words it; syntax errors in PostgreSQL's words", () => {
    const single = { status: 409, type: 'Validation Error', message: 'Query is not a single statement.' };
    assert.deepEqual(refusal('SELECT 1; SELECT 2'), single);
    assert.deepEqual(refusal("SELECT '\\'"), single, 'CKAN refuses any backslash-quote');
    assert.deepEqual(refusal(`SELECT ** FROM "${A}"`), {
      status: 409,
      type: 'Validation Error',
      message: 'syntax error at or near "FROM"',
    });
    assert.equal(refusal('SELECT 1 FROM').message, 'syntax error at end of input');
    assert.equal(refusal('').message, 'Query is empty.');
    // A trailing semicolon ends the one statement.
    assert.equal(prepare('SELECT 1;').columns.length, 1);
  });

  test("system catalogues are a 403 in CKAN's words, wherever they appear", () => {
    const denied = {
      status: 403,
      type: 'Authorization Error',
      message: 'Access denied: Not authorized to access system tables',
    };
    for (const sql of [
      'SELECT * FROM pg_roles',
      'SELECT * FROM pg_catalog.pg_class',
      'SELECT * FROM information_schema.columns',
      `SELECT * FROM "${A}" WHERE "Surname" IN (SELECT rolname FROM pg_roles)`,
      'SELECT * FROM public.pg_anything',
    ])
      assert.deepEqual(refusal(sql), denied, sql);
  });

  test('other schemas are a 403; a CTE may carry any name', () => {
    assert.deepEqual(refusal('SELECT * FROM other.t'), {
      status: 403,
      type: 'Authorization Error',
      message: 'Access denied: Not authorized to read resource.',
    });
    assert.deepEqual(prepare('WITH pg_roles AS (SELECT 1 AS a) SELECT a FROM pg_roles').columns, [
      { id: 'a', type: 'int4' },
    ]);
    assert.equal(prepare(`SELECT count(*) FROM public."${A}"`).resourceIds[0], A);
  });

  test("functions off CKAN's allow-list are a 403 naming them; allowed names are matched without case", () => {
    assert.deepEqual(refusal('SELECT pg_sleep(1)'), {
      status: 403,
      type: 'Authorization Error',
      message: 'Access denied: Not authorized to call function pg_sleep',
    });
    assert.equal(refusal('SELECT cc_deadline(1)').status, 403);
    assert.equal(refusal("SELECT load_extension('x')").status, 403);
    assert.deepEqual(prepare("SELECT UpPeR('a')").columns, [{ id: 'upper', type: 'text' }]);
    assert.deepEqual(prepare("SELECT pg_catalog.lower('A')").columns, [{ id: 'lower', type: 'text' }]);
  });

  test('the most serious finding wins: a write before a catalogue before a function', () => {
    assert.equal(refusal('WITH d AS (DELETE FROM pg_roles RETURNING pg_sleep(1)) SELECT 1').status, 409);
    assert.equal(
      refusal('SELECT pg_sleep(1) FROM pg_roles').message,
      'Access denied: Not authorized to access system tables',
    );
  });

  test("unknown relations are PostgreSQL's 409, the store's own tables included", () => {
    for (const name of ['nope', 'sqlite_master', '_countcentre_meta', `${A}__fts`, '_table_metadata']) {
      assert.deepEqual(refusal(`SELECT * FROM "${name}"`), {
        status: 409,
        type: 'Validation Error',
        message: `relation "${name}" does not exist`,
      });
    }
  });
});

describe('output names and types', () => {
  const cases: [string, string[], string[]][] = [
    [
      `SELECT count(*), count("Surname"), sum("Votes"), avg("Votes"), min("Votes"), max("Surname") FROM "${A}"`,
      ['count', 'count', 'sum', 'avg', 'min', 'max'],
      ['int8', 'int8', 'numeric', 'numeric', 'numeric', 'text'],
    ],
    [
      `SELECT sum(_id), avg(_id), sum(_id::int8), sum(_id::float8), avg(_id::real) FROM "${A}"`,
      ['sum', 'avg', 'sum', 'sum', 'avg'],
      ['int8', 'numeric', 'numeric', 'float8', 'float8'],
    ],
    [
      "SELECT 1, 10000000000, 99999999999999999999, 1.5, 'a', NULL, true",
      ['?column?', '?column?', '?column?', '?column?', '?column?', '?column?', '?column?'],
      ['int4', 'int8', 'numeric', 'numeric', 'text', 'text', 'bool'],
    ],
    [
      "SELECT 1::int, 1::bigint, 1::smallint, 1::real, 1::float, 1::double precision, 1::decimal(5,2), 1::varchar, 1::char, 1::text, 't'::boolean, '2020-01-01'::date, '2020-01-01'::timestamp",
      [
        'int4',
        'int8',
        'int2',
        'float4',
        'float8',
        'float8',
        'numeric',
        'varchar',
        'bpchar',
        'text',
        'bool',
        'date',
        'timestamp',
      ],
      [
        'int4',
        'int8',
        'int2',
        'float4',
        'float8',
        'float8',
        'numeric',
        'varchar',
        'bpchar',
        'text',
        'bool',
        'date',
        'timestamp',
      ],
    ],
    [
      `SELECT "Votes"::int, "Votes" AS v, t."Surname", -"Votes", "Votes" + 1 FROM "${A}" t`,
      ['Votes', 'v', 'Surname', '?column?', '?column?'],
      ['int4', 'numeric', 'text', 'numeric', 'numeric'],
    ],
    [
      'SELECT coalesce(1, 2), nullif(1, 2), greatest(1, 2.5), least(1, 2), CASE WHEN true THEN 1 END, CASE WHEN true THEN 1 END::text',
      ['coalesce', 'nullif', 'greatest', 'least', 'case', 'text'],
      ['int4', 'int4', 'numeric', 'int4', 'int4', 'text'],
    ],
    [
      "SELECT trim(' a '), substring('abc' from 2), position('b' in 'abc'), lower('A'), length('a'), 'a' || 1",
      ['btrim', 'substring', 'position', 'lower', 'length', '?column?'],
      ['text', 'text', 'int4', 'text', 'int4', 'text'],
    ],
    [
      `SELECT EXISTS (SELECT 1), (SELECT max("Votes") FROM "${A}"), (SELECT 1 AS q), 1 IN (SELECT 1)`,
      ['exists', 'max', 'q', '?column?'],
      ['bool', 'numeric', 'int4', 'bool'],
    ],
    [
      `SELECT row_number() OVER (), rank() OVER (ORDER BY "Votes"), sum("Votes") OVER () FROM "${A}"`,
      ['row_number', 'rank', 'sum'],
      ['int8', 'int8', 'numeric'],
    ],
    [
      'SELECT round(1.5), round(1.5, 1), round(1), round(1.5::float8), ceil(1), floor(1.5), abs(-1), trunc(1.5)',
      ['round', 'round', 'round', 'round', 'ceil', 'floor', 'abs', 'trunc'],
      ['numeric', 'numeric', 'float8', 'float8', 'float8', 'numeric', 'int4', 'numeric'],
    ],
    [
      'SELECT 1 / 2, 1 / 2.0, 1::int2 + 1::int2, 1::int2 + 1, 1 + 1::int8, 1.5::real + 1, 1.5::real * 2::real',
      ['?column?', '?column?', '?column?', '?column?', '?column?', '?column?', '?column?'],
      ['int4', 'numeric', 'int2', 'int4', 'int8', 'float8', 'float4'],
    ],
    ['SELECT 1 UNION SELECT 1.5', ['?column?'], ['numeric']],
    ["SELECT 'a' AS x UNION SELECT 'b'::varchar", ['x'], ['varchar']],
    ["SELECT * FROM (VALUES (1, 'a')) v", ['column1', 'column2'], ['int4', 'text']],
  ];
  for (const [sql, names, types] of cases) {
    test(sql, () => {
      const p = prepare(sql);
      assert.deepEqual(
        p.columns.map((c) => c.id),
        names,
      );
      assert.deepEqual(
        p.columns.map((c) => c.type),
        types,
      );
    });
  }
});

describe('the SQLite SQL of each construct', () => {
  const t1 = T(A, 't1');

  test('ORDER BY says where NULLs go, as PostgreSQL places them', () => {
    assert.equal(
      sqlOf(`SELECT "Surname" FROM "${A}" ORDER BY "Surname", "Votes" DESC, "Result" DESC NULLS LAST`),
      `SELECT "t1"."Surname" AS "Surname" FROM ${t1} ORDER BY "t1"."Surname" ASC NULLS LAST, "t1"."Votes" DESC NULLS FIRST, "t1"."Result" DESC NULLS LAST LIMIT 101`,
    );
  });

  test("SELECT DISTINCT puts nulls by a key of their own where SQLite's placement is not PostgreSQL's", () => {
    assert.equal(
      sqlOf(
        `SELECT DISTINCT "Result", "Surname" FROM "${A}" ORDER BY "Result", "Surname" DESC, "Result" DESC NULLS LAST`,
      ),
      `SELECT DISTINCT "t1"."Result" AS "Result", "t1"."Surname" AS "Surname" FROM ${t1} ORDER BY "t1"."Result" IS NULL ASC, "t1"."Result" ASC, ` +
        `"t1"."Surname" IS NULL DESC, "t1"."Surname" DESC, "t1"."Result" DESC NULLS LAST LIMIT 101`,
    );
    // SQLite 3.53 walks an analysed table's index for these and loses rows: the nulls, or all but the nulls.
    const db = new Database(':memory:');
    try {
      registerSqliteRuntime(db);
      db.function('cc_deadline', (_id: unknown) => 0);
      db.exec(`CREATE TABLE "${A}" ("_id" INTEGER PRIMARY KEY, "Surname" TEXT, "Result" TEXT)`);
      const insert = db.prepare(`INSERT INTO "${A}" ("Surname", "Result") VALUES (?, ?)`);
      for (let i = 0; i < 300; i++) insert.run(`S${i % 9}`, i % 7 === 0 ? null : i % 2 ? 'Elected' : 'Not elected');
      db.exec(`CREATE INDEX "r" ON "${A}" ("Result"); ANALYZE`);
      const results = (sql: string) =>
        db
          .prepare(sqlOf(sql))
          .all()
          .map((row) => (row as { Result: string | null }).Result);
      assert.deepEqual(results(`SELECT DISTINCT "Result" FROM "${A}" ORDER BY "Result"`), [
        'Elected',
        'Not elected',
        null,
      ]);
      assert.deepEqual(results(`SELECT DISTINCT "Result" FROM "${A}" ORDER BY 1 DESC`), [
        null,
        'Not elected',
        'Elected',
      ]);
      assert.deepEqual(results(`SELECT DISTINCT "Result" FROM "${A}" ORDER BY 1 NULLS FIRST`), [
        null,
        'Elected',
        'Not elected',
      ]);
    } finally {
      db.close();
    }
  });

  test('numeric arithmetic runs in exact decimal functions; integers stay integers', () => {
    assert.equal(
      sqlOf(`SELECT "Votes" / 3, _id / 2, _id % 2, "Votes" * 1.5 FROM "${A}"`),
      `SELECT cc_num_div("t1"."Votes", 3) AS "?column?", CAST(cc_int_div("t1"."_id", 2, 32) AS INTEGER) AS "?column?", ` +
        `CAST(cc_int_mod("t1"."_id", 2) AS INTEGER) AS "?column?", cc_num_mul("t1"."Votes", 1.5) AS "?column?" FROM ${t1} LIMIT 101`,
    );
  });

  test('a numeric literal whose digits a double keeps is a number; others stay text (their scale matters)', () => {
    assert.equal(
      sqlOf('SELECT 1.5, 1.50, 0.1'),
      `SELECT 1.5 AS "?column?", '1.50' AS "?column?", 0.1 AS "?column?" LIMIT 101`,
    );
  });

  test('computed numerics compare, sort and group by their exact value', () => {
    assert.equal(
      sqlOf(`SELECT "Votes" / 7 AS r FROM "${A}" WHERE "Votes" / 7 > 10 GROUP BY r ORDER BY r`),
      `SELECT cc_num_div("t1"."Votes", 7) AS "r" FROM ${t1} WHERE (cc_num_cmp(cc_num_div("t1"."Votes", 7), 10) > 0) ` +
        `GROUP BY cc_num_key(cc_num_div("t1"."Votes", 7)) ORDER BY cc_num_key(cc_num_div("t1"."Votes", 7)) ASC NULLS LAST LIMIT 101`,
    );
    // Stored numbers compare natively (and can use the indexes).
    assert.match(sqlOf(`SELECT 1 FROM "${A}" WHERE "Votes" >= 2.5`), /WHERE \("t1"\."Votes" >= 2\.5\)/);
  });

  test('LIKE with a constant pattern is a case-sensitive GLOB; ILIKE lower-cases both sides', () => {
    assert.match(
      sqlOf(`SELECT 1 FROM "${A}" WHERE "Surname" LIKE 'Mc_%*'`),
      /WHERE \("t1"\."Surname" GLOB 'Mc\?\*\[\*\]'\)/,
    );
    assert.match(
      sqlOf(`SELECT 1 FROM "${A}" WHERE "Surname" NOT ILIKE 'Ó\\_%'`),
      /WHERE \(NOT \(cc_lower\("t1"\."Surname"\) GLOB 'ó_\*'\)\)/,
    );
    assert.match(
      sqlOf(`SELECT 1 FROM "${A}" WHERE "Surname" LIKE "Result"`),
      /cc_like\("t1"\."Surname", "t1"\."Result", '\\', 0\)/,
    );
    assert.equal(refusal("SELECT 'a' LIKE 'a\\' ESCAPE '\\'").status, 409);
    assert.equal(refusal("SELECT 'a' LIKE 'ab' ESCAPE 'ab'").message, 'invalid escape string');
  });

  test('IN compares exact numeric values by key when any side is computed', () => {
    // Keys of the constants are computed once: 1 → '2500001', 2.50 → '25000025' (sign, exponent, digits).
    assert.match(
      sqlOf(`SELECT 1 FROM "${A}" WHERE "Votes" IN (1, 2.50)`),
      /WHERE \(cc_num_key\("t1"\."Votes"\) IN \('2500001', '25000025'\)\)/,
    );
    assert.match(
      sqlOf(`SELECT 1 FROM "${A}" WHERE "Surname" IN ('A', 'B')`),
      /WHERE \("t1"\."Surname" IN \('A', 'B'\)\)/,
    );
  });

  test("HAVING without GROUP BY or aggregates keeps PostgreSQL's single group", () => {
    assert.equal(
      sqlOf(`SELECT 1 FROM "${A}" HAVING true`),
      `SELECT 1 AS "?column?" FROM (SELECT count(*) FROM ${t1}) AS "g" WHERE 1 LIMIT 101`,
    );
  });

  test('a constant GROUP BY key is not read as a column number', () => {
    assert.match(sqlOf(`SELECT 5 AS k, count(*) FROM "${A}" GROUP BY k`), / GROUP BY CAST\(5 AS BLOB\)/);
  });

  test('DISTINCT ON keeps the first row of each group in ORDER BY order', () => {
    assert.equal(
      sqlOf(
        `SELECT DISTINCT ON ("Constituency") "Constituency", "Surname" FROM "${A}" ORDER BY "Constituency", "Votes" DESC`,
      ),
      `SELECT "Constituency", "Surname" FROM (SELECT "t1"."Constituency" AS "Constituency", "t1"."Surname" AS "Surname", ` +
        `"t1"."Constituency" AS "k1", "t1"."Votes" AS "k2", row_number() OVER (PARTITION BY "t1"."Constituency" ORDER BY ` +
        `"t1"."Constituency" ASC NULLS LAST, "t1"."Votes" DESC NULLS FIRST) AS "rn" FROM ${t1}) WHERE "rn" = 1 ` +
        `ORDER BY "k1" ASC NULLS LAST, "k2" DESC NULLS FIRST LIMIT 101`,
    );
  });

  test('a scalar subquery that may return several rows is checked; an ungrouped aggregate is not', () => {
    assert.match(
      sqlOf(`SELECT (SELECT "Surname" FROM "${A}")`),
      /^SELECT \(SELECT cc_scalar\("c1"\) FROM \(SELECT "t1"\."Surname" AS "c1" FROM /,
    );
    assert.match(
      sqlOf(`SELECT (SELECT max("Votes") FROM "${A}")`),
      /^SELECT \(SELECT max\("t1"\."Votes"\) AS "c1" FROM /,
    );
  });

  test('set operations are flat compounds, with column types unified and subqueries for nested right arms', () => {
    assert.equal(
      sqlOf('SELECT 1 UNION SELECT 2.5 EXCEPT (SELECT 3 INTERSECT SELECT 4) ORDER BY 1'),
      'SELECT "u3"."c1" AS "?column?" FROM (SELECT 1 AS "c1" UNION SELECT 2.5 AS "c1" EXCEPT SELECT * FROM ' +
        '(SELECT "u2"."c1" AS "c1" FROM (SELECT 3 AS "c1" INTERSECT SELECT 4 AS "c1") AS "u2")) AS "u3" ' +
        'ORDER BY "u3"."c1" ASC NULLS LAST LIMIT 101',
    );
  });

  test('CTEs, subqueries and joins get generated names; JOIN USING merges its column', () => {
    assert.equal(
      sqlOf(
        `WITH x AS (SELECT "Constituency Number" FROM "${A}") SELECT "Constituency Number" FROM x FULL JOIN "${B}" USING ("Constituency Number")`,
      ),
      `WITH "w2"("c1") AS (SELECT "t1"."Constituency Number" AS "c1" FROM ${t1}) SELECT coalesce("t3"."c1", "t4"."Constituency Number") ` +
        `AS "Constituency Number" FROM ("w2" AS "t3" FULL JOIN ${T(B, 't4')} ON ("t3"."c1" = "t4"."Constituency Number")) LIMIT 101`,
    );
  });

  test("casts use PostgreSQL's rounding and input rules", () => {
    assert.equal(
      sqlOf(
        `SELECT "Votes"::int, "Surname"::numeric, "Votes"::float8, "Votes"::text, "Votes"::numeric(6,1) FROM "${A}"`,
      ),
      `SELECT CAST(cc_num_to_int("t1"."Votes", 32) AS INTEGER) AS "Votes", cc_text_to_num("t1"."Surname") AS "Surname", ` +
        `CAST("t1"."Votes" AS REAL) AS "Votes", cc_num_text("t1"."Votes") AS "Votes", cc_num_typmod("t1"."Votes", 6, 1) AS "Votes" FROM ${t1} LIMIT 101`,
    );
    // Constants are read at compile time, with PostgreSQL's errors.
    assert.equal(
      sqlOf("SELECT '2020-02-08'::timestamp, ' 12 '::int"),
      `SELECT '2020-02-08T00:00:00' AS "timestamp", 12 AS "int4" LIMIT 101`,
    );
    assert.equal(refusal("SELECT 'x'::int").message, 'invalid input syntax for type integer: "x"');
  });

  test('window functions with frames', () => {
    assert.match(
      sqlOf(
        `SELECT sum("Votes") OVER (PARTITION BY "Constituency" ORDER BY _id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM "${A}"`,
      ),
      /cc_num_sum\("t1"\."Votes"\) OVER \(PARTITION BY "t1"\."Constituency" ORDER BY "t1"\."_id" ASC NULLS LAST ROWS BETWEEN 2 PRECEDING AND CURRENT ROW\)/,
    );
  });

  test('comparisons of timestamps with untyped literals read the literal as a timestamp', () => {
    // Compared as the integers the embedded store keys a timestamp's index on (microseconds since 1970), so that the
    // index serves: 2020-02-09T00:00:00 is 1,581,206,400 s.
    const key = `\\(unixepoch\\(substr\\("t1"\\."Date Of Election", 1, 19\\)\\) \\* 1000000 \\+ CAST\\(.*? AS INTEGER\\)\\)`;
    assert.match(
      sqlOf(`SELECT 1 FROM "${B}" WHERE "Date Of Election" < '2020-02-09'`),
      new RegExp(`WHERE \\(${key} < 1581206400000000\\)`),
    );
    // Through a subquery (which SQLite flattens) a stored column is compared by the same integers.
    assert.match(
      sqlOf(`SELECT 1 FROM (SELECT * FROM "${B}") s WHERE "Date Of Election" < '2020-02-09'`),
      /WHERE \(\(unixepoch\(substr\("t2"\."c\d", 1, 19\)\) \* 1000000 .*\) < 1581206400000000\)/,
    );
    // Computed values keep comparing as text.
    assert.match(
      sqlOf(`SELECT 1 FROM "${B}" WHERE "Date Of Election"::date::timestamp < '2020-02-09'`),
      /< '2020-02-09T00:00:00'\)/,
    );
    assert.match(
      sqlOf(`SELECT 1 FROM (SELECT max("Date Of Election") AS d FROM "${B}") s WHERE d < '2020-02-09'`),
      /WHERE \("t\d"\."c1" < '2020-02-09T00:00:00'\)/,
    );
  });
});

describe("PostgreSQL's semantic errors, at compile time", () => {
  const cases: [string, string][] = [
    [`SELECT votes FROM "${A}"`, 'column "votes" does not exist'],
    [`SELECT x.y FROM "${A}" t`, 'missing FROM-clause entry for table "x"'],
    [
      `SELECT "Surname" FROM "${A}" GROUP BY "Result"`,
      `column "${A}.Surname" must appear in the GROUP BY clause or be used in an aggregate function`,
    ],
    [`SELECT "Surname" FROM "${A}" t GROUP BY _id`, ''],
    [
      `SELECT "Surname" FROM (SELECT * FROM "${A}") t GROUP BY _id`,
      'column "t.Surname" must appear in the GROUP BY clause or be used in an aggregate function',
    ],
    [`SELECT count(*) FROM "${A}" WHERE sum("Votes") > 1`, 'aggregate functions are not allowed in WHERE'],
    [`SELECT 1 FROM "${A}" a JOIN "${B}" b ON count(*) > 1`, 'aggregate functions are not allowed in JOIN conditions'],
    [`SELECT 1 FROM "${A}" GROUP BY count(*)`, 'aggregate functions are not allowed in GROUP BY'],
    [`SELECT sum(max("Votes")) FROM "${A}"`, 'aggregate function calls cannot be nested'],
    [`SELECT rank() OVER () FROM "${A}" GROUP BY rank() OVER ()`, 'window functions are not allowed in GROUP BY'],
    [`SELECT length("Votes") FROM "${A}"`, 'function length(numeric) does not exist'],
    [`SELECT "Surname" + 1 FROM "${A}"`, 'operator does not exist: text + integer'],
    [
      `SELECT 1 FROM "${B}" WHERE "Date Of Election" = 5`,
      'operator does not exist: timestamp without time zone = integer',
    ],
    ["SELECT 'a' + 1", 'invalid input syntax for type integer: "a"'],
    ['SELECT 1 WHERE 1', 'argument of WHERE must be type boolean, not type integer'],
    ['SELECT 1 UNION SELECT true', 'UNION types integer and boolean cannot be matched'],
    ['SELECT round(1.5::float8, 1)', 'function round(double precision, integer) does not exist'],
    ['SELECT 1::int8::bool', 'cannot cast type bigint to boolean'],
    ['SELECT 123.456::numeric(4,2)', 'numeric field overflow'],
    ['SELECT 1 ORDER BY 2', 'ORDER BY position 2 is not in select list'],
    ['SELECT * FROM (SELECT 1)', 'subquery in FROM must have an alias'],
    [`SELECT * FROM "${A}" a, "${B}" a`, 'table name "a" specified more than once'],
    ['SELECT 1 LIMIT -1', 'LIMIT must not be negative'],
    ['SELECT DISTINCT 1 AS a ORDER BY 2 + 2', 'for SELECT DISTINCT, ORDER BY expressions must appear in select list'],
    ['SELECT $2', 'there is no parameter $2'],
  ];
  for (const [sql, message] of cases) {
    test(sql, () => {
      if (message === '') {
        // Grouping by a table's _id (its primary key) groups every column of it, as in PostgreSQL.
        assert.deepEqual(prepare(sql).columns, [{ id: 'Surname', type: 'text' }]);
        return;
      }
      assert.deepEqual(refusal(sql), { status: 409, type: 'Validation Error', message });
    });
  }
});

describe('constructs outside the subset: a 409 naming them', () => {
  const cases: [string, string][] = [
    ['WITH RECURSIVE r(n) AS (SELECT 1) SELECT * FROM r', 'WITH RECURSIVE is not supported'],
    [`SELECT * FROM "${A}" a, LATERAL (SELECT a._id) s`, 'LATERAL is not supported'],
    ['SELECT generate_series(1, 3)', 'function generate_series is not supported'],
    ['SELECT * FROM generate_series(1, 3)', 'functions in FROM is not supported'],
    [`SELECT sum("Votes") OVER w FROM "${A}" WINDOW w AS ()`, 'WINDOW clauses (named windows) is not supported'],
    [`SELECT 1 FROM "${A}" GROUP BY ROLLUP ("Surname")`, 'GROUPING SETS, ROLLUP and CUBE is not supported'],
    [`SELECT "Date Of Election" + interval '1 day' FROM "${B}"`, 'type interval is not supported'],
    [
      `SELECT "Date Of Election" - "Date Of Election" FROM "${B}"`,
      'date/time arithmetic (timestamp without time zone - timestamp without time zone) is not supported',
    ],
    ["SELECT 'a' SIMILAR TO 'a'", 'SIMILAR TO is not supported'],
    ["SELECT 'a' ~ 'a'", 'regular expression matching (~) is not supported'],
    ['SELECT 2 ^ 3', 'operator ^ is not supported'],
    ['SELECT current_date', 'CURRENT_DATE is not supported'],
    ['SELECT ARRAY[1]', 'ARRAY is not supported'],
    ["SELECT string_agg('a', ',')", 'function string_agg is not supported'],
    [`SELECT x FROM "${A}" TABLESAMPLE SYSTEM (1)`, 'TABLESAMPLE is not supported'],
    ['SELECT 1 FETCH FIRST 1 ROW WITH TIES', 'ORDER BY'],
  ];
  for (const [sql, message] of cases) {
    test(sql, () => {
      const r = refusal(sql);
      assert.equal(r.status, 409);
      assert.ok(r.message.includes(message), r.message);
    });
  }
});
