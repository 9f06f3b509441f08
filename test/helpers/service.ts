// Test harness: the service over the real election sources (read from the companion data folder, never copied),
// with its database in a temporary folder, driven in-process through Fastify's inject().

import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
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

/** The election service; the database is rebuilt only when a source or the catalogue changed since the last run. */
export async function startService(overrides: Partial<Settings> = {}): Promise<TestService> {
  const settings = testSettings(overrides);
  const prepared = await prepareServices(settings, silentLogger);
  const app = await buildApp({ ...prepared.services, logger: silentLogger });
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
    },
  };
}
