// HTTP caching: answers only change when the data is reloaded, so an entity tag made from the dataset version and
// the request identifies an answer without computing it, and a matching If-None-Match is answered with 304.

import { hashText } from '../util/hash.js';

/** What names an answer: the request as far as it shapes the answer. */
export interface AnswerIdentity {
  method: string;
  url: string;
  /** A POST's body and its content type; undefined for GET and HEAD. */
  body?: string;
  contentType?: string;
  /** scheme://host, when `help` links are built from the request's host (no SITE_URL). */
  origin: string | null;
}

/**
 * A weak tag (compression changes the bytes, not the meaning) from the dataset version and everything that shapes
 * the answer: method, URL, body, and the host when `help` links are built from it.
 */
export function entityTag(datasetVersion: string, answer: AnswerIdentity): string {
  // HEAD is GET without the body: the same entity.
  let text = `${answer.method === 'HEAD' ? 'GET' : answer.method}\n${answer.url}`;
  if (answer.body !== undefined) text += `\n${answer.contentType ?? ''}\n${answer.body}`;
  if (answer.origin !== null) text += `\n${answer.origin}`;
  return `W/"${datasetVersion}-${hashText(text)}"`;
}

/**
 * Whether the client already holds the answer tagged `tag` (its If-None-Match names it, or `*`), by the weak comparison
 * RFC 9110 prescribes for If-None-Match: the one test behind every 304, for the API, the pages and the assets.
 */
export function revalidate(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  const ours = opaque(tag);
  return header.split(',').some((candidate) => opaque(candidate) === ours);
}
