// The benchmark's results: their shape, the targets each scenario is held to, the console summary, the JSON file
// and the regenerated table in bench/README.md.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { HTML_PAGES } from './html.js';
import type { LoadResult } from './loadgen.js';

/** Scenario 6's pages besides the two of the explorer brief, summed up together in the table. */
const NEW_PAGES = Object.keys(HTML_PAGES).filter((p) => p !== 'resource' && p !== 'constituency');

export interface Metrics {
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

export interface TargetCheck {
  label: string;
  met: boolean;
  value: string;
}

export type ScenarioId = '1' | '2' | '3' | '3w' | '4load' | '4a' | '4b' | '4c' | '5' | '6' | '7' | '7n' | '8' | '8n';

export interface ScenarioResult {
  id: ScenarioId;
  backend: string;
  title: string;
  /** 'failed': the harness could not measure it (the reason says why); the run then exits with status 1. */
  status: 'measured' | 'skipped' | 'failed';
  reason?: string;
  generator?: string;
  connections?: number;
  runs?: { service: LoadResult[]; ceiling: LoadResult[]; single?: LoadResult[] };
  service?: Metrics;
  ceiling?: Metrics;
  /** The service's figures with one connection (no queueing): the service time of a heavy query. */
  single?: Metrics;
  ratio?: { rps: number; p50: number; p99: number };
  /** Peak RSS (VmHWM) of the service during the measurement, bytes; with the anonymous and file-backed parts seen. */
  servicePeakRss?: number;
  servicePeakAnon?: number;
  ceilingPeakRss?: number;
  /** Scenario-specific figures (rows/s, milliseconds, scale…), named with their unit. */
  extra?: Record<string, number | string | boolean | number[]>;
  targets: TargetCheck[];
  notes: string[];
}

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryBytes: number;
  node: string;
  os: string;
  kernel: string;
  loadAverageAtStart: number[];
}

export interface BenchReport {
  schema: 1;
  startedAt: string;
  finishedAt: string;
  elapsedSeconds: number;
  machine: MachineInfo;
  git: { commit: string | null; modified: boolean | null };
  options: Record<string, unknown>;
  loadGenerators: Record<string, string>;
  note: string | null;
  results: ScenarioResult[];
  /** Whole parts of the run that were not measured (a backend), each with the reason. */
  skipped: string[];
}

export const TITLES: Record<ScenarioId, string> = {
  '1': 'default page of A',
  '2': '20 popular queries, cycled',
  '3': 'stream of distinct queries (A, B, C)',
  '3w': 'stream of distinct queries, 2 workers',
  '4load': 'synthetic resource: load',
  '4a': 'synthetic: filtered, sorted first page',
  '4b': 'synthetic: page at offset 900,000',
  '4c': 'synthetic: full CSV dump',
  '5': 'cold start and idle memory',
  '6': 'explorer HTML pages: TTFB and weight',
  '7': 'add a wide CSV (14 fields), beside sqlite-utils',
  '7n': 'add a narrow CSV (flights: 5 fields), beside sqlite-utils',
  '8': 'add a Parquet file',
  '8n': 'add a narrow Parquet file (flights)',
};

/** The targets, as printed in the README. */
export const TARGET_TEXT: Record<ScenarioId, string> = {
  '1': '≥ 0.9 × ceiling req/s; p99 < 5 ms',
  '2': '≥ 0.9 × ceiling req/s; p99 < 5 ms',
  '3': 'embedded ≥ 0.30 × ceiling req/s, p99 < 10 ms; PostgreSQL ≥ 0.15 ×, p99 < 20 ms; peak RSS < 160 MB',
  '3w': '≥ 1.6 × scenario 3 req/s',
  '4load': '(none; reported)',
  '4a': 'p50 < 5 ms (one connection)',
  '4b': 'p50 < 50 ms (one connection)',
  '4c': '≥ 300,000 rows/s; peak RSS < 200 MB',
  '5': 'first answer < 1 s; idle RSS < 100 MB',
  '6': 'TTFB p95 < 20 ms (100-row resource page, constituency page, elections over time, search, person, transfers, a count as a flow); ≤ 60 KB gzipped all included; JS ≤ 10 KB gzipped',
  '7': 'served ≥ 5 × as fast as sqlite-utils insert --detect-types + enable-fts; indexes done within its time; peak RSS < 500 MB',
  '7n': 'served ≥ 5 × as fast as sqlite-utils insert --detect-types + enable-fts; indexes done within its time; peak RSS < 500 MB',
  '8': 'served at ≥ 200,000 rows/s embedded, ≥ 100,000 rows/s PostgreSQL; peak RSS < 500 MB',
  '8n': 'embedded ≤ 120 bytes a row, indexes included; peak RSS < 500 MB',
};

