// Locates a resource's source: a file under the sources folder, or a URL (under a base URL, or absolute),
// which is downloaded to a temporary file first so that it can be checksummed and read twice. A gzip-compressed file
// (`.csv.gz`, as large tables are often shipped), or a ZIP archive holding one table (as portals often offer them), is
// decompressed to a temporary file the same way.

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type yauzl from 'yauzl';
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

/** What a file's signature says it is packed in; null for what cannot be read (which the reader then names). */
async function packing(file: string): Promise<'gzip' | 'zip' | null> {
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    if (bytesRead >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
    if (bytesRead === 4 && head.readUInt32BE(0) === 0x504b0304) return 'zip';
    return null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/** Entries of an archive that are no table: folders, macOS's resource forks, hidden files, a read-me or licence. */
const NOT_A_TABLE_ENTRY = /(^|\/)(__MACOSX\/|\.)|\/$|(^|\/)(readme|licen[cs]e|copying|notes?)(\.[a-z0-9]+)?$/i;

/**
 * Extracts the one table a ZIP archive holds to `into`; false, extracting nothing, for an archive that is an Office
 * document (an .xlsx is a ZIP archive, which its own reader reads). An archive of several tables, or none, is refused,
 * naming what it holds.
 */
async function extractOnlyTable(file: string, into: string, displayName: string): Promise<boolean> {
  let zip: yauzl.ZipFile;
  try {
    // Imported when an archive is first met, as the readers of typed files are (src/ingest/readers/open.ts).
    const { default: unzip } = await import('yauzl');
    zip = await unzip.openPromise(file, { lazyEntries: true, autoClose: false, strictFileNames: false });
  } catch (err) {
    throw new NotATableError(displayName, `a ZIP archive that cannot be read (${(err as Error).message})`);
  }
  try {
    const entries: yauzl.Entry[] = [];
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        entries.push(entry);
        zip.readEntry();
      });
      zip.on('end', resolve);
      zip.on('error', reject);
      zip.readEntry();
    });
    if (entries.some((e) => e.fileName === '[Content_Types].xml' || e.fileName === 'mimetype')) return false;
    const tables = entries.filter((e) => !NOT_A_TABLE_ENTRY.test(e.fileName));
    if (tables.length !== 1) {
      const names = tables.slice(0, 5).map((e) => e.fileName);
      throw new NotATableError(
        displayName,
        tables.length === 0
          ? 'a ZIP archive with no file in it that could be a table'
          : `a ZIP archive of ${tables.length} files (${names.join(', ')}${tables.length > 5 ? ', …' : ''}): unzip it and publish each table on its own`,
      );
    }
    await pipeline(await zip.openReadStreamPromise(tables[0]!), createWriteStream(into));
    return true;
  } finally {
    zip.close();
  }
}

/**
 * A local file as it is read: itself, or, when it is gzip-compressed or a ZIP archive of one table, what it holds,
 * decompressed (streamed, so memory stays flat) to a file of a temporary folder of its own, which `release` removes,
 * after releasing `file`'s own.
 */
export async function uncompressed(
  located: { file: string; release(): Promise<void> },
  displayName: string,
): Promise<{ file: string; release(): Promise<void> }> {
  const packed = await packing(located.file);
  if (!packed) return located;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'countcentre-unpacked-'));
  const file = path.join(dir, 'content');
  const release = async () => {
    await rm(dir, { recursive: true, force: true });
    await located.release();
  };
  try {
    if (packed === 'gzip') await pipeline(createReadStream(located.file), createGunzip(), createWriteStream(file));
    else if (!(await extractOnlyTable(located.file, file, displayName))) {
      await rm(dir, { recursive: true, force: true });
      return located;
    }
  } catch (err) {
    await release();
    if (err instanceof NotATableError) throw err;
    throw new NotATableError(
      displayName,
      `${packed === 'gzip' ? 'gzip-compressed' : 'a ZIP archive'}, but it does not decompress (${(err as Error).message})`,
    );
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
