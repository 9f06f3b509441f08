// Offset marks (src/actions/offset-marks.ts): a deep page of a sorted search, started from a remembered record, gives
// the same bytes as the page found by stepping over every record before it, on both stores; each order (with its
// filters) is walked once per version of the data; a resource too large to wait for its walk is answered without
// marks until the walk is done, then from them; and a walk that fails is not repeated.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { offsetMarkStats, pageFromMark } from '../../src/actions/offset-marks.js';
import type { SearchPlan } from '../../src/query/plan.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch } from '../../src/query/search-plan.js';
import { RESOURCE_C, startService, TEST_BACKENDS, type TestService } from '../helpers/service.js';

const SEARCH = '/api/3/action/datastore_search';
const EVERY = 50;

function searchUrl(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    query.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  return `${SEARCH}?${query}`;
}

for (const backend of TEST_BACKENDS)
  describe(`deep pages start from offset marks [${backend}]`, () => {
    let marked: TestService;
    let plain: TestService;
    let total: number;

    before(async () => {
      marked = await startService({ responseCacheMb: 0, residentMb: 0, offsetMarkEvery: EVERY }, backend);
      plain = await startService({ responseCacheMb: 0, residentMb: 0, offsetMarkEvery: 0 }, backend);
      total = (await plain.getJson(searchUrl({ resource_id: RESOURCE_C, limit: 0 }))).body.result.total as number;
    });
    after(async () => {
      await marked?.close();
      await plain?.close();
    });

    test('the same bytes with marks as without, from one walk of each order', async () => {
      assert.ok(total > 20 * EVERY, `${total} records`);
      const orders: { sort: string; filters?: Record<string, unknown>; q?: string }[] = [
        { sort: 'Votes desc' },
        { sort: 'Candidate surname' },
        // Empty cells first, then ties broken by a second field and by _id.
        { sort: 'Result desc nulls first, Votes' },
        { sort: 'Constituency Name nulls first, Count Number desc, _id desc' },
        { sort: '_id desc', filters: { 'Count Number': { gte: 2 } } },
        { sort: 'Candidate Id, Count Number', q: 'Dublin' },
      ];
      const offsets = [0, EVERY - 1, EVERY, EVERY + 1, 20 * EVERY - 1, 1234, total - 101, total - 1, total, total + 5];
      const walksBefore = offsetMarkStats().offset_mark_walks;
      const pagesBefore = offsetMarkStats().offset_mark_pages;
      let compared = 0;
      for (const order of orders)
        for (const offset of offsets)
          for (const [limit, format] of [
            [100, 'objects'],
            [1, 'csv'],
          ] as const) {
            const url = searchUrl({
              resource_id: RESOURCE_C,
              ...order,
              offset,
              limit,
              records_format: format,
              include_next_page: true,
            });
            const [a, b] = await Promise.all([marked.request(url), plain.request(url)]);
            assert.equal(a.statusCode, 200, `${url}\n${a.body.slice(0, 300)}`);
            assert.equal(a.body, b.body, url);
            compared += 1;
          }
      assert.equal(compared, orders.length * offsets.length * 2);
      // One walk an order; most of the deep pages started from a mark (the full-text order's records are fewer).
      assert.equal(offsetMarkStats().offset_mark_walks - walksBefore, orders.length);
      assert.ok(offsetMarkStats().offset_mark_pages - pagesBefore >= 40, JSON.stringify(offsetMarkStats()));
      const metrics = (await marked.request('/metrics')).body;
      assert.match(metrics, /countcentre_store\{figure="offset_mark_walks"\} \d+/);
    });

    test('a resource too large to wait for its walk is answered without marks until the walk is done', async () => {
      const { services } = marked.prepared;
      const resource = services.catalog.get(RESOURCE_C)!;
      // The same records, said to be many more: the first deep page does not wait for the walk.
      const large = { ...resource, total: 1_000_000 };
      const request = readSearchRequest(
        { resource_id: RESOURCE_C, sort: 'Candidate surname desc, Votes', offset: 1100 },
        services.settings,
      );
      const plan = planSearch(request, large, { defaultLanguage: services.settings.ftsLanguage }) as SearchPlan;
      assert.equal(plan.offset, 1100);
      const first = await pageFromMark(plan, large, services);
      assert.equal(first, plan);
      let started: SearchPlan = plan;
      for (let tries = 0; tries < 200 && started === plan; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        started = await pageFromMark(plan, large, services);
      }
      // Marks every 500 records of a resource of 1,000,000 (at most 2,000 an order): the page starts after the 2nd.
      assert.notEqual(started, plan);
      assert.equal(started.offset, 100);
      assert.notEqual(started.where, null);
    });
    test('a walk that fails leaves pages as planned, and is not tried again for that version', async () => {
      const { services } = marked.prepared;
      let asked = 0;
      // The store as it is, but every statement fails (a time limit, an outage).
      const failing = Object.create(services.backend) as typeof services.backend;
      failing.rows = async () => {
        asked += 1;
        throw new Error('the store is down');
      };
      const resource = { ...services.catalog.get(RESOURCE_C)! };
      const request = readSearchRequest({ resource_id: RESOURCE_C, sort: 'Votes', offset: 2000 }, services.settings);
      const plan = planSearch(request, resource, { defaultLanguage: services.settings.ftsLanguage }) as SearchPlan;
      const failedBefore = offsetMarkStats().offset_mark_walks_failed;
      assert.equal(await pageFromMark(plan, resource, { ...services, backend: failing }), plan);
      assert.equal(await pageFromMark(plan, resource, { ...services, backend: failing }), plan);
      assert.equal(asked, 1);
      assert.equal(offsetMarkStats().offset_mark_walks_failed - failedBefore, 1);
    });
  });
