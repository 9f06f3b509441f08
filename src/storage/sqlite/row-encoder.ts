// Turns a loaded record into the row the embedded store writes: its column values, the JSON object and CSV line served
// for it, its tsvector and its full-text document. It runs on the writing thread of a load (./build-worker.ts), beside
// the thread that reads and parses the source.

import type { FieldDefinition, FieldType } from '../../catalog/types.js';
import { numberText, type StoredValue } from '../../catalog/values.js';
import { tsvectorToString } from '../../text-search/index.js';
import { ftsDocument, RowVectorizer } from '../full-text.js';
import type { ResourceSink } from '../load-target.js';
import { RecordRenderer } from '../row-sink.js';
import { RecordBatches } from './batches.js';
import type { EncodedRows, RowFacts } from './build-protocol.js';

/** A record's tsvector, as stored text, and its full-text index document. */
export interface RecordText {
  vector: string;
  document: string;
}

export function recordText(vectorizer: RowVectorizer, values: readonly StoredValue[]): RecordText {
  const vector = vectorizer.vector(values);
  return { vector: tsvectorToString(vector), document: ftsDocument(vector) };
}

function toSqlite(value: StoredValue, type: FieldType): string | number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  // Bound as the double itself: SQLite's own text-to-real conversion keeps only 15 significant digits.
  if (type === 'numeric' && typeof value === 'string') return Number(value);
  return value;
}

/** A numeric's exact text where its double's shortest digits are not that text; null where they are. */
function exactText(value: StoredValue): string | null {
  return typeof value === 'string' && numberText(Number(value), 'numeric') !== value ? value : null;
}

/**
 * A sink that encodes each record and hands rows on in batches of `batchRows`; `send` may return a promise, which the
 * sink passes back to its caller to wait on (back-pressure from the writing thread).
 */
export class SqliteRowEncoder implements ResourceSink {
  private readonly numeric: number[];
  private readonly types: FieldType[];
  private readonly vectorizer: RowVectorizer;
  private readonly renderer: RecordRenderer;
  private readonly exactFields = new Set<string>();
  private readonly batches: RecordBatches<EncodedRows>;

  constructor(
    private readonly fields: readonly FieldDefinition[],
    fullTextLanguage: string,
    send: (batch: EncodedRows) => void | Promise<void>,
    batchRows = 1000,
  ) {
    this.batches = new RecordBatches<EncodedRows>(() => ({ rows: [], documents: [] }), send, batchRows);
    this.numeric = fields.flatMap((f, i) => (f.type === 'numeric' ? [i] : []));
    this.types = fields.map((f) => f.type);
    this.vectorizer = new RowVectorizer(fullTextLanguage, fields);
    this.renderer = new RecordRenderer(fields);
  }

  get count(): number {
    return this.renderer.count;
  }

  /** `text`: the record's full text, where the reading thread already made it (see RawRowBatcher). */
  insert(values: readonly StoredValue[], id?: number, text?: RecordText): void | Promise<void> {
    const record = this.renderer.next(values, id);
    const { vector, document } = text ?? recordText(this.vectorizer, values);
    const encoded: (string | number | null)[] = [record.id];
    for (let i = 0; i < values.length; i++) encoded.push(toSqlite(values[i]!, this.types[i]!));
    encoded.push(record.json, record.csv, vector);
    for (const i of this.numeric) {
      const exact = exactText(values[i]!);
      if (exact !== null) this.exactFields.add(this.fields[i]!.id);
      encoded.push(exact);
    }
    const batch = this.batches.current;
    batch.rows.push(encoded);
    batch.documents.push(document);
    return this.batches.added();
  }

  /** Hands on the rows not yet sent. */
  flush(): void | Promise<void> {
    return this.batches.flush();
  }

  facts(): RowFacts {
    return {
      count: this.renderer.count,
      maxId: this.renderer.maxId,
      nullFields: this.renderer.nullFields(),
      exactFields: [...this.exactFields],
    };
  }
}
