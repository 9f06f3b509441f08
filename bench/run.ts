// `npm run bench`: starts the service and a ceiling server as child processes, drives both with the same load
// generator in alternating runs, and reports requests/s, latency and memory against the ceiling and the targets.
// See bench/README.md for what each scenario measures and why.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  autocannonGenerator,
  download,
  wrkGenerator,
  type LoadGenerator,
  type LoadResult,
  type LoadSpec,
} from './loadgen.js';
import {
  CEILING_ENTRY,
  PROJECT_ROOT,
  SERVICE_ENTRY,
  childEnv,
  familyMemory,
  familyTicks,
  freePort,
  resetPeak,
  startProcess,
  type Proc,
} from './procs.js';
import {
  DEFAULT_PAGE,
  POPULAR,
  RESOURCE_A,
  RESOURCE_B,
  RESOURCE_C,
  fetchResource,
  generateStream,
  searchPath,
  syntheticPaths,
} from './queries.js';
import { HTML_PAGES, measureFirstVisits, measureTtfb, measureWeight, type HtmlPage } from './html.js';
import { httpGet, record, writeRecording, type Recorded } from './recording.js';
import {
  README_BEGIN,
  TITLES,
  consoleSummary,
  evaluate,
  fmtInt,
  fmtMb,
  fmtMs,
  gitInfo,
  machineInfo,
  median,
  medianMetrics,
  updateReadme,
  type BenchReport,
  type ScenarioId,
  type ScenarioResult,
} from './report.js';
import {
  DEFAULT_SEED,
  SYNTHETIC_CATALOG,
  SYNTHETIC_RESOURCE_ID,
  SYNTHETIC_SOURCE,
  writeSynthetic,
} from './synthetic.js';
import { writeSampleWithArrow } from '../test/helpers/parquet-files.js';
import { flightsCsv, flightsParquet } from './flights.js';
import pg from 'pg';
import { tableSizesSql } from '../src/dialect/postgres/ddl.js';
import { readPostgresMeta } from '../src/storage/postgres/meta.js';
import { postgresFloor, sqliteFloor } from './floor.js';
import { scaleScenario, scaleTable, updateScaleReadme } from './scale.js';

const USAGE = `Usage: npm run bench -- [options]

  --quick             smoke run of a few seconds: scenarios 1, 5 and 6, 1 s measurements, nothing written
                      unless --json or --write is given
  --scenarios LIST    e.g. 1,3 (of 1 2 3 4 5 6 7 8 9; the 2-worker run goes with 3; 6 is the explorer's HTML pages;
                      7 and 8 publish a CSV and a Parquet file with count-centre add; 9, 100,000,000 records on
                      PostgreSQL, runs only when named)
  --duration S        seconds per measurement (default 10; --quick: 1)
  --alternations N    service/ceiling run pairs per scenario (default 3; --quick: 1)
  --rows N            records of the synthetic resource (default 1000000; scenario 9: 100000000)
  --parquet-rows N    records of scenario 8's Parquet file (default 3000000)
  --stream N          distinct queries in scenario 3 (default 10000)
  --connections N     keep-alive connections (default 16)
  --loadgen NAME      wrk or autocannon (default: wrk when on PATH, else autocannon)
  --seed N            seed of the query stream and the synthetic resource (default ${DEFAULT_SEED})
  --json FILE         also write the results as JSON to FILE
  --write / --no-write  write bench/results/<date>.json (<date>-2.json… for a day's later runs) and the README table
                        (default: yes, except --quick)
  --note TEXT         a remark stored with the results and shown above the README table
  --keep              keep the temporary folder (databases, recordings) under bench/results/tmp/
  --drop-source       scenario 9: delete the generated source once its rows are copied (100,000,000 records: the
                      source's 10 GB and the database's 64 GB together fill this kind of disk)

Environment: BENCH_DATABASE_URL=postgres://… also runs every scenario on PostgreSQL (passed as DATABASE_URL).`;

interface Options {
  quick: boolean;
  scenarios: Set<string>;
  duration: number;
  alternations: number;
  warmup: number;
  connections: number;
  rows: number;
  parquetRows: number;
  /** Whether --rows was given: scenario 9 has its own default. */
  rowsGiven: boolean;
  stream: number;
  seed: number;
  loadgen: 'auto' | 'wrk' | 'autocannon';
  json: string | null;
  write: boolean;
  note: string | null;
  keep: boolean;
  dropSource: boolean;
  coldStarts: number;
  idleSettleMs: number;
}

