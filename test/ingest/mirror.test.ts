// The mirror against a fake CKAN portal (test/helpers/fake-ckan.ts) playing each version (offset paging only, SQL
// keyset, 2.12's keyset filter; rows_max lowered; _ids with gaps) and injecting the faults portals show. Each test
// mirrors into an embedded store of its own and reads the copy back through the API.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { LosslessNumber } from 'lossless-json';
import { pino, type Logger } from 'pino';
import { planMirror } from '../../src/cli/mirror.js';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { CkanClient, portalState, retryAfterMs, type CkanClientOptions } from '../../src/portal/client.js';
import { loadExitCode } from '../../src/cli/load.js';
import { buildDatabase, type BuildResult, type LoadProgress } from '../../src/ingest/build.js';
import type { CopyRoute } from '../../src/ingest/sources.js';
import { storageFor } from '../../src/stores.js';
import { loadSettings } from '../../src/settings.js';
import { buildApp } from '../../src/app.js';
import { prepareServices } from '../../src/bootstrap.js';
import { createTestDatabase, httpCall, silentLogger, TEST_BACKENDS } from '../helpers/service.js';
import {
  cutOffPage,
  dumpCutAfter,
  FakeCkan,
  gonePrivate,
  hanging,
  htmlInstead,
  SAMPLE_FIELDS,
  sampleRecords,
  tooLongAbove,
  tooManyRequests,
  unavailable,
  type FakeOptions,
  type FakeRecord,
} from '../helpers/fake-ckan.js';
import { runCli } from '../helpers/processes.js';

const waits: number[] = [];
/** Waits are recorded, not waited: the tests check that the mirror backs off, without spending the time. */
const MIRROR = {
  attempts: 3,
  retryWaitMs: 5,
  minPageSize: 2,
  settleMs: 0,
  routes: ['pages'] as CopyRoute[],
  client: {
    baseDelayMs: 1000,
    sleep: async (ms: number) => void waits.push(ms),
    random: () => 0.5,
  } as CkanClientOptions,
};

let dir: string;
let portal: FakeCkan;

async function startPortal(options: Partial<FakeOptions> = {}): Promise<FakeCkan> {
  portal = await new FakeCkan({
    version: '2.10',
    sql: false,
    rowsMax: 7,
    fields: SAMPLE_FIELDS,
    records: sampleRecords(40),
    ...options,
  }).start();
  return portal;
}

/** The PostgreSQL database of a test on that store; the embedded store's file otherwise. */
let database: { url: string; drop(): Promise<void> } | null = null;

function settings() {
  return loadSettings(
    {},
    {
      catalog: path.join(dir, 'catalog.json'),
      sources: dir,
      databasePath: path.join(dir, 'store.sqlite'),
      logLevel: 'silent',
      ...(database ? { databaseUrl: database.url } : {}),
    },
  );
}

/** Runs a describe's tests on each store: those whose copies are served and compared. */
function onEachStore(title: string, body: () => void): void {
  for (const backend of TEST_BACKENDS) {
    describe(`${title} [${backend}]`, () => {
      beforeEach(async () => {
        if (backend === 'postgres') database = await createTestDatabase();
      });
      afterEach(async () => {
        await database?.drop();
        database = null;
      });
      body();
    });
  }
}

/** An empty store, as before the first copy. */
async function emptyStore(): Promise<void> {
  if (database) {
    await database.drop();
    database = await createTestDatabase();
  } else {
    rmSync(settings().databasePath);
  }
}

/** `count-centre mirror`'s catalogue entry for the fake's dataset. */
async function writeMirrorCatalog(): Promise<void> {
  const plan = await planMirror(
    { portal: portal.url, ids: [portal.datasetName], client: MIRROR.client },
    settings().catalog,
  );
  writeFileSync(settings().catalog, plan.catalogText);
}

