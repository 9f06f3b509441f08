// Passes a request that Count Centre does not answer from its copy to the one portal it stands in front of: the same
// method, path, query, body and end-to-end headers, streamed both ways within time limits, to that portal and nowhere
// else (no absolute URI, `//host`, dot segment or hop-by-hop header gets through). Anonymous GETs are answered from the
// answers kept (pass-through-cache.ts) when they can be; a write the portal accepts is told to `onWrite` (which copies
// what it touched) before its answer goes back.

import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable, Transform } from 'node:stream';
import { PassThroughRefused, PortalUnreachable } from '../domain-errors.js';
import { COUNT_CENTRE_VERSION } from '../version.js';
import { hasCredentials, keptEncoding, type KeptAnswer, type PassThroughCache } from './pass-through-cache.js';

/** A request to pass on. */
export interface ForwardRequest {
  method: string;
  /** Path and query as received (still percent-encoded). */
  url: string;
  headers: IncomingHttpHeaders;
  /** A body already read (the request core's, within its bounds), the request itself to stream, or none. */
  body: string | Buffer | Readable | null;
  /** The client's address, added to X-Forwarded-For. */
  clientAddress?: string;
  /** Whether the client reached Count Centre over TLS (X-Forwarded-Proto). */
  secure?: boolean;
}

/** Where an answer came from: the portal just now, or the answers kept (fresh, confirmed by the portal, or stale). */
export type AnswerSource = 'portal' | 'cache' | 'revalidated' | 'stale';

export interface ForwardAnswer {
  status: number;
  /** End-to-end headers, as the portal sent them (a Location on the portal's own site made relative). */
  headers: Record<string, string | string[]>;
  /** The portal's bytes as it sends them, or a kept answer's; null for HEAD and bodiless statuses. */
  body: Readable | Buffer | null;
  source: AnswerSource;
  /** How long the portal took to answer (to its headers), when it was asked. */
  portalMs: number | null;
}

/** What a write that the portal accepted touched, from its request and its answer. */
export interface AcceptedWrite {
  action: string;
  resourceIds: string[];
  datasetIds: string[];
}

export interface PassThroughOptions {
  /** The portal's base URL (scheme, host, port and path). */
  portal: string;
  /** Longest the portal may take to start answering, and then to send the next bytes. */
  timeoutMs: number;
  /** Largest request body passed on. */
  bodyLimitBytes: number;
  cache: PassThroughCache | null;
  /** Called when the portal accepted a write, before its answer goes back; waited for at most `writeWaitMs`. */
  onWrite?: (write: AcceptedWrite) => Promise<void>;
  writeWaitMs?: number;
  /** Told when a write's copy could not be waited for, or failed. */
  onWriteProblem?: (write: AcceptedWrite, problem: string) => void;
}

/** Headers that belong to one connection, never passed on (RFC 9110 §7.6.1), and Host, which is the portal's. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'host',
  'expect',
]);

/** Methods passed on; CONNECT and TRACE (and anything unknown) are refused. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * CKAN actions that change what a copy holds: every DataStore write, and resource and dataset changes (a new
 * DataStore resource, one moved, made private, deleted).
 */
const WRITE_ACTION =
  /^(datastore_(create|upsert|delete|run_triggers|records_delete)|(resource|package)_(create|update|patch|delete|revise)|package_(owner_org_update|collaborator_create|collaborator_delete)|bulk_update_(private|public|delete)|dataset_purge|resource_view_(create|update|delete))$/;

/** The action a path names (`/api/3/action/x`, `/api/action/x`, with a locale before it or not), or null. */
export function actionOf(path: string): string | null {
  const found = /^(?:\/[^/]+)?\/api(?:\/3)?\/action\/([^/]+)$/.exec(path);
  return found ? decodeURIComponent(found[1]!.replace(/%(?![0-9A-Fa-f]{2})/g, '%25')) : null;
}

export function isWriteAction(name: string | null): boolean {
  return name !== null && WRITE_ACTION.test(name);
}

const CONTROL = /[\u0000-\u001f\u007f\\]/;

/** How much of a write's body is kept aside to read the ids it names (a JSON or form body is far smaller). */
const WRITE_FIELDS_BYTES = 1024 * 1024;

