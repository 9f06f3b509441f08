// Builds the HTTP application from its services without listening: one node:http server; API paths (`/api/…`,
// `/datastore/dump/…`, `/healthz`, `/metrics`) go to the request core, everything else to the explorer's pages, and
// one adapter writes both (compression, HEAD, logs, metrics).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createActions } from './actions/registry.js';
import { COUNT_CENTRE_VERSION } from './actions/catalog-actions.js';
import { dumpParamSpecs } from './actions/datastore-dump.js';
import type { Services, ServiceState } from './actions/types.js';
import { isApiPath } from './http/api-routes.js';
import { createApiCore } from './http/core.js';
import { createForward, frontRoute } from './http/pass-through.js';
import { ApiMetrics } from './http/metrics.js';
import { answerClientError, createNodeAdapter } from './http/node-adapter.js';
import { servedOpenApi } from './http/openapi.js';
import { ResponseCache } from './http/response-cache.js';
import type { PassThrough } from './portal/pass-through.js';
import { createPageCore } from './web/index.js';

/** The HTTP application: listens, and closes (waiting for the answers under way). */
export interface App {
  readonly server: Server;
  /** Resolves to the address served, e.g. `http://127.0.0.1:5000`. */
  listen(options: { port: number; host: string }): Promise<string>;
  close(): Promise<void>;
}

/** How long answers under way may take to finish when the application closes, before their connections are cut. */
const CLOSE_GRACE_MS = 10_000;

/** Bodies above this (as sent, or once decompressed) are refused with a 413; CKAN clients send small JSON objects. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Standing in front of a portal: where requests the copy does not answer go, and where the explorer moves to. */
export interface FrontOptions {
  passThrough: PassThrough;
  /** The explorer's base path (`/explore/`): the portal's own pages keep `/`. */
  explorerPath: string;
}

/** Services that never change version (tests that swap in a failing store). */
function fixedState(services: Services): ServiceState {
  return { current: services, acquire: () => ({ services, release: () => {} }), refresh: async () => false };
}

/**
 * Every request leases the version of the data current when it arrives and reads only that version (records, fields,
 * totals, catalogue, entity tag), however many loads are published while it runs.
 */
export async function buildApp(
  source: ServiceState | Services,
  logger: Logger,
  front: FrontOptions | null = null,
): Promise<App> {
  const state = 'acquire' in source ? source : fixedState(source);
  const { settings } = state.current;
  const actions = createActions(settings);
  const dumpParams = dumpParamSpecs(settings);
  const cache = new ResponseCache(settings.responseCacheMb * 1024 * 1024);
  const metrics = new ApiMetrics({
    datasetVersion: () => state.current.backend.datasetVersion,
    storeStats: () => state.storeStats?.() ?? {},
    responseCache: () => cache.size,
  });
  const forward = front
    ? createForward({
        passThrough: front.passThrough,
        logger,
        metrics,
        requestLogLevel: settings.requestLogLevel,
      })
    : undefined;
  const openApi = servedOpenApi({ version: COUNT_CENTRE_VERSION, actions, dumpParams });
  const core = createApiCore({
    state,
    actions,
    settings,
    logger,
    cache,
    metrics,
    openApi,
    front: front !== null,
    ...(front ? { portalHelp: front.passThrough.portal.href } : {}),
  });
  const explorerPath = front?.explorerPath ?? settings.explorerPath ?? '/';
  const pages = createPageCore(state, logger, explorerPath);
  const adapterOptions = { logger, bodyLimit: BODY_LIMIT_BYTES, requestLogLevel: settings.requestLogLevel, metrics };
  const api = createNodeAdapter({
    ...adapterOptions,
    core,
    onCompressed: (entry, bytes) => cache.grew(entry, bytes),
    forward,
  });
  // Pages keep their own rendered copies (web/index.ts), so the adapter has nothing remembered to look up for them.
  const page = createNodeAdapter({
    ...adapterOptions,
    core: Object.assign(pages, { remembered: () => null }),
    onCompressed: pages.compressed,
  });

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const at = url.indexOf('?');
    const path = at === -1 ? url : url.slice(0, at);
    if (front && forward) {
      const where = frontRoute(path, front.explorerPath);
      if (where === 'portal') forward(req, res);
      else if (where === 'api') api(req, res);
      else {
        // The explorer's pages know their own paths from `/`.
        req.url = url.slice(front.explorerPath.length - 1) || '/';
        page(req, res);
      }
      return;
    }
    if (isApiPath(path)) api(req, res);
    else if (explorerPath === '/') page(req, res);
    else if (path === explorerPath.slice(0, -1) || path.startsWith(explorerPath)) {
      req.url = url.slice(explorerPath.length - 1) || '/';
      page(req, res);
    } else api(req, res); // Outside the explorer's base path: CKAN's JSON 404, as for any unknown path.
  });
  // Longer than the usual proxy timeouts (60 s), so that a proxy, not this server, closes an idle connection.
  server.keepAliveTimeout = 72_000;
  server.on('clientError', answerClientError);

  return {
    server,
    listen: ({ port, host }) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shown}:${address.port}`);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        front?.passThrough.close();
        if (!server.listening) {
          resolve();
          return;
        }
        // Idle keep-alive connections are closed now; busy ones once their answer is sent, or after the grace period.
        const idle = setInterval(() => server.closeIdleConnections(), 100);
        const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        server.close(() => {
          clearInterval(idle);
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