function positive(name: string, raw: string | undefined, fallback: number, integer = true): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${name} must be a positive ${integer ? 'whole ' : ''}number, got ${JSON.stringify(raw)}`);
  }
  return n;
}

class UsageError extends Error {}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      scenarios: { type: 'string' },
      duration: { type: 'string' },
      alternations: { type: 'string' },
      rows: { type: 'string' },
      'parquet-rows': { type: 'string' },
      stream: { type: 'string' },
      connections: { type: 'string' },
      loadgen: { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'string' },
      write: { type: 'boolean' },
      'no-write': { type: 'boolean' },
      note: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'drop-source': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return null;
  }
  const quick = values.quick ?? false;
  const scenarios = new Set(
    (values.scenarios ?? (quick ? '1,5,6' : '1,2,3,4,5,6'))
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  for (const s of scenarios) {
    if (!['1', '2', '3', '4', '5', '6', '7', '8', '9'].includes(s))
      throw new UsageError(`unknown scenario ${JSON.stringify(s)} (1 to 9)`);
  }
  const loadgen = values.loadgen ?? 'auto';
  if (!['auto', 'wrk', 'autocannon'].includes(loadgen)) throw new UsageError('--loadgen must be wrk or autocannon');
  const duration = positive('--duration', values.duration, quick ? 1 : 10, false);
  return {
    quick,
    scenarios,
    duration,
    alternations: positive('--alternations', values.alternations, quick ? 1 : 3),
    // Long enough for V8 to optimise the hot paths and for both servers to reach steady state.
    warmup: quick ? 0.3 : Math.min(2, Math.max(0.5, duration / 5)),
    connections: positive('--connections', values.connections, 16),
    rows: positive('--rows', values.rows, 1_000_000),
    parquetRows: positive('--parquet-rows', values['parquet-rows'], 3_000_000),
    rowsGiven: values.rows !== undefined,
    stream: positive('--stream', values.stream, 10_000),
    seed: values.seed === undefined ? DEFAULT_SEED : positive('--seed', values.seed, DEFAULT_SEED),
    loadgen: loadgen as Options['loadgen'],
    json: values.json ? path.resolve(values.json) : null,
    write: values['no-write'] ? false : (values.write ?? !quick),
    note: values.note ?? null,
    keep: values.keep ?? false,
    dropSource: values['drop-source'] ?? false,
    coldStarts: quick ? 2 : 5,
    idleSettleMs: quick ? 200 : 1000,
  };
}

// ---------------------------------------------------------------------------------------------------------------

interface Backend {
  name: 'sqlite' | 'postgres';
  env: Record<string, string>;
}

interface Ctx {
  opts: Options;
  tmp: string;
  gen: LoadGenerator;
  /** The generator of scenario 3's "each path once" runs: autocannon, as when its targets were set. */
  onceGen: LoadGenerator;
  /** The generator of scenario 3w's runs, of one process and of two: wrk when installed (its own work is small). */
  scaleGen: LoadGenerator;
  servicePort: number;
  ceilingPort: number;
  live: Set<Proc>;
  results: ScenarioResult[];
  skipped: string[];
  syntheticDir: string | null;
  started: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function log(ctx: Ctx, message: string): void {
  const t = ((performance.now() - ctx.started) / 1000).toFixed(0).padStart(4);
  console.log(`[${t}s] ${message}`);
}

async function startService(
  ctx: Ctx,
  env: Record<string, string>,
  label: string,
  probePath = DEFAULT_PAGE,
  timeoutMs = 600_000,
): Promise<Proc> {
  const proc = await startProcess({
    label,
    args: [SERVICE_ENTRY],
    env: { ...env, PORT: String(ctx.servicePort) },
    probePath,
    timeoutMs,
  });
  ctx.live.add(proc);
  return proc;
}

async function startCeiling(ctx: Ctx, recordingFile: string): Promise<Proc> {
  const proc = await startProcess({
    label: 'ceiling',
    args: [CEILING_ENTRY, '--recording', recordingFile, '--port', String(ctx.ceilingPort)],
    env: { PORT: String(ctx.ceilingPort) },
    probePath: '/__ceiling_ready',
    timeoutMs: 60_000,
  });
  ctx.live.add(proc);
  return proc;
}

async function stop(ctx: Ctx, proc: Proc | null): Promise<void> {
  if (!proc) return;
  await proc.stop();
  ctx.live.delete(proc);
}

/** Polls a process family's memory while a measurement runs: the kernel keeps the peak RSS, not the peak heap. */
function memorySampler(pid: number): { stop(): { peakAnon: number } } {
  let peakAnon = 0;
  const sample = () => {
    const m = familyMemory(pid);
    if (m && m.anon > peakAnon) peakAnon = m.anon;
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakAnon };
    },
  };
}

function spec(
  ctx: Ctx,
  port: number,
  paths: readonly string[],
  seconds: number,
  mode: LoadSpec['mode'] = 'cycle',
  connections = ctx.opts.connections,
): LoadSpec {
  return { port, paths, mode, connections, seconds, workDir: ctx.tmp };
}

function base(id: ScenarioId, backend: Backend): ScenarioResult {
  return { id, backend: backend.name, title: TITLES[id], status: 'measured', targets: [], notes: [] };
}

function skipped(id: ScenarioId, backend: Backend, reason: string): ScenarioResult {
  return { ...base(id, backend), status: 'skipped', reason };
}

function failed(id: ScenarioId, backend: Backend, err: unknown): ScenarioResult {
  const message = err instanceof Error ? err.message : String(err);
  const oneLine = message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
  return {
    ...base(id, backend),
    status: 'failed',
    reason: oneLine.length > 300 ? `${oneLine.slice(0, 300)}…` : oneLine,
    notes: [message],
  };
}

function runNotes(label: string, runs: readonly LoadResult[]): string[] {
  const non2xx = runs.reduce((s, r) => s + r.non2xx, 0);
  const errors = runs.reduce((s, r) => s + r.errors, 0);
  const notes: string[] = [];
  if (non2xx > 0) notes.push(`${label} answered ${non2xx} non-2xx responses`);
  if (errors > 0) notes.push(`${label}: ${errors} connection errors or timeouts`);
  return notes;
}

/** Fills in medians, ratios and notes from service and ceiling runs. */
function withRuns(
  r: ScenarioResult,
  gen: LoadGenerator,
  connections: number,
  service: LoadResult[],
  ceiling: LoadResult[],
): ScenarioResult {
  r.generator = `${gen.name} ${gen.version}`;
  r.connections = connections;
  r.runs = { service, ceiling };
  r.service = medianMetrics(service);
  r.ceiling = medianMetrics(ceiling);
  r.ratio = {
    rps: r.service.rps / r.ceiling.rps,
    p50: r.service.p50Ms / r.ceiling.p50Ms,
    p99: r.service.p99Ms / r.ceiling.p99Ms,
  };
  r.notes.push(...runNotes('service', service), ...runNotes('ceiling', ceiling));
  return r;
}

function formatExtra(key: string, v: number | string | boolean | number[]): string {
  if (Array.isArray(v)) return v.map((x) => fmtInt(x)).join(' / ');
  if (typeof v !== 'number') return String(v);
  if (/Bytes$/.test(key)) return fmtMb(v);
  if (/Seconds$|^seconds$/.test(key)) return `${v.toFixed(2)} s`;
  if (/Ms$/.test(key)) return `${fmtInt(v)} ms`;
  return Number.isInteger(v) || Math.abs(v) >= 100 ? fmtInt(v) : v.toFixed(2);
}

function printScenario(ctx: Ctx, r: ScenarioResult): void {
  const head = `${r.id} ${r.title} [${r.backend}]`;
  if (r.status !== 'measured') {
    log(ctx, `${head}: ${r.status.toUpperCase()} — ${r.reason ?? ''}`);
    return;
  }
  const parts: string[] = [];
  if (r.service && r.ceiling && r.ratio) {
    parts.push(
      `service ${fmtInt(r.service.rps)} req/s p50 ${fmtMs(r.service.p50Ms)} ms p99 ${fmtMs(r.service.p99Ms)} ms`,
    );
    parts.push(
      `ceiling ${fmtInt(r.ceiling.rps)} req/s p50 ${fmtMs(r.ceiling.p50Ms)} ms p99 ${fmtMs(r.ceiling.p99Ms)} ms`,
    );
    parts.push(`ratio ${r.ratio.rps.toFixed(2)}`);
  }
  if (r.single) parts.push(`one connection: p50 ${fmtMs(r.single.p50Ms)} ms p99 ${fmtMs(r.single.p99Ms)} ms`);
  if (r.servicePeakRss !== undefined)
    parts.push(
      `service peak RSS ${fmtMb(r.servicePeakRss)}${r.servicePeakAnon ? ` (anon ${fmtMb(r.servicePeakAnon)})` : ''}`,
    );
  for (const [k, v] of Object.entries(r.extra ?? {})) parts.push(`${k} ${formatExtra(k, v)}`);
  log(ctx, `${head}\n        ${parts.join('\n        ')}`);
  for (const t of r.targets) log(ctx, `        target ${t.label}: ${t.met ? 'met' : 'MISSED'} (${t.value})`);
  for (const n of r.notes) log(ctx, `        note: ${n}`);
}

function push(ctx: Ctx, r: ScenarioResult): void {
  r.targets = evaluate(r);
  ctx.results.push(r);
  printScenario(ctx, r);
}

// ---------------------------------------------------------------------------------------------------------------
// scenarios on the election data: 5, 1, 2, 3 (and 3 with workers)

async function coldStart(ctx: Ctx, backend: Backend, env: Record<string, string>): Promise<ScenarioResult> {
  const r = base('5', backend);
  const ready: number[] = [];
  const idle: number[] = [];
  for (let i = 0; i < ctx.opts.coldStarts; i++) {
    const svc = await startService(ctx, env, 'service (cold start)', DEFAULT_PAGE, 60_000);
    try {
      ready.push(svc.readyMs);
      await sleep(ctx.opts.idleSettleMs);
      idle.push(familyMemory(svc.pid)?.rss ?? NaN);
    } finally {
      await stop(ctx, svc);
    }
  }
  r.extra = { coldStartMs: median(ready), coldStartRunsMs: ready, idleRssBytes: median(idle) };
  r.notes.push(
    `time from spawn to the first 200 answer to the default page, database already built; median of ${ready.length} starts; idle RSS ${ctx.opts.idleSettleMs} ms after that answer`,
  );
  return r;
}

async function fixedScenario(
  ctx: Ctx,
  id: '1' | '2',
  backend: Backend,
  svc: Proc,
  ceiling: Proc,
  paths: readonly string[],
): Promise<ScenarioResult> {
  const { gen, opts } = ctx;
  await gen.run(spec(ctx, svc.port, paths, opts.warmup));
  await gen.run(spec(ctx, ceiling.port, paths, opts.warmup));
  const resetWorked = resetPeak(svc.pid);
  resetPeak(ceiling.pid);
  const sampler = memorySampler(svc.pid);
  const service: LoadResult[] = [];
  const ceil: LoadResult[] = [];
  for (let i = 0; i < opts.alternations; i++) {
    service.push(await gen.run(spec(ctx, svc.port, paths, opts.duration)));
    ceil.push(await gen.run(spec(ctx, ceiling.port, paths, opts.duration)));
  }
  const { peakAnon } = sampler.stop();
  const r = withRuns(base(id, backend), gen, opts.connections, service, ceil);
  r.servicePeakRss = familyMemory(svc.pid)?.peak;
  r.servicePeakAnon = peakAnon;
  r.ceilingPeakRss = familyMemory(ceiling.pid)?.peak;
  if (!resetWorked) r.notes.push('peak RSS is since process start (this kernel does not allow resetting it)');
  return r;
}

/**
 * Scenario 3: every path once per run, from a service process that has never seen it (a fresh process per run,
 * warmed on a stream of other distinct queries), so no answer can come from a cache of earlier answers.
 */
async function streamScenario(
  ctx: Ctx,
  id: '3' | '3w',
  backend: Backend,
  env: Record<string, string>,
  ceiling: Proc,
  stream: readonly string[],
  warmStream: readonly string[],
): Promise<ScenarioResult> {
  const { onceGen, opts } = ctx;
  const cap = Math.max(opts.duration * 2, 5);
  // The ceiling knows only recorded answers: it is warmed on the popular queries.
  const warm = await onceGen.run(spec(ctx, ceiling.port, POPULAR, opts.warmup));
  // The ceiling gets through one pass of the stream in a fraction of a second: it makes as many passes as fill
  // about half a measurement, so its figure is not the noise of a 0.3 s run. Its answers are fixed bytes, so
  // repeating a path cannot flatter it.
  const ceilingPasses = Math.max(1, Math.min(20, Math.round((warm.rps * opts.duration) / 2 / stream.length)));
  const ceilingSpec = { ...spec(ctx, ceiling.port, stream, cap, 'once'), passes: ceilingPasses };
  const service: LoadResult[] = [];
  const ceil: LoadResult[] = [];
  let peak = 0;
  let peakAnon = 0;
  let resetWorked = true;
  for (let i = 0; i < opts.alternations; i++) {
    const svc = await startService(ctx, env, id === '3w' ? 'service (2 workers)' : 'service');
    try {
      // New queries warm what new queries use (the code that answers them, the resident tables' indexes), where the
      // popular ones would be answered from the response cache after their first round.
      await onceGen.run(spec(ctx, svc.port, warmStream, opts.warmup, 'once'));
      resetWorked = resetPeak(svc.pid) && resetWorked;
      const sampler = memorySampler(svc.pid);
      service.push(await onceGen.run(spec(ctx, svc.port, stream, cap, 'once')));
      peakAnon = Math.max(peakAnon, sampler.stop().peakAnon);
      peak = Math.max(peak, familyMemory(svc.pid)?.peak ?? 0);
    } finally {
      await stop(ctx, svc);
    }
    ceil.push(await onceGen.run(ceilingSpec));
  }
  const r = withRuns(base(id, backend), onceGen, opts.connections, service, ceil);
  r.servicePeakRss = peak;
  r.servicePeakAnon = peakAnon;
  r.ceilingPeakRss = familyMemory(ceiling.pid)?.peak;
  r.extra = { distinctQueries: stream.length, completedPerRun: service.map((s) => s.requests), ceilingPasses };
  const short = service.filter((s) => s.requests < stream.length).length;
  if (short > 0) r.notes.push(`${short} service run(s) reached the ${cap} s cap before the end of the stream`);
  if (!resetWorked) r.notes.push('peak RSS is since process start (this kernel does not allow resetting it)');
  return r;
}

/**
 * Scenario 3w with a generator cheap enough not to be the bottleneck (wrk): in each alternation, one process and then
 * two workers (each fresh, warmed on the warm stream) are given the stream, then the ceiling; the scale is the ratio
 * of the medians, both measured alike in the same run.
 */
async function scalingScenario(
  ctx: Ctx,
  backend: Backend,
  env: Record<string, string>,
  ceiling: Proc,
  stream: readonly string[],
  warmStream: readonly string[],
): Promise<ScenarioResult> {
  const { scaleGen, opts } = ctx;
  const cap = Math.max(opts.duration * 2, 5);
  const passes = Math.max(1, Math.min(20, Math.round((25_000 * opts.duration) / 2 / stream.length)));
  const one: LoadResult[] = [];
  const two: LoadResult[] = [];
  const ceil: LoadResult[] = [];
  let peak = 0;
  for (let i = 0; i < opts.alternations; i++) {
    for (const [workers, results] of [
      ['1', one],
      ['2', two],
    ] as const) {
      const svc = await startService(
        ctx,
        { ...env, WORKERS: workers },
        workers === '1' ? 'service' : 'service (2 workers)',
      );
      try {
        await scaleGen.run(spec(ctx, svc.port, warmStream, opts.warmup, 'once'));
        resetPeak(svc.pid);
        results.push(await scaleGen.run(spec(ctx, svc.port, stream, cap, 'once')));
        if (workers === '2') peak = Math.max(peak, familyMemory(svc.pid)?.peak ?? 0);
      } finally {
        await stop(ctx, svc);
      }
    }
    ceil.push(await scaleGen.run({ ...spec(ctx, ceiling.port, stream, cap, 'once'), passes }));
  }
  const r = withRuns(base('3w', backend), scaleGen, opts.connections, two, ceil);
  const single = medianMetrics(one);
  r.servicePeakRss = peak;
  r.extra = {
    distinctQueries: stream.length,
    oneProcessRps: single.rps,
    scaleOverOneProcess: (r.service?.rps ?? NaN) / single.rps,
    ceilingPasses: passes,
  };
  r.notes.push(
    `one process and two workers both driven by ${scaleGen.name} in this run (one process: ${fmtInt(single.rps)} req/s)`,
  );
  return r;
}

/** Distinct queries (of another seed than the measured stream's) that warm each service process of scenario 3. */
const WARM_STREAM = 5000;

/** Whether WORKERS=2 makes two processes answer: each must burn CPU time under a short burst of load. */
async function detectWorkers(ctx: Ctx, env: Record<string, string>): Promise<string | null> {
  const svc = await startService(ctx, { ...env, WORKERS: '2' }, 'service (WORKERS=2 probe)');
  try {
    await sleep(300);
    const before = familyTicks(svc.pid);
    await ctx.onceGen.run(spec(ctx, svc.port, POPULAR, ctx.opts.quick ? 0.5 : 1.5));
    const after = familyTicks(svc.pid);
    // 5 ticks is 50 ms of CPU at the usual 100 Hz: far above a primary that only hands connections over.
    const busy = [...after].filter(([pid, ticks]) => ticks - (before.get(pid) ?? 0) >= 5).length;
    if (busy >= 2) return null;
    return `with WORKERS=2 the service ran ${after.size} process(es) and ${busy} of them answered: multi-process serving does not exist yet`;
  } finally {
    await stop(ctx, svc);
  }
}

function electionEnv(backend: Backend, dbPath: string): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    COUNTCENTRE_DB: dbPath,
    // The repository's catalogue always (the scenarios name its resources); the sources may live elsewhere.
    COUNTCENTRE_CATALOG: path.join(PROJECT_ROOT, 'catalog.json'),
    COUNTCENTRE_SOURCES: /^https?:\/\//i.test(process.env['COUNTCENTRE_SOURCES'] ?? '')
      ? (process.env['COUNTCENTRE_SOURCES'] as string)
      : path.resolve(PROJECT_ROOT, process.env['COUNTCENTRE_SOURCES'] ?? 'data/sources'),
    LOG_LEVEL: 'warn',
    ...backend.env,
  };
}

/** The election scenarios on one backend; false when the backend turned out not to exist in the service. */
async function electionScenarios(ctx: Ctx, backend: Backend): Promise<boolean> {
  const want = (s: string) => ctx.opts.scenarios.has(s);
  const ids: ScenarioId[] = (['1', '2', '3', '5'] as const).filter(want);
  if (ids.length === 0) return true;
  const dir = path.join(ctx.tmp, `${backend.name}-election`);
  fs.mkdirSync(dir, { recursive: true });
  const dbPath = path.join(dir, 'election.sqlite');
  const env = electionEnv(backend, dbPath);

  log(ctx, `[${backend.name}] building the election database and recording the service's answers`);
  const recorder = await startService(ctx, env, 'service (recorder)');
  let recordings: Recorded[];
  let stream: string[] = [];
  let warmStream: string[] = [];
  try {
    // The service given DATABASE_URL should not touch COUNTCENTRE_DB; if it built that file, it served SQLite.
    if (backend.name === 'postgres' && fs.existsSync(dbPath)) return false;
    if (want('3')) {
      const [a, b, c] = await Promise.all(
        [RESOURCE_A, RESOURCE_B, RESOURCE_C].map((id) => fetchResource(recorder.port, id)),
      );
      const resources = [
        { data: a!, share: 0.45 },
        { data: b!, share: 0.15 },
        { data: c!, share: 0.4 },
      ];
      stream = generateStream(resources, ctx.opts.stream, ctx.opts.seed);
      const measured = new Set(stream);
      warmStream = generateStream(resources, WARM_STREAM, ctx.opts.seed + 1).filter((path) => !measured.has(path));
    }
    const all = [...new Set([DEFAULT_PAGE, ...(want('2') || want('3') ? POPULAR : []), ...stream])];
    recordings = await record(recorder.port, all);
  } finally {
    await stop(ctx, recorder);
  }
  const status = new Map(recordings.map((r) => [r.path, r.status]));
  const bad = (paths: readonly string[]) => paths.filter((p) => status.get(p) !== 200);
  const recordingFile = path.join(dir, 'recording.bin');
  writeRecording(recordingFile, recordings);
  recordings = [];

  // Cold start first, while nothing else runs; the database is built by now.
  if (want('5')) {
    try {
      push(ctx, await coldStart(ctx, backend, env));
    } catch (err) {
      push(ctx, failed('5', backend, err));
    }
  }
  if (!want('1') && !want('2') && !want('3')) return true;

  const ceiling = await startCeiling(ctx, recordingFile);
  try {
    if (want('1') || want('2')) {
      const svc = await startService(ctx, env, 'service');
      try {
        for (const [id, paths] of [
          ['1', [DEFAULT_PAGE]],
          ['2', POPULAR],
        ] as const) {
          if (!want(id)) continue;
          log(ctx, `[${backend.name}] scenario ${id}: ${TITLES[id]}`);
          try {
            const r = await fixedScenario(ctx, id, backend, svc, ceiling, paths);
            const b = bad(paths);
            if (b.length > 0)
              r.notes.push(`${b.length} of its queries did not answer 200 when recorded: ${b.slice(0, 3).join(' ')}`);
            push(ctx, r);
          } catch (err) {
            push(ctx, failed(id, backend, err));
          }
        }
      } finally {
        await stop(ctx, svc);
      }
    }
    if (want('3')) {
      log(
        ctx,
        `[${backend.name}] scenario 3: ${TITLES['3']} (${stream.length} queries, fresh service process per run)`,
      );
      let single: ScenarioResult | null = null;
      try {
        single = await streamScenario(ctx, '3', backend, env, ceiling, stream, warmStream);
        const b = bad(stream);
        if (b.length > 0)
          single.notes.push(
            `${b.length} of the ${stream.length} queries did not answer 200 when recorded, e.g. ${b[0]}`,
          );
        push(ctx, single);
      } catch (err) {
        push(ctx, failed('3', backend, err));
      }
      log(ctx, `[${backend.name}] scenario 3 with 2 workers: detecting WORKERS support`);
      try {
        const missing = await detectWorkers(ctx, env);
        if (missing !== null) {
          push(ctx, skipped('3w', backend, missing));
        } else {
          const r =
            ctx.scaleGen === ctx.onceGen
              ? await streamScenario(ctx, '3w', backend, { ...env, WORKERS: '2' }, ceiling, stream, warmStream)
              : await scalingScenario(ctx, backend, env, ceiling, stream, warmStream);
          if (ctx.scaleGen === ctx.onceGen && single?.service)
            r.extra = { ...r.extra, scaleOverOneProcess: (r.service?.rps ?? NaN) / single.service.rps };
          r.notes.push(
            "the 2 workers, the load generator and the harness share the machine's cores (see bench/README.md)",
          );
          push(ctx, r);
        }
      } catch (err) {
        push(ctx, failed('3w', backend, err));
      }
    }
  } finally {
    await stop(ctx, ceiling);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// scenario 4: the synthetic resource

/** Runs the loader on the synthetic catalogue, timed, with its memory sampled. */
async function timedLoad(
  env: Record<string, string>,
): Promise<{ seconds: number; peakRss: number; output: string; code: number }> {
  return timedCommand(
    process.execPath,
    [path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'count-centre-load.js'), '--force'],
    env,
    PROJECT_ROOT,
  );
}

