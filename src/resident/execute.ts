// The resident engine: answers a search plan from a resident table, giving the rows the dialect's SQL would give
// (the same columns in the same order, the keyset's values after them) and the number of records matched. Filters
// are slices of each field's precomputed order, sorts are counting sorts on ranks that stop at the page, and full-text
// queries go through postings, so a search costs in proportion to the page and the records matched, not the table.

import { RANK_NORMALIZATION, type Condition, type SearchPlan, type SortKey, type TextMatch } from '../query/plan.js';
import { ascending, complement, intersect, NO_ROWS, rowCount, span, union, type RowSet } from './rows.js';
import { boundIn, comparatorFor, type Comparable, type ResidentColumn, type ResidentTable } from './table.js';
import { storedValue } from '../catalog/values.js';
import { delimitedWriter, listWriter, objectWriter, type RecordWriter } from '../serialize/records.js';

export interface ResidentAnswer {
  /** As the store would return them for the plan's compiled query. */
  rows: unknown[][];
  /** Records matching the plan's condition (before the page is cut). */
  matched: number;
}

/** What a search needs prepared beyond a table's values: the whole-record text index, and fields' text indexes. */
export interface ResidentNeeds {
  recordText: boolean;
  fieldTexts: { fieldId: string; config: string }[];
}

/** The records' `_full_text` for a `q` on the record, a field's text index for a `q` on it. */
export function residentNeeds(plan: SearchPlan): ResidentNeeds {
  const needs: ResidentNeeds = { recordText: false, fieldTexts: [] };
  const need = (match: TextMatch) => {
    if (match.target.kind === 'row') needs.recordText = true;
    else needs.fieldTexts.push({ fieldId: match.target.field.id, config: match.query.config });
  };
  const walk = (c: Condition | null) => {
    if (c?.kind === 'text-match') need(c.match);
    else if (c?.kind === 'and' || c?.kind === 'or') c.of.forEach(walk);
  };
  walk(plan.where);
  for (const column of plan.columns) if (column.kind === 'rank') need(column.match);
  for (const key of plan.orderBy) if (key.target.kind === 'rank') need(key.target.match);
  return needs;
}

/**
 * A search that outran its time on the event loop: the store answers it instead, where a long search is run off the
 * event loop and stopped at the search time limit.
 */
export class ResidentSearchTooLong extends Error {
  constructor() {
    super('resident search outran its budget');
    this.name = 'ResidentSearchTooLong';
  }
}

/**
 * The time a search may take, checked where the work grows with the records a full-text query reaches (matching and
 * ranking record by record); everything else is linear in a table of bounded size. The clock is read every 64 steps.
 */
export class Budget {
  private steps = 0;

  constructor(private readonly until: number) {}

  static of(ms: number): Budget {
    return new Budget(performance.now() + ms);
  }

  step(): void {
    if ((++this.steps & 63) === 0 && performance.now() > this.until) throw new ResidentSearchTooLong();
  }
}

/** Whether the engine answers this plan; otherwise the store does. (DISTINCT is left to SQL's GROUP BY.) */
export function answersPlan(plan: SearchPlan): boolean {
  return !plan.distinct;
}

/** Ranks of one full-text match, computed once per record within a search. */
class Ranks {
  private readonly known = new Map<number, number>();

  constructor(
    private readonly table: ResidentTable,
    private readonly match: TextMatch,
    private readonly budget: Budget,
  ) {}

  of(row: number): number {
    let rank = this.known.get(row);
    if (rank === undefined) {
      this.budget.step();
      const { query, target } = this.match;
      rank =
        target.kind === 'row'
          ? this.table.text.rank(row, query, RANK_NORMALIZATION)
          : this.table.fieldText(target.field.id, query.config).rank(row, query, RANK_NORMALIZATION);
      this.known.set(row, rank);
    }
    return rank;
  }
}

class Search {
  private readonly ranks = new Map<TextMatch, Ranks>();

  constructor(
    readonly table: ResidentTable,
    private readonly budget: Budget,
  ) {}

