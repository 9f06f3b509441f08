// When the store fails unexpectedly, the client gets CKAN's 500 envelope with no internals, the failure is logged,
// and the server keeps serving.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import type { StoreVersion } from '../../src/storage/backend.js';
import { VersionMemos } from '../../src/util/version-memos.js';
import { httpCall, RESOURCE_A, RESOURCE_B, startService, TEST_BACKENDS, type TestService } from '../helpers/service.js';

for (const backend of TEST_BACKENDS)
  describe(`unexpected failures [${backend}]`, () => {
    let service: TestService;
    let app: Awaited<ReturnType<typeof buildApp>>;
    let port: number;
    const logged: string[] = [];

    before(async () => {
      service = await startService({}, backend);
      const real = service.prepared.services.backend;
      // Every read of resource A fails: its searches, and the reads that would hold it in memory.
      const failingRead = (read: 'rows' | 'bulkRows') => ({
        value: async (query: { sql: string }) =>
          query.sql.includes(RESOURCE_A)
            ? Promise.reject(new Error('disk I/O error at /secret/path'))
            : real[read](query as never),
      });
      const failing: StoreVersion = Object.create(real, {
        rows: failingRead('rows'),
        bulkRows: failingRead('bulkRows'),
      });
      const logger = pino(
        { level: 'error' },
        new Writable({
          write(chunk, _enc, done) {
            logged.push(String(chunk));
            done();
          },
        }),
      );
      // Memos of its own: what the real store's version worked out must not answer for the failing one.
      app = await buildApp({ ...service.prepared.services, backend: failing, memos: new VersionMemos() }, logger);
      port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
    });
    after(async () => {
      await app.close();
      await service.close();
    });

    test('an unexpected failure is a 500 envelope without internals, logged with its cause', async () => {
      const response = await httpCall(port, `/api/3/action/datastore_search?resource_id=${RESOURCE_A}`);
      assert.equal(response.statusCode, 500);
      assert.equal(response.headers['content-type'], 'application/json;charset=utf-8');
      const body = JSON.parse(response.body);
      assert.deepEqual(body.error, { __type: 'Internal Server Error', message: 'Internal Server Error' });
      assert.equal(body.success, false);
      assert.doesNotMatch(response.body, /secret|disk/);
      assert.ok(
        logged.some((line) => line.includes('disk I/O error at /secret/path')),
        'the cause is logged',
      );
    });

    test('other requests are still served', async () => {
      const response = await httpCall(port, `/api/3/action/datastore_search?resource_id=${RESOURCE_B}&limit=1`);
      assert.equal(response.statusCode, 200);
    });
  });
