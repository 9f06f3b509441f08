// The mirror against a real CKAN with its DataStore, opt-in: set COUNTCENTRE_TEST_CKAN_URL and, for the writes,
// COUNTCENTRE_TEST_CKAN_TOKEN (a sysadmin's API token); docs/operations.md says how to run a CKAN for it. The suite
// makes a dataset and DataStore tables through CKAN's own API (package_create, datastore_create, datastore_upsert,
// datastore_delete), mirrors them into each store, compares the copy with the portal record by record and its dump byte
// by byte, follows the portal's changes (an append, an edit, a deletion, patched in; a DataPusher-style reload), and
// purges the dataset.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import { buildApp } from '../../src/app.js';
import { prepareServices } from '../../src/bootstrap.js';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { planMirror } from '../../src/cli/mirror.js';
import { buildDatabase, type BuildResult } from '../../src/ingest/build.js';
import type { CopyRoute } from '../../src/ingest/sources.js';
import { loadSettings } from '../../src/settings.js';
import { storageFor } from '../../src/stores.js';
import { CkanWriter, realCkanFromEnv, TEST_TABLE_FIELDS, testRecords } from '../helpers/real-ckan.js';
import { createTestDatabase, httpCall, silentLogger, TEST_BACKENDS } from '../helpers/service.js';

const real = realCkanFromEnv();

/** Values whose text CSV has to quote, or that look alike but are not: each is a record of its own. */
const SPECIAL_RECORDS: Record<string, unknown>[] = [
  { name: '', note: null, amount: '0.00', count: 0, ratio: 0 },
  { name: ' ', note: '', amount: '-0.10', big: '-9007199254740991' },
  { name: 'line\r\nbreaks\rand\nmore', note: '\\.', amount: '12345678901.50' },
  { name: '"quoted", with a comma', note: ',', amount: '0.00001' },
  { name: 'émoji 🗳️ and ünïcode', note: 'NULL', amount: '100' },
  { name: 'more digits than a double', amount: '123456789012345678901234567890.123' },
  { name: 'tiny', amount: '1E-7', ratio: 1e-7 },
];

