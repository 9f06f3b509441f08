// The request core of the API: one function from a request to an answer (status, headers, body), that owns routing,
// decoding, running the action on a leased version of the data, turning every failure into CKAN's envelope, and the
// header policy (entity tags and If-None-Match, Cache-Control, CORS, JSONP). The response cache is a memo around the
// action with one key function. It knows no web server: an adapter (http/node-adapter.ts) reads the request and writes
// the answer, compressing it, in one place.

import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Dump } from '../actions/datastore-dump.js';
import { prepareDump } from '../actions/datastore-dump.js';
import { StageTimings } from '../util/timing.js';
import { onCurrentVersion, type Action, type ServiceLease, type ServiceState } from '../actions/types.js';
import { unknownActionHint } from '../actions/hints.js';
import { ApiError, errors, toApiError } from '../errors.js';
import type { Settings } from '../settings.js';
import { entityTag, revalidate } from './caching.js';
import { decodeRequest } from './decode.js';
import { errorEnvelope, helpUrl, successEnvelope } from './envelope.js';
import { bodyBytes, cacheKey, type CachedResponse, type ResponseCache } from './response-cache.js';
import { routeApi, type ApiRoute } from './api-routes.js';
import type { ApiMetrics } from './metrics.js';

export const JSON_CONTENT_TYPE = 'application/json;charset=utf-8';
const JSONP_CONTENT_TYPE = 'application/javascript;charset=utf-8';
const CORS_METHODS = 'GET, HEAD, POST, OPTIONS';

export interface ApiRequest {
  /** Upper case, as the client sent it. */
  method: string;
  /** Path and query string as received (still percent-encoded). */
  url: string;
  headers: IncomingHttpHeaders;
  /** scheme://host the request was addressed to: where `help` links point when SITE_URL is not set. */
  origin: string;
  /** A POST's body, read and decompressed within bounds by the adapter; undefined for other methods. */
  body?: string;
  /** Why the body could not be read (too large, not decompressible): answered as such, and the connection closed. */
  bodyError?: ApiError;
  /** Where its time goes, from its arrival (the adapter starts it, since reading the body is part of it). */
  timing?: StageTimings;
  /** The adapter's lookup that found no remembered answer: its key is neither built nor looked up again. */
  missed?: CacheMiss;
}

/** A response-cache key looked up without finding an answer, and the dataset version it names. */
export class CacheMiss {
  constructor(
    readonly key: string,
    readonly version: string,
  ) {}
}

export interface ApiResponse {
  status: number;
  /** Lower-case names; the adapter adds the encoding headers. */
  headers: Record<string, string>;
  /**
   * A finished body (text, or bytes when remembered and asked for again), a stream of text (a dump), or nothing (HEAD,
   * 204, 304).
   */
  body: string | Buffer | AsyncGenerator<string> | null;
  /** The action whose answer this is, for logs and metrics ('' when none). */
  action: string;
  /** The response cache's entry for this answer, when it has one: compressed forms are kept on it, made once. */
  entry?: CachedResponse;
  /** Called once the answer has been sent or abandoned: the data version it read may then be closed. */
  done(): void;
  /** In front of a portal: the copy does not hold what was asked for, and the portal is to answer instead. */
  forward?: boolean;
}

export interface CoreOptions {
  state: ServiceState;
  actions: ReadonlyMap<string, Action>;
  settings: Settings;
  logger: Logger;
  cache: ResponseCache;
  metrics: ApiMetrics;
  /** The OpenAPI document for a site URL (rendered once per site URL). */
  openApi(siteUrl: string): string;
  /**
   * In front of a portal: a resource the copy does not hold is the portal's to answer (the answer says `forward`), and
   * Server-Timing says that an answer came from the copy.
   */
  front?: boolean;
  /**
   * In front of a portal: the portal's base URL, whose own `help` links (CKAN's, without a locale) the copy's answers
   * give too, so that they are the portal's answers to the letter.
   */
  portalHelp?: string;
}

