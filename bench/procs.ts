// Child processes of the benchmark (the service and the ceiling server) and what /proc says about them: start,
// readiness, peak and current memory, CPU time, descendants, and a clean stop of exactly the processes we started.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is dist/bench/procs.js once compiled). */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The service's entry point; BENCH_SERVICE_ENTRY may name another build (or a wrapper) to measure instead. */
export const SERVICE_ENTRY = process.env['BENCH_SERVICE_ENTRY']
  ? path.resolve(process.env['BENCH_SERVICE_ENTRY'])
  : path.join(PROJECT_ROOT, 'dist', 'src', 'main.js');
export const CEILING_ENTRY = path.join(PROJECT_ROOT, 'dist', 'bench', 'ceiling.js');

// Settings a developer may have exported for their own server; the benchmark must never inherit them, so that it
// cannot touch their database or port by accident, nor measure a configuration it did not choose.
const SCRUBBED_ENV = [
  'PORT',
  'HOST',
  'LOG_LEVEL',
  'DATABASE_URL',
  'DATABASE_READ_URLS',
  'WORKERS',
  'SITE_URL',
  'CKAN_LOCALE',
  'NODE_OPTIONS',
];
const SCRUBBED_PREFIX = 'COUNTCENTRE_';

/** The harness's environment without the service's settings, plus the given ones: what a child process gets. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env))
    if (SCRUBBED_ENV.includes(key) || key.startsWith(SCRUBBED_PREFIX)) delete env[key];
  return Object.assign(env, extra);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Proc {
  label: string;
  pid: number;
  port: number;
  child: ChildProcess;
  /** Milliseconds from spawn() to the first answered request. */
  readyMs: number;
  /** The last lines the process wrote, for error messages. */
  output(): string;
  exited(): boolean;
  stop(): Promise<void>;
}

export interface StartOptions {
  label: string;
  args: string[];
  env: Record<string, string>;
  /** A path that answers 200 once the process is ready. */
  probePath: string;
  timeoutMs: number;
}

/** One GET on a fresh connection; resolves with the status, or null if nothing answered. */
function probe(port: number, probePath: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: probePath, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? null));
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spawns `node <args>` and polls until `probePath` answers 200; the time to that answer is the cold start. */
export async function startProcess(options: StartOptions): Promise<Proc> {
  const port = Number(options.env['PORT']);
  const env = childEnv(options.env);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  const started = performance.now();
  const child = spawn(process.execPath, options.args, { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : 0);
      resolve();
    }),
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.label}: could not start node`);

  let readyMs = -1;
  while (performance.now() - started < options.timeoutMs) {
    if (exitCode !== undefined) throw new Error(`${options.label} exited (${exitCode}) before answering:\n${tail}`);
    const status = await probe(port, options.probePath);
    if (status === 200) {
      readyMs = performance.now() - started;
      break;
    }
    if (status !== null) throw new Error(`${options.label} answered ${status} to ${options.probePath}:\n${tail}`);
    // Poll fast: the cold-start measurement is only as fine as this interval.
    await sleep(5);
  }
  const proc: Proc = {
    label: options.label,
    pid,
    port,
    child,
    readyMs,
    output: () => tail,
    exited: () => exitCode !== undefined,
    async stop() {
      if (exitCode !== undefined) return;
      // Remember its children (worker processes) first: they are ours too, and must not outlive the run.
      const family = descendants(pid);
      child.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
      if (!done) child.kill('SIGKILL');
      await Promise.race([exited, sleep(2000)]);
      for (const other of family) {
        try {
          process.kill(other, 0);
          process.kill(other, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
  if (readyMs < 0) {
    await proc.stop();
    throw new Error(`${options.label} did not answer ${options.probePath} within ${options.timeoutMs} ms:\n${tail}`);
  }
  return proc;
}

export interface MemoryStatus {
  /** Peak resident set (VmHWM) since start or since the last resetPeak, bytes. */
  peak: number;
  rss: number;
  anon: number;
  file: number;
}

/** Memory figures from /proc/<pid>/status, or null when the process is gone or /proc is absent. */
export function memoryOf(pid: number): MemoryStatus | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : 0;
  };
  return { peak: kb('VmHWM'), rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
}

/** Memory of a process and its descendants, summed (worker processes count toward the service's footprint). */
export function familyMemory(pid: number): MemoryStatus | null {
  const own = memoryOf(pid);
  if (own === null) return null;
  for (const child of descendants(pid)) {
    const m = memoryOf(child);
    if (m === null) continue;
    own.peak += m.peak;
    own.rss += m.rss;
    own.anon += m.anon;
    own.file += m.file;
  }
  return own;
}

/**
 * Resets the kernel's peak-RSS counter (VmHWM) to the current RSS, so a scenario's peak is its own and not the
 * start-up's or a previous scenario's. Returns false where the kernel does not allow it.
 */
export function resetPeak(pid: number): boolean {
  let ok = true;
  for (const p of [pid, ...descendants(pid)]) {
    try {
      fs.writeFileSync(`/proc/${p}/clear_refs`, '5');
    } catch {
      ok = false;
    }
  }
  return ok;
}

/** Parent pid and CPU ticks (user + system) of a process, from /proc/<pid>/stat. */
function statOf(pid: number): { ppid: number; ticks: number } | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) };
}

/** Every live descendant of a process. */
export function descendants(pid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const parentOf = new Map<number, number>();
  for (const e of entries) {
    const s = statOf(Number(e));
    if (s) parentOf.set(Number(e), s.ppid);
  }
  const out: number[] = [];
  const frontier = [pid];
  while (frontier.length > 0) {
    const parent = frontier.pop() as number;
    for (const [child, ppid] of parentOf) {
      if (ppid === parent && !out.includes(child)) {
        out.push(child);
        frontier.push(child);
      }
    }
  }
  return out;
}

/** CPU ticks used so far by each process of a family (the process and its descendants). */
export function familyTicks(pid: number): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const p of [pid, ...descendants(pid)]) {
    const s = statOf(p);
    if (s) ticks.set(p, s.ticks);
  }
  return ticks;
}
