// The reading side of an embedded-store load: a sink that gathers records as read, with their full text (the share of
// the encoding that balances the two threads), into batches for the writing thread.

import type { FieldDefinition } from '../../catalog/types.js';
import type { StoredValue } from '../../catalog/values.js';
import { RowVectorizer } from '../full-text.js';
import type { ResourceSink } from '../load-target.js';
import type { RawRows } from './build-protocol.js';
import { recordText } from './row-encoder.js';

const emptyBatch = (): RawRows => ({ ids: [], values: [], vectors: [], documents: [] });

export class RawRowBatcher implements ResourceSink {
  private batch = emptyBatch();
  private rows = 0;
  private readonly vectorizer: RowVectorizer;

  constructor(
    fields: readonly FieldDefinition[],
    fullTextLanguage: string,
    private readonly send: (batch: RawRows) => void | Promise<void>,
    private readonly batchRows = 250,
  ) {
    this.vectorizer = new RowVectorizer(fullTextLanguage, fields);
  }

  get count(): number {
    return this.rows;
  }

  insert(values: readonly StoredValue[], id?: number): void | Promise<void> {
    this.rows += 1;
    for (const value of values)
      if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0)))
        this.batch.unusualNumbers = true;
    const { vector, document } = recordText(this.vectorizer, values);
    this.batch.ids.push(id ?? null);
    this.batch.values.push(values);
    this.batch.vectors.push(vector);
    this.batch.documents.push(document);
    return this.batch.ids.length >= this.batchRows ? this.flush() : undefined;
  }

  /** Hands on the records not yet sent. */
  flush(): void | Promise<void> {
    if (this.batch.ids.length === 0) return;
    const batch = this.batch;
    this.batch = emptyBatch();
    return this.send(batch);
  }
}
