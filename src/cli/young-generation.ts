// A load into PostgreSQL runs in a process with a larger young generation. The loading thread makes each record's
// COPY line and full-text vector, short-lived strings at a high rate: with V8's default semi-space (16 MB) it spent
// about a fifth of its time in collections. With 64 MB, `count-centre add` of 3,000,000 Parquet records into
// PostgreSQL served them after 21.2 s instead of 25.6-26.2 s, its peak RSS 387 MB instead of 264-275 MB. V8 sizes the
// young generation once, at start, so the command starts itself again with the flag. The embedded store's loads gain
// little from it (its writing thread does most of the allocating) and keep V8's default.

import { spawn } from 'node:child_process';

const SEMI_SPACE_MB = 64;
const LOADING_COMMANDS = new Set(['add', 'load', 'mirror']);

/** Whether a command line loads into PostgreSQL in a process started without a semi-space size of its own. */
export function wantsLargerYoungGeneration(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  execArgv: readonly string[],
): boolean {
  const [command, ...args] = argv;
  if (command === undefined || !LOADING_COMMANDS.has(command)) return false;
  if (args.includes('--help') || args.includes('-h')) return false;
  if (!env['DATABASE_URL']) return false;
  return !execArgv.some((flag) => flag.startsWith('--max-semi-space-size'));
}

/**
 * Runs `script` with `argv` again in a child process with the larger young generation, its standard streams this
 * process's, and ends this process as the child ends (its exit code, or the signal that ended it). A signal sent to
 * this process alone (a supervisor's SIGTERM) is passed on; a terminal's Ctrl-C reaches both anyway.
 */
export function runWithLargerYoungGeneration(script: string, argv: readonly string[]): void {
  const child = spawn(
    process.execPath,
    [...process.execArgv, `--max-semi-space-size=${SEMI_SPACE_MB}`, script, ...argv],
    {
      stdio: 'inherit',
    },
  );
  const forward = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);
  child.on('error', (err) => {
    process.stderr.write(`count-centre: could not start the loading process: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}
