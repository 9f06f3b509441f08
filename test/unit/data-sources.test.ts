// The election source files kept in data/sources: each byte as its README's checksum says, each one listed there,
// and every file the catalogue reads from the sources folder present, so a bare clone serves every election.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { loadSettings, PROJECT_ROOT } from '../../src/settings.js';

const SOURCES = path.join(PROJECT_ROOT, 'data', 'sources');

function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

/** Each file the README's tables list, with the size and SHA-256 they give. */
function listed(): Map<string, { bytes: number; sha256: string }> {
  const readme = readFileSync(path.join(SOURCES, 'README.md'), 'utf8');
  const rows = new Map<string, { bytes: number; sha256: string }>();
  for (const line of readme.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const file = /^`(\d{4}\/[^`]+)`$/.exec(cells[1] ?? '')?.[1];
    const sha256 = /^`([0-9a-f]{64})`$/.exec(cells.at(-2) ?? '')?.[1];
    if (!file || !sha256) continue;
    assert.ok(!rows.has(file), `${file} is listed once`);
    rows.set(file, { bytes: Number(cells.at(-3)!.replaceAll(',', '')), sha256 });
  }
  return rows;
}

test('every source file has the size and SHA-256 its README gives, and the README lists every file', () => {
  const rows = listed();
  const present = filesUnder(SOURCES).filter((file) => file !== 'README.md');
  assert.deepEqual([...rows.keys()].sort(), present.sort());
  assert.equal(present.length, 94, '8 CSV files and 2 × 43 Wikipedia count files');
  for (const [file, expected] of rows) {
    const bytes = readFileSync(path.join(SOURCES, file));
    assert.deepEqual({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }, expected, file);
  }
});

test('the official 2016 count details are the portal download, by the hash recorded for it', () => {
  const bytes = readFileSync(path.join(SOURCES, '2016', 'generalelection2016countdetails.csv'));
  assert.equal(
    createHash('sha256').update(bytes).digest('hex'),
    '37f7f19615b2d553f93137ddd35e477bd4d4c5dbcf929cdd675801c12e2775df',
  );
  // Windows-1252 with CRLF line endings, as published: a checkout that rewrote line endings would show here first.
  assert.equal(bytes.subarray(-2).toString('latin1'), '\r\n');
});

test('the sources folder is the default, and every file the catalogue reads from it is there', () => {
  assert.equal(loadSettings({}).sources, SOURCES);
  const catalog = loadCatalogFile(path.join(PROJECT_ROOT, 'catalog.json'));
  const patterns = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const set = value as { patterns?: unknown; base?: unknown };
      if (Array.isArray(set.patterns) && set.base === 'sources') set.patterns.forEach((p) => patterns.add(String(p)));
      Object.values(value).forEach(walk);
    }
  };
  walk(catalog.datasets);
  assert.equal(patterns.size, 10);
  const present = filesUnder(SOURCES);
  for (const pattern of patterns) {
    const matcher = new RegExp(`^${pattern.replaceAll('.', '\\.').replaceAll('*', '[^/]*')}$`);
    assert.ok(
      present.some((file) => matcher.test(file)),
      `${pattern} is in data/sources`,
    );
  }
});
