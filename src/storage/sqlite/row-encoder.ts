// Turns a loaded record into the row the embedded store writes: its `_id` and column values (a numeric's exact text
// beside its double where the two differ), and its document in the full-text candidate index. It runs on the writing
// thread of a load (./build-worker.ts), beside the thread that reads and parses the source (./raw-rows.ts).

import type { FieldDefinition, FieldType } from '../../catalog/types.js';
import { numberText, type StoredValue } from '../../catalog/values.js';
import { RowVectorizer } from '../../catalog/row-text.js';
import { RecordNumberer } from '../row-sink.js';
import { RecordBatches } from './batches.js';
import type { EncodedRows, RowFacts } from './build-protocol.js';

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
 * Records written at a time: their rows, then their documents. Writing the two a few thousand at a time, rather than
 * a thousand, takes a third less time (1,000,000 narrow rows: 3.5 s in turns of 1,000, 2.5 s in turns of 5,000 to
 * 20,000): each has the processor's caches to itself for longer.
 */
const WRITE_ROWS = 8192;

/**
 * Encodes each record and hands rows on in batches of `batchRows`; `send` may return a promise, which the encoder
 * passes back to its caller to wait on (back-pressure from the writing thread).
 */
export class SqliteRowEncoder {
  private readonly numeric: number[];
  private readonly types: FieldType[];
  private readonly numberer: RecordNumberer;
  private readonly exactFields = new Set<string>();
  private readonly batches: RecordBatches<EncodedRows>;
  private readonly vectorizer: RowVectorizer;

  constructor(
    private readonly fields: readonly FieldDefinition[],
    fullTextLanguage: string,
    send: (batch: EncodedRows) => void | Promise<void>,
    batchRows = WRITE_ROWS,
  ) {
    this.vectorizer = new RowVectorizer(fullTextLanguage, fields);
    this.batches = new RecordBatches<EncodedRows>(() => ({ rows: [], documents: [] }), send, batchRows);
    this.numeric = fields.flatMap((f, i) => (f.type === 'numeric' ? [i] : []));
    this.types = fields.map((f) => f.type);
    this.numberer = new RecordNumberer(fields);
  }

  /** `document`: the record's full-text document where the reading side made it (see RawRowBatcher). */
  insert(values: readonly StoredValue[], id: number | undefined, document?: string): void | Promise<void> {
    const encoded: (string | number | null)[] = [this.numberer.next(values, id)];
    for (let i = 0; i < values.length; i++) encoded.push(toSqlite(values[i]!, this.types[i]!));
    for (const i of this.numeric) {
      const exact = exactText(values[i]!);
      if (exact !== null) this.exactFields.add(this.fields[i]!.id);
      encoded.push(exact);
    }
    const batch = this.batches.current;
    batch.rows.push(encoded);
    batch.documents.push(document ?? this.vectorizer.document(values));
    return this.batches.added();
  }

  /** Hands on the rows not yet sent. */
  flush(): void | Promise<void> {
    return this.batches.flush();
  }

  facts(): RowFacts {
    return {
      count: this.numberer.count,
      maxId: this.numberer.maxId,
      nullFields: this.numberer.nullFields(),
      quotedFields: this.numberer.quotedFields(),
      exactFields: [...this.exactFields],
    };
  }
}
