// The request core on node:http: reads the request (a POST's body within bounds), asks the core for the answer (a
// remembered one first, synchronously), and writes it with the one compression step, respecting back-pressure and
// stopping a streamed answer when the client goes away; it decides nothing about the answer itself. Logs one line per
// request at the configured level. Also answers what Node's parser refuses before any request exists.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { ApiError, errors } from '../errors.js';
import { readBody } from './body.js';
import {
  COMPRESSION_THRESHOLD,
  compressBuffer,
  compressedVariant,
  compressible,
  compressingStream,
  negotiateEncoding,
} from './compression.js';
import { StageTimings } from '../util/timing.js';
import { CacheMiss, JSON_CONTENT_TYPE, type ApiCore, type ApiResponse } from './core.js';
import { byteLength, type CachedResponse } from './response-cache.js';
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
  /** Called when a compressed form of a remembered answer is made, so the cache counts its bytes. */
  onCompressed?(entry: CachedResponse, bytes: number): void;
  /**
   * In front of a portal: passes on a request whose answer says `forward` (the copy does not hold it), with the body
   * already read; and every other answer is counted as the copy's.
   */
  forward?(req: IncomingMessage, res: ServerResponse, body?: string): void;
}

export function createNodeAdapter(options: NodeAdapterOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { core, logger, bodyLimit, metrics } = options;
  const level = options.requestLogLevel as 'info';
  const logging = logger.isLevelEnabled(level);

  const logLine = (method: string, url: string, status: number, started: number, bytes: number, action: string) => {
    const ms = performance.now() - started;
    metrics.observe(action, status, ms / 1000);
    if (options.forward) metrics.answeredFrom('copy');
    if (logging)
      logger[level](
        { method, url, status, ms: Math.round(ms * 10) / 10, bytes, action: action || undefined },
        'request',
      );
  };

  /**
   * A finished body (text or bytes), compressed when it is worth it: a remembered answer's compressed form is made once
   * and kept on its entry, and is what a HEAD of it announces too. Returns the bytes sent, or a promise of them when a
   * compressed form has first to be made.
   */
  function writeWhole(
    req: IncomingMessage,
    res: ServerResponse,
    response: ApiResponse,
    body: string | Buffer,
  ): number | Promise<number> {
    const head = req.method === 'HEAD';
    const { entry } = response;
    const length = byteLength(body);
    const worth = length >= COMPRESSION_THRESHOLD && compressible(response.headers['content-type']);
    const encoding = worth ? negotiateEncoding(req.headers['accept-encoding']) : 'identity';
    const send = (sent: string | Buffer, compressed: boolean): number => {
      // writeHead takes a flat list of names and values with less work than an object.
      const headers: string[] = [];
      for (const name in response.headers) headers.push(name, response.headers[name]!);
      if (worth) headers.push('vary', 'accept-encoding');
      if (compressed) headers.push('content-encoding', encoding);
      const sentLength = compressed ? byteLength(sent) : length;
      headers.push('content-length', String(sentLength));
      res.writeHead(response.status, headers);
      if (head) res.end();
      // Text that is all ASCII (as many bytes as characters) is the same bytes in Latin-1, which the socket copies
      // rather than encodes: a few microseconds per answer of some kilobytes.
      else if (typeof sent === 'string' && sentLength === sent.length) res.end(sent, 'latin1');
      else res.end(sent);
      return head ? 0 : sentLength;
    };
    // Text sent as is is encoded once, by the socket's write, together with the headers: no buffer of its own.
    if (encoding === 'identity' || (head && !entry)) return send(body, false);
    if (!entry) return compressBuffer(body, encoding).then((sent) => send(sent, true));
    const ready = entry.compressed?.[encoding];
    if (ready) return send(ready, true);
    return compressedVariant(entry, encoding, options.onCompressed).then((sent) => send(sent, true));
  }

  async function write(req: IncomingMessage, res: ServerResponse, response: ApiResponse): Promise<number> {
    const { body } = response;
    if (body === null) {
      res.writeHead(response.status, response.headers);
      res.end();
      return 0;
    }
    if (typeof body === 'string' || Buffer.isBuffer(body)) return writeWhole(req, res, response, body);
    const contentType = response.headers['content-type'];
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
    const found = core.remembered(method, url, origin, req.headers, started);
    if (found !== null && !(found instanceof CacheMiss)) {
      const sent =
        found.body === null ? write(req, res, found) : writeWhole(req, res, found, found.body as string | Buffer);
      if (typeof sent === 'number') logLine(method, url, found.status, started, sent, found.action);
      else {
        sent.then(
          (bytes) => logLine(method, url, found.status, started, bytes, found.action),
          (err: unknown) => {
            logger.error({ err, method, url }, 'could not send the answer');
            res.destroy();
          },
        );
      }
      return;
    }
    const missed = found ?? undefined;
    const timing = new StageTimings(started);
    let response: ApiResponse | null = null;
    res.once('close', () => response?.done());
    const answer = async (): Promise<number | null> => {
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
      if (response.forward && options.forward) {
        response.done();
        options.forward(req, res, body);
        return null;
      }
      return write(req, res, response);
    };
    answer().then(
      (bytes) => {
        if (bytes !== null) logLine(method, url, res.statusCode, started, bytes, response?.action ?? '');
      },
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

/** What Node's HTTP parser refused before any handler saw it, answered as CKAN answers a bad request: a bare string. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (err as { code?: string }).code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(
    tooLarge
      ? 'Bad request - the request line and headers are larger than 16 KB'
      : 'Bad request - malformed HTTP request',
  );
  // An answer to HEAD has no body, and its client would read one as the start of a broken next answer. The packet
  // the parser stopped in starts with the method only when the request came in one piece: a request line longer than
  // a packet (a 20 KB URL) ends in a later one, and then the answer goes without its body, which any client reads.
  const start = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 8).toString('latin1') ?? '';
  const method = /^([A-Z]+) /.exec(start)?.[1];
  const withBody = method !== undefined && method !== 'HEAD';
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${withBody ? Buffer.byteLength(body) : 0}\r\nAccess-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n${withBody ? body : ''}`,
  );
}
