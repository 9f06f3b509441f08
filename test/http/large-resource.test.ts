// The benchmark's 1,000,000-record synthetic resource (bench/synthetic.ts), on both stores, served by a process of its
// own whose memory and CPU are read from /proc: the dump streams with flat memory and stops when the client goes away;
// CKAN 2.12's next_page walks every record once, in order, both ways, with flat memory; and ranges on indexed fields
// are found through the indexes (EXPLAIN on each store), never by reading the whole table.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  CANDIDATE_FIELDS,
  SYNTHETIC_CATALOG,
  SYNTHETIC_RESOURCE_ID as RESOURCE,
  syntheticCatalog,
  writeSynthetic,
} from '../../bench/synthetic.js';
import { parseCatalog } from '../../src/catalog/load.js';
import { ApiError } from '../../src/errors.js';
import { buildDatabase } from '../../src/ingest/build.js';
import { buildPendingIndexes } from '../../src/ingest/indexes.js';
import type { PlanField, SearchPlan } from '../../src/query/plan.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch, type PlanResource } from '../../src/query/search-plan.js';
import { sqlCompilerFor } from '../../src/sql/compilers.js';
import { SQLITE_FUNCTIONS } from '../../src/dialect/sqlite/functions.js';
import { readPostgresMeta } from '../../src/storage/postgres/meta.js';
import { PROJECT_ROOT } from '../../src/settings.js';
import { storageFor } from '../../src/stores.js';
import { createTestDatabase, silentLogger, TEST_BACKENDS, TEST_TMP, testSettings } from '../helpers/service.js';

const ROWS = 1_000_000;
const dir = path.join(TEST_TMP, 'large-resource');
/**
 * The benchmark indexes seven fields and two pairs; two are enough for what is tested here, and each index costs
 * seconds to build on a million records, on every CI run.
 */
const INDEXED = new Set(['Votes', 'Surname']);
/** Records per page of the walks: 100 requests each way. */
const PAGE = 10_000;
/** By then caches have filled: from there on, memory must not grow. */
const SETTLED_AFTER = 30;
const MB = 1024 * 1024;
/** The server's JavaScript heap limit, in MB. */
const HEAP_MB = 128;
/**
 * The embedded store's page caches (`cache_size`, 64 MB each), which a walk of the whole file fills: one on the
 * serving connection and one per worker thread that searches move to when they outrun their budget (at most two).
 */
const SQLITE_PAGE_CACHES_MB = 64 * (1 + Math.min(2, availableParallelism()));

/**
 * Resident memory (VmRSS), its peak (VmHWM) and its anonymous part (RssAnon: the heap, without pages of the database
 * file mapped into memory) in bytes, and CPU time in clock ticks, of a process.
 */
function processStats(pid: number): { rss: number; peak: number; anon: number; cpuTicks: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), anon: kb('RssAnon'), cpuTicks: Number(stat[11]) + Number(stat[12]) };
}

/** Sets a process's peak back to its current resident memory, so that the next peak read is the next step's. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** The resource as the planner sees it: every number known to be full (the generator fills them all). */
const FIELDS: PlanField[] = [
  { id: '_id', type: 'int', nullable: false },
  ...CANDIDATE_FIELDS.map((f): PlanField => ({
    id: f.id,
    type: f.type,
    ...(f.type === 'text' ? {} : { nullable: false }),
    indexed: INDEXED.has(f.id),
  })),
];
const PLAN_RESOURCE: PlanResource = {
  id: RESOURCE,
  fields: FIELDS,
  fieldById: new Map(FIELDS.map((f) => [f.id, f])),
  total: ROWS,
};

function plan(input: Record<string, unknown>, resource: PlanResource = PLAN_RESOURCE): SearchPlan {
  const result = planSearch(
    readSearchRequest({ resource_id: RESOURCE, ...input }, { rowsDefault: 100, rowsMax: 32000 }),
    resource,
    { defaultLanguage: 'english' },
  );
  if (result instanceof ApiError) assert.fail(JSON.stringify(result.validation));
  return result;
}

/**
 * Runs `use` with a function that gives PostgreSQL's EXPLAIN of a plan, compiled for the table of the generation the
 * load published (where the resource's rows live).
 */
