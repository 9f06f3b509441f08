// The request core on node:http: reads the request (a POST's body within bounds), asks the core for the answer, and
// writes it with the one compression step, respecting back-pressure and stopping a streamed answer when the client goes
// away. Logs one line per request at the configured level.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { ApiError, errors } from '../errors.js';
import { readBody } from './body.js';
import { COMPRESSION_THRESHOLD, compressBuffer, compressedVariant, compressible, compressingStream, negotiateEncoding } from './compression.js';
import { durationText, StageTimings } from '../actions/timing.js';
import { CacheMiss, JSON_CONTENT_TYPE, type ApiCore, type ApiResponse } from './core.js';
import { bodyBytes, byteLength, type CachedResponse } from './response-cache.js';
import { ifNoneMatchHits } from './caching.js';
import type { ApiMetrics } from './metrics.js';
import { errorEnvelope } from './envelope.js';

export interface NodeAdapterOptions {
  core: ApiCore;
  logger: Logger;
  /** Largest request body accepted, as sent and once decompressed. */
  bodyLimit: number;
  /** Level of the one log line per request. */
  requestLogLevel: string;
  metrics: ApiMetrics;
  /** The Cache-Control of every API answer. */
  cacheControl: string;
  /** Called when a compressed form of a remembered answer is made, so the cache counts its bytes. */
  onCompressed?(entry: CachedResponse, bytes: number): void;
}

