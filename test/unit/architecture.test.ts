// The import rule, checked: the arrows point one way (http → actions → query → sql), the presenters (http, web) never
// reach SQL or a store, a store and its compiler meet only in what they share (dialect/) and where they are composed
// (stores.ts), and the domain and leaf modules stay free of the layers above them. Every static and dynamic import
// between modules of src/ is read from the sources.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../../src/settings.js';

const SRC = path.join(PROJECT_ROOT, 'src');

/** Every area of src/ that is a layer or a leaf: the entry points (main, app, serve, cli…) wire them together. */
const ALL = [
  'http',
  'web',
  'actions',
  'query',
  'sql',
  'dialect',
  'storage',
  'resident',
  'ingest',
  'portal',
  'catalog',
  'elections',
  'serialize',
  'text-search',
  'errors',
  'domain-errors',
  'util',
  'cli',
  'node-version',
] as const;

/** Everything but the named areas (for the leaves, which may import little). */
const allBut = (...allowed: string[]): string[] => ALL.filter((area) => !allowed.includes(area));

/** What each area of src/ may not import (by top-level folder, or top-level file). */
const FORBIDDEN: Record<string, readonly string[]> = {
  http: ['sql', 'storage', 'resident', 'web', 'ingest', 'cli', 'elections'],
  web: ['sql', 'storage', 'resident', 'ingest', 'portal', 'cli'],
  actions: ['http', 'web', 'ingest', 'portal', 'cli'],
  query: ['http', 'web', 'actions', 'sql', 'storage', 'resident', 'ingest', 'portal', 'cli', 'elections'],
  // The translator and compilers raise domain errors (domain-errors.ts); only errors.ts turns them into the API's.
  // A compiler and a store know each other only through dialect/; stores.ts composes them.
  sql: ['http', 'web', 'actions', 'resident', 'ingest', 'portal', 'cli', 'elections', 'storage', 'errors'],
  storage: ['http', 'web', 'actions', 'query', 'sql', 'resident', 'ingest', 'portal', 'cli', 'elections', 'errors'],
  // What a dialect's compiler and store share (layout, quoting, SQL function names, CompiledQuery) depends on neither.
  dialect: ['http', 'web', 'actions', 'sql', 'storage', 'resident', 'ingest', 'portal', 'cli', 'elections', 'errors'],
  // The in-memory engine answers plans from tables it is handed; reading them from a store is the actions' part.
  resident: ['http', 'web', 'actions', 'sql', 'storage', 'ingest', 'portal', 'cli'],
  // Loading reads files and writes a store; the commands that start it live in cli/.
  ingest: ['http', 'web', 'actions', 'query', 'sql', 'resident', 'cli', 'errors'],
  // A portal's side: its client, copies, patches and refresh. It reads the loader's file readers and writes through
  // the load target like any source; it answers no request itself and raises failures in its own terms.
  portal: ['http', 'web', 'actions', 'query', 'sql', 'resident', 'cli', 'elections', 'errors'],
  // The catalogue is what the data is and says; what a load recorded comes to it as values (catalog/stored.ts).
  catalog: [
    'http',
    'web',
    'actions',
    'query',
    'sql',
    'storage',
    'resident',
    'ingest',
    'portal',
    'cli',
    'errors',
    'serialize',
  ],
  elections: [
    'http',
    'web',
    'actions',
    'query',
    'sql',
    'storage',
    'ingest',
    'portal',
    'catalog',
    'cli',
    'errors',
    'resident',
  ],
  serialize: ['http', 'web', 'actions', 'query', 'sql', 'storage', 'ingest', 'portal', 'cli', 'resident', 'errors'],
  'text-search': allBut('util'),
  errors: allBut('domain-errors', 'serialize'),
  'domain-errors': allBut(),
  util: allBut(),
  // Runs first in every entry point, before anything that an older Node.js might fail to load: it imports nothing.
  'node-version': allBut(),
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

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|new URL\(\s*['"](\.{1,2}\/[^'"]+)['"]/g;

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
      if (to !== from && forbidden.includes(to))
        violations.push(
          `${path.relative(PROJECT_ROOT, file)} imports ${path.relative(PROJECT_ROOT, target)} (${from} → ${to})`,
        );
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
  assert.ok(
    FORBIDDEN.sql!.includes('storage') && FORBIDDEN.storage!.includes('sql') && FORBIDDEN.catalog!.includes('storage'),
  );
  assert.ok(
    FORBIDDEN.ingest!.includes('cli') && FORBIDDEN.dialect!.includes('sql') && FORBIDDEN.dialect!.includes('storage'),
  );
});

