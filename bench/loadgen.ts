// The load generators: wrk (Debian's, when on PATH) or autocannon (a devDependency, through its API), behind one
// interface, so the service and the ceiling are always driven by the same client with the same settings.
// Latency percentiles are computed from every response (not only 2xx) at microsecond resolution.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import autocannon, { type AutocannonClient, type AutocannonRequest } from 'autocannon';

export interface LoadSpec {
  port: number;
  paths: readonly string[];
  /** 'cycle': the paths round and round for `seconds`; 'once': each path exactly once, `seconds` is a time cap. */
  mode: 'cycle' | 'once';
  connections: number;
  seconds: number;
  /** 'once' mode: go through the paths this many times, one pass after another (default 1). */
  passes?: number;
  /** Where a generator may write scripts. */
  workDir: string;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors, read/write errors and timeouts. */
  errors: number;
  non2xx: number;
}

export interface LoadGenerator {
  name: 'wrk' | 'autocannon';
  version: string;
  /** Whether it can send each path exactly once and still time the run exactly (wrk cannot stop on a count). */
  supportsOnce: boolean;
  run(spec: LoadSpec): Promise<LoadResult>;
}

function nearestRank(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

// ---------------------------------------------------------------------------------------------------------------
// autocannon

const require = createRequire(import.meta.url);

function autocannonVersion(): string {
  try {
    return (require('autocannon/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export const autocannonGenerator: LoadGenerator = {
  name: 'autocannon',
  version: autocannonVersion(),
  supportsOnce: true,
  run(spec) {
    return new Promise((resolve, reject) => {
      const n = spec.paths.length;
      if (n === 0) {
        reject(new Error('no paths to load'));
        return;
      }
      let latencies = new Float64Array(1 << 16);
      let count = 0;
      let non2xx = 0;
      let cursor = 0;
      let clientIndex = 0;
      const once = spec.mode === 'once';
      // autocannon shares one request object between its connections and builds a connection's first request
      // before it is sent, so each connection gets its own objects here (setupClient): in 'once' mode they draw
      // from one shared cursor, so every path goes out exactly once across all connections; in 'cycle' mode each
      // connection starts at a different place in the list, so they do not ask the same thing in lockstep.
      const setupClient = (client: AutocannonClient) => {
        const k = clientIndex++;
        if (once) {
          const setupRequest = (r: AutocannonRequest) => {
            r.path = spec.paths[cursor++ % n];
            return r;
          };
          client.setRequests([{ method: 'GET', path: '/', setupRequest }]);
        } else if (n > 1) {
          client.setRequests(
            Array.from({ length: n }, (_, i) => ({ method: 'GET', path: spec.paths[(i + k) % n] as string })),
          );
        }
      };
      const started = performance.now();
      // autocannon notices the end of a run only on its once-a-second sampling tick, so its own duration is
      // rounded up to whole seconds; the run is timed here instead, up to the last response.
      let lastResponse = started;
      let capTimer: NodeJS.Timeout | undefined;
      const instance = autocannon(
        {
          url: `http://127.0.0.1:${spec.port}`,
          connections: Math.min(spec.connections, once ? n : spec.connections),
          pipelining: 1,
          timeout: 30,
          excludeErrorStats: false,
          ...(once ? { amount: n * Math.max(1, spec.passes ?? 1) } : { duration: spec.seconds }),
          requests: [{ method: 'GET', path: spec.paths[0] as string }],
          setupClient,
        },
        (err, result) => {
          if (capTimer) clearTimeout(capTimer);
          const seconds = (lastResponse - started) / 1000;
          if (err) {
            reject(err);
            return;
          }
          const sorted = latencies.subarray(0, count).sort();
          resolve({
            requests: count,
            seconds,
            rps: seconds > 0 ? count / seconds : 0,
            p50Ms: nearestRank(sorted, 50),
            p99Ms: nearestRank(sorted, 99),
            errors: result.errors,
            non2xx,
          });
        },
      );
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
        if (count === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[count++] = ms;
        lastResponse = performance.now();
        if (status < 200 || status >= 300) non2xx++;
      });
      if (once) capTimer = setTimeout(() => instance.stop(), spec.seconds * 1000);
    });
  },
};

// ---------------------------------------------------------------------------------------------------------------
// wrk

function wrkVersion(): string | null {
  try {
    // `wrk --version` prints its banner and exits with status 1.
    execFileSync('wrk', ['--version'], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 });
    return 'unknown';
  } catch (err) {
    const e = err as { code?: string; stdout?: Buffer };
    if (e.code === 'ENOENT') return null;
    const line = e.stdout?.toString('utf8').split('\n')[0] ?? '';
    const m = /^wrk\s+(\S+)/.exec(line);
    return m ? (m[1] as string) : line.trim() ? line.trim() : null;
  }
}

// done() prints one JSON line the harness reads back; latency is in microseconds.
const WRK_DONE = `
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCHJSON {"requests":%.0f,"duration_us":%.0f,"errors":%.0f,"status":%.0f,"p50_us":%.3f,"p99_us":%.3f}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
`;

function wrkScript(pathsFile: string | null): string {
  if (pathsFile === null) return WRK_DONE;
  // Requests are formatted once per thread; request() only hands the next one out.
  return `
local reqs = {}
local i = 0
function init(args)
  for line in io.lines(${JSON.stringify(pathsFile)}) do
    if #line > 0 then reqs[#reqs + 1] = wrk.format("GET", line) end
  end
  i = 0
end
function request()
  i = i % #reqs + 1
  return reqs[i]
end
${WRK_DONE}`;
}

/**
 * Each path once (in as many passes as asked), then stop: each thread takes its share of the paths, counts the answers
 * and stops when its last has come; the time is taken in the script (LuaJIT's FFI reads the monotonic clock), from the
 * first request sent to the last answer, since wrk itself reports the whole duration it was given.
 */
function wrkOnceScript(pathsFile: string, passes: number, threads: number): string {
  return `
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clk_id, bench_timespec *tp);
]]
local clock = ffi.new("bench_timespec")
local function now_us()
  ffi.C.clock_gettime(1, clock)
  return tonumber(clock.tv_sec) * 1000000 + tonumber(clock.tv_nsec) / 1000
end
-- Globals, so that done() can read them from each thread.
sent, received, first, last, total, non2xx = 0, 0, 0, 0, 0, 0
local reqs = {}
local threads = {}
function setup(thread)
  thread:set("share", #threads)
  threads[#threads + 1] = thread
end
function init(args)
  local n = 0
  for line in io.lines(${JSON.stringify(pathsFile)}) do
    if #line > 0 then
      if n % ${threads} == share then reqs[#reqs + 1] = wrk.format("GET", line) end
      n = n + 1
    end
  end
  total = #reqs * ${passes}
  -- wrk asks the first thread for one request before it starts, to check it, and never sends it.
  checking = share == 0
end
function request()
  if checking then
    checking = false
    return #reqs > 0 and reqs[1] or wrk.format("GET", "/")
  end
  -- Past its share a thread sends nothing more; it stops once its answers are in.
  if sent >= total then return "" end
  if sent == 0 then first = now_us() end
  sent = sent + 1
  return reqs[(sent - 1) % #reqs + 1]
end
function response(status, headers, body)
  received = received + 1
  last = now_us()
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
  if received >= total then wrk.thread:stop() end
end
function done(summary, latency, requests)
  local got, bad, from, to = 0, 0, math.huge, 0
  for _, t in ipairs(threads) do
    got = got + t:get("received")
    bad = bad + t:get("non2xx")
    if t:get("first") > 0 then from = math.min(from, t:get("first")) end
    to = math.max(to, t:get("last"))
  end
  local e = summary.errors
  io.write(string.format('BENCHJSON {"requests":%.0f,"duration_us":%.0f,"errors":%.0f,"status":%.0f,"p50_us":%.3f,"p99_us":%.3f}\\n',
    got, to - from, e.connect + e.read + e.write, bad, latency:percentile(50), latency:percentile(99)))
end
`;
}

let wrkRuns = 0;

export function wrkGenerator(): LoadGenerator | null {
  const version = wrkVersion();
  if (version === null) return null;
  return {
    name: 'wrk',
    version,
    supportsOnce: true,
    run(spec) {
      const id = `wrk-${process.pid}-${wrkRuns++}`;
      const once = spec.mode === 'once';
      let pathsFile: string | null = null;
      if (spec.paths.length > 1 || once) {
        pathsFile = path.join(spec.workDir, `${id}.paths`);
        fs.writeFileSync(pathsFile, spec.paths.join('\n') + '\n');
      }
      const scriptFile = path.join(spec.workDir, `${id}.lua`);
      // One thread: on a 2-core machine the second core belongs to the server under test; one wrk thread
      // drives far more requests per second than one Node process can answer.
      fs.writeFileSync(
        scriptFile,
        once ? wrkOnceScript(pathsFile!, Math.max(1, spec.passes ?? 1), 1) : wrkScript(pathsFile),
      );
      // In 'once' mode the duration is only a cap: the script stops wrk when the last answer is in.
      const args = [
        '-t1',
        `-c${Math.min(spec.connections, once ? spec.paths.length : spec.connections)}`,
        `-d${Math.max(1, Math.round(spec.seconds))}s`,
        '--timeout',
        '30s',
        '-s',
        scriptFile,
        `http://127.0.0.1:${spec.port}${spec.paths[0]}`,
      ];
      return new Promise((resolve, reject) => {
        const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString('utf8');
        });
        child.stderr.on('data', (c: Buffer) => {
          out += c.toString('utf8');
        });
        child.on('error', reject);
        child.on('exit', (code) => {
          const line = out.split('\n').find((l) => l.startsWith('BENCHJSON '));
          if (!line) {
            reject(new Error(`wrk exited ${code} without a result:\n${out.slice(-2000)}`));
            return;
          }
          const r = JSON.parse(line.slice('BENCHJSON '.length)) as {
            requests: number;
            duration_us: number;
            errors: number;
            status: number;
            p50_us: number;
            p99_us: number;
          };
          const seconds = r.duration_us / 1e6;
          resolve({
            requests: r.requests,
            seconds,
            rps: r.requests / seconds,
            p50Ms: r.p50_us / 1000,
            p99Ms: r.p99_us / 1000,
            errors: r.errors,
            non2xx: r.status,
          });
        });
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// one large download (the CSV dump), timed

export interface DownloadResult {
  status: number;
  contentType: string;
  seconds: number;
  bytes: number;
  lines: number;
}

export function download(port: number, urlPath: string, timeoutMs: number): Promise<DownloadResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false, timeout: timeoutMs }, (res) => {
      let bytes = 0;
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          seconds: (performance.now() - started) / 1000,
          bytes,
          lines,
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${urlPath} timed out`)));
    req.on('error', reject);
  });
}
