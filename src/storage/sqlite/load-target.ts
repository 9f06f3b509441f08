// The embedded store as a load target: a load builds a new database file on a writing thread (./build-worker.ts),
// which encodes and stores the records this thread reads, and a commit renames the file over the served one.

import { Worker } from 'node:worker_threads';
import type { ResourceDefinition } from '../../catalog/types.js';
import type {
  IdRange,
  IndexSession,
  LoadBase,
  LoadSession,
  LoadTarget,
  ResourceLoadRecord,
  ResourceSink,
} from '../load-target.js';
import { StoreWriteLock } from './lock.js';
import { packRows, type BuildStart, type FromWriter, type ResourceShape, type ToWriter } from './build-protocol.js';
import { otherLayoutOfFile, readMetaFromFile } from './meta.js';
import { RawRowBatcher } from './raw-rows.js';
import { RowVectorizer } from '../../catalog/row-text.js';

/** Batches sent and not yet written: enough to keep the writer busy, few enough to bound memory. */
const MAX_BATCHES_IN_FLIGHT = 16;
/** Batches waiting to be written from which the writer counts as behind, and the reading side makes documents. */
const WRITER_BEHIND_BATCHES = MAX_BATCHES_IN_FLIGHT / 2;

type Call = { kind: 'load' | 'patch' | 'keep' | 'index' | 'commit' | 'abort' } & Record<string, unknown>;

/** How long a load waits for the store while another load or an index build writes it. */
const LOAD_LOCK_WAIT_MS = 30 * 60_000;

function shapeOf(resource: ResourceDefinition): ResourceShape {
  return { id: resource.id, fields: resource.fields, indexes: resource.indexes };
}

/** One load session's writing thread, and the calls and row batches sent to it. */
class WriterThread {
  private readonly worker: Worker;
  private nextSeq = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  private inFlight = 0;
  private wakeSender: (() => void) | null = null;
  private failure: Error | null = null;

  constructor(start: BuildStart) {
    this.worker = new Worker(new URL('./build-worker.js', import.meta.url), { workerData: start });
    this.worker.on('message', (message: FromWriter) => this.received(message));
    this.worker.on('error', (err) => this.stop(err));
    this.worker.on('exit', (code) => this.stop(new Error(`the database writer stopped (exit code ${code})`)));
  }

  call<T>(message: Call): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.nextSeq++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(seq, { resolve: resolve as (value: unknown) => void, reject });
      this.post({ ...message, seq } as ToWriter);
    });
  }

  post(message: ToWriter): void {
    this.worker.postMessage(message);
  }

  get behind(): boolean {
    return this.inFlight >= WRITER_BEHIND_BATCHES;
  }

  /** Sends a batch of rows; resolves once few enough are waiting to be written. */
  sendRows(message: Extract<ToWriter, { kind: 'rows' }>): void | Promise<void> {
    if (this.failure) throw this.failure;
    this.post(message);
    this.inFlight += 1;
    if (this.inFlight < MAX_BATCHES_IN_FLIGHT) return;
    return new Promise((resolve) => {
      this.wakeSender = resolve;
    });
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private received(message: FromWriter): void {
    if (message.kind === 'written') {
      this.inFlight -= 1;
      this.wake();
      return;
    }
    const call = this.pending.get(message.seq);
    this.pending.delete(message.seq);
    if (message.kind === 'done') call?.resolve(message.value);
    else call?.reject(new Error(message.message));
  }

  private wake(): void {
    if (this.wakeSender && (this.inFlight < MAX_BATCHES_IN_FLIGHT || this.failure)) {
      const wake = this.wakeSender;
      this.wakeSender = null;
      wake();
    }
  }

  private stop(err: Error): void {
    this.failure ??= err;
    for (const call of this.pending.values()) call.reject(this.failure);
    this.pending.clear();
    this.wake();
  }
}

export class SqliteLoadTarget implements LoadTarget {
  constructor(private readonly file: string) {}

  async readMeta() {
    return readMetaFromFile(this.file);
  }

  async otherLayout() {
    return otherLayoutOfFile(this.file);
  }

