// Test harness: the service over the real election sources (read from the companion data folder, never copied),
// with its database in a temporary folder, driven in-process through Fastify's inject().

import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { prepareServices, type Prepared } from '../../src/bootstrap.js';
import { loadSettings, PROJECT_ROOT, type Settings } from '../../src/settings.js';

export const SHARED_DIR = path.resolve(PROJECT_ROOT, '..', 'shared');
export const DATA_DIR = path.join(SHARED_DIR, 'data');
export const EXAMPLES_DIR = path.join(SHARED_DIR, 'reference', 'ckan-examples');
export const TEST_TMP = path.join(os.tmpdir(), 'countcentre-test');

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
  .split(',').map((b) => b.trim()).filter((b): b is TestBackend => b === 'sqlite' || b === 'postgres');

/** The PostgreSQL the tests create their databases in (each test suite its own, dropped afterwards). */
export const TEST_PG_ADMIN_URL = process.env.COUNTCENTRE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let databases = 0;

/** Creates an empty database for one suite; returns its URL and how to drop it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `countcentre_test_${process.pid}_${++databases}`;
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`PostgreSQL is needed for the postgres backend tests (${TEST_PG_ADMIN_URL}): ${(err as Error).message}. ` +
      'Start it, or set COUNTCENTRE_TEST_BACKENDS=sqlite to run the embedded store only.');
  }
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
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

export interface TestService {
  app: FastifyInstance;
  prepared: Prepared;
  settings: Settings;
  request(options: InjectOptions | string): Promise<LightMyRequestResponse>;
  /** GET a path and parse the JSON body. */
  getJson(url: string): Promise<{ status: number; body: any; raw: LightMyRequestResponse }>;
  close(): Promise<void>;
}

export function testSettings(overrides: Partial<Settings> = {}): Settings {
  return loadSettings({}, {
    sources: DATA_DIR,
    databasePath: path.join(TEST_TMP, 'election.sqlite'),
    logLevel: 'silent',
    ...overrides,
  });
}

/**
 * The election service on the given backend. The embedded database is rebuilt only when a source or the catalogue
 * changed since the last run; a PostgreSQL database is created for the service and dropped when it closes.
 */
export async function startService(overrides: Partial<Settings> = {}, backend: TestBackend = 'sqlite'): Promise<TestService> {
  const database = backend === 'postgres' ? await createTestDatabase() : null;
  const settings = testSettings({ ...overrides, ...(database ? { databaseUrl: database.url } : {}) });
  const prepared = await prepareServices(settings, silentLogger);
  const app = await buildApp(prepared.services, silentLogger);
  await app.ready();
  const request = (options: InjectOptions | string) => app.inject(options);
  return {
    app,
    prepared,
    settings,
    request,
    async getJson(url) {
      const raw = await app.inject({ method: 'GET', url });
      return { status: raw.statusCode, body: JSON.parse(raw.body), raw };
    },
    async close() {
      await app.close();
      await prepared.close();
      await database?.drop();
    },
  };
}
