// The files a load reads: file sets expanded (patterns matched in a folder of sources, in a stable order), each file
// located (downloaded first when it is a URL), checksummed and its encoding found once per load, however many
// sources read it. A resource's checksum covers every file it depends on, so a change to any of them reloads it.

import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { FileSetDefinition } from '../catalog/types.js';
import { scanSource, type SourceScan } from './encoding.js';
import { locateSource, type LocatedSource } from './source.js';

export interface ResolvedFile {
  /** What messages and the store call it: the path under its base (or the URL). */
  name: string;
  located: LocatedSource;
  scan: SourceScan;
}

const isUrl = (text: string) => /^https?:\/\//i.test(text);

function segmentPattern(segment: string): RegExp | null {
  if (!/[*?]/.test(segment)) return null;
  const body = segment
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

/**
 * The paths a pattern matches under `root`: `*` and `?` match within one file or folder name (enough for a folder
 * of per-constituency files; nothing the catalogue needs calls for `**`). Names are sorted by code point, so the
 * order of records never depends on the file system.
 */
export async function expandPattern(root: string, pattern: string): Promise<string[]> {
  const segments = pattern.split('/').filter((s) => s !== '' && s !== '.');
  let found: string[] = [''];
  for (const [i, segment] of segments.entries()) {
    const matcher = segmentPattern(segment);
    const last = i === segments.length - 1;
    const next: string[] = [];
    for (const prefix of found) {
      if (!matcher) {
        next.push(prefix ? `${prefix}/${segment}` : segment);
        continue;
      }
      let entries;
      try {
        entries = await readdir(path.join(root, prefix), { withFileTypes: true });
      } catch {
        continue;
      }
      const names = entries
        .filter((e) => matcher.test(e.name) && (last ? e.isFile() : e.isDirectory()))
        .map((e) => e.name);
      names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const name of names) next.push(prefix ? `${prefix}/${name}` : name);
    }
    found = next;
  }
  return found;
}

/** Every file a load reads, each located and scanned once. */
export class FileCache {
  private readonly files = new Map<string, Promise<ResolvedFile>>();

  constructor(
    private readonly sources: string,
    private readonly catalogDir: string,
  ) {}

  private root(base: FileSetDefinition['base']): string {
    return base === 'catalog' ? this.catalogDir : this.sources;
  }

  /** The files of a set, in order: each pattern's matches, sorted; a pattern that matches nothing is an error. */
  async expand(set: FileSetDefinition): Promise<string[]> {
    const root = this.root(set.base);
    const names: string[] = [];
    for (const pattern of set.patterns) {
      if (!/[*?]/.test(pattern)) {
        names.push(pattern);
        continue;
      }
      if (isUrl(root))
        throw new Error(`${pattern}: a pattern needs a folder of sources, not the URL ${root}; list the files`);
      const matched = await expandPattern(root, pattern);
      if (matched.length === 0) throw new Error(`${pattern}: no file matches (looked in ${path.basename(root)})`);
      names.push(...matched);
    }
    return [...new Set(names)];
  }

  file(base: FileSetDefinition['base'], name: string, encoding: string): Promise<ResolvedFile> {
    const key = `${base}\u0000${name}\u0000${encoding}`;
    let found = this.files.get(key);
    if (!found) {
      found = (async () => {
        const located = await locateSource(this.root(base), name);
        try {
          return { name: located.displayName, located, scan: await scanSource(located.file, encoding) };
        } catch (err) {
          await located.release();
          const message = (err as Error).message;
          throw new Error(message.startsWith(name) ? message : `${name}: ${message}`);
        }
      })();
      this.files.set(key, found);
    }
    return found;
  }

  async resolve(set: FileSetDefinition, encoding: string): Promise<ResolvedFile[]> {
    return Promise.all((await this.expand(set)).map((name) => this.file(set.base, name, encoding)));
  }

  async release(): Promise<void> {
    const settled = await Promise.allSettled(this.files.values());
    await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.located.release() : undefined)));
    this.files.clear();
  }
}

/**
 * One checksum for a resource's files: a single file's own SHA-256 (so a one-file resource's `hash` is its file's,
 * as before), otherwise the SHA-256 of the list of names and checksums, which changes when any file changes, is
 * added or is taken away.
 */
export function combinedChecksum(files: readonly { name: string; scan: SourceScan }[]): string {
  if (files.length === 1) return files[0]!.scan.sha256;
  const list = files
    .map((f) => `${f.name}\t${f.scan.sha256}`)
    .sort()
    .join('\n');
  return createHash('sha256').update(list).digest('hex');
}
