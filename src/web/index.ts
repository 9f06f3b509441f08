// The web explorer: HTML pages served beside the API, a second presenter over the same actions. Registered by
// app.ts with one call; every page is a GET that works without JavaScript, carries a strict Content-Security-Policy,
// an entity tag made of the dataset version, and is kept rendered until the data changes.

import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isVersionMoved, type Action, type Services, type ServiceState } from '../actions/types.js';
import { ifNoneMatchHits } from '../http/caching.js';
import { ResponseCache } from '../http/response-cache.js';
import { loadAssets, registerAssetRoutes } from './assets.js';
import { ChartMemo } from './charts.js';
import { ElectionCache, elections } from './catalog-view.js';
import { ActionClient, pageFailureOf } from './data.js';
import type { PageShell } from './pages/layout.js';
import { errorPage, pageHandlers, type PageContext, type PageResult } from './routes.js';

/**
 * No inline script or style anywhere (charts are SVG with presentation attributes, styled by the stylesheet), no
 * third-party requests, no framing. Forms submit only to this site.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
].join('; ');

const HTML = 'text/html; charset=utf-8';

/**
 * Each request reads the version of the data it leased on arrival (`request.lease`, set by app.ts): its catalogue,
 * its store and its entity tag, whatever loads are published while the page is made.
 */
export function registerWebRoutes(app: FastifyInstance, state: ServiceState, actions: ReadonlyMap<string, Action>): void {
  const { settings } = state.current;
  const assets = loadAssets();
  registerAssetRoutes(app, assets);
  const models = new ElectionCache();
  const charts = new ChartMemo();
  // Rendered pages, kept until the data changes (the key holds the dataset version): a quarter of the answer cache.
  const renderedBytes = Math.floor((settings.responseCacheMb * 1024 * 1024) / 4);
  // A page costs milliseconds to make: it is kept the first time.
  const rendered = new ResponseCache(renderedBytes, Math.max(1, Math.floor(renderedBytes / 16)), 0);
  const hostShapesPages = settings.siteUrl === null;
  const servicesOf = (request: FastifyRequest): Services => (request as { lease?: { services: Services } }).lease?.services ?? state.current;

  const shellBase = (client: ActionClient): Pick<PageShell, 'compare' | 'attribution'> => {
    const all = elections(client);
    const attribution = [...new Set(client.catalog.resources.map((r) => r.dataset?.attribution).filter((a): a is string => Boolean(a)))];
    return { compare: all.length > 1, attribution };
  };

  const headers = (reply: FastifyReply) => reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', settings.cacheControl);

  const route = (url: string, handler: (ctx: PageContext) => Promise<PageResult>) => {
    app.get(url, async (request: FastifyRequest, reply: FastifyReply) => {
      const services = servicesOf(request);
      const client = new ActionClient(services, actions);
      const siteUrl = settings.siteUrl ?? `${request.protocol}://${request.host}`;
      const version = services.backend.datasetVersion;
      const key = `${version} ${assets.version} ${request.url}${hostShapesPages ? ` ${siteUrl}` : ''}`;
      const tag = `W/"${version}-${createHash('sha1').update(key).digest('base64url').slice(0, 20)}"`;
      headers(reply);
      if (ifNoneMatchHits(request.headers['if-none-match'], tag) && rendered.get(key)) {
        return reply.code(304).header('etag', tag).send();
      }
      const hit = rendered.get(key);
      if (hit) return reply.code(200).header('etag', tag).type(HTML).send(hit.body);

      const at = request.url.indexOf('?');
      const ctx: PageContext = {
        client, models, charts, assets, siteUrl,
        params: request.params as Record<string, string>,
        path: at === -1 ? request.url : request.url.slice(0, at),
        search: new URLSearchParams(at === -1 ? '' : request.url.slice(at + 1)),
        shell: shellBase(client),
      };
      let result: PageResult;
      try {
        try {
          result = await handler(ctx);
        } catch (err) {
          if (!isVersionMoved(err)) throw err;
          // A load replaced the version this page was reading: made once more from the current one.
          await state.refresh();
          const lease = state.acquire();
          try {
            const current = new ActionClient(lease.services, actions);
            result = await handler({ ...ctx, client: current, shell: shellBase(current) });
          } finally {
            lease.release();
          }
        }
      } catch (err) {
        const failure = pageFailureOf(err);
        if (!failure) {
          request.log.error({ err, url: request.url }, 'page failed');
          result = errorPage(ctx, 500, 'The page could not be made. The failure has been logged.');
        } else {
          result = errorPage(ctx, failure.status, failure.message);
        }
      }
      if ('redirect' in result) return reply.code(303).header('location', result.redirect).send();
      if (result.status === 200) {
        const body = Buffer.from(result.html);
        rendered.set(key, { status: 200, contentType: HTML, tag, body });
        reply.header('etag', tag);
      } else {
        reply.header('cache-control', 'no-store');
      }
      return reply.code(result.status).type(HTML).send(result.html);
    });
  };

  for (const [url, handler] of Object.entries(pageHandlers)) route(url, handler);
}
