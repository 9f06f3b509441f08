// A PostgreSQL load's COPY lines made in batches, partly on a helper thread: the same text, in the records' order, as
// made on one thread; a failure to write ends the load's pipeline.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { FieldType } from '../../src/catalog/types.js';
import type { StoredValue } from '../../src/catalog/values.js';
import { CopyLineMaker, CopyLinePipeline, type CopyLineShape } from '../../src/storage/postgres/copy-lines.js';

const TYPES: FieldType[] = ['text', 'numeric', 'int4', 'float8', 'bool', 'date', 'timestamp', 'text'];
const SHAPE: CopyLineShape = { fields: TYPES.map((type) => ({ type })), vectorLanguage: 'english' };

const VALUE: Record<string, fc.Arbitrary<StoredValue>> = {
  text: fc.oneof(fc.string(), fc.constantFrom('tab\there', 'line\nbreak\r', 'back\\slash', 'Dún Laoghaire', '')),
  numeric: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom('12.50', '-0.001')),
  int4: fc.integer({ min: -2147483648, max: 2147483647 }),
  float8: fc.double({ noNaN: true, noDefaultInfinity: true }),
  bool: fc.boolean(),
  date: fc.constantFrom('2020-02-08', '1916-04-24'),
  timestamp: fc.constantFrom('2020-02-08T09:00:00', '2024-11-29T18:30:00.123456'),
};
const ROW = fc.tuple(...TYPES.map((type) => fc.option(VALUE[type]!, { freq: 6 })));

async function throughPipeline(
  rows: StoredValue[][],
  helperAfterRows: number,
): Promise<{ text: string; rows: number }> {
  let text = '';
  let written = 0;
  const pipeline = new CopyLinePipeline(
    SHAPE,
    async (lines, count) => {
      text += lines;
      written += count;
      // A COPY stream that is sometimes full: the pipeline keeps making batches meanwhile.
      if (written % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
    },
    helperAfterRows,
  );
  try {
    for (let i = 0; i < rows.length; i++) {
      const waiting = pipeline.add(rows[i]!, i + 1);
      if (waiting) await waiting;
    }
    await pipeline.end();
  } finally {
    await pipeline.close();
  }
  return { text, rows: written };
}

test('batches made here and on the helper thread give the one thread text, in order', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(ROW, { minLength: 0, maxLength: 9000 }),
      fc.integer({ min: 0, max: 3000 }),
      async (rows, after) => {
        const expected = new CopyLineMaker(SHAPE).lines(
          rows.map((_, i) => i + 1),
          rows,
        );
        const got = await throughPipeline(rows, after);
        assert.equal(got.rows, rows.length);
        assert.equal(got.text, expected);
      },
    ),
    { numRuns: 12 },
  );
});

test('a large resource is made partly on the helper thread, and the text is the same', async () => {
  const rows = fc.sample(ROW, { numRuns: 40_000, seed: 7 });
  const expected = new CopyLineMaker(SHAPE).lines(
    rows.map((_, i) => i + 1),
    rows,
  );
  const got = await throughPipeline(rows, 1);
  assert.equal(got.text, expected);
  assert.equal(got.text.split('\n').length - 1, rows.length);
});

test('a write that fails ends the pipeline with its error, and the helper thread is stopped', async () => {
  const pipeline = new CopyLinePipeline(
    SHAPE,
    async () => {
      throw new Error('the COPY stream failed');
    },
    1,
  );
  const rows = fc.sample(ROW, { numRuns: 5_000, seed: 8 });
  await assert.rejects(async () => {
    for (let i = 0; i < rows.length; i++) await pipeline.add(rows[i]!, i + 1);
    await pipeline.end();
  }, /the COPY stream failed/);
  await pipeline.close();
});