  ranksOf(match: TextMatch): Ranks {
    let ranks = this.ranks.get(match);
    if (!ranks) {
      ranks = new Ranks(this.table, match, this.budget);
      this.ranks.set(match, ranks);
    }
    return ranks;
  }

  /** The records a condition holds for. */
  rows(condition: Condition): RowSet {
    const { table } = this;
    switch (condition.kind) {
      case 'equals': {
        const { index } = table.column(condition.field.id);
        const r = index.rankOf.get(storedValue(condition.value, condition.field.type)!);
        return r === undefined ? NO_ROWS : index.order.subarray(index.start[r]!, index.start[r + 1]!);
      }
      case 'in': {
        const { index } = table.column(condition.field.id);
        const groups: Int32Array[] = [];
        for (const value of condition.values) {
          const r = index.rankOf.get(storedValue(value, condition.field.type)!);
          if (r !== undefined) groups.push(index.order.subarray(index.start[r]!, index.start[r + 1]!));
        }
        return union(groups, table.size);
      }
      case 'compare':
        return this.range(table.column(condition.field.id), condition.operator, condition.value);
      case 'is-null':
        return table.column(condition.field.id).index.nulls;
      case 'not-null':
        return complement(table.column(condition.field.id).index.nulls, table.size);
      case 'id-range': {
        const ids = table.column('_id');
        const first = condition.after === undefined ? 0 : this.idBound(ids, condition.after, true);
        const last = condition.atMost === undefined ? table.size : this.idBound(ids, condition.atMost, true);
        return span(first, last, table.size);
      }
      case 'text-match': {
        const { query, target } = condition.match;
        if (query.candidates.kind === 'none') return NO_ROWS;
        const step = () => this.budget.step();
        return target.kind === 'row'
          ? table.text.matches(query, step)
          : table.fieldText(target.field.id, query.config).matches(query, step);
      }
      case 'and':
        return intersect(condition.of.map((c) => this.rows(c)));
      case 'or': {
        const parts = condition.of.map((c) => this.rows(c));
        return parts.includes(null) ? null : union(parts as Int32Array[], table.size);
      }
      case 'never':
        return NO_ROWS;
    }
  }

