// Answers a repeated GET from the response cache directly on the HTTP server, before the framework sees it: the
// same status, headers and bytes the full path gave the first time, in a fraction of the work. Anything it is not
// sure of (a POST, an unusual Accept-Encoding, a miss) goes to the full path.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { ifNoneMatchHits } from './caching.js';
import { cacheKey, type CachedResponse, type ResponseCache } from './response-cache.js';

/** Bodies below this are sent as they are, as the compression plugin does. */
export const COMPRESSION_THRESHOLD = 1024;

type Encoding = 'br' | 'gzip' | 'identity';

/**
 * The encoding to send for an Accept-Encoding header, preferring brotli then gzip, or null when the header says
 * something this path does not handle (then the full path negotiates).
 */
export function negotiateEncoding(header: string | undefined): Encoding | null {
  if (!header) return 'identity';
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(token, q === undefined ? 1 : Number(q));
  }
  if (accepted.has('*') || (accepted.get('identity') ?? 1) === 0) return null;
  for (const encoding of ['br', 'gzip'] as const) if ((accepted.get(encoding) ?? 0) > 0) return encoding;
  return 'identity';
}

/** Compressed forms are made once per answer, on first demand, and kept with it. */
function variant(entry: CachedResponse, encoding: 'br' | 'gzip'): Buffer {
  const variants = (entry.variants ??= {});
  return (variants[encoding] ??= encoding === 'br'
    ? brotliCompressSync(entry.body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: entry.body.length } })
    : gzipSync(entry.body));
}

export interface FastPathOptions {
  cache: ResponseCache;
  cacheControl: string;
  datasetVersion: () => string;
  /** When `help` links come from the request's host, the host is part of what names an answer. */
  hostShapesAnswer: boolean;
}

/** Returns true when it answered the request. */
export function createFastPath(options: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { cache } = options;
  return (req, res) => {
    if (!cache.enabled || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const host = options.hostShapesAnswer ? `http://${req.headers.host ?? ''}` : null;
    const entry = cache.get(cacheKey(options.datasetVersion(), 'GET', req.url ?? '', host));
    if (!entry) return false;
    const compressible = entry.body.length >= COMPRESSION_THRESHOLD;
    const encoding = compressible ? negotiateEncoding(req.headers['accept-encoding']) : 'identity';
    if (encoding === null) return false;
    const headers: Record<string, string | number> = {
      'access-control-allow-origin': '*',
      etag: entry.tag,
      'content-type': entry.contentType,
      'cache-control': options.cacheControl,
    };
    if (compressible) headers.vary = 'accept-encoding';
    if (ifNoneMatchHits(req.headers['if-none-match'], entry.tag)) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    const body = encoding === 'identity' ? entry.body : variant(entry, encoding);
    if (encoding !== 'identity') headers['content-encoding'] = encoding;
    headers['content-length'] = body.length;
    res.writeHead(entry.status, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