async function explainingOnPostgres(
  url: string,
  use: (explain: (plan: SearchPlan) => Promise<string>) => Promise<void>,
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const table = (await readPostgresMeta(client, 'countcentre'))!.resources.get(RESOURCE)!.table;
    const dialect = sqlCompilerFor({
      dialect: 'postgres',
      schema: 'countcentre',
      tables: new Map([[RESOURCE, table]]),
    });
    await use(async (searchPlan) => {
      const query = dialect.compileSearch(searchPlan);
      const result = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query.sql}`, query.params as unknown[]);
      return result.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  } finally {
    await client.end();
  }
}

/**
 * Ranges a client sends on the two indexed fields, and whether they are selective (a few hundred records of the
 * million, or none): those must be found in the field's index on either store. Broader ones may also be found by
 * PostgreSQL walking the table's key in _id order until the page is full, which it judges cheaper; never by a scan.
 */
const RANGES: [Record<string, unknown>, boolean][] = [
  [{ filters: { Votes: { gte: 40000 } } }, true],
  [{ filters: { Votes: { gte: 200000 } } }, true],
  [{ filters: { Votes: [{ lt: 25 }, { gt: 100000 }] } }, true],
  [{ filters: { Votes: { gte: 40000 } }, sort: 'Votes desc' }, true],
  [{ filters: { Votes: { gt: 100, lt: 200 } }, fields: '_id,Votes' }, false],
  [{ filters: { Surname: { gte: 'Mc', lt: 'Md' } } }, false],
  [{ filters: { Surname: { gt: 'Z' } }, sort: 'Surname' }, true],
  [{ sort: 'Votes desc', count_centre_after: [30000, 17], include_next_page: true }, true],
];

before(() => {
  // Seeded: the same records on every run, so the embedded store is rebuilt only when the generator changes.
  writeSynthetic({ rows: ROWS, outDir: dir });
  const catalog = syntheticCatalog(ROWS) as {
    datasets: { resources: { fields: { id: string; index: boolean }[]; indexes: string[][] }[] }[];
  };
  const resource = catalog.datasets[0]!.resources[0]!;
  resource.fields = resource.fields.map((f) => ({ ...f, index: INDEXED.has(f.id) }));
  resource.indexes = [];
  writeFileSync(path.join(dir, SYNTHETIC_CATALOG), JSON.stringify(catalog));
});

for (const backend of TEST_BACKENDS)
  describe(`the 1,000,000-record resource [${backend}]`, { timeout: 600_000 }, () => {
    let server: ChildProcess;
    let port: number;
    let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
    const storePath = path.join(dir, 'store.sqlite');

    before(async () => {
      database = backend === 'postgres' ? await createTestDatabase() : null;
      const settings = testSettings({ databasePath: storePath, ...(database ? { databaseUrl: database.url } : {}) });
      // Loaded here, so that the server process only ever reads: its memory is then the serving's alone.
      const target = storageFor(settings).loadTarget();
      const catalog = parseCatalog(JSON.parse(readFileSync(path.join(dir, SYNTHETIC_CATALOG), 'utf8')));
      try {
        await buildDatabase({ catalog, sources: dir, target, logger: silentLogger });
        // Its indexes too, which a load leaves for after publication.
        await buildPendingIndexes(target);
      } finally {
        await target.close();
      }
      // A small heap: a dump or a walk that kept what it has sent (a million records are some 400 MB of text) would run
      // out of it and fail, rather than only show up as growth that the garbage collector may or may not have undone.
      server = spawn(
        process.execPath,
        [`--max-old-space-size=${HEAP_MB}`, path.join(PROJECT_ROOT, 'dist', 'src', 'main.js')],
        {
          env: {
            ...process.env,
            PORT: '0',
            HOST: '127.0.0.1',
            LOG_LEVEL: 'info',
            COUNTCENTRE_LOAD_ON_START: 'false',
            COUNTCENTRE_CATALOG: path.join(dir, SYNTHETIC_CATALOG),
            COUNTCENTRE_SOURCES: dir,
            COUNTCENTRE_DB: storePath,
            // Pages of a walk are not kept as finished answers: the memory measured is the walk's own.
            COUNTCENTRE_RESPONSE_CACHE_MB: '0',
            ...(database ? { DATABASE_URL: database.url } : {}),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let output = '';
      for await (const chunk of server.stdout!) {
        output += String(chunk);
        const match = /"msg":"serving on http:\/\/127\.0\.0\.1:(\d+)"/.exec(output);
        if (match) {
          port = Number(match[1]);
          break;
        }
      }
      assert.ok(port, 'the server started');
    });

    after(async () => {
      if (server && server.exitCode === null) {
        server.kill();
        await once(server, 'exit');
      }
      await database?.drop();
    });

    const get = async (query: Record<string, unknown>) => {
      const params = new URLSearchParams(
        Object.entries(query).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      );
      const response = await fetch(`http://127.0.0.1:${port}/api/3/action/datastore_search?${params}`, {
        headers: { 'accept-encoding': 'identity' },
      });
      assert.equal(response.status, 200);
      return ((await response.json()) as { result: Record<string, any> }).result;
    };

    test("the dump streams every record while the server's memory grows by less than 50 MB", async () => {
      // A first dump, read and dropped, lets the process reach its working size (V8's young generation grows to its
      // full 32 MB under a stream of allocations, whatever holds them): what is measured is then the dump's own memory.
      const warmUp = await fetch(`http://127.0.0.1:${port}/datastore/dump/${RESOURCE}`, {
        headers: { 'accept-encoding': 'identity' },
      });
      assert.equal(warmUp.status, 200);
      for await (const _chunk of warmUp.body as AsyncIterable<Uint8Array>) {
        /* read to the end */
      }
      resetPeak(server.pid!);
      const before = processStats(server.pid!);
      const started = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/datastore/dump/${RESOURCE}`, {
        headers: { 'accept-encoding': 'identity' },
      });
      assert.equal(response.status, 200);
      let lines = 0;
      let tail = '';
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        for (const byte of chunk) if (byte === 10) lines++;
        tail = (tail + Buffer.from(chunk).toString('latin1')).slice(-1000);
      }
      const seconds = (performance.now() - started) / 1000;
      const end = processStats(server.pid!);
      const growth = end.peak - before.rss;
      assert.equal(lines, ROWS + 1, 'a header line and one line per record');
      assert.match(
        tail,
        /\n1000000,[^\n]+,1000000,\d+,[^\n]+\n$/,
        'the last record last (its Candidate Id is its _id)',
      );
      assert.ok(growth < 50 * MB, `RSS grew by ${(growth / MB).toFixed(1)} MB`);
      // Reported, not asserted: speed depends on the machine.
      console.log(
        `# dump [${backend}]: ${ROWS} records in ${seconds.toFixed(2)} s (${Math.round(ROWS / seconds)} records/s), ` +
          `peak RSS +${(growth / MB).toFixed(1)} MB, heap ${end.anon >= before.anon ? '+' : ''}${((end.anon - before.anon) / MB).toFixed(1)} MB after`,
      );
    });

    test('a client that leaves a dump stops the work', async () => {
      const cpuBefore = processStats(server.pid!).cpuTicks;
      await new Promise<void>((resolve, reject) => {
        const req = request(`http://127.0.0.1:${port}/datastore/dump/${RESOURCE}?format=json`, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
        req.end();
      });
      await new Promise((r) => setTimeout(r, 300));
      const settled = processStats(server.pid!).cpuTicks;
      await new Promise((r) => setTimeout(r, 1000));
      const later = processStats(server.pid!).cpuTicks;
      // A dump that kept running would take several seconds of CPU here (1,000,000 records as JSON).
      assert.ok(later - settled < 15, `the server used ${later - settled} ticks of CPU after the client left`);
      assert.ok(settled - cpuBefore < 100, 'and little before it noticed');
      const still = await fetch(
        `http://127.0.0.1:${port}/api/3/action/datastore_search?resource_id=${RESOURCE}&limit=1`,
      );
      assert.equal(still.status, 200, 'and it serves on');
    });

    // Ascending as JSON objects, descending as CSV text (cheaper for the test to read; CKAN gives next_page in every
    // format).
    for (const [direction, format] of [
      ['ascending', 'objects'],
      ['descending', 'csv'],
    ] as const) {
      test(`next_page walks every record once, in order, ${direction}, with flat memory (${format})`, async () => {
        const descending = direction === 'descending';
        const first = await get({ resource_id: RESOURCE, limit: 0, include_next_page: true });
        assert.equal(first.total, ROWS);
        assert.equal(first.next_page, undefined, 'a page without records has no next_page');
        resetPeak(server.pid!);
        const before = processStats(server.pid!);
        const started = performance.now();
        let expected = descending ? ROWS : 1;
        let next: unknown;
        let pages = 0;
        let settled = 0;
        let highest = before.anon;
        for (;;) {
          const result = await get({
            resource_id: RESOURCE,
            limit: PAGE,
            include_next_page: true,
            include_total: false,
            records_format: format,
            ...(descending ? { sort: '_id desc' } : {}),
            ...(next ? { filters: next } : {}),
          });
          pages += 1;
          // [_id, Candidate Id] of each record: the generator numbers candidates as it writes records, so they agree.
          const keys: [number, number][] =
            format === 'csv'
              ? (result.records as string)
                  .split('\n')
                  .filter(Boolean)
                  .map((line) => {
                    const cells = line.split(',');
                    return [Number(cells[0]), Number(cells[12])];
                  })
              : (result.records as Record<string, number>[]).map((r) => [r._id!, r['Candidate Id']!]);
          let wrong = 0;
          for (const [id, candidate] of keys) {
            if (id !== expected || candidate !== id) wrong += 1;
            expected += descending ? -1 : 1;
          }
          assert.equal(wrong, 0, `page ${pages}: every record once, in order, itself`);
          if (keys.length === 0) {
            assert.equal(result.next_page, undefined);
            break;
          }
          assert.deepEqual(result.next_page, { _id: { [descending ? 'lt' : 'gt']: keys.at(-1)![0] } });
          next = result.next_page;
          const now = processStats(server.pid!).anon;
          highest = Math.max(highest, now);
          if (pages === SETTLED_AFTER) settled = now;
          assert.ok(pages <= ROWS / PAGE + 1, 'the walk ends');
        }
        const seconds = (performance.now() - started) / 1000;
        const end = processStats(server.pid!);
        assert.equal(expected, descending ? 0 : ROWS + 1, 'every record was seen');
        assert.equal(pages, ROWS / PAGE + 1, 'the full pages, then one without records');
        // The heap (capped, see HEAP_MB) may hold a few 3 MB pages while they are written, and the embedded store's
        // connections fill their page caches once the walk passes the part of the file they map into memory; beyond
        // that, memory must not grow with the walk. Mapped pages of the database file are the OS's cache, not the
        // process's own memory, and are left out (RssAnon).
        const cache = backend === 'sqlite' ? SQLITE_PAGE_CACHES_MB * MB : 0;
        const growth = highest - before.anon;
        const drift = end.anon - settled;
        assert.ok(growth < cache + 60 * MB, `memory grew by ${(growth / MB).toFixed(1)} MB`);
        assert.ok(
          drift < cache + 30 * MB,
          `memory grew by ${(drift / MB).toFixed(1)} MB between page ${SETTLED_AFTER} and page ${pages}`,
        );
        console.log(
          `# next_page walk [${backend}, ${direction}]: ${ROWS} records in ${pages} pages, ${seconds.toFixed(2)} s, ` +
            `heap +${(growth / MB).toFixed(1)} MB (${drift >= 0 ? '+' : ''}${(drift / MB).toFixed(1)} MB after page ${SETTLED_AFTER}), peak RSS +${((end.peak - before.rss) / MB).toFixed(1)} MB`,
        );
      });
    }

    test('ranges on indexed fields are found through the indexes (EXPLAIN), never by reading the table', async () => {
      const explained: string[] = [];
      if (backend === 'sqlite') {
        const dialect = sqlCompilerFor({ dialect: 'sqlite', indexLanguage: 'english' });
        const db = new Database(storePath, { readonly: true });
        // The compiled statements call the store's deadline guard on each row; here there is no deadline to keep.
        db.function(SQLITE_FUNCTIONS.deadline, (_row: unknown) => 1);
        try {
          for (const [input] of RANGES) {
            const query = dialect.compileSearch(plan(input));
            explained.push(
              (
                db.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...(query.params as (string | number)[])) as {
                  detail: string;
                }[]
              )
                .map((r) => r.detail)
                .join('\n'),
            );
          }
        } finally {
          db.close();
        }
      } else {
        await explainingOnPostgres(database!.url, async (explain) => {
          for (const [input] of RANGES) explained.push(await explain(plan(input)));
        });
      }
      RANGES.forEach(([input, selective], i) => {
        const text = explained[i]!;
        const field = Object.keys((input.filters ?? { Votes: 0 }) as object)[0]!;
        const position = CANDIDATE_FIELDS.findIndex((f) => f.id === field) + 1;
        // The stores name a field's index by its position: "<resource>__10" in the file, "cc_<digest>_10" in
        // PostgreSQL; the embedded store's descending sort index of the field, which a later test asks for (and a
        // store kept from an earlier run has), "<resource>__d10".
        const index =
          backend === 'sqlite'
            ? new RegExp(`${RESOURCE}__d?${position}\\b`)
            : new RegExp(`cc_[0-9a-f]{20}_${position}\\b`);
        if (selective || backend === 'sqlite')
          assert.match(text, index, `${JSON.stringify(input)} uses the index of ${field}`);
        if (backend === 'sqlite')
          assert.doesNotMatch(
            text,
            new RegExp(`^SCAN "?${RESOURCE}"?$`, 'm'),
            `${JSON.stringify(input)} reads no table in full:\n${text}`,
          );
        else assert.doesNotMatch(text, /Seq Scan/, `${JSON.stringify(input)} reads no table in full:\n${text}`);
      });
      // Reported, not asserted: the time of the first, selective range over HTTP, and what it found.
      const started = performance.now();
      const result = await get({ resource_id: RESOURCE, filters: { Votes: { gte: 40000 } } });
      console.log(
        `# range [${backend}]: ${result.total} of ${ROWS} records matched in ${(performance.now() - started).toFixed(1)} ms`,
      );
      assert.ok(result.records.length === 100 && result.records.every((r: { Votes: number }) => r.Votes >= 40000));
    });

    test('a deep page sorted by a field is the same records as the end of a longer page; on PostgreSQL, an index-only scan of its sort index', async () => {
      // What sorted searches of this resource ask a serving process for: on PostgreSQL, the field's sort indexes (Votes
      // ascending, then _id; Votes descending, then _id); on SQLite, whose index on Votes already orders a vote count's
      // records by _id, the descending one alone.
      const target = storageFor(
        testSettings({ databasePath: storePath, ...(database ? { databaseUrl: database.url } : {}) }),
      ).loadTarget();
      try {
        const votes = new Map([[RESOURCE, new Set(['Votes'])]]);
        await buildPendingIndexes(target, {
          requested: { fields: new Map(), ascending: backend === 'postgres' ? votes : new Map(), descending: votes },
        });
        // Built now, or by an earlier run of this suite, whose store this one keeps.
        const built = (await target.readMeta())!.resources.get(RESOURCE)!.builtIndexes;
        assert.ok(built.includes('("Votes" DESC, "_id")'));
        assert.equal(built.includes('("Votes", "_id")'), backend === 'postgres');
      } finally {
        await target.close();
      }
      if (backend === 'postgres') {
        const votes = FIELDS.find((f) => f.id === 'Votes')!;
        const withSortIndexes: PlanResource = {
          ...PLAN_RESOURCE,
          fieldById: new Map([
            ...PLAN_RESOURCE.fieldById,
            ['Votes', { ...votes, indexed: true, sortIndexed: true, sortIndexedDescending: true }],
          ]),
        };
        await explainingOnPostgres(database!.url, async (explain) => {
          const explainPage = (input: Record<string, unknown>) =>
            explain(plan({ limit: 10, ...input }, withSortIndexes));
          const position = CANDIDATE_FIELDS.findIndex((f) => f.id === 'Votes') + 1;
          for (const [sort, letter] of [
            ['Votes', 's'],
            ['Votes desc', 'd'],
          ]) {
            const sortIndex = new RegExp(`Index Only Scan using cc_[0-9a-f]{20}_${letter}${position}\\b`);
            // A deep page, and the page after a record (keyset), are stretches of the sort index.
            const deep = await explainPage({ sort, offset: 500_000 });
            assert.match(deep, sortIndex, deep);
            const next = await explainPage({ sort, count_centre_after: [30_000, 400_000] });
            assert.match(next, sortIndex, next);
            // Two seeks: to the vote count's records after _id 400,000, and to the first of the next vote count. One
            // range from the vote count on would step over its records before _id 400,000 first.
            assert.match(next, /Index Cond: \(\("Votes" = .*\) AND \(_id > 400000\)\)/, next);
            assert.match(next, new RegExp(`Index Cond: \\("Votes" ${sort === 'Votes' ? '>' : '<'} `), next);
            // A filtered sort is planned as without the sort index: its tie-break by _id is one no index holds.
            const filtered = await explainPage({ sort, filters: { 'Party Abbreviation': 'W.P.' } });
            assert.doesNotMatch(filtered, new RegExp(`cc_[0-9a-f]{20}_${letter}${position}\\b`), filtered);
            assert.match(filtered, /\("_id" \+ 0\)|_id \+ 0/, filtered);
          }
        });
      }
      // The serving process reads the new version (with the index) from its next request on.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (const sort of ['Votes', 'Votes desc'])
        for (const offset of [1000, 654_321]) {
          const started = performance.now();
          const page = await get({ resource_id: RESOURCE, sort, offset, limit: 10, include_total: false });
          const ms = performance.now() - started;
          // The same records, as the end of a page of 1,001 that starts 991 records earlier: more than a page whose
          // _ids are found first may hold, so read another way, in one statement.
          const longer = await get({
            resource_id: RESOURCE,
            sort,
            offset: offset - 991,
            limit: 1001,
            include_total: false,
          });
          assert.equal(page.records.length, 10);
          assert.deepEqual(page.records, longer.records.slice(991));
          console.log(`# page sorted by ${sort} at offset ${offset} [${backend}]: ${ms.toFixed(1)} ms`);
        }
    });
  });
