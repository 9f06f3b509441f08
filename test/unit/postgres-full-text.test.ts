// The `_full_text` a load sends PostgreSQL, made by the loader from each row's values (src/catalog/row-text.ts), equals
// what PostgreSQL itself computes from the stored row: to_tsvector of the values' text (to_char for dates and
// timestamps) joined by spaces, folded. On rows built to stress it: every field type, NULLs, accents and combining
// marks, markup, dates before the common era and after 9999. Live, against 127.0.0.1:5432; skipped when none answers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import pg from 'pg';
import type { FieldDefinition, FieldType, ResourceDefinition } from '../../src/catalog/types.js';
import type { StoredValue } from '../../src/catalog/values.js';
import { RowVectorizer } from '../../src/catalog/row-text.js';
import { createGenerationTableSql, schemaSetupSql } from '../../src/dialect/postgres/ddl.js';
import { qualified, quoteIdent } from '../../src/dialect/postgres/quote.js';
import { tsvectorToString } from '../../src/text-search/index.js';
import { livePostgres } from '../helpers/service.js';

const SCHEMA = `cc_full_text_test_${process.pid}`;

function field(id: string, type: FieldType): FieldDefinition {
  return { id, type, column: id, format: 'ISO', index: false };
}

function resource(id: string, fields: FieldDefinition[]): ResourceDefinition {
  return { id, name: id, description: '', datasetName: 'd', source: {} as never, fields, indexes: [], role: null };
}

/** PostgreSQL's own `_full_text` of a stored row, with the helper functions earlier layouts computed it with. */
function referenceSql(fields: readonly FieldDefinition[], language: string): string {
  const s = quoteIdent(SCHEMA);
  const parts = fields.map((f) => {
    const c = quoteIdent(f.id);
    switch (f.type) {
      case 'text':
        return c;
      case 'timestamp':
        return `${s}.countcentre_timestamp_text(${c})`;
      case 'date':
        return `${s}.countcentre_date_text(${c})`;
      case 'bool':
        return `CASE WHEN ${c} THEN 'true' WHEN NOT ${c} THEN 'false' END`;
      default:
        return `${c}::text`;
    }
  });
  return `to_tsvector('${language}'::regconfig, ${s}.countcentre_fold(${s}.countcentre_document(${parts.join(', ')})))`;
}

const TEXTS = [
  'Fianna Fáil',
  'Ó Broin',
  'Fe\u0301in',
  '\u0301leading mark',
  'straße Æ œ Ø þ',
  '<b>bold</b> <a href="x',
  'y">z',
  '',
  ' ',
  'the and of',
  '1-2 -5 +5 .5 1.5e3',
  'a@b.ie http://x.ie/a?b=1',
  'ΣΊΣΥΦΟΣ 日本語 🙂',
  'tab\there new\nline',
  "O'Brien O’Brien",
  // Values the fold treats apart: a mark that NFD puts first (U+1DCD has a higher combining class than U+0301), a
  // letter that decomposes to two marks, Greek, Hangul jamo that compose, and marks after a non-ASCII letter.
  '\u1dcd\u0301x',
  '\u0344z',
  'Ωmega ώ',
  '\u1100\u1161 \u1161',
  'e\u0301\u0316 ø\u0301',
];

const text = fc.oneof(
  fc.constantFrom(...TEXTS),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);
// Dates from 4713 BC (PostgreSQL's first) to 294276 AD (its last timestamp), as days from 1970-01-01.
const day = fc.integer({ min: -2_440_587, max: 106_751_991 });
const micros = fc.integer({ min: 0, max: 86_400_000_000 - 1 });

const FIELDS = [
  field('name', 'text'),
  field('votes', 'int4'),
  field('big', 'int8'),
  field('share', 'float8'),
  field('exact', 'numeric'),
  field('won', 'bool'),
  field('polled', 'date'),
  field('counted', 'timestamp'),
  field('note', 'text'),
];

const row = fc.tuple(
  fc.option(text, { nil: null }),
  fc.option(fc.integer(), { nil: null }),
  // A load holds int8 values as exact doubles: within ±(2^53 − 1), what it accepts.
  fc.option(fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }), { nil: null }),
  fc.option(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0.1, 1e15, 1e-5, -0)), {
    nil: null,
  }),
  fc.option(fc.constantFrom('12.50', '0', '-7', '123456789012345678901234.5', '1e3', '0.000'), { nil: null }),
  fc.option(fc.boolean(), { nil: null }),
  fc.option(day, { nil: null }),
  fc.option(fc.tuple(day, micros), { nil: null }),
  fc.option(text, { nil: null }),
);

const connect = livePostgres({
  setup: async (client) => {
    await client.query(`CREATE SCHEMA ${quoteIdent(SCHEMA)}`);
    for (const sql of schemaSetupSql({ data: SCHEMA, public: SCHEMA }, 'countcentre_reader'))
      if (sql.startsWith('CREATE OR REPLACE FUNCTION')) await client.query(sql);
  },
  teardown: async (client) => {
    await client.query(`DROP SCHEMA ${quoteIdent(SCHEMA)} CASCADE`);
  },
});

