// A polite client for a CKAN portal's action API and its DataStore dump: a few requests at a time per portal (a
// limit shared by every client of this process, never above 3), back-off with jitter on 429 / 502 / 503 / 504, network
// failures and cut-off answers (honouring Retry-After), the whole portal left alone for a while after repeated
// failures,
// a User-Agent naming Count Centre, an API token sent only over HTTPS (or to this machine) and never logged, and JSON
// read without losing any number's digits.

import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import type { Logger } from 'pino';
import { COUNT_CENTRE_VERSION } from '../version.js';

/** Names the software, and whom to contact when the operator gives it (COUNTCENTRE_MIRROR_CONTACT). */
export function userAgent(contact: string | null = null): string {
  return `CountCentre/${COUNT_CENTRE_VERSION} (CKAN DataStore mirror${contact ? `; +${contact}` : ''})`;
}

/**
 * What went wrong talking to a portal: an HTTP status, CKAN's own error, a network failure, or an answer that is not
 * CKAN's JSON.
 */
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

  /** The portal could not be reached, kept failing, or did not answer as CKAN does (not a refusal of one request). */
  get unreachable(): boolean {
    return (
      this.kind === 'network' ||
      this.kind === 'not-json' ||
      this.kind === 'redirect' ||
      (this.kind === 'http' && this.status !== null && RETRYABLE.has(this.status))
    );
  }

  /** CKAN's "Search took too long" (a 409 after the statement timeout). */
  get tookTooLong(): boolean {
    const query = this.error?.query;
    return (
      this.status === 409 &&
      Array.isArray(query) &&
      query.some((m) => typeof m === 'string' && /took too long/i.test(m))
    );
  }
}

export interface CkanClientOptions {
  /** Who runs this mirror (a URL or e-mail address), for the User-Agent. */
  contact?: string | null;
  /** API token (sent raw in Authorization, as CKAN expects), from an environment variable the catalogue names. */
  token?: string | null;
  /** Requests in flight at once to this portal (1 to 3), shared by every client of this process. */
  concurrency?: number;
  /** Attempts per request, the first included, before a transient failure is given up on. */
  attempts?: number;
  /** First back-off wait; each retry doubles it, with jitter, up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Failed requests in a row (any resource's) after which the whole portal is left alone for a while. */
  failuresToPause?: number;
  /** How long the first such pause lasts; each pause in a row doubles it, with jitter, up to `maxPauseMs`. */
  pauseMs?: number;
  maxPauseMs?: number;
  /** Longest one request may take (a dump: longest it may go without sending a byte). */
  timeoutMs?: number;
  logger?: Logger;
  /** For tests: how to wait, and the source of jitter. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const RETRYABLE = new Set([429, 502, 503, 504]);
/** ckanapi's limit, which portals' operators expect of a well-behaved client. */
export const MAX_CONCURRENCY = 3;

/** At most `limit` at once; waiters for a free slot are served first come first served. */
export class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(public limit: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active -= 1;
  }

  /** Runs `work` in a slot. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }
}

/**
 * What this process knows of one portal (by host), whichever client asks it: how many requests may be in flight,
 * until when every request waits (a Retry-After, a back-off), and whether it has failed so often that it is being
 * left alone (then requests fail at once, without reaching it, until the pause is over).
 */
export class PortalState {
  readonly slots = new Slots(1);
  /** Requests that failed in a row, of any resource; a request that is answered resets it. */
  failures = 0;
  /** Pauses in a row; each doubles the next. */
  pauses = 0;
  /** No request is sent before this (epoch ms). */
  waitUntil = 0;
  /** The portal is left alone until this (epoch ms); requests fail at once meanwhile. */
  pausedUntil = 0;
  /** Why it was paused (the last failure). */
  pauseReason = '';

  constructor(readonly host: string) {}

