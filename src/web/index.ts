// The web explorer: HTML pages served beside the API, a second presenter over the same actions. app.ts hands it every
// request outside the API's paths; every page is a GET that works without JavaScript, carries a strict
// Content-Security-Policy, an entity tag made of the dataset version, and is kept rendered until the data changes.
// It answers in the request core's terms (ApiRequest in, ApiResponse out), so the one node:http adapter writes, logs
// and compresses pages as it does API answers.

import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { onCurrentVersion, type ServiceLease, type Services, type ServiceState } from '../actions/types.js';
import { errors } from '../errors.js';
import { decodeSegment } from '../http/api-routes.js';
import { revalidate } from '../http/caching.js';
import { JSON_CONTENT_TYPE, leasedResponse, type ApiRequest, type ApiResponse } from '../http/core.js';
import { errorEnvelope, helpUrl } from '../http/envelope.js';
import { ResponseCache, type CachedResponse } from '../http/response-cache.js';
import { assetAnswer, loadAssets } from './assets.js';
import { elections } from './catalog-view.js';
import { ActionClient, pageFailureOf } from './data.js';
import { downloadHeaders, framedPolicy, isEmbedPath } from './downloads.js';
import type { PageShell } from './pages/layout.js';
import { errorPage, type PageContext, type PageResult } from './page-context.js';
import { reviewedData } from './reviewed.js';
import { pageHandlers } from './routes.js';

/**
 * No inline script or style anywhere (charts are SVG with presentation attributes, styled by the stylesheet), no
 * third-party requests, no framing. Forms submit only to this site.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HTML = 'text/html; charset=utf-8';

type PageHandler = (ctx: PageContext) => Promise<PageResult>;

interface PageRoute {
  /** Each segment: a literal, or a parameter's name after ':'. */
  segments: string[];
  handler: PageHandler;
}

/** The matched page and its parameters (decoded); null when no page has this path; 'malformed' for bad encoding. */
function matchRoute(
  routes: readonly PageRoute[],
  path: string,
): { handler: PageHandler; params: Record<string, string> } | null | 'malformed' {
  const parts = path === '/' ? [''] : path.slice(1).split('/');
  for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let matched = true;
    for (let i = 0; i < parts.length && matched; i++) {
      const segment = route.segments[i]!;
      const part = parts[i]!;
      if (segment.startsWith(':')) {
        if (part === '') matched = false;
        else {
          try {
            params[segment.slice(1)] = decodeURIComponent(part);
          } catch {
            return 'malformed';
          }
        }
      } else if (segment !== part) matched = false;
    }
    if (matched) return { handler: route.handler, params };
  }
  return null;
}

export interface PageCore {
  (request: ApiRequest): Promise<ApiResponse>;
  /** Counts a compressed form made for a kept page, so the page cache stays within its bytes. */
  compressed(entry: CachedResponse, bytes: number): void;
}

