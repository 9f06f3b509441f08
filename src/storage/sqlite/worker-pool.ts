// A small pool of worker threads for user SQL and long searches on the embedded store: statements queue for a free
// worker; each runs under its deadline, which counts from when it was queued (a statement that waited out its time is
// not started); a worker that overruns it anyway (SQLite busy in a step that calls no function) is ended and replaced.
// While they run, the main thread keeps serving.

import { Worker } from 'node:worker_threads';
import type { CompiledQuery } from '../../dialect/compiled.js';
import { StatementRejected, StatementTimeout, StoreBusy, StoreUnavailable } from '../backend.js';
import type { SqliteExtension } from './connection.js';
import type { WorkerReply, WorkerRequest } from './sql-worker.js';

interface Job {
  request: WorkerRequest;
  /** When its time is up, from when it was queued (performance.now()). */
  deadline: number;
  resolve(rows: unknown[][]): void;
  reject(err: unknown): void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/** How long past its deadline a statement may run before its worker is ended. */
const GRACE_MS = 500;
/** How long a new worker may take to start before its statement is given up. */
const STARTUP_MS = 30_000;
/** Statements waiting beyond this are refused (503): the pool is saturated. */
const MAX_QUEUE = 64;

export class SqlWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly extensions: readonly SqliteExtension[],
    private readonly size: number,
  ) {}

  run(query: CompiledQuery, ms: number): Promise<unknown[][]> {
    if (this.closed) return Promise.reject(new StoreUnavailable('the query workers are stopping'));
    if (this.queue.length >= MAX_QUEUE)
      return Promise.reject(new StoreBusy(`${MAX_QUEUE} queries are already waiting for a worker`));
    return new Promise((resolve, reject) => {
      this.queue.push({
        request: { id: this.nextId++, sql: query.sql, params: query.params as WorkerRequest['params'], ms },
        deadline: performance.now() + ms,
        resolve,
        reject,
      });
      this.dispatch();
    });
  }

  /** Workers running a statement, workers started, and statements waiting for one. */
  get stats(): { busy: number; workers: number; queued: number } {
    return {
      busy: this.slots.filter((s) => s.job !== null).length,
      workers: this.slots.length,
      queued: this.queue.length,
    };
  }

  /** Ends every worker (e.g. when the database file was replaced); new ones open the file afresh. */
  async reset(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((slot) => this.end(slot, new StatementTimeout('the store was reloaded'))));
    this.dispatch();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new StoreUnavailable('the query workers are stopping'));
    await this.reset();
  }

  private spawn(): Slot {
    // A worker holds one statement's rows at a time: a small heap is plenty, and bounds what a runaway statement costs.
    const worker = new Worker(new URL('./sql-worker.js', import.meta.url), {
      workerData: { file: this.file, extensions: this.extensions },
      resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 },
    });
    const slot: Slot = { worker, job: null, timer: null };
    worker.on('message', (reply: WorkerReply) => this.settle(slot, reply));
    worker.on('error', (err) => this.replace(slot, err));
    worker.on('exit', () => this.replace(slot, new StatementTimeout('worker ended')));
    // Idle workers must not keep the process alive.
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      const slot = this.slots.find((s) => s.job === null) ?? (this.slots.length < this.size ? this.spawn() : null);
      if (!slot) return;
      const job = this.queue.shift()!;
      const remaining = Math.floor(job.deadline - performance.now());
      if (remaining <= 0) {
        job.reject(new StatementTimeout('waited out its time for a worker'));
        continue;
      }
      const request = { ...job.request, ms: remaining };
      slot.job = { ...job, request };
      slot.worker.ref();
      // The overrun timer starts with the statement (see `settle`): a worker starting up (its modules, its connection:
      // seconds on a busy machine) is not running late, unless it never starts at all.
      slot.timer = setTimeout(
        () => void this.end(slot, new StatementTimeout('worker did not start')),
        remaining + STARTUP_MS,
      );
      slot.worker.postMessage(request);
    }
  }

  private settle(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (!job || job.request.id !== reply.id) return;
    if ('started' in reply) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = setTimeout(
        () => void this.end(slot, new StatementTimeout('worker overran its deadline')),
        job.request.ms + GRACE_MS,
      );
      return;
    }
    this.idle(slot);
    if ('rows' in reply) job.resolve(reply.rows);
    else if (reply.failure.kind === 'timeout') job.reject(new StatementTimeout());
    else if (reply.failure.kind === 'rejected') {
      job.reject(new StatementRejected(reply.failure.message, { fromPostgres: reply.failure.fromPostgres }));
    } else job.reject(new StatementRejected(reply.failure.message));
    this.dispatch();
  }

  private idle(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    slot.worker.unref();
  }

  private async end(slot: Slot, reason: unknown): Promise<void> {
    const job = slot.job;
    this.idle(slot);
    job?.reject(reason);
    const at = this.slots.indexOf(slot);
    if (at !== -1) this.slots.splice(at, 1);
    slot.worker.removeAllListeners();
    await slot.worker.terminate();
  }

  private replace(slot: Slot, reason: unknown): void {
    if (!this.slots.includes(slot)) return;
    void this.end(slot, reason).then(() => this.dispatch());
  }
}