  get paused(): boolean {
    return this.pausedUntil > Date.now();
  }
}

const portals = new Map<string, PortalState>();

/** The state of the portal at this host (host and port), shared by every client of this process. */
export function portalState(host: string): PortalState {
  let state = portals.get(host);
  if (!state) {
    state = new PortalState(host);
    portals.set(host, state);
  }
  return state;
}

/** Portals being left alone now, with until when and why: for the refresh log. */
export function pausedPortals(): { host: string; until: Date; reason: string }[] {
  return [...portals.values()]
    .filter((p) => p.paused)
    .map((p) => ({ host: p.host, until: new Date(p.pausedUntil), reason: p.pauseReason }));
}

/** Per request: when it must be over (epoch ms), retries and waits included. */
export interface RequestOptions {
  deadline?: number;
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

export { isLosslessNumber };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A network failure's code (ECONNREFUSED, …) or the error's name (TimeoutError). */
function causeOf(err: unknown): string {
  return (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
}

export class CkanClient {
  readonly apiBase: string;
  /** The portal's own address, which its API and DataStore dump live under. */
  readonly portalBase: string;
  /** What this process knows of the portal, shared with every other client of it. */
  readonly portal: PortalState;
  private readonly host: string;
  private readonly token: string | null;
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly failuresToPause: number;
  private readonly pauseMs: number;
  private readonly maxPauseMs: number;
  private readonly timeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  /** Requests sent, retries and waits: what a test or a report reads back. */
  readonly stats = { requests: 0, retries: 0, waitedMs: 0 };
  /**
   * Optional actions this portal was found not to offer ("Action name not known"), so that they are not asked again.
   */
  readonly missingActions = new Set<string>();

  constructor(
    portal: string,
    private readonly options: CkanClientOptions = {},
  ) {
    const base = new URL(portal.endsWith('/') ? portal : `${portal}/`);
    this.portalBase = base.href;
    this.apiBase = new URL('api/3/action/', base).href;
    this.host = base.host;
    this.attempts = options.attempts ?? 5;
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
    this.failuresToPause = options.failuresToPause ?? 5;
    this.pauseMs = options.pauseMs ?? 30_000;
    this.maxPauseMs = options.maxPauseMs ?? 30 * 60_000;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    const token = options.token ?? null;
    // A token is a password: it goes only where nobody on the way can read it.
    if (token && base.protocol !== 'https:' && !isLoopback(base.hostname)) {
      throw new CkanError(`an API token is only sent over HTTPS; ${base.origin} is not`, 'http');
    }
    this.token = token;
    this.portal = portalState(this.host);
    if (options.concurrency !== undefined)
      this.portal.slots.limit = Math.max(1, Math.min(MAX_CONCURRENCY, Math.floor(options.concurrency)));
  }

  /** Calls an action with JSON parameters (POST) and returns its `result`, numbers kept as exact text. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each action's result has its own shape, checked by its caller
  action(name: string, params: Record<string, unknown>, request: RequestOptions = {}): Promise<any> {
    const deadline = request.deadline ?? Infinity;
    return this.withRetries(name, deadline, () => this.once(name, params, deadline));
  }

  /**
   * Downloads a file the portal serves under its address (the DataStore dump) into `file`, with one GET: a dump is
   * not asked for twice (a failed one is the caller's to replace). Its bytes as received; a 200 cut short by the
   * portal is only found by reading it.
   */
  async download(relative: string, file: string): Promise<{ bytes: number; contentType: string }> {
    this.refuseWhilePaused(relative);
    await this.portal.slots.acquire();
    try {
      await this.holdForPortal(0);
      const result = await this.fetchToFile(relative, file);
      this.answered();
      return result;
    } catch (err) {
      if (err instanceof CkanError && err.unreachable) this.failed(err, relative);
      else if (err instanceof CkanError) this.answered();
      throw err;
    } finally {
      this.portal.slots.release();
    }
  }

  private backoff(attempt: number): number {
    return this.jittered(Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** attempt));
  }

  /** "Equal jitter": at least half the wait, so that retries from many mirrors spread out but never hammer. */
  private jittered(ceiling: number): number {
    return Math.round(ceiling / 2 + this.random() * (ceiling / 2));
  }

  /** Requests to a portal that is being left alone fail at once, without reaching it. */
  private refuseWhilePaused(what: string): void {
    const { portal } = this;
    if (!portal.paused) return;
    throw new CkanError(
      `${what}: not asked: the portal is left alone until ${new Date(portal.pausedUntil).toISOString()} (${portal.pauseReason})`,
      'network',
    );
  }

  /**
   * Waits out a wait the portal asked for (Retry-After) or a back-off, which hold every request to it; returns its end.
   */
  private async holdForPortal(alreadyWaited: number): Promise<number> {
    const until = this.portal.waitUntil;
    if (until <= alreadyWaited) return alreadyWaited;
    const ms = until - Date.now();
    if (ms > 0) await this.sleep(ms);
    return until;
  }

  /** The portal answered (CKAN's own refusals included): it is reachable. */
  private answered(): void {
    this.portal.failures = 0;
    this.portal.pauses = 0;
  }

  /**
   * A request failed as a portal that is down or overloaded fails. After `failuresToPause` in a row (any resource's;
   * one, just after a pause), or a Retry-After longer than a request waits, the whole portal is left alone: for
   * `pauseMs`, doubled for each pause in a row, with jitter, and never less than its Retry-After. Returns whether it
   * is paused now.
   */
  private failed(err: CkanError, what: string): boolean {
    const { portal } = this;
    portal.failures += 1;
    const retryAfter = (err as CkanError & { retryAfter?: number | null }).retryAfter ?? 0;
    // A portal that asks for more time than a request may wait has said when to come back.
    if (retryAfter <= this.maxDelayMs && portal.failures < (portal.pauses > 0 ? 1 : this.failuresToPause)) return false;
    portal.pauses += 1;
    const pause = Math.max(
      retryAfter,
      this.jittered(Math.min(this.maxPauseMs, this.pauseMs * 2 ** (portal.pauses - 1))),
    );
    portal.pausedUntil = Date.now() + pause;
    portal.pauseReason = err.message;
    portal.failures = 0;
    this.options.logger?.warn(
      { portal: this.host, pauseMs: pause, pauses: portal.pauses },
      `${what}: ${err.message}; leaving the portal alone for ${Math.round(pause / 1000)} s`,
    );
    return true;
  }

  private async withRetries<T>(what: string, deadline: number, send: () => Promise<T>): Promise<T> {
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      this.refuseWhilePaused(what);
      let wait: number;
      await this.portal.slots.acquire();
      try {
        waited = await this.holdForPortal(waited);
        this.refuseWhilePaused(what);
        if (Date.now() >= deadline) throw new CkanError(`${what}: no time was left to ask the portal`, 'network');
        const result = await send();
        this.answered();
        return result;
      } catch (err) {
        if (!(err instanceof CkanError)) throw err;
        if (!err.unreachable || err.kind === 'not-json' || err.kind === 'redirect') {
          if (!err.unreachable) this.answered();
          throw err;
        }
        if (this.failed(err, what)) {
          throw new CkanError(
            `${err.message}; the portal is left alone until ${new Date(this.portal.pausedUntil).toISOString()}`,
            err.kind,
            err.status,
          );
        }
        if (attempt + 1 >= this.attempts) throw err;
        wait = Math.min(
          this.maxDelayMs,
          (err as CkanError & { retryAfter?: number | null }).retryAfter ?? this.backoff(attempt),
        );
        if (Date.now() + wait >= deadline)
          throw new CkanError(`${err.message}; no time was left to try again`, err.kind, err.status);
        // The wait holds every request to the portal, not only this one, until this one has waited it out.
        this.portal.waitUntil = Math.max(this.portal.waitUntil, Date.now() + wait);
        waited = this.portal.waitUntil;
        this.stats.retries += 1;
        this.stats.waitedMs += wait;
        this.options.logger?.warn(
          { portal: this.host, action: what, status: err.status, waitMs: wait },
          `${what}: ${err.message}; retrying in ${(wait / 1000).toFixed(1)} s`,
        );
      } finally {
        this.portal.slots.release();
      }
      await this.sleep(wait);
      if (this.portal.waitUntil === waited) this.portal.waitUntil = 0;
    }
  }

