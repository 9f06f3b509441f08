// Locates a resource's source: a file under the sources folder, or a URL (under a base URL, or absolute),
// which is downloaded to a temporary file first so that it can be checksummed and read twice. A gzip-compressed file
// (`.csv.gz`, as large tables are often shipped) is decompressed to a temporary file the same way.

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { NotATableError } from './readers/sniff.js';

export interface LocatedSource {
  /** Local file to read. */
  file: string;
  /** What messages call it: the path relative to the sources, or the URL. */
  displayName: string;
  release(): Promise<void>;
}

export const isUrl = (text: string) => /^https?:\/\//i.test(text);

/** Streams `url` to a file of a temporary folder of its own, which `release` removes. */
export async function downloadFile(
  url: string,
  timeoutMs: number,
  temp: { prefix: string; name: string },
): Promise<{ file: string; release(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), temp.prefix));
  const file = path.join(dir, temp.name);
  const release = () => rm(dir, { recursive: true, force: true });
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
    await pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
      createWriteStream(file),
    );
  } catch (err) {
    await release();
    throw new Error(`${url}: download failed (${(err as Error).message})`);
  }
  return { file, release };
}

/** Whether a file starts with gzip's signature; false for what cannot be read (which the reader then names). */
async function isGzip(file: string): Promise<boolean> {
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}

/**
 * A local file as it is read: itself, or, when it is gzip-compressed, its content decompressed (streamed, so memory
 * stays flat) to a file of a temporary folder of its own, which `release` removes, after releasing `file`'s own.
 */
export async function uncompressed(
  located: { file: string; release(): Promise<void> },
  displayName: string,
): Promise<{ file: string; release(): Promise<void> }> {
  if (!(await isGzip(located.file))) return located;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'countcentre-gunzip-'));
  const file = path.join(dir, 'content');
  const release = async () => {
    await rm(dir, { recursive: true, force: true });
    await located.release();
  };
  try {
    await pipeline(createReadStream(located.file), createGunzip(), createWriteStream(file));
  } catch (err) {
    await release();
    throw new NotATableError(displayName, `gzip-compressed, but it does not decompress (${(err as Error).message})`);
  }
  return { file, release };
}

/** What the service calls a source in anything it shows: an absolute local path by its file name. */
export function publicName(sourcePath: string): string {
  return !isUrl(sourcePath) && path.isAbsolute(sourcePath) ? path.basename(sourcePath) : sourcePath;
}

export function sourceLocation(sources: string, sourcePath: string): string {
  if (isUrl(sourcePath)) return sourcePath;
  if (isUrl(sources)) return new URL(sourcePath, sources.endsWith('/') ? sources : `${sources}/`).href;
  return path.resolve(sources, sourcePath);
}

export async function locateSource(sources: string, sourcePath: string, timeoutMs = 60_000): Promise<LocatedSource> {
  const location = sourceLocation(sources, sourcePath);
  if (!isUrl(location)) {
    try {
      const info = await stat(location);
      if (!info.isFile()) throw new Error('is not a file');
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
      throw new Error(
        `${publicName(sourcePath)}: ${reason} (looked in ${isUrl(sources) ? sources : `the sources folder, ${path.basename(sources)}`})`,
      );
    }
    // A file outside the sources and the catalogue's folder is named by its file name alone: a path on the
    // publisher's machine is nobody else's business, and never leaves it (messages, package_show, logs).
    const displayName = publicName(sourcePath);
    return { ...(await uncompressed({ file: location, release: async () => {} }, displayName)), displayName };
  }
  const downloaded = await downloadFile(location, timeoutMs, { prefix: 'countcentre-source-', name: 'source' });
  return { ...(await uncompressed(downloaded, location)), displayName: location };
}
