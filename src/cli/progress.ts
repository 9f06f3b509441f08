// What a load shows as it goes: on a terminal, once a resource has taken more than a second, one line kept up to date
// (records, rate, time left when the count is known beforehand); elsewhere, a log line every few seconds. At the end,
// a table of what happened to each resource.

import type { Logger } from 'pino';
import type { ResourceDefinition } from '../catalog/types.js';
import type { LoadProgress, ResourceOutcome } from '../ingest/build.js';

export interface ProgressOptions {
  /** Where the live line goes (a terminal), or null to log lines instead. */
  terminal: NodeJS.WriteStream | null;
  logger: Logger;
  /** Seconds between log lines without a terminal. */
  logEverySeconds?: number;
  now?: () => number;
}

export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-IE');
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(Math.round(s - m * 60)).padStart(2, '0')} s`;
}

/** The live line: `Count details 2020: 12,000 of 40,000 records, 8,100/s, 3.5 s left`. */
export function progressLine(name: string, rows: number, expected: number | null, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (rows * 1000) / elapsedMs : 0;
  const of = expected !== null && expected >= rows ? ` of ${formatCount(expected)}` : '';
  const left =
    expected !== null && rate > 0 && expected >= rows
      ? `, ${formatDuration(((expected - rows) / rate) * 1000)} left`
      : '';
  return `${name}: ${formatCount(rows)}${of} records, ${formatCount(rate)}/s${left}`;
}

export class LoadProgressReporter implements LoadProgress {
  private current: {
    resource: ResourceDefinition;
    expected: number | null;
    started: number;
    rows: number;
    shownAt: number;
    loggedAt: number;
  } | null = null;
  private lineShown = false;
  private readonly now: () => number;
  readonly outcomes: ResourceOutcome[] = [];

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  start(resource: ResourceDefinition, expected: number | null): void {
    const t = this.now();
    this.current = { resource, expected, started: t, rows: 0, shownAt: 0, loggedAt: t };
  }

  rows(count: number): void {
    const c = this.current;
    if (!c) return;
    c.rows = count;
    const t = this.now();
    const elapsed = t - c.started;
    if (this.options.terminal) {
      // Nothing for a load that is over within a second; then at most five updates a second.
      if (elapsed < 1000 || t - c.shownAt < 200) return;
      c.shownAt = t;
      this.options.terminal.write(`\r\x1b[K${progressLine(c.resource.name, count, c.expected, elapsed)}`);
      this.lineShown = true;
    } else if (t - c.loggedAt >= (this.options.logEverySeconds ?? 5) * 1000) {
      c.loggedAt = t;
      this.options.logger.info(
        {
          resource: c.resource.id,
          rows: count,
          expected: c.expected ?? undefined,
          perSecond: Math.round((count * 1000) / elapsed),
        },
        progressLine(c.resource.name, count, c.expected, elapsed),
      );
    }
  }

  settling(resources: number, ms: number): void {
    if (ms <= 0) return;
    const line = `${resources} mirrored resource${resources === 1 ? ' is' : 's are'} new or changed on the portal: looking again in ${formatDuration(ms)} before copying, so that a table being reloaded is not copied half-loaded`;
    if (this.options.terminal) this.options.terminal.write(`${line}\n`);
    else this.options.logger.info({ resources, settleMs: ms }, line);
  }

  end(outcome: ResourceOutcome): void {
    if (this.lineShown) {
      this.options.terminal?.write('\r\x1b[K');
      this.lineShown = false;
    }
    this.current = null;
    this.outcomes.push(outcome);
  }
}

/** `add`'s live line on a terminal while it reads the file to infer its schema; nothing elsewhere. */
export class InferenceProgress {
  private readonly started = performance.now();
  private shownAt = 0;
  private shown = false;

  constructor(
    private readonly terminal: NodeJS.WriteStream | null,
    private readonly name: string,
  ) {}

  rows(count: number): void {
    if (!this.terminal) return;
    const t = performance.now();
    const elapsed = t - this.started;
    if (elapsed < 1000 || t - this.shownAt < 200) return;
    this.shownAt = t;
    this.terminal.write(
      `\r\x1b[KReading ${this.name} to infer its schema: ${formatCount(count)} rows, ${formatCount((count * 1000) / elapsed)}/s`,
    );
    this.shown = true;
  }

  end(): void {
    if (this.shown) this.terminal?.write('\r\x1b[K');
    this.shown = false;
  }
}

/** A plain-text table: a header row, a rule, and the rows, each column as wide as its widest cell. */
export function textTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  rightAligned: ReadonlySet<number> = new Set(),
): string {
  const widths = header.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => {
        const pad = ' '.repeat(Math.max(0, widths[i]! - [...c].length));
        return rightAligned.has(i) ? pad + c : c + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The end-of-load summary: per resource, what happened, its records, time and rate, and any problem under it. */
export function summaryTable(outcomes: readonly ResourceOutcome[]): string {
  const rows = outcomes.map((o) => {
    const seconds = (o.ms ?? 0) / 1000;
    const rate = o.status === 'loaded' && o.rows !== null && seconds > 0 ? `${formatCount(o.rows / seconds)}/s` : '';
    return [
      o.status,
      o.id,
      o.name,
      o.rows === null ? '' : formatCount(o.rows),
      o.status === 'loaded' ? formatDuration(o.ms ?? 0) : '',
      rate,
    ];
  });
  const table = textTable(['status', 'resource', 'name', 'records', 'time', 'rate'], rows, new Set([3, 4, 5]));
  const notes = outcomes.flatMap((o) => {
    const note = o.error ?? (o.warning ? `warning: ${o.warning}` : null);
    return note ? [`  ${o.id}: ${note}`] : [];
  });
  return notes.length > 0 ? `${table}\n\n${notes.join('\n')}` : table;
}
