// Builds the HTTP application from its services without listening, so tests drive it through inject().

import { createServer } from 'node:http';
import { constants as zlib } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import fastifyCors from '@fastify/cors';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { createActions } from './actions/registry.js';
import type { Services } from './actions/types.js';
import { ApiError, errors } from './errors.js';
import { StatementTimeout, StoreUnavailable } from './storage/backend.js';
import { entityTag, ifNoneMatchHits } from './http/caching.js';
import { COMPRESSION_THRESHOLD, createFastPath } from './http/fast-path.js';
import { cacheKey, ResponseCache } from './http/response-cache.js';
import { errorEnvelope, helpUrl } from './http/envelope.js';
import { openApiDocument } from './http/openapi.js';
import { COUNT_CENTRE_VERSION } from './actions/catalog-actions.js';
import { dumpParamSpecs } from './actions/datastore-dump.js';
import { JSON_CONTENT_TYPE, registerActionRoutes, registerDumpRoute, send } from './http/routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answers depend only on the request and the loaded data: they get an ETag and honour If-None-Match. */
    cacheable?: boolean;
  }
}

/** Bodies above this are refused with a 413; CKAN clients send small JSON objects. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * `services` is kept by reference, not copied: a reload swaps `services.catalog` (see bootstrap), and every request
 * must see the catalogue that matches the data the backend now serves.
 */
export async function buildApp(services: Services, logger: Logger): Promise<FastifyInstance> {
  const { settings, backend } = services;
  const responses = new ResponseCache(settings.responseCacheMb * 1024 * 1024);
  const hostShapesAnswer = settings.siteUrl === null;
  const fastPath = createFastPath({ cache: responses, cacheControl: settings.cacheControl, datasetVersion: () => backend.datasetVersion, hostShapesAnswer });
  const app = Fastify({
    // Repeated GETs are answered from the response cache before Fastify sees them; the rest take the full path.
    serverFactory: (handler) => {
      const server = createServer((req, res) => {
        if (!fastPath(req, res)) handler(req, res);
      });
      // Fastify's own default: keep idle connections longer than the usual proxy timeouts (60 s).
      server.keepAliveTimeout = 72_000;
      return server;
    },
    // pino's Logger is what Fastify wraps; its type is narrower than Fastify's logger interface.
    loggerInstance: logger as FastifyBaseLogger,
    // Per-request lines cost throughput; the onResponse hook below logs failures (and everything at debug).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
  });

  // Any page may call the API from the browser, as from a CKAN portal; nothing here depends on credentials.
  await app.register(fastifyCors, { origin: '*', methods: ['GET', 'HEAD', 'POST', 'OPTIONS'], maxAge: 86400 });
  // Brotli's default quality (11) costs far more CPU than it saves bytes on the fly; 5 is the usual trade-off.
  await app.register(fastifyCompress, {
    threshold: COMPRESSION_THRESHOLD,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } },
  });

  /** What names an answer; a POST's depends on its body too. */
  const keyOf = (request: FastifyRequest) => cacheKey(
    backend.datasetVersion, request.method, request.url, hostShapesAnswer ? `${request.protocol}://${request.host}` : null,
    typeof request.body === 'string' ? `${request.headers['content-type'] ?? ''}\n${request.body}` : undefined,
  );
  const pending = new WeakMap<object, { key: string; tag: string }>();

  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config.cacheable) return;
    const key = keyOf(request);
    const hit = responses.get(key);
    if (hit) {
      reply.header('etag', hit.tag);
      if (ifNoneMatchHits(request.headers['if-none-match'], hit.tag)) return reply.code(304).send();
      return reply.code(hit.status).type(hit.contentType).send(hit.body);
    }
    const tag = entityTag(backend.datasetVersion, request, hostShapesAnswer);
    reply.header('etag', tag);
    if ((request.method === 'GET' || request.method === 'HEAD') && ifNoneMatchHits(request.headers['if-none-match'], tag)) {
      return reply.code(304).send();
    }
    pending.set(request, { key, tag });
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', settings.cacheControl);
    // A failure is not the answer to the request: it must not be revalidated as if it were.
    if (reply.statusCode >= 500) reply.removeHeader('etag');
    // The answer could have been compressed, so caches must key it on Accept-Encoding (the fast path says so too).
    const size = typeof payload === 'string' ? Buffer.byteLength(payload) : Buffer.isBuffer(payload) ? payload.length : Infinity;
    if (size >= COMPRESSION_THRESHOLD && !reply.hasHeader('vary')) reply.header('vary', 'accept-encoding');
    // Keep successful, complete answers (not streams) for the next identical request.
    const entry = pending.get(request);
    if (entry && reply.statusCode === 200 && request.method !== 'HEAD' && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
      responses.set(entry.key, { status: 200, contentType: String(reply.getHeader('content-type')), tag: entry.tag, body });
    }
    return payload;
  });

  // Bodies are decoded by the action layer (http/decode.ts) so that every malformed body gets CKAN's answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  const actions = createActions(settings);
  registerActionRoutes(app, services, actions);
  registerDumpRoute(app, services);

  const dumpParams = dumpParamSpecs(settings);
  for (const url of ['/api/3/openapi.json', '/api/openapi.json']) {
    app.get(url, { config: { cacheable: true } }, async (request, reply) => {
      const siteUrl = settings.siteUrl ?? `${request.protocol}://${request.host}`;
      return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify(openApiDocument({ siteUrl, version: COUNT_CENTRE_VERSION, actions, dumpParams })));
    });
  }

  for (const url of ['/api', '/api/3']) {
    app.get(url, { config: { cacheable: true } }, async (_request, reply) => reply.type(JSON_CONTENT_TYPE).send('{"version": 3}'));
  }

  // For load balancers and orchestrators: 200 while the store answers, 503 when it does not.
  app.get('/healthz', async (_request, reply) => {
    const health = await backend.health();
    return reply
      .code(health.ok ? 200 : 503)
      .header('cache-control', 'no-store')
      .type(JSON_CONTENT_TYPE)
      .send(JSON.stringify({ status: health.ok ? 'ok' : 'unavailable', store: backend.dialect, dataset_version: backend.datasetVersion, detail: health.detail }));
  });

  app.setNotFoundHandler((request, reply) => {
    const help = helpUrl(settings.siteUrl ?? `${request.protocol}://${request.host}`, settings.locale, 'help_show');
    return send(reply, errorEnvelope(help, errors.notFound(`No page at ${request.url.split('?')[0]}`)));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const help = helpUrl(settings.siteUrl ?? `${request.protocol}://${request.host}`, settings.locale, 'help_show');
    let apiError: ApiError;
    if (error instanceof ApiError) apiError = error;
    else if (error instanceof StoreUnavailable) {
      request.log.warn({ detail: error.detail, url: request.url }, 'store unavailable');
      apiError = errors.unavailable('The data store cannot be reached at the moment; please try again shortly.');
    } else if (error instanceof StatementTimeout) apiError = errors.queryTimeout();
    else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') apiError = errors.payloadTooLarge(BODY_LIMIT_BYTES);
    else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) apiError = errors.badRequest(error.message);
    else {
      request.log.error({ err: error, url: request.url }, 'unexpected failure');
      apiError = errors.internal();
    }
    return send(reply, errorEnvelope(help, apiError));
  });

  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode >= 500) request.log.error({ url: request.url, status: reply.statusCode }, 'request failed');
    else request.log.debug({ method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request');
  });

  return app;
}
