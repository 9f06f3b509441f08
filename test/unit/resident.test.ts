// The resident engine's parts: record sets (against plain sets), a search on a table written here, the tables' memory
// budget and reads, and the time budget that hands a long search back to the store. Its answers are compared with the
// stores' own in test/http/resident.test.ts.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ApiError } from '../../src/errors.js';
import type { PlanField, SearchPlan } from '../../src/query/plan.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch, type PlanResource } from '../../src/query/search-plan.js';
import { Budget, executeSearch, ResidentSearchTooLong, type ResidentNeeds } from '../../src/resident/execute.js';
import { ascending, complement, intersect, span, union } from '../../src/resident/rows.js';
import { ResidentTable, type ResidentField } from '../../src/resident/table.js';
import { ResidentTables } from '../../src/resident/tables.js';
import { loadSettings } from '../../src/settings.js';

const SIZE = 200;
const sortedSet = fc
  .uniqueArray(fc.integer({ min: 0, max: SIZE - 1 }), { maxLength: SIZE })
  .map((rows) => Int32Array.from(rows.sort((a, b) => a - b)));
const members = (set: Int32Array | null) => (set === null ? Array.from({ length: SIZE }, (_, i) => i) : [...set]);

describe('record sets', () => {
  test('union, intersection and complement are those of plain sets, in record order', () => {
    fc.assert(
      fc.property(fc.array(sortedSet, { maxLength: 5 }), (lists) => {
        const all = [...new Set(lists.flatMap((l) => [...l]))].sort((a, b) => a - b);
        assert.deepEqual([...union(lists, SIZE)], all);
        const common = members(null).filter((row) => lists.every((l) => l.includes(row)));
        assert.deepEqual(members(intersect(lists)), common);
        for (const list of lists)
          assert.deepEqual(
            members(complement(list, SIZE)),
            members(null).filter((row) => !list.includes(row)),
          );
      }),
    );
  });

  test('records of positions in any order come back ascending; spans', () => {
    fc.assert(
      fc.property(sortedSet, fc.integer({ min: 0, max: SIZE }), fc.integer({ min: 0, max: SIZE }), (set, a, b) => {
        const shuffled = Int32Array.from([...set].reverse());
        assert.deepEqual([...ascending(shuffled, SIZE)], [...set]);
        const [first, last] = a <= b ? [a, b] : [b, a];
        assert.deepEqual(members(span(first, last, SIZE)), members(null).slice(first, last));
      }),
    );
  });
});

// A table of the shape the stores keep: `_id` and the fields; `_full_text` made from them on demand.
const FIELDS: ResidentField[] = [
  { id: '_id', type: 'int' },
  { id: 'Name', type: 'text' },
  { id: 'Votes', type: 'int4' },
  { id: 'Elected', type: 'bool' },
];
const NAMES = ['Ó Ríordáin', 'Murphy', 'murphy', 'Zed', 'Áine', '', "O'Brien", 'Kelly'];

async function table(): Promise<ResidentTable> {
  const rows = Array.from({ length: 200 }, (_, i) => [
    i + 1,
    NAMES[i % NAMES.length]!,
    i % 7 === 0 ? null : (i * 37) % 500,
    i % 3 === 0,
  ]);
  const resident = new ResidentTable('t', FIELDS, rows);
  await resident.addRecordText('english');
  return resident;
}

const RESOURCE: PlanResource = (() => {
  const fields: PlanField[] = FIELDS.map((f) => ({ id: f.id, type: f.type, nullable: f.id === 'Votes' }));
  return { id: 't', fields, fieldById: new Map(fields.map((f) => [f.id, f])), total: 200 };
})();

function plan(params: Record<string, unknown>): SearchPlan {
  const settings = loadSettings({});
  const planned = planSearch(readSearchRequest({ resource_id: 't', ...params }, settings), RESOURCE, {
    defaultLanguage: 'english',
  });
  if (planned instanceof ApiError) throw planned;
  return planned;
}