/** One load (the first copy, or a refresh). */
async function load(
  logger: Logger = silentLogger,
  mirror: Partial<typeof MIRROR> & Record<string, unknown> = {},
  progress?: LoadProgress,
): Promise<BuildResult> {
  const target = storageFor(settings()).loadTarget();
  return buildDatabase({
    catalog: loadCatalogFile(settings().catalog),
    sources: dir,
    target,
    logger,
    mirror: { ...MIRROR, ...mirror },
    ...(progress ? { progress } : {}),
  }).finally(() => target.close());
}

/** Log lines (their messages) at warn and above, for a load to write into. */
function warnings(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line).msg) }), lines };
}

/** Every record of the mirror's copy, through its API (datastore_search sorted by _id, all in one page). */
async function served(
  resourceId = portal.resourceId,
): Promise<{ total: number; records: Record<string, unknown>[]; fields: unknown[] }> {
  const prepared = await prepareServices(settings(), silentLogger, { load: false });
  const app = await buildApp(prepared.state, silentLogger);
  try {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const response = await httpCall(
      Number(new URL(address).port),
      `/api/3/action/datastore_search?resource_id=${resourceId}&limit=1000`,
    );
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
    _id: r._id,
    Name: r.Name,
    Votes: r.Votes,
    Share: Number(String((r.Share as { value: string }).value)),
    Big: Number((r.Big as { value: string }).value),
    Seen: r.Seen,
    Notes: r.Notes,
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

describe("copying by each CKAN version's best paging method", () => {
  for (const [name, options, method] of [
    ['2.10: offset only (rows_max 7)', { version: '2.10', sql: false }, 'offset'],
    ['2.9: SQL keyset, numeric sent as strings', { version: '2.9', sql: true }, 'sql'],
    ['2.12: keyset filter', { version: '2.12', sql: false }, 'keyset'],
  ] as const) {
    test(name, async () => {
      await startPortal(options);
      await writeMirrorCatalog();
      const result = await load();
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows, o.method]),
        [['loaded', 40, method]],
      );
      const copy = await served();
      assert.equal(copy.total, 40);
      assert.deepEqual(copy.records, expected(), 'records, _ids (with their gaps), numbers and nulls as upstream');
      assert.deepEqual(copy.fields, [
        { id: '_id', type: 'int' },
        { id: 'Name', type: 'text', info: { label: 'Name', notes: 'The candidate as printed.', type_override: '' } },
        { id: 'Votes', type: 'int4' },
        { id: 'Share', type: 'numeric' },
        { id: 'Big', type: 'int8' },
        { id: 'Seen', type: 'timestamp' },
        { id: 'Notes', type: 'text' },
      ]);
      const pages = portal.seen.filter(
        (r) =>
          (r.action === 'datastore_search' || r.action === 'datastore_search_sql') && Number(r.params.limit ?? 7) >= 7,
      );
      assert.ok(pages.length > 40 / 7, "paged at the portal's rows_max");
      assert.ok(
        portal.seen.every((r) => r.inFlight === 0),
        'one request at a time',
      );
      assert.ok(
        portal.seen.every((r) =>
          /^CountCentre\/\d+\.\d+\.\d+ \(CKAN DataStore mirror\)$/.test(String(r.headers['user-agent'])),
        ),
        'a User-Agent naming Count Centre',
      );
      assert.ok(
        portal
          .requests('datastore_search')
          .filter(
            (r) => r.params.limit > 1 && r.params.resource_id !== '_table_metadata' && r.params.sort !== '_id desc',
          )
          .every((r) => r.params.sort === '_id'),
        'every page sorted by _id',
      );
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
    const limits = portal
      .requests('datastore_search')
      .map((r) => r.params.limit)
      .filter((l) => l > 100);
    assert.deepEqual(
      [...new Set(limits)],
      [32000, 16000, 8000, 4000, 2000, 1000, 500, 250, 125],
      'halved until the portal answers',
    );
    assert.deepEqual((await served()).records, expected());
  });

  test('at the smallest page, another paging method', async () => {
    await startPortal({ version: '2.9', sql: true, rowsMax: 32000 });
    await writeMirrorCatalog();
    portal.faults = [
      ({ action }) =>
        action === 'datastore_search_sql' && portal.requests('datastore_search_sql').length > 1
          ? {
              status: 409,
              body: JSON.stringify({
                success: false,
                error: { query: ['Search took too long'], __type: 'Validation Error' },
              }),
            }
          : undefined,
    ];
    const result = await load();
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.method]),
      [['loaded', 'offset']],
    );
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
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows]),
      [['loaded', 43]],
    );
    assert.match(
      warnings.join('\n'),
      /copy not published: the upstream changed during the copy \(40 records up to _id 49 before, 43 up to _id 103 after\)/,
    );
    assert.deepEqual((await served()).records, expected());
    const again = await load();
    assert.deepEqual(
      again.outcomes.map((o) => o.status),
      ['unchanged'],
      'the retried copy recorded the fingerprint of what it copied',
    );
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
    assert.equal(result.outcomes[0]!.status, 'waiting');
    assert.match(
      result.outcomes[0]!.error!,
      /no records where 40 were copied, with unchanged metadata: most likely a reload in progress/,
    );
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
    assert.match(
      result.outcomes[0]!.error!,
      /the upstream fields changed \(added "Added"\); run `count-centre mirror` again/,
    );
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
    assert.match(
      result.outcomes[0]!.error!,
      /HTML page instead of JSON \(a login page or a bot challenge\?\); stopping/,
    );
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
    assert.match(
      result.outcomes[0]!.error!,
      /record _id 6, field "Big" \(int8\): "9007199254740993" is beyond the whole numbers Count Centre holds exactly as int8 \(±9,007,199,254,740,991, 2\^53 − 1\)/,
    );
  });
});

