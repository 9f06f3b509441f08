// The embedded store's statement deadline on rows that cost SQLite little: the deadline function is asked on one row in
// 64, so a deep OFFSET is stepped over at SQLite's speed, and a statement that runs past its time is still stopped
// within a few milliseconds of it.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { SPARSE_DEADLINE_ROWS, SQLITE_FUNCTIONS, sparseDeadlineSql } from '../../src/dialect/sqlite/functions.js';
import { DeadlineExceeded, openReadConnection, type ReadConnection } from '../../src/storage/sqlite/connection.js';

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
});