  /** The first record whose `_id` is beyond `id` (`strict`) or at least it: records are in `_id` order. */
  private idBound(ids: ResidentColumn, id: number, strict: boolean): number {
    const values = ids.values as readonly number[];
    let lo = 0;
    let hi = values.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (values[mid]! < id || (strict && values[mid] === id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private range(column: ResidentColumn, operator: 'gt' | 'gte' | 'lt' | 'lte', value: Comparable): RowSet {
    const { index } = column;
    const compare = comparatorFor(column.field.type);
    const bound = storedValue(value, column.field.type)!;
    // Ranks r with from ≤ r - 1 < to, as positions in the sorted distinct values.
    let from = 0;
    let to = index.distinct.length;
    if (operator === 'gt' || operator === 'gte') from = boundIn(index.distinct, bound, operator === 'gt', compare);
    else to = boundIn(index.distinct, bound, operator === 'lte', compare);
    if (from >= to) return NO_ROWS;
    const slice = index.order.subarray(index.start[from + 1]!, index.start[to + 1]!);
    return slice.length === this.table.size ? null : ascending(slice, this.table.size);
  }
}

/** A sort key as integer buckets: records in a lower bucket come first; `count` buckets in all. */
interface Buckets {
  count: number;
  of(row: number): number;
  /** For a field key over every record: the records of each bucket, in record order, without sorting. */
  groups?(bucket: number): Int32Array;
}

function fieldBuckets(column: ResidentColumn, key: SortKey): Buckets {
  const { rank, distinct, order, start, nulls } = column.index;
  const values = distinct.length;
  const nullBucket = key.nullsFirst ? 0 : values + 1;
  const of = key.descending
    ? (row: number) => (rank[row] === 0 ? nullBucket : values + 1 - rank[row]!)
    : (row: number) => (rank[row] === 0 ? nullBucket : rank[row]!);
  return {
    count: values + 2,
    of,
    groups(bucket) {
      if (bucket === nullBucket) return nulls;
      if (bucket === 0 || bucket === values + 1) return NO_ROWS;
      const r = key.descending ? values + 1 - bucket : bucket;
      return order.subarray(start[r]!, start[r + 1]!);
    },
  };
}

/** Ranks of a full-text match, best first, as buckets: the distinct ranks among the candidates, in order. */
function rankBuckets(ranks: Ranks, candidates: Int32Array, descending: boolean): Buckets {
  const values = new Float64Array(candidates.length);
  for (let i = 0; i < candidates.length; i++) values[i] = ranks.of(candidates[i]!);
  const distinct = Float64Array.from(new Set(values)).sort();
  if (descending) distinct.reverse();
  const bucketOf = new Map<number, number>();
  distinct.forEach((v, i) => bucketOf.set(v, i));
  return { count: distinct.length, of: (row) => bucketOf.get(ranks.of(row))! };
}

/** Largest integer a double holds exactly. */
const EXACT = 2 ** 53;

/**
 * `rows` (ascending) ordered by keys[k…], ties by record: each record's buckets and number folded into one double
 * where they fit, so that a typed array's own sort does the work without calling back; a comparison sort otherwise.
 */
function sortedByKeys(rows: Int32Array, keys: readonly Buckets[], k: number): ArrayLike<number> {
  let largest = 1;
  for (let i = 0; i < rows.length; i++) if (rows[i]! >= largest) largest = rows[i]! + 1;
  let span = largest;
  for (let j = k; j < keys.length; j++) span *= keys[j]!.count;
  if (span < EXACT) {
    const folded = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      let value = 0;
      for (let j = k; j < keys.length; j++) value = value * keys[j]!.count + keys[j]!.of(row);
      folded[i] = value * largest + row;
    }
    folded.sort();
    for (let i = 0; i < folded.length; i++) folded[i] = folded[i]! % largest;
    return folded;
  }
  return Array.from(rows).sort((a, b) => {
    for (let j = k; j < keys.length; j++) {
      const d = keys[j]!.of(a) - keys[j]!.of(b);
      if (d !== 0) return d;
    }
    return a - b;
  });
}

/**
 * Appends to `out` the records at positions [from, to) of `rows` ordered by `keys` (ties keeping the order of `rows`,
 * which is record order): a counting sort on the first key, and only the buckets the window reaches sorted further.
 */
function sortedWindow(
  rows: Int32Array,
  keys: readonly Buckets[],
  k: number,
  from: number,
  to: number,
  out: number[],
): void {
  if (from >= to) return;
  const key = keys[k];
  if (!key || rows.length <= 1) {
    for (let i = from; i < to; i++) out.push(rows[i]!);
    return;
  }
  if (rows.length * 4 < key.count) {
    // Few records among many buckets: sorting beats counting.
    const sorted = sortedByKeys(rows, keys, k);
    for (let i = from; i < to; i++) out.push(sorted[i]!);
    return;
  }
  const counts = new Int32Array(key.count + 1);
  const bucketOf = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const b = key.of(rows[i]!);
    bucketOf[i] = b;
    counts[b + 1]! += 1;
  }
  for (let b = 1; b <= key.count; b++) counts[b]! += counts[b - 1]!;
  const starts = counts.slice();
  const sorted = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) sorted[starts[bucketOf[i]!]!++] = rows[i]!;
  for (let b = 0; b < key.count; b++) {
    const s = counts[b]!;
    const e = counts[b + 1]!;
    if (s >= to) break;
    if (e <= from || s === e) continue;
    sortedWindow(sorted.subarray(s, e), keys, k + 1, Math.max(from, s) - s, Math.min(to, e) - s, out);
  }
}

/** The same over every record, when the first key is a field: its precomputed groups stand in for the counting sort. */
function sortedWindowOfAll(first: Buckets, keys: readonly Buckets[], from: number, to: number, out: number[]): void {
  let position = 0;
  for (let b = 0; b < first.count && position < to; b++) {
    const group = first.groups!(b);
    const end = position + group.length;
    if (end > from && group.length > 0)
      sortedWindow(group, keys, 1, Math.max(from, position) - position, Math.min(to, end) - position, out);
    position = end;
  }
}