/** Loads `rows` into a table made as a load makes it, and returns the rows whose _full_text is not the reference. */
async function mismatches(
  client: pg.Client,
  table: string,
  fields: FieldDefinition[],
  language: string,
  rows: readonly (readonly unknown[])[],
): Promise<unknown[]> {
  const definition = resource(table, fields);
  for (const sql of createGenerationTableSql(SCHEMA, table, definition, language)) await client.query(sql);
  const target = qualified(SCHEMA, table);
  const columns = ['_id', ...fields.map((f) => f.id)].map(quoteIdent).join(', ');
  const values = fields.map((f, i) => {
    const p = `$${i + 2}`;
    if (f.type === 'date') return `date '1970-01-01' + ${p}::integer`;
    if (f.type === 'timestamp') return `timestamp '1970-01-01' + ${p}::text::interval`;
    return `${p}::${f.type === 'int4' ? 'integer' : f.type === 'int8' ? 'bigint' : f.type === 'float8' ? 'double precision' : f.type === 'bool' ? 'boolean' : f.type}`;
  });
  const insert = `INSERT INTO ${target} (${columns}) VALUES ($1, ${values.join(', ')})`;
  for (const [i, r] of rows.entries()) await client.query(insert, [i + 1, ...r]);
  // Each row's values as a load holds them (dates and timestamps as ISO text, numerics as their exact text, numbers as
  // numbers), made into the vector the loader sends.
  const s = quoteIdent(SCHEMA);
  const asLoaded = fields.map((f) => {
    const c = quoteIdent(f.id);
    if (f.type === 'date') return `${s}.countcentre_date_text(${c})`;
    if (f.type === 'timestamp') return `${s}.countcentre_timestamp_text(${c})`;
    return f.type === 'numeric' || f.type === 'int8' ? `${c}::text` : c;
  });
  const stored = await client.query({ text: `SELECT _id, ${asLoaded.join(', ')} FROM ${target}`, rowMode: 'array' });
  const vectorizer = new RowVectorizer(language, fields);
  for (const [id, ...cells] of stored.rows as unknown[][]) {
    const values = cells.map((cell, i): StoredValue => {
      if (cell === null) return null;
      const type = fields[i]!.type;
      return type === 'int8' ? Number(cell) : (cell as StoredValue);
    });
    await client.query(`UPDATE ${target} SET _full_text = $2::tsvector WHERE _id = $1`, [
      id,
      tsvectorToString(vectorizer.vector(values)),
    ]);
  }
  const result = await client.query(
    `SELECT _id, _full_text::text AS sent, (${referenceSql(fields, language)})::text AS reference FROM ${target} ` +
      `WHERE _full_text IS DISTINCT FROM ${referenceSql(fields, language)} ORDER BY _id`,
  );
  const count = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${target}`);
  assert.equal(Number(count.rows[0]!.n), rows.length);
  return result.rows;
}

/** A generated row as query parameters: dates as days, timestamps as an interval from 1970. */
function parameters(r: unknown[]): unknown[] {
  return r.map((v, i) => {
    if (v === null) return null;
    if (FIELDS[i]!.type === 'date') return String(v);
    if (FIELDS[i]!.type === 'timestamp') {
      const [d, us] = v as [number, number];
      return `${d} days ${us} microseconds`;
    }
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
    return v;
  });
}

test('the _full_text a load sends equals the one PostgreSQL computes, on every field type', async (t) => {
  const client = await connect();
  if (typeof client === 'string') return t.skip(client);
  const rows = fc.sample(row, { numRuns: 400, seed: 20261126 }).map((r) => parameters([...r]));
  // Rows the sample may miss: every value NULL, and the extremes of the dates and timestamps.
  rows.push(FIELDS.map(() => null));
  rows.push(['x', 1, '1', '1', '1', true, '-2440587', '-2440587 days', 'y']);
  rows.push(['x', 1, '1', '1', '1', false, '106751991', '106751991 days 86399999999 microseconds', 'y']);
  rows.push(['Fe\u0301in', null, null, null, null, null, '2932896', '2932896 days 1 microsecond', null]);
  // Each value in the first text field and in the last, after a value and after nothing.
  for (const t of TEXTS) {
    rows.push([t, null, null, null, null, null, null, null, t]);
    rows.push([null, null, null, null, null, null, null, null, t]);
    rows.push(['x', 1, null, null, null, true, null, null, t]);
  }
  for (const language of ['english', 'simple']) {
    const wrong = await mismatches(client, `all_types_${language}`, FIELDS, language, rows);
    assert.deepEqual(wrong, [], `${language}: rows whose _full_text differs`);
  }
});

test('a resource without text fields, and one of a single text field, index as before', async (t) => {
  const client = await connect();
  if (typeof client === 'string') return t.skip(client);
  const numbers = [field('n', 'int4'), field('d', 'date')];
  assert.deepEqual(
    await mismatches(client, 'no_text', numbers, 'english', [
      [1, '0'],
      [null, '-1000000'],
      [null, null],
    ]),
    [],
  );
  assert.deepEqual(
    await mismatches(
      client,
      'one_text',
      [field('t', 'text')],
      'english',
      TEXTS.map((s) => [s]),
    ),
    [],
  );
});