  private headers(accept: string): Record<string, string> {
    const headers: Record<string, string> = { accept, 'user-agent': userAgent(this.options.contact) };
    if (this.token) headers.authorization = this.token;
    return headers;
  }

  private async fetchToFile(relative: string, file: string): Promise<{ bytes: number; contentType: string }> {
    const url = new URL(relative, this.portalBase);
    this.stats.requests += 1;
    // No byte for timeoutMs: the portal is stuck, or the connection is; a slow but moving dump is waited for.
    const abort = new AbortController();
    let timer = setTimeout(() => abort.abort(), this.timeoutMs);
    const moved = () => {
      clearTimeout(timer);
      timer = setTimeout(() => abort.abort(), this.timeoutMs);
    };
    const out = createWriteStream(file);
    let bytes = 0;
    try {
      let response: Response;
      try {
        // A GET may follow redirects (fetch drops the token when one leads to another origin).
        response = await fetch(url, {
          headers: this.headers('text/csv, */*;q=0.1'),
          redirect: 'follow',
          signal: abort.signal,
        });
      } catch (err) {
        throw new CkanError(`${url.pathname}: the portal could not be reached (${causeOf(err)})`, 'network');
      }
      const contentType = response.headers.get('content-type') ?? '';
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        throw Object.assign(new CkanError(`${url.pathname}: HTTP ${response.status}`, 'http', response.status), {
          retryAfter: retryAfterMs(response.headers.get('retry-after')),
        });
      }
      if (/html/i.test(contentType)) {
        await response.body?.cancel().catch(() => {});
        throw new CkanError(
          `${url.pathname}: the portal answered an HTML page instead of the data (a login page or a bot challenge?)`,
          'not-json',
          response.status,
        );
      }
      try {
        for await (const chunk of response.body ?? []) {
          moved();
          bytes += (chunk as Uint8Array).byteLength;
          if (!out.write(chunk)) await once(out, 'drain');
        }
      } catch (err) {
        throw new CkanError(
          `${url.pathname}: the download broke off after ${bytes} bytes (${causeOf(err)})`,
          'network',
          response.status,
        );
      }
      return { bytes, contentType };
    } finally {
      clearTimeout(timer);
      out.end();
      await once(out, 'close').catch(() => {});
    }
  }

