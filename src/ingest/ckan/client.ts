// A polite client for a CKAN portal's action API: one request at a time per portal, back-off with jitter on 429 / 502
// / 503 / 504, network failures and cut-off answers (honouring Retry-After), a User-Agent naming Count Centre, an API
// token sent only over HTTPS (or to this machine) and never logged, and JSON read without losing any number's digits.

import { isLosslessNumber, parse as parseLossless, type LosslessNumber } from 'lossless-json';
import type { Logger } from 'pino';
import { COUNT_CENTRE_VERSION } from '../../version.js';

/** Names the software, and whom to contact when the operator gives it (COUNTCENTRE_MIRROR_CONTACT). */
export function userAgent(contact: string | null = null): string {
  return `CountCentre/${COUNT_CENTRE_VERSION} (CKAN DataStore mirror${contact ? `; +${contact}` : ''})`;
}

/** What went wrong talking to a portal: an HTTP status, CKAN's own error, a network failure, or an answer that is not CKAN's JSON. */
export class CkanError extends Error {
  constructor(
    message: string,
    readonly kind: 'ckan' | 'http' | 'network' | 'not-json' | 'redirect',
    /** HTTP status, when there was an answer. */
    readonly status: number | null = null,
    /** CKAN's `error` object, when the answer was CKAN's envelope. */
    readonly error: Record<string, unknown> | null = null,
  ) {
    super(message);
    this.name = 'CkanError';
  }

  /** CKAN's "Search took too long" (a 409 after the statement timeout). */
  get tookTooLong(): boolean {
    const query = this.error?.query;
    return this.status === 409 && Array.isArray(query) && query.some((m) => typeof m === 'string' && /took too long/i.test(m));
  }
}

export interface CkanClientOptions {
  /** Who runs this mirror (a URL or e-mail address), for the User-Agent. */
  contact?: string | null;
  /** API token (sent raw in Authorization, as CKAN expects), from an environment variable the catalogue names. */
  token?: string | null;
  /** Attempts per request, the first included, before a transient failure is given up on. */
  attempts?: number;
  /** First back-off wait; each retry doubles it, with jitter, up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Longest one request may take. */
  timeoutMs?: number;
  logger?: Logger;
  /** For tests: how to wait, and the source of jitter. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const RETRYABLE = new Set([429, 502, 503, 504]);

/** Requests in flight per portal host: each waits for the one before it (one at a time per portal). */
const queues = new Map<string, Promise<unknown>>();

function queued<T>(host: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(host) ?? Promise.resolve();
  const run = before.catch(() => {}).then(work);
  const tail = run.catch(() => {});
  queues.set(host, tail);
  void tail.then(() => {
    if (queues.get(host) === tail) queues.delete(host);
  });
  return run;
}

/** Seconds or an HTTP date, as Retry-After gives them; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname);
}

/** A JSON number as its exact text, whatever its size. */
export function numberTextOf(value: LosslessNumber): string {
  return value.value;
}

export { isLosslessNumber };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class CkanClient {
  readonly apiBase: string;
  private readonly host: string;
  private readonly token: string | null;
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly timeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  /** Requests sent, retries and waits: what a test or a report reads back. */
  readonly stats = { requests: 0, retries: 0, waitedMs: 0 };

  constructor(portal: string, private readonly options: CkanClientOptions = {}) {
    const base = new URL(portal.endsWith('/') ? portal : `${portal}/`);
    this.apiBase = new URL('api/3/action/', base).href;
    this.host = base.host;
    this.attempts = options.attempts ?? 6;
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    const token = options.token ?? null;
    // A token is a password: it goes only where nobody on the way can read it.
    if (token && base.protocol !== 'https:' && !isLoopback(base.hostname)) {
      throw new CkanError(`an API token is only sent over HTTPS; ${base.origin} is not`, 'http');
    }
    this.token = token;
  }

  /** Calls an action with JSON parameters (POST) and returns its `result`, numbers kept as exact text. */
  action(name: string, params: Record<string, unknown>): Promise<any> {
    return queued(this.host, () => this.withRetries(name, params));
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** attempt);
    // "Equal jitter": at least half the back-off, so that retries from many mirrors spread out but never hammer.
    return Math.round(ceiling / 2 + this.random() * (ceiling / 2));
  }

  private async withRetries(name: string, params: Record<string, unknown>): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(name, params);
      } catch (err) {
        const e = err as CkanError & { retryAfter?: number | null };
        const transient = e.kind === 'network' || (e.kind === 'http' && e.status !== null && RETRYABLE.has(e.status));
        if (!transient || attempt + 1 >= this.attempts) throw err;
        const wait = Math.min(this.maxDelayMs, e.retryAfter ?? this.backoff(attempt));
        this.stats.retries += 1;
        this.stats.waitedMs += wait;
        this.options.logger?.warn({ portal: this.host, action: name, status: e.status, waitMs: wait }, `${name}: ${e.message}; retrying in ${(wait / 1000).toFixed(1)} s`);
        await this.sleep(wait);
      }
    }
  }

  private async once(name: string, params: Record<string, unknown>): Promise<unknown> {
    const url = this.apiBase + name;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'user-agent': userAgent(this.options.contact) };
    if (this.token) headers.authorization = this.token;
    this.stats.requests += 1;
    let response: Response;
    let text: string;
    try {
      // A redirected POST would lose its body: a redirect is reported, and the portal's URL is to be corrected.
      response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(params), redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs) });
      text = await response.text();
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new CkanError(`${name}: the portal could not be reached (${cause})`, 'network');
    }
    if (response.status >= 300 && response.status < 400) {
      throw new CkanError(`${name}: the portal redirects to ${response.headers.get('location')}; give that address as the portal's URL`, 'redirect', response.status);
    }
    const type = response.headers.get('content-type') ?? '';
    let body: unknown;
    try {
      body = parseLossless(text);
    } catch {
      if (/html/i.test(type) || /^\s*</.test(text)) {
        throw new CkanError(`${name}: the portal answered ${response.status} with an HTML page instead of JSON (a login page or a bot challenge?); stopping`, 'not-json', response.status);
      }
      if (RETRYABLE.has(response.status)) throw Object.assign(new CkanError(`${name}: HTTP ${response.status}`, 'http', response.status), { retryAfter: retryAfterMs(response.headers.get('retry-after')) });
      // A 200 that is not whole JSON was cut off on its way: worth another try.
      throw new CkanError(`${name}: the answer was cut off or is not JSON (${text.length} bytes, HTTP ${response.status})`, 'network', response.status);
    }
    if (RETRYABLE.has(response.status)) {
      throw Object.assign(new CkanError(`${name}: HTTP ${response.status}`, 'http', response.status), { retryAfter: retryAfterMs(response.headers.get('retry-after')) });
    }
    if (typeof body === 'string') throw new CkanError(`${name}: ${body}`, 'ckan', response.status);
    const envelope = body as { success?: unknown; result?: unknown; error?: Record<string, unknown> };
    if (envelope === null || typeof envelope !== 'object' || typeof envelope.success !== 'boolean') {
      throw new CkanError(`${name}: the answer (HTTP ${response.status}) is not CKAN's envelope`, 'not-json', response.status);
    }
    if (!envelope.success || !response.ok) {
      const error = envelope.error ?? {};
      const message = typeof error.message === 'string' ? error.message : JSON.stringify(error, (_k, v: unknown) => (isLosslessNumber(v) ? v.value : v));
      throw new CkanError(`${name}: ${message} (HTTP ${response.status})`, 'ckan', response.status, error);
    }
    return envelope.result;
  }
}
