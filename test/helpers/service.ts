// Test harness: the service over the real election sources (the repository's data/sources),
// with its database in a temporary folder, listening on a free port of 127.0.0.1 and driven by real HTTP requests.

import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp, type App } from '../../src/app.js';
import { prepareServices, type Prepared } from '../../src/bootstrap.js';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { buildDatabase } from '../../src/ingest/build.js';
import { buildPendingIndexes } from '../../src/ingest/indexes.js';
import { PostgresLoadTarget } from '../../src/storage/postgres/loader.js';
import { loadSettings, PROJECT_ROOT, type Settings } from '../../src/settings.js';

export const DATA_DIR = path.join(PROJECT_ROOT, 'data', 'sources');
/** CKAN's own recorded answers for the 2020 resources, replayed by the contract tests. */
export const EXAMPLES_DIR = path.join(PROJECT_ROOT, 'test', 'fixtures', 'ckan-examples');
/** Per checkout, so that test runs in two clones side by side never rebuild each other's database files. */
export const TEST_TMP = path.join(
  os.tmpdir(),
  `countcentre-test-${createHash('sha1').update(PROJECT_ROOT).digest('hex').slice(0, 8)}`,
);

export const RESOURCE_A = '60728fc9-2896-41d8-a70c-9c01dd3d57ce';
export const RESOURCE_B = 'f6a59fec-6f64-48bb-9f65-e6679aa23dba';
export const RESOURCE_C = '6feac8a2-85a6-46ae-ad22-0c77f8065e23';

export const silentLogger = pino({ level: 'silent' });

export type TestBackend = 'sqlite' | 'postgres';

/**
 * The backends every HTTP test runs against: both, unless COUNTCENTRE_TEST_BACKENDS narrows them (e.g. to `sqlite`
 * on a machine without PostgreSQL). CI runs both.
 */
export const TEST_BACKENDS: TestBackend[] = (process.env.COUNTCENTRE_TEST_BACKENDS ?? 'sqlite,postgres')
  .split(',')
  .map((b) => b.trim())
  .filter((b): b is TestBackend => b === 'sqlite' || b === 'postgres');

/**
 * The backends the browser suites (test/web/) drive Chromium against: the first of TEST_BACKENDS (the embedded store,
 * what `npm start` serves) unless COUNTCENTRE_TEST_BROWSER_BACKENDS names others. A page is the same HTML whichever
 * store answered its actions, and the pages' HTTP suites (test/http/web-*.test.ts) check that on both stores; Chromium
 * adds layout, scripts and accessibility, which no store changes, at about a minute and a half per store.
 */
export const BROWSER_BACKENDS: TestBackend[] = process.env.COUNTCENTRE_TEST_BROWSER_BACKENDS
  ? process.env.COUNTCENTRE_TEST_BROWSER_BACKENDS.split(',')
      .map((b) => b.trim())
      .filter((b): b is TestBackend => b === 'sqlite' || b === 'postgres')
  : TEST_BACKENDS.slice(0, 1);

/** The PostgreSQL the tests create their databases in (each test suite its own, dropped afterwards). */
export const TEST_PG_ADMIN_URL = process.env.COUNTCENTRE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The tests' PostgreSQL for suites that check against it live and are skipped when none answers: connected, and
 * `setup` run, on first use; `teardown` run and the connection ended after the suite. Gives the client, or why not.
 */