/** Decodes percent escapes that decode; leaves the rest, never throws. */
function decodeLeniently(text: string): string {
  return text.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * The portal's URL for a request's path and query, or a refusal: the request must name a path on the portal (no
 * absolute URI, no `//host`), and no segment may be, however often it is decoded, `.` or `..`, which could leave the
 * portal's base path; control characters and backslashes are refused as well.
 */
export function upstreamUrl(portal: URL, raw: string): URL {
  if (!raw.startsWith('/') || raw.startsWith('//'))
    throw new PassThroughRefused(`the request target ${JSON.stringify(raw.slice(0, 80))} is not a path`, 'path');
  const at = raw.indexOf('?');
  const path = at === -1 ? raw : raw.slice(0, at);
  const query = at === -1 ? '' : raw.slice(at);
  // Decoded until it no longer changes (a server behind the portal may decode more than once); too many layers of
  // encoding are refused outright.
  let decoded = path;
  for (let round = 0; ; round++) {
    if (round > 8 || CONTROL.test(decoded) || /(^|\/)\.{1,2}(\/|$)/.test(decoded) || decoded.startsWith('//'))
      throw new PassThroughRefused(`the path ${JSON.stringify(path.slice(0, 80))} is not passed to the portal`, 'path');
    const next = decodeLeniently(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  if (/[\u0000-\u0020\u007f]/.test(query))
    throw new PassThroughRefused('the query string holds characters a URL may not', 'path');
  const base = portal.pathname.replace(/\/$/, '');
  const url = new URL(`${portal.origin}${base}${path}${query}`);
  if (url.origin !== portal.origin || !url.pathname.startsWith(`${base}/`))
    throw new PassThroughRefused(`the path ${JSON.stringify(path.slice(0, 80))} is not passed to the portal`, 'path');
  return url;
}

/** The end-to-end headers of a message: hop-by-hop ones, and those its Connection header names, left out. */
export function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? '')
      .toLowerCase()
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

class Timeout extends Error {}

/**
 * A stream read whole when it holds at most `limit` bytes; past that, a stream of all its bytes (those read first,
 * then the rest as they come), so that a large answer is passed on rather than held.
 */
async function wholeUpTo(stream: Readable, limit: number): Promise<Buffer | Readable> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const reader = stream[Symbol.asyncIterator]();
  for (;;) {
    const next = await reader.next();
    if (next.done) return Buffer.concat(chunks);
    chunks.push(next.value as Buffer);
    bytes += (next.value as Buffer).length;
    if (bytes > limit) break;
  }
  return Readable.from(
    (async function* () {
      yield* chunks;
      for (;;) {
        const next = await reader.next();
        if (next.done) return;
        yield next.value as Buffer;
      }
    })(),
  );
}

/** Ids of resources and datasets a write names, in its request (JSON or a form) and in the portal's result. */
export function touchedBy(action: string, requestBody: Buffer | null, answer: Buffer | null): AcceptedWrite {
  const resourceIds = new Set<string>();
  const datasetIds = new Set<string>();
  const add = (set: Set<string>, value: unknown) => {
    if (typeof value === 'string' && value !== '' && value.length < 200) set.add(value);
  };
  const read = (text: string | undefined): Record<string, unknown> => {
    if (!text) return {};
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // A form or a multipart upload: its plain fields are read below.
    }
    const fields: Record<string, unknown> = {};
    for (const [key, value] of new URLSearchParams(text)) fields[key] = value;
    for (const match of text.matchAll(/name="([A-Za-z_]+)"\r?\n\r?\n([^\r\n]{1,200})/g)) fields[match[1]!] = match[2];
    return fields;
  };
  const params = read(requestBody?.toString('utf8'));
  const result = (read(answer?.toString('utf8')).result ?? {}) as Record<string, unknown>;
  const isResource = action.startsWith('resource_') || action.startsWith('datastore_');
  add(resourceIds, params.resource_id);
  add(resourceIds, result.resource_id);
  const resource = (params.resource ?? {}) as Record<string, unknown>;
  add(datasetIds, resource.package_id);
  add(datasetIds, params.package_id);
  add(datasetIds, result.package_id);
  if (isResource) {
    add(resourceIds, params.id);
    add(resourceIds, result.id);
  } else {
    add(datasetIds, params.id);
    add(datasetIds, params.name);
    add(datasetIds, result.id);
    if (Array.isArray(params.datasets)) for (const id of params.datasets) add(datasetIds, id);
  }
  return { action, resourceIds: [...resourceIds], datasetIds: [...datasetIds] };
}

