// Finished answers, kept by request (with the dataset version in the key). Answers change only when the data is
// reloaded, so a repeated request (dashboards, crawlers) is answered without running anything. The cache is bounded
// by bytes and forgets the least recently used answers first.

export interface CachedResponse {
  status: number;
  contentType: string;
  /** The answer's entity tag (dataset version and request). */
  tag: string;
  /**
   * Text as the answer was made; bytes from the first time it is asked for again. Most answers are never asked for
   * twice, and text costs less to keep than a buffer outside V8's heap that only its collector's pressure frees.
   */
  body: string | Buffer;
  /** Compressed forms of the body, made on first demand (off the event loop, hence promises). */
  variants?: Partial<Record<'br' | 'gzip', Promise<Buffer>>>;
  /** The same once made, so that later requests send them without waiting on a promise. */
  compressed?: Partial<Record<'br' | 'gzip', Buffer>>;
  /** The action it answers, for metrics and logs. */
  action?: string;
  /** Its headers for each encoding sent, as a flat list for writeHead, made once on first demand. */
  heads?: Partial<Record<'br' | 'gzip' | 'identity', string[]>>;
}

/** A remembered answer's body as bytes, converted once (the text is dropped). */
export function bodyBytes(entry: CachedResponse): Buffer {
  if (typeof entry.body === 'string') entry.body = Buffer.from(entry.body);
  return entry.body;
}

/** Bytes of a body, text or not. */
export function byteLength(body: string | Buffer): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}

/**
 * What names an answer: the dataset version, the method (HEAD is GET), the URL, the host when `help` links are built
 * from it, and a POST's body.
 */
export function cacheKey(
  datasetVersion: string,
  method: string,
  url: string,
  origin: string | null,
  body?: string,
): string {
  const line = `${datasetVersion} ${method === 'HEAD' ? 'GET' : method} ${url}${origin ? ` ${origin}` : ''}`;
  return body === undefined ? line : `${line}\n${body}`;
}

/**
 * Bounded by bytes, counting each answer's body, its key and its compressed forms. An answer is kept the second time
 * it is made, not the first: most requests a portal receives are asked once (a stream of new queries would otherwise
 * fill the cache with answers never asked for again, and cost the memory and the work of keeping them), while a
 * repeated request is answered from memory from its third time on. The keys of answers made once are remembered in a
 * bounded list. It forgets the least recently used answers first, by the second-chance rule: a hit only marks its
 * entry, and the eviction passes a marked entry over once (moving it to the back), so a hit costs one lookup.
 */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse & { key?: string; used?: boolean; size?: number }>();
  private bytes = 0;
  /**
   * The kept answers' keys in the order eviction comes to them, from `queueHead` on. The map's own order would serve,
   * but taking its oldest entry walks over the slots of every entry deleted since it last compacted: microseconds per
   * answer kept once the cache is full.
   */
  private queue: string[] = [];
  private queueHead = 0;
  /**
   * The entity tags of answers made once and not kept, each with its slot in a ring of the most recent ones. A tag
   * names the request and the dataset version as the key does, in a few dozen bytes: a stream of new queries would
   * otherwise keep thousands of URLs alive. (A Set trimmed from its oldest end would walk over the slots of its deleted
   * entries on every new query: microseconds each, once it is full.)
   */
  private readonly madeOnce = new Map<string, number>();
  private readonly madeOnceRing: (string | undefined)[] = [];
  private madeOnceNext = 0;

  /**
   * `maxEntryBytes`: larger answers are not kept (they would push out many small ones). `rememberedKeys`: how many
   * answers made once are remembered, waiting for a second request; 0 keeps every answer the first time (for answers
   * that cost far more to make than to keep, such as rendered pages).
   */
  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes = Math.max(1, Math.floor(maxBytes / 16)),
    private readonly rememberedKeys = 20_000,
  ) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get(key: string): CachedResponse | undefined {
    const hit = this.entries.get(key);
    if (hit) hit.used = true;
    return hit;
  }

  set(key: string, response: CachedResponse): void {
    if (!this.enabled || this.entries.has(key)) return;
    if (this.rememberedKeys > 0 && !this.madeOnce.delete(response.tag)) {
      this.noteMadeOnce(response.tag);
      return;
    }
    const size = byteLength(response.body) + key.length;
    if (size > this.maxEntryBytes) return;
    const entry = Object.assign(response, { key, used: false, size });
    this.entries.set(key, entry);
    this.queue.push(key);
    this.bytes += size;
    this.evict();
  }

  /** Notes an answer made once, in place of the oldest so noted when the ring is full. */
  private noteMadeOnce(tag: string): void {
    const slot = this.madeOnceNext;
    const oldest = this.madeOnceRing[slot];
    if (oldest !== undefined && this.madeOnce.get(oldest) === slot) this.madeOnce.delete(oldest);
    this.madeOnceRing[slot] = tag;
    this.madeOnce.set(tag, slot);
    this.madeOnceNext = (slot + 1) % this.rememberedKeys;
  }

  /** Counts a compressed form made for a kept answer (it is kept with the answer, and goes with it). */
  grew(response: CachedResponse, bytes: number): void {
    const entry = response as CachedResponse & { key?: string; size?: number };
    if (entry.key === undefined || this.entries.get(entry.key) !== entry) return;
    entry.size = (entry.size ?? 0) + bytes;
    this.bytes += bytes;
    this.evict();
  }

  private evict(): void {
    while (this.bytes > this.maxBytes && this.queueHead < this.queue.length) {
      const key = this.queue[this.queueHead++]!;
      const entry = this.entries.get(key)!;
      if (entry.used) {
        // A second chance: it was asked for since it last came up.
        entry.used = false;
        this.queue.push(key);
      } else {
        this.entries.delete(key);
        this.bytes -= entry.size ?? 0;
      }
    }
    // The spent front of the queue is dropped once it is the larger part, so each key is copied a bounded number of
    // times.
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
