// The catalogue actions: package_list, package_show, resource_show, status_show, site_read, and _table_metadata.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RESOURCE_A, RESOURCE_B, RESOURCE_C, startService, type TestService, TEST_BACKENDS } from '../helpers/service.js';

for (const backend of TEST_BACKENDS) describe(`catalogue actions [${backend}]`, () => {
  let service: TestService;
  before(async () => {
    service = await startService({ siteUrl: 'https://data.example.ie' }, backend);
  });
  after(() => service.close());

  const action = async (name: string, query = '') => {
    const { status, body } = await service.getJson(`/api/3/action/${name}${query}`);
    return { status, body };
  };

  test('package_list names the dataset; limit and offset page it', async () => {
    assert.deepEqual((await action('package_list')).body.result, ['general-election-2020']);
    assert.deepEqual((await action('package_list', '?limit=1&offset=1')).body.result, []);
    const bad = await action('package_list', '?limit=-1');
    assert.equal(bad.status, 409);
    assert.deepEqual(bad.body.error.limit, ['Must be a natural number']);
  });

  test('package_show by name or id: licence, attribution, organisation, the three resources in order', async () => {
    const { status, body } = await action('package_show', '?id=general-election-2020');
    assert.equal(status, 200);
    const dataset = body.result;
    assert.equal(dataset.name, 'general-election-2020');
    assert.equal(dataset.license_id, 'CC-BY-SA-4.0');
    assert.equal(dataset.license_title, 'Creative Commons Attribution-ShareAlike 4.0');
    assert.equal(dataset.isopen, true);
    assert.deepEqual(dataset.extras, [{ key: 'attribution', value: 'Source: Department of Housing, Local Government and Heritage / data.gov.ie. Licensed under CC BY-SA 4.0.' }]);
    assert.equal(dataset.organization.title, 'Department of Housing, Local Government and Heritage');
    assert.equal(dataset.num_resources, 3);
    assert.deepEqual(dataset.resources.map((r: any) => [r.id, r.position, r.package_id]), [[RESOURCE_A, 0, dataset.id], [RESOURCE_B, 1, dataset.id], [RESOURCE_C, 2, dataset.id]]);
    assert.match(dataset.metadata_modified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    const byId = await action('package_show', `?id=${dataset.id}`);
    assert.deepEqual(byId.body.result, dataset);
  });

  test('package_show: unknown is 404, missing id is 409', async () => {
    const unknown = await action('package_show', '?id=nope');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body.error, { __type: 'Not Found Error', message: 'Not found' });
    const missing = await action('package_show');
    assert.equal(missing.status, 409);
    assert.deepEqual(missing.body.error, { id: ['Missing value'], __type: 'Validation Error' });
  });

  test('resource_show: the dump URL, datastore_active, the source checksum', async () => {
    const { body } = await action('resource_show', `?id=${RESOURCE_B}`);
    const resource = body.result;
    assert.equal(resource.url, `https://data.example.ie/datastore/dump/${RESOURCE_B}`);
    assert.equal(resource.url_type, 'datastore');
    assert.equal(resource.datastore_active, true);
    assert.equal(resource.format, 'CSV');
    assert.equal(resource.hash, 'sha256:390d80f04b2096ee473f4c9d16bbd87c620bd7ba6246d774ed55dec18c8577e0');
    assert.equal(resource.name, 'Constituency results 2020');
    const unknown = await action('resource_show', '?id=_table_metadata');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.message, 'Not found: Resource was not found.');
  });

  test('status_show and site_read', async () => {
    const status = (await action('status_show')).body.result;
    assert.equal(status.site_url, 'https://data.example.ie');
    assert.equal(status.ckan_version, '2.10.10');
    assert.deepEqual(status.extensions, ['datastore']);
    assert.equal((await action('site_read')).body.result, true);
  });

  test('_table_metadata lists every resource, searchable like any resource', async () => {
    const { body } = await action('datastore_search', '?resource_id=_table_metadata');
    assert.equal(body.result.total, 3);
    assert.deepEqual(body.result.records.map((r: any) => r.name), [RESOURCE_A, RESOURCE_B, RESOURCE_C]);
    assert.deepEqual(body.result.fields.map((f: any) => f.id), ['_id', 'name', 'oid', 'alias_of']);
    assert.ok(body.result.records.every((r: any) => Number.isInteger(r.oid) && r.alias_of === null));
    const filtered = await action('datastore_search', `?resource_id=_table_metadata&filters=${encodeURIComponent(JSON.stringify({ name: RESOURCE_C }))}`);
    assert.equal(filtered.body.result.total, 1);
  });

  test('help_show documents every action', async () => {
    for (const name of ['package_list', 'package_show', 'resource_show', 'status_show', 'site_read']) {
      const { status, body } = await action('help_show', `?name=${name}`);
      assert.equal(status, 200);
      assert.equal(typeof body.result, 'string');
    }
  });
});
