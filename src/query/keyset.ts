// Keyset paging: the keys that order records completely (the sort's fields, then `_id`, which breaks every tie), the
// condition that selects the records after a given one in that order, and the cursor a page's last record gives.
// CKAN 2.12's `next_page` is the case of `_id` alone; `count_centre_after` is the general one.

import { storedValue, type StoredValue } from '../catalog/values.js';
import { pythonRepr } from '../serialize/python-json.js';
import { allOf, anyOf, coerceFilterValue, MATCHES_NOTHING } from './filters.js';
import type { AfterSeek, Condition, PlanField, SearchPlan, SortKey } from './plan.js';
import type { PlanProblems } from './problems.js';

export interface KeysetKey {
  field: PlanField;
  descending: boolean;
  nullsFirst: boolean;
}

/** The parameter of the Count Centre extension that continues after a given record, in any order of fields. */
export const AFTER_PARAMETER = 'count_centre_after';
/** The result key that gives the value of AFTER_PARAMETER for the next page. */
export const NEXT_AFTER_KEY = 'count_centre_next_after';

/**
 * The keys of an order keyset paging can follow, or null: the sort's fields up to the first `_id` (which is unique,
 * so later keys never matter), then `_id` when the sort does not name it, since ties are broken by record order.
 * Orders by rank (a computed value) and distinct records (which have no single `_id`) cannot be followed.
 */
export function keysetKeys(orderBy: readonly SortKey[], idField: PlanField, distinct: boolean): KeysetKey[] | null {
  if (distinct) return null;
  const keys: KeysetKey[] = [];
  for (const key of orderBy) {
    if (key.target.kind !== 'field') return null;
    keys.push({ field: key.target.field, descending: key.descending, nullsFirst: key.nullsFirst });
    if (key.target.field.id === '_id') return keys;
  }
  keys.push({ field: idField, descending: false, nullsFirst: false });
  return keys;
}

/** Whether the order is `_id` alone (the default), the one order CKAN 2.12 gives `next_page` for. */
export function idOnlyOrder(keys: readonly KeysetKey[] | null, orderBy: readonly SortKey[]): 'asc' | 'desc' | null {
  if (!keys || keys.length !== 1 || orderBy.length > 1) return null;
  return keys[0]!.descending ? 'desc' : 'asc';
}

/** `_id` never is; another field is unless loading found it full. */
function mayBeNull(field: PlanField): boolean {
  return field.id !== '_id' && field.nullable !== false;
}

/** Records strictly beyond `value` on this one key, in the key's direction and null placement. */
function beyond(key: KeysetKey, value: StoredValue): Condition | null {
  const { field } = key;
  if (value === null) {
    // Past the empty cells: every value when they come first, nothing when they come last.
    if (!key.nullsFirst) return { kind: 'never' };
    return mayBeNull(field) ? { kind: 'not-null', field } : null;
  }
  const further: Condition = { kind: 'compare', field, operator: key.descending ? 'lt' : 'gt', value };
  return !key.nullsFirst && mayBeNull(field) ? anyOf([further, { kind: 'is-null', field }]) : further;
}

function equalTo(key: KeysetKey, value: StoredValue): Condition {
  return value === null ? { kind: 'is-null', field: key.field } : { kind: 'equals', field: key.field, value };
}

/**
 * The records after the one whose keys hold `values`: beyond it on the first key, or equal on the first and beyond on
 * the second, and so on. A bound on the first key alone is added where it is implied, so that a store can start
 * from there in that key's index instead of testing every record.
 */
export function afterCondition(keys: readonly KeysetKey[], values: readonly StoredValue[]): Condition | null {
  const alternatives = keys.map((key, i) =>
    allOf([...keys.slice(0, i).map((k, j) => equalTo(k, values[j]!)), beyond(key, values[i]!)]),
  );
  const after = anyOf(alternatives);
  const [first] = keys;
  const firstValue = values[0];
  if (
    keys.length > 1 &&
    first &&
    firstValue !== null &&
    firstValue !== undefined &&
    (first.nullsFirst || !mayBeNull(first.field))
  ) {
    return allOf([
      { kind: 'compare', field: first.field, operator: first.descending ? 'lte' : 'gte', value: firstValue },
      after,
    ]);
  }
  return after;
}