export function createNodeAdapter(options: NodeAdapterOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { core, logger, bodyLimit, metrics, cacheControl } = options;
  const level = options.requestLogLevel as 'info';
  const logging = logger.isLevelEnabled(level);

  const logLine = (method: string, url: string, status: number, started: number, bytes: number, action: string) => {
    const ms = performance.now() - started;
    metrics.observe(action, status, ms / 1000);
    if (logging) logger[level]({ method, url, status, ms: Math.round(ms * 10) / 10, bytes, action: action || undefined }, 'request');
  };

  /** An entry's headers for one encoding, as writeHead's flat list, made once. */
  const headsOf = (entry: CachedResponse, encoding: 'br' | 'gzip' | 'identity', length: number, worth: boolean): string[] => {
    const heads = (entry.heads ??= {});
    return (heads[encoding] ??= [
      'access-control-allow-origin', '*', 'etag', entry.tag, 'content-type', entry.contentType, 'cache-control', cacheControl,
      ...(worth ? ['vary', 'accept-encoding'] : []), ...(encoding !== 'identity' ? ['content-encoding', encoding] : []), 'content-length', String(length),
    ]);
  };

  /**
   * A remembered answer, sent with its headers made once per encoding: a repeated request costs little more than the
   * HTTP exchange itself. Server-Timing says it came from memory. Returns the bytes sent, or a promise of them when a
   * compressed form has first to be made.
   */
  function sendRemembered(req: IncomingMessage, res: ServerResponse, entry: CachedResponse, started: number): number | Promise<number> {
    const { 'if-none-match': ifNoneMatch, 'accept-encoding': acceptEncoding } = req.headers;
    const timing = (how: string) => `cache;desc="${how}", total;dur=${durationText(performance.now() - started)}`;
    if (ifNoneMatch !== undefined && ifNoneMatchHits(ifNoneMatch, entry.tag)) {
      res.writeHead(304, ['access-control-allow-origin', '*', 'etag', entry.tag, 'cache-control', cacheControl, 'vary', 'accept-encoding',
        'server-timing', timing('revalidated')]);
      res.end();
      return 0;
    }
    const worth = byteLength(entry.body) >= COMPRESSION_THRESHOLD && compressible(entry.contentType);
    const encoding = worth && acceptEncoding !== undefined ? negotiateEncoding(acceptEncoding) : 'identity';
    const send = (body: Buffer) => {
      const head = headsOf(entry, encoding, body.length, worth);
      res.writeHead(entry.status, head.concat('server-timing', timing('hit')));
      const onlyHeaders = req.method === 'HEAD';
      res.end(onlyHeaders ? undefined : body);
      return onlyHeaders ? 0 : body.length;
    };
    if (encoding === 'identity') return send(bodyBytes(entry));
    const ready = entry.compressed?.[encoding];
    if (ready) return send(ready);
    return compressedVariant(entry, encoding, options.onCompressed).then(send);
  }

  async function write(req: IncomingMessage, res: ServerResponse, response: ApiResponse): Promise<number> {
    const head = req.method === 'HEAD';
    const { body } = response;
    if (body === null) {
      res.writeHead(response.status, response.headers);
      res.end();
      return 0;
    }
    const contentType = response.headers['content-type'];
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      const length = byteLength(body);
      const worth = length >= COMPRESSION_THRESHOLD && compressible(contentType);
      const encoding = worth ? negotiateEncoding(req.headers['accept-encoding']) : 'identity';
      // Text sent as is is encoded once, by the socket's write, together with the headers: no buffer of its own.
      let sent: string | Buffer = body;
      if (encoding !== 'identity' && !head) {
        sent = response.entry ? await compressedVariant(response.entry, encoding, options.onCompressed) : await compressBuffer(body, encoding);
      }
      // writeHead takes a flat list of names and values with less work than an object.
      const headers: string[] = [];
      for (const name in response.headers) headers.push(name, response.headers[name]!);
      if (worth) headers.push('vary', 'accept-encoding');
      if (sent !== body) headers.push('content-encoding', encoding);
      const sentLength = sent === body ? length : sent.length;
      headers.push('content-length', String(sentLength));
      res.writeHead(response.status, headers);
      if (head) res.end();
      // Text that is all ASCII (as many bytes as characters) is the same bytes in Latin-1, which the socket copies
      // rather than encodes: a few microseconds per answer of some kilobytes.
      else if (typeof sent === 'string' && sentLength === sent.length) res.end(sent, 'latin1');
      else res.end(sent);
      return head ? 0 : sentLength;
    }
    const headers: Record<string, string> = { ...response.headers };
    // A stream: compressed as it goes when the client accepts it.
    const encoding = compressible(contentType) ? negotiateEncoding(req.headers['accept-encoding']) : 'identity';
    if (compressible(contentType)) headers.vary = 'accept-encoding';
    if (encoding !== 'identity') headers['content-encoding'] = encoding;
    res.writeHead(response.status, headers);
    let bytes = 0;
    const source = Readable.from(body, { objectMode: false });
    source.on('data', (chunk: Buffer | string) => {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    });
    // pipeline ends the generator when the client goes away (which closes the store's stream) and ends the response.
    if (encoding === 'identity') await pipeline(source, res);
    else await pipeline(source, compressingStream(encoding), res);
    return bytes;
  }

  return (req, res) => {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = req.url ?? '/';
    // Node has built req.headers already (it reads Host and Expect itself), so reading it costs nothing more.
    const origin = `${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${req.headers.host ?? ''}`;
    const found = core.remembered(method, url, origin);
    if (found !== null && !(found instanceof CacheMiss)) {
      const entry = found;
      const sent = sendRemembered(req, res, entry, started);
      if (typeof sent === 'number') logLine(method, url, entry.status, started, sent, entry.action ?? '');
      else {
        sent.then((bytes) => logLine(method, url, entry.status, started, bytes, entry.action ?? ''), (err: unknown) => {
          logger.error({ err, method, url }, 'could not send the answer');
          res.destroy();
        });
      }
      return;
    }
    const missed = found ?? undefined;
    const timing = new StageTimings(started);
    let response: ApiResponse | null = null;
    res.once('close', () => response?.done());
    const answer = async (): Promise<number> => {
      let body: string | undefined;
      let bodyError: ApiError | undefined;
      if (method === 'POST') {
        try {
          body = await readBody(req, bodyLimit);
        } catch (err) {
          bodyError = err instanceof ApiError ? err : errors.badRequest('the body could not be read');
        }
      }
      response = await core({ method, url, headers: req.headers, origin, body, bodyError, timing, missed });
      return write(req, res, response);
    };
    answer().then(
      (bytes) => logLine(method, url, res.statusCode, started, bytes, response?.action ?? ''),
      (err: unknown) => {
        // A client that went away mid-stream is not a failure of ours.
        if (res.destroyed || (err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
        logger.error({ err, method, url }, 'could not send the answer');
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': JSON_CONTENT_TYPE, 'access-control-allow-origin': '*' });
          res.end(errorEnvelope(null, errors.internal()).body);
        } else res.destroy();
      },
    );
  };
}
