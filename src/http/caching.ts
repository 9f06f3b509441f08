// HTTP caching: answers only change when the data is reloaded, so an entity tag made from the dataset version and
// the request identifies an answer without computing it, and a matching If-None-Match is answered with 304.

import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/**
 * A weak tag (compression changes the bytes, not the meaning) from the dataset version and everything that shapes
 * the answer: method, URL, body, and the host when `help` links are built from it.
 */
export function entityTag(datasetVersion: string, request: FastifyRequest, hostShapesAnswer: boolean): string {
  const hash = createHash('sha1');
  // HEAD is GET without the body: the same entity.
  hash.update(request.method === 'HEAD' ? 'GET' : request.method).update('\n').update(request.url);
  if (typeof request.body === 'string') hash.update('\n').update(request.headers['content-type'] ?? '').update('\n').update(request.body);
  if (hostShapesAnswer) hash.update('\n').update(request.protocol).update('://').update(request.host);
  return `W/"${datasetVersion}-${hash.digest('base64url').slice(0, 20)}"`;
}

/** If-None-Match against a tag, with the weak comparison RFC 9110 prescribes for it. */
export function ifNoneMatchHits(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  const ours = opaque(tag);
  return header.split(',').some((candidate) => opaque(candidate) === ours);
}
