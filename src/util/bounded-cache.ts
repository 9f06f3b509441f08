// A size-bounded map that forgets its least recently used entries: for prepared statements, parsed queries, counts.

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  getOrCreate(key: K, create: () => V): V {
    const found = this.entries.get(key);
    if (found !== undefined) {
      // Re-inserting moves the key to the end: Map iteration order is our recency order.
      this.entries.delete(key);
      this.entries.set(key, found);
      return found;
    }
    const value = create();
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return value;
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
