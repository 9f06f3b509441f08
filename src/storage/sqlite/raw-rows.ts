// The reading side of an embedded-store load: a sink that gathers records as read, with their full text (the share of
// the encoding that balances the two threads), into batches for the writing thread.

import type { FieldDefinition } from '../../catalog/types.js';
import type { StoredValue } from '../../catalog/values.js';
import { tsvectorToString } from '../../text-search/index.js';
import { ftsDocument, RowVectorizer } from '../full-text.js';
import type { ResourceSink } from '../load-target.js';
import type { RawRows } from './build-protocol.js';
import { RecordBatches } from './batches.js';

/** A record's tsvector, as stored text, and its full-text index document. */
export interface RecordText {
  vector: string;
  document: string;
}

export function recordText(vectorizer: RowVectorizer, values: readonly StoredValue[]): RecordText {
  const vector = vectorizer.vector(values);
  return { vector: tsvectorToString(vector), document: ftsDocument(vector) };
}

const emptyBatch = (): RawRows => ({ ids: [], values: [], vectors: [], documents: [] });

export class RawRowBatcher implements ResourceSink {
  private readonly batches: RecordBatches<RawRows>;
  private rows = 0;
  private readonly vectorizer: RowVectorizer;

  constructor(
    fields: readonly FieldDefinition[],
    fullTextLanguage: string,
    send: (batch: RawRows) => void | Promise<void>,
    batchRows = 250,
  ) {
    this.batches = new RecordBatches(emptyBatch, send, batchRows);
    this.vectorizer = new RowVectorizer(fullTextLanguage, fields);
  }

  get count(): number {
    return this.rows;
  }

  insert(values: readonly StoredValue[], id?: number): void | Promise<void> {
    this.rows += 1;
    const batch = this.batches.current;
    for (const value of values)
      if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) batch.unusualNumbers = true;
    const { vector, document } = recordText(this.vectorizer, values);
    batch.ids.push(id ?? null);
    batch.values.push(values);
    batch.vectors.push(vector);
    batch.documents.push(document);
    return this.batches.added();
  }

  /** Hands on the records not yet sent. */
  flush(): void | Promise<void> {
    return this.batches.flush();
  }
}