const MB = 1024 * 1024;

function check(label: string, met: boolean, value: string): TargetCheck {
  return { label, met, value };
}

/** Judges a measured scenario against its targets. */
export function evaluate(r: ScenarioResult): TargetCheck[] {
  if (r.status !== 'measured') return [];
  const out: TargetCheck[] = [];
  const ratio = r.ratio?.rps;
  const p99 = r.service?.p99Ms;
  switch (r.id) {
    case '1':
    case '2':
      if (ratio !== undefined) out.push(check('req/s ≥ 0.9 × ceiling', ratio >= 0.9, ratio.toFixed(2)));
      if (p99 !== undefined) out.push(check('p99 < 5 ms', p99 < 5, `${fmtMs(p99)} ms`));
      break;
    case '3': {
      // A server database answers each query over a socket; the issue sets it half the embedded store's bar.
      const postgres = r.backend === 'postgres';
      const [minRatio, maxP99] = postgres ? [0.15, 20] : [0.3, 10];
      if (ratio !== undefined)
        out.push(check(`req/s ≥ ${minRatio.toFixed(2)} × ceiling`, ratio >= minRatio, ratio.toFixed(2)));
      if (p99 !== undefined) out.push(check(`p99 < ${maxP99} ms`, p99 < maxP99, `${fmtMs(p99)} ms`));
      if (r.servicePeakRss !== undefined)
        out.push(check('peak RSS < 160 MB', r.servicePeakRss < 160 * MB, fmtMb(r.servicePeakRss)));
      break;
    }
    case '3w': {
      const scale = r.extra?.['scaleOverOneProcess'];
      if (typeof scale === 'number') out.push(check('≥ 1.6 × one process', scale >= 1.6, `${scale.toFixed(2)}×`));
      break;
    }
    case '4a':
      if (r.single) out.push(check('p50 < 5 ms', r.single.p50Ms < 5, `${fmtMs(r.single.p50Ms)} ms`));
      break;
    case '4b':
      if (r.single) out.push(check('p50 < 50 ms', r.single.p50Ms < 50, `${fmtMs(r.single.p50Ms)} ms`));
      break;
    case '4c': {
      const rows = r.extra?.['serviceRowsPerSecond'];
      if (typeof rows === 'number') out.push(check('≥ 300,000 rows/s', rows >= 300_000, `${fmtInt(rows)} rows/s`));
      if (r.servicePeakRss !== undefined)
        out.push(check('peak RSS < 200 MB', r.servicePeakRss < 200 * MB, fmtMb(r.servicePeakRss)));
      break;
    }
    case '5': {
      const ms = r.extra?.['coldStartMs'];
      const idle = r.extra?.['idleRssBytes'];
      if (typeof ms === 'number') out.push(check('first answer < 1 s', ms < 1000, `${fmtInt(ms)} ms`));
      if (typeof idle === 'number') out.push(check('idle RSS < 100 MB', idle < 100 * MB, fmtMb(idle)));
      break;
    }
    case '4load':
      break;
    case '7':
    case '7n': {
      const speedup = r.extra?.['speedup'];
      if (typeof speedup === 'number')
        out.push(check('served ≥ 5 × sqlite-utils', speedup >= 5, `${speedup.toFixed(2)}×`));
      const indexes = r.extra?.['indexSeconds'];
      const peer = r.extra?.['peerSeconds'];
      if (typeof indexes === 'number' && typeof peer === 'number')
        out.push(
          check(
            "indexes done within sqlite-utils' time",
            indexes <= peer,
            `${indexes.toFixed(1)} s against ${peer.toFixed(1)} s`,
          ),
        );
      const peak = r.extra?.['peakRssBytes'];
      if (typeof peak === 'number') out.push(check('peak RSS < 500 MB', peak < 500 * MB, fmtMb(peak)));
      break;
    }
    case '8':
    case '8n': {
      const rate = r.extra?.['servedRowsPerSecond'];
      const min = r.backend === 'postgres' ? 100_000 : 200_000;
      if (r.id === '8' && typeof rate === 'number')
        out.push(check(`served at ≥ ${fmtInt(min)} rows/s`, rate >= min, `${fmtInt(rate)} rows/s`));
      const bytes = r.extra?.['bytesPerRow'];
      if (r.id === '8n' && r.backend === 'sqlite' && typeof bytes === 'number')
        out.push(check('≤ 120 bytes a row, indexes included', bytes <= 120, `${bytes.toFixed(0)} bytes`));
      const peak = r.extra?.['peakRssBytes'];
      if (typeof peak === 'number') out.push(check('peak RSS < 500 MB', peak < 500 * MB, fmtMb(peak)));
      break;
    }
    case '6': {
      for (const page of Object.keys(HTML_PAGES)) {
        for (const mode of ['Served', 'Rendered']) {
          const p95 = r.extra?.[`${page}${mode}TtfbP95Ms`];
          if (typeof p95 === 'number')
            out.push(
              check(
                `${page} page TTFB p95 < 20 ms (${mode === 'Served' ? 'as served' : 'rendered every time'})`,
                p95 < 20,
                `${fmtMs(p95)} ms`,
              ),
            );
        }
        const weight = r.extra?.[`${page}WeightGzipKB`];
        if (typeof weight === 'number')
          out.push(check(`${page} page ≤ 60 KB gzipped`, weight <= 60, `${weight.toFixed(1)} KB`));
      }
      const js = r.extra?.['jsGzipKB'];
      if (typeof js === 'number') out.push(check('JS ≤ 10 KB gzipped', js <= 10, `${js.toFixed(1)} KB`));
      break;
    }
  }
  return out;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function medianMetrics(runs: readonly LoadResult[]): Metrics {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
  };
}

