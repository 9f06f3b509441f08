// The reading side of an embedded-store load: a sink that gathers records as read into batches for the writing thread,
// which makes their full-text documents and stores them (./row-encoder.ts), so that the two threads share the work.

import type { StoredValue } from '../../catalog/values.js';
import type { ResourceSink } from '../load-target.js';
import type { RawRows } from './build-protocol.js';
import { RecordBatches } from './batches.js';

const emptyBatch = (): RawRows => ({ ids: [], rows: [] });

export class RawRowBatcher implements ResourceSink {
  private readonly batches: RecordBatches<RawRows>;
  private records = 0;

  constructor(send: (batch: RawRows) => void | Promise<void>, batchRows = 1000) {
    this.batches = new RecordBatches(emptyBatch, send, batchRows);
  }

  get count(): number {
    return this.records;
  }

  insert(values: readonly StoredValue[], id?: number): void | Promise<void> {
    this.records += 1;
    const batch = this.batches.current;
    for (const value of values)
      if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) batch.unusualNumbers = true;
    batch.ids.push(id ?? null);
    batch.rows.push(values);
    return this.batches.added();
  }

  /** Hands on the records not yet sent. */
  flush(): void | Promise<void> {
    return this.batches.flush();
  }
}
