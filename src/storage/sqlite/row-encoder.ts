// Turns a loaded record into the row the embedded store writes: its column values, the JSON object and CSV line served
// for it, and the tsvector and full-text document the reading thread made (./raw-rows.ts). It runs on the writing
// thread of a load (./build-worker.ts), beside the thread that reads and parses the source.

import type { FieldDefinition, FieldType } from '../../catalog/types.js';
import { numberText, type StoredValue } from '../../catalog/values.js';
import { RecordRenderer } from '../row-sink.js';
import { RecordBatches } from './batches.js';
import type { EncodedRows, RowFacts } from './build-protocol.js';
import type { RecordText } from './raw-rows.js';

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
 * Encodes each record and hands rows on in batches of `batchRows`; `send` may return a promise, which the encoder
 * passes back to its caller to wait on (back-pressure from the writing thread).
 */
export class SqliteRowEncoder {
  private readonly numeric: number[];
  private readonly types: FieldType[];
  private readonly renderer: RecordRenderer;
  private readonly exactFields = new Set<string>();
  private readonly batches: RecordBatches<EncodedRows>;

  constructor(
    private readonly fields: readonly FieldDefinition[],
    send: (batch: EncodedRows) => void | Promise<void>,
    batchRows = 1000,
  ) {
    this.batches = new RecordBatches<EncodedRows>(() => ({ rows: [], documents: [] }), send, batchRows);
    this.numeric = fields.flatMap((f, i) => (f.type === 'numeric' ? [i] : []));
    this.types = fields.map((f) => f.type);
    this.renderer = new RecordRenderer(fields);
  }

  /** `text`: the record's full text, which the reading thread made (see RawRowBatcher). */
  insert(values: readonly StoredValue[], id: number | undefined, text: RecordText): void | Promise<void> {
    const record = this.renderer.next(values, id);
    const { vector, document } = text;
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
