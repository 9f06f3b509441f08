// Builds the HTTP application from its services without listening: one node:http server; API paths (`/api/…`,
// `/datastore/dump/…`, `/healthz`, `/metrics`) go to the request core, everything else to the explorer's pages, and
// one adapter writes both (compression, HEAD, logs, metrics).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import { createActions } from './actions/registry.js';
import { COUNT_CENTRE_VERSION } from './actions/catalog-actions.js';
import { dumpParamSpecs } from './actions/datastore-dump.js';
import type { Services, ServiceState } from './actions/types.js';
import { isApiPath } from './http/api-routes.js';
import { createApiCore, JSON_CONTENT_TYPE } from './http/core.js';
import { ApiMetrics } from './http/metrics.js';
import { createNodeAdapter } from './http/node-adapter.js';
import { openApiDocument } from './http/openapi.js';
import { ResponseCache } from './http/response-cache.js';
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

/** Services that never change version (tests that swap in a failing store). */
function fixedState(services: Services): ServiceState {
  return { current: services, acquire: () => ({ services, release: () => {} }), refresh: async () => false };
}

/** What Node's HTTP parser refused before any handler saw it, answered as CKAN answers a bad request: a bare string. */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (err as { code?: string }).code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(tooLarge ? 'Bad request - the request line and headers are larger than 16 KB' : 'Bad request - malformed HTTP request');
  // An answer to HEAD has no body, and its client would read one as the start of a broken next answer.
  const head = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(`HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
    `Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nAccess-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n${head ? '' : body}`);
}

/**
 * Every request leases the version of the data current when it arrives and reads only that version (records, fields,
 * totals, catalogue, entity tag), however many loads are published while it runs.
 */
export async function buildApp(source: ServiceState | Services, logger: Logger): Promise<App> {
  const state = 'acquire' in source ? source : fixedState(source);
  const { settings } = state.current;
  const actions = createActions(settings);
  const dumpParams = dumpParamSpecs(settings);
  const openApiBySite = new Map<string, string>();
  const cache = new ResponseCache(settings.responseCacheMb * 1024 * 1024);
  const metrics = new ApiMetrics({
    datasetVersion: () => state.current.backend.datasetVersion,
    storeStats: () => state.storeStats?.() ?? {},
    responseCache: () => cache.size,
  });
  const core = createApiCore({
    state, actions, settings, logger, cache, metrics,
    openApi: (siteUrl) => {
      let document = openApiBySite.get(siteUrl);
      if (document === undefined) {
        document = JSON.stringify(openApiDocument({ siteUrl, version: COUNT_CENTRE_VERSION, actions, dumpParams }));
        if (openApiBySite.size < 16) openApiBySite.set(siteUrl, document);
      }
      return document;
    },
  });
  const pages = createPageCore(state, logger);
  const adapterOptions = { logger, bodyLimit: BODY_LIMIT_BYTES, requestLogLevel: settings.requestLogLevel, metrics, cacheControl: settings.cacheControl };
  const api = createNodeAdapter({ ...adapterOptions, core, onCompressed: (entry, bytes) => cache.grew(entry, bytes) });
  // Pages keep their own rendered copies (web/index.ts), so the adapter has nothing remembered to look up for them.
  const page = createNodeAdapter({ ...adapterOptions, core: Object.assign(pages, { remembered: () => null }), onCompressed: pages.compressed });

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const at = url.indexOf('?');
    if (isApiPath(at === -1 ? url : url.slice(0, at))) api(req, res);
    else page(req, res);
  });
  // Longer than the usual proxy timeouts (60 s), so that a proxy, not this server, closes an idle connection.
  server.keepAliveTimeout = 72_000;
  server.on('clientError', answerClientError);

  return {
    server,
    listen: ({ port, host }) => new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const address = server.address() as AddressInfo;
        const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
        resolve(`http://${shown}:${address.port}`);
      });
    }),
    close: () => new Promise((resolve) => {
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
