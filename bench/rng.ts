// A small seeded pseudo-random generator (sfc32) with the draws the benchmark needs, so that the synthetic
// resource and the query stream are the same on every run and every machine given the same seed.

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // Spread one 32-bit seed over the four words, then discard the first draws: sfc32's early outputs are
    // correlated with the seed.
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** A uniform float in [0, 1). */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** A uniform integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** `k` distinct items, in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const copy = items.slice();
    const out: T[] = [];
    for (let i = 0; i < k && copy.length > 0; i++) {
      const at = this.int(copy.length);
      out.push(copy[at] as T);
      copy.splice(at, 1);
    }
    return out;
  }

  /** A standard normal draw (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

/** Draws from fixed weights in O(log n), for the large synthetic tables. */
export class Weighted<T> {
  private readonly cumulative: number[] = [];
  private readonly total: number;

  constructor(
    private readonly items: readonly T[],
    weights: readonly number[],
  ) {
    if (items.length === 0 || items.length !== weights.length) throw new Error('weighted: items and weights differ');
    let sum = 0;
    for (const w of weights) {
      sum += w;
      this.cumulative.push(sum);
    }
    this.total = sum;
  }

  /** Zipf-like weights 1/(rank+1)^s, the shape of surname and party popularity. */
  static zipf<T>(items: readonly T[], s = 1): Weighted<T> {
    return new Weighted(
      items,
      items.map((_, i) => 1 / Math.pow(i + 1, s)),
    );
  }

  draw(rng: Rng): T {
    const x = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.cumulative[mid] as number) > x) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo] as T;
  }
}