export interface ApiCore {
  (request: ApiRequest): Promise<ApiResponse>;
  /**
   * The answer to a GET or HEAD from what is remembered, if anything is (the answer, or its 304): looked up first and
   * synchronously, since a repeated request needs nothing else (no lease, no routing, no body). Otherwise the request
   * must be answered in full: a CacheMiss to hand back with it, or null when there was nothing to look up.
   */
  remembered(
    method: string,
    url: string,
    origin: string,
    headers: IncomingHttpHeaders,
    started: number,
  ): ApiResponse | CacheMiss | null;
}

/** The routes whose answers are tagged by the data's version and remembered. */
type CachedRoute = Extract<ApiRoute, { kind: 'version' | 'openapi' | 'action' | 'dump' }>;

/** Makes the answer to a request on such a route afresh, on the lease's version (or the one a reload put in its place). */
type Responder<K extends CachedRoute['kind']> = (
  request: ApiRequest,
  route: Extract<CachedRoute, { kind: K }>,
  lease: { current: ServiceLease },
  siteUrl: string,
  query: string,
) => Promise<ApiResponse>;

function splitUrl(url: string): { path: string; query: string } {
  const at = url.indexOf('?');
  return at === -1 ? { path: url, query: '' } : { path: url.slice(0, at), query: url.slice(at + 1) };
}

