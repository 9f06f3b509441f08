// Deep pages of a sorted search without stepping over every record before them. The keys of every Nth record of an
// order (its marks), found by one walk of the order per version of the data, let a page at offset o start after the
// mark just before o and skip fewer than N records, as a client following count_centre_next_after would.

import { LRUCache } from 'lru-cache';
import type { CatalogResource } from '../catalog/catalog.js';
import type { StoredValue } from '../catalog/values.js';
import type { CompiledQuery } from '../dialect/compiled.js';
import { allOf } from '../query/filters.js';
import { afterCondition, afterSeeks, keysetKeys, rowCursor } from '../query/keyset.js';
import type { SearchPlan } from '../query/plan.js';
import type { Services } from './types.js';

/** At most this many marks an order: in resources of more than this many times the setting, they are further apart. */
const MARKS_PER_ORDER = 2000;
/**
 * Up to this many records the first deep page waits for the walk (a few milliseconds); beyond, the walk runs beside the
 * searches and later pages use its marks. A walk costs a pass over the whole order, which the page itself would have
 * cost only at the order's end: at 100,000 records, 30-40 ms on PostgreSQL against 1-5 ms for the page.
 */
const WAIT_FOR_MARKS_ROWS = 20_000;
/** Resources of more records are not walked: the walk would cost seconds of the store's time for each order. */
export const MARKED_ROWS_MAX = 10_000_000;
/**
 * Memory for the marks of every order of every resource, the most recently used kept: a mark holds a record's sort
 * keys, and a resource's orders (with their filters) are as many as its clients ask for.
 */
const MARKS_BYTES = 16 * 1024 * 1024;

/** The keys of an order's `every`th record, its 2·`every`th, …; null where the walk failed (it is not tried again). */
type Marks = StoredValue[][] | null;

interface Walk {
  done: Promise<Marks>;
  /** The marks once the walk is over. */
  settled?: Marks;
}

/** Walks begun, walks that failed, and pages started from a mark, since the process started (for /metrics). */
const counted = { offset_mark_walks: 0, offset_mark_walks_failed: 0, offset_mark_pages: 0 };

export function offsetMarkStats(): typeof counted {
  return { ...counted };
}

/** Walks by resource version (each version of the data is a new resource object), order and filters. */
const walks = new LRUCache<string, Walk>({ maxSize: MARKS_BYTES, sizeCalculation: () => 64 });
const versions = new WeakMap<CatalogResource, number>();
let lastVersion = 0;

/** About what a walk's marks hold in memory. */
function bytesOf(marks: Marks): number {
  let bytes = 64;
  for (const keys of marks ?? []) {
    bytes += 32;
    for (const value of keys) bytes += typeof value === 'string' ? 16 + 2 * value.length : 16;
  }
  return bytes;
}

/** The walk of the order `query` walks, on this version of the resource: begun now, or the one begun before. */
function walkOf(resource: CatalogResource, query: CompiledQuery, run: () => Promise<StoredValue[][]>): Walk {
  let version = versions.get(resource);
  if (version === undefined) versions.set(resource, (version = ++lastVersion));
  const key = `${version}\u0000${query.sql}\u0000${JSON.stringify(query.params)}`;
  const known = walks.get(key);
  if (known) return known;
  counted.offset_mark_walks += 1;
  const walk: Walk = {
    done: run().catch(() => {
      // A walk stopped by the search time limit (or an outage) is not worth repeating for this version.
      counted.offset_mark_walks_failed += 1;
      return null;
    }),
  };
  walks.set(key, walk);
  void walk.done.then((marks) => {
    walk.settled = marks;
    // Counted at its size once its marks are known (marks larger than all the memory are not kept).
    if (walks.peek(key) === walk) walks.set(key, walk, { size: bytesOf(marks) });
  });
  return walk;
}

/**
 * The plan to run for a page: `plan` itself, or, for a page deep in a sorted order whose marks are known, the same
 * page as the records after the mark before its offset, at the offset that is left. Only the page's statement is
 * changed: its count, total and links are those of `plan`.
 */
export async function pageFromMark(
  plan: SearchPlan,
  resource: CatalogResource,
  services: Services,
): Promise<SearchPlan> {
  const spacing = services.settings.offsetMarkEvery;
  if (spacing === 0 || plan.distinct || plan.afterSeeks || plan.orderBy.length === 0) return plan;
  if (resource.total > MARKED_ROWS_MAX) return plan;
  const every = Math.max(spacing, Math.ceil(resource.total / MARKS_PER_ORDER));
  // A page of the whole resource in `_id` order has already been turned into a seek (offset 0).
  if (plan.offset < every) return plan;
  const keys = keysetKeys(plan.orderBy, resource.fieldById.get('_id')!, false);
  if (!keys) return plan;
  const { backend } = services;
  const query = backend.compiler.compileOffsetMarks(plan, keys, every);
  const walk = walkOf(resource, query, async () => (await backend.rows(query)).map((row) => rowCursor(row, keys)));
  const marks =
    walk.settled !== undefined ? walk.settled : resource.total <= WAIT_FOR_MARKS_ROWS ? await walk.done : null;
  if (!marks) return plan;
  const passed = Math.min(Math.floor(plan.offset / every), marks.length);
  if (passed === 0) return plan;
  const mark = marks[passed - 1]!;
  const after = afterCondition(keys, mark);
  if (after === null || after.kind === 'never') return plan;
  const seeks = afterSeeks(keys, mark);
  counted.offset_mark_pages += 1;
  return {
    ...plan,
    where: allOf([plan.where, after]),
    afterSeeks: seeks?.map((seek) => ({ ...seek, where: allOf([plan.where, seek.where])! })) ?? null,
    offset: plan.offset - passed * every,
  };
}
