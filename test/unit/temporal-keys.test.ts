// The embedded store keys the indexes of dates and timestamps on integers (temporalKeySql) while rows keep their ISO
// text: for any value the loader can store, the integer has the text's order and tells values apart; and searches
// that filter, list or sort by such a field are answered through its index, with the records the text would give.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { ApiError } from '../../src/errors.js';
import { parseDate, parseTimestamp } from '../../src/catalog/values.js';
import type { FieldDefinition } from '../../src/catalog/types.js';
import { fieldIndex, sortIndex } from '../../src/catalog/indexes.js';
import {
  analyzeSql,
  createIndexesSql,
  createResourceSql,
  temporalKey,
  temporalKeySql,
} from '../../src/dialect/sqlite/ddl.js';
import { SQLITE_FUNCTIONS } from '../../src/dialect/sqlite/functions.js';
import type { PlanField } from '../../src/query/plan.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch, type PlanResource } from '../../src/query/search-plan.js';
import { sqlCompilerFor } from '../../src/sql/compilers.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A date or timestamp as a source may write it; parsed, it is the canonical text the store keeps. */
const timestampText = fc
  .record({
    year: fc.integer({ min: 1, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.oneof(fc.constant(''), fc.stringMatching(/^[0-9]{1,7}$/)),
  })
  .map(
    (t) =>
      `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}T${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}` +
      (t.fraction ? `.${t.fraction}` : ''),
  );
/** Near 1970 and near a second's edge, where truncation towards 1970 would make two values meet. */
const edgeTimestamps = [
  '1969-12-31T23:59:59.999999',
  '1969-12-31T23:59:59.5',
  '1969-12-31T23:59:59',
  '1970-01-01T00:00:00',
  '1970-01-01T00:00:00.000001',
  '1970-01-01T00:00:00.5',
  '0001-01-01T00:00:00',
  '9999-12-31T23:59:59.999999',
];

function keysOf(type: 'date' | 'timestamp', texts: readonly string[]): bigint[] {
  const db = new Database(':memory:');
  try {
    let reads = 0;
    const sql = `SELECT ${temporalKeySql(type, () => (reads++, '?'))}`;
    const key = db.prepare(sql).pluck().safeIntegers(true);
    return texts.map((text) => key.get(...new Array<string>(reads).fill(text)) as bigint);
  } finally {
    db.close();
  }
}

/** Each text's key worked out in JavaScript (what a filter binds) is SQLite's. */
function assertSameKeys(type: 'date' | 'timestamp', texts: readonly string[], keys: readonly bigint[]): void {
  texts.forEach((text, i) => {
    const key = temporalKey(type, text);
    if (key !== null) assert.equal(BigInt(key), keys[i], text);
    else assert.ok(type === 'timestamp' && (text < '1686' || text >= '2255'), `${text}: no key worked out`);
  });
}

/** Whether the keys order the texts as the texts order themselves, and are equal exactly where the texts are. */
function assertOrderKept(texts: readonly string[], keys: readonly bigint[]): void {
  for (let i = 0; i < texts.length; i++) {
    assert.equal(typeof keys[i], 'bigint', `${texts[i]}: no key`);
    for (let j = 0; j < texts.length; j++) {
      const [a, b] = [texts[i]!, texts[j]!];
      const [x, y] = [keys[i]!, keys[j]!];
      assert.equal(Math.sign(Number(x - y)), a < b ? -1 : a > b ? 1 : 0, `${a} against ${b}: ${x} against ${y}`);
    }
  }
}

describe('integer keys of dates and timestamps (embedded store)', () => {
  test('a timestamp’s key has its text’s order and tells every two apart, to the microsecond, years 1 to 9999', () => {
    const canonical = edgeTimestamps.map((t) => parseTimestamp(t, 'ISO'));
    assertOrderKept(canonical, keysOf('timestamp', canonical));
    assertSameKeys('timestamp', canonical, keysOf('timestamp', canonical));
    fc.assert(
      fc.property(fc.array(timestampText, { minLength: 2, maxLength: 12 }), (written) => {
        const texts = written.map((t) => parseTimestamp(t, 'ISO'));
        const keys = keysOf('timestamp', texts);
        assertOrderKept(texts, keys);
        assertSameKeys('timestamp', texts, keys);
      }),
      { numRuns: 300 },
    );
  });

  test('a timestamp’s key is its microseconds since 1970', () => {
    assert.deepEqual(keysOf('timestamp', ['1970-01-01T00:00:01.5', '1969-12-31T23:59:59.5', '2001-01-01T00:00:00']), [
      1_500_000n,
      -500_000n,
      978_307_200_000_000n,
    ]);
  });

  test('a date’s key has its text’s order and tells every two apart', () => {
    fc.assert(
      fc.property(fc.array(timestampText, { minLength: 2, maxLength: 12 }), (written) => {
        const texts = written.map((t) => parseDate(t.slice(0, 10), 'ISO'));
        const keys = keysOf('date', texts);
        assertOrderKept(texts, keys);
        assertSameKeys('date', texts, keys);
      }),
      { numRuns: 300 },
    );
    assert.deepEqual(keysOf('date', ['1969-12-31', '1970-01-01', '2001-01-01']), [-1n, 0n, 11_323n]);
  });
});

const RESOURCE = 'temporal-keys';
const ROWS = 20_000;
const FIELDS = [
  { id: 'Day', type: 'date' },
  { id: 'At', type: 'timestamp' },
] as unknown as FieldDefinition[];
const PLAN_FIELDS: PlanField[] = [
  { id: '_id', type: 'int', nullable: false },
  { id: 'Day', type: 'date', indexed: true },
  { id: 'At', type: 'timestamp', indexed: true, sortIndexedDescending: true },
];
const PLAN_RESOURCE: PlanResource = {
  id: RESOURCE,
  fields: PLAN_FIELDS,
  fieldById: new Map(PLAN_FIELDS.map((f) => [f.id, f])),
  total: ROWS,
};

interface Row {
  _id: number;
  Day: string | null;
  At: string | null;
}

/** Rows with many ties, nulls, fractions of a second and times before 1970. */
function makeRows(): Row[] {
  const rows: Row[] = [];
  for (let id = 1; id <= ROWS; id++) {
    const n = (id * 7919) % 997;
    // A few times too far from 1970 for a double to hold their microseconds: filters bind those as text.
    const year = n % 101 === 0 ? 1600 + (n % 3) : 1950 + (n % 60);
    const fraction = ['', '.5', '.000001', '.25'][n % 4]!;
    rows.push({
      _id: id,
      Day: n % 13 === 0 ? null : `${year}-${pad(1 + (n % 12))}-${pad(1 + (n % 28))}`,
      At: n % 17 === 0 ? null : `${year}-06-30T23:59:${pad(n % 60)}${fraction}`,
    });
  }
  return rows;
}

describe('searches by dates and timestamps use their integer-keyed indexes (embedded store)', () => {
  const rows = makeRows();
  const db = new Database(':memory:');
  for (const sql of createResourceSql(RESOURCE, FIELDS)) db.exec(sql);
  const insert = db.prepare(`INSERT INTO "${RESOURCE}" ("_id", "Day", "At") VALUES (?, ?, ?)`);
  db.transaction(() => rows.forEach((r) => insert.run(r._id, r.Day, r.At)))();
  const indexed = { id: RESOURCE, fields: FIELDS, indexes: [] };
  const specs = [fieldIndex(indexed, 'Day')!, fieldIndex(indexed, 'At')!, sortIndex(indexed, 'At', true)!];
  for (const sql of createIndexesSql(indexed, specs)) db.exec(sql);
  db.exec(analyzeSql(RESOURCE));
  db.function(SQLITE_FUNCTIONS.deadline, () => 1);
  const dialect = sqlCompilerFor({ dialect: 'sqlite', indexLanguage: 'english' });

  /** The plan's `_id`s as the store answers them, and how SQLite says it finds them. */
  function run(input: Record<string, unknown>): { ids: number[]; how: string } {
    const plan = planSearch(
      readSearchRequest({ resource_id: RESOURCE, fields: '_id', ...input }, { rowsDefault: 100, rowsMax: 32000 }),
      PLAN_RESOURCE,
      { defaultLanguage: 'english' },
    );
    if (plan instanceof ApiError) assert.fail(JSON.stringify(plan.validation));
    const query = dialect.compileSearch(plan);
    const params = query.params as (string | number)[];
    const how = (db.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...params) as { detail: string }[])
      .map((r) => r.detail)
      .join('\n');
    const ids = (
      db
        .prepare(query.sql)
        .raw(true)
        .all(...params) as unknown[][]
    ).map((r) => r[0] as number);
    return { ids, how };
  }

  const ids = (list: Row[]) => list.map((r) => r._id);
  const byText = (field: 'Day' | 'At', descending: boolean) => (a: Row, b: Row) => {
    const [x, y] = [a[field], b[field]];
    if (x !== y) {
      // PostgreSQL's (and CKAN's) default: nulls last ascending, first descending.
      if (x === null) return descending ? -1 : 1;
      if (y === null) return descending ? 1 : -1;
      return (x < y ? -1 : 1) * (descending ? -1 : 1);
    }
    return a._id - b._id;
  };

  test('an equality, a list and a range on each field', () => {
    const day = rows[41]!.Day!;
    const at = rows[41]!.At!;
    const half = rows.find((r) => r.At?.endsWith('.5'))!.At!;
    const early = rows.find((r) => r.At?.startsWith('1601'))!.At!;
    const cases: [Record<string, unknown>, Row[], string | null][] = [
      [{ filters: { Day: day } }, rows.filter((r) => r.Day === day), `${RESOURCE}__1`],
      [{ filters: { At: at } }, rows.filter((r) => r.At === at), `${RESOURCE}__d?2`],
      [{ filters: { At: early } }, rows.filter((r) => r.At === early), `${RESOURCE}__d?2`],
      [{ filters: { At: [early, at] } }, rows.filter((r) => r.At === early || r.At === at), `${RESOURCE}__d?2`],
      // Bound as text under the key's expression, a range leaves SQLite's planner guessing: it may read the table.
      [{ filters: { At: { lt: early.replace('T', ' ') } } }, rows.filter((r) => r.At !== null && r.At < early), null],
      [
        { filters: { At: [at, rows[7]!.At!] } },
        rows.filter((r) => r.At === at || r.At === rows[7]!.At),
        `${RESOURCE}__d?2`,
      ],
      [
        // A half-second's range, its upper end written with a space as PostgreSQL also reads it.
        { filters: { At: { gte: half, lt: `${half.slice(0, 10)} ${half.slice(11, 19)}.6` } } },
        rows.filter((r) => r.At !== null && r.At >= half && r.At < `${half.slice(0, 19)}.6`),
        `${RESOURCE}__d?2`,
      ],
      [
        { filters: { Day: { gt: '2008-12-01' } } },
        rows.filter((r) => r.Day !== null && r.Day > '2008-12-01'),
        `${RESOURCE}__1`,
      ],
    ];
    for (const [input, expected, index] of cases) {
      const { ids: found, how } = run({ ...input, limit: 32000 });
      assert.ok(expected.length > 0, JSON.stringify(input));
      assert.deepEqual(found, ids(expected), JSON.stringify(input));
      if (index !== null)
        assert.match(how, new RegExp(`USING (COVERING )?INDEX ${index}\\b`), `${JSON.stringify(input)}\n${how}`);
    }
  });

  test('pages sorted by a timestamp either way, and the page after a record, walk its index', () => {
    for (const descending of [false, true]) {
      const sort = `At${descending ? ' desc' : ''}`;
      const sorted = [...rows].sort(byText('At', descending));
      const first = run({ sort, limit: 50 });
      assert.deepEqual(first.ids, ids(sorted.slice(0, 50)), sort);
      // The page's own records are put in order again once fetched (one sort, of 50); finding them sorts nothing.
      assert.equal(first.how.match(/TEMP B-TREE/g)?.length ?? 0, 1, `${sort}\n${first.how}`);
      assert.match(first.how, new RegExp(`INDEX ${RESOURCE}__${descending ? 'd' : ''}2\\b`), `${sort}\n${first.how}`);
      const last = sorted[1000]!;
      const next = run({ sort, limit: 50, count_centre_after: [last.At, last._id] });
      assert.deepEqual(next.ids, ids(sorted.slice(1001, 1051)), sort);
      // Each stretch after the record is read from an index in its order: ascending, the rest of the record's
      // timestamp's records, the later timestamps, the empty cells; descending (empty cells first, and the record is
      // one), the rest of the empty cells, then every timestamp from the top. The stretches' first records are merged
      // (one sort, of at most 150), and the page's records put in order once fetched (another, of 50).
      assert.equal(last.At === null, descending, 'the record is among the empty cells descending only');
      assert.equal(next.how.match(/TEMP B-TREE/g)?.length ?? 0, 2, `${sort}\n${next.how}`);
      const reads = next.how
        .split('\n')
        .filter((line) => line.includes(` ${RESOURCE} `) || line.endsWith(` ${RESOURCE}`));
      const stretches = reads.filter((line) => !line.includes('(rowid=?)'));
      assert.equal(stretches.length, descending ? 2 : 3, `${sort}\n${next.how}`);
      for (const line of stretches)
        assert.match(line, new RegExp(`USING INDEX ${RESOURCE}__d?2\\b`), `${sort}\n${next.how}`);
    }
  });
});
