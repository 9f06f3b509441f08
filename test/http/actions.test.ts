// help_show and datastore_info over HTTP, beyond the contract examples.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RESOURCE_B, RESOURCE_C, startService, type TestService, TEST_BACKENDS } from '../helpers/service.js';

for (const backend of TEST_BACKENDS)
  describe(`help_show and datastore_info [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    test('help_show documents each action, also under the locale prefix', async () => {
      for (const name of ['datastore_search', 'datastore_info', 'help_show']) {
        const { status, body } = await service.getJson(`/en/api/3/action/help_show?name=${name}`);
        assert.equal(status, 200);
        assert.match(body.help, /\/en\/api\/3\/action\/help_show\?name=help_show$/);
        assert.equal(typeof body.result, 'string');
        assert.match(body.result, /:param \w+:/);
      }
    });

    test('help_show: missing name is 409, unknown action is 404', async () => {
      const missing = await service.getJson('/api/3/action/help_show');
      assert.equal(missing.status, 409);
      // CKAN's key and message, and for people the list of actions.
      assert.deepEqual(missing.body.error, {
        name: ['Missing value'],
        __type: 'Validation Error',
        info: {
          hint: 'name one of the actions',
          actions: [
            'datastore_info',
            'datastore_search',
            'datastore_search_sql',
            'help_show',
            'package_list',
            'package_show',
            'resource_show',
            'site_read',
            'status_show',
          ],
        },
      });
      const unknown = await service.getJson('/api/3/action/help_show?name=package_create');
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body.error, {
        __type: 'Not Found Error',
        message: 'Not found: Action function not found',
      });
    });

    test('datastore_info by id or resource_id: fields without _id, meta with the count', async () => {
      for (const param of ['id', 'resource_id']) {
        const { status, body } = await service.getJson(`/api/3/action/datastore_info?${param}=${RESOURCE_B}`);
        assert.equal(status, 200);
        assert.match(body.help, /help_show\?name=datastore_info$/);
        assert.deepEqual(Object.keys(body.result.meta), [
          'id',
          'count',
          'table_type',
          'size',
          'db_size',
          'idx_size',
          'aliases',
        ]);
        assert.equal(body.result.meta.count, 39);
        assert.deepEqual(body.result.fields[3], {
          id: 'Date Of Election',
          type: 'timestamp',
          schema: {
            native_type: 'timestamp without time zone',
            notnull: false,
            index_name: `${RESOURCE_B}__4`,
            is_index: true,
            uniquekey: false,
          },
        });
        assert.equal(body.result.fields.length, 15);
      }
    });

    test("datastore_info: missing id is 409, unknown is 404 with CKAN's wording", async () => {
      const missing = await service.getJson('/api/3/action/datastore_info');
      assert.equal(missing.status, 409);
      assert.deepEqual(missing.body.error, { resource_id: ['Missing value'], __type: 'Validation Error' });
      const unknown = await service.getJson('/api/3/action/datastore_info?id=nope');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.message, 'Not found: Resource/Alias "nope" was not found.');
    });

    test("datastore_info: CKAN 2.12's include_meta and include_fields_schema leave those parts out", async () => {
      const full = (await service.getJson(`/api/3/action/datastore_info?resource_id=${RESOURCE_B}`)).body.result;
      const noMeta = await service.getJson(`/api/3/action/datastore_info?resource_id=${RESOURCE_B}&include_meta=false`);
      assert.equal(noMeta.status, 200);
      assert.deepEqual(noMeta.body.result, { fields: full.fields });
      const noSchema = await service.getJson(
        `/api/3/action/datastore_info?resource_id=${RESOURCE_B}&include_fields_schema=false`,
      );
      assert.deepEqual(noSchema.body.result, {
        meta: full.meta,
        fields: full.fields.map(({ id, type }: { id: string; type: string }) => ({ id, type })),
      });
      const neither = await service.request({
        method: 'POST',
        url: '/api/3/action/datastore_info',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ resource_id: RESOURCE_B, include_meta: false, include_fields_schema: false }),
      });
      assert.deepEqual(JSON.parse(neither.body).result, {
        fields: full.fields.map(({ id, type }: { id: string; type: string }) => ({ id, type })),
      });
      // CKAN's boolean validator: empty means the default, an unknown word is false.
      assert.deepEqual(
        (await service.getJson(`/api/3/action/datastore_info?resource_id=${RESOURCE_B}&include_meta=`)).body.result,
        full,
      );
      assert.deepEqual(
        (await service.getJson(`/api/3/action/datastore_info?resource_id=${RESOURCE_B}&include_meta=maybe`)).body
          .result,
        { fields: full.fields },
      );
      // As CKAN's rename('id', 'resource_id'), a given id wins over resource_id.
      assert.equal(
        (await service.getJson(`/api/3/action/datastore_info?resource_id=nope&id=${RESOURCE_B}`)).body.result.meta
          .count,
        39,
      );
    });

    test('datastore_info answers by POST too', async () => {
      const response = await service.request({
        method: 'POST',
        url: '/api/3/action/datastore_info',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ id: RESOURCE_C }),
      });
      assert.equal(response.statusCode, 200);
      assert.equal(JSON.parse(response.body).result.meta.count, 5015);
    });
  });