export function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  return ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms).toLocaleString('en-US');
}

export function fmtMb(bytes: number): string {
  return `${Math.round(bytes / MB)} MB`;
}

// ---------------------------------------------------------------------------------------------------------------
// machine and commit

export function machineInfo(): MachineInfo {
  let osName = `${os.type()} ${os.release()}`;
  try {
    const m = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(fs.readFileSync('/etc/os-release', 'utf8'));
    if (m) osName = m[1] as string;
  } catch {
    // not Linux, or no os-release: the kernel name will do
  }
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    node: process.version,
    os: osName,
    kernel: os.release(),
    loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

/** The commit measured, read without writing anything to the repository. */
export function gitInfo(root: string): { commit: string | null; modified: boolean | null } {
  const run = (args: string[]) =>
    execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 })
      .toString('utf8')
      .trim();
  let commit: string | null = null;
  let modified: boolean | null = null;
  try {
    commit = run(['rev-parse', 'HEAD']);
  } catch {
    return { commit, modified };
  }
  try {
    // `git diff --quiet` exits 1 when tracked files differ from HEAD; unlike `git status` it does not refresh the
    // index.
    run(['diff', '--no-ext-diff', '--quiet', 'HEAD', '--']);
    modified = false;
  } catch {
    modified = true;
  }
  return { commit, modified };
}

// ---------------------------------------------------------------------------------------------------------------
// presentation

interface Row {
  scenario: string;
  service: string;
  ceiling: string;
  ratio: string;
  p50: string;
  p99: string;
  rss: string;
  targets: string;
}

function targetsCell(r: ScenarioResult): string {
  if (r.status !== 'measured') return `${r.status}: ${r.reason ?? ''}`;
  if (r.targets.length === 0) return '–';
  return r.targets.map((t) => `${t.met ? 'met' : 'MISSED'} (${t.label}: ${t.value})`).join('; ');
}