describe('a search on a resident table', () => {
  test('filters, sorts with nulls placed as asked, and pages', async () => {
    const { rows, matched } = executeSearch(
      await table(),
      plan({
        filters: { Elected: true },
        sort: 'Votes desc nulls last, Name',
        fields: '_id,Votes',
        offset: 2,
        limit: 4,
      }),
      Budget.of(1000),
    );
    // Elected: records 1, 4, 7, … (i % 3 === 0), by votes, highest first, records without votes last, then by name.
    const elected = Array.from({ length: 200 }, (_, i) => i)
      .filter((i) => i % 3 === 0)
      .map((i) => ({ id: i + 1, votes: i % 7 === 0 ? null : (i * 37) % 500, name: NAMES[i % NAMES.length]! }))
      .sort(
        (a, b) =>
          (a.votes === null ? 1 : 0) - (b.votes === null ? 1 : 0) ||
          (b.votes ?? 0) - (a.votes ?? 0) ||
          (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
          a.id - b.id,
      );
    assert.equal(matched, elected.length);
    assert.deepEqual(
      rows,
      elected.slice(2, 6).map((r) => [r.id, r.votes]),
    );
  });

  test("text sorts by code point, as PostgreSQL's C collation and SQLite do", async () => {
    const { rows } = executeSearch(await table(), plan({ fields: 'Name', sort: 'Name', limit: 200 }), Budget.of(1000));
    const names = rows.map((r) => r[0] as string);
    assert.deepEqual(
      names,
      [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
    );
    assert.equal(names[0], '');
  });

  test('full-text matches are ranked, and a search that outruns its budget is handed back', async () => {
    const resident = await table();
    const ranked = executeSearch(resident, plan({ q: 'murphy', fields: '_id,rank' }), Budget.of(1000));
    assert.equal(ranked.matched, 50);
    assert.ok(ranked.rows.every((row) => typeof row[1] === 'number' && row[1] > 0));
    // A prefix query is matched record by record: with no time left it stops at the first clock reading.
    assert.throws(
      () => executeSearch(resident, plan({ q: 'm:* & !zzz', plain: false }), Budget.of(-1)),
      ResidentSearchTooLong,
    );
  });
});

describe('resident tables', () => {
  const NOTHING: ResidentNeeds = { recordText: false, fieldTexts: [] };
  const resource = (id: string, total = 3) => ({ id, fields: FIELDS.slice(0, 2), total });
  const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => [i + 1, `name ${i}`.repeat(50)]);

  test('a table is read once, shared by concurrent searches, and kept', async () => {
    const tables = new ResidentTables({ maxBytes: 1 << 20, maxRows: 10 }, 'english');
    let reads = 0;
    const read = async () => {
      reads += 1;
      return rowsOf(3);
    };
    const [a, b] = await Promise.all([
      tables.table(resource('r'), NOTHING, read),
      tables.table(resource('r'), NOTHING, read),
    ]);
    assert.equal(a, b);
    assert.equal(await tables.table(resource('r'), NOTHING, read), a);
    assert.equal(reads, 1);
    assert.equal(tables.count, 1);
  });

  test('over its memory the least recently used table goes; one too large alone, and large resources, are not held', async () => {
    const tables = new ResidentTables({ maxBytes: 12_000, maxRows: 100 }, 'english');
    const read = async () => rowsOf(20);
    const first = await tables.table(resource('first', 20), NOTHING, read);
    assert.ok(first && first.bytes > 6_000 && first.bytes < 12_000, String(first?.bytes));
    await tables.table(resource('second', 20), NOTHING, read);
    assert.equal(tables.count, 1, 'the first went to make room');
    assert.equal(await tables.table(resource('large', 101), NOTHING, read), null);
    const tooLarge = await tables.table(resource('wide', 60), NOTHING, async () => rowsOf(60));
    assert.ok(tooLarge, 'answers the search that read it');
    assert.equal(await tables.table(resource('wide', 60), NOTHING, async () => assert.fail('not read again')), null);
  });

  test('a failed read is not remembered: the next search reads again', async () => {
    const tables = new ResidentTables({ maxBytes: 1 << 20, maxRows: 10 }, 'english');
    await assert.rejects(
      tables.table(resource('r'), NOTHING, async () => {
        throw new Error('store unavailable');
      }),
      /store unavailable/,
    );
    const table = await tables.table(resource('r'), { recordText: true, fieldTexts: [] }, async () => rowsOf(3));
    assert.equal(table?.size, 3);
    assert.ok(table?.hasRecordText, "the records' full text is made from the values read");
  });
});
