// Finished answers, kept by request (with the dataset version in the key). Answers change only when the data is
// reloaded, so a repeated request (dashboards, crawlers) is answered without running anything. The cache is bounded
// by bytes and forgets the least recently used answers first.

export interface CachedResponse {
  status: number;
  contentType: string;
  /** The answer's entity tag (dataset version and request). */
  tag: string;
  body: Buffer;
  /** Compressed forms of the body, made on first demand. */
  variants?: Partial<Record<'br' | 'gzip', Buffer>>;
}

/**
 * What names an answer: the dataset version, the method (HEAD is GET), the URL, the host when `help` links are built
 * from it, and a POST's body.
 */
export function cacheKey(datasetVersion: string, method: string, url: string, origin: string | null, body?: string): string {
  const line = `${datasetVersion} ${method === 'HEAD' ? 'GET' : method} ${url}${origin ? ` ${origin}` : ''}`;
  return body === undefined ? line : `${line}\n${body}`;
}

export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private bytes = 0;

  /** `maxEntryBytes`: larger answers are not kept (they would push out many small ones). */
  constructor(private readonly maxBytes: number, private readonly maxEntryBytes = Math.max(1, Math.floor(maxBytes / 16))) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get(key: string): CachedResponse | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      // Re-inserting moves the entry to the end: Map order is recency order.
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, response: CachedResponse): void {
    const size = response.body.length + key.length;
    if (!this.enabled || size > this.maxEntryBytes || this.entries.has(key)) return;
    this.entries.set(key, response);
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.body.length + oldest.length;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
