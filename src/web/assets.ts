// The explorer's static files (one stylesheet, one small script), served under names that carry a hash of their
// bytes, so browsers and proxies may keep them for a year: a changed file gets a new name.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { PROJECT_ROOT } from '../settings.js';

export interface Asset {
  /** The URL pages link to, e.g. `/static/explorer.3f2a9c01d4.css`. */
  url: string;
  contentType: string;
  body: Buffer;
  hash: string;
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

export function registerAssetRoutes(app: FastifyInstance, assets: Assets): void {
  for (const item of [assets.css, assets.js]) {
    app.get(item.url, async (request, reply) => {
      const tag = `"${item.hash}"`;
      reply.header('cache-control', IMMUTABLE).header('etag', tag).header('x-content-type-options', 'nosniff');
      if (request.headers['if-none-match'] === tag) return reply.code(304).send();
      return reply.type(item.contentType).send(item.body);
    });
  }
}
