// Records on their way between the threads of an embedded-store load, gathered into batches of a set size, each
// handed on whole.

/**
 * The batch records are added to, handed to `send` once it holds `size` records (`rows` has one entry per record);
 * `send` may return a promise, which is passed back for the caller to wait on (back-pressure).
 */
export class RecordBatches<B extends { rows: unknown[] }> {
  private batch: B;

  constructor(
    private readonly fresh: () => B,
    private readonly send: (batch: B) => void | Promise<void>,
    private readonly size: number,
  ) {
    this.batch = fresh();
  }

  /** The batch to add a record to; call `added` after. */
  get current(): B {
    return this.batch;
  }

  /** Hands the batch on if the record just added filled it. */
  added(): void | Promise<void> {
    return this.batch.rows.length >= this.size ? this.flush() : undefined;
  }

  /** Hands on the records not yet sent. */
  flush(): void | Promise<void> {
    if (this.batch.rows.length === 0) return;
    const batch = this.batch;
    this.batch = this.fresh();
    return this.send(batch);
  }
}
