// Which statements run on the event loop and which go straight to a query worker: a statement (by its text) that
// outran the loop's budget is sent to a worker for its next runs, then tried on the loop again.

import { BoundedCache } from '../../util/bounded-cache.js';

/** A statement that keeps outrunning the budget is tried on the event loop again once in 2^6 runs. */
const MOST_RUNS_ON_WORKER_LOG2 = 6;

/**
 * One overrun is often one cold read or one unusual value, while a statement's text is shared by every value it is
 * asked with: so a statement goes to a worker for 2 runs after its first overrun, 4 after its second in a row, … up to
 * 64, and is forgotten once it keeps to the budget. One that is always slow costs the loop one budget per 64 runs.
 */
export class OverrunMemory {
  private readonly statements: BoundedCache<string, { overruns: number; onWorker: number }>;

  constructor(capacity: number) {
    this.statements = new BoundedCache(capacity);
  }

  /** Whether this run of `sql` is tried on the event loop (false: it goes to a worker, and is counted down). */
  tryOnLoop(sql: string): boolean {
    const memory = this.statements.get(sql);
    if (!memory || memory.onWorker === 0) return true;
    memory.onWorker -= 1;
    return false;
  }

  /** A run of `sql` on the loop kept to the budget. */
  kept(sql: string): void {
    this.statements.delete(sql);
  }

  /** A run of `sql` on the loop outran the budget. */
  overran(sql: string): void {
    const overruns = (this.statements.get(sql)?.overruns ?? 0) + 1;
    this.statements.set(sql, { overruns, onWorker: 2 ** Math.min(overruns, MOST_RUNS_ON_WORKER_LOG2) });
  }
}