/** Runs a command to its end, timed, with the peak RSS of it and its children sampled every 200 ms. */
async function timedCommand(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ seconds: number; peakRss: number; output: string; code: number }> {
  const started = performance.now();
  const child = spawn(command, args, { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  let peakRss = 0;
  const timer = setInterval(() => {
    const m = child.pid === undefined ? null : familyMemory(child.pid);
    if (m && m.peak > peakRss) peakRss = m.peak;
  }, 200);
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  clearInterval(timer);
  return { seconds: (performance.now() - started) / 1000, peakRss, output: output.trim(), code };
}

async function heavyScenario(
  ctx: Ctx,
  id: '4a' | '4b',
  backend: Backend,
  svc: Proc,
  ceiling: Proc,
  urlPath: string,
): Promise<ScenarioResult> {
  const { gen, opts } = ctx;
  const paths = [urlPath];
  await gen.run(spec(ctx, svc.port, paths, opts.warmup));
  await gen.run(spec(ctx, ceiling.port, paths, opts.warmup));
  resetPeak(svc.pid);
  const sampler = memorySampler(svc.pid);
  const service: LoadResult[] = [];
  const ceil: LoadResult[] = [];
  const single: LoadResult[] = [];
  for (let i = 0; i < opts.alternations; i++) {
    service.push(await gen.run(spec(ctx, svc.port, paths, opts.duration)));
    ceil.push(await gen.run(spec(ctx, ceiling.port, paths, opts.duration)));
    // One connection: no queueing, so the latency is the service time the targets speak of.
    single.push(await gen.run(spec(ctx, svc.port, paths, Math.max(1, opts.duration / 2), 'cycle', 1)));
  }
  const r = withRuns(base(id, backend), gen, opts.connections, service, ceil);
  r.single = medianMetrics(single);
  r.runs = { service, ceiling: ceil, single };
  r.servicePeakRss = familyMemory(svc.pid)?.peak;
  r.servicePeakAnon = sampler.stop().peakAnon;
  r.ceilingPeakRss = familyMemory(ceiling.pid)?.peak;
  r.notes.push(...runNotes('service (one connection)', single));
  return r;
}

async function dumpScenario(
  ctx: Ctx,
  backend: Backend,
  env: Record<string, string>,
  ceiling: Proc,
  dumpPath: string,
  probe: string,
  rows: number,
): Promise<ScenarioResult> {
  const r = base('4c', backend);
  const service: { seconds: number; rows: number; peak: number; anon: number }[] = [];
  const ceil: { seconds: number; rows: number }[] = [];
  for (let i = 0; i < ctx.opts.alternations; i++) {
    // A fresh process per dump: its peak RSS is then the dump's, not what earlier queries left mapped.
    const svc = await startService(ctx, env, 'service (dump)', probe);
    try {
      resetPeak(svc.pid);
      const sampler = memorySampler(svc.pid);
      const d = await download(svc.port, dumpPath, 600_000);
      const anon = sampler.stop().peakAnon;
      if (d.status !== 200) throw new Error(`the dump answered ${d.status}`);
      service.push({
        seconds: d.seconds,
        rows: Math.max(0, d.lines - 1),
        peak: familyMemory(svc.pid)?.peak ?? NaN,
        anon,
      });
    } finally {
      await stop(ctx, svc);
    }
    const c = await download(ceiling.port, dumpPath, 600_000);
    ceil.push({ seconds: c.seconds, rows: Math.max(0, c.lines - 1) });
  }
  const sRate = median(service.map((s) => s.rows / s.seconds));
  const cRate = median(ceil.map((c) => c.rows / c.seconds));
  r.generator = 'one sequential download (node:http)';
  r.connections = 1;
  r.servicePeakRss = Math.max(...service.map((s) => s.peak));
  r.servicePeakAnon = Math.max(...service.map((s) => s.anon));
  r.ratio = { rps: sRate / cRate, p50: NaN, p99: NaN };
  r.extra = {
    serviceRowsPerSecond: sRate,
    ceilingRowsPerSecond: cRate,
    serviceSeconds: median(service.map((s) => s.seconds)),
    rowsInDump: service[0]?.rows ?? 0,
  };
  if (service.some((s) => s.rows !== rows))
    r.notes.push(`the dump had ${service.map((s) => s.rows).join('/')} data lines for ${rows} records`);
  return r;
}

/** Scenario 4 on one backend; false when the backend turned out not to exist in the service. */
async function syntheticScenarios(ctx: Ctx, backend: Backend): Promise<boolean> {
  if (!ctx.opts.scenarios.has('4')) return true;
  const rows = ctx.opts.rows;
  const ids = ['4load', '4a', '4b', '4c'] as const;
  let generateSeconds = 0;
  if (ctx.syntheticDir === null) {
    log(ctx, `generating the synthetic resource (${fmtInt(rows)} records)`);
    const dir = path.join(ctx.tmp, 'synthetic-source');
    const t = performance.now();
    writeSynthetic({ rows, outDir: dir, seed: ctx.opts.seed });
    generateSeconds = (performance.now() - t) / 1000;
    ctx.syntheticDir = dir;
  }
  const dataDir = ctx.syntheticDir;
  const dbDir = path.join(ctx.tmp, `${backend.name}-synthetic`);
  fs.mkdirSync(dbDir, { recursive: true });
  const dbPath = path.join(dbDir, 'synthetic.sqlite');
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    COUNTCENTRE_DB: dbPath,
    COUNTCENTRE_CATALOG: path.join(dataDir, SYNTHETIC_CATALOG),
    COUNTCENTRE_SOURCES: dataDir,
    LOG_LEVEL: 'warn',
    ...backend.env,
  };

  log(ctx, `[${backend.name}] scenario 4: loading the synthetic resource`);
  const load = await timedLoad(env);
  if (load.code !== 0) {
    for (const id of ids)
      push(ctx, failed(id, backend, new Error(`the loader exited ${load.code}: ${load.output.slice(-500)}`)));
    return true;
  }
  if (backend.name === 'postgres' && fs.existsSync(dbPath)) return false;
  const loadResult = base('4load', backend);
  loadResult.extra = { rows, seconds: load.seconds, rowsPerSecond: rows / load.seconds, peakRssBytes: load.peakRss };
  if (generateSeconds > 0) loadResult.extra['generateSeconds'] = generateSeconds;
  loadResult.notes.push('npm run load --force on the generated CSV (all indexes and the full-text index built)');
  push(ctx, loadResult);

  const urls = syntheticPaths(SYNTHETIC_RESOURCE_ID, rows);
  const probe = searchPath({ resource_id: SYNTHETIC_RESOURCE_ID, limit: 1 });
  // 4a and 4b repeat one URL: with the response cache they would measure the cache, not the query on 1M records.
  let svc: Proc | null = await startService(
    ctx,
    { ...env, COUNTCENTRE_RESPONSE_CACHE_MB: '0' },
    'service (synthetic)',
    probe,
  );
  let ceiling: Proc | null = null;
  try {
    const recordings = await record(svc.port, [urls.filteredSorted, urls.deepOffset]);
    const agent = new http.Agent({ keepAlive: false });
    const dumpRecording = await httpGet(svc.port, urls.dump, agent, 600_000);
    agent.destroy();
    const dumpExists = dumpRecording.status === 200;
    const recordingFile = path.join(dbDir, 'recording.bin');
    writeRecording(recordingFile, dumpExists ? [...recordings, dumpRecording] : recordings);
    ceiling = await startCeiling(ctx, recordingFile);

    for (const [id, urlPath] of [
      ['4a', urls.filteredSorted],
      ['4b', urls.deepOffset],
    ] as const) {
      log(ctx, `[${backend.name}] scenario ${id}: ${TITLES[id]}`);
      try {
        const r = await heavyScenario(ctx, id, backend, svc, ceiling, urlPath);
        const rec = recordings.find((x) => x.path === urlPath);
        if (rec && rec.status !== 200) r.notes.push(`the query answered ${rec.status} when recorded`);
        if (id === '4b') r.extra = { offset: urls.deepOffsetValue };
        r.notes.push('response cache off (COUNTCENTRE_RESPONSE_CACHE_MB=0): every request runs the query');
        push(ctx, r);
      } catch (err) {
        push(ctx, failed(id, backend, err));
      }
    }
    await stop(ctx, svc);
    svc = null;

    if (!dumpExists) {
      push(
        ctx,
        skipped(
          '4c',
          backend,
          `GET /datastore/dump/<id>?format=csv answered ${dumpRecording.status}: the dump endpoint does not exist yet`,
        ),
      );
    } else {
      log(ctx, `[${backend.name}] scenario 4c: ${TITLES['4c']}`);
      try {
        push(ctx, await dumpScenario(ctx, backend, env, ceiling, urls.dump, probe, rows));
      } catch (err) {
        push(ctx, failed('4c', backend, err));
      }
    }
  } finally {
    await stop(ctx, svc);
    await stop(ctx, ceiling);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------------------
// scenarios 7 and 8: publishing a file with `count-centre add`

const CLI_ENTRY = path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'count-centre.js');

/** `count-centre add FILE` into a fresh catalogue and store, timed, with its peak RSS (worker threads included). */
async function timedAdd(backend: Backend, dir: string, file: string) {
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    COUNTCENTRE_DB: path.join(dir, 'store.sqlite'),
    COUNTCENTRE_CATALOG: path.join(dir, 'catalog.json'),
    COUNTCENTRE_SOURCES: path.dirname(file),
    LOG_LEVEL: 'warn',
    ...backend.env,
  };
  return timedCommand(process.execPath, [CLI_ENTRY, 'add', path.basename(file)], env, path.dirname(file));
}

function onPath(command: string): boolean {
  return spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** The synthetic CSV (scenario 4's), written once per run. */
function syntheticCsv(ctx: Ctx): { file: string; seconds: number } {
  if (ctx.syntheticDir !== null) return { file: path.join(ctx.syntheticDir, SYNTHETIC_SOURCE), seconds: 0 };
  log(ctx, `generating the synthetic resource (${fmtInt(ctx.opts.rows)} records)`);
  const dir = path.join(ctx.tmp, 'synthetic-source');
  const t = performance.now();
  writeSynthetic({ rows: ctx.opts.rows, outDir: dir, seed: ctx.opts.seed });
  ctx.syntheticDir = dir;
  return { file: path.join(dir, SYNTHETIC_SOURCE), seconds: (performance.now() - t) / 1000 };
}

/** Where the bench keeps what it fetches from the npm registry (the narrow flights file), between runs. */
const CACHE_DIR = path.join(PROJECT_ROOT, 'bench', 'results', 'tmp', 'cache');

/**
 * What `add` said of its times: when the data was served, and when its indexes were done (both from its start), and
 * the store's size per row afterwards (indexes included): the file, or the resource's PostgreSQL tables.
 */
async function addFacts(
  backend: Backend,
  dir: string,
  rows: number,
  ours: { seconds: number; output: string },
): Promise<Record<string, number>> {
  const served = /served after (\d+(?:\.\d+)?) s/.exec(ours.output);
  const indexed = /done after (\d+(?:\.\d+)?) s/.exec(ours.output);
  const servedSeconds = served ? Number(served[1]) : ours.seconds;
  const indexSeconds = indexed ? Number(indexed[1]) : ours.seconds;
  let bytes: number;
  if (backend.name === 'sqlite') bytes = fs.statSync(path.join(dir, 'store.sqlite')).size;
  else {
    const client = new pg.Client({ connectionString: backend.env['DATABASE_URL'] });
    await client.connect();
    try {
      const meta = await readPostgresMeta(client, 'countcentre');
      const tables = [...(meta?.resources.values() ?? [])].filter((r) => r.id !== '_table_metadata');
      const sizes = await client.query<{ data: string; indexes: string }>(tableSizesSql, [
        tables.map((r) => `"countcentre"."${r.table}"`),
      ]);
      bytes = Number(sizes.rows[0]!.data) + Number(sizes.rows[0]!.indexes);
    } finally {
      await client.end();
    }
  }
  return {
    rows,
    seconds: ours.seconds,
    servedSeconds,
    servedRowsPerSecond: rows / servedSeconds,
    indexSeconds,
    rowsPerSecond: rows / ours.seconds,
    bytesPerRow: bytes / rows,
  };
}

/**
 * Scenario 7: a CSV published by `count-centre add` (inference, the key and full-text index, then every field's
 * index once it is served), beside sqlite-utils doing what comes closest: `insert --csv --detect-types`, then
 * `enable-fts` on every column. Two files: scenario 4's synthetic one (14 fields), and the flights (5 fields: a
 * timestamp, two whole numbers, two codes), which nobody here wrote.
 */
async function addCsvScenario(ctx: Ctx, backend: Backend): Promise<void> {
  if (!ctx.opts.scenarios.has('7') || backend.name !== 'sqlite') return;
  const rows = ctx.opts.rows;
  const files: [ScenarioId, () => Promise<string>, string][] = [
    ['7', async () => syntheticCsv(ctx).file, 'the synthetic candidate results: 14 fields, 9 of them text'],
    [
      '7n',
      () => flightsCsv(CACHE_DIR, path.join(ctx.tmp, 'flights-source'), rows),
      "the flights of 2001 from the npm registry's vega-datasets, written as pandas' to_csv writes them",
    ],
  ];
  for (const [id, make, what] of files) {
    let file: string;
    try {
      file = await make();
    } catch (err) {
      push(ctx, failed(id, backend, err));
      continue;
    }
    const dir = path.join(ctx.tmp, `add-csv-${id}`);
    fs.mkdirSync(dir, { recursive: true });
    log(ctx, `[${backend.name}] scenario ${id}: ${TITLES[id]} (${fmtInt(rows)} records)`);
    const ours = await timedAdd(backend, dir, file);
    if (ours.code !== 0) {
      push(ctx, failed(id, backend, new Error(`count-centre add exited ${ours.code}: ${ours.output.slice(-500)}`)));
      continue;
    }
    const r = base(id, backend);
    r.extra = { ...(await addFacts(backend, dir, rows, ours)), peakRssBytes: ours.peakRss };
    await measureFloor(ctx, backend, dir, r);
    r.notes.push(
      `${what}; count-centre add: types inferred, served with its key and full-text index, then every field's index`,
    );
    if (!onPath('sqlite-utils')) {
      r.notes.push('sqlite-utils is not on PATH (apt-get install sqlite-utils): no peer figure');
    } else {
      const peerDb = path.join(dir, 'peer.db');
      const header = fs.readFileSync(file, 'utf8').slice(0, 4096).split(/\r?\n/)[0]!.split(',');
      const insert = await timedCommand(
        'sqlite-utils',
        ['insert', peerDb, 'records', file, '--csv', '--detect-types'],
        {},
        dir,
      );
      const fts =
        insert.code === 0
          ? await timedCommand('sqlite-utils', ['enable-fts', peerDb, 'records', ...header], {}, dir)
          : insert;
      if (fts.code !== 0) {
        r.notes.push(`sqlite-utils failed (exit ${fts.code}): ${fts.output.slice(-300)}`);
      } else {
        const peerSeconds = insert.seconds + fts.seconds;
        Object.assign(r.extra, {
          peerSeconds,
          peerInsertSeconds: insert.seconds,
          peerFtsSeconds: fts.seconds,
          peerPeakRssBytes: Math.max(insert.peakRss, fts.peakRss),
          peerBytesPerRow: fs.statSync(peerDb).size / rows,
          speedup: peerSeconds / Number(r.extra['servedSeconds']),
        });
        r.notes.push(
          `sqlite-utils ${spawnSync('sqlite-utils', ['--version'], { encoding: 'utf8' }).stdout.trim()}: insert --csv --detect-types, then enable-fts on all ${header.length} columns: ${peerSeconds.toFixed(1)} s, ${(fs.statSync(peerDb).size / rows).toFixed(0)} bytes a row`,
        );
      }
    }
    push(ctx, r);
  }
}

/**
 * The store's own share of what `add` just did (./floor.ts): the same rows written again by the database engine alone.
 * A target below it cannot be met on this machine by any change to reading or encoding.
 */
async function measureFloor(ctx: Ctx, backend: Backend, dir: string, r: ScenarioResult): Promise<void> {
  log(ctx, `[${backend.name}] the store's own share of the same load (rows written again by the engine alone)`);
  const catalog = path.join(dir, 'catalog.json');
  try {
    const floor =
      backend.name === 'sqlite'
        ? sqliteFloor(path.join(dir, 'store.sqlite'), catalog, dir)
        : await postgresFloor(backend.env['DATABASE_URL']!, catalog, { data: 'countcentre', public: 'public' });
    const rows = Number(r.extra!['rows']);
    Object.assign(r.extra!, {
      floorSeconds: floor.seconds,
      floorRowSeconds: floor.rowSeconds,
      floorIndexSeconds: floor.indexSeconds,
      floorRowsPerSecond: rows / floor.rowSeconds,
    });
    r.notes.push(
      `store floor: the engine alone writes the same rows and their full text again in ${floor.rowSeconds.toFixed(1)} s (${fmtInt(rows / floor.rowSeconds)} rows/s), then the same indexes and statistics in ${floor.indexSeconds.toFixed(1)} s`,
    );
  } catch (err) {
    r.notes.push(`store floor not measured: ${(err as Error).message}`);
  }
}

/**
 * Scenario 8: Parquet files published by `count-centre add`, on each store: `--parquet-rows` records written by
 * arrow-rs (8), and the 3,000,000 flights of the npm registry's vega-datasets (8n, zstd, nobody here wrote it).
 */
async function addParquetScenario(ctx: Ctx, backend: Backend): Promise<void> {
  if (!ctx.opts.scenarios.has('8')) return;
  const sample = async () => {
    const file = path.join(ctx.tmp, 'parquet-source', 'sample.parquet');
    if (!fs.existsSync(file)) {
      log(ctx, `writing a Parquet file of ${fmtInt(ctx.opts.parquetRows)} records`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      writeSampleWithArrow(file, ctx.opts.parquetRows, 'SNAPPY');
    }
    return { file, rows: ctx.opts.parquetRows };
  };
  const flights = async () => ({ file: flightsParquet(CACHE_DIR), rows: 3_000_000 });
  const files: [ScenarioId, () => Promise<{ file: string; rows: number }>, string][] = [
    [
      '8',
      sample,
      'Snappy-compressed, written by arrow-rs: an int, a text of 50,000 values, a float, a date and a boolean with nulls',
    ],
    [
      '8n',
      flights,
      "the flights of 2001 from the npm registry's vega-datasets: zstd, a timestamp, two ints, two codes",
    ],
  ];
  for (const [id, make, what] of files) {
    let source: { file: string; rows: number };
    try {
      source = await make();
    } catch (err) {
      push(ctx, failed(id, backend, err));
      continue;
    }
    const dir = path.join(ctx.tmp, `${backend.name}-add-parquet-${id}`);
    fs.mkdirSync(dir, { recursive: true });
    // Each file into a store of its own (on PostgreSQL, the schema is emptied first).
    if (backend.name === 'postgres') await dropSchemas(backend.env['DATABASE_URL']!);
    log(ctx, `[${backend.name}] scenario ${id}: ${TITLES[id]} (${fmtInt(source.rows)} records)`);
    const ours = await timedAdd(backend, dir, source.file);
    if (ours.code !== 0) {
      push(ctx, failed(id, backend, new Error(`count-centre add exited ${ours.code}: ${ours.output.slice(-500)}`)));
      continue;
    }
    const r = base(id, backend);
    r.extra = {
      ...(await addFacts(backend, dir, source.rows, ours)),
      peakRssBytes: ours.peakRss,
      fileBytes: fs.statSync(source.file).size,
    };
    await measureFloor(ctx, backend, dir, r);
    r.notes.push(what);
    push(ctx, r);
  }
}

/** Empties the PostgreSQL schemas the bench loads into, so that each `add` starts from nothing. */
async function dropSchemas(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('DROP SCHEMA IF EXISTS "countcentre" CASCADE');
    await client.query(
      `DO $$ DECLARE v record; BEGIN FOR v IN SELECT table_name FROM information_schema.views WHERE table_schema = 'public' LOOP EXECUTE format('DROP VIEW IF EXISTS public.%I', v.table_name); END LOOP; END $$`,
    );
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// scenario 6: the explorer's HTML pages, on the embedded store

/** Datasette's figures from the explorer brief, for comparison in the report. */
const DATASETTE_NOTE =
  'Datasette, for comparison (explorer brief): about 5 ms of Python work per table page plus suggested facets on every first page; 78 KB gzipped of CSS and JavaScript on a read-only table page';

const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

async function htmlScenario(ctx: Ctx, backend: Backend): Promise<boolean> {
  if (!ctx.opts.scenarios.has('6')) return true;
  const dir = path.join(ctx.tmp, `${backend.name}-election`);
  fs.mkdirSync(dir, { recursive: true });
  const env = electionEnv(backend, path.join(dir, 'election.sqlite'));
  const requests = ctx.opts.quick ? 30 : 300;
  const warmup = ctx.opts.quick ? 5 : 50;
  const r = base('6', backend);
  const extra: Record<string, number> = {};
  log(ctx, `[${backend.name}] scenario 6: ${TITLES['6']} (${requests} requests per page and mode, one connection)`);
  // As served: a page is rendered once per dataset version, then answered from memory. Rendered: response caches off,
  // so every request runs its searches through the actions and renders the page again (the election model and the
  // charts' images are kept per dataset version); and the first visit of every constituency, charts drawn then.
  for (const [mode, extraEnv] of [
    ['Served', {}],
    ['Rendered', { COUNTCENTRE_RESPONSE_CACHE_MB: '0' }],
  ] as const) {
    const svc = await startService(ctx, { ...env, ...extraEnv }, `service (HTML, ${mode.toLowerCase()})`);
    try {
      if (mode === 'Rendered') {
        const first = await measureFirstVisits(
          svc.port,
          '/election/general-election-2020/constituencies',
          /href="(\/election\/general-election-2020\/constituencies\/[a-z0-9-]+)"/g,
        );
        extra.constituencyFirstVisitTtfbP50Ms = first.p50Ms;
        extra.constituencyFirstVisitTtfbP95Ms = first.p95Ms;
      }
      for (const page of Object.keys(HTML_PAGES) as HtmlPage[]) {
        const ttfb = await measureTtfb(svc.port, HTML_PAGES[page], requests, warmup);
        extra[`${page}${mode}TtfbP50Ms`] = ttfb.p50Ms;
        extra[`${page}${mode}TtfbP95Ms`] = ttfb.p95Ms;
        if (mode === 'Served') {
          const weight = await measureWeight(svc.port, HTML_PAGES[page]);
          extra[`${page}WeightGzipKB`] = kb(weight.totalGzipBytes);
          extra[`${page}HtmlGzipKB`] = kb(weight.htmlGzipBytes);
          extra.cssGzipKB = kb(weight.cssGzipBytes);
          extra.jsGzipKB = kb(weight.jsGzipBytes);
          extra[`${page}Requests`] = weight.requests;
        }
      }
    } finally {
      await stop(ctx, svc);
    }
  }
  r.extra = extra;
  r.notes.push(
    `pages: ${Object.values(HTML_PAGES).join(', ')}; time to first byte over one keep-alive connection (service time, no queueing)`,
  );
  r.notes.push(
    'served: rendered pages kept per dataset version; rendered: response caches off, the page made again on every request (election model and chart images kept per version); first visit: each of the 39 constituency pages once, in a fresh process',
  );
  r.notes.push(
    'weights: the page and every asset it loads (one stylesheet, one script; no images, web fonts or third-party requests), gzipped as served',
  );
  r.notes.push(DATASETTE_NOTE);
  push(ctx, r);
  return true;
}

const ORDER: ScenarioId[] = ['1', '2', '3', '3w', '4load', '4a', '4b', '4c', '5', '6', '7', '8'];

async function main(): Promise<number> {
  let opts: Options | null;
  try {
    opts = parseOptions(process.argv.slice(2));
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    console.error(USAGE);
    return 2;
  }
  if (opts === null) return 0;
  if (!fs.existsSync(SERVICE_ENTRY)) {
    console.error(`${SERVICE_ENTRY} is missing: build first (npm run bench does)`);
    return 2;
  }

  let gen: LoadGenerator;
  if (opts.loadgen === 'autocannon') {
    gen = autocannonGenerator;
  } else {
    const wrk = wrkGenerator();
    if (wrk === null && opts.loadgen === 'wrk') {
      console.error('--loadgen wrk: wrk is not on PATH (apt-get install wrk)');
      return 2;
    }
    gen = wrk ?? autocannonGenerator;
  }
  // Scenario 3 stays with autocannon, the generator its targets were set against; the scaling of 3w is measured with
  // wrk where it is installed, whose own work is a small part of the machine's (see bench/README.md).
  const onceGen = autocannonGenerator;
  const scaleGen = gen.supportsOnce ? gen : autocannonGenerator;

  const tmpRoot = path.join(PROJECT_ROOT, 'bench', 'results', 'tmp');
  fs.mkdirSync(tmpRoot, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(tmpRoot, 'run-'));
  const startedAt = new Date();
  const ctx: Ctx = {
    opts,
    tmp,
    gen,
    onceGen,
    scaleGen,
    servicePort: await freePort(),
    ceilingPort: await freePort(),
    live: new Set(),
    results: [],
    skipped: [],
    syntheticDir: null,
    started: performance.now(),
  };
  const machine = machineInfo();

  const cleanUp = async () => {
    for (const p of [...ctx.live]) await stop(ctx, p);
    if (!opts.keep) fs.rmSync(tmp, { recursive: true, force: true });
  };
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping the service and ceiling processes`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  log(
    ctx,
    `load generator ${gen.name} ${gen.version}${onceGen !== gen ? ` (scenario 3: ${onceGen.name} ${onceGen.version})` : ''}; ` +
      `${opts.connections} connections, ${opts.duration} s × ${opts.alternations} alternations; scenarios ${[...opts.scenarios].join(',')}; ` +
      `${machine.cores} cores, load average ${machine.loadAverageAtStart.join(' ')}`,
  );
  log(ctx, `working folder: ${tmp}${opts.keep ? ' (kept)' : ' (removed at the end)'}`);

  const pgUrl = process.env['BENCH_DATABASE_URL'];
  const skipBackend = (line: string) => {
    ctx.skipped.push(line);
    log(ctx, `SKIPPED: ${line}`);
  };
  // A backend whose service cannot start (a wrong BENCH_DATABASE_URL, a broken build) fails its own scenarios; the
  // other backend's results are still reported.
  const guarded = async (
    backend: Backend,
    part: () => Promise<boolean>,
    ids: readonly ScenarioId[],
  ): Promise<boolean> => {
    try {
      return await part();
    } catch (err) {
      for (const id of ids) {
        const wanted = opts.scenarios.has(id.slice(0, 1));
        const done = ctx.results.some((r) => r.backend === backend.name && r.id === id);
        if (wanted && !done) push(ctx, failed(id, backend, err));
      }
      return true;
    }
  };
  let scaleFailed = false;
  const electionIds: ScenarioId[] = ['1', '2', '3', '5'];
  const syntheticIds: ScenarioId[] = ['4load', '4a', '4b', '4c'];
  try {
    const sqlite: Backend = { name: 'sqlite', env: {} };
    await guarded(sqlite, () => electionScenarios(ctx, sqlite), electionIds);
    await guarded(sqlite, () => syntheticScenarios(ctx, sqlite), syntheticIds);
    await guarded(sqlite, () => htmlScenario(ctx, sqlite), ['6']);
    await guarded(sqlite, async () => (await addCsvScenario(ctx, sqlite), true), ['7', '7n']);
    await guarded(sqlite, async () => (await addParquetScenario(ctx, sqlite), true), ['8', '8n']);
    if (!pgUrl) {
      skipBackend('PostgreSQL: BENCH_DATABASE_URL is not set');
    } else {
      const pg: Backend = { name: 'postgres', env: { DATABASE_URL: pgUrl } };
      const exists =
        (await guarded(pg, () => electionScenarios(ctx, pg), electionIds)) &&
        (await guarded(pg, () => syntheticScenarios(ctx, pg), syntheticIds));
      if (exists) await guarded(pg, async () => (await addParquetScenario(ctx, pg), true), ['8', '8n']);
      if (!exists) {
        skipBackend(
          'PostgreSQL: the service ignored DATABASE_URL (it built its SQLite file instead); the PostgreSQL backend does not exist yet',
        );
      }
    }
    if (opts.scenarios.has('9')) scaleFailed = !(await runScale(ctx, pgUrl));
  } finally {
    await cleanUp();
  }
  if (ctx.results.length === 0) return scaleFailed ? 1 : 0;

  const finishedAt = new Date();
  ctx.results.sort(
    (a, b) =>
      (a.backend === b.backend ? 0 : a.backend === 'sqlite' ? -1 : 1) || ORDER.indexOf(a.id) - ORDER.indexOf(b.id),
  );
  const loadGenerators: Record<string, string> = { default: `${gen.name} ${gen.version}` };
  if (onceGen !== gen) loadGenerators['scenario 3'] = `${onceGen.name} ${onceGen.version}`;
  const report: BenchReport = {
    schema: 1,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    elapsedSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    machine,
    git: gitInfo(PROJECT_ROOT),
    options: {
      quick: opts.quick,
      scenarios: [...opts.scenarios],
      duration: opts.duration,
      alternations: opts.alternations,
      warmup: opts.warmup,
      connections: opts.connections,
      rows: opts.rows,
      stream: opts.stream,
      seed: opts.seed,
      postgres: Boolean(pgUrl),
    },
    loadGenerators,
    note: opts.note,
    results: ctx.results,
    skipped: ctx.skipped,
  };

  console.log(`\n${consoleSummary(report)}\n`);
  console.log(`finished in ${Math.round(report.elapsedSeconds)} s`);
  const json = JSON.stringify(report, null, 2) + '\n';
  if (opts.json) {
    fs.mkdirSync(path.dirname(opts.json), { recursive: true });
    fs.writeFileSync(opts.json, json);
    console.log(`results: ${opts.json}`);
  }
  if (opts.write) {
    const file = resultsFile(report.startedAt.slice(0, 10));
    fs.writeFileSync(file, json);
    console.log(`results: ${path.relative(PROJECT_ROOT, file)}`);
    const readme = path.join(PROJECT_ROOT, 'bench', 'README.md');
    if (fs.existsSync(readme) && updateReadme(readme, report)) console.log('table updated: bench/README.md');
    else console.log(`bench/README.md has no ${README_BEGIN} marker: table not written`);
  }
  return ctx.results.some((r) => r.status === 'failed') ? 1 : 0;
}

/**
 * Scenario 9 on its own: its report goes to bench/results/<date>-scale.json and its own table in bench/README.md.
 * False when it could not be measured.
 */
async function runScale(ctx: Ctx, pgUrl: string | undefined): Promise<boolean> {
  const { opts } = ctx;
  if (!pgUrl) {
    log(ctx, 'SKIPPED: scenario 9 needs PostgreSQL: set BENCH_DATABASE_URL');
    return false;
  }
  const rows = opts.rowsGiven ? opts.rows : 100_000_000;
  try {
    const report = await scaleScenario({
      rows,
      seed: opts.seed,
      tmp: ctx.tmp,
      keep: opts.keep,
      dropSource: opts.dropSource,
      adminUrl: pgUrl,
      note: opts.note,
      log: (m) => log(ctx, m),
    });
    console.log(`\n${scaleTable(report)}\n`);
    for (const t of report.targets) log(ctx, `target ${t.label}: ${t.met ? 'met' : 'MISSED'} (${t.value})`);
    const json = JSON.stringify(report, null, 2) + '\n';
    if (opts.json) fs.writeFileSync(opts.json, json);
    if (opts.write) {
      const file = resultsFile(`${report.startedAt.slice(0, 10)}-scale`);
      fs.writeFileSync(file, json);
      console.log(`results: ${path.relative(PROJECT_ROOT, file)}`);
      const readme = path.join(PROJECT_ROOT, 'bench', 'README.md');
      if (fs.existsSync(readme) && updateScaleReadme(readme, report)) {
        console.log('scenario 9 table updated: bench/README.md');
      }
    }
    return true;
  } catch (err) {
    log(ctx, `scenario 9 FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return false;
  }
}

/** bench/results/<date>.json, or <date>-2.json and so on when that day already has a run: no run replaces another. */
function resultsFile(date: string): string {
  const dir = path.join(PROJECT_ROOT, 'bench', 'results');
  for (let n = 1; ; n++) {
    const file = path.join(dir, n === 1 ? `${date}.json` : `${date}-${n}.json`);
    if (!fs.existsSync(file)) return file;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
