// The explorer's own debts to its versions of the data, on both stores: a page made again after a reload is kept and
// tagged as the new version's page; facet counts come from one grouped statement per field; what a version works
// out (election models, facet counts) is kept with its services and starts afresh with a new version's.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Services, ServiceState } from '../../src/actions/types.js';
import type { ApiRequest, ApiResponse } from '../../src/http/core.js';
import { DataVersionMoved, type StoreVersion } from '../../src/storage/backend.js';
import { VersionMemos } from '../../src/util/version-memos.js';
import { createPageCore } from '../../src/web/index.js';
import { RESOURCE_A, silentLogger, startService, TEST_BACKENDS, type TestService } from '../helpers/service.js';

const PARTIES = '/election/general-election-2020/parties';

function get(url: string, headers: Record<string, string> = {}): ApiRequest {
  return { method: 'GET', url, headers, origin: 'http://localhost' };
}

async function bodyOf(response: ApiResponse): Promise<string> {
  const body = (response as { body?: unknown }).body;
  return Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? '');
}

/** A version of the store whose every read says a load replaced it, under a version name of its own. */
function movedVersion(real: StoreVersion): StoreVersion {
  const gone = async () => {
    throw new DataVersionMoved('replaced by a test');
  };
  return Object.create(real, {
    rows: { value: gone },
    bulkRows: { value: gone },
    count: { value: gone },
    datasetVersion: { value: 'a-version-since-replaced' },
  });
}

for (const backend of TEST_BACKENDS)
  describe(`the explorer and versions of the data [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    test("a page made again after a reload is kept, and tagged, as the new version's page", async () => {
      const real = service.prepared.services;
      // No resident tables on the replaced version: its every read goes to the store, which says it moved.
      let current: Services = {
        settings: real.settings,
        catalog: real.catalog,
        backend: movedVersion(real.backend),
        memos: new VersionMemos(),
      };
      let refreshed = 0;
      const state: ServiceState = {
        get current() {
          return current;
        },
        acquire: () => ({ services: current, release() {} }),
        refresh: async () => {
          refreshed += 1;
          current = real;
          return true;
        },
      };
      const pages = createPageCore(state, silentLogger);
      const first = await pages(get(PARTIES));
      assert.equal(first.status, 200);
      assert.equal(refreshed, 1);
      const tag = String(first.headers.etag);
      assert.ok(
        tag.startsWith(`W/"${real.backend.datasetVersion}-`),
        `${tag} names the version the page was made from`,
      );
      // Kept under the new version's key: the next request, reading that version, is answered from memory (a 304 is
      // only given for a kept page), with the same tag.
      const again = await pages(get(PARTIES, { 'if-none-match': tag }));
      assert.equal(again.status, 304);
      const whole = await pages(get(PARTIES));
      assert.equal(whole.headers.etag, tag);
      assert.equal(await bodyOf(whole), await bodyOf(first));
    });

    test('facet counts: one grouped statement per field, kept with the version', async () => {
      const real = service.prepared.services;
      const statements: string[] = [];
      const spying: StoreVersion = Object.create(real.backend, {
        rows: { value: (query: { sql: string }) => (statements.push(query.sql), real.backend.rows(query as never)) },
      });
      const services: Services = { ...real, backend: spying, memos: new VersionMemos() };
      const state: ServiceState = {
        current: services,
        acquire: () => ({ services, release() {} }),
        refresh: async () => false,
      };
      const pages = createPageCore(state, silentLogger);
      const url = `/resource/${RESOURCE_A}?filters=${encodeURIComponent('{"Party Abbreviation":"F.F."}')}`;
      assert.equal((await pages(get(url))).status, 200);
      const grouped = statements.filter((sql) => /GROUP BY/.test(sql) && /count\(\*\)/.test(sql));
      // The default facets are found with one grouped statement per text field, then the view's three are counted.
      const textFields = real.catalog.get(RESOURCE_A)!.fields.filter((f) => f.type === 'text').length;
      assert.equal(grouped.length, textFields + 3);
      assert.equal(statements.filter((sql) => /count\(\*\)/.test(sql)).length, grouped.length, 'no count per value');

      // Another page of the same view counts nothing again: the counts are kept with this version's services.
      statements.length = 0;
      assert.equal((await pages(get(`${url}&offset=25&limit=25`))).status, 200);
      assert.deepEqual(
        statements.filter((sql) => /GROUP BY/.test(sql)),
        [],
      );
    });
  });