// CKAN escapes these in a JSONP callback name; nothing else is needed for a name inside a script tag.
function escapeCallback(name: string): string {
  return name.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The methods each kind of route answers (OPTIONS, the CORS preflight, is answered for all of them). */
function allowedMethods(route: ApiRoute): readonly string[] {
  switch (route.kind) {
    case 'action':
      return ['GET', 'HEAD', 'POST'];
    default:
      return ['GET', 'HEAD'];
  }
}

/** An answer that holds the version of the data it read until it has been sent (or abandoned), then lets it go once. */
export function leasedResponse(
  status: number,
  headers: Record<string, string>,
  body: ApiResponse['body'],
  action: string,
  lease: ServiceLease | null,
): ApiResponse {
  let released = false;
  return {
    status,
    headers,
    body,
    action,
    done: () => {
      if (released) return;
      released = true;
      lease?.release();
    },
  };
}

/**
 * Whether a failure means that the copy does not hold what was asked for (an unknown resource, a table SQL reads that
 * is not here): in front of a portal, the portal answers such a request.
 */
function copyLacks(apiError: ApiError): boolean {
  if (apiError.kind === 'notFound') return true;
  const query = apiError.validation?.query;
  return Array.isArray(query) && query.some((m) => typeof m === 'string' && /^relation ".*" does not exist/.test(m));
}

export function createApiCore(options: CoreOptions): ApiCore {
  const { state, actions, settings, logger, cache, metrics } = options;
  const { portalHelp } = options;
  const hostShapesAnswer = settings.siteUrl === null && portalHelp === undefined;
  const help = (siteUrl: string, action: string) =>
    portalHelp === undefined
      ? helpUrl(siteUrl, settings.locale, action)
      : `${portalHelp}api/3/action/help_show?name=${encodeURIComponent(action)}`;
  const origin = options.front ? ['origin;desc="copy"'] : [];
  const timingHeader = (timing: StageTimings, extra: string[] = []) => timing.header([...origin, ...extra]);
  const forwarded = (action: string, lease: { current: ServiceLease }): ApiResponse => {
    const response = answer(404, {}, null, action, lease.current);
    response.forward = true;
    return response;
  };

  // Every API answer may be read from any origin (CKAN's own policy for the read API).
  const answer = (
    status: number,
    headers: Record<string, string>,
    body: ApiResponse['body'],
    action: string,
    lease: ServiceLease | null,
  ): ApiResponse => leasedResponse(status, { 'access-control-allow-origin': '*', ...headers }, body, action, lease);

  const envelopeAnswer = (
    apiError: ApiError,
    help: string | null,
    action: string,
    lease: ServiceLease | null,
    extra: Record<string, string> = {},
  ) => {
    const envelope = errorEnvelope(help, apiError);
    return answer(
      envelope.status,
      { 'content-type': JSON_CONTENT_TYPE, 'cache-control': settings.cacheControl, ...extra },
      envelope.body,
      action,
      lease,
    );
  };

  /** Any failure as CKAN's envelope: the store's own failures mapped in one place, anything else a logged 500. */
  const failure = (err: unknown, request: ApiRequest): ApiError =>
    toApiError(err, (unexpected) => {
      logger.error({ err: unexpected, method: request.method, url: request.url }, 'unexpected failure');
    });

  /** The 304 to a client that holds the answer tagged `tag` already. */
  const notModified = (
    tag: string,
    action: string,
    timing: StageTimings | undefined,
    lease: ServiceLease | null,
  ): ApiResponse => {
    const headers: Record<string, string> = {
      etag: tag,
      'cache-control': settings.cacheControl,
      vary: 'accept-encoding',
    };
    if (timing) headers['server-timing'] = timingHeader(timing, ['cache;desc="revalidated"']);
    return answer(304, headers, null, action, lease);
  };

  /**
   * A remembered answer, or its 304 when the client holds it: the one way a hit is answered, whether found before the
   * request was read or once it was.
   */
  const rememberedAnswer = (
    entry: CachedResponse,
    ifNoneMatch: string | undefined,
    timing: StageTimings | undefined,
    lease: ServiceLease | null,
  ): ApiResponse => {
    const action = entry.action ?? '';
    if (revalidate(ifNoneMatch, entry.tag)) return notModified(entry.tag, action, timing, lease);
    const headers: Record<string, string> = {
      etag: entry.tag,
      'content-type': entry.contentType,
      'cache-control': settings.cacheControl,
    };
    if (timing) headers['server-timing'] = timingHeader(timing, ['cache;desc="hit"']);
    // Sent as the bytes kept on the entry, made once, not encoded again for every request.
    const response = answer(entry.status, headers, bodyBytes(entry), action, lease);
    response.entry = entry;
    return response;
  };

  const respondToAction: Responder<'action'> = async (request, route, lease, siteUrl, query) => {
    const action = actions.get(route.name);
    const helpLink = help(siteUrl, route.name);
    let callback: string | null = null;
    try {
      if (!action) throw errors.unknownAction(route.name, unknownActionHint(route.name, actions.keys()));
      const decoded = decodeRequest(
        request.method === 'HEAD' ? 'GET' : request.method,
        query,
        request.headers['content-type'],
        request.body,
      );
      callback = request.method === 'POST' ? null : decoded.callback;
      const { timing } = request;
      timing?.mark('parse');
      const call = { params: decoded.params, path: route.linkPath, linkQuery: decoded.linkQuery, siteUrl, timing };
      const marked = timing?.count ?? 0;
      const result = await onCurrentVersion(state, lease, (services) => action.run(call, services));
      // Actions that mark no stages of their own are timed whole.
      if (timing && timing.count === marked) timing.mark('action');
      const envelope = successEnvelope(helpLink, result);
      timing?.mark('serialise');
      if (callback !== null) {
        return answer(
          200,
          { 'content-type': JSONP_CONTENT_TYPE },
          `${escapeCallback(callback)}(${envelope.body});`,
          route.name,
          lease.current,
        );
      }
      return answer(200, { 'content-type': JSON_CONTENT_TYPE }, envelope.body, route.name, lease.current);
    } catch (err) {
      const apiError = failure(err, request);
      if (options.front && action && copyLacks(apiError)) return forwarded(route.name, lease);
      const envelope = errorEnvelope(action ? helpLink : null, apiError);
      return answer(envelope.status, { 'content-type': JSON_CONTENT_TYPE }, envelope.body, route.name, lease.current);
    }
  };

  const respondToDump: Responder<'dump'> = async (request, route, lease, siteUrl, query) => {
    const helpLink = help(siteUrl, 'datastore_search');
    try {
      const params = decodeRequest('GET', query, undefined, undefined).params;
      const [dump, body] = await onCurrentVersion(
        state,
        lease,
        async (services): Promise<[Dump, AsyncGenerator<string> | null]> => {
          const prepared = prepareDump(route.id, params, services);
          // HEAD answers with the headers alone, without computing the dump.
          return [prepared, request.method === 'HEAD' ? null : await prepared.open()];
        },
      );
      return answer(
        200,
        {
          'content-type': dump.contentType,
          'content-disposition': `attachment; filename="${dump.filename}"`,
          // Said on HEAD too: a GET of the same dump may be compressed.
          vary: 'accept-encoding',
        },
        body,
        'datastore_dump',
        lease.current,
      );
    } catch (err) {
      const apiError = failure(err, request);
      if (options.front && copyLacks(apiError)) return forwarded('datastore_dump', lease);
      const envelope = errorEnvelope(helpLink, apiError);
      return answer(
        envelope.status,
        { 'content-type': JSON_CONTENT_TYPE },
        envelope.body,
        'datastore_dump',
        lease.current,
      );
    }
  };

  const remembered = (
    method: string,
    url: string,
    origin: string,
    headers: IncomingHttpHeaders,
    started: number,
  ): ApiResponse | CacheMiss | null => {
    if (!cache.enabled || (method !== 'GET' && method !== 'HEAD')) return null;
    const version = state.current.backend.answersVersion;
    const key = cacheKey(version, method, url, hostShapesAnswer ? origin : null);
    const hit = cache.get(key);
    if (!hit) return new CacheMiss(key, version);
    metrics.cacheHit();
    return rememberedAnswer(hit, headers['if-none-match'], new StageTimings(started), null);
  };

  /**
   * What is answered before any route runs: an unknown path, the CORS preflight, a method not served, a refused body.
   */
  const guard = (request: ApiRequest, route: ApiRoute, siteUrl: string): ApiResponse | null => {
    const notFoundHelp = help(siteUrl, 'help_show');
    if (route.kind === 'none')
      return envelopeAnswer(errors.notFound(`No page at ${route.shownPath}`), notFoundHelp, '', null);
    if (request.method === 'OPTIONS') {
      // The CORS preflight: any origin may call the API from a browser, as from a CKAN portal.
      const headers: Record<string, string> = {
        'access-control-allow-methods': CORS_METHODS,
        'access-control-max-age': '86400',
        'cache-control': settings.cacheControl,
      };
      const asked = request.headers['access-control-request-headers'];
      if (asked) {
        headers['access-control-allow-headers'] = String(asked);
        headers.vary = 'Access-Control-Request-Headers';
      }
      return answer(204, headers, null, '', null);
    }
    const name = route.kind === 'action' ? route.name : '';
    const allowed = [...allowedMethods(route), 'OPTIONS'];
    if (!allowed.includes(request.method)) {
      return envelopeAnswer(errors.methodNotAllowed(request.method, allowed), notFoundHelp, name, null, {
        allow: allowed.join(', '),
      });
    }
    if (request.bodyError) {
      const bodyHelp = name && actions.has(name) ? help(siteUrl, name) : notFoundHelp;
      // The rest of a refused body is not read: the connection closes after the answer.
      return envelopeAnswer(request.bodyError, bodyHelp, name, null, { connection: 'close' });
    }
    return null;
  };

  /** The routes that read no version of the data's answers, and so need no lease of one: metrics and health. */
  const unleased = async (route: ApiRoute): Promise<ApiResponse | null> => {
    if (route.kind === 'metrics') {
      return answer(
        200,
        { 'content-type': metrics.contentType, 'cache-control': 'no-store' },
        await metrics.render(),
        'metrics',
        null,
      );
    }
    if (route.kind !== 'health') return null;
    const lease = state.acquire();
    const { backend, indexes } = lease.services;
    const health = await backend.health();
    // Indexes still to be built after publication: searches on their fields are right, only slower until they are in.
    const building = health.ok && indexes ? await indexes.building().catch(() => null) : null;
    const body = JSON.stringify({
      status: health.ok ? 'ok' : 'unavailable',
      store: backend.dialect,
      dataset_version: backend.datasetVersion,
      detail: health.detail,
      ...(building ? { indexes_building: building.map((b) => ({ resource_id: b.resource, index: b.index })) } : {}),
    });
    return answer(
      health.ok ? 200 : 503,
      { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-store' },
      body,
      '',
      lease,
    );
  };

  const dispatch: Responder<CachedRoute['kind']> = (request, route, lease, siteUrl, query) => {
    switch (route.kind) {
      case 'version':
        return Promise.resolve(answer(200, { 'content-type': JSON_CONTENT_TYPE }, '{"version": 3}', '', lease.current));
      case 'openapi':
        return Promise.resolve(
          answer(200, { 'content-type': JSON_CONTENT_TYPE }, options.openApi(siteUrl), '', lease.current),
        );
      case 'action':
        return respondToAction(request, route, lease, siteUrl, query);
      case 'dump':
        return respondToDump(request, route, lease, siteUrl, query);
    }
  };

  /**
   * The routes whose answers depend on the data: tagged with its version, revalidated, remembered. A retry on a newer
   * version (a reload while it ran) is that version's answer, and is tagged and kept so.
   */
  const cachedDispatch = async (
    request: ApiRequest,
    route: CachedRoute,
    siteUrl: string,
    query: string,
  ): Promise<ApiResponse> => {
    const lease = { current: state.acquire() };
    const version = () => lease.current.services.backend.answersVersion;
    const identity = {
      method: request.method,
      url: request.url,
      origin: hostShapesAnswer ? request.origin : null,
      ...(request.method === 'POST'
        ? { body: request.body ?? '', contentType: String(request.headers['content-type'] ?? '') }
        : {}),
    };
    const keyOf = () =>
      cacheKey(
        version(),
        request.method,
        request.url,
        identity.origin,
        identity.body === undefined ? undefined : `${identity.contentType}\n${identity.body}`,
      );
    const actionName = route.kind === 'action' ? route.name : route.kind === 'dump' ? 'datastore_dump' : '';
    const tag = entityTag(version(), identity);
    const ifNoneMatch = request.method === 'POST' ? undefined : request.headers['if-none-match'];
    if (revalidate(ifNoneMatch, tag)) return notModified(tag, actionName, request.timing, lease.current);

    const { missed } = request;
    const key = missed?.version === version() ? missed.key : keyOf();
    const hit = key === missed?.key ? undefined : cache.get(key);
    if (hit) {
      metrics.cacheHit();
      return rememberedAnswer(hit, ifNoneMatch, request.timing, lease.current);
    }
    if (cache.enabled) metrics.cacheMiss();

    const startedOn = version();
    const response = await dispatch(request, route, lease, siteUrl, query);
    const finalTag = version() === startedOn ? tag : entityTag(version(), identity);
    // A failure is not the answer to the request: it must not be revalidated as if it were.
    response.headers['cache-control'] = settings.cacheControl;
    if (response.status < 500) response.headers.etag = finalTag;
    if (request.timing) response.headers['server-timing'] = timingHeader(request.timing);
    if (
      response.status === 200 &&
      (typeof response.body === 'string' || Buffer.isBuffer(response.body)) &&
      request.method !== 'HEAD'
    ) {
      response.entry = {
        status: 200,
        contentType: response.headers['content-type']!,
        tag: finalTag,
        body: response.body,
        action: actionName,
      };
      cache.set(version() === startedOn ? key : keyOf(), response.entry);
    }
    return response;
  };

  const respond = async function respond(request: ApiRequest): Promise<ApiResponse> {
    const { path, query } = splitUrl(request.url);
    const route = routeApi(path);
    const siteUrl = settings.siteUrl ?? request.origin;
    const early = guard(request, route, siteUrl) ?? (await unleased(route));
    if (early) return early;
    return cachedDispatch(request, route as CachedRoute, siteUrl, query);
  };
  return Object.assign(respond, { remembered });
}
