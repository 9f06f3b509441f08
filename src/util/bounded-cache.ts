// A size-bounded map that forgets its least recently used entries: for prepared statements, parsed queries, counts,
// the explorer's charts and facet counts.
// Backed by lru-cache, whose eviction costs the same however many entries came and went: a Map trimmed from its
// oldest end walks over the slots of every entry deleted since it last compacted (microseconds a miss when large).

import { LRUCache } from 'lru-cache';

export class BoundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>> {
  private readonly entries: LRUCache<K, V>;

  constructor(capacity: number) {
    this.entries = new LRUCache<K, V>({ max: capacity });
  }

  getOrCreate(key: K, create: () => V): V {
    const found = this.entries.get(key);
    if (found !== undefined) return found;
    const value = create();
    this.entries.set(key, value);
    return value;
  }

  /** The kept value (a use), or undefined. */
  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Keeps a value made elsewhere (for instance asynchronously), forgetting the least recently used if full. */
  set(key: K, value: V): void {
    this.entries.set(key, value);
  }

  /** Forgets everything (a new version of the data). */
  clear(): void {
    this.entries.clear();
  }

  /** Whether the key is kept (without counting as a use). */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
