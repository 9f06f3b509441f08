// Count Centre as another process, as people run it: `count-centre serve` (or any other command) with its own
// environment, for tests where a second instance plays a CKAN portal or a CLI runs beside a server.

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/settings.js';

export const CLI = path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'count-centre.js');

export interface ServerProcess {
  process: ChildProcess;
  port: number;
  url: string;
  /** Everything it wrote to standard output so far (its JSON log lines). */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `count-centre serve` on a free port of 127.0.0.1 and waits until it listens (JSON logs, to find the port). */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      COUNTCENTRE_LOG_FORMAT: 'json',
      COUNTCENTRE_REQUEST_LOG_LEVEL: 'debug',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stderr!.on('data', (chunk) => {
    errors += String(chunk);
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the server did not start within ${timeoutMs} ms:\n${output}${errors}`)),
      timeoutMs,
    );
    child.stdout!.on('data', (chunk) => {
      output += String(chunk);
      const match = /"msg":"serving on http:\/\/127\.0\.0\.1:(\d+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${output}${errors}`));
    });
  });
  const server: ServerProcess = {
    process: child,
    port,
    url: `http://127.0.0.1:${port}/`,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
  // A server that has just loaded builds the indexes it left for after publication: tests start once they are in, as
  // with a server that has been up a while (indexesBuilt waits for a later load's too).
  await indexesBuilt(server);
  return server;
}

/**
 * The environment of `count-centre` working in a folder of its own: the catalogue (`catalog.json` there unless named),
 * the sources and the embedded store in it; on PostgreSQL, the test database too.
 */
export function folderEnv(
  dir: string,
  options: { catalog?: string; store?: string; databaseUrl?: string | null } = {},
): Record<string, string> {
  return {
    COUNTCENTRE_CATALOG: options.catalog ?? path.join(dir, 'catalog.json'),
    COUNTCENTRE_SOURCES: dir,
    COUNTCENTRE_DB: options.store ?? path.join(dir, 'store.sqlite'),
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
  };
}

/** Runs a `count-centre` command to its end: exit code, standard output and error. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  cwd = PROJECT_ROOT,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, COUNTCENTRE_LOG_FORMAT: 'json', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += String(c);
    });
    child.stderr.on('data', (c) => {
      stderr += String(c);
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Waits until a server process reports no indexes still to be built (/healthz), so that what a test compares is not
 * changed underneath it by the build that follows a load.
 */
export async function indexesBuilt(server: ServerProcess, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(new URL('healthz', server.url));
    const body = (await response.json()) as { indexes_building?: unknown[] };
    if (Array.isArray(body.indexes_building) && body.indexes_building.length === 0) return;
    if (Date.now() > until) throw new Error(`indexes still building after ${timeoutMs} ms: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
