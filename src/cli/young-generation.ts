// A load into PostgreSQL runs in a process with a larger young generation. The loading thread makes each record's
// COPY line and full-text vector, short-lived strings at a high rate: with V8's default semi-space (16 MB) it spent
// about a fifth of its time in collections. With 64 MB, `count-centre add` of 3,000,000 Parquet records into
// PostgreSQL served them after 21.2 s instead of 25.6-26.2 s, its peak RSS 387 MB instead of 264-275 MB. V8 sizes the
// young generation once, at start, so the command starts itself again with the flag. The embedded store's loads gain
// little from it (its writing thread does most of the allocating) and keep V8's default. Where a helper thread makes
// most of the lines (COUNTCENTRE_PG_LOAD_HELPER_ROWS), each of the two threads allocates less, and the flag sizes both
// threads' young generations: 32 MB then loaded scenario 9's 2,000,000 records in 56.7 s at a peak RSS of 340 MB,
// where 64 MB took 76.8 s and 486 MB (and the reading thread alone, with 64 MB, 67.3 s and 313 MB).

import { spawn } from 'node:child_process';
import { loadSetting } from '../settings.js';

/** The semi-space for a load whose lines are made by the reading thread alone, and with a helper thread. */
const SEMI_SPACE_MB = { alone: 64, withHelper: 32 };

/**
 * The semi-space size for a load under `env`: the helper thread is on unless COUNTCENTRE_PG_LOAD_HELPER_ROWS is 0. A
 * value the setting refuses is left to the loading process, which reports it with the others.
 */
export function semiSpaceMb(env: NodeJS.ProcessEnv): number {
  let helperRows: number;
  try {
    helperRows = loadSetting('pgLoadHelperRows', env);
  } catch {
    return SEMI_SPACE_MB.withHelper;
  }
  return helperRows === 0 ? SEMI_SPACE_MB.alone : SEMI_SPACE_MB.withHelper;
}
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
    [...process.execArgv, `--max-semi-space-size=${semiSpaceMb(process.env)}`, script, ...argv],
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