/** The API's paths, which stay where they are when the explorer moves: its pages link to them as they are. */
const API_PATH = /^(\/[^/"]+)?\/api(\/|"|\?|$)|^\/datastore\//;

/**
 * A page's links to the explorer's own paths under its base path (`/explore/` in front of a portal, whose own pages
 * keep `/`): every root-relative `href`, `src` and `action` but the API's. The pages are written from `/`.
 */
export function underBasePath(html: string, basePath: string): string {
  if (basePath === '/') return html;
  return html.replace(/(\s(?:href|src|action)=")\/(?!\/)/g, (found: string, attribute: string, at: number) =>
    API_PATH.test(html.slice(at + attribute.length, at + attribute.length + 200)) ? found : `${attribute}${basePath}`,
  );
}

/**
 * Each request reads the version of the data it leased on arrival: its catalogue, its store and its entity tag,
 * whatever loads are published while the page is made. `basePath` is where the explorer is served from.
 */
export function createPageCore(state: ServiceState, logger: Logger, basePath = '/'): PageCore {
  const { settings } = state.current;
  const assets = loadAssets();
  const reviewed = reviewedData();
  // Rendered pages, kept until the data changes (the key holds the dataset version): a quarter of the answer cache.
  const renderedBytes = Math.floor((settings.responseCacheMb * 1024 * 1024) / 4);
  // A page costs milliseconds to make: it is kept the first time.
  const rendered = new ResponseCache(renderedBytes, Math.max(1, Math.floor(renderedBytes / 16)), 0);
  const hostShapesPages = settings.siteUrl === null;
  const routes: PageRoute[] = Object.entries(pageHandlers).map(([url, handler]) => ({
    segments: url === '/' ? [''] : url.slice(1).split('/'),
    handler,
  }));

  const shellBase = (client: ActionClient): Pick<PageShell, 'compare'> => ({ compare: elections(client).length > 1 });

  // Only a chart's embeddable page may be framed by other sites; a CSV download says so, with its name.
  const pageHeaders = (path = ''): Record<string, string> => ({
    'content-security-policy': isEmbedPath(path) ? framedPolicy(CONTENT_SECURITY_POLICY) : CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': settings.cacheControl,
  });

  const answer = (
    status: number,
    headers: Record<string, string>,
    body: string | Buffer | null,
    lease: ServiceLease | null,
    entry?: CachedResponse,
  ): ApiResponse => {
    const response = leasedResponse(status, headers, body, 'explorer', lease);
    if (entry) response.entry = entry;
    return response;
  };

  /** What is not a page: CKAN's envelope, as for any other path this service does not know. */
  const notFound = (request: ApiRequest, message: string, extra: Record<string, string> = {}): ApiResponse => {
    const help = helpUrl(settings.siteUrl ?? request.origin, settings.locale, 'help_show');
    const envelope = errorEnvelope(help, errors.notFound(message));
    return answer(envelope.status, { 'content-type': JSON_CONTENT_TYPE, ...extra }, envelope.body, null);
  };

  const page = async (request: ApiRequest): Promise<ApiResponse> => {
    const at = request.url.indexOf('?');
    const path = at === -1 ? request.url : request.url.slice(0, at);
    const readOnly = request.method === 'GET' || request.method === 'HEAD';
    const ifNoneMatch = request.headers['if-none-match'];

    if (readOnly) {
      const asset = assetAnswer(assets, path, ifNoneMatch);
      if (asset) return answer(asset.status, asset.headers, asset.body, null, asset.entry);
    }
    const matched = readOnly ? matchRoute(routes, path) : null;
    if (matched === 'malformed') return notFound(request, `No page at ${decodeSegment(path)}`);
    if (matched === null) return notFound(request, `No page at ${path}`, { 'cache-control': settings.cacheControl });

    const lease = { current: state.acquire() };
    try {
      const siteUrl = settings.siteUrl ?? request.origin;
      const search = new URLSearchParams(at === -1 ? '' : request.url.slice(at + 1));
      // A page is kept, and tagged, by the version of the data it was made from.
      const identity = (services: Services) => {
        const key = `${services.backend.datasetVersion} ${assets.version} ${reviewed.version} ${request.url}${hostShapesPages ? ` ${siteUrl}` : ''}`;
        return {
          key,
          tag: `W/"${services.backend.datasetVersion}-${createHash('sha1').update(key).digest('base64url').slice(0, 20)}"`,
        };
      };
      const contextOf = (services: Services): PageContext => {
        const client = new ActionClient(services);
        return { client, assets, reviewed, siteUrl, params: matched.params, path, search, shell: shellBase(client) };
      };
      let { key, tag } = identity(lease.current.services);
      const hit = rendered.get(key);
      if (hit && revalidate(ifNoneMatch, tag))
        return answer(304, { ...pageHeaders(path), etag: tag }, null, lease.current);
      if (hit)
        return answer(
          200,
          { ...pageHeaders(path), ...downloadHeaders(path), etag: tag, 'content-type': hit.contentType },
          hit.body,
          lease.current,
          hit,
        );

      let madeFrom = lease.current.services;
      let ctx = contextOf(madeFrom);
      let result: PageResult;
      try {
        // A page whose version a load replaced while it was made is made once more from the current one, and kept and
        // tagged as that version's page.
        result = await onCurrentVersion(state, lease, (services) => {
          if (services !== madeFrom) {
            madeFrom = services;
            ctx = contextOf(services);
            ({ key, tag } = identity(services));
          }
          return matched.handler(ctx);
        });
      } catch (err) {
        const failure = pageFailureOf(err);
        if (!failure) {
          logger.error({ err, url: request.url }, 'page failed');
          result = errorPage(ctx, 500, 'The page could not be made. The failure has been logged.');
        } else {
          result = errorPage(ctx, failure.status, failure.message);
        }
      }
      if ('redirect' in result) {
        const location = result.redirect.startsWith('/') ? `${basePath}${result.redirect.slice(1)}` : result.redirect;
        return answer(303, { ...pageHeaders(), location }, '', lease.current);
      }
      const [contentType, text] =
        'html' in result ? [HTML, underBasePath(result.html, basePath)] : [result.contentType, result.body];
      if (result.status === 200) {
        const entry: CachedResponse = { status: 200, contentType, tag, body: Buffer.from(text) };
        rendered.set(key, entry);
        return answer(
          200,
          { ...pageHeaders(path), ...downloadHeaders(path), etag: tag, 'content-type': contentType },
          entry.body,
          lease.current,
          entry,
        );
      }
      return answer(
        result.status,
        { ...pageHeaders(path), 'cache-control': 'no-store', 'content-type': HTML },
        text,
        lease.current,
      );
    } catch (err) {
      lease.current.release();
      throw err;
    }
  };
  return Object.assign(page, { compressed: (entry: CachedResponse, bytes: number) => rendered.grew(entry, bytes) });
}
