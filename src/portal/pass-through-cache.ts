// The portal's answers to anonymous GETs, kept in memory (bounded by bytes, least recently used out) so that a repeated
// package_search or page is answered without asking the portal: fresh for a configured lifetime (or the portal's own
// longer max-age), then revalidated with the portal's validators, and served stale while the portal is down. What may
// be kept is decided here, in one place: nothing asked with credentials, nothing that sets a cookie or says private.

import type { IncomingHttpHeaders } from 'node:http';
import { LRUCache } from 'lru-cache';

/** An answer of the portal as it is kept: status, end-to-end headers, the whole body, and its validators. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** When the portal last gave or confirmed it (epoch ms). */
  storedAt: number;
  /** Served without asking the portal until then (epoch ms). */
  freshUntil: number;
  etag: string | null;
  lastModified: string | null;
  /** The request headers the portal's Vary names, as the request that got it sent them. */
  varied: Record<string, string>;
}

/** Request headers that carry who is asking: a request with any of them is neither answered from nor kept in memory. */
const CREDENTIALS = ['authorization', 'x-ckan-api-key', 'cookie', 'proxy-authorization'] as const;

/** Request headers a kept answer may vary on (their values are compared); any other makes an answer not kept. */
const VARY_ALLOWED = new Set(['accept-encoding', 'accept', 'accept-language', 'origin']);

/** Whether a request carries credentials (an API token, a session cookie, HTTP authentication). */
export function hasCredentials(headers: IncomingHttpHeaders): boolean {
  return CREDENTIALS.some((name) => headers[name] !== undefined);
}

/** The one encoding a kept answer is asked for in: gzip for clients that take it, else none, so two forms at most. */
export function keptEncoding(headers: IncomingHttpHeaders): 'gzip' | 'identity' {
  const accept = String(headers['accept-encoding'] ?? '').toLowerCase();
  return /(^|,)\s*gzip\s*(;\s*q=(1(\.0*)?|0?\.\d*[1-9]\d*))?\s*(,|$)/.test(accept) ? 'gzip' : 'identity';
}

/** Seconds from a Cache-Control directive (`max-age=60`), or null. */
function directive(cacheControl: string, name: string): number | null {
  const found = new RegExp(`(?:^|,)\\s*${name}\\s*=\\s*"?(\\d+)"?`, 'i').exec(cacheControl);
  return found ? Number(found[1]) : null;
}

const headerText = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? value.join(', ') : (value ?? '');

export class PassThroughCache {
  private readonly entries: LRUCache<string, KeptAnswer>;
  /** Largest answer kept: a sixteenth of the memory, so that one answer never empties it. */
  readonly maxEntryBytes: number;

  constructor(
    maxBytes: number,
    private readonly lifetimeMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.maxEntryBytes = Math.floor(maxBytes / 16);
    this.entries = new LRUCache<string, KeptAnswer>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (entry) => Math.max(1, entry.body.length + 512),
    });
  }

  get enabled(): boolean {
    return this.lifetimeMs > 0 && this.maxEntryBytes > 0;
  }

  /**
   * The key a request's answer is kept under, or null when it is not to be answered from memory: only GET and HEAD
   * (a HEAD is answered from the GET's answer), without credentials and without a range.
   */
  keyOf(method: string, url: string, headers: IncomingHttpHeaders): string | null {
    if (!this.enabled || (method !== 'GET' && method !== 'HEAD')) return null;
    if (hasCredentials(headers) || headers.range !== undefined) return null;
    return `${keptEncoding(headers)} ${url}`;
  }

  /** The answer kept for a request, if its Vary headers match; fresh or not (`fresh` says). */
  lookup(key: string, headers: IncomingHttpHeaders): { entry: KeptAnswer; fresh: boolean } | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    for (const [name, value] of Object.entries(entry.varied)) if (headerText(headers[name]) !== value) return null;
    return { entry, fresh: entry.freshUntil > this.now() };
  }

  /**
   * Whether an answer to an anonymous GET may be kept: a 200 that is not private or no-store, varies only on headers
   * that are compared, and sets no cookie, unless the portal says outright that it is the same for everyone
   * (`Cache-Control: public`): CKAN 2.10 starts an empty session, with its cookie, on every anonymous answer, and
   * marks its API's answers public. Such an answer is kept without its cookie, which only the client that asked gets.
   * A portal's `max-age=0` (CKAN's default) is overridden by the configured lifetime: that is what this cache is for.
   */
  keepable(status: number, headers: Record<string, string | string[] | undefined>): boolean {
    if (status !== 200) return false;
    const cacheControl = headerText(headers['cache-control']).toLowerCase();
    if (/(^|,)\s*(private|no-store)\b/.test(cacheControl)) return false;
    if (headers['set-cookie'] !== undefined && !/(^|,)\s*public\b/.test(cacheControl)) return false;
    if (headerText(headers.pragma).toLowerCase().includes('no-cache') && !cacheControl) return false;
    const vary = headerText(headers.vary)
      .toLowerCase()
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    return vary.every((name) => VARY_ALLOWED.has(name));
  }

  /** Keeps an answer the portal gave to the request whose headers are `requestHeaders`. */
  keep(
    key: string,
    status: number,
    headers: Record<string, string | string[]>,
    body: Buffer,
    requestHeaders: IncomingHttpHeaders,
  ): void {
    if (body.length > this.maxEntryBytes) return;
    // The cookie was the asking client's own session: a kept answer is everyone's, and carries none.
    const { 'set-cookie': _cookie, ...shared } = headers;
    headers = shared;
    const varied: Record<string, string> = {};
    for (const name of headerText(headers.vary).toLowerCase().split(',')) {
      const trimmed = name.trim();
      if (trimmed && trimmed !== 'accept-encoding') varied[trimmed] = headerText(requestHeaders[trimmed]);
    }
    const now = this.now();
    this.entries.set(key, {
      status,
      headers,
      body,
      storedAt: now,
      freshUntil: now + this.lifetimeFor(headers),
      etag: typeof headers.etag === 'string' ? headers.etag : null,
      lastModified: typeof headers['last-modified'] === 'string' ? headers['last-modified'] : null,
      varied,
    });
  }

  /** The portal confirmed a kept answer (a 304): fresh again, with the headers it sent. */
  confirmed(key: string, entry: KeptAnswer, headers: Record<string, string | string[]>): KeptAnswer {
    const now = this.now();
    const { 'set-cookie': _cookie, ...confirming } = headers;
    const renewed = { ...entry, headers: { ...entry.headers, ...confirming }, storedAt: now };
    renewed.freshUntil = now + this.lifetimeFor(renewed.headers);
    this.entries.set(key, renewed);
    return renewed;
  }

  private lifetimeFor(headers: Record<string, string | string[]>): number {
    const cacheControl = headerText(headers['cache-control']);
    const portals = directive(cacheControl, 's-maxage') ?? directive(cacheControl, 'max-age');
    return Math.max(this.lifetimeMs, (portals ?? 0) * 1000);
  }

  /** Forgets every answer: after a write the portal accepted, or a dataset withdrawn. */
  clear(): void {
    this.entries.clear();
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.calculatedSize };
  }
}
