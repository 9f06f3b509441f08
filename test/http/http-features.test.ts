// HTTP done properly: CORS, compression, ETags and 304s, Cache-Control, and the OpenAPI description kept in step
// with the parameter tables.

import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { createActions } from '../../src/actions/registry.js';
import { dumpParamSpecs } from '../../src/actions/datastore-dump.js';
import { RESOURCE_A, RESOURCE_B, startService, type TestService, TEST_BACKENDS } from '../helpers/service.js';

const SEARCH = `/api/3/action/datastore_search?resource_id=${RESOURCE_A}`;

for (const backend of TEST_BACKENDS)
  describe(`HTTP [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({ cacheControl: 'public, max-age=60' }, backend);
    });
    after(() => service.close());

    test('CORS: any origin for GET and POST, preflight answered', async () => {
      const get = await service.request({ url: SEARCH, headers: { origin: 'https://dashboard.example' } });
      assert.equal(get.headers['access-control-allow-origin'], '*');
      const preflight = await service.request({
        method: 'OPTIONS',
        url: '/api/3/action/datastore_search',
        headers: {
          origin: 'https://dashboard.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      assert.equal(preflight.statusCode, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], '*');
      assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
      assert.equal(preflight.headers['access-control-allow-headers'], 'content-type');
    });

    test('compression: brotli or gzip as negotiated, for bodies worth it', async () => {
      const plain = await service.request(SEARCH);
      const br = await service.request({ url: SEARCH, headers: { 'accept-encoding': 'br;q=1, gzip;q=0.5' } });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body);
      assert.ok(br.rawPayload.length < plain.rawPayload.length / 4);
      const gzip = await service.request({ url: SEARCH, headers: { 'accept-encoding': 'gzip' } });
      assert.equal(gzip.headers['content-encoding'], 'gzip');
      assert.equal(gunzipSync(gzip.rawPayload).toString(), plain.body);
      assert.match(String(gzip.headers.vary), /accept-encoding/i);
      const small = await service.request({ url: '/api/3', headers: { 'accept-encoding': 'gzip' } });
      assert.equal(small.headers['content-encoding'], undefined);
      const dump = await service.request({
        url: `/datastore/dump/${RESOURCE_A}`,
        headers: { 'accept-encoding': 'gzip' },
      });
      assert.equal(dump.headers['content-encoding'], 'gzip');
      assert.ok(gunzipSync(dump.rawPayload).toString().startsWith('_id,Constituency,'));
    });

    test('ETags: from the data version (and its indexes) and the request; If-None-Match gives 304 without a body', async () => {
      const first = await service.request(SEARCH);
      const tag = first.headers.etag as string;
      assert.match(tag, /^W\/"[0-9a-f]{16}\.[0-9a-f]{8}-[\w-]+"$/);
      assert.equal((await service.request(SEARCH)).headers.etag, tag, 'the same request, the same tag');
      assert.notEqual((await service.request(`${SEARCH}&limit=1`)).headers.etag, tag);
      const revalidated = await service.request({ url: SEARCH, headers: { 'if-none-match': `"other", ${tag}` } });
      assert.equal(revalidated.statusCode, 304);
      assert.equal(revalidated.body, '');
      assert.equal(revalidated.headers.etag, tag);
      assert.equal(revalidated.headers['cache-control'], 'public, max-age=60');
      const stale = await service.request({ url: SEARCH, headers: { 'if-none-match': 'W/"0000000000000000-old"' } });
      assert.equal(stale.statusCode, 200);
      const post = await service.request({
        method: 'POST',
        url: '/api/3/action/datastore_search',
        headers: { 'content-type': 'application/json', 'if-none-match': tag },
        payload: JSON.stringify({ resource_id: RESOURCE_A }),
      });
      assert.equal(post.statusCode, 200, 'a POST is answered in full');
      assert.ok(post.headers.etag);
      const dump = await service.request(`/datastore/dump/${RESOURCE_B}`);
      assert.equal(
        (
          await service.request({
            url: `/datastore/dump/${RESOURCE_B}`,
            headers: { 'if-none-match': dump.headers.etag as string },
          })
        ).statusCode,
        304,
      );
    });

    test('the tag changes when the data version changes', async () => {
      const { entityTag } = await import('../../src/http/caching.js');
      const request = { method: 'GET', url: SEARCH, origin: null };
      assert.notEqual(entityTag('aaaaaaaaaaaaaaaa', request), entityTag('bbbbbbbbbbbbbbbb', request));
      assert.equal(
        entityTag('aaaaaaaaaaaaaaaa', { ...request, method: 'HEAD' }),
        entityTag('aaaaaaaaaaaaaaaa', request),
        'HEAD is GET without the body',
      );
    });

    test('Cache-Control comes from the setting on every answer, errors included', async () => {
      assert.equal((await service.request(SEARCH)).headers['cache-control'], 'public, max-age=60');
      assert.equal(
        (await service.request('/api/3/action/datastore_search?resource_id=nope')).headers['cache-control'],
        'public, max-age=60',
      );
    });

    test("OpenAPI 3.1: every action and parameter, generated from the validator's tables", async () => {
      const { status, body: doc } = await service.getJson('/api/3/openapi.json');
      assert.equal(status, 200);
      assert.equal(doc.openapi, '3.1.0');
      const actions = createActions(service.settings);
      for (const action of actions.values()) {
        const path = doc.paths[`/api/3/action/${action.name}`];
        assert.ok(path, action.name);
        assert.deepEqual(
          path.get.parameters.map((p: any) => p.name),
          [...action.params.map((p) => p.name), 'callback'],
        );
        assert.deepEqual(
          Object.keys(path.post.requestBody.content['application/json'].schema.properties ?? {}),
          action.params.map((p) => p.name),
        );
        for (const spec of action.params) {
          const documented = path.get.parameters.find((p: any) => p.name === spec.name);
          assert.ok(documented.description.startsWith(spec.description), `${action.name}.${spec.name} description`);
        }
        assert.ok(path.get.responses['200'] && path.get.responses['409']);
      }
      const dumpPath = doc.paths['/datastore/dump/{resource_id}'];
      assert.deepEqual(
        dumpPath.get.parameters.slice(1).map((p: any) => p.name),
        dumpParamSpecs(service.settings).map((p) => p.name),
      );
    });

    test('every documented example is accepted by the service', async () => {
      const actions = createActions(service.settings);
      const encode = (value: unknown) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));
      for (const action of actions.values()) {
        for (const spec of action.params) {
          if (spec.example === undefined) continue;
          const base =
            (action.name === 'datastore_search' || action.name === 'datastore_info') && spec.name !== 'resource_id'
              ? `resource_id=${RESOURCE_A}&`
              : '';
          const response = await service.request(
            `/api/3/action/${action.name}?${base}${spec.name}=${encode(spec.example)}`,
          );
          assert.equal(
            response.statusCode,
            200,
            `${action.name} ${spec.name}=${JSON.stringify(spec.example)}: ${response.body.slice(0, 300)}`,
          );
        }
      }
      for (const spec of dumpParamSpecs(service.settings)) {
        if (spec.example === undefined) continue;
        const response = await service.request(`/datastore/dump/${RESOURCE_A}?${spec.name}=${encode(spec.example)}`);
        assert.equal(response.statusCode, 200, `dump ${spec.name}`);
      }
    });
  });
