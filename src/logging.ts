// The process's logger: pino, writing JSON lines where a program reads them (a file, a pipe, a log collector) and a
// readable line per entry on a terminal (local time, level, message, then the entry's other facts as key=value).
// The readable form is a small synchronous writer rather than pino-pretty: it needs no worker thread and no
// dependencies, and prints the few kinds of entries this service writes the way people scan them.

import { pino, type Logger } from 'pino';
import type { Settings } from './settings.js';

const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '\x1b[90m'],
  20: ['DEBUG', '\x1b[36m'],
  30: ['INFO ', '\x1b[32m'],
  40: ['WARN ', '\x1b[33m'],
  50: ['ERROR', '\x1b[31m'],
  60: ['FATAL', '\x1b[35m'],
};
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

function clock(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function fact(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (value instanceof Object && 'message' in value && 'stack' in value)
    return JSON.stringify((value as { message: unknown }).message);
  return JSON.stringify(value);
}

/** One JSON log line as people read it: `12:04:05.120 INFO  message key=value …` (coloured when `colour`). */
export function readableLine(json: string, colour: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const [name, tint] = LEVELS[entry.level as number] ?? ['?    ', ''];
  const level = colour ? `${tint}${name}\x1b[0m` : name;
  const time = typeof entry.time === 'number' ? clock(entry.time) : '';
  let message = String(entry.msg ?? '');
  const rest = Object.entries(entry).filter(([k]) => !OMIT.has(k));
  // A request line reads as the request: GET /path 200 1.2 ms.
  if (message === 'request' && typeof entry.method === 'string') {
    message = `${entry.method} ${String(entry.url)} ${String(entry.status)} ${String(entry.ms)} ms`;
    const shown = new Set(['method', 'url', 'status', 'ms']);
    const others = rest
      .filter(([k]) => !shown.has(k))
      .map(([k, v]) => `${k}=${fact(v)}`)
      .join(' ');
    return `${time} ${level} ${message}${others ? ` ${colour ? '\x1b[90m' : ''}${others}${colour ? '\x1b[0m' : ''}` : ''}`;
  }
  const facts = rest
    .map(([k, v]) =>
      k === 'err' && v && typeof v === 'object'
        ? `err=${fact((v as { message?: unknown }).message)}`
        : `${k}=${fact(v)}`,
    )
    .join(' ');
  return `${time} ${level} ${message}${facts ? ` ${colour ? '\x1b[90m' : ''}${facts}${colour ? '\x1b[0m' : ''}` : ''}`;
}

/** A pino destination writing readable lines to a stream, synchronously (nothing is lost when the process exits). */
function readableDestination(out: NodeJS.WriteStream, colour: boolean): { write(chunk: string): void } {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line) out.write(`${readableLine(line, colour)}\n`);
    },
  };
}

export type LogFormat = 'auto' | 'pretty' | 'json';

/** Whether logs written to `out` are read by people (a terminal) or by programs. */
export function readableFor(format: LogFormat, out: { isTTY?: boolean }): boolean {
  return format === 'pretty' || (format === 'auto' && out.isTTY === true);
}

/**
 * The logger for this process, at the settings' level and in the format they choose (auto: by whether stdout is a
 * terminal).
 */
export function createLogger(
  settings: Pick<Settings, 'logLevel' | 'logFormat'>,
  options: {
    level?: string;
    out?: NodeJS.WriteStream;
    /** Entries not to write: given the entry's level number and the facts it was logged with. */
    drop?: (level: number, facts: Record<string, unknown>) => boolean;
  } = {},
): Logger {
  const out = options.out ?? process.stdout;
  const level = options.level ?? settings.logLevel;
  const { drop } = options;
  const hooks: pino.LoggerOptions['hooks'] = drop
    ? {
        logMethod(args, write, entryLevel) {
          const facts = typeof args[0] === 'object' && args[0] !== null ? (args[0] as Record<string, unknown>) : {};
          if (!drop(entryLevel, facts)) write.apply(this, args);
        },
      }
    : {};
  if (readableFor(settings.logFormat as LogFormat, out)) {
    return pino(
      { level, base: { pid: process.pid }, hooks },
      readableDestination(out, out.isTTY === true && !process.env.NO_COLOR),
    );
  }
  return pino({ level, base: { pid: process.pid }, hooks }, out === process.stdout ? undefined : out);
}
