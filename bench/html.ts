// Scenario 6, the explorer's HTML pages: time to first byte of a 100-row resource page and of a constituency page,
// measured one request at a time (service time, no queueing), both as served (rendered pages kept until the data
// changes) and rendered on every request (response caches off); and each page's weight, gzipped, all included.

import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { RESOURCE_A } from './queries.js';

/** The two pages of the explorer brief's targets, and the pages of every election at once and of transfers. */
export const HTML_PAGES = {
  resource: `/resource/${RESOURCE_A}`,
  constituency: '/election/general-election-2020/constituencies/dublin-bay-south',
  overTime: '/elections',
  search: '/search?q=mich+mart',
  person: '/people/micheal-martin',
  transfers: '/election/general-election-2020/transfers',
  flow: '/election/general-election-2020/constituencies/dublin-bay-south/transfers',
} as const;

export type HtmlPage = keyof typeof HTML_PAGES;

/** Milliseconds from sending a request to the first byte of its body, and the whole body. */
function timedGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ ttfbMs: number; status: number; body: Buffer; contentType: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first = 0;
    const request = http.get({ host: '127.0.0.1', port, path, headers, agent: keepAlive }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        if (first === 0) first = performance.now();
        chunks.push(chunk);
      });
      response.on('end', () =>
        resolve({
          ttfbMs: (first || performance.now()) - started,
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks),
          contentType: String(response.headers['content-type'] ?? ''),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

export interface TtfbResult {
  p50Ms: number;
  p95Ms: number;
  requests: number;
}

/** TTFB of `path` over one keep-alive connection, after `warmup` requests. */
export async function measureTtfb(port: number, path: string, requests: number, warmup: number): Promise<TtfbResult> {
  for (let i = 0; i < warmup; i++) await timedGet(port, path);
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const { ttfbMs, status } = await timedGet(port, path);
    if (status !== 200) throw new Error(`${path} answered ${status}`);
    times.push(ttfbMs);
  }
  return { p50Ms: percentile(times, 50), p95Ms: percentile(times, 95), requests };
}

/**
 * TTFB of the first visit of each page the list page links to (every constituency), in a process that has drawn none
 * of them yet: the cost of a page whose charts are not yet drawn for this version of the data.
 */
export async function measureFirstVisits(port: number, listPath: string, linkPattern: RegExp): Promise<TtfbResult> {
  const list = (await timedGet(port, listPath)).body.toString('utf8');
  const paths = [...new Set([...list.matchAll(linkPattern)].map((m) => m[1]!))];
  const times: number[] = [];
  for (const path of paths) {
    const { ttfbMs, status } = await timedGet(port, path);
    if (status !== 200) throw new Error(`${path} answered ${status}`);
    times.push(ttfbMs);
  }
  return { p50Ms: percentile(times, 50), p95Ms: percentile(times, 95), requests: paths.length };
}

export interface PageWeight {
  /** HTML, stylesheet and script, gzipped as the service sends them. */
  totalGzipBytes: number;
  htmlGzipBytes: number;
  cssGzipBytes: number;
  jsGzipBytes: number;
  /** Requests the page makes: itself and its assets (no images, fonts or third parties). */
  requests: number;
}

/** A page's weight over the wire with gzip: the page and every asset it links. */
export async function measureWeight(port: number, path: string): Promise<PageWeight> {
  const gzip = { 'accept-encoding': 'gzip' };
  const page = await timedGet(port, path, gzip);
  const html = (await timedGet(port, path)).body.toString('utf8');
  const assets = [...html.matchAll(/(?:href|src)="(\/static\/[^"]+)"/g)].map((m) => m[1]!);
  let css = 0;
  let js = 0;
  for (const asset of assets) {
    const got = await timedGet(port, asset, gzip);
    // Bodies under the compression threshold come uncompressed; gzip them to count them alike.
    const size = got.body[0] === 0x1f && got.body[1] === 0x8b ? got.body.length : gzipSync(got.body).length;
    if (asset.endsWith('.css')) css += size;
    else js += size;
  }
  return {
    totalGzipBytes: page.body.length + css + js,
    htmlGzipBytes: page.body.length,
    cssGzipBytes: css,
    jsGzipBytes: js,
    requests: 1 + assets.length,
  };
}
