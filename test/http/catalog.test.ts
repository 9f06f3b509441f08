// The catalogue actions: package_list, package_show, resource_show, status_show, site_read, and _table_metadata.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  RESOURCE_A,
  RESOURCE_B,
  RESOURCE_C,
  startService,
  type TestService,
  TEST_BACKENDS,
} from '../helpers/service.js';

const CHECKS_2020 = '8eb98cee-9d9f-40a5-803f-f02b91b56329';

for (const backend of TEST_BACKENDS)
  describe(`catalogue actions [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({ siteUrl: 'https://data.example.ie' }, backend);
    });
    after(() => service.close());

    const action = async (name: string, query = '') => {
      const { status, body } = await service.getJson(`/api/3/action/${name}${query}`);
      return { status, body };
    };

    test('package_list names the datasets; limit and offset page them', async () => {
      assert.deepEqual((await action('package_list')).body.result, [
        'general-election-2011',
        'general-election-2016',
        'general-election-2020',
        'general-election-2024',
      ]);
      assert.deepEqual((await action('package_list', '?limit=1&offset=1')).body.result, ['general-election-2016']);
      assert.deepEqual((await action('package_list', '?limit=2&offset=3')).body.result, ['general-election-2024']);
      const bad = await action('package_list', '?limit=-1');
      assert.equal(bad.status, 409);
      assert.deepEqual(bad.body.error.limit, ['Must be a natural number']);
    });

    test('package_show by name or id: licence, attribution and provenance, organisation, the resources in order', async () => {
      const { status, body } = await action('package_show', '?id=general-election-2020');
      assert.equal(status, 200);
      const dataset = body.result;
      assert.equal(dataset.name, 'general-election-2020');
      assert.equal(dataset.license_id, 'CC-BY-SA-4.0');
      assert.equal(dataset.license_title, 'Creative Commons Attribution-ShareAlike 4.0');
      assert.equal(dataset.isopen, true);
      const extras = Object.fromEntries(dataset.extras.map((e: any) => [e.key, e.value]));
      assert.deepEqual(
        dataset.extras.map((e: any) => e.key),
        [
          'attribution',
          'ceann_comhairle',
          'consistency_checks',
          'election_date',
          'official_status',
          'seats',
          'source',
          'source_files',
        ],
        'sorted by key, as CKAN sorts extras',
      );
      assert.equal(
        extras.attribution,
        'Source: Department of Housing, Local Government and Heritage / data.gov.ie. Licensed under CC BY-SA 4.0.',
      );
      assert.equal(extras.official_status, 'official');
      assert.equal(extras.consistency_checks, CHECKS_2020);
      assert.equal(extras.ceann_comhairle, 'Seán Ó Fearghaíl (Kildare South), returned without a contest');
      assert.deepEqual(
        JSON.parse(extras.source_files).map((f: any) => f.path),
        ['2020/candidates_info.csv', '2020/constituencies.csv', '2020/elections2.csv'],
      );
      assert.equal(dataset.organization.title, 'Department of Housing, Local Government and Heritage');
      assert.equal(dataset.num_resources, 4);
      assert.deepEqual(
        dataset.resources.map((r: any) => [r.id, r.position, r.package_id]),
        [
          [RESOURCE_A, 0, dataset.id],
          [RESOURCE_B, 1, dataset.id],
          [RESOURCE_C, 2, dataset.id],
          [CHECKS_2020, 3, dataset.id],
        ],
      );
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
      assert.equal(status.ckan_version, '2.12.0', 'the newest CKAN read API served');
      assert.deepEqual(status.extensions, ['datastore']);
      assert.equal((await action('site_read')).body.result, true);
    });

    test('_table_metadata lists every resource, searchable like any resource', async () => {
      const { body } = await action('datastore_search', '?resource_id=_table_metadata');
      assert.equal(body.result.total, 16, 'four elections of four resources each');
      assert.deepEqual(
        body.result.records.slice(0, 4).map((r: any) => r.name),
        [RESOURCE_A, RESOURCE_B, RESOURCE_C, CHECKS_2020],
      );
      assert.deepEqual(
        body.result.fields.map((f: any) => f.id),
        ['_id', 'name', 'oid', 'alias_of'],
      );
      assert.ok(body.result.records.every((r: any) => Number.isInteger(r.oid) && r.alias_of === null));
      const filtered = await action(
        'datastore_search',
        `?resource_id=_table_metadata&filters=${encodeURIComponent(JSON.stringify({ name: RESOURCE_C }))}`,
      );
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
