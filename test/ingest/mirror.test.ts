// The mirror against a fake CKAN portal (test/helpers/fake-ckan.ts) playing each version (offset paging only, SQL
// keyset, 2.12's keyset filter; rows_max lowered; _ids with gaps) and injecting the faults portals show. Each test
// mirrors into an embedded store of its own and reads the copy back through the API.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { LosslessNumber } from 'lossless-json';
import { pino } from 'pino';
import { planMirror } from '../../src/cli/mirror.js';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { CkanClient, retryAfterMs } from '../../src/ingest/ckan/client.js';
import { buildDatabase, type BuildResult } from '../../src/ingest/build.js';
import { storageFor } from '../../src/stores.js';
import { loadSettings } from '../../src/settings.js';
import { buildApp } from '../../src/app.js';
import { prepareServices } from '../../src/bootstrap.js';
import { httpCall, silentLogger } from '../helpers/service.js';
import {
  cutOffPage, FakeCkan, gonePrivate, htmlInstead, SAMPLE_FIELDS, sampleRecords, tooLongAbove, tooManyRequests, type FakeOptions,
} from '../helpers/fake-ckan.js';

const waits: number[] = [];
/** Waits are recorded, not waited: the tests check that the mirror backs off, without spending the time. */
const MIRROR = {
  attempts: 3, retryWaitMs: 5, minPageSize: 2,
  client: { baseDelayMs: 1000, sleep: async (ms: number) => void waits.push(ms), random: () => 0.5 },
};

let dir: string;
let portal: FakeCkan;

async function startPortal(options: Partial<FakeOptions> = {}): Promise<FakeCkan> {
  portal = await new FakeCkan({ version: '2.10', sql: false, rowsMax: 7, fields: SAMPLE_FIELDS, records: sampleRecords(40), ...options }).start();
  return portal;
}

function settings() {
  return loadSettings({}, { catalog: path.join(dir, 'catalog.json'), sources: dir, databasePath: path.join(dir, 'store.sqlite'), logLevel: 'silent' });
}

/** `count-centre mirror`'s catalogue entry for the fake's dataset. */
async function writeMirrorCatalog(): Promise<void> {
  const plan = await planMirror({ portal: portal.url, ids: [portal.datasetName], client: MIRROR.client }, settings().catalog);
  writeFileSync(settings().catalog, plan.catalogText);
}

/** One load (the first copy, or a refresh). */
async function load(logger = silentLogger): Promise<BuildResult> {
  const target = storageFor(settings()).loadTarget();
  return buildDatabase({ catalog: loadCatalogFile(settings().catalog), sources: dir, target, logger, mirror: MIRROR }).finally(() => target.close());
}

/** Every record of the mirror's copy, through its API (datastore_search sorted by _id, all in one page). */
async function served(): Promise<{ total: number; records: Record<string, unknown>[]; fields: unknown[] }> {
  const prepared = await prepareServices(settings(), silentLogger, { load: false });
  const app = await buildApp(prepared.state, silentLogger);
  try {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const response = await httpCall(Number(new URL(address).port), `/api/3/action/datastore_search?resource_id=${portal.resourceId}&limit=1000`);
    const body = JSON.parse(response.body);
    return { total: body.result.total, records: body.result.records, fields: body.result.fields };
  } finally {
    await app.close();
    await prepared.close();
  }
}