export function livePostgres(
  hooks: { setup?: (client: pg.Client) => Promise<void>; teardown?: (client: pg.Client) => Promise<void> } = {},
): () => Promise<pg.Client | string> {
  let connection: Promise<pg.Client | string> | undefined;
  after(async () => {
    const client = await connection;
    if (!client || typeof client === 'string') return;
    await hooks.teardown?.(client);
    await client.end();
  });
  return () =>
    (connection ??= (async () => {
      const client = new pg.Client({ connectionString: TEST_PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
      try {
        await client.connect();
        await hooks.setup?.(client);
        return client;
      } catch (err) {
        await client.end().catch(() => undefined);
        return `PostgreSQL not reachable: ${(err as Error).message}`;
      }
    })());
}

let databases = 0;

function databaseUrl(name: string): string {
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function connectAdmin(): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(
      `PostgreSQL is needed for the postgres backend tests (${TEST_PG_ADMIN_URL}): ${(err as Error).message}. ` +
        'Start it, or set COUNTCENTRE_TEST_BACKENDS=sqlite to run the embedded store only.',
    );
  }
  return admin;
}

/**
 * The elections loaded once per checkout into a template database, which each suite's database is copied from
 * (CREATE DATABASE … TEMPLATE, a file copy) instead of loading every election again. It is brought up to date
 * first, which reloads only what changed, as with the embedded store's file in TEST_TMP. An advisory lock keeps
 * two suites from loading it, or copying it while it loads, at once.
 */
function templateName(settings: Settings): string {
  const key = JSON.stringify([
    PROJECT_ROOT,
    settings.catalog,
    settings.sources,
    settings.pgSchema,
    settings.pgDataSchema,
    settings.pgReaderRole,
    settings.pgLoadSplitRows,
    settings.pgLoadHelperRows,
  ]);
  return `countcentre_template_${createHash('sha1').update(key).digest('hex').slice(0, 12)}`;
}

async function loadTemplate(admin: pg.Client, name: string, settings: Settings): Promise<void> {
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  const target = new PostgresLoadTarget({
    url: databaseUrl(name),
    schemas: { data: settings.pgDataSchema, public: settings.pgSchema },
    readerRole: settings.pgReaderRole,
    splitAfterRows: settings.pgLoadSplitRows,
    helperAfterRows: settings.pgLoadHelperRows,
  });
  try {
    await buildDatabase({
      catalog: loadCatalogFile(settings.catalog),
      sources: settings.sources,
      target,
      logger: silentLogger,
    });
    // The indexes a load leaves for after publication, built as a serving process would build them.
    await buildPendingIndexes(target);
  } finally {
    await target.close();
  }
}

/**
 * Creates a database for one suite, empty or (with `loaded`) holding the elections as the settings load them;
 * returns its URL and how to drop it.
 */
export async function createTestDatabase(loaded?: Settings): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `countcentre_test_${process.pid}_${++databases}`;
  const admin = await connectAdmin();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    if (loaded) {
      const template = templateName(loaded);
      await admin.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
      try {
        await loadTemplate(admin, template, loaded);
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      } finally {
        await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [template]);
      }
    } else {
      await admin.query(`CREATE DATABASE "${name}"`);
    }
  } finally {
    await admin.end();
  }
  const url = databaseUrl(name);
  return {
    url,
    async drop() {
      const client = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A request as the tests write it (method, URL, headers, body). */
export interface RequestOptions {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  payload?: string | Buffer;
}

/** An answer as the tests read it: status, headers, the body as text and as bytes (never decompressed). */
export interface TestResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
  rawPayload: Buffer;
}

export interface TestService {
  app: App;
  prepared: Prepared;
  settings: Settings;
  /** http://127.0.0.1:<port> */
  address: string;
  port: number;
  request(options: RequestOptions | string): Promise<TestResponse>;
  /** GET a path and parse the JSON body. */
  getJson(url: string): Promise<{ status: number; body: any; raw: TestResponse }>;
  close(): Promise<void>;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** The text with any lone surrogate (which has no UTF-8 form) replaced by U+FFFD, as an encoder would. */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/**
 * One HTTP request to a listening server. The Host header defaults to `localhost:80`, so that `help` links in the
 * answers read the same whatever port the server listens on.
 */
export function httpCall(port: number, options: RequestOptions | string): Promise<TestResponse> {
  const { method = 'GET', url, headers = {}, payload } = typeof options === 'string' ? { url: options } : options;
  // As a browser or curl would send it: spaces and other characters a request line cannot hold, percent-encoded.
  const path = wellFormed(url).replace(/[^\u0021-\u007e]/gu, (c) => encodeURIComponent(c));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, agent, headers: { host: 'localhost:80', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const rawPayload = Buffer.concat(chunks);
          resolve({ statusCode: res.statusCode!, headers: res.headers, body: rawPayload.toString('utf8'), rawPayload });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * COUNTCENTRE_TEST_PG_LOAD_SPLIT_ROWS runs every suite with PostgreSQL loads split after that many records (see
 * COUNTCENTRE_PG_LOAD_SPLIT_ROWS), so that the whole suite can be run over split tables.
 */
const SPLIT_ROWS = process.env.COUNTCENTRE_TEST_PG_LOAD_SPLIT_ROWS;

export function testSettings(overrides: Partial<Settings> = {}): Settings {
  return loadSettings(
    {},
    {
      sources: DATA_DIR,
      databasePath: path.join(TEST_TMP, 'election.sqlite'),
      logLevel: 'silent',
      ...(SPLIT_ROWS ? { pgLoadSplitRows: Number(SPLIT_ROWS) } : {}),
      ...overrides,
    },
  );
}

/**
 * The whole bodies a service over an already loaded store gives for `paths` (each answered 200), read by a server of
 * its own that is closed again.
 */
export async function servedBodies(settings: Settings, paths: readonly string[]): Promise<string[]> {
  const prepared = await prepareServices(settings, silentLogger, { load: false });
  const app = await buildApp(prepared.state, silentLogger);
  try {
    const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
    const bodies: string[] = [];
    for (const url of paths) {
      const response = await httpCall(port, url);
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
      bodies.push(response.body);
    }
    return bodies;
  } finally {
    await app.close();
    await prepared.close();
  }
}

/**
 * The election service on the given backend. The embedded database is rebuilt only when a source or the catalogue
 * changed since the last run; a PostgreSQL database is copied for the service from the checkout's loaded template
 * (so the service finds it up to date) and dropped when it closes.
 */
export async function startService(
  overrides: Partial<Settings> = {},
  backend: TestBackend = 'sqlite',
): Promise<TestService> {
  const wanted = testSettings(overrides);
  // Only the checkout's own elections have a template; a suite with sources of its own loads them itself.
  const elections = wanted.catalog === testSettings().catalog && wanted.sources === DATA_DIR;
  const database = backend === 'postgres' ? await createTestDatabase(elections ? wanted : undefined) : null;
  const settings = testSettings({ ...overrides, ...(database ? { databaseUrl: database.url } : {}) });
  const prepared = await prepareServices(settings, silentLogger);
  // Suites start once the indexes built after publication are in, as a server that has been up a while has them.
  await prepared.indexes.idle();
  await prepared.refresh();
  const app = await buildApp(prepared.state, silentLogger);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  const request = (options: RequestOptions | string) => httpCall(port, options);
  return {
    app,
    prepared,
    settings,
    address,
    port,
    request,
    async getJson(url) {
      const raw = await request(url);
      return { status: raw.statusCode, body: JSON.parse(raw.body), raw };
    },
    async close() {
      await app.close();
      await prepared.close();
      await database?.drop();
    },
  };
}

/**
 * datastore_search on a resource with the given parameters (objects sent as JSON); asserts a 200 and gives `result`.
 */
export async function searchResult(
  service: TestService,
  params: Record<string, string | number | boolean | object>,
  resourceId = RESOURCE_A,
): Promise<any> {
  const query = new URLSearchParams({ resource_id: resourceId });
  for (const [k, v] of Object.entries(params)) query.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  const { status, body } = await service.getJson(`/api/3/action/datastore_search?${query}`);
  if (status !== 200) throw new Error(`datastore_search answered ${status}: ${JSON.stringify(body)}`);
  return body.result;
}