/** Records whose text needs CSV's quoting: commas, quotes, line breaks of every kind, a lone `\.`, spaces kept. */
function trickyRecords(): FakeRecord[] {
  const records = sampleRecords(40);
  records[1] = { ...records[1]!, Name: 'Ní Bhriain, "Áine"\r\nsecond line\rthird', Notes: 'a,b' };
  records[2] = { ...records[2]!, Name: '\\.', Notes: '  spaced  ' };
  records[3] = { ...records[3]!, Name: '"', Notes: null };
  return records;
}

onEachStore('the dump: one request for the whole table, verified before it is stored', () => {
  test('a table is copied from its dump: PostgreSQL\'s text typed as a CSV file is, NULL told from "", upstream _ids kept', async () => {
    await startPortal();
    portal.records = trickyRecords();
    await writeMirrorCatalog();
    const result = await load(silentLogger, { routes: ['dump', 'pages'] });
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows, o.method, o.warning]),
      [['loaded', 40, 'dump', undefined]],
    );
    assert.equal(portal.requests('dump').length, 1);
    assert.deepEqual(portal.requests('dump')[0]!.params, { format: 'csv', resource_id: portal.resourceId });
    const pages = portal.requests('datastore_search').filter((r) => r.params.sort === '_id');
    assert.deepEqual(
      pages.map((r) => [r.params.offset, r.params.limit]),
      [[0, 50]],
      'one sampled page besides the probes',
    );
    const copy = await served();
    assert.deepEqual(copy.records, expected());
    assert.deepEqual(
      copy.records.slice(1, 4).map((r) => [r.Name, r.Notes]),
      [
        ['Ní Bhriain, "Áine"\r\nsecond line\rthird', 'a,b'],
        ['\\.', '  spaced  '],
        ['"', null],
      ],
    );
  });

  test('arrays and JSON come as JSON text: kept as the paged copy keeps them', async () => {
    await startPortal();
    const fields = [
      { id: 'Tags', type: '_text' },
      { id: 'Doc', type: 'json' },
      { id: 'Amount', type: 'numeric' },
    ];
    const records: FakeRecord[] = [
      {
        _id: 1,
        Tags: ['a', 'b,c', 'd "e"'],
        Doc: { n: new LosslessNumber('1.50'), s: 'x' },
        Amount: new LosslessNumber('-32782.20'),
      },
      { _id: 2, Tags: null, Doc: null, Amount: null },
      { _id: 3, Tags: [], Doc: [new LosslessNumber('12345678901234567890')], Amount: new LosslessNumber('0.000001') },
    ];
    portal.tables[0] = { ...portal.tables[0]!, fields, records };
    await writeMirrorCatalog();
    const byDump = await load(silentLogger, { routes: ['dump', 'pages'] });
    assert.deepEqual(
      byDump.outcomes.map((o) => [o.status, o.method, o.warning]),
      [['loaded', 'dump', undefined]],
    );
    const dumped = await served();
    await emptyStore();
    const byPages = await load(silentLogger, { routes: ['pages'] });
    assert.deepEqual(
      byPages.outcomes.map((o) => [o.status, o.method]),
      [['loaded', 'offset']],
    );
    assert.deepEqual(await served(), dumped);
    assert.deepEqual(dumped.records, [
      { _id: 1, Tags: '["a","b,c","d \\"e\\""]', Doc: '{"n":1.50,"s":"x"}', Amount: -32782.2 },
      { _id: 2, Tags: null, Doc: null, Amount: null },
      { _id: 3, Tags: '[]', Doc: '[12345678901234567890]', Amount: 0.000001 },
    ]);
  });

  test('a dump cut short with a 200 (as older CKANs end a failed one): only the count tells; it is copied page by page', async () => {
    await startPortal();
    await writeMirrorCatalog();
    portal.faults = [dumpCutAfter(25)];
    const { logger, lines } = warnings();
    const result = await load(logger, { routes: ['dump', 'pages'] });
    const note =
      'the dump was not used (it holds 25 records up to _id 31, but the portal counts 40 up to _id 49 (a dump cut short?)); copied page by page';
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows, o.method, o.warning]),
      [['loaded', 40, 'offset', note]],
    );
    assert.deepEqual(lines, [`${portal.url} resource ${portal.resourceId}: ${note}`]);
    assert.deepEqual((await served()).records, expected());
  });

  test('a dump broken off in the middle of a record, or one the portal does not serve: page by page', async () => {
    await startPortal();
    portal.records = trickyRecords();
    await writeMirrorCatalog();
    portal.faults = [({ action }) => (action === 'dump' ? 'cut' : undefined)];
    let result = await load(silentLogger, { routes: ['dump', 'pages'] });
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.method]),
      [['loaded', 'offset']],
    );
    assert.match(
      result.outcomes[0]!.warning!,
      /^the dump was not used \(it holds \d+ records up to _id \d+, but the portal counts 40 up to _id 49 \(a dump cut short\?\)\)/,
    );
    assert.deepEqual((await served()).records, expected());

    await portal.stop();
    await startPortal({ dump: false });
    await writeMirrorCatalog();
    result = await load(silentLogger, { routes: ['dump', 'pages'] });
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.method, o.warning]),
      [
        [
          'loaded',
          'offset',
          `the dump was not used (the dump could not be downloaded (/datastore/dump/${portal.resourceId}: HTTP 404)); copied page by page`,
        ],
      ],
    );
  });

  test('an empty table whose dump the portal does not serve: both warnings are told, neither hides the other', async () => {
    await startPortal({ dump: false });
    portal.records = [];
    await writeMirrorCatalog();
    const result = await load(silentLogger, { routes: ['dump', 'pages'] });
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows, o.warning]),
      [
        [
          'loaded',
          0,
          `the dump was not used (the dump could not be downloaded (/datastore/dump/${portal.resourceId}: HTTP 404)); copied page by page; ${portal.url} resource ${portal.resourceId} has no records: the resource is served empty`,
        ],
      ],
    );
    assert.deepEqual((await served()).records, []);
  });

  test("a dump whose values differ from the API's: the sampled records tell; page by page", async () => {
    await startPortal();
    await writeMirrorCatalog();
    portal.faults = [
      (request, p) => {
        if (request.action !== 'dump') return undefined;
        const answer = p.dumpAnswer(request.params);
        return {
          ...answer,
          body: answer.body.replace('\n1,Name 1 Ó Súilleabháin,10,', '\n1,Name 1 Ó Súilleabháin,999,'),
        };
      },
    ];
    const result = await load(silentLogger, { routes: ['dump', 'pages'] });
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.method, o.warning]),
      [
        [
          'loaded',
          'offset',
          'the dump was not used (record _id 1, field "Votes": 999 in the dump, 10 through the API); copied page by page',
        ],
      ],
    );
    assert.deepEqual((await served()).records, expected());
  });

  test('rows added while the dump is taken: not published; the retry is, and it records what it copied, so the next refresh copies nothing', async () => {
    await startPortal();
    await writeMirrorCatalog();
    portal.afterPage = (pages) => {
      if (pages === 1) portal.records.push(...sampleRecords(3, 100));
    };
    const { logger, lines } = warnings();
    const result = await load(logger, { routes: ['dump', 'pages'] });
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows, o.method]),
      [['loaded', 43, 'dump']],
    );
    assert.match(
      lines.join('\n'),
      /copy not published: the upstream changed during the copy \(40 records up to _id 49, then 43 up to _id 103\)/,
    );
    assert.deepEqual((await served()).records, expected());
    const sent = portal.seen.length;
    const again = await load(silentLogger, { routes: ['dump', 'pages'] });
    assert.deepEqual(
      again.outcomes.map((o) => o.status),
      ['unchanged'],
    );
    assert.equal(portal.requests('dump').length, 2, 'no dump asked for by the refresh');
    assert.ok(portal.seen.slice(sent).every((r) => r.action !== 'dump'));
  });
});

