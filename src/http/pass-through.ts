// In front of a portal, beside the API's routes: which requests the copy answers (the request core) and which go to
// the portal (portal/pass-through.ts), and the node:http side of passing one on: the portal's answer written as it
// streams in, with Server-Timing saying where it came from, or CKAN's error envelope when the portal did not answer.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { errors, toApiError } from '../errors.js';
import type { PassThrough } from '../portal/pass-through.js';
import { durationText } from '../util/timing.js';
import { routeApi } from './api-routes.js';
import { JSON_CONTENT_TYPE } from './core.js';
import { errorEnvelope } from './envelope.js';
import type { ApiMetrics } from './metrics.js';

/** The actions answered from the copy in front of a portal; a resource the copy does not hold goes to the portal. */
export const COPY_ACTIONS: ReadonlySet<string> = new Set([
  'datastore_search',
  'datastore_search_sql',
  'datastore_info',
]);

/** Who answers a path in front of a portal: the request core (from the copy), the explorer's pages, or the portal. */
export function frontRoute(path: string, explorerPath: string): 'api' | 'pages' | 'portal' {
  if (explorerPath !== '/' && (path === explorerPath.slice(0, -1) || path.startsWith(explorerPath))) return 'pages';
  const route = routeApi(path);
  switch (route.kind) {
    case 'version':
    case 'openapi':
    case 'health':
    case 'metrics':
    case 'dump':
      return 'api';
    case 'action':
      return COPY_ACTIONS.has(route.name) ? 'api' : 'portal';
    case 'none':
      return 'portal';
  }
}

export type Forward = (req: IncomingMessage, res: ServerResponse, body?: string) => void;

/** Passes requests on through `passThrough`, writing each answer and one log line, counting where it came from. */
export function createForward(options: {
  passThrough: PassThrough;
  logger: Logger;
  metrics: ApiMetrics;
  requestLogLevel: string;
}): Forward {
  const { passThrough, logger, metrics } = options;
  // An error of ours is worded as the portal's own: its help link is the portal's.
  const helpLink = `${passThrough.portal.href}api/3/action/help_show?name=help_show`;
  const help = (_req: IncomingMessage) => helpLink;
  const level = options.requestLogLevel as 'info';
  const logging = logger.isLevelEnabled(level);

  return (req, res, body) => {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = req.url ?? '/';
    let status = 0;
    let bytes = 0;
    const finish = (source: string, portalMs: number | null) => {
      const seconds = (performance.now() - started) / 1000;
      metrics.observe('pass-through', status, seconds);
      metrics.answeredFrom(source, portalMs === null ? null : portalMs / 1000);
      if (logging)
        logger[level](
          { method, url, status, ms: Math.round(seconds * 10000) / 10, bytes, action: 'pass-through', source },
          'request',
        );
    };
    const run = async () => {
      let answer;
      try {
        answer = await passThrough.forward({
          method,
          url,
          headers: req.headers,
          body: body ?? (method === 'GET' || method === 'HEAD' ? null : req),
          clientAddress: req.socket.remoteAddress,
          secure: (req.socket as { encrypted?: boolean }).encrypted === true,
        });
      } catch (err) {
        const apiError = toApiError(err, (unexpected) =>
          logger.error({ err: unexpected, method, url }, 'could not pass the request to the portal'),
        );
        const envelope = errorEnvelope(help(req), apiError);
        status = envelope.status;
        const text = envelope.body;
        bytes = Buffer.byteLength(text);
        const headers: Record<string, string> = {
          'content-type': JSON_CONTENT_TYPE,
          'cache-control': 'no-store',
          'access-control-allow-origin': '*',
          'content-length': String(bytes),
          'server-timing': `origin;desc="portal", total;dur=${durationText(performance.now() - started)}`,
        };
        // A body that was refused is not read: the connection closes after the answer.
        if (status === 413) headers.connection = 'close';
        res.writeHead(status, headers);
        res.end(method === 'HEAD' ? undefined : text);
        finish('portal', null);
        return;
      }
      status = answer.status;
      const timing = [`origin;desc="${answer.source}"`];
      if (answer.portalMs !== null) timing.push(`portal;dur=${durationText(answer.portalMs)}`);
      timing.push(`total;dur=${durationText(performance.now() - started)}`);
      const headers: Record<string, string | string[]> = { ...answer.headers, 'server-timing': timing.join(', ') };
      if (Buffer.isBuffer(answer.body)) headers['content-length'] = String(answer.body.length);
      res.writeHead(answer.status, headers);
      if (answer.body === null) res.end();
      else if (Buffer.isBuffer(answer.body)) {
        bytes = answer.body.length;
        res.end(answer.body);
      } else {
        const stream = answer.body;
        stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
        await pipeline(stream as Readable, res);
      }
      finish(answer.source, answer.portalMs);
    };
    run().catch((err: unknown) => {
      // The portal broke off part way, or the client went away: the answer cannot be mended, only ended.
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': JSON_CONTENT_TYPE, 'access-control-allow-origin': '*' });
        res.end(errorEnvelope(help(req), errors.badGateway('The portal broke off its answer')).body);
      } else res.destroy();
      logger.warn({ err, method, url }, 'a pass-through answer broke off');
      finish('portal', null);
    });
  };
}