function rowOf(r: ScenarioResult, withBackend: boolean): Row {
  const name = `${r.id} ${TITLES[r.id]}${withBackend ? ` [${r.backend}]` : ''}`;
  const empty: Row = {
    scenario: name,
    service: '–',
    ceiling: '–',
    ratio: '–',
    p50: '–',
    p99: '–',
    rss: '–',
    targets: targetsCell(r),
  };
  if (r.status !== 'measured') return empty;
  const rss = r.servicePeakRss !== undefined ? fmtMb(r.servicePeakRss) : '–';
  const e = r.extra ?? {};
  switch (r.id) {
    case '4load':
      return {
        ...empty,
        service: `load ${fmtInt(Number(e['rowsPerSecond']))} rows/s (${Number(e['seconds']).toFixed(1)} s)`,
        rss: e['peakRssBytes'] !== undefined ? `${fmtMb(Number(e['peakRssBytes']))} (loader)` : '–',
      };
    case '7':
    case '7n':
    case '8':
    case '8n':
      return {
        ...empty,
        service:
          `served after ${Number(e['servedSeconds']).toFixed(1)} s (${fmtInt(Number(e['servedRowsPerSecond']))} rows/s), ` +
          `indexes done after ${Number(e['indexSeconds']).toFixed(1)} s; ${Number(e['bytesPerRow']).toFixed(0)} bytes a row`,
        ceiling:
          [
            e['peerSeconds'] !== undefined
              ? `sqlite-utils ${Number(e['peerSeconds']).toFixed(1)} s (${fmtMb(Number(e['peerPeakRssBytes']))})`
              : null,
            e['floorSeconds'] !== undefined
              ? `store floor ${Number(e['floorSeconds']).toFixed(1)} s (${fmtInt(Number(e['floorRowsPerSecond']))} rows/s)`
              : null,
          ]
            .filter((cell) => cell !== null)
            .join('; ') || '–',
        ratio: e['speedup'] !== undefined ? Number(e['speedup']).toFixed(2) : '–',
        rss: e['peakRssBytes'] !== undefined ? `${fmtMb(Number(e['peakRssBytes']))} (add)` : '–',
      };
    case '4c':
      return {
        ...empty,
        service: `${fmtInt(Number(e['serviceRowsPerSecond']))} rows/s (${Number(e['serviceSeconds']).toFixed(2)} s)`,
        ceiling: e['ceilingRowsPerSecond'] !== undefined ? `${fmtInt(Number(e['ceilingRowsPerSecond']))} rows/s` : '–',
        ratio: r.ratio ? r.ratio.rps.toFixed(2) : '–',
        rss,
      };
    case '5':
      return {
        ...empty,
        service: `first answer ${fmtInt(Number(e['coldStartMs']))} ms`,
        rss: `${fmtMb(Number(e['idleRssBytes']))} idle`,
      };
    case '6':
      return {
        ...empty,
        service:
          `TTFB p95 ${fmtMs(Number(e['resourceServedTtfbP95Ms']))} / ${fmtMs(Number(e['constituencyServedTtfbP95Ms']))} ms served, ` +
          `${fmtMs(Number(e['resourceRenderedTtfbP95Ms']))} / ${fmtMs(Number(e['constituencyRenderedTtfbP95Ms']))} ms rendered (resource / constituency); ` +
          `${Number(e['resourceWeightGzipKB']).toFixed(1)} / ${Number(e['constituencyWeightGzipKB']).toFixed(1)} KB gzipped; ` +
          `new pages (${NEW_PAGES.join(', ')}): TTFB p95 at most ${fmtMs(Math.max(...NEW_PAGES.map((p) => Number(e[`${p}ServedTtfbP95Ms`]))))} ms served, ` +
          `${fmtMs(Math.max(...NEW_PAGES.map((p) => Number(e[`${p}RenderedTtfbP95Ms`]))))} ms rendered, at most ${Math.max(...NEW_PAGES.map((p) => Number(e[`${p}WeightGzipKB`]))).toFixed(1)} KB gzipped`,
      };
    default: {
      const single = r.single ? ` (1 conn: ${fmtMs(r.single.p50Ms)})` : '';
      return {
        ...empty,
        service: r.service ? `${fmtInt(r.service.rps)} req/s` : '–',
        ceiling: r.ceiling ? `${fmtInt(r.ceiling.rps)} req/s` : '–',
        ratio: r.ratio ? r.ratio.rps.toFixed(2) : '–',
        p50: r.service ? `${fmtMs(r.service.p50Ms)} / ${r.ceiling ? fmtMs(r.ceiling.p50Ms) : '–'}${single}` : '–',
        p99: r.service ? `${fmtMs(r.service.p99Ms)} / ${r.ceiling ? fmtMs(r.ceiling.p99Ms) : '–'}` : '–',
        rss,
      };
    }
  }
}

