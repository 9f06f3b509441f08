// The mirror's copy speed, by each route (the portal's dump, pages of datastore_search), and what a refresh costs:
// - against a real CKAN when one is given (BENCH_CKAN_URL, and BENCH_CKAN_TOKEN to create its table once): a generated
//   table of --ckan-rows records with numerics, NULLs and non-ASCII text, reused on later runs; skipped, saying so,
//   when none is given or it does not answer;
// - against a Count Centre process serving the synthetic resource (bench/synthetic.ts) as a CKAN portal (--rows;
//   --rows 0 skips it).
// Each copy goes into a fresh embedded store (or PostgreSQL with --pg URL) and is timed twice over: the portal's part
// (the requests a copy makes, read and verified but not stored) and the whole copy, published.
// With --changes (and BENCH_CKAN_TOKEN), the real CKAN's table is then changed by one record at a time (an append, an
// edit, a deletion, each put back afterwards) and each refresh timed against the first copy: the incremental refresh.
// With --double-changes N, the same refreshes are timed against the tests' in-process CKAN double holding N records of
// the same generated table (what the store's part of a refresh costs, without a real CKAN).
//   node dist/bench/mirror.js [--rows 1000000] [--ckan-rows 200000] [--routes dump,pages] [--methods sql,offset] [--pg
// postgres://…]
//     [--changes] [--ckan-dataset NAME] [--double-changes 200000]

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { planMirror } from '../src/cli/mirror.js';
import { loadCatalogFile } from '../src/catalog/load.js';
import { buildDatabase, type BuildResult } from '../src/ingest/build.js';
import { CkanClient } from '../src/portal/client.js';
import { openDump } from '../src/portal/dump.js';
import { catalogFields, UpstreamResource, type PagingMethod } from '../src/portal/mirror.js';
import type { CopyRoute } from '../src/ingest/sources.js';
import { loadSettings } from '../src/settings.js';
import { storageFor } from '../src/stores.js';
import { LosslessNumber } from 'lossless-json';
import { FakeCkan, type FakeRecord } from '../test/helpers/fake-ckan.js';
import { CkanWriter, TEST_TABLE_FIELDS, testRecord, testRecords } from '../test/helpers/real-ckan.js';
import { SYNTHETIC_RESOURCE_ID, writeSynthetic } from './synthetic.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Options {
  routes: CopyRoute[];
  methods: PagingMethod[] | undefined;
  pg: string | undefined;
  tmp: string;
}

const round = (n: number, places = 1) => Math.round(n * 10 ** places) / 10 ** places;

