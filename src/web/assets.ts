// The explorer's static files (one stylesheet, one small script), served under names that carry a hash of their
// bytes, so browsers and proxies may keep them for a year: a changed file gets a new name.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { revalidate } from '../http/caching.js';
import type { CachedResponse } from '../http/response-cache.js';
import { PROJECT_ROOT } from '../settings.js';

export interface Asset {
  /** The URL pages link to, e.g. `/static/explorer.3f2a9c01d4.css`. */
  url: string;
  contentType: string;
  body: Buffer;
  hash: string;
  /** The asset as a remembered answer, holding its compressed forms once made. */
  entry?: CachedResponse;
}

export interface Assets {
  css: Asset;
  js: Asset;
  /** Changes whenever any asset does: part of every page's entity tag, since pages name the assets. */
  version: string;
}

/** Kept in the source tree beside this module; the compiler does not copy them, so they are read from there. */
export const STATIC_DIR = path.join(PROJECT_ROOT, 'src', 'web', 'static');

function asset(file: string, contentType: string): Asset {
  const body = readFileSync(path.join(STATIC_DIR, file));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const { name, ext } = path.parse(file);
  return { url: `/static/${name}.${hash}${ext}`, contentType, body, hash };
}

export function loadAssets(): Assets {
  const css = asset('explorer.css', 'text/css; charset=utf-8');
  const js = asset('explorer.js', 'text/javascript; charset=utf-8');
  return { css, js, version: `${css.hash}${js.hash}` };
}

export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The answer to a request for an asset's URL (its 304 when the client holds it), or null for any other path. */
export function assetAnswer(
  assets: Assets,
  path: string,
  ifNoneMatch: string | undefined,
): { status: number; headers: Record<string, string>; body: Buffer | null; entry?: CachedResponse } | null {
  const item = path === assets.css.url ? assets.css : path === assets.js.url ? assets.js : null;
  if (!item) return null;
  const tag = `"${item.hash}"`;
  const headers = { 'cache-control': IMMUTABLE, etag: tag, 'x-content-type-options': 'nosniff' };
  if (revalidate(ifNoneMatch, tag)) return { status: 304, headers, body: null };
  // Kept as a cache entry so that its compressed forms are made once.
  item.entry ??= { status: 200, contentType: item.contentType, tag, body: item.body };
  return { status: 200, headers: { ...headers, 'content-type': item.contentType }, body: item.body, entry: item.entry };
}