describe(
  'the mirror against a real CKAN',
  { skip: real ? false : 'set COUNTCENTRE_TEST_CKAN_URL and COUNTCENTRE_TEST_CKAN_TOKEN to run it' },
  () => {
    const writer = new CkanWriter(real?.url ?? 'http://127.0.0.1/', real?.token ?? '');
    const datasetName = `countcentre-test-${Date.now().toString(36)}`;
    let dataset: { id: string; name: string };
    let counts: string;
    let reloaded: string;

    before(async () => {
      assert.ok(await writer.reachable(), `no CKAN answers at ${writer.url}`);
      dataset = await writer.createDataset(datasetName, 'count-centre-tests');
      counts = await writer.createTable(
        dataset.id,
        'Generated counts',
        TEST_TABLE_FIELDS,
        [...testRecords(3000), ...SPECIAL_RECORDS],
        1000,
      );
      reloaded = await writer.createTable(
        dataset.id,
        'Reloaded counts',
        TEST_TABLE_FIELDS,
        testRecords(500, 10_000),
        500,
      );
    });
    after(async () => {
      if (dataset) await writer.purgeDataset(dataset.name);
    });

    /** How many records the portal counts in a table now. */
    const portalTotal = async (id: string) =>
      Number((await writer.action('datastore_search', { resource_id: id, limit: 0 })).total);

    /** The portal's answer to a datastore_search of every record (few enough for one page), as text. */
    const portalSearch = async (id: string) => {
      const response = await fetch(
        new URL(`api/3/action/datastore_search?resource_id=${id}&limit=32000&sort=_id`, writer.url),
      );
      assert.equal(response.status, 200);
      return response.text();
    };

    for (const backend of TEST_BACKENDS)
      describe(`[${backend}]`, () => {
        let dir: string;
        let database: { url: string; drop(): Promise<void> } | null = null;
        const settings = () =>
          loadSettings(
            {},
            {
              catalog: path.join(dir, 'catalog.json'),
              sources: dir,
              databasePath: path.join(dir, 'store.sqlite'),
              logLevel: 'silent',
              ...(database ? { databaseUrl: database.url } : {}),
            },
          );
        const load = async (options: { settleMs?: number; routes?: CopyRoute[] } = {}): Promise<BuildResult> => {
          const target = storageFor(settings()).loadTarget();
          return buildDatabase({
            catalog: loadCatalogFile(settings().catalog),
            sources: dir,
            target,
            logger: silentLogger,
            // Blocks of 100 _ids, so that a change to a table of 3,005 records is patched in (a block is 3 % of it).
            mirror: {
              settleMs: options.settleMs ?? 0,
              retryWaitMs: 1000,
              client: { concurrency: 2 },
              blockSize: 100,
              ...(options.routes ? { routes: options.routes } : {}),
            },
          }).finally(() => target.close());
        };
        /** The copy's answer to a request, as text. */
        const served = async (url: string): Promise<string> => {
          const prepared = await prepareServices(settings(), silentLogger, { load: false });
          const app = await buildApp(prepared.state, silentLogger);
          try {
            const address = await app.listen({ port: 0, host: '127.0.0.1' });
            const response = await httpCall(Number(new URL(address).port), url);
            assert.equal(response.statusCode, 200, response.body.slice(0, 300));
            return response.body;
          } finally {
            await app.close();
            await prepared.close();
          }
        };

        /** The copy's records equal the portal's, value for value, numbers by their digits (a numeric's scale too). */
        const assertSameRecords = async (id: string): Promise<{ records: number }> => {
          const theirs = parseLossless(await portalSearch(id)) as {
            result: { total: unknown; fields: unknown[]; records: Record<string, unknown>[] };
          };
          const ours = parseLossless(
            await served(`/api/3/action/datastore_search?resource_id=${id}&limit=32000&sort=_id`),
          ) as typeof theirs;
          assert.equal(String(ours.result.total), String(theirs.result.total));
          assert.deepEqual(ours.result.fields, theirs.result.fields);
          assert.equal(ours.result.records.length, theirs.result.records.length);
          theirs.result.records.forEach((record, i) => {
            const mine = ours.result.records[i]!;
            assert.deepEqual(Object.keys(mine), Object.keys(record));
            for (const [key, value] of Object.entries(record)) {
              const copy = mine[key];
              if (isLosslessNumber(value) && isLosslessNumber(copy))
                assert.equal(copy.value, value.value, `record _id ${String(record._id)}, ${key}`);
              else assert.deepEqual(copy, value, `record _id ${String(record._id)}, ${key}`);
            }
          });
          return { records: theirs.result.records.length };
        };

        before(async () => {
          dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-mirror-real-'));
          if (backend === 'postgres') database = await createTestDatabase();
          const plan = await planMirror({ portal: writer.url, ids: [datasetName] }, settings().catalog);
          writeFileSync(settings().catalog, plan.catalogText);
        });
        after(async () => {
          await database?.drop();
          rmSync(dir, { recursive: true, force: true });
        });

        test("every table is copied from the portal's dump, and each record is the portal's", async () => {
          const result = await load();
          assert.deepEqual(
            result.outcomes.map((o) => [o.id, o.status, o.rows, o.method, o.warning]),
            [
              [counts, 'loaded', await portalTotal(counts), 'dump', undefined],
              [reloaded, 'loaded', await portalTotal(reloaded), 'dump', undefined],
            ],
          );
          const compared = await assertSameRecords(counts);
          assert.ok(compared.records >= 3005);
          await assertSameRecords(reloaded);
        });

        for (const format of ['csv', 'tsv', 'json', 'xml'] as const) {
          test(`its ${format} dump is the portal's, byte for byte`, async () => {
            const theirs = (await writer.dump(counts, format)).toString('utf8');
            const ours = await served(`/datastore/dump/${counts}?format=${format}`);
            if (ours === theirs) return;
            // Name the first line that differs rather than print two dumps of 3,000 lines.
            const [mine, their] = [ours.split('\n'), theirs.split('\n')];
            const at = mine.findIndex((line, i) => line !== their[i]);
            assert.equal(mine[at], their[at], `line ${at + 1} of the ${format} dump`);
            assert.equal(mine.length, their.length, `lines in the ${format} dump`);
          });
        }

        test('copied page by page instead, the copy is the same', async () => {
          const result = await load({ routes: ['pages'] });
          assert.deepEqual(
            result.outcomes.map((o) => o.status),
            ['unchanged', 'unchanged'],
            'nothing changed upstream: nothing copied',
          );
          const before = await served(`/api/3/action/datastore_search?resource_id=${counts}&limit=32000&sort=_id`);
          if (database) {
            await database.drop();
            database = await createTestDatabase();
          } else {
            rmSync(settings().databasePath);
          }
          const again = await load({ routes: ['pages'] });
          // SQL keyset where the portal has datastore_search_sql on, offset otherwise.
          assert.deepEqual(
            again.outcomes.map((o) => [o.status, ['sql', 'offset'].includes(o.method!)]),
            [
              ['loaded', true],
              ['loaded', true],
            ],
          );
          assert.equal(
            await served(`/api/3/action/datastore_search?resource_id=${counts}&limit=32000&sort=_id`),
            before,
          );
        });

        test('an append, an edit and a deletion upstream are found and patched in, reading only their blocks', async () => {
          const [total, other] = [await portalTotal(counts), await portalTotal(reloaded)];
          // The portal's own hashes where its datastore_search_sql answers (then any edit is seen), else sampled
          // blocks.
          const sql = await writer.action('datastore_search_sql', { sql: 'SELECT 1 AS "one"' }).then(
            () => true,
            () => false,
          );
          const patch = sql ? 'patch (datastore_search_sql hashes)' : 'patch (sampled blocks)';
          const first = 50_000 + 10 * TEST_BACKENDS.indexOf(backend);
          await writer.insert(counts, testRecords(7, first));
          let result = await load();
          assert.deepEqual(
            result.outcomes.map((o) => [o.status, o.rows, o.method]),
            [
              ['loaded', total + 7, patch],
              ['unchanged', other, undefined],
            ],
          );
          await assertSameRecords(counts);
          const edited = 1500 + TEST_BACKENDS.indexOf(backend);
          await writer.action('datastore_upsert', {
            resource_id: counts,
            method: 'update',
            force: true,
            records: [{ _id: edited, name: `Edited on the portal (${backend})` }],
          });
          result = await load();
          // Without the portal's hashes an edit the probe cannot see (not among the last records) waits for another
          // change.
          assert.deepEqual(
            result.outcomes.map((o) => [o.status, o.method]),
            [sql ? ['loaded', patch] : ['unchanged', undefined], ['unchanged', undefined]],
          );
          if (sql) await assertSameRecords(counts);
          await writer.deleteRecords(counts, { name: testRecords(1, first + 3).next().value!.name });
          result = await load();
          assert.deepEqual(
            result.outcomes.map((o) => [o.status, o.rows, o.method]),
            [
              ['loaded', total + 6, patch],
              ['unchanged', other, undefined],
            ],
          );
          await assertSameRecords(counts);
          assert.deepEqual(
            (await load()).outcomes.map((o) => o.status),
            ['unchanged', 'unchanged'],
            'each patch recorded the checksum its data matches',
          );
        });

        test('a DataPusher-style reload (the table dropped and re-created, records sent in chunks) is never published half-loaded', async () => {
          const url = `/api/3/action/datastore_search?resource_id=${reloaded}&limit=32000&sort=_id`;
          const before = await served(url);
          const records = [...testRecords(600, 20_000)];
          let over = false;
          const reload = (async () => {
            await writer.deleteRecords(reloaded);
            await writer.action('datastore_create', {
              resource_id: reloaded,
              fields: TEST_TABLE_FIELDS,
              records: [],
              force: true,
            });
            for (let at = 0; at < records.length; at += 50) {
              if (at > 0) await delay(150);
              await writer.insert(reloaded, records.slice(at, at + 50));
            }
          })().finally(() => void (over = true));
          const statuses: string[] = [];
          const reasons: string[] = [];
          while (!over) {
            const result = await load({ settleMs: 1000 });
            const outcome = result.outcomes.find((o) => o.id === reloaded)!;
            const status = outcome.status;
            statuses.push(status);
            reasons.push(outcome.error ?? '');
            const copy = JSON.parse(await served(url)) as { result: { total: number; records: { name: string }[] } };
            if (status === 'loaded') {
              // Only the whole reloaded table may be published (the reload may have ended while this load looked).
              assert.deepEqual(
                [copy.result.total, copy.result.records.map((r) => r.name)],
                [600, records.map((r) => r.name)],
                `published part way (${statuses.join(', ')})`,
              );
            } else {
              assert.equal(JSON.stringify(copy), JSON.stringify(JSON.parse(before)), 'the last complete copy serves');
            }
          }
          await reload;
          assert.ok(statuses.filter((s) => s === 'waiting').length >= 2, statuses.join(', '));
          // Past half the rows the drop no longer looks like a reload; only the two probes a settle interval apart
          // tell.
          assert.ok(
            reasons.some((r) =>
              /the upstream is still changing \(\d+ records up to _id \d+, then \d+ up to _id \d+, within 1 s\)/.test(
                r,
              ),
            ),
            reasons.join('\n'),
          );
          const result = await load({ settleMs: 1000 });
          assert.ok(['loaded', 'unchanged'].includes(result.outcomes.find((o) => o.id === reloaded)!.status));
          assert.equal((await assertSameRecords(reloaded)).records, 600);
        });
      });
  },
);