onEachStore('a table being reloaded is never published half-loaded', () => {
  const reloaded = (count: number) => sampleRecords(count).map((r) => ({ ...r, Name: `${r.Name} (reloaded)` }));

  test('DataPusher-style (the table re-created, rows sent in chunks): the last complete copy serves until two probes a settle interval apart agree', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    const before = await served();
    const { logger, lines } = warnings();
    // The table is re-created empty, and a chunk of six arrives while each refresh waits out its settle interval,
    // or between two refreshes when one does not wait: the refresh's own hook, not a timer (on a busy machine two
    // probes once fell between two chunks' timers).
    const table = portal.tables[0]!;
    const records = reloaded(60);
    table.records = [];
    table.oid += 100;
    const addChunk = () => {
      table.records = [...table.records, ...records.slice(table.records.length, table.records.length + 6)];
    };
    let settled = false;
    const chunkWhileSettling: LoadProgress = {
      start: () => {},
      rows: () => {},
      end: () => {},
      settling: () => {
        settled = true;
        addChunk();
      },
    };
    const during: string[] = [];
    while (table.records.length < records.length) {
      assert.ok(during.length < 30, 'the reload ends');
      settled = false;
      const result = await load(logger, { settleMs: 100 }, chunkWhileSettling);
      during.push(result.outcomes[0]!.status);
      assert.deepEqual(await served(), before, 'the last complete copy, whole');
      if (!settled) addChunk();
    }
    assert.ok(during.length >= 2 && during.every((s) => s === 'waiting'), during.join());
    assert.ok(
      lines.every((l) =>
        /^not copied now: .*(most likely a reload in progress|its table was re-created).*; still serving the last complete copy \(40 records, loaded /.test(
          l,
        ),
      ),
      lines.join('\n'),
    );
    const result = await load(logger, { settleMs: 100 });
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows]),
      [['loaded', 60]],
    );
    assert.deepEqual(
      (await served()).records.map((r) => r.Name),
      portal.records.map((r) => r.Name),
    );
  });

  test('an append or an edit to the same table is copied at once, without settling', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    let settling = 0;
    const watch: LoadProgress = {
      start: () => {},
      rows: () => {},
      end: () => {},
      settling: () => void (settling += 1),
    };
    portal.records.push(...sampleRecords(1, 100));
    portal.records[3] = { ...portal.records[3]!, Name: 'Edited in place' };
    const started = Date.now();
    const result = await load(silentLogger, { settleMs: 60_000 }, watch);
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows]),
      [['loaded', 41]],
    );
    assert.equal(settling, 0);
    assert.ok(Date.now() - started < 30_000, 'not held for the settle interval');
    assert.equal((await served()).records[3]!.Name, 'Edited in place');
  });

  test('a change seen again within the settle interval is not copied', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    // A re-created table (a new oid) may be a reload: it settles.
    portal.oid += 1;
    portal.records.push(...sampleRecords(1, 100));
    // The second change lands once the first probe has seen the first, whatever the machine's speed.
    const secondChange: LoadProgress = {
      start: () => {},
      rows: () => {},
      end: () => {},
      settling: () => void portal.records.push(...sampleRecords(1, 200)),
    };
    const result = await load(silentLogger, { settleMs: 150 }, secondChange);
    assert.equal(result.outcomes[0]!.status, 'waiting');
    assert.equal(
      result.outcomes[0]!.error,
      `${portal.url} resource ${portal.resourceId}: the upstream is still changing (41 records up to _id 101, then 42 up to _id 201, within 0.2 s): most likely a reload in progress`,
    );
    assert.deepEqual((await served()).total, 40);
    assert.deepEqual(
      (await load(silentLogger, { settleMs: 50 })).outcomes.map((o) => [o.status, o.rows]),
      [['loaded', 42]],
    );
  });

  for (const loader of ['datapusher', 'xloader'] as const) {
    test(`the portal's own word (${loader}_status): a load running, or one that failed part way, is not copied though the probes agree`, async () => {
      await startPortal({ loader });
      await writeMirrorCatalog();
      await load();
      const table = portal.tables[0]!;
      const records = reloaded(60);
      table.records = records.slice(0, 30);
      table.oid += 1;
      table.loaderStatus = { status: 'running', last_updated: '2026-11-25T10:00:00.000000' };
      let result = await load(silentLogger, { settleMs: 20 });
      assert.equal(result.outcomes[0]!.status, 'waiting');
      assert.equal(
        result.outcomes[0]!.error,
        `${portal.url} resource ${portal.resourceId}: the portal's ${loader} is loading the table (status running, updated 2026-11-25T10:00:00.000000)`,
      );
      table.loaderStatus = { status: 'error', last_updated: '2026-11-25T10:01:00.000000' };
      result = await load(silentLogger, { settleMs: 20 });
      assert.match(
        result.outcomes[0]!.error!,
        new RegExp(
          `the portal's ${loader} reports that its last load of the table failed \\(status error, updated 2026-11-25T10:01:00.000000\\): the table may hold part of it$`,
        ),
      );
      assert.equal((await served()).total, 40);
      table.records = records;
      table.loaderStatus = { status: 'complete', last_updated: '2026-11-25T10:02:00.000000' };
      result = await load(silentLogger, { settleMs: 20 });
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.rows]),
        [['loaded', 60]],
      );
      if (loader === 'xloader') assert.equal(portal.requests('datapusher_status').length, 0);
      else
        assert.equal(
          portal.requests('xloader_status').length,
          4,
          'xloader_status asked once in each of the four loads that saw a change, then known to be missing',
        );
    });
  }
});