/** A fresh store of its own: a folder (and, with --pg, the database emptied of Count Centre's schemas). */
async function freshStore(
  options: Options,
  name: string,
): Promise<{ catalog: string; settings: ReturnType<typeof loadSettings> }> {
  const folder = path.join(options.tmp, name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const catalog = path.join(folder, 'catalog.json');
  const settings = loadSettings(
    {},
    {
      catalog,
      sources: folder,
      databasePath: path.join(folder, 'store.sqlite'),
      databaseUrl: options.pg ?? null,
      logLevel: 'silent',
    },
  );
  if (options.pg) {
    const client = new pg.Client({ connectionString: options.pg });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS "${settings.pgDataSchema}" CASCADE`);
    } finally {
      await client.end();
    }
  }
  return { catalog, settings };
}

async function load(
  settings: ReturnType<typeof loadSettings>,
  mirror: Parameters<typeof buildDatabase>[0]['mirror'],
): Promise<{ result: BuildResult; seconds: number }> {
  const target = storageFor(settings).loadTarget();
  const started = performance.now();
  const result = await buildDatabase({
    catalog: loadCatalogFile(settings.catalog),
    sources: settings.sources,
    target,
    logger: pino({ level: 'warn' }),
    mirror,
  }).finally(() => target.close());
  return { result, seconds: (performance.now() - started) / 1000 };
}

/**
 * The portal's part of a copy by one route, without storing: for the dump, the probe, the sampled pages, the download
 * and the probe after (portalSeconds), then every record read, typed and verified (readSeconds); for pages, every page
 * read and typed, then the probe after.
 */
async function portalPart(
  portal: string,
  resourceId: string,
  route: CopyRoute,
  methods: PagingMethod[] | undefined,
): Promise<Record<string, unknown>> {
  const client = new CkanClient(portal, { concurrency: 2 });
  const upstream = new UpstreamResource(client, resourceId, methods ? { methods } : {});
  const started = performance.now();
  const before = await upstream.probe();
  const fields = catalogFields(before.fields);
  let records = 0;
  if (route === 'dump') {
    const dump = await openDump(upstream, fields, before);
    const portalSeconds = (performance.now() - started) / 1000;
    for await (const _row of dump.rows()) records += 1;
    const seconds = (performance.now() - started) / 1000;
    return {
      route,
      records,
      bytes: dump.bytes,
      requests: client.stats.requests,
      downloadSeconds: round(dump.ms / 1000, 2),
      portalSeconds: round(portalSeconds, 2),
      portalRecordsPerSecond: Math.round(records / portalSeconds),
      readSeconds: round(seconds, 2),
      readRecordsPerSecond: Math.round(records / seconds),
    };
  }
  for await (const _row of upstream.records(fields)) records += 1;
  await upstream.probe();
  const seconds = (performance.now() - started) / 1000;
  return {
    route: `pages (${upstream.lastMethod})`,
    records,
    requests: client.stats.requests,
    portalSeconds: round(seconds, 2),
    portalRecordsPerSecond: Math.round(records / seconds),
    readSeconds: round(seconds, 2),
    readRecordsPerSecond: Math.round(records / seconds),
  };
}

/** Mirrors one upstream resource by each route into a fresh store, then times a refresh that finds nothing changed. */
async function measure(label: string, portal: string, resourceId: string, options: Options): Promise<void> {
  for (const route of options.routes) {
    console.log(
      JSON.stringify({
        upstream: label,
        part: 'portal',
        ...(await portalPart(portal, resourceId, route, options.methods)),
      }),
    );
    const { catalog, settings } = await freshStore(options, `${label}-${route}`.replace(/\W+/g, '-'));
    const plan = await planMirror({ portal, ids: [resourceId] }, catalog);
    writeFileSync(catalog, plan.catalogText);
    const mirror = {
      settleMs: 0,
      routes: route === 'dump' ? (['dump', 'pages'] as CopyRoute[]) : (['pages'] as CopyRoute[]),
      ...(options.methods ? { methods: options.methods } : {}),
    };
    const copy = await load(settings, mirror);
    const outcome = copy.result.outcomes[0]!;
    console.log(
      JSON.stringify({
        upstream: label,
        part: 'whole copy, published',
        store: options.pg ? 'postgres' : 'sqlite',
        route,
        method: outcome.method,
        status: outcome.status,
        records: outcome.rows,
        seconds: round(copy.seconds),
        recordsPerSecond: Math.round((outcome.rows ?? 0) / copy.seconds),
        ...(outcome.warning ? { warning: outcome.warning } : {}),
        ...(outcome.error ? { error: outcome.error } : {}),
      }),
    );
    if (route === options.routes[0]) {
      const refresh = await load(settings, { ...mirror, settleMs: 10_000 });
      const client = new CkanClient(portal);
      const probeStarted = performance.now();
      await new UpstreamResource(client, resourceId).probe();
      console.log(
        JSON.stringify({
          upstream: label,
          part: 'refresh, nothing changed',
          status: refresh.result.outcomes[0]!.status,
          seconds: round(refresh.seconds, 2),
          probeRequests: client.stats.requests,
          probeSeconds: round((performance.now() - probeStarted) / 1000, 3),
        }),
      );
    }
  }
}

/** The changes a refresh is timed after: a record appended (its `_id` returned), edited, deleted. */
interface Changes {
  label: string;
  append(): Promise<number>;
  edit(id: number, name: string): Promise<void>;
  delete(id: number): Promise<void>;
}

/** The real CKAN's table, changed through its API (needs a token that may write to it). */
function realChanges(portal: string, resourceId: string, rows: number, token: string): Changes {
  const writer = new CkanWriter(portal, token);
  return {
    label: 'real CKAN',
    async append() {
      await writer.insert(resourceId, [{ ...testRecord(rows + 1), name: 'Appended by the bench' }]);
      return Number(
        (
          await writer.action('datastore_search', {
            resource_id: resourceId,
            sort: '_id desc',
            limit: 1,
            fields: ['_id'],
          })
        ).records[0]._id,
      );
    },
    async edit(id, name) {
      await writer.action('datastore_upsert', {
        resource_id: resourceId,
        method: 'update',
        force: true,
        records: [{ _id: id, name }],
      });
    },
    delete: (id) => writer.deleteRecords(resourceId, { _id: id }),
  };
}

/** A record of the generated table as the CKAN double holds it (numerics as lossless numbers, as it sends them). */
function doubleRecord(i: number, values: Record<string, unknown> = testRecord(i)): FakeRecord {
  const record: FakeRecord = { _id: i };
  for (const field of TEST_TABLE_FIELDS) {
    const value = values[field.id];
    record[field.id] =
      value !== null && (field.type === 'numeric' || field.type === 'int8') ? new LosslessNumber(String(value)) : value;
  }
  return record;
}

/** The tests' CKAN double, changed in memory. */
function doubleChanges(portal: FakeCkan, rows: number): Changes {
  return {
    label: 'CKAN double',
    async append() {
      portal.records = [...portal.records, doubleRecord(rows + 1, { ...testRecord(rows + 1), name: 'Appended' })];
      return rows + 1;
    },
    async edit(id, name) {
      const at = portal.records.findIndex((r) => r._id === id);
      portal.records = portal.records.map((r, i) => (i === at ? { ...r, name } : r));
    },
    async delete(id) {
      portal.records = portal.records.filter((r) => r._id !== id);
    },
  };
}

/**
 * What a refresh costs after one change upstream, against the first copy: the table copied into a fresh store, then
 * one record appended, one edited, one deleted, each followed by a timed refresh (no settle interval, as for the copy),
 * and put back at the end.
 */
async function measureChanges(portal: string, resourceId: string, changes: Changes, options: Options): Promise<void> {
  const { catalog, settings } = await freshStore(options, 'changes');
  writeFileSync(catalog, (await planMirror({ portal, ids: [resourceId] }, catalog)).catalogText);
  const mirror = { settleMs: 0 };
  const report = (part: string, run: { result: BuildResult; seconds: number }, first: number) => {
    const outcome = run.result.outcomes[0]!;
    console.log(
      JSON.stringify({
        upstream: changes.label,
        part,
        store: options.pg ? 'postgres' : 'sqlite',
        status: outcome.status,
        method: outcome.method,
        records: outcome.rows,
        seconds: round(run.seconds, 2),
        ofFirstCopy: round(run.seconds / first, 3),
        load: os.loadavg().map((l) => round(l, 1)),
        ...(outcome.error ? { error: outcome.error } : {}),
      }),
    );
  };
  const first = await load(settings, mirror);
  report('first copy', first, first.seconds);
  const maxId = await changes.append();
  try {
    report('refresh, one record appended', await load(settings, mirror), first.seconds);
    const edited = 100_000;
    await changes.edit(edited, 'Edited by the bench');
    try {
      report('refresh, one record edited', await load(settings, mirror), first.seconds);
    } finally {
      await changes.edit(edited, testRecord(edited).name as string);
    }
    await changes.delete(maxId);
    report('refresh, one record deleted', await load(settings, mirror), first.seconds);
    // With the portal's block hashes, a refresh that finds nothing changed still has the portal hash the table.
    report('refresh, nothing changed', await load(settings, mirror), first.seconds);
  } finally {
    await changes.delete(maxId).catch(() => {});
  }
}

/** The real CKAN's bench table, made once (a dataset named after its size) and found again on later runs. */
async function realCkanTable(
  url: string,
  token: string | undefined,
  rows: number,
  datasetName?: string,
): Promise<{ resource: string } | { skipped: string }> {
  const writer = new CkanWriter(url, token ?? '');
  if (!(await writer.reachable())) return { skipped: `no CKAN answers at ${url}` };
  const name = datasetName ?? `countcentre-bench-${rows}`;
  try {
    const pkg = await writer.action('package_show', { id: name });
    const resource = (pkg.resources as { id: string }[])[0];
    if (
      resource &&
      Number((await writer.action('datastore_search', { resource_id: resource.id, limit: 0 })).total) === rows
    )
      return { resource: resource.id };
  } catch {
    // Not made yet, or not whole: made again below.
  }
  if (!token)
    return { skipped: `${url} has no table ${name}; set BENCH_CKAN_TOKEN (a sysadmin's API token) to create it` };
  console.log(`creating ${rows.toLocaleString('en-IE')} records on ${url} (once)`);
  const dataset = await writer.createDataset(name, 'count-centre-bench');
  return {
    resource: await writer.createTable(dataset.id, `Generated ${rows}`, TEST_TABLE_FIELDS, testRecords(rows), 10_000),
  };
}

async function countCentreUpstream(rows: number, tmp: string): Promise<{ url: string; process: ChildProcess }> {
  console.log(`generating ${rows.toLocaleString('en-IE')} records`);
  const synthetic = writeSynthetic({ rows, outDir: path.join(tmp, 'upstream') });
  console.log('loading them into the upstream');
  const upstream = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli', 'count-centre.js'), 'serve'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      COUNTCENTRE_LOG_FORMAT: 'json',
      COUNTCENTRE_REQUEST_LOG_LEVEL: 'debug',
      COUNTCENTRE_CATALOG: synthetic.catalogPath,
      COUNTCENTRE_SOURCES: path.dirname(synthetic.csvPath),
      COUNTCENTRE_DB: path.join(tmp, 'upstream.sqlite'),
      COUNTCENTRE_SQL_TIMEOUT_MS: '10000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    upstream.stdout!.on('data', (chunk) => {
      output += String(chunk);
      const match = /"msg":"serving on http:\/\/127\.0\.0\.1:(\d+)"/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    upstream.once('exit', (code) => reject(new Error(`the upstream exited (${code})`)));
  });
  upstream.stdout!.resume();
  return { url: `http://127.0.0.1:${port}/`, process: upstream };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '1000000' },
      'ckan-rows': { type: 'string', default: '200000' },
      routes: { type: 'string', default: 'dump,pages' },
      methods: { type: 'string' },
      pg: { type: 'string' },
      changes: { type: 'boolean', default: false },
      'ckan-dataset': { type: 'string' },
      'double-changes': { type: 'string' },
    },
  });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'countcentre-bench-mirror-'));
  const options: Options = {
    routes: values.routes!.split(',') as CopyRoute[],
    methods: values.methods ? (values.methods.split(',') as PagingMethod[]) : undefined,
    pg: values.pg,
    tmp,
  };
  try {
    const ckanUrl = process.env.BENCH_CKAN_URL;
    if (!ckanUrl) {
      console.log(
        JSON.stringify({
          upstream: 'real CKAN',
          skipped: 'set BENCH_CKAN_URL (and BENCH_CKAN_TOKEN to create its table once) to measure against a real CKAN',
        }),
      );
    } else {
      const table = await realCkanTable(
        ckanUrl,
        process.env.BENCH_CKAN_TOKEN,
        Number(values['ckan-rows']),
        values['ckan-dataset'],
      );
      if ('skipped' in table) console.log(JSON.stringify({ upstream: 'real CKAN', skipped: table.skipped }));
      else if (values.changes) {
        if (!process.env.BENCH_CKAN_TOKEN)
          console.log(
            JSON.stringify({ upstream: 'real CKAN', skipped: '--changes writes to the table: set BENCH_CKAN_TOKEN' }),
          );
        else
          await measureChanges(
            ckanUrl,
            table.resource,
            realChanges(ckanUrl, table.resource, Number(values['ckan-rows']), process.env.BENCH_CKAN_TOKEN),
            options,
          );
      } else await measure('real CKAN', ckanUrl, table.resource, options);
    }
    if (values['double-changes']) {
      const rows = Number(values['double-changes']);
      const portal = await new FakeCkan({
        version: '2.10',
        sql: true,
        rowsMax: 32_000,
        fields: TEST_TABLE_FIELDS,
        records: Array.from({ length: rows }, (_, i) => doubleRecord(i + 1)),
      }).start();
      try {
        await measureChanges(portal.url, portal.resourceId, doubleChanges(portal, rows), options);
      } finally {
        await portal.stop();
      }
    }
    const rows = Number(values.rows);
    if (rows > 0) {
      const upstream = await countCentreUpstream(rows, tmp);
      try {
        await measure('Count Centre', upstream.url, SYNTHETIC_RESOURCE_ID, options);
      } finally {
        upstream.process.kill('SIGTERM');
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
