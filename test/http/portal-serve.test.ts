// The whole-portal commands as an operator runs them, against the tests' double of a portal: `count-centre mirror URL
// --all`, then `count-centre serve` with no other setting stands in front of the portal (the copy answers the
// DataStore, the portal everything else), polls it, and withdraws a dataset made private upstream. On both stores.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ckanTime, FakeCkan, SAMPLE_FIELDS, sampleRecords } from '../helpers/fake-ckan.js';
import { folderEnv, runCli, startServerProcess, type ServerProcess } from '../helpers/processes.js';
import { createTestDatabase, httpCall, TEST_BACKENDS } from '../helpers/service.js';

for (const backend of TEST_BACKENDS)
  describe(`count-centre mirror --all, then serve [${backend}]`, () => {
    let dir: string;
    let portal: FakeCkan;
    let server: ServerProcess;
    let env: Record<string, string>;
    let database: { url: string; drop(): Promise<void> } | null = null;

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-portal-serve-'));
      portal = await new FakeCkan({
        version: '2.10',
        sql: false,
        rowsMax: 100,
        fields: SAMPLE_FIELDS,
        records: sampleRecords(30),
      }).start();
      writeFileSync(path.join(dir, 'catalog.json'), '{\n  "datasets": []\n}\n');
      if (backend === 'postgres') database = await createTestDatabase();
      env = folderEnv(dir, { databaseUrl: database?.url });
    });
    after(async () => {
      await server?.stop();
      await portal?.stop();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('mirror --all copies every public DataStore resource and names the portal in the catalogue', async () => {
      const run = await runCli(['mirror', portal.url, '--all', '--exclude-organization', 'another-org'], env);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /: 1 datasets readable by anyone/);
      const catalog = JSON.parse(readFileSync(env.COUNTCENTRE_CATALOG!, 'utf8')) as {
        portal: unknown;
        datasets: { name: string; resources: { id: string }[] }[];
      };
      assert.deepEqual(catalog.portal, { url: portal.url, exclude_organizations: ['another-org'] });
      assert.deepEqual(
        catalog.datasets.map((d) => [d.name, d.resources.map((r) => r.id)]),
        [[portal.datasetName, [portal.resourceId]]],
      );
      const searches = portal.requests('package_search');
      assert.equal(searches[0]?.params.fq, '-organization:"another-org"');
      assert.equal(searches[0]?.params.include_private, false);
    });

    test('--max-rows leaves a larger resource to the portal; the wrong options are refused', async () => {
      const run = await runCli(['mirror', portal.url, '--all', '--max-rows', '10', '--dry-run'], env);
      assert.equal(run.code, 4, run.stdout);
      assert.match(run.stdout, /30 records, more than the 10 copied at most: left to the portal/);
      for (const args of [
        ['mirror', portal.url, '--all', 'a-dataset'],
        ['mirror', portal.url, 'a-dataset', '--max-rows', '5'],
        ['mirror', portal.url, '--all', '--max-rows', 'many'],
      ]) {
        const refused = await runCli(args, env);
        assert.equal(refused.code, 2, args.join(' '));
      }
    });

    test('serve, with no other setting, stands in front of the portal', async () => {
      server = await startServerProcess({ ...env, COUNTCENTRE_PORTAL_POLL_SECONDS: '1' });
      assert.match(server.output(), /"portal":"http:\/\/127\.0\.0\.1:\d+\/","explorer":"\/explore\/"/);
      const copy = await httpCall(server.port, `/api/3/action/datastore_search?resource_id=${portal.resourceId}`);
      assert.equal(copy.statusCode, 200);
      assert.match(String(copy.headers['server-timing']), /origin;desc="copy"/);
      const list = await httpCall(server.port, '/api/3/action/package_list');
      assert.equal(list.body, (await httpCall(portal.port, '/api/3/action/package_list')).body);
      assert.match(String(list.headers['server-timing']), /origin;desc="portal"/);
    });

    test('a dataset made private upstream is no longer served from the next poll on', async () => {
      portal.visibility = 'private';
      portal.datasetModified = ckanTime();
      const url = `/api/3/action/datastore_search?resource_id=${portal.resourceId}`;
      const started = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - started < 20_000) {
        status = (await httpCall(server.port, url)).statusCode;
        if (status === 200) await delay(200);
      }
      assert.equal(status, 403, 'refused by the portal, the copy withdrawn');
      // The poll says what it did once the new version is served: a moment after.
      const said = /portal: 0 datasets changed, 1 withdrawn/;
      for (let waited = 0; !said.test(server.output()) && waited < 5000; waited += 100) await delay(100);
      assert.match(server.output(), said);
      const catalog = JSON.parse(readFileSync(env.COUNTCENTRE_CATALOG!, 'utf8')) as { datasets: unknown[] };
      assert.deepEqual(catalog.datasets, []);
    });

    test('made public again, it is copied again at the next poll', async () => {
      portal.visibility = 'public';
      portal.datasetModified = ckanTime();
      const url = `/api/3/action/datastore_search?resource_id=${portal.resourceId}`;
      const started = Date.now();
      let origin = '';
      while (!origin.includes('copy') && Date.now() - started < 20_000) {
        origin = String((await httpCall(server.port, url)).headers['server-timing']);
        if (!origin.includes('copy')) await delay(200);
      }
      assert.match(origin, /origin;desc="copy"/);
    });
  });