test('every layer and leaf of src/ has its row', () => {
  const areas = new Set(sources(SRC).map(areaOf));
  const entryPoints = ['cli', 'app', 'main', 'serve', 'bootstrap', 'stores', 'settings', 'logging', 'version'];
  const rowless = [...areas].filter((area) => !(area in FORBIDDEN) && !entryPoints.includes(area));
  assert.deepEqual(rowless, []);
  for (const area of ALL) assert.ok(areas.has(area), `${area} is an area of src/`);
});

test('the catalogue names no election: its layouts and transforms are elections/sources.ts', () => {
  const election = /['"](?:stv-[a-z-]+|Constituency[^'"]*|Candidate Id)['"]/;
  const carrying = sources(path.join(SRC, 'catalog')).filter((file) => election.test(readFileSync(file, 'utf8')));
  assert.deepEqual(
    carrying.map((file) => path.relative(PROJECT_ROOT, file)),
    [],
  );
  assert.ok(election.test(readFileSync(path.join(SRC, 'elections', 'sources.ts'), 'utf8')));
});

/** The packages a serving process loads only when first needed: each costs megabytes it would otherwise hold idle. */
const LOADED_WHEN_NEEDED = [
  'hyparquet',
  'hyparquet-compressors',
  'saxes',
  'yauzl',
  'libpg-query',
  'linkedom',
  '@observablehq/plot',
  'prom-client',
];

const STATIC_IMPORT =
  /(?:^|\n)\s*(?:import|export)\s(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

/** The modules of src/ that `npm start` loads before its first answer (with their text), and the packages they import. */
function loadedAtStart(entry: string): { modules: Map<string, string>; packages: Map<string, string> } {
  const modules = new Map<string, string>();
  const packages = new Map<string, string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (modules.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    modules.set(file, text);
    for (const match of text.matchAll(STATIC_IMPORT)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '');
        const found = ['.ts', '.tsx']
          .map((ext) => target + ext)
          .find((candidate) => statSync(candidate, { throwIfNoEntry: false }));
        if (found) pending.push(found);
      } else if (!specifier.startsWith('node:')) {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
        if (!packages.has(name)) packages.set(name, path.relative(PROJECT_ROOT, file));
      }
    }
  }
  return { modules, packages };
}

test('a serving process starts without the readers, parsers and renderers it loads when first needed', () => {
  const { modules, packages } = loadedAtStart(path.join(SRC, 'main.ts'));
  assert.ok(modules.size > 100, `followed ${modules.size} modules`);
  assert.ok(packages.has('better-sqlite3') && packages.has('pino'), 'the walk reaches the store and the logger');
  const early = LOADED_WHEN_NEEDED.filter((name) => packages.has(name)).map(
    (name) => `${name} (${packages.get(name)})`,
  );
  assert.deepEqual(early, []);
  // A locale's formatter or collator made while its module loads brings the locale's data (about 6 MB) into every
  // process.
  const eagerLocale = [...modules]
    .filter(([, text]) => /^(?:const|let|export const) [^=\n]+= new Intl\./m.test(text))
    .map(([file]) => path.relative(PROJECT_ROOT, file));
  assert.deepEqual(eagerLocale, []);
});
