// A small resource held in memory for one version of the data: each field's values in record order, and, built on
// first use, each field's order (from which equality, ranges and sorts are answered without a sort) and the
// full-text postings. The resident engine (execute.ts) answers searches from it as the stores would.

import type { FieldType } from '../catalog/types.js';
import { compareLexemes } from '../text-search/index.js';
import { FieldText, RecordText } from './text.js';
import { numberText, storedValue, type StoredValue } from '../catalog/values.js';
import { RowVectorizer } from '../catalog/row-text.js';
import { tsvectorToString } from '../text-search/index.js';

/** A non-null value as the engine compares it: text (dates and timestamps as ISO text), a number, or a boolean. */
export type Comparable = string | number | boolean;

export interface ResidentField {
  id: string;
  type: FieldType | 'int';
}

/**
 * A field's values in order: the distinct values sorted as the stores sort them, each record's rank among them, and
 * the records of each value in `_id` order, laid end to end. A value's records, a range of values' records and the
 * whole sorted order are all slices of `order`.
 */
export interface ColumnIndex {
  /** The distinct values, ascending; rank r (1-based) is `distinct[r - 1]`. */
  readonly distinct: readonly Comparable[];
  readonly rankOf: ReadonlyMap<Comparable, number>;
  /** Per record: its value's rank, 0 for null. */
  readonly rank: Int32Array;
  /** Records with a value, by (rank, record). */
  readonly order: Int32Array;
  /** `start[r]` is where rank r's records begin in `order` (r = 1…R); `start[R + 1]` is order's length. */
  readonly start: Int32Array;
  /** Records without a value, in record order. */
  readonly nulls: Int32Array;
}

/** How the stores order a type's values: text by code point (CKAN's C collation), numbers and booleans by value. */
export function comparatorFor(type: ResidentField['type']): (a: Comparable, b: Comparable) => number {
  switch (type) {
    case 'text':
      return (a, b) => compareLexemes(a as string, b as string);
    case 'date':
    case 'timestamp':
      // ISO text of one width up to the fraction, whose digits compare as text does: ASCII order is value order.
      return (a, b) => (a < b ? -1 : a > b ? 1 : 0);
    case 'bool':
      return (a, b) => Number(a) - Number(b);
    default:
      return (a, b) => (a as number) - (b as number);
  }
}

export class ResidentColumn {
  private built: ColumnIndex | null = null;

  constructor(
    readonly field: ResidentField,
    /** One per record, in `_id` order. */
    readonly values: readonly (Comparable | null)[],
    /**
     * For a numeric field, the values as the store gave them, exact texts among them ("12.50"), which records show;
     * `values` holds the doubles they compare and sort by.
     */
    readonly shown: readonly unknown[] = values,
  ) {}

  get index(): ColumnIndex {
    return (this.built ??= buildIndex(this.values, comparatorFor(this.field.type)));
  }

  /** Bytes the index holds, once built (0 before). */
  get indexBytes(): number {
    const built = this.built;
    if (!built) return 0;
    return (
      built.rank.byteLength +
      built.order.byteLength +
      built.start.byteLength +
      built.nulls.byteLength +
      built.distinct.length * 48
    );
  }
}

function buildIndex(
  values: readonly (Comparable | null)[],
  compare: (a: Comparable, b: Comparable) => number,
): ColumnIndex {
  const n = values.length;
  const firstSeen = new Map<Comparable, number>();
  let nullCount = 0;
  for (let row = 0; row < n; row++) {
    const value = values[row];
    if (value === null || value === undefined) nullCount += 1;
    else if (!firstSeen.has(value)) firstSeen.set(value, row);
  }
  // Values equal to the stores but distinct as map keys cannot occur: numbers are keyed by value (0 and -0 alike),
  // text and ISO dates by their exact characters, which is how the stores compare them too.
  const distinct = [...firstSeen.keys()].sort(compare);
  const rankOf = new Map<Comparable, number>();
  distinct.forEach((value, i) => rankOf.set(value, i + 1));
  const rank = new Int32Array(n);
  const counts = new Int32Array(distinct.length + 2);
  const nulls = new Int32Array(nullCount);
  let nullAt = 0;
  for (let row = 0; row < n; row++) {
    const value = values[row];
    if (value === null || value === undefined) {
      nulls[nullAt++] = row;
      continue;
    }
    const r = rankOf.get(value)!;
    rank[row] = r;
    counts[r]! += 1;
  }
  // Counting sort by rank: records of one value stay in record order.
  const start = new Int32Array(distinct.length + 2);
  for (let r = 1, at = 0; r <= distinct.length + 1; r++) {
    start[r] = at;
    at += counts[r]!;
  }
  const order = new Int32Array(n - nullCount);
  const next = start.slice();
  for (let row = 0; row < n; row++) {
    const r = rank[row]!;
    if (r !== 0) order[next[r]!++] = row;
  }
  return { distinct, rankOf, rank, order, start, nulls };
}

