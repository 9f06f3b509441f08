// The action routes: /api/3/action/<name> and /api/action/<name>, also under a /<locale> prefix, for GET
// and POST. Decodes the request, runs the action, and writes CKAN's envelope (JSONP-wrapped when asked).

import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { prepareDump } from '../actions/datastore-dump.js';
import type { Action, Services } from '../actions/types.js';
import { ApiError, errors } from '../errors.js';
import { decodeRequest } from './decode.js';
import { errorEnvelope, helpUrl, successEnvelope, type EnvelopeResponse } from './envelope.js';

export const JSON_CONTENT_TYPE = 'application/json;charset=utf-8';
const JSONP_CONTENT_TYPE = 'application/javascript;charset=utf-8';

interface ActionRouteParams {
  action: string;
  locale?: string;
}

function splitUrl(url: string): { path: string; query: string } {
  const at = url.indexOf('?');
  return at === -1 ? { path: url, query: '' } : { path: url.slice(0, at), query: url.slice(at + 1) };
}

function siteUrlOf(request: FastifyRequest, configured: string | null): string {
  return configured ?? `${request.protocol}://${request.host}`;
}

// CKAN escapes these in a JSONP callback name; nothing else is needed for a name inside a script tag.
function escapeCallback(name: string): string {
  return name.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function send(reply: FastifyReply, response: EnvelopeResponse, callback: string | null = null): FastifyReply {
  reply.code(response.status);
  if (callback !== null && response.status === 200) {
    return reply.type(JSONP_CONTENT_TYPE).send(`${escapeCallback(callback)}(${response.body});`);
  }
  return reply.type(JSON_CONTENT_TYPE).send(response.body);
}

export function registerActionRoutes(app: FastifyInstance, services: Services, actions: ReadonlyMap<string, Action>): void {
  const { settings } = services;

  async function handle(request: FastifyRequest<{ Params: ActionRouteParams }>, reply: FastifyReply) {
    const { action: name, locale } = request.params;
    const action = actions.get(name);
    const siteUrl = siteUrlOf(request, settings.siteUrl);
    const help = helpUrl(siteUrl, settings.locale, name);
    let callback: string | null = null;
    try {
      if (!action) throw errors.unknownAction(name);
      const { path, query } = splitUrl(request.url);
      const body = typeof request.body === 'string' ? request.body : undefined;
      const decoded = decodeRequest(request.method, query, request.headers['content-type'], body);
      callback = request.method === 'GET' ? decoded.callback : null;
      const linkPath = locale === undefined ? path : path.slice(locale.length + 1);
      const result = await action.run({ params: decoded.params, path: linkPath, linkQuery: decoded.linkQuery, siteUrl }, services);
      return send(reply, successEnvelope(help, result), callback);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return send(reply, errorEnvelope(action ? help : null, err));
    }
  }

  for (const prefix of ['', '/:locale']) {
    for (const version of ['/api/3', '/api']) {
      app.route({ method: ['GET', 'POST'], url: `${prefix}${version}/action/:action`, handler: handle, config: { cacheable: true } });
    }
  }
}

/** `/datastore/dump/<id>`: the resource's records as a file download, streamed. */
export function registerDumpRoute(app: FastifyInstance, services: Services): void {
  const { settings } = services;

  async function handle(request: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, unknown> }>, reply: FastifyReply) {
    const help = helpUrl(siteUrlOf(request, settings.siteUrl), settings.locale, 'datastore_search');
    let body: AsyncGenerator<string>;
    let dump;
    try {
      dump = prepareDump(request.params.id, request.query, services);
      // HEAD answers with the headers alone, without computing the dump.
      body = request.method === 'HEAD' ? (async function* () {})() : await dump.open();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return send(reply, errorEnvelope(help, err));
    }
    reply
      .code(200)
      .header('content-type', dump.contentType)
      .header('content-disposition', `attachment; filename="${dump.filename}"`);
    if (request.method === 'HEAD') return reply.send();
    // Readable.from returns the generator when the client goes away, which closes the store's stream.
    return reply.send(Readable.from(body));
  }

  app.route({ method: ['GET', 'HEAD'], url: '/datastore/dump/:id', handler: handle, exposeHeadRoute: false, config: { cacheable: true } });
}
