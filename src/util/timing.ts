// Where a request's time goes, stage by stage (parse, plan, query, count, serialise), for the Server-Timing header:
// each stage is marked when it ends, so a stage's time is the time since the mark before it.

/** Milliseconds to the microsecond, as `dur` is written (toFixed costs enough to show on every answer). */
export function durationText(ms: number): string {
  return String(Math.round(ms * 1000) / 1000);
}

export class StageTimings {
  private last: number;
  private readonly stages: [string, number][] = [];

  constructor(private readonly started = performance.now()) {
    this.last = started;
  }

  /** Ends the stage now: it took the time since the previous mark. */
  mark(stage: string): void {
    const now = performance.now();
    this.stages.push([stage, now - this.last]);
    this.last = now;
  }

  /** How many stages have been marked. */
  get count(): number {
    return this.stages.length;
  }

  /** Milliseconds since the request began. */
  get elapsed(): number {
    return performance.now() - this.started;
  }

  /** The Server-Timing header: each stage and the total, in milliseconds (PostgREST's form). */
  header(extra: string[] = []): string {
    let text = '';
    for (const part of extra) text += `${part}, `;
    for (const [name, ms] of this.stages) text += `${name};dur=${durationText(ms)}, `;
    return `${text}total;dur=${durationText(this.elapsed)}`;
  }
}
