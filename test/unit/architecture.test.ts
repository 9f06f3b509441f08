// The import rule, checked: the arrows point one way (http → actions → query → sql → storage), the presenters (http,
// web) never reach SQL or a store, and the domain and leaf modules stay free of the layers above them. Every static
// and dynamic import between modules of src/ is read from the sources.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../../src/settings.js';

const SRC = path.join(PROJECT_ROOT, 'src');

/** What each area of src/ may not import (by top-level folder). */
const FORBIDDEN: Record<string, readonly string[]> = {
  http: ['sql', 'storage', 'resident', 'web', 'ingest'],
  web: ['sql', 'storage', 'resident', 'ingest'],
  actions: ['http', 'web', 'ingest'],
  query: ['http', 'web', 'actions', 'sql', 'storage', 'resident', 'ingest'],
  sql: ['http', 'web', 'actions', 'resident', 'ingest'],
  storage: ['http', 'web', 'actions', 'query', 'resident', 'ingest'],
  // The in-memory engine answers plans from tables it is handed; reading them from a store is the actions' part.
  resident: ['http', 'web', 'actions', 'sql', 'storage', 'ingest'],
  elections: ['http', 'web', 'actions', 'query', 'sql', 'storage', 'ingest', 'catalog'],
  serialize: ['http', 'web', 'actions', 'query', 'sql', 'storage', 'ingest'],
  'text-search': ['http', 'web', 'actions', 'query', 'sql', 'storage', 'ingest', 'catalog', 'serialize', 'elections'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}

/** The area (top-level folder of src/, or the file itself at the top) a module belongs to. */
function areaOf(file: string): string {
  const [first, ...rest] = path.relative(SRC, file).split(path.sep);
  return rest.length > 0 ? first! : first!.replace(/\.tsx?$/, '');
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|new URL\(\s*['"](\.{1,2}\/[^'"]+)['"]/g;

test('each area imports only what the layering allows', () => {
  const violations: string[] = [];
  let imports = 0;
  for (const file of sources(SRC)) {
    const from = areaOf(file);
    const forbidden = FORBIDDEN[from] ?? [];
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = path.resolve(path.dirname(file), match[1] ?? match[2] ?? match[3]!);
      if (!target.startsWith(SRC)) continue;
      imports += 1;
      const to = areaOf(target);
      if (forbidden.includes(to)) violations.push(`${path.relative(PROJECT_ROOT, file)} imports ${path.relative(PROJECT_ROOT, target)} (${from} → ${to})`);
    }
  }
  assert.ok(imports > 300, `read ${imports} imports`);
  assert.deepEqual(violations, []);
});

test('the rule catches what it is meant to catch', () => {
  const line = "import { compileSearch } from '../sql/sqlite/search.js';";
  const [match] = line.matchAll(IMPORT);
  assert.equal(match?.[1], '../sql/sqlite/search.js');
  assert.equal(areaOf(path.resolve(SRC, 'http', match![1]!)), 'sql');
  assert.ok(FORBIDDEN.http!.includes('sql') && FORBIDDEN.web!.includes('storage'));
});