  async begin(fullTextLanguage: string): Promise<LoadSession> {
    const lock = await StoreWriteLock.acquire(this.file, LOAD_LOCK_WAIT_MS);
    let writer: WriterThread;
    try {
      const served = readMetaFromFile(this.file);
      const base = served && served.fullTextLanguage === fullTextLanguage ? this.file : null;
      writer = new WriterThread({ finalPath: this.file, fullTextLanguage, base });
    } catch (err) {
      lock.release();
      throw err;
    }

    /**
     * Runs `fill` into batches of records sent to the writer, beside the writer's `call`. The call's own error
     * (a failed write) is the one reported; a failure of `fill` is sent on so the writer rolls the resource back.
     */
    const fed = async <T>(
      resource: ResourceDefinition,
      base: LoadBase,
      started: Promise<T>,
      fill: (sink: ResourceSink) => Promise<void>,
    ): Promise<T> => {
      let written: Error | null = null;
      started.catch((err: Error) => {
        written = err;
      });
      const vectorizer = new RowVectorizer(fullTextLanguage, resource.fields);
      const batcher = new RawRowBatcher(
        (batch) => {
          if (written) throw written;
          return writer.sendRows({ kind: 'rows', packed: packRows(batch) });
        },
        undefined,
        { document: (values) => vectorizer.document(values), writerBehind: () => writer.behind },
      );
      try {
        await fill(batcher);
        await batcher.flush();
      } catch (err) {
        // A failed write makes the next batch throw it: then the writer's error is the cause, else the fill's own.
        const cause = written ?? err;
        writer.post({ kind: 'fail', message: (err as Error).message });
        await started.catch(() => {});
        throw cause;
      }
      writer.post({ kind: 'end', base });
      return started;
    };

    let closed = false;
    const close = async () => {
      closed = true;
      try {
        await writer.close();
      } finally {
        lock.release();
      }
    };

    return {
      keep: (resource, record) => writer.call({ kind: 'keep', resource: shapeOf(resource), record }),
      load: (resource, base, fill) =>
        fed(resource, base, writer.call<ResourceLoadRecord>({ kind: 'load', resource: shapeOf(resource), base }), fill),
      patch: (resource, base, previous, ranges: readonly IdRange[], fill) =>
        fed(
          resource,
          base,
          writer.call<ResourceLoadRecord>({ kind: 'patch', resource: shapeOf(resource), base, previous, ranges }),
          fill,
        ),
      // A failed commit leaves the writer running, so that the abort that follows removes the unfinished file.
      commit: async (publication) => {
        await writer.call({ kind: 'commit', publication });
        await close();
      },
      abort: async () => {
        if (closed) return;
        try {
          await writer.call({ kind: 'abort' });
        } finally {
          await close();
        }
      },
    };
  }

  /**
   * Index builds write a new file too (a copy of the served one with the indexes added, renamed over it like a load's,
   * with the same dataset version): on the writing thread, so that a serving process's event loop is never held.
   */
  async beginIndexing(): Promise<IndexSession | null> {
    const lock = StoreWriteLock.tryAcquire(this.file);
    if (!lock) return null;
    const served = readMetaFromFile(this.file);
    if (!served) {
      lock.release();
      return null;
    }
    const writer = new WriterThread({
      finalPath: this.file,
      fullTextLanguage: served.fullTextLanguage,
      base: this.file,
    });
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      try {
        await writer.close();
      } finally {
        lock.release();
      }
    };
    const indexed = new Set<string>();
    return {
      index: async (resource, record, specs) => {
        indexed.add(resource.id);
        return writer.call<ResourceLoadRecord>({ kind: 'index', resource: shapeOf(resource), record, specs });
      },
      commit: async () => {
        try {
          // Every other resource is kept as it is; a build that indexed nothing publishes nothing.
          if (indexed.size > 0) {
            for (const record of served.resources.values())
              if (!indexed.has(record.id))
                await writer.call({ kind: 'keep', resource: { id: record.id, fields: [], indexes: [] }, record });
            await writer.call({
              kind: 'commit',
              publication: { datasetVersion: served.datasetVersion, catalog: served.catalog },
            });
          } else await writer.call({ kind: 'abort' });
        } finally {
          await close();
        }
      },
      abort: async () => {
        if (closed) return;
        try {
          await writer.call({ kind: 'abort' });
        } finally {
          await close();
        }
      },
    };
  }

  async close(): Promise<void> {}
}