/** The upstream's records as the API serves them (numbers as JSON numbers, timestamps as given). */
function expected(): Record<string, unknown>[] {
  return portal.records.map((r) => ({
    _id: r._id, Name: r.Name, Votes: r.Votes, Share: Number(String((r.Share as { value: string }).value)), Big: Number((r.Big as { value: string }).value), Seen: r.Seen, Notes: r.Notes,
  }));
}

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-mirror-'));
  waits.length = 0;
});
afterEach(async () => {
  await portal?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('copying by each CKAN version\'s best paging method', () => {
  for (const [name, options, method] of [
    ['2.10: offset only (rows_max 7)', { version: '2.10', sql: false }, 'offset'],
    ['2.9: SQL keyset, numeric sent as strings', { version: '2.9', sql: true }, 'sql'],
    ['2.12: keyset filter', { version: '2.12', sql: false }, 'keyset'],
  ] as const) {
    test(name, async () => {
      await startPortal(options);
      await writeMirrorCatalog();
      const result = await load();
      assert.deepEqual(result.outcomes.map((o) => [o.status, o.rows, o.method]), [['loaded', 40, method]]);
      const copy = await served();
      assert.equal(copy.total, 40);
      assert.deepEqual(copy.records, expected(), 'records, _ids (with their gaps), numbers and nulls as upstream');
      assert.deepEqual(copy.fields, [
        { id: '_id', type: 'int' },
        { id: 'Name', type: 'text', info: { label: 'Name', notes: 'The candidate as printed.', type_override: '' } },
        { id: 'Votes', type: 'int4' }, { id: 'Share', type: 'numeric' }, { id: 'Big', type: 'int8' }, { id: 'Seen', type: 'timestamp' }, { id: 'Notes', type: 'text' },
      ]);
      const pages = portal.seen.filter((r) => (r.action === 'datastore_search' || r.action === 'datastore_search_sql') && Number(r.params.limit ?? 7) >= 7);
      assert.ok(pages.length > 40 / 7, 'paged at the portal\'s rows_max');
      assert.ok(portal.seen.every((r) => r.inFlight === 0), 'one request at a time');
      assert.ok(portal.seen.every((r) => /^CountCentre\/\d+\.\d+\.\d+ \(CKAN DataStore mirror\)$/.test(String(r.headers['user-agent']))), 'a User-Agent naming Count Centre');
      assert.ok(portal.requests('datastore_search').filter((r) => r.params.limit > 1 && r.params.resource_id !== '_table_metadata' && r.params.sort !== '_id desc')
        .every((r) => r.params.sort === '_id'), 'every page sorted by _id');
    });
  }
});

describe('faults', () => {
  test('429s: it backs off as Retry-After says, then copies', async () => {
    await startPortal();
    await writeMirrorCatalog();
    portal.faults = [tooManyRequests(3, 2)];
    const result = await load();
    assert.equal(result.outcomes[0]!.status, 'loaded');
    assert.deepEqual(waits, [2000, 2000, 2000]);
    assert.deepEqual((await served()).records, expected());
  });

  test('"Search took too long": smaller pages, then the copy goes on', async () => {
    await startPortal({ rowsMax: 32000 });
    await writeMirrorCatalog();
    portal.faults = [tooLongAbove(200)];
    const result = await load();
    assert.equal(result.outcomes[0]!.status, 'loaded');
    const limits = portal.requests('datastore_search').map((r) => r.params.limit).filter((l) => l > 100);
    assert.deepEqual([...new Set(limits)], [32000, 16000, 8000, 4000, 2000, 1000, 500, 250, 125], 'halved until the portal answers');
    assert.deepEqual((await served()).records, expected());
  });

  test('at the smallest page, another paging method', async () => {
    await startPortal({ version: '2.9', sql: true, rowsMax: 32000 });
    await writeMirrorCatalog();
    portal.faults = [({ action }) => (action === 'datastore_search_sql' && portal.requests('datastore_search_sql').length > 1
      ? { status: 409, body: JSON.stringify({ success: false, error: { query: ['Search took too long'], __type: 'Validation Error' } }) } : undefined)];
    const result = await load();
    assert.deepEqual(result.outcomes.map((o) => [o.status, o.method]), [['loaded', 'offset']]);
    assert.deepEqual((await served()).records, expected());
  });

  test('an answer cut off half way (a 200 that is not whole JSON) is asked for again', async () => {
    await startPortal();
    await writeMirrorCatalog();
    portal.faults = [cutOffPage(3)];
    const result = await load();
    assert.equal(result.outcomes[0]!.status, 'loaded');
    assert.equal(waits.length, 1);
    assert.deepEqual((await served()).records, expected());
  });

  test('rows added during the copy: the copy is not published, the next try is, with them', async () => {
    await startPortal();
    await writeMirrorCatalog();
    portal.afterPage = (pages) => {
      if (pages === 2) portal.records.push(...sampleRecords(3, 100));
    };
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
    const result = await load(logger);
    assert.deepEqual(result.outcomes.map((o) => [o.status, o.rows]), [['loaded', 43]]);
    assert.match(warnings.join('\n'), /copy not published: the upstream changed during the copy \(40 records up to _id 49 before, 43 up to _id 103 after\)/);
    assert.deepEqual((await served()).records, expected());
  });

  test('rows changing on every try: the last good copy keeps serving', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    const before = await served();
    portal.records.push(...sampleRecords(1, 150));
    let next = 200;
    portal.afterPage = () => {
      portal.records.push(...sampleRecords(1, next));
      next += 2;
    };
    const result = await load();
    assert.equal(result.outcomes[0]!.status, 'kept-previous');
    assert.match(result.outcomes[0]!.error!, /the upstream changed during the copy/);
    assert.deepEqual(await served(), before);
  });

  test('upstream truncated for a reload (xloader): the last good copy keeps serving', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    const before = await served();
    const kept = portal.records;
    portal.records = [];
    let result = await load();
    assert.equal(result.outcomes[0]!.status, 'kept-previous');
    assert.match(result.outcomes[0]!.error!, /no records where 40 were copied, with unchanged metadata: most likely a reload in progress; keeping the last good copy/);
    portal.records = kept.slice(0, 12);
    result = await load();
    assert.match(result.outcomes[0]!.error!, /shows 12 records where 40 were copied/);
    assert.deepEqual(await served(), before);
    portal.records = kept;
    result = await load();
    assert.equal(result.outcomes[0]!.status, 'unchanged', 'the reload over, nothing changed');
  });

  test('the schema changes during the copy: not published, and the catalogue is to be updated by hand', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    const before = await served();
    portal.records.push(...sampleRecords(2, 300));
    portal.afterPage = () => {
      portal.fields = [...SAMPLE_FIELDS, { id: 'Added', type: 'text' }];
    };
    const result = await load();
    assert.equal(result.outcomes[0]!.status, 'kept-previous');
    assert.match(result.outcomes[0]!.error!, /the upstream fields changed \(added "Added"\); run `count-centre mirror` again/);
    assert.deepEqual(await served(), before);
  });

  test('a resource gone private, or HTML instead of JSON: the last good copy keeps serving, and the message says why', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    const before = await served();
    portal.records.push(...sampleRecords(2, 300));
    portal.faults = [gonePrivate()];
    let result = await load();
    assert.equal(result.outcomes[0]!.status, 'kept-previous');
    assert.match(result.outcomes[0]!.error!, /Access denied/);
    portal.faults = [htmlInstead()];
    result = await load();
    assert.match(result.outcomes[0]!.error!, /HTML page instead of JSON \(a login page or a bot challenge\?\); stopping/);
    assert.equal(waits.length, 0, 'neither is retried');
    assert.deepEqual(await served(), before);
  });

  test('a number this store cannot hold exactly stops the copy, naming the record and field', async () => {
    await startPortal();
    portal.records = sampleRecords(10);
    portal.records[4]!.Big = new LosslessNumber('9007199254740993');
    await writeMirrorCatalog();
    const result = await load();
    assert.equal(result.outcomes[0]!.status, 'failed');
    assert.match(result.outcomes[0]!.error!, /record _id 6, field "Big" \(int8\): "9007199254740993" is out of range for int8/);
  });
});