/** Weak comparison of an If-None-Match against a kept answer's ETag. */
function matches(ifNoneMatch: string | string[] | undefined, etag: string | null): boolean {
  if (!ifNoneMatch || !etag) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch;
  return wanted.trim() === '*' || wanted.split(',').some((tag) => strip(tag) === strip(etag));
}

export class PassThrough {
  readonly portal: URL;
  private readonly agent: http.Agent;

  constructor(private readonly options: PassThroughOptions) {
    this.portal = new URL(options.portal.endsWith('/') ? options.portal : `${options.portal}/`);
    const Agent = this.portal.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 64 });
  }

  /** Forgets the answers kept: a write was accepted, or a dataset withdrawn. */
  forget(): void {
    this.options.cache?.clear();
  }

  close(): void {
    this.agent.destroy();
  }

  /**
   * The answer to a request, from the answers kept or from the portal. Throws PassThroughRefused for what is never
   * passed on, and PortalUnreachable when the portal did not answer and nothing kept can stand in.
   */
  async forward(request: ForwardRequest): Promise<ForwardAnswer> {
    const method = request.method.toUpperCase();
    if (!METHODS.has(method)) throw new PassThroughRefused(`Method ${method} is not passed to the portal`, 'method');
    const url = upstreamUrl(this.portal, request.url);
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > this.options.bodyLimitBytes)
      throw new PassThroughRefused(`Request body larger than ${this.options.bodyLimitBytes} bytes`, 'too-large');
    const { cache } = this.options;
    const key = cache?.keyOf(method, request.url, request.headers) ?? null;
    if (cache && key !== null) return this.kept(request, url, key, cache);
    const action = method === 'POST' ? actionOf(url.pathname.slice(this.portal.pathname.length - 1)) : null;
    if (isWriteAction(action)) return this.write(request, url, action!);
    const answer = await this.ask(method, url, request, this.headersFor(request));
    return { ...answer, source: 'portal' };
  }

  /** An anonymous GET or HEAD: from memory when fresh, else asked (revalidating what is kept), stale if need be. */
  private async kept(request: ForwardRequest, url: URL, key: string, cache: PassThroughCache): Promise<ForwardAnswer> {
    const head = request.method.toUpperCase() === 'HEAD';
    const found = cache.lookup(key, request.headers);
    if (found?.fresh) return this.fromKept(request, found.entry, 'cache', null);
    const headers = this.headersFor(request);
    // The portal is asked for the whole answer, in the one encoding kept, whatever the client holds.
    delete headers['if-none-match'];
    delete headers['if-modified-since'];
    headers['accept-encoding'] = keptEncoding(request.headers);
    if (found?.entry.etag) headers['if-none-match'] = found.entry.etag;
    else if (found?.entry.lastModified) headers['if-modified-since'] = found.entry.lastModified;
    let answer: Omit<ForwardAnswer, 'source'>;
    try {
      answer = await this.ask('GET', url, request, headers);
    } catch (err) {
      if (found && err instanceof PortalUnreachable) return this.fromKept(request, found.entry, 'stale', null);
      throw err;
    }
    if (found && answer.status === 304) {
      (answer.body as Readable | null)?.resume();
      const renewed = cache.confirmed(key, found.entry, answer.headers);
      return this.fromKept(request, renewed, 'revalidated', answer.portalMs);
    }
    if (found && answer.status >= 500) {
      (answer.body as Readable | null)?.resume();
      return this.fromKept(request, found.entry, 'stale', answer.portalMs);
    }
    const body = answer.body as Readable | null;
    if (!body || !cache.keepable(answer.status, answer.headers)) {
      if (head) body?.resume();
      return { ...answer, body: head ? null : body, source: 'portal' };
    }
    // Kept as it streams to the client: a copy of its bytes up to the largest answer kept.
    const chunks: Buffer[] = [];
    let bytes = 0;
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= cache.maxEntryBytes) chunks.push(chunk);
    });
    body.once('end', () => {
      if (bytes <= cache.maxEntryBytes)
        cache.keep(key, answer.status, answer.headers, Buffer.concat(chunks), request.headers);
    });
    if (head) body.resume();
    return { ...answer, body: head ? null : body, source: 'portal' };
  }

  /** A kept answer, or its 304 when the client holds it already. */
  private fromKept(
    request: ForwardRequest,
    entry: KeptAnswer,
    source: AnswerSource,
    portalMs: number | null,
  ): ForwardAnswer {
    const headers: Record<string, string | string[]> = {
      ...entry.headers,
      age: String(Math.max(0, Math.floor((Date.now() - entry.storedAt) / 1000))),
    };
    if (matches(request.headers['if-none-match'], entry.etag)) {
      delete headers['content-length'];
      return { status: 304, headers, body: null, source, portalMs };
    }
    const head = request.method.toUpperCase() === 'HEAD';
    return { status: entry.status, headers, body: head ? null : entry.body, source, portalMs };
  }

  /**
   * A write: passed on as any request, then, when the portal accepted it, what it touched is copied (at most
   * `writeWaitMs` waited for) and the answers kept are forgotten, before the portal's answer goes back.
   */
  private async write(request: ForwardRequest, url: URL, action: string): Promise<ForwardAnswer> {
    // The request's own fields say what a delete touched (its answer says nothing): the first megabyte is kept aside
    // as the body streams to the portal (a file upload goes on past it, unread here).
    let requestCopy: Buffer | null = null;
    let body = request.body;
    if (body instanceof Readable) {
      const kept: Buffer[] = [];
      let keptBytes = 0;
      const teeing = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          if (keptBytes < WRITE_FIELDS_BYTES) kept.push(chunk.subarray(0, WRITE_FIELDS_BYTES - keptBytes));
          keptBytes += chunk.length;
          done(null, chunk);
        },
        flush(done) {
          requestCopy = Buffer.concat(kept);
          done();
        },
      });
      body.once('aborted', () => teeing.destroy(new Error('the client went away')));
      body.pipe(teeing);
      body = teeing;
    } else if (body !== null) requestCopy = Buffer.from(body).subarray(0, WRITE_FIELDS_BYTES);
    const answer = await this.ask('POST', url, { ...request, body }, this.headersFor(request));
    if (answer.status !== 200 || !(answer.body instanceof Readable)) return { ...answer, source: 'portal' };
    // CKAN's answer to a write is small, but may echo every record written: past 16 MB it is passed on as it comes, and
    // the copy is not waited for.
    const read = await wholeUpTo(answer.body, 16 * 1024 * 1024);
    const text = Buffer.isBuffer(read) ? read : null;
    this.forget();
    const touched = touchedBy(action, requestCopy, text);
    const { onWrite } = this.options;
    if (onWrite && (touched.resourceIds.length > 0 || touched.datasetIds.length > 0)) {
      const copied = onWrite(touched).then(
        () => this.forget(),
        (err: unknown) => this.options.onWriteProblem?.(touched, (err as Error).message),
      );
      const waitMs = text ? (this.options.writeWaitMs ?? 0) : 0;
      let timer: NodeJS.Timeout | undefined;
      const late = await Promise.race([
        copied.then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), waitMs))),
      ]);
      clearTimeout(timer);
      if (late && waitMs > 0)
        this.options.onWriteProblem?.(touched, `not copied within ${Math.round(waitMs / 1000)} s`);
    }
    if (!text) return { ...answer, body: read as Readable, source: 'portal' };
    const headers = { ...answer.headers, 'content-length': String(text.length) };
    return { ...answer, headers, body: text, source: 'portal' };
  }

  /** The headers sent to the portal: the client's end-to-end ones, and who passed them on. */
  private headersFor(request: ForwardRequest): Record<string, string | string[]> {
    const headers = endToEnd(request.headers);
    const forwardedFor = request.headers['x-forwarded-for'];
    if (request.clientAddress)
      headers['x-forwarded-for'] = forwardedFor
        ? `${String(forwardedFor)}, ${request.clientAddress}`
        : request.clientAddress;
    headers['x-forwarded-proto'] = request.secure ? 'https' : 'http';
    headers.via = `${request.headers.via ? `${String(request.headers.via)}, ` : ''}1.1 count-centre/${COUNT_CENTRE_VERSION}`;
    if (!hasCredentials(request.headers) && !headers['user-agent'])
      headers['user-agent'] = `CountCentre/${COUNT_CENTRE_VERSION}`;
    return headers;
  }

  /** One request to the portal; its answer's headers once they come, its body streamed. */
  private ask(
    method: string,
    url: URL,
    request: ForwardRequest,
    headers: Record<string, string | string[]>,
  ): Promise<Omit<ForwardAnswer, 'source'>> {
    const { timeoutMs, bodyLimitBytes } = this.options;
    const transport = url.protocol === 'https:' ? https : http;
    const started = performance.now();
    const body = request.body;
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      headers['content-length'] = String(Buffer.byteLength(body));
      delete headers['transfer-encoding'];
    }
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(waiting);
        reject(err);
      };
      const upstream = transport.request(url, { method, headers, agent: this.agent });
      const waiting = setTimeout(() => upstream.destroy(new Timeout()), timeoutMs);
      upstream.once('error', (err) => {
        if (err instanceof PassThroughRefused) return fail(err);
        const why =
          err instanceof Timeout
            ? `no answer within ${Math.round(timeoutMs / 1000)} s`
            : ((err as NodeJS.ErrnoException).code ?? err.message);
        fail(new PortalUnreachable(why, err instanceof Timeout));
      });
      upstream.once('response', (response) => {
        if (settled) {
          response.destroy();
          return;
        }
        settled = true;
        clearTimeout(waiting);
        const portalMs = performance.now() - started;
        // A portal that stops sending part way is cut off: the client's answer then breaks off too. A response that
        // ends before all its bytes came (a reset) fails the stream, so that it is neither kept nor taken as whole.
        let idle = setTimeout(() => response.destroy(new Timeout()), timeoutMs);
        const streamed = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            clearTimeout(idle);
            idle = setTimeout(() => response.destroy(new Timeout()), timeoutMs);
            done(null, chunk);
          },
        });
        response.once('close', () => clearTimeout(idle));
        response.once('error', (err) => {
          clearTimeout(idle);
          streamed.destroy(err);
        });
        response.once('aborted', () => streamed.destroy(new Error('the portal broke off its answer')));
        response.once('close', () => {
          if (!response.complete) streamed.destroy(new Error('the portal broke off its answer'));
        });
        // A client that goes away mid-answer ends the portal's answer too, rather than leave it paused on its socket.
        streamed.once('close', () => {
          if (!response.complete) response.destroy();
        });
        response.pipe(streamed);
        const out = endToEnd(response.headers);
        const location = out.location;
        if (typeof location === 'string') out.location = this.relativeLocation(location);
        resolve({
          status: response.statusCode ?? 502,
          headers: out,
          body:
            method === 'HEAD' || response.statusCode === 204 || response.statusCode === 304
              ? (response.resume(), null)
              : streamed,
          portalMs,
        });
      });
      if (body instanceof Readable) {
        let sent = 0;
        body.on('data', (chunk: Buffer) => {
          sent += chunk.length;
          if (sent > bodyLimitBytes) {
            body.unpipe(upstream);
            upstream.destroy(new PassThroughRefused(`Request body larger than ${bodyLimitBytes} bytes`, 'too-large'));
          }
        });
        body.once('aborted', () => upstream.destroy(new Error('the client went away')));
        body.pipe(upstream);
      } else upstream.end(body ?? undefined);
    });
  }

  /** A Location on the portal's own site, as a path here: the client stays with Count Centre. */
  private relativeLocation(location: string): string {
    try {
      const target = new URL(location, this.portal);
      const base = this.portal.pathname.replace(/\/$/, '');
      if (target.origin === this.portal.origin && target.pathname.startsWith(`${base}/`))
        return `${target.pathname.slice(base.length)}${target.search}${target.hash}`;
    } catch {
      // Not a URL: passed on as it is.
    }
    return location;
  }
}