onEachStore('a portal that is down', () => {
  const tableIds = [1, 2, 3, 4, 5].map((i) => `7a1e0000-0000-4000-8000-00000000000${i}`);
  const withTables = async () => {
    await startPortal();
    tableIds.forEach((id, i) => portal.addTable(id, `Table ${i + 1}`, SAMPLE_FIELDS, sampleRecords(10 + i)));
    await writeMirrorCatalog();
  };

  test("resources are probed side by side, never more requests at once than the portal's limit (at most 3)", async () => {
    await withTables();
    await load(silentLogger, { client: { ...MIRROR.client, concurrency: 2 } });
    for (const [concurrency, limit] of [
      [1, 1],
      [2, 2],
      [3, 3],
      [8, 3],
    ] as const) {
      portal.maxInFlight = 0;
      const result = await load(silentLogger, { client: { ...MIRROR.client, concurrency } });
      assert.deepEqual(
        result.outcomes.map((o) => [o.status, o.checked]),
        Array(6).fill(['unchanged', true]),
      );
      assert.equal(portal.maxInFlight, limit, `concurrency ${concurrency}`);
    }
  });

  test('a portal that keeps failing is left alone after a few requests; every resource keeps its copy, and load exits 4', async () => {
    await withTables();
    await load();
    const before = await Promise.all([portal.resourceId, ...tableIds].map((id) => served(id)));
    portal.faults = [unavailable()];
    const client = { ...MIRROR.client, concurrency: 2, failuresToPause: 5, pauseMs: 60_000 };
    let sent = portal.seen.length;
    let result = await load(silentLogger, { client });
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.unreachable, o.checked]),
      Array(6).fill(['kept-previous', true, false]),
    );
    const asked = portal.seen.length - sent;
    assert.ok(asked >= 5 && asked <= 6, `${asked} requests before the portal was left alone`);
    assert.ok(result.outcomes.some((o) => /HTTP 503; the portal is left alone until/.test(o.error!)));
    assert.equal(loadExitCode(result), 4);
    const state = portalState(new URL(portal.url).host);
    assert.ok(state.pausedUntil - Date.now() > 20_000, 'paused for the first pause, with jitter');

    sent = portal.seen.length;
    result = await load(silentLogger, { client });
    assert.equal(portal.seen.length, sent, 'not asked at all while it is left alone');
    assert.ok(
      result.outcomes.every(
        (o) =>
          o.status === 'kept-previous' &&
          /not asked: the portal is left alone until \d{4}-.*\(.*HTTP 503.*\)$/.test(o.error!),
      ),
      result.outcomes[0]!.error!,
    );
    assert.deepEqual(await Promise.all([portal.resourceId, ...tableIds].map((id) => served(id))), before);
  });

  test('a portal that accepts connections and never answers: each probe gives up within its time', async () => {
    await withTables();
    await load();
    portal.faults = [hanging()];
    const started = Date.now();
    const result = await load(silentLogger, {
      probeTimeoutMs: 300,
      client: { ...MIRROR.client, concurrency: 2, timeoutMs: 60_000 },
    });
    const seconds = (Date.now() - started) / 1000;
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.unreachable]),
      Array(6).fill(['kept-previous', true]),
    );
    assert.match(
      result.outcomes[0]!.error!,
      /datastore_search: the portal could not be reached \(TimeoutError\); no time was left to try again/,
    );
    assert.ok(seconds < 2, `six probes, two at a time, each given up after 0.3 s: ${seconds} s`);
  });

  test('a Retry-After longer than a request waits: the portal is left alone that long, after one request', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    portal.faults = [unavailable(600)];
    const sent = portal.seen.length;
    const result = await load(silentLogger, { client: { ...MIRROR.client, pauseMs: 1000 } });
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.unreachable]),
      [['kept-previous', true]],
    );
    assert.equal(portal.seen.length - sent, 1);
    assert.deepEqual(waits, []);
    const paused = portalState(new URL(portal.url).host).pausedUntil - Date.now();
    assert.ok(paused > 590_000 && paused <= 600_000, `${paused} ms`);
  });

  test('after a pause one request tries it: a failure pauses it again for twice as long; an answer ends it', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    portal.faults = [unavailable()];
    const client = { ...MIRROR.client, failuresToPause: 2, pauseMs: 100 };
    const state = portalState(new URL(portal.url).host);
    await load(silentLogger, { client });
    assert.equal(state.pauses, 1);
    let until = state.pausedUntil;
    await delay(until - Date.now() + 5);
    const sent = portal.seen.length;
    await load(silentLogger, { client });
    assert.equal(portal.seen.length - sent, 1, 'one request tried it');
    assert.equal(state.pauses, 2);
    assert.ok(state.pausedUntil - Date.now() > 75, 'the second pause is twice as long (with jitter)');
    until = state.pausedUntil;
    portal.faults = [];
    await delay(until - Date.now() + 5);
    const result = await load(silentLogger, { client });
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.checked]),
      [['unchanged', true]],
    );
    assert.deepEqual([state.pauses, state.failures], [0, 0]);
  });

  test('`load` and `mirror` exit 4 when the portal cannot be reached, saying so', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    await portal.stop();
    const env: Record<string, string> = {
      COUNTCENTRE_CATALOG: settings().catalog,
      COUNTCENTRE_SOURCES: dir,
      COUNTCENTRE_DB: settings().databasePath,
      LOG_LEVEL: 'silent',
    };
    if (database) env.DATABASE_URL = database.url;
    const [loaded, mirrored] = await Promise.all([
      runCli(['load'], env),
      runCli(
        [
          'mirror',
          portal.url,
          portal.datasetName,
          '--catalog',
          path.join(dir, 'other.json'),
          '--db',
          path.join(dir, 'other.sqlite'),
        ],
        env,
      ),
    ]);
    assert.equal(loaded.code, 4, loaded.stdout + loaded.stderr);
    assert.match(loaded.stdout, new RegExp(`kept-previous  ${portal.resourceId}`));
    assert.match(loaded.stdout, /datastore_search: the portal could not be reached \(ECONNREFUSED\)/);
    assert.equal(mirrored.code, 4, mirrored.stdout + mirrored.stderr);
    assert.match(
      mirrored.stderr,
      /^count-centre: portal: status_show: the portal could not be reached \(ECONNREFUSED\); the portal is left alone until /,
    );
  });
});

