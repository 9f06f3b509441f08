// Locates a resource's source: a file under the sources folder, or a URL (under a base URL, or absolute),
// which is downloaded to a temporary file first so that it can be checksummed and read twice.

import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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
    return { file: location, displayName: publicName(sourcePath), release: async () => {} };
  }
  const { file, release } = await downloadFile(location, timeoutMs, { prefix: 'countcentre-source-', name: 'source' });
  return { file, displayName: location, release };
}
