// Where the time goes and what the process did, on both stores: a Server-Timing header on every API answer (parse,
// plan, query, count, serialise, total; PostgREST's form) and /metrics in Prometheus' text format, scraped here.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RESOURCE_A, RESOURCE_B, startService, type TestService, TEST_BACKENDS } from '../helpers/service.js';

/** Server-Timing's metrics by name, with their durations (ms) and descriptions. */
function serverTiming(header: string | string[] | undefined): Map<string, { dur?: number; desc?: string }> {
  assert.equal(typeof header, 'string', 'a Server-Timing header');
  const metrics = new Map<string, { dur?: number; desc?: string }>();
  for (const part of (header as string).split(',')) {
    const [name, ...params] = part.trim().split(';');
    const entry: { dur?: number; desc?: string } = {};
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key === 'dur') entry.dur = Number(value);
      if (key === 'desc') entry.desc = value!.replace(/^"|"$/g, '');
    }
    metrics.set(name!, entry);
  }
  return metrics;
}

/** A Prometheus text exposition's samples: `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

for (const backend of TEST_BACKENDS)
  describe(`observability [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    test('Server-Timing: the stages of a search, each with its time, adding up to no more than the total', async () => {
      const url = `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&filters=${encodeURIComponent('{"Party Abbreviation": "S.F."}')}&sort=Votes%20desc&limit=3`;
      const response = await service.request(url);
      assert.equal(response.statusCode, 200);
      const timing = serverTiming(response.headers['server-timing']);
      assert.deepEqual([...timing.keys()], ['parse', 'plan', 'query', 'count', 'serialise', 'total']);
      for (const [name, { dur }] of timing) assert.ok(dur !== undefined && dur >= 0 && dur < 5000, `${name}: ${dur}`);
      const stages = [...timing].filter(([name]) => name !== 'total').reduce((sum, [, { dur }]) => sum + dur!, 0);
      assert.ok(stages <= timing.get('total')!.dur! + 0.01);

      // The answer is kept the second time it is made; the third request is answered from memory.
      await service.request(url);
      const again = serverTiming((await service.request(url)).headers['server-timing']);
      assert.equal(again.get('cache')?.desc, 'hit');
      assert.ok(again.has('total'));
      const tag = response.headers.etag as string;
      const revalidated = await service.request({ url, headers: { 'if-none-match': tag } });
      assert.equal(revalidated.statusCode, 304);
      assert.equal(serverTiming(revalidated.headers['server-timing']).get('cache')?.desc, 'revalidated');
    });

    test('every API answer carries it: without a count, other actions, errors, dumps, SQL', async () => {
      const noCount = serverTiming(
        (await service.request(`/api/3/action/datastore_search?resource_id=${RESOURCE_B}&include_total=false&limit=1`))
          .headers['server-timing'],
      );
      assert.deepEqual([...noCount.keys()], ['parse', 'plan', 'query', 'serialise', 'total']);
      for (const url of [
        '/api/3/action/package_show?id=general-election-2020',
        '/api/3/action/datastore_search?resource_id=nope',
        `/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT count(*) FROM "${RESOURCE_B}"`)}`,
        `/datastore/dump/${RESOURCE_B}?limit=2`,
        '/api/3',
      ]) {
        const response = await service.request(url);
        assert.ok(serverTiming(response.headers['server-timing']).has('total'), url);
      }
    });

    test('/metrics: requests by action and status, latency, the response cache, the data version, the store, the process', async () => {
      for (let i = 0; i < 3; i++)
        await service.request(`/api/3/action/datastore_search?resource_id=${RESOURCE_B}&limit=2&offset=1`);
      await service.request('/api/3/action/datastore_search?resource_id=nope');
      const response = await service.request('/metrics');
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      assert.equal(response.headers['cache-control'], 'no-store');
      const metrics = samples(response.body);
      assert.ok((metrics.get('countcentre_requests_total{action="datastore_search",status="200"}') ?? 0) >= 2);
      assert.ok((metrics.get('countcentre_requests_total{action="datastore_search",status="404"}') ?? 0) >= 1);
      assert.ok((metrics.get('countcentre_request_duration_seconds_count{action="datastore_search"}') ?? 0) >= 3);
      assert.ok(metrics.has('countcentre_request_duration_seconds_bucket{le="0.005",action="datastore_search"}'));
      assert.ok((metrics.get('countcentre_response_cache_lookups_total{result="hit"}') ?? 0) >= 1);
      assert.ok((metrics.get('countcentre_response_cache_lookups_total{result="miss"}') ?? 0) >= 2);
      assert.ok((metrics.get('countcentre_response_cache_bytes') ?? 0) > 0);
      const version = (await service.getJson('/healthz')).body.dataset_version;
      assert.equal(metrics.get(`countcentre_data_version_info{version="${version}"}`), 1);
      assert.equal(metrics.get('countcentre_data_reloads_total'), 0);
      assert.equal(metrics.get('countcentre_store{figure="versions_open"}'), 1);
      if (backend === 'postgres') assert.ok(metrics.has('countcentre_store{figure="primary_search_connections"}'));
      else assert.ok(metrics.has('countcentre_store{figure="query_workers_busy"}'));
      assert.ok((metrics.get('countcentre_process_resident_memory_bytes') ?? 0) > 10_000_000);
    });
  });
