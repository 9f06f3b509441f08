// The seeks of a page after a record (afterSeeks) against the one condition they stand for (afterCondition), on
// generated records, orders and cursors: every record after the cursor is in exactly one seek, and no other record is
// in any. Conditions are evaluated here as SQL evaluates them (a comparison with an empty cell is false), so this
// checks the conditions themselves; test/http/typed-filters.test.ts runs the stores' SQL of them.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { afterCondition, afterSeeks, type KeysetKey } from '../../src/query/keyset.js';
import type { Condition, PlanField, SortKey } from '../../src/query/plan.js';

type Value = number | null;
type Row = Record<string, Value>;

const ID: PlanField = { id: '_id', type: 'int', nullable: false };
const FIELDS: PlanField[] = [
  { id: 'A', type: 'int4' },
  { id: 'B', type: 'int4' },
  { id: 'Full', type: 'int4', nullable: false },
];

function holds(condition: Condition | null, row: Row): boolean {
  if (condition === null) return true;
  switch (condition.kind) {
    case 'equals':
    case 'compare': {
      const value = row[condition.field.id] ?? null;
      const other = condition.value as number;
      if (value === null) return false;
      if (condition.kind === 'equals') return value === other;
      return { gt: value > other, gte: value >= other, lt: value < other, lte: value <= other }[condition.operator];
    }
    case 'is-null':
      return row[condition.field.id] === null;
    case 'not-null':
      return row[condition.field.id] !== null;
    case 'and':
      return condition.of.every((c) => holds(c, row));
    case 'or':
      return condition.of.some((c) => holds(c, row));
    case 'never':
      return false;
    default:
      throw new Error(`not generated: ${condition.kind}`);
  }
}

const rows = fc
  .array(fc.tuple(fc.option(fc.integer({ min: 0, max: 3 })), fc.option(fc.integer({ min: 0, max: 3 })), fc.nat(3)), {
    maxLength: 40,
  })
  .map((cells) => cells.map(([a, b, full], i): Row => ({ _id: i + 1, A: a, B: b, Full: full })));

const sortKey = fc.record({
  field: fc.constantFrom(...FIELDS),
  descending: fc.boolean(),
  nullsFirst: fc.boolean(),
});

/** One or two fields (distinct), then `_id` ascending or descending, as keysetKeys makes them. */
const keys = fc
  .tuple(fc.uniqueArray(sortKey, { minLength: 1, maxLength: 2, selector: (k) => k.field.id }), fc.boolean())
  .map(([fields, idDescending]): KeysetKey[] => [
    ...fields,
    { field: ID, descending: idDescending, nullsFirst: false },
  ]);

/** A cursor's values: anything the fields may hold (empty only where a field may be), present in the rows or not. */
const cursorFor = (order: KeysetKey[]) =>
  fc.tuple(
    ...order.map((k) =>
      k.field.id === '_id'
        ? fc.integer({ min: 0, max: 41 })
        : k.field.nullable === false
          ? fc.integer({ min: -1, max: 4 })
          : fc.option(fc.integer({ min: -1, max: 4 })),
    ),
  );

/** Records in an order of keys, as PostgreSQL sorts them (empty cells where each key puts them). */
function inOrder(
  records: Row[],
  order: readonly { field: PlanField; descending: boolean; nullsFirst: boolean }[],
): Row[] {
  return [...records].sort((a, b) => {
    for (const { field, descending, nullsFirst } of order) {
      const [x, y] = [a[field.id] ?? null, b[field.id] ?? null];
      if (x === y) continue;
      if (x === null) return nullsFirst ? -1 : 1;
      if (y === null) return nullsFirst ? 1 : -1;
      return (x < y ? -1 : 1) * (descending ? -1 : 1);
    }
    return 0;
  });
}

const keysOf = (orderBy: readonly SortKey[]) =>
  orderBy.map((k) => {
    assert.equal(k.target.kind, 'field');
    return { field: (k.target as { field: PlanField }).field, descending: k.descending, nullsFirst: k.nullsFirst };
  });

test('the seeks after a record are the records after it, each in exactly one seek, in the order they have there', () => {
  fc.assert(
    fc.property(
      rows,
      keys.chain((order) => fc.tuple(fc.constant(order), cursorFor(order))),
      (records, [order, cursor]) => {
        const values = cursor as Value[];
        const after = afterCondition(order, values);
        const seeks = afterSeeks(order, values);
        if (seeks === null) return;
        assert.ok(seeks.length >= 2, 'a single seek would be the condition itself');
        for (const row of records) {
          const inSeeks: number = seeks.filter((seek) => holds(seek.where, row)).length;
          assert.equal(inSeeks, holds(after, row) ? 1 : 0, JSON.stringify({ row, order, values, seeks }));
        }
        for (const seek of seeks) {
          // A stretch's own order (some keys left out, empty cells placed nowhere) is the page's order of its records.
          const stretch = records.filter((row) => holds(seek.where, row));
          const ids = (list: Row[]) => list.map((r) => r._id);
          assert.deepEqual(ids(inOrder(stretch, keysOf(seek.orderBy))), ids(inOrder(stretch, order)));
          const ranged = seek.orderBy[0]!;
          if (ranged.target.kind === 'field' && ranged.target.field.nullable === false)
            assert.ok(stretch.every((r) => r[(ranged.target as { field: PlanField }).field.id] !== null));
        }
      },
    ),
    { numRuns: 2000, seed: 38 },
  );
});

test('seeks stand for the record on every key but an empty cursor on a field that has no empty cells', () => {
  const full = FIELDS[2]!;
  const order: KeysetKey[] = [
    { field: full, descending: true, nullsFirst: true },
    { field: ID, descending: false, nullsFirst: false },
  ];
  const idKey = { target: { kind: 'field', field: ID }, descending: false, nullsFirst: false } as const;
  assert.deepEqual(afterSeeks(order, [2, 7]), [
    {
      where: {
        kind: 'and',
        of: [
          { kind: 'equals', field: full, value: 2 },
          { kind: 'compare', field: ID, operator: 'gt', value: 7 },
        ],
      },
      orderBy: [idKey],
    },
    {
      where: { kind: 'compare', field: full, operator: 'lt', value: 2 },
      orderBy: [{ target: { kind: 'field', field: full }, descending: true, nullsFirst: true }, idKey],
    },
  ]);
  // Nothing to seek to: past an empty cell that comes first, every value is after it.
  assert.equal(afterSeeks(order, [null, 7]), null);
});
