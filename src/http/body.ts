// Reads a request body within bounds, before any of it is parsed: a declared length over the limit is refused before a
// byte is read, a body is read only up to the limit, and a compressed one (gzip, deflate, br) is decompressed only up
// to
// the limit too, so a small "zip bomb" costs no more than an honest body of the same limit.

import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate, type Gunzip } from 'node:zlib';
import { errors } from '../errors.js';

type Decompressor = Gunzip | ReturnType<typeof createBrotliDecompress> | ReturnType<typeof createInflate>;

function decompressorFor(encoding: string): Decompressor | null | undefined {
  switch (encoding) {
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** Collects a stream's bytes, failing with `tooLarge` as soon as they pass `limit` (and stopping the stream). */
function collect(
  stream: NodeJS.ReadableStream & { destroy(): void },
  limit: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stream.destroy();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks, size)));
    stream.on('error', reject);
  });
}

/** The body as text (UTF-8), at most `limit` bytes as sent and as decompressed; throws CKAN's 413 or 400. */
export async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw errors.payloadTooLarge(limit);
  const encoding = String(request.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decompressor = decompressorFor(encoding);
  if (decompressor === undefined)
    throw errors.badRequest(`unsupported Content-Encoding "${encoding}"; send gzip, deflate, br or identity`);
  if (decompressor === null)
    return (await collect(request, limit, () => errors.payloadTooLarge(limit))).toString('utf8');
  let received = 0;
  request.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) decompressor.destroy(errors.payloadTooLarge(limit));
  });
  request.pipe(decompressor);
  try {
    return (await collect(decompressor, limit, () => errors.payloadTooLarge(limit, true))).toString('utf8');
  } catch (err) {
    request.unpipe(decompressor);
    if ((err as { code?: string }).code?.startsWith('Z_') || (err as { code?: string }).code?.startsWith('ERR_')) {
      throw errors.badRequest(`the body is not valid ${encoding} data`);
    }
    throw err;
  }
}
