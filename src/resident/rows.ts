// Sets of records of a resident table: ascending record numbers in an Int32Array, or null for every record (which is
// never materialised). Intersections and unions keep the order, so a result is always in `_id` order.

export type RowSet = Int32Array | null;

const EMPTY = new Int32Array(0);

/** Records marked in a bitmap, in order: linear in the table, whatever the order the marks came in. */
function fromMarks(marks: Uint8Array, count: number): Int32Array {
  const out = new Int32Array(count);
  for (let row = 0, at = 0; at < count; row++) if (marks[row]) out[at++] = row;
  return out;
}

/**
 * The records of some lists, each ascending (and distinct within itself), as one ascending set. `size` is the table's
 * record count: long lists are merged through a bitmap, a few short ones by sorting.
 */
export function union(lists: readonly Int32Array[], size: number): Int32Array {
  const nonEmpty = lists.filter((l) => l.length > 0);
  if (nonEmpty.length === 0) return EMPTY;
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  let total = 0;
  for (const l of nonEmpty) total += l.length;
  if (total * 8 < size) {
    const all = new Int32Array(total);
    let at = 0;
    for (const l of nonEmpty) {
      all.set(l, at);
      at += l.length;
    }
    all.sort();
    let kept = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[kept - 1]) all[kept++] = all[i]!;
    return all.subarray(0, kept);
  }
  const marks = new Uint8Array(size);
  let count = 0;
  for (const l of nonEmpty) {
    for (let i = 0; i < l.length; i++) {
      const row = l[i]!;
      if (!marks[row]) {
        marks[row] = 1;
        count += 1;
      }
    }
  }
  return fromMarks(marks, count);
}

/** First position in `list` (ascending) holding a value not below `row`, searching from `from`. */
function seek(list: Int32Array, row: number, from: number): number {
  let lo = from;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < row) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function intersectTwo(small: Int32Array, large: Int32Array): Int32Array {
  const out = new Int32Array(small.length);
  let kept = 0;
  if (small.length * 16 < large.length) {
    // A short list against a long one: look each record up.
    let from = 0;
    for (let i = 0; i < small.length; i++) {
      from = seek(large, small[i]!, from);
      if (from === large.length) break;
      if (large[from] === small[i]) out[kept++] = small[i]!;
    }
  } else {
    for (let i = 0, j = 0; i < small.length && j < large.length;) {
      const a = small[i]!;
      const b = large[j]!;
      if (a === b) {
        out[kept++] = a;
        i++;
        j++;
      } else if (a < b) i++;
      else j++;
    }
  }
  return out.subarray(0, kept);
}

/** The records every set holds (null: no set restricts, every record). */
export function intersect(sets: readonly RowSet[]): RowSet {
  const lists = sets.filter((s): s is Int32Array => s !== null).sort((a, b) => a.length - b.length);
  if (lists.length === 0) return null;
  let result = lists[0]!;
  for (let i = 1; i < lists.length && result.length > 0; i++) result = intersectTwo(result, lists[i]!);
  return result;
}

/** Every record but those of `list` (ascending). */
export function complement(list: Int32Array, size: number): RowSet {
  if (list.length === 0) return null;
  const out = new Int32Array(size - list.length);
  let at = 0;
  for (let row = 0, j = 0; row < size; row++) {
    if (j < list.length && list[j] === row) j++;
    else out[at++] = row;
  }
  return out;
}

/** The records of some positions of a table's order (any order), ascending. */
export function ascending(rows: Int32Array, size: number): Int32Array {
  if (rows.length * 8 < size) return Int32Array.from(rows).sort();
  const marks = new Uint8Array(size);
  for (let i = 0; i < rows.length; i++) marks[rows[i]!] = 1;
  return fromMarks(marks, rows.length);
}

/** Records first…last-1 (every record when that is all of them). */
export function span(first: number, last: number, size: number): RowSet {
  if (first <= 0 && last >= size) return null;
  if (last <= first) return EMPTY;
  const out = new Int32Array(last - first);
  for (let i = 0; i < out.length; i++) out[i] = first + i;
  return out;
}

export function rowCount(set: RowSet, size: number): number {
  return set === null ? size : set.length;
}

export { EMPTY as NO_ROWS };
