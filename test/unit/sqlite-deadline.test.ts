// The embedded store's statement deadline on rows that cost SQLite little: the deadline function is asked on one row in
// 64, so a deep OFFSET is stepped over at SQLite's speed, and a statement that runs past its time is still stopped
// within a few milliseconds of it; an unfiltered page that walks one index from its start, not far, carries none.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { SPARSE_DEADLINE_ROWS, SQLITE_FUNCTIONS, sparseDeadlineSql } from '../../src/dialect/sqlite/functions.js';
import { DeadlineExceeded, openReadConnection, type ReadConnection } from '../../src/storage/sqlite/connection.js';
import { ApiError } from '../../src/errors.js';
import type { PlanField } from '../../src/query/plan.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch, type PlanResource } from '../../src/query/search-plan.js';
import { sqliteCompiler } from '../../src/sql/sqlite/search.js';

const ROWS = 200_000;

describe('the sparse deadline of the embedded store', () => {
  let dir: string;
  let file: string;
  let connection: ReadConnection;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-deadline-'));
    file = path.join(dir, 'store.sqlite');
    const db = new Database(file);
    db.exec(`CREATE TABLE t ("_id" INTEGER PRIMARY KEY, "name" TEXT)`);
    db.exec(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS}) ` +
        `INSERT INTO t SELECT i, printf('%06d', (i * 7919) % ${ROWS}) FROM n`,
    );
    db.exec('CREATE INDEX t_name ON t ("name")');
    db.exec('ALTER TABLE t ADD COLUMN "note" TEXT');
    db.exec('CREATE INDEX t_note ON t ("note")');
    db.exec('CREATE INDEX t_name_desc ON t ("name" DESC)');
    db.close();
    connection = openReadConnection(file);
  });

  after(() => {
    connection?.db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('is asked on one row in 64 while SQLite steps over an OFFSET, in _id order and in an index', () => {
    // A connection of its own, whose deadline function counts its calls.
    const db = new Database(file, { readonly: true });
    let calls = 0;
    db.function(SQLITE_FUNCTIONS.deadline, { deterministic: false }, (_id: unknown) => (calls++, 1));
    try {
      const offset = 45_000;
      for (const order of ['"_id"', '"name", "_id"']) {
        calls = 0;
        const page = db
          .prepare(`SELECT "_id" FROM t WHERE ${sparseDeadlineSql()} ORDER BY ${order} LIMIT 10 OFFSET ${offset}`)
          .raw(true)
          .all();
        assert.equal(page.length, 10);
        // In _id order exactly one row in 64; in the name index the _ids come in another order, about as often.
        assert.ok(calls > 0, order);
        assert.ok(calls <= ((offset + 10) / SPARSE_DEADLINE_ROWS) * 1.5, `${calls} calls in ${order} order`);
      }
    } finally {
      db.close();
    }
  });

  test('gives the same rows as the statement without it', () => {
    const sql = (where: string) =>
      `SELECT "_id", "name" FROM t ${where} ORDER BY "name" DESC, "_id" LIMIT 100 OFFSET 150000`;
    const guarded = connection.deadline.run(10_000, () =>
      connection.db
        .prepare(sql(`WHERE ${sparseDeadlineSql()}`))
        .raw(true)
        .all(),
    );
    assert.deepEqual(guarded, connection.db.prepare(sql('')).raw(true).all());
    assert.equal(guarded.length, 100);
  });

  test('stops a statement that runs past its time within a few milliseconds of it', () => {
    // Every pair of rows: 4·10^10 of them, hours of work, each row cheap.
    const endless = `SELECT count(*) FROM t AS a, t AS b WHERE ${sparseDeadlineSql('a."_id"')} AND ${sparseDeadlineSql('b."_id"')}`;
    const statement = connection.db.prepare(endless);
    const started = performance.now();
    assert.throws(() => connection.deadline.run(20, () => statement.get()), DeadlineExceeded);
    const took = performance.now() - started;
    // A loaded two-core machine can pause any process for tens of milliseconds; the bound is for a stop never made.
    assert.ok(took >= 20 && took < 250, `stopped after ${took.toFixed(1)} ms`);
  });

  describe('a page that walks one index from its start', () => {
    const { compileSearch, compileCount, compileValueCounts } = sqliteCompiler({ indexLanguage: 'english' });
    const resource = (name: Partial<PlanField>, denseIds = true): PlanResource => {
      const fields: PlanField[] = [
        { id: '_id', type: 'int', nullable: false, indexed: true },
        { id: 'name', type: 'text', ...name },
        { id: 'note', type: 'text', nullable: true, indexed: true },
      ];
      return { id: 't', fields, fieldById: new Map(fields.map((f) => [f.id, f])), total: ROWS, denseIds };
    };
    const planOf = (input: Record<string, unknown>, of = resource({ nullable: false, indexed: true })) => {
      const plan = planSearch(
        readSearchRequest({ resource_id: 't', ...input }, { rowsDefault: 100, rowsMax: 32000 }),
        of,
        {
          defaultLanguage: 'english',
        },
      );
      if (plan instanceof ApiError) assert.fail(JSON.stringify(plan.validation));
      return plan;
    };
    const compiled = (input: Record<string, unknown>, of?: PlanResource) => compileSearch(planOf(input, of));
    const plan = (sql: string) =>
      connection.db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 1))
        .map((row) => (row as { detail: string }).detail)
        .join(' | ');

    test('carries no deadline, and SQLite walks the index without sorting', () => {
      for (const [input, index] of [
        [{ sort: 'name', offset: 150_000, limit: 100 }, 't_name'],
        [{ sort: 'name, _id', offset: 249_000, limit: 1000 }, 't_name'],
        // Descending, by the field's descending sort index, whose entries are in the page's order.
        [{ sort: 'name desc', offset: 150_000, limit: 100 }, 't_name_desc'],
      ] as const) {
        const query = compiled(input, resource({ nullable: false, indexed: true, sortIndexedDescending: true }));
        assert.doesNotMatch(query.sql, /cc_deadline/, JSON.stringify(input));
        assert.equal(query.interruptible, undefined);
        // The page's _ids, then their records (sorted again, a page's worth).
        const page = /IN \((SELECT .* OFFSET \?)\)/.exec(query.sql)?.[1] ?? assert.fail(query.sql);
        assert.doesNotMatch(plan(page), /TEMP B-TREE/, page);
        assert.match(plan(page), new RegExp(`USING COVERING INDEX ${index}\\b`));
      }
      // A mirror's resource, whose _ids have gaps, pages by offset in _id order: a walk of the table.
      const byId = compiled({ offset: 200_000 }, resource({ nullable: false, indexed: true }, false));
      assert.doesNotMatch(byId.sql, /cc_deadline/);
      assert.doesNotMatch(plan(byId.sql), /TEMP B-TREE/);
    });

    test('gives the page a guarded statement gives', () => {
      const query = compiled({ sort: 'name', offset: 123_456, limit: 50 });
      const guarded = compiled({ sort: 'name', offset: 123_456, limit: 50 }, resource({ nullable: false }));
      assert.match(guarded.sql, /cc_deadline/);
      const rows = connection.db
        .prepare(query.sql)
        .raw(true)
        .all(...query.params);
      assert.equal(rows.length, 50);
      assert.deepEqual(
        connection.deadline.run(10_000, () =>
          connection.db
            .prepare(guarded.sql)
            .raw(true)
            .all(...guarded.params),
        ),
        rows,
      );
    });

    test('keeps the deadline past the bound, on a field without an index or with nulls, descending, or filtered', () => {
      for (const [input, of] of [
        [{ sort: 'name', offset: 250_000 }, undefined],
        [{ sort: 'name', limit: 1001 }, undefined],
        [{ sort: 'name' }, resource({ nullable: false })],
        [{ sort: 'name' }, resource({ nullable: true, indexed: true })],
        [{ sort: 'note' }, undefined],
        [{ sort: 'name desc' }, undefined],
        [{ sort: 'name, note' }, undefined],
        [{ sort: 'name', filters: { note: 'x' } }, undefined],
        [{ offset: 300_000 }, resource({}, false)],
      ] as [Record<string, unknown>, PlanResource | undefined][])
        assert.match(compiled(input, of).sql, /cc_deadline/, JSON.stringify(input));
    });

    test("keeps the deadline in the statements that read every record of the page's view", () => {
      // The page is bounded; counting its records, or each value of a field in them, reads the whole table.
      const view = planOf({ sort: 'name', offset: 10, limit: 10 });
      assert.doesNotMatch(compileSearch(view).sql, /cc_deadline/);
      assert.match(compileCount(view).sql, /cc_deadline/);
      const counts = compileValueCounts({
        view,
        field: view.orderBy[0]!.target.kind === 'field' ? view.orderBy[0]!.target.field : assert.fail(),
        limit: 10,
      });
      assert.match(counts.sql, /cc_deadline/);
      assert.equal(counts.interruptible, true);
    });
  });
});
