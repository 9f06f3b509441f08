// Builds the HTTP application from its services without listening. API paths (`/api/…`, `/datastore/dump/…`,
// `/healthz`) are answered by the request core on node:http directly; everything else (the pages) by Fastify.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { constants as zlib } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { createActions } from './actions/registry.js';
import { COUNT_CENTRE_VERSION } from './actions/catalog-actions.js';
import { dumpParamSpecs } from './actions/datastore-dump.js';
import type { ServiceLease, Services, ServiceState } from './actions/types.js';
import { errors } from './errors.js';
import { decodeSegment, isApiPath } from './http/api-routes.js';
import { COMPRESSION_THRESHOLD } from './http/compression.js';
import { createApiCore, JSON_CONTENT_TYPE } from './http/core.js';
import { errorEnvelope, helpUrl } from './http/envelope.js';
import { ApiMetrics } from './http/metrics.js';
import { createNodeAdapter } from './http/node-adapter.js';
import { openApiDocument } from './http/openapi.js';
import { ResponseCache } from './http/response-cache.js';
import { registerWebRoutes } from './web/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The version of the data this request reads, held until its answer is sent. */
    lease: ServiceLease;
  }
}

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
export async function buildApp(source: ServiceState | Services, logger: Logger): Promise<FastifyInstance> {
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
  const api = createNodeAdapter({ core, logger, bodyLimit: BODY_LIMIT_BYTES, requestLogLevel: settings.requestLogLevel, metrics, cacheControl: settings.cacheControl,
    onCompressed: (entry, bytes) => cache.grew(entry, bytes),
  });

  const app = Fastify({
    serverFactory: (handler) => {
      const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
        const url = req.url ?? '/';
        const at = url.indexOf('?');
        if (isApiPath(at === -1 ? url : url.slice(0, at))) api(req, res);
        else handler(req, res);
      });
      // Fastify's own default: keep idle connections longer than the usual proxy timeouts (60 s).
      server.keepAliveTimeout = 72_000;
      server.on('clientError', answerClientError);
      return server;
    },
    // pino's Logger is what Fastify wraps; its type is narrower than Fastify's logger interface.
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Long path segments are names that do not exist: answered as such, not by a framework error.
    routerOptions: { maxParamLength: 10_000 },
    frameworkErrors: (_error, request, reply) => {
      const help = helpUrl(settings.siteUrl ?? `${request.protocol}://${request.host}`, settings.locale, 'help_show');
      const envelope = errorEnvelope(help, errors.notFound(`No page at ${decodeSegment(request.url.split('?')[0]!)}`));
      void (reply as FastifyReply).code(envelope.status).type(JSON_CONTENT_TYPE).send(envelope.body);
    },
  });

  await app.register(fastifyCompress, {
    threshold: COMPRESSION_THRESHOLD,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } },
    // Pages take no compressed uploads; the API reads its own bodies, within bounds.
    globalDecompression: false,
  });

  app.decorateRequest('lease', null as unknown as ServiceLease);
  app.addHook('onRequest', async (request, reply) => {
    request.lease = state.acquire();
    // 'close' follows the end of every response, complete or cut short; releasing twice is harmless.
    reply.raw.once('close', () => request.lease.release());
  });

  registerWebRoutes(app, state, actions);

  app.setNotFoundHandler((request, reply) => {
    const help = helpUrl(settings.siteUrl ?? `${request.protocol}://${request.host}`, settings.locale, 'help_show');
    const envelope = errorEnvelope(help, errors.notFound(`No page at ${request.url.split('?')[0]}`));
    return reply.code(envelope.status).header('cache-control', settings.cacheControl).type(JSON_CONTENT_TYPE).send(envelope.body);
  });

  app.setErrorHandler((error, request, reply) => {
    request.log.error({ err: error, url: request.url }, 'unexpected failure');
    const help = helpUrl(settings.siteUrl ?? `${request.protocol}://${request.host}`, settings.locale, 'help_show');
    const envelope = errorEnvelope(help, errors.internal());
    return reply.code(envelope.status).type(JSON_CONTENT_TYPE).send(envelope.body);
  });

  return app;
}