describe('refresh', () => {
  test('nothing changed upstream: a probe, and no copy', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    const sent = portal.seen.length;
    const result = await load();
    assert.deepEqual(result.outcomes.map((o) => o.status), ['unchanged']);
    assert.equal(result.rebuilt, false);
    const probe = portal.seen.slice(sent);
    assert.ok(probe.length <= 4, `a probe is a few small requests (${probe.length})`);
    assert.ok(probe.every((r) => Number(r.params.limit ?? 0) <= 100));
  });

  test('an edit to a recent record, the count unchanged, is found and copied', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    portal.records[39] = { ...portal.records[39]!, Name: 'Edited' };
    const result = await load();
    assert.equal(result.outcomes[0]!.status, 'loaded');
    assert.equal((await served()).records[39]!.Name, 'Edited');
  });
});

describe('discovery', () => {
  test('by resource id, into a dataset of another name: the portal\'s metadata kept, the mirror named in extras', async () => {
    await startPortal();
    const plan = await planMirror({ portal: portal.url, ids: [portal.resourceId], dataset: 'local-name', client: MIRROR.client }, settings().catalog);
    assert.equal(plan.ckanVersion, '2.10.0');
    assert.deepEqual(plan.resources.map((r) => [r.dataset, r.id, r.name, r.fields.length]), [['local-name', portal.resourceId, 'Fake counts', 6]]);
    const dataset = JSON.parse(plan.catalogText).datasets[0];
    assert.deepEqual({ ...dataset, resources: undefined }, {
      name: 'local-name', title: 'A fake dataset', notes: 'Served by the tests.', license_id: 'CC-BY-4.0', license_title: 'Creative Commons Attribution 4.0',
      organization: 'Fake Organisation', extras: { frequency: 'daily', mirror_of: `${portal.url}dataset/fake-dataset` }, resources: undefined,
    });
    assert.deepEqual(dataset.resources[0].source, { ckan: portal.url, resource: portal.resourceId });
    assert.deepEqual(dataset.resources[0].fields[0], { id: 'Name', type: 'text', info: { label: 'Name', notes: 'The candidate as printed.', type_override: '' } });
  });

  test('a name the portal does not know', async () => {
    await startPortal();
    await assert.rejects(planMirror({ portal: portal.url, ids: ['nothing-here'], client: MIRROR.client }, settings().catalog),
      /nothing-here: the portal has no public dataset or resource with this name or id \(HTTP 404\)/);
  });
});

describe('the client', () => {
  test('Retry-After in seconds or as a date', () => {
    assert.equal(retryAfterMs('3'), 3000);
    assert.equal(retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')), 5000);
    assert.equal(retryAfterMs(null), null);
    assert.equal(retryAfterMs('soon'), null);
  });

  test('an API token goes over HTTPS (or to this machine) only, in Authorization, and is never logged', async () => {
    assert.throws(() => new CkanClient('http://portal.example/', { token: 'secret' }), /only sent over HTTPS/);
    await startPortal();
    portal.faults = [tooManyRequests(1, 0)];
    const lines: string[] = [];
    const client = new CkanClient(portal.url, { token: 'tok-123', logger: pino({ level: 'trace' }, { write: (l: string) => void lines.push(l) }), sleep: async () => {} });
    const status = await client.action('status_show', {});
    assert.equal(status.ckan_version, '2.10.0');
    assert.ok(portal.seen.every((r) => r.headers.authorization === 'tok-123'));
    assert.ok(lines.length > 0 && lines.every((l) => !l.includes('tok-123')), 'the retry was logged, without the token');
  });
});