/**
 * The records afterCondition selects, as disjoint conditions each of which is one stretch of an index in the keys'
 * order: equal on the keys before one key and beyond it on that one (beyond its value, and empty, as two where its
 * empty cells come after its values). A store keeping such an index seeks to the start of each and takes the page
 * from the first records of all of them. afterCondition's single range starts at the first key's value, so a store
 * following it steps over every earlier record that shares the value: 20,000 of them and more at 100,000,000
 * records. Null where a seek would be every record, or where there is only one (afterCondition is then that one).
 */
export function afterSeeks(keys: readonly KeysetKey[], values: readonly StoredValue[]): AfterSeek[] | null {
  const seeks: AfterSeek[] = [];
  const sortKey = (key: KeysetKey, field = key.field): SortKey => ({
    target: { kind: 'field', field },
    descending: key.descending,
    nullsFirst: key.nullsFirst,
  });
  // From the last key to the first: the stretches in the order's own order.
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    const past = beyond(key, values[i]!);
    if (past === null) return null;
    if (past.kind === 'never') continue;
    const equalBefore = keys.slice(0, i).map((k, j) => equalTo(k, values[j]!));
    const later = keys.slice(i + 1).map((k) => sortKey(k));
    for (const part of past.kind === 'or' ? past.of : [past]) {
      const where = allOf([...equalBefore, part]);
      if (where === null || where.kind === 'never') continue;
      // A stretch beyond a value holds no empty cells of its key; one of empty cells holds nothing else.
      const orderBy = part.kind === 'is-null' ? later : [sortKey(key, { ...key.field, nullable: false }), ...later];
      seeks.push({ where, orderBy });
    }
  }
  return seeks.length > 1 ? seeks : null;
}

/**
 * Reads `count_centre_after` against the order's keys, as the record's value of each key; problems are recorded under
 * its name.
 */
export function planAfter(
  input: unknown,
  keys: readonly KeysetKey[] | null,
  problems: PlanProblems,
): StoredValue[] | null {
  if (!keys) {
    problems.message(
      AFTER_PARAMETER,
      'Keyset paging needs records sorted by fields: not by rank (a full-text query without sort) and not distinct',
    );
    return null;
  }
  const names = keys.map((k) => k.field.id);
  if (!Array.isArray(input) || input.length !== keys.length) {
    problems.message(
      AFTER_PARAMETER,
      `Must be a list of ${keys.length} value${keys.length === 1 ? '' : 's'}, the last record's ${pythonRepr(names)}`,
    );
    return null;
  }
  const values: StoredValue[] = [];
  keys.forEach((key, i) => {
    const value = input[i];
    if (value === null && key.field.id !== '_id') {
      values.push(null);
      return;
    }
    const coerced = value !== null && typeof value !== 'object' ? coerceFilterValue(value, key.field) : MATCHES_NOTHING;
    if (coerced === MATCHES_NOTHING || typeof coerced === 'object') {
      problems.message(AFTER_PARAMETER, `invalid value ${pythonRepr(value)} for "${key.field.id}"`);
      values.push(null);
    } else values.push(coerced);
  });
  return values;
}

/** The cursor of a row that carries the keys' values after its other columns. */
export function rowCursor(row: readonly unknown[], keys: readonly KeysetKey[]): StoredValue[] {
  const start = row.length - keys.length;
  return keys.map((key, i) => storedValue(row[start + i], key.field.type));
}

/**
 * A walk through a plan's records in `_id` order, one batch at a time, each its own short query that starts after the
 * previous batch's last record: no statement stays open for the whole walk, and batch N costs what batch 1 does.
 * Null when the plan is not in `_id` order (or is distinct).
 */
export function idWalk(
  plan: SearchPlan,
  idField: PlanField,
): { first(limit: number): SearchPlan; after(lastId: number, limit: number): SearchPlan } | null {
  const keys = keysetKeys(plan.orderBy, idField, plan.distinct);
  const order = idOnlyOrder(keys, plan.orderBy);
  if (!keys || !order) return null;
  const withKeys = { ...plan, keyset: keys };
  return {
    first: (limit) => ({ ...withKeys, limit }),
    after: (lastId, limit) => ({
      ...withKeys,
      // The walk's own bound replaces any start the plan had.
      afterSeeks: null,
      where:
        allOf([
          plan.where,
          { kind: 'compare', field: idField, operator: order === 'asc' ? 'gt' : 'lt', value: lastId },
        ]) ?? null,
      offset: 0,
      limit,
    }),
  };
}
