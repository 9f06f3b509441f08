// The one compression step of every API answer: brotli or gzip as the client accepts, for bodies worth compressing.
// Finished bodies are compressed off the event loop (and a remembered answer's compressed forms are made once);
// streamed bodies (dumps) go through a compressing stream.

import { promisify } from 'node:util';
import {
  brotliCompress,
  constants as zlib,
  createBrotliCompress,
  createGzip,
  gzip,
  type BrotliOptions,
} from 'node:zlib';
import type { Transform } from 'node:stream';
import { bodyBytes, type CachedResponse } from './response-cache.js';

/** Bodies below this are sent as they are: the headers would cost more than the bytes saved. */
export const COMPRESSION_THRESHOLD = 1024;

export type Encoding = 'br' | 'gzip' | 'identity';

/** Brotli's default quality (11) costs far more CPU than it saves bytes on the fly; 5 is the usual trade-off. */
const brotliOptions = (sizeHint?: number): BrotliOptions => ({
  params: { [zlib.BROTLI_PARAM_QUALITY]: 5, ...(sizeHint ? { [zlib.BROTLI_PARAM_SIZE_HINT]: sizeHint } : {}) },
});

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * The encoding to send for an Accept-Encoding header (RFC 9110 §12.5.3): the acceptable one with the highest weight,
 * brotli before gzip on a tie, `*` standing for any not named; identity when neither is acceptable.
 */
export function negotiateEncoding(header: string | undefined): Encoding {
  if (!header) return 'identity';
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    weights.set(token, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (encoding: string) => weights.get(encoding) ?? weights.get('*') ?? 0;
  let best: Encoding = 'identity';
  let bestWeight = 0;
  for (const encoding of ['br', 'gzip'] as const) {
    const weight = weightOf(encoding);
    if (weight > bestWeight) [best, bestWeight] = [encoding, weight];
  }
  // Identity competes only when the client weighs it; otherwise any acceptable compression is preferred.
  return bestWeight > 0 && bestWeight >= (weights.get('identity') ?? 0) ? best : 'identity';
}

/** Whether a content type is text that compresses well (JSON, JavaScript, CSV, TSV, XML). */
export function compressible(contentType: string | undefined): boolean {
  return !!contentType && /^(application\/(json|javascript|x-ndjson|xml)|text\/)/.test(contentType);
}

export function compressBuffer(body: Buffer | string, encoding: 'br' | 'gzip'): Promise<Buffer> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return encoding === 'br' ? brotliAsync(bytes, brotliOptions(bytes.length)) : gzipAsync(bytes);
}

/**
 * A remembered answer's compressed form, made on first demand and kept with it (`made` is told its size once, so the
 * cache can count it).
 */
export function compressedVariant(
  entry: CachedResponse,
  encoding: 'br' | 'gzip',
  made?: (entry: CachedResponse, bytes: number) => void,
): Promise<Buffer> {
  const variants = (entry.variants ??= {});
  return (variants[encoding] ??= compressBuffer(bodyBytes(entry), encoding).then((body) => {
    (entry.compressed ??= {})[encoding] = body;
    made?.(entry, body.length);
    return body;
  }));
}

export function compressingStream(encoding: 'br' | 'gzip'): Transform {
  return encoding === 'br' ? createBrotliCompress(brotliOptions()) : createGzip();
}