function allRows(size: number): Int32Array {
  const rows = new Int32Array(size);
  for (let i = 0; i < size; i++) rows[i] = i;
  return rows;
}

/** The page's records, in the plan's order. */
function page(search: Search, plan: SearchPlan, matched: RowSet): number[] {
  const { table } = search;
  const total = rowCount(matched, table.size);
  const from = Math.min(plan.offset, total);
  const to = Math.min(total, from + plan.limit);
  const out: number[] = [];
  if (from >= to) return out;
  // Ties are broken by `_id`, ascending (record order), unless the sort names `_id`: keys after it cannot matter.
  const keys: SortKey[] = [];
  for (const key of plan.orderBy) {
    keys.push(key);
    if (key.target.kind === 'field' && key.target.field.id === '_id') break;
  }
  if (keys.length === 0) {
    for (let i = from; i < to; i++) out.push(matched === null ? i : matched[i]!);
    return out;
  }
  const rows = matched ?? null;
  const buckets = keys.map((key): Buckets =>
    key.target.kind === 'field'
      ? fieldBuckets(table.column(key.target.field.id), key)
      : rankBuckets(search.ranksOf(key.target.match), rows ?? allRows(table.size), key.descending),
  );
  if (rows === null && buckets[0]!.groups) sortedWindowOfAll(buckets[0]!, buckets, from, to, out);
  else sortedWindow(rows ?? allRows(table.size), buckets, 0, from, to, out);
  return out;
}

/** Each record's whole text, as the stores render it for `delimitedLines` (a line) or `jsonRecords` (its JSON). */
function wholeRecordCell(table: ResidentTable, plan: SearchPlan): (row: number) => string {
  const fields = plan.columns.flatMap((c) => (c.kind === 'field' ? [c.field] : []));
  const columns = fields.map((f) => ({ id: f.id, type: f.type }));
  const { delimitedLines: lines, jsonRecords: json } = plan;
  const writer: RecordWriter = lines
    ? delimitedWriter(columns, lines.delimiter, { timestampMilliseconds: lines.timestampMilliseconds })
    : (json!.lists ? listWriter : objectWriter)(columns, { timestampMilliseconds: json!.timestampMilliseconds });
  const shown = fields.map((f) => table.column(f.id).shown);
  const values = new Array<unknown>(shown.length);
  return (row) => {
    for (let i = 0; i < shown.length; i++) values[i] = shown[i]![row];
    return writer.record(values);
  };
}

/** The rows of the plan's select list for these records: field values and ranks, then keyset values. */
function selectRows(search: Search, plan: SearchPlan, records: readonly number[]): unknown[][] {
  const { table } = search;
  if (plan.delimitedLines || plan.jsonRecords) {
    const line = wholeRecordCell(table, plan);
    const keys = plan.keyset && !plan.distinct ? plan.keyset.map((k) => table.column(k.field.id).values) : [];
    return records.map((row) => [line(row), ...keys.map((values) => values[row])]);
  }
  const cells: ((row: number) => unknown)[] = plan.columns.map((c) => {
    if (c.kind === 'rank') {
      const ranks = search.ranksOf(c.match);
      return (row: number) => ranks.of(row);
    }
    const { shown } = table.column(c.field.id);
    return (row: number) => shown[row];
  });
  if (plan.keyset && !plan.distinct) {
    for (const key of plan.keyset) {
      const { values } = table.column(key.field.id);
      cells.push((row) => values[row]);
    }
  }
  return records.map((row) => cells.map((cell) => cell(row)));
}

/**
 * Answers `plan` from `table`, which must hold the plan's extra columns (see extraColumns); throws
 * ResidentSearchTooLong
 * when the budget runs out first.
 */
export function executeSearch(table: ResidentTable, plan: SearchPlan, budget: Budget): ResidentAnswer {
  const search = new Search(table, budget);
  const matched = plan.where === null ? null : search.rows(plan.where);
  const records = page(search, plan, matched);
  return { rows: selectRows(search, plan, records), matched: rowCount(matched, table.size) };
}
