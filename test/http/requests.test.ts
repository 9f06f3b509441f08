// How requests reach datastore_search: routes, methods, body kinds and CKAN's precedence between them, and
// the envelope every answer comes in.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RESOURCE_A, RESOURCE_B, startService, type TestService, TEST_BACKENDS } from '../helpers/service.js';

const SEARCH = '/api/3/action/datastore_search';
const RESULT_KEYS = [
  'include_total',
  'limit',
  'records_format',
  'resource_id',
  'total_estimation_threshold',
  'records',
  'fields',
  '_links',
  'total',
  'total_was_estimated',
];

for (const backend of TEST_BACKENDS)
  describe(`datastore_search requests [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({ siteUrl: 'https://data.example.ie' }, backend);
    });
    after(() => service.close());

    test('GET answers with the envelope, its headers and the result keys in CKAN order', async () => {
      const response = await service.request(`${SEARCH}?resource_id=${RESOURCE_B}&limit=2`);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/json;charset=utf-8');
      assert.equal(response.headers['cache-control'], 'public, max-age=0, must-revalidate');
      const body = JSON.parse(response.body);
      assert.deepEqual(Object.keys(body), ['help', 'success', 'result']);
      assert.equal(body.help, 'https://data.example.ie/en/api/3/action/help_show?name=datastore_search');
      assert.equal(body.success, true);
      assert.deepEqual(Object.keys(body.result), RESULT_KEYS);
      assert.deepEqual(body.result._links, {
        start: `${SEARCH}?resource_id=${RESOURCE_B}&limit=2`,
        next: `${SEARCH}?resource_id=${RESOURCE_B}&limit=2&offset=2`,
      });
      assert.equal(body.result.total, 39);
      assert.equal(body.result.total_was_estimated, false);
      assert.deepEqual(
        body.result.records.map((r: any) => r._id),
        [1, 2],
      );
      // The envelope is CKAN's simplejson layout: ", " and ": " separators; records are spliced in compact.
      assert.ok(
        response.body.startsWith(
          '{"help": "https://data.example.ie/en/api/3/action/help_show?name=datastore_search", "success": true, "result": {"include_total": true, "limit": 2, ',
        ),
      );
      assert.ok(response.body.includes('"records": [{"_id":1,"Constituency Name":"Carlow Kilkenny",'));
    });

    test('help comes from the request host when SITE_URL is not set', async () => {
      const other = await startService({ siteUrl: null, locale: 'ga' }, backend);
      try {
        const response = await other.request({
          url: `${SEARCH}?resource_id=${RESOURCE_B}&limit=0`,
          headers: { host: 'portal.example:8080' },
        });
        assert.equal(
          JSON.parse(response.body).help,
          'http://portal.example:8080/ga/api/3/action/help_show?name=datastore_search',
        );
      } finally {
        await other.close();
      }
    });

    test('/api/action/… and /{locale}/api/3/action/… serve the same action; links keep the path without locale', async () => {
      const plain = await service.getJson(`/api/action/datastore_search?resource_id=${RESOURCE_B}&limit=1`);
      assert.equal(plain.status, 200);
      assert.equal(plain.body.result._links.start, `/api/action/datastore_search?resource_id=${RESOURCE_B}&limit=1`);
      const localised = await service.getJson(`/en/api/3/action/datastore_search?resource_id=${RESOURCE_B}&limit=1`);
      assert.equal(localised.status, 200);
      assert.equal(localised.body.result._links.start, `${SEARCH}?resource_id=${RESOURCE_B}&limit=1`);
      assert.deepEqual(localised.body.result.records, plain.body.result.records);
    });

    test('POST with a JSON body gives the same records; links carry only the offset', async () => {
      const get = await service.getJson(`${SEARCH}?resource_id=${RESOURCE_A}&limit=3&sort=Votes desc`);
      const post = await service.request({
        method: 'POST',
        url: SEARCH,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ resource_id: RESOURCE_A, limit: 3, sort: 'Votes desc' }),
      });
      assert.equal(post.statusCode, 200);
      const body = JSON.parse(post.body);
      assert.deepEqual(body.result.records, get.body.result.records);
      assert.deepEqual(body.result._links, { start: SEARCH, next: `${SEARCH}?offset=3` });
      assert.equal(body.result.sort, 'Votes desc');
    });

    test('POST with a form body decodes like a query string', async () => {
      const post = await service.request({
        method: 'POST',
        url: SEARCH,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `resource_id=${RESOURCE_A}&limit=2&fields=Surname&fields=Votes`,
      });
      assert.equal(post.statusCode, 200);
      const body = JSON.parse(post.body);
      assert.deepEqual(body.result.records, [
        { Surname: 'AYLWARD', Votes: 7550 },
        { Surname: 'BYRNE', Votes: 992 },
      ]);
      assert.deepEqual(body.result.fields, [
        { id: 'Surname', type: 'text' },
        { id: 'Votes', type: 'numeric' },
      ]);
    });

    test("curl -d '{…}' (JSON sent as a form field name) is read as JSON, as CKAN does", async () => {
      const post = await service.request({
        method: 'POST',
        url: SEARCH,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: JSON.stringify({ resource_id: RESOURCE_B, limit: 1 }),
      });
      assert.equal(post.statusCode, 200);
      assert.equal(JSON.parse(post.body).result.limit, 1);
    });

    test('POST with a query string ignores the JSON body (CKAN precedence for read actions)', async () => {
      const post = await service.request({
        method: 'POST',
        url: `${SEARCH}?resource_id=${RESOURCE_B}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ resource_id: RESOURCE_A, limit: 1 }),
      });
      const body = JSON.parse(post.body);
      assert.equal(body.result.resource_id, RESOURCE_B);
      assert.equal(body.result.limit, 100);
    });

    test('a POST body without a content type is read as JSON', async () => {
      const post = await service.request({
        method: 'POST',
        url: SEARCH,
        payload: JSON.stringify({ id: RESOURCE_B, limit: 0 }),
      });
      assert.equal(post.statusCode, 200);
      assert.equal(JSON.parse(post.body).result.total, 39);
    });

    test('`id` is a synonym of resource_id and wins when both are given; it is not echoed', async () => {
      const both = await service.getJson(`${SEARCH}?resource_id=${RESOURCE_A}&id=${RESOURCE_B}&limit=0`);
      assert.equal(both.body.result.resource_id, RESOURCE_B);
      assert.equal(both.body.result.total, 39);
      assert.equal('id' in both.body.result, false);
    });

    test('HEAD is answered like GET without a body', async () => {
      const response = await service.request({ method: 'HEAD', url: `${SEARCH}?resource_id=${RESOURCE_B}` });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/json;charset=utf-8');
      assert.equal(response.body, '');
    });

    test('JSONP: a GET with callback is wrapped; errors are not', async () => {
      const response = await service.request(`${SEARCH}?resource_id=${RESOURCE_B}&limit=1&callback=show`);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/javascript;charset=utf-8');
      assert.ok(response.body.startsWith('show({"help": '));
      assert.ok(response.body.endsWith('});'));
      const inner = JSON.parse(response.body.slice('show('.length, -2));
      assert.equal(inner.result.limit, 1);
      const failed = await service.request(`${SEARCH}?resource_id=nope&callback=show`);
      assert.equal(failed.statusCode, 404);
      assert.equal(failed.headers['content-type'], 'application/json;charset=utf-8');
      assert.ok(failed.body.startsWith('{"help"'));
    });

    test('/api and /api/3 answer with the API version', async () => {
      for (const url of ['/api', '/api/3']) {
        const response = await service.request(url);
        assert.equal(response.statusCode, 200);
        assert.equal(response.body, '{"version": 3}');
      }
    });
  });