const HEADERS: Row = {
  scenario: 'Scenario',
  service: 'Service',
  ceiling: 'Ceiling',
  ratio: 'Ratio',
  p50: 'p50 ms (svc / ceil)',
  p99: 'p99 ms (svc / ceil)',
  rss: 'Service peak RSS',
  targets: 'Targets',
};

export function markdownTable(report: BenchReport): string {
  const backends = new Set(report.results.map((r) => r.backend));
  const rows = report.results.map((r) => rowOf(r, backends.size > 1));
  const cells = (row: Row) => [
    row.scenario,
    row.service,
    row.ceiling,
    row.ratio,
    row.p50,
    row.p99,
    row.rss,
    row.targets,
  ];
  const line = (row: Row) =>
    `| ${cells(row)
      .map((c) => c.replace(/\|/g, '\\|'))
      .join(' | ')} |`;
  const m = report.machine;
  const gens = Object.entries(report.loadGenerators)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  const head = [
    `Run of ${report.startedAt.slice(0, 10)} (${Math.round(report.elapsedSeconds)} s), commit ${report.git.commit?.slice(0, 12) ?? 'unknown'}${report.git.modified ? ' (with uncommitted changes)' : ''};`,
    `${m.cpu}, ${m.cores} cores, ${Math.round(m.memoryBytes / 1024 ** 3)} GiB, Node ${m.node}, ${m.os}; load average at start ${m.loadAverageAtStart.join(' ')}.`,
    `Load generator ${gens}; ${String(report.options['connections'])} connections, ${String(report.options['duration'])} s per measurement, alternations: ${String(report.options['alternations'])}, medians.`,
  ];
  if (report.note) head.push(`Note: ${report.note}`);
  return [
    head.join('\n'),
    '',
    line(HEADERS),
    `|${cells(HEADERS)
      .map(() => '---')
      .join('|')}|`,
    ...rows.map(line),
    ...(report.skipped.length > 0 ? ['', ...report.skipped.map((s) => `Skipped: ${s}.`)] : []),
  ].join('\n');
}

export function consoleSummary(report: BenchReport): string {
  const backends = new Set(report.results.map((r) => r.backend));
  const rows = [HEADERS, ...report.results.map((r) => rowOf(r, backends.size > 1))];
  const widths = Object.keys(HEADERS).map((k) => Math.max(...rows.map((row) => row[k as keyof Row].length)));
  // The targets column is last and may be long: it is not padded.
  const table = rows.map((row) =>
    Object.keys(HEADERS)
      .map((k, i) => {
        const text = row[k as keyof Row];
        return i === widths.length - 1 ? text : text.padEnd(widths[i] as number);
      })
      .join('  '),
  );
  return [...table, ...report.skipped.map((s) => `SKIPPED: ${s}`)].join('\n');
}

export const README_BEGIN = '<!-- bench-results:begin (generated by npm run bench; do not edit by hand) -->';
export const README_END = '<!-- bench-results:end -->';

/** Replaces the generated part of the README; false when its markers are missing. */
export function updateReadme(readmePath: string, report: BenchReport): boolean {
  const text = fs.readFileSync(readmePath, 'utf8');
  const begin = text.indexOf(README_BEGIN);
  const end = text.indexOf(README_END);
  if (begin === -1 || end === -1 || end < begin) return false;
  const updated = `${text.slice(0, begin + README_BEGIN.length)}\n${markdownTable(report)}\n${text.slice(end)}`;
  fs.writeFileSync(readmePath, updated);
  return true;
}
