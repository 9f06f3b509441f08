// The two threads of an embedded-store load share the making of full-text documents: a batch carries its documents
// when the reading side made them, and the rows the writer stores are the same whichever side did.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { FieldDefinition } from '../../src/catalog/types.js';
import type { StoredValue } from '../../src/catalog/values.js';
import { RowVectorizer } from '../../src/catalog/row-text.js';
import { packRows, unpackRows, type EncodedRows, type RawRows } from '../../src/storage/sqlite/build-protocol.js';
import { RawRowBatcher } from '../../src/storage/sqlite/raw-rows.js';
import { SqliteRowEncoder } from '../../src/storage/sqlite/row-encoder.js';

const FIELDS: FieldDefinition[] = [
  { id: 'date', type: 'timestamp', column: 'date', format: 'ISO', index: false },
  { id: 'delay', type: 'int4', column: 'delay', format: 'ISO', index: false },
  { id: 'votes', type: 'numeric', column: 'votes', format: 'ISO', index: false },
  { id: 'origin', type: 'text', column: 'origin', format: 'ISO', index: false },
];

const row = fc.tuple(
  fc.constantFrom('2001-01-13T14:56:00', '1999-12-31T23:59:59.5', null),
  fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constant(null)),
  fc.oneof(fc.constantFrom('1.50', '0.1', '-7', '12345678901234567890'), fc.constant(null)),
  fc.oneof(fc.constantFrom('Dún Laoghaire', 'LAS', '<b>bold</b> claims', 'the running of the counts', ''), fc.string()),
) as fc.Arbitrary<StoredValue[]>;

/** The rows and documents the writer stores for `batches` as they crossed from the reading side. */
function written(batches: RawRows[]): EncodedRows {
  const out: EncodedRows = { rows: [], documents: [] };
  const encoder = new SqliteRowEncoder(FIELDS, 'english', (batch) => {
    out.rows.push(...batch.rows);
    out.documents.push(...batch.documents);
  });
  for (const packed of batches.map(packRows)) {
    const { ids, rows, documents } = unpackRows(packed);
    for (let i = 0; i < rows.length; i++) void encoder.insert(rows[i]!, ids[i] ?? undefined, documents?.[i]);
  }
  void encoder.flush();
  return out;
}

function read(rows: StoredValue[][], behind: (batch: number) => boolean): RawRows[] {
  const vectorizer = new RowVectorizer('english', FIELDS);
  const sent: RawRows[] = [];
  let batches = 0;
  const batcher = new RawRowBatcher((batch) => void sent.push(batch), 3, {
    document: (values) => vectorizer.document(values),
    writerBehind: () => behind(batches++),
  });
  for (const values of rows) void batcher.insert(values);
  void batcher.flush();
  return sent;
}

describe('embedded load: documents made on either thread', () => {
  test('a batch begun while the writer is behind carries its documents; the others do not', () => {
    const rows: StoredValue[][] = [
      ['2001-01-13T14:56:00', 33, '1.50', 'LAS'],
      ['2001-01-13T15:00:00', -4, null, 'Dún Laoghaire'],
      [null, null, '0.1', ''],
      ['2001-01-14T09:30:05.5', 0, '-7', 'PHL'],
    ];
    const sent = read(rows, (batch) => batch === 0);
    assert.deepEqual(
      sent.map((b) => b.documents),
      [
        [
          new RowVectorizer('english', FIELDS).document(rows[0]!),
          new RowVectorizer('english', FIELDS).document(rows[1]!),
          new RowVectorizer('english', FIELDS).document(rows[2]!),
        ],
        undefined,
      ],
    );
    assert.deepEqual(unpackRows(packRows(sent[0]!)).documents, sent[0]!.documents);
    assert.equal(unpackRows(packRows(sent[1]!)).documents, undefined);
  });

  test('the writer stores the same rows and documents whichever thread made them', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 20 }), fc.func(fc.boolean()), (rows, behind) => {
        const byWriter = written(read(rows, () => false));
        assert.deepEqual(written(read(rows, (batch) => behind(batch))), byWriter);
        assert.deepEqual(written(read(rows, () => true)), byWriter);
        assert.equal(byWriter.rows.length, rows.length);
      }),
      { numRuns: 300 },
    );
  });
});
