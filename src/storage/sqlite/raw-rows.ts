// The reading side of an embedded-store load: a sink that gathers records as read into batches for the writing thread,
// which stores them (./row-encoder.ts), so that the two threads share the work. The records' full-text documents are
// made by whichever thread has time: by the writer, unless it is behind, when this side makes them.

import type { StoredValue } from '../../catalog/values.js';
import type { ResourceSink } from '../load-target.js';
import type { RawRows } from './build-protocol.js';
import { RecordBatches } from './batches.js';

/** Makes a row's full-text document (RowVectorizer.document), and says when the writer is behind. */
export interface DocumentHelp {
  document(values: readonly StoredValue[]): string;
  writerBehind(): boolean;
}

export class RawRowBatcher implements ResourceSink {
  private readonly batches: RecordBatches<RawRows>;
  private records = 0;

  /**
   * `help`: where the writing thread is the slower (a columnar file read quickly, a wide table's documents), each batch
   * begun while it is behind carries its documents, made here; the writer makes the others'. Which thread made a
   * document changes nothing in it.
   */
  constructor(
    send: (batch: RawRows) => void | Promise<void>,
    batchRows = 1000,
    private readonly help: DocumentHelp | null = null,
  ) {
    this.batches = new RecordBatches(
      (): RawRows => (help?.writerBehind() ? { ids: [], rows: [], documents: [] } : { ids: [], rows: [] }),
      send,
      batchRows,
    );
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
    batch.documents?.push(this.help!.document(values));
    return this.batches.added();
  }

  /** Hands on the records not yet sent. */
  flush(): void | Promise<void> {
    return this.batches.flush();
  }
}
