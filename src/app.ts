// Builds the HTTP application from its services without listening, so tests drive it through inject().

import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createActions } from './actions/registry.js';
import type { Services } from './actions/types.js';
import { ApiError, errors } from './errors.js';
import { errorEnvelope, helpUrl } from './http/envelope.js';
import { CACHE_CONTROL, JSON_CONTENT_TYPE, registerActionRoutes, registerDumpRoute, send } from './http/routes.js';

export interface AppOptions extends Services {
  logger: Logger;
}

/** Bodies above this are refused with a 413; CKAN clients send small JSON objects. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { logger, ...services } = options;
  const app = Fastify({
    // pino's Logger is what Fastify wraps; its type is narrower than Fastify's logger interface.
    loggerInstance: logger as FastifyBaseLogger,
    // Per-request lines cost throughput; the onResponse hook below logs failures (and everything at debug).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
  });

  // Bodies are decoded by the action layer (http/decode.ts) so that every malformed body gets CKAN's answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  const actions = createActions(services.settings);
  registerActionRoutes(app, services, actions);
  registerDumpRoute(app, services);

  for (const url of ['/api', '/api/3']) {
    app.get(url, async (_request, reply) => reply.type(JSON_CONTENT_TYPE).header('cache-control', CACHE_CONTROL).send('{"version": 3}'));
  }

  app.setNotFoundHandler((request, reply) => {
    const help = helpUrl(services.settings.siteUrl ?? `${request.protocol}://${request.host}`, services.settings.locale, 'help_show');
    return send(reply, errorEnvelope(help, errors.notFound(`No page at ${request.url.split('?')[0]}`)));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const help = helpUrl(services.settings.siteUrl ?? `${request.protocol}://${request.host}`, services.settings.locale, 'help_show');
    let apiError: ApiError;
    if (error instanceof ApiError) apiError = error;
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
