// A load's records as lines of COPY's text format (`_id`, the values, then the row's full-text vector where the loader
// makes it), made in batches: on this thread, and past a resource's first records also on a helper thread
// (./copy-worker.ts), so that parsing the file and making the lines (vectors are most of a load's CPU) share two cores.

import { Worker } from 'node:worker_threads';
import { RowVectorizer, type RowTextField } from '../../catalog/row-text.js';
import type { FieldType } from '../../catalog/types.js';
import type { StoredValue } from '../../catalog/values.js';
import { tsvectorToString } from '../../text-search/index.js';
import { valueText } from './value-text.js';

const NEEDS_ESCAPE = /[\\\t\n\r]/;

/** One value in COPY's text format: \N for null, backslash escapes for the characters the format uses. */
function copyValue(value: StoredValue, type: FieldType): string {
  const text = valueText(value, type);
  if (text === null) return '\\N';
  // A number's or a boolean's text never holds a character the format uses.
  if (typeof value !== 'string' || !NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** What making a resource's lines needs: its fields' types, and the vectors' language (null: PostgreSQL makes them). */
export interface CopyLineShape {
  fields: RowTextField[];
  vectorLanguage: string | null;
}

/** Makes the lines of batches of one resource's records. */
export class CopyLineMaker {
  private readonly types: FieldType[];
  private readonly vectorizer: RowVectorizer | null;

  constructor(shape: CopyLineShape) {
    this.types = shape.fields.map((f) => f.type);
    this.vectorizer = shape.vectorLanguage === null ? null : new RowVectorizer(shape.vectorLanguage, shape.fields);
  }

  lines(ids: readonly number[], rows: readonly (readonly StoredValue[])[]): string {
    const { types, vectorizer } = this;
    let text = '';
    for (let r = 0; r < rows.length; r++) {
      const values = rows[r]!;
      let line = String(ids[r]);
      for (let i = 0; i < values.length; i++) line += '\t' + copyValue(values[i]!, types[i]!);
      if (vectorizer) line += '\t' + copyValue(tsvectorToString(vectorizer.vector(values)), 'text');
      text += line + '\n';
    }
    return text;
  }
}

/** A batch sent to the helper thread, and its answer. */
export interface CopyLinesRequest {
  seq: number;
  ids: number[];
  rows: StoredValue[][];
}
export type CopyLinesReply = { seq: number; lines: string } | { seq: number; error: string };

/** The helper thread of one resource's load: batches in, their lines out. */
class CopyLineHelper {
  private readonly worker: Worker;
  private nextSeq = 1;
  private readonly pending = new Map<number, { resolve: (lines: string) => void; reject: (err: Error) => void }>();
  private failure: Error | null = null;

  constructor(shape: CopyLineShape) {
    this.worker = new Worker(new URL('./copy-worker.js', import.meta.url), { workerData: shape });
    this.worker.on('message', (reply: CopyLinesReply) => {
      const call = this.pending.get(reply.seq);
      this.pending.delete(reply.seq);
      if ('lines' in reply) call?.resolve(reply.lines);
      else call?.reject(new Error(reply.error));
    });
    this.worker.on('error', (err) => this.stop(err));
    this.worker.on('exit', (code) => this.stop(new Error(`the COPY line maker stopped (exit code ${code})`)));
  }

  /** Batches sent and not yet answered. */
  get waiting(): number {
    return this.pending.size;
  }

  lines(ids: number[], rows: StoredValue[][]): Promise<string> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.nextSeq++;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      this.worker.postMessage({ seq, ids, rows } satisfies CopyLinesRequest);
    });
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private stop(err: Error): void {
    this.failure ??= err;
    for (const call of this.pending.values()) call.reject(this.failure);
    this.pending.clear();
  }
}

/** Batches the helper may have in hand: one being made, one waiting, so that it is never idle for want of work. */
const HELPER_AHEAD = 2;
/** Batches made or being made and not yet written: bounds the memory a slow COPY can make the load hold. */
const MOST_QUEUED = 8;
/** About this many characters of values to a batch (at least 16 records, at most 1,000). */
const BATCH_VALUES = 16_000;

/**
 * Gathers a resource's records into batches and hands on their lines in the records' order. A batch's lines are made
 * by the helper thread when it has fewer than HELPER_AHEAD in hand, else here: neither thread waits for the other, and
 * each makes what it has time for. Small resources (up to `helperAfterRows` records) never start the helper.
 */
export class CopyLinePipeline {
  private readonly maker: CopyLineMaker;
  private readonly batchRows: number;
  private helper: CopyLineHelper | null = null;
  private ids: number[] = [];
  private rows: StoredValue[][] = [];
  private batched = 0;
  private readonly queue: { rows: number; lines: string | null; made: Promise<string> | null }[] = [];

  constructor(
    private readonly shape: CopyLineShape,
    private readonly write: (lines: string, rows: number) => Promise<void>,
    private readonly helperAfterRows: number,
  ) {
    this.maker = new CopyLineMaker(shape);
    this.batchRows = Math.min(1000, Math.max(16, Math.floor(BATCH_VALUES / Math.max(1, shape.fields.length))));
  }

  add(values: readonly StoredValue[], id: number): void | Promise<void> {
    this.ids.push(id);
    this.rows.push(values as StoredValue[]);
    if (this.rows.length >= this.batchRows) return this.send();
  }

  /** Writes every record added. */
  async end(): Promise<void> {
    if (this.rows.length > 0) this.queueBatch();
    await this.pass(0);
  }

  /** Stops the helper thread (after end, or when the load gives up). */
  async close(): Promise<void> {
    const helper = this.helper;
    this.helper = null;
    await helper?.close();
  }

  private send(): Promise<void> {
    this.queueBatch();
    return this.pass(MOST_QUEUED);
  }

  private queueBatch(): void {
    const { ids, rows } = this;
    this.ids = [];
    this.rows = [];
    this.batched += rows.length;
    if (!this.helper && this.helperAfterRows > 0 && this.batched > this.helperAfterRows)
      this.helper = new CopyLineHelper(this.shape);
    if (this.helper && this.helper.waiting < HELPER_AHEAD) {
      const entry: (typeof this.queue)[number] = { rows: rows.length, lines: null, made: null };
      entry.made = this.helper.lines(ids, rows).then((lines) => (entry.lines = lines));
      // Read when the entry is written; a failure meanwhile must not go unhandled.
      entry.made.catch(() => {});
      this.queue.push(entry);
    } else this.queue.push({ rows: rows.length, lines: this.maker.lines(ids, rows), made: null });
  }

  /** Writes the batches made, in order, and waits for those before them until at most `most` are queued. */
  private async pass(most: number): Promise<void> {
    while (this.queue.length > 0 && (this.queue.length > most || this.queue[0]!.lines !== null)) {
      const entry = this.queue.shift()!;
      const lines = entry.lines ?? (await entry.made!);
      await this.write(lines, entry.rows);
    }
  }
}