/** The first index in `distinct` whose value is not below `value` (`strict`: above it). */
export function boundIn(
  distinct: readonly Comparable[],
  value: Comparable,
  strict: boolean,
  compare: (a: Comparable, b: Comparable) => number,
): number {
  let lo = 0;
  let hi = distinct.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compare(distinct[mid]!, value);
    if (c < 0 || (strict && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Records whose `_full_text` is made per turn of the event loop (about a millisecond's work). */
const VECTORS_PER_TURN = 256;

/**
 * One resource's records in memory, in `_id` order (record number = position), read from the store once per version
 * of the data: `_id` and the fields' values, and, when a search first needs it, each record's `_full_text`, made from
 * its values as the load made it.
 */
export class ResidentTable {
  readonly size: number;
  readonly columns: ReadonlyMap<string, ResidentColumn>;
  private recordText: RecordText | null = null;
  private readonly fieldTexts = new Map<string, FieldText>();
  private readonly baseBytes: number;

  constructor(
    readonly resourceId: string,
    private readonly fields: readonly ResidentField[],
    /** Per record: `_id` and the fields' values, in `fields` order. */
    rows: readonly (readonly unknown[])[],
  ) {
    this.size = rows.length;
    const columns = new Map<string, ResidentColumn>();
    // Repeated text (constituencies, parties, outcomes) is held once, however many records repeat it.
    const interned = new Map<string, string>();
    let bytes = rows.length * 16;
    fields.forEach((field, i) => {
      const values = rows.map((row) => {
        const value = storedValue(row[i], field.type);
        if (typeof value !== 'string') return value;
        const known = interned.get(value);
        if (known !== undefined) return known;
        interned.set(value, value);
        bytes += value.length + 24;
        return value;
      });
      bytes += rows.length * 8;
      // PostgreSQL gives every numeric as text; only texts that are more than their double's digits need keeping.
      const exact =
        field.type === 'numeric' &&
        rows.some((row) => typeof row[i] === 'string' && numberText(Number(row[i]), 'numeric') !== row[i]);
      if (exact) bytes += rows.length * 32;
      columns.set(field.id, new ResidentColumn(field, values, exact ? rows.map((row) => row[i] ?? null) : values));
    });
    this.columns = columns;
    this.baseBytes = bytes;
  }

  column(id: string): ResidentColumn {
    const column = this.columns.get(id);
    if (!column) throw new Error(`resident table ${this.resourceId} has no field ${id}`);
    return column;
  }

  /** What the table holds in memory, roughly: values, texts and whatever indexes were built. */
  get bytes(): number {
    let bytes = this.baseBytes;
    for (const column of this.columns.values()) bytes += column.indexBytes;
    if (this.recordText) bytes += this.recordText.bytes;
    for (const text of this.fieldTexts.values()) bytes += text.bytes;
    return bytes;
  }

  /** Builds every field's order, one field per turn of the event loop, so that no search waits for one. */
  async buildIndexes(): Promise<void> {
    for (const column of this.columns.values()) {
      void column.index;
      await nextTurn();
    }
  }

  /** Whether the records' `_full_text` index is held. */
  get hasRecordText(): boolean {
    return this.recordText !== null;
  }

  /**
   * Makes each record's `_full_text` from its values (`language`: the one the store's index was built with), as the
   * load made it, and indexes them a few hundred records per turn.
   */
  async addRecordText(language: string): Promise<void> {
    const fields = this.fields.filter((f) => f.id !== '_id');
    const vectorizer = new RowVectorizer(
      language,
      fields.map((f) => ({ type: f.type === 'int' ? 'int4' : f.type })),
    );
    const shown = fields.map((f) => this.column(f.id).shown);
    const texts = new Array<string>(this.size);
    const values = new Array<StoredValue>(fields.length);
    for (let row = 0; row < this.size; row++) {
      for (let i = 0; i < shown.length; i++) values[i] = (shown[i]![row] ?? null) as StoredValue;
      texts[row] = tsvectorToString(vectorizer.vector(values));
      // A few hundred records a turn, as the index is built: no search waits long behind it.
      if (row % VECTORS_PER_TURN === VECTORS_PER_TURN - 1) await nextTurn();
    }
    this.recordText = await RecordText.build(texts);
  }

  /** The whole-record full-text index; present once made (addRecordText). */
  get text(): RecordText {
    if (!this.recordText) throw new Error(`resident table ${this.resourceId}: _full_text not made`);
    return this.recordText;
  }

  hasFieldText(fieldId: string, config: string): boolean {
    return this.fieldTexts.has(fieldTextKey(fieldId, config));
  }

  /** Makes a field's values into documents of a text search configuration, a few dozen values per turn. */
  async addFieldText(fieldId: string, config: string): Promise<void> {
    const key = fieldTextKey(fieldId, config);
    if (!this.fieldTexts.has(key)) this.fieldTexts.set(key, await FieldText.build(this.column(fieldId), config));
  }

  /** A field's text index; present once added. */
  fieldText(fieldId: string, config: string): FieldText {
    const text = this.fieldTexts.get(fieldTextKey(fieldId, config));
    if (!text) throw new Error(`resident table ${this.resourceId}: no ${config} text of ${fieldId}`);
    return text;
  }
}

function fieldTextKey(fieldId: string, config: string): string {
  return `${config}\u0000${fieldId}`;
}

/** Lets the event loop serve what is waiting: long preparations go a few milliseconds at a time. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