describe('refresh', () => {
  test('nothing changed upstream: a probe, and no copy', async () => {
    await startPortal();
    await writeMirrorCatalog();
    await load();
    const sent = portal.seen.length;
    const result = await load();
    assert.deepEqual(
      result.outcomes.map((o) => o.status),
      ['unchanged'],
    );
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
  test("by resource id, into a dataset of another name: the portal's metadata kept, the mirror named in extras", async () => {
    await startPortal();
    const plan = await planMirror(
      { portal: portal.url, ids: [portal.resourceId], dataset: 'local-name', client: MIRROR.client },
      settings().catalog,
    );
    assert.equal(plan.ckanVersion, '2.10.0');
    assert.deepEqual(
      plan.resources.map((r) => [r.dataset, r.id, r.name, r.fields.length]),
      [['local-name', portal.resourceId, 'Fake counts', 6]],
    );
    const dataset = JSON.parse(plan.catalogText).datasets[0];
    assert.deepEqual(
      { ...dataset, resources: undefined },
      {
        name: 'local-name',
        title: 'A fake dataset',
        notes: 'Served by the tests.',
        license_id: 'CC-BY-4.0',
        license_title: 'Creative Commons Attribution 4.0',
        organization: 'Fake Organisation',
        extras: { frequency: 'daily', mirror_of: `${portal.url}dataset/fake-dataset` },
        resources: undefined,
      },
    );
    assert.deepEqual(dataset.resources[0].source, { ckan: portal.url, resource: portal.resourceId });
    assert.deepEqual(dataset.resources[0].fields[0], {
      id: 'Name',
      type: 'text',
      info: { label: 'Name', notes: 'The candidate as printed.', type_override: '' },
    });
  });

  test('a name the portal does not know', async () => {
    await startPortal();
    await assert.rejects(
      planMirror({ portal: portal.url, ids: ['nothing-here'], client: MIRROR.client }, settings().catalog),
      /nothing-here: the portal has no public dataset or resource with this name or id \(HTTP 404\)/,
    );
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
    const client = new CkanClient(portal.url, {
      token: 'tok-123',
      logger: pino({ level: 'trace' }, { write: (l: string) => void lines.push(l) }),
      sleep: async () => {},
    });
    const status = await client.action('status_show', {});
    assert.equal(status.ckan_version, '2.10.0');
    assert.ok(portal.seen.every((r) => r.headers.authorization === 'tok-123'));
    assert.ok(
      lines.length > 0 && lines.every((l) => !l.includes('tok-123')),
      'the retry was logged, without the token',
    );
  });
});
