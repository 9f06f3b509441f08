// A mirror answers as its upstream does: a second Count Centre process serves the elections as a CKAN portal;
// general-election-2020 is mirrored from it through its public API (on each store), and every captured CKAN contract
// example is sent to both: the mirror's status, content type and body must be the upstream's.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { planMirror } from '../../src/cli/mirror.js';
import {
  httpCall,
  startService,
  TEST_BACKENDS,
  TEST_TMP,
  type TestResponse,
  type TestService,
} from '../helpers/service.js';
import { startServerProcess, type ServerProcess } from '../helpers/processes.js';
import { ckanExampleCases } from '../helpers/ckan-examples.js';

const cases = ckanExampleCases();

/** The store's own sizes are the only thing datastore_info may say differently. */
function comparable(slug: string, body: string): string {
  if (slug !== 'datastore-info') return body;
  const parsed = JSON.parse(body) as { result: { meta: Record<string, unknown> } };
  for (const key of ['size', 'db_size', 'idx_size']) parsed.result.meta[key] = 0;
  return JSON.stringify(parsed);
}

/** Ties in a GROUP BY's order are PostgreSQL's to break: the rows are compared as a set, their counts in order. */
function sameUpToTies(actual: string, expected: string): void {
  const a = JSON.parse(actual) as { result: { records: { n: number }[] } };
  const e = JSON.parse(expected) as { result: { records: { n: number }[] } };
  assert.deepEqual(
    a.result.records.map((r) => r.n),
    e.result.records.map((r) => r.n),
  );
  const sorted = (records: unknown[]) => records.map((r) => JSON.stringify(r)).sort();
  assert.deepEqual(sorted(a.result.records), sorted(e.result.records));
}

let upstream: ServerProcess;

before(async () => {
  // The upstream serves the checkout's elections (the file the other suites build), loaded before it starts.
  const elections = await startService({}, 'sqlite');
  await elections.close();
  upstream = await startServerProcess({
    COUNTCENTRE_DB: path.join(TEST_TMP, 'election.sqlite'),
    COUNTCENTRE_LOAD_ON_START: 'false',
  });
});
after(() => upstream.stop());

for (const backend of TEST_BACKENDS)
  describe(`a mirror of general-election-2020 answers the contract examples as its upstream [${backend}]`, () => {
    let dir: string;
    let mirror: TestService;

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-mirror-contract-'));
      const catalog = path.join(dir, 'catalog.json');
      const plan = await planMirror({ portal: upstream.url, ids: ['general-election-2020'] }, catalog);
      writeFileSync(catalog, plan.catalogText);
      mirror = await startService(
        { catalog, sources: dir, databasePath: path.join(dir, 'store.sqlite'), mirrorSettleSeconds: 0 },
        backend,
      );
    });
    after(async () => {
      await mirror?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('every resource of the dataset was copied, with its records', () => {
      const outcomes = mirror.prepared.build!.outcomes;
      assert.deepEqual(
        outcomes.map((o) => [o.status, o.rows, o.method, o.warning]),
        [
          ['loaded', 531, 'dump', undefined],
          ['loaded', 39, 'dump', undefined],
          ['loaded', 5015, 'dump', undefined],
          ['loaded', 432, 'dump', undefined],
        ],
        "copied from the upstream's dumps, which verified",
      );
    });

    for (const c of cases) {
      test(`${c.slug}: ${c.method} ${decodeURIComponent(c.url)}`, async () => {
        const request = {
          method: c.method,
          url: c.url,
          ...(c.request_body !== null ? { payload: c.request_body } : {}),
          ...(c.request_content_type ? { headers: { 'content-type': c.request_content_type } } : {}),
        };
        const [theirs, ours] = (await Promise.all([httpCall(upstream.port, request), mirror.request(request)])) as [
          TestResponse,
          TestResponse,
        ];
        assert.equal(ours.statusCode, theirs.statusCode, ours.body.slice(0, 300));
        assert.equal(ours.headers['content-type'], theirs.headers['content-type']);
        assert.equal(ours.headers['content-disposition'], theirs.headers['content-disposition']);
        if (c.slug === 'sql-select-group-by' && backend === 'postgres') sameUpToTies(ours.body, theirs.body);
        else assert.equal(comparable(c.slug, ours.body), comparable(c.slug, theirs.body));
      });
    }
  });