  private async once(name: string, params: Record<string, unknown>, deadline: number): Promise<unknown> {
    const url = this.apiBase + name;
    const headers = { ...this.headers('application/json'), 'content-type': 'application/json' };
    this.stats.requests += 1;
    let response: Response;
    let text: string;
    try {
      // A redirected POST would lose its body: a redirect is reported, and the portal's URL is to be corrected.
      const timeout = Math.max(1, Math.min(this.timeoutMs, deadline - Date.now()));
      response = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(params),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeout),
      });
      text = await response.text();
    } catch (err) {
      throw new CkanError(`${name}: the portal could not be reached (${causeOf(err)})`, 'network');
    }
    if (response.status >= 300 && response.status < 400) {
      throw new CkanError(
        `${name}: the portal redirects to ${response.headers.get('location')}; give that address as the portal's URL`,
        'redirect',
        response.status,
      );
    }
    // An overloaded or restarting portal answers through its proxy, often with the proxy's own HTML page: worth
    // another try, whatever the body.
    if (RETRYABLE.has(response.status)) {
      throw Object.assign(new CkanError(`${name}: HTTP ${response.status}`, 'http', response.status), {
        retryAfter: retryAfterMs(response.headers.get('retry-after')),
      });
    }
    const type = response.headers.get('content-type') ?? '';
    let body: unknown;
    try {
      body = parseLossless(text);
    } catch {
      if (/html/i.test(type) || /^\s*</.test(text)) {
        throw new CkanError(
          `${name}: the portal answered ${response.status} with an HTML page instead of JSON (a login page or a bot challenge?); stopping`,
          'not-json',
          response.status,
        );
      }
      // A 200 that is not whole JSON was cut off on its way: worth another try.
      throw new CkanError(
        `${name}: the answer was cut off or is not JSON (${text.length} bytes, HTTP ${response.status})`,
        'network',
        response.status,
      );
    }
    if (typeof body === 'string') throw new CkanError(`${name}: ${body}`, 'ckan', response.status);
    const envelope = body as { success?: unknown; result?: unknown; error?: Record<string, unknown> };
    if (envelope === null || typeof envelope !== 'object' || typeof envelope.success !== 'boolean') {
      throw new CkanError(
        `${name}: the answer (HTTP ${response.status}) is not CKAN's envelope`,
        'not-json',
        response.status,
      );
    }
    if (!envelope.success || !response.ok) {
      const error = envelope.error ?? {};
      const message =
        typeof error.message === 'string'
          ? error.message
          : JSON.stringify(error, (_k, v: unknown) => (isLosslessNumber(v) ? v.value : v));
      throw new CkanError(`${name}: ${message} (HTTP ${response.status})`, 'ckan', response.status, error);
    }
    return envelope.result;
  }
}
