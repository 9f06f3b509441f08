// Recorded responses: what the service answered to each benchmark URL (status, content type, cache-control, body),
// fetched once over HTTP and saved in one file that the ceiling server replays byte for byte.
// File layout: 4-byte little-endian length of a JSON index, the index, then the bodies back to back.

import fs from 'node:fs';
import http from 'node:http';

export interface Recorded {
  path: string;
  status: number;
  contentType: string;
  cacheControl: string | null;
  body: Buffer;
}

interface IndexEntry {
  path: string;
  status: number;
  contentType: string;
  cacheControl: string | null;
  length: number;
}

export function writeRecording(file: string, entries: Iterable<Recorded>): void {
  const index: IndexEntry[] = [];
  const bodies: Buffer[] = [];
  for (const e of entries) {
    index.push({
      path: e.path,
      status: e.status,
      contentType: e.contentType,
      cacheControl: e.cacheControl,
      length: e.body.length,
    });
    bodies.push(e.body);
  }
  const head = Buffer.from(JSON.stringify(index), 'utf8');
  const size = Buffer.alloc(4);
  size.writeUInt32LE(head.length);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, size);
    fs.writeSync(fd, head);
    for (const b of bodies) fs.writeSync(fd, b);
  } finally {
    fs.closeSync(fd);
  }
}

export function readRecording(file: string): Recorded[] {
  const data = fs.readFileSync(file);
  const headLength = data.readUInt32LE(0);
  const index = JSON.parse(data.subarray(4, 4 + headLength).toString('utf8')) as IndexEntry[];
  let at = 4 + headLength;
  return index.map((e) => {
    const body = data.subarray(at, at + e.length);
    at += e.length;
    return { path: e.path, status: e.status, contentType: e.contentType, cacheControl: e.cacheControl, body };
  });
}

/** One GET, the whole body kept. */
export function httpGet(port: number, path: string, agent: http.Agent, timeoutMs = 60_000): Promise<Recorded> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          path,
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? 'application/octet-stream'),
          cacheControl: res.headers['cache-control'] === undefined ? null : String(res.headers['cache-control']),
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
  });
}

/** Fetches every path from the service, a few at a time over keep-alive connections, in the given order. */
export async function record(port: number, paths: readonly string[], parallel = 4): Promise<Recorded[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
  const out: Recorded[] = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      out[i] = await httpGet(port, paths[i] as string, agent);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(parallel, paths.length) }, worker));
  } finally {
    agent.destroy();
  }
  return out;
}
