// The loaders' whole-record tsvector, assembled from cached per-value lexemes, equals to_tsvector of the row's
// accent-folded document (to_tsvector itself is checked against PostgreSQL by the text-search tests, the folding by
// text-fold.test.ts) on rows built to stress the parser.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { FieldDefinition } from '../../src/catalog/types.js';
import type { StoredValue } from '../../src/catalog/values.js';
import { ftsDocument, RowVectorizer, rowDocument } from '../../src/catalog/row-text.js';
import { foldText, isTextSearchConfig, toTsvector, tsvectorToString } from '../../src/text-search/index.js';

const TRICKY_VALUES: StoredValue[] = [
  'Carlow-Kilkenny',
  'AYLWARD',
  'F.F.',
  'Fianna Fáil',
  "O'Brien",
  'O’Brien',
  'Ó Broin',
  'Ceatharlach-Cill Chainnigh',
  'the',
  'and the',
  '',
  ' ',
  '  x  ',
  '-5',
  '+5',
  '-x',
  '.5',
  '5.',
  '-1.5e-3',
  '1.5e3',
  '1-2',
  '-1-2',
  'x3-y',
  '--',
  '-',
  'co-operation-x',
  'e-mail',
  '/usr/local/x.txt',
  'a@b.ie',
  'http://x.ie/a?b=1',
  'www.example.com',
  '&amp;',
  '&',
  'tag<',
  '<',
  '<b>bold</b>',
  '<a href="x',
  'y">z',
  '<!-- c',
  'd -->',
  'x>',
  "'",
  '"quoted"',
  'semi;colon',
  'tab\there',
  'new\nline',
  '2020-02-08T00:00:00',
  '12:30',
  'A.B.C.',
  'a.b',
  'U.S.A',
  'ÉIRÍGÍ',
  'straße',
  'ΣΊΣΥΦΟΣ',
  '日本語',
  'emoji 🙂 ok',
  'x'.repeat(3000),
  7550,
  0,
  1.5,
  -3,
  2289,
  12345678901234,
  9007199254740991,
  1e21,
  null,
  true,
  false,
];

const FIELDS: FieldDefinition[] = ['a', 'b', 'c', 'd', 'e', 'f'].map((id, i) => ({
  id,
  column: id,
  type: i === 5 ? 'numeric' : 'text',
  index: false,
  format: 'ISO',
}));

/** A small seeded generator, so a failure names a reproducible row. */
function* rows(count: number, seed: number): Generator<StoredValue[]> {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  for (let n = 0; n < count; n++) {
    yield FIELDS.map((f) => {
      const value = TRICKY_VALUES[Math.floor(next() * TRICKY_VALUES.length)]!;
      if (f.type === 'numeric') return typeof value === 'number' ? value : null;
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
    });
  }
}

test('assembled tsvectors equal to_tsvector of the whole document', () => {
  const vectorizer = new RowVectorizer('english', FIELDS);
  let checked = 0;
  for (const values of rows(20_000, 7)) {
    const expected = tsvectorToString(toTsvector('english', foldText(rowDocument(FIELDS, values))));
    assert.equal(tsvectorToString(vectorizer.vector(values)), expected, JSON.stringify(values));
    checked += 1;
  }
  assert.equal(checked, 20_000);
});

test("a row's candidate-index document names exactly its vector's lexemes, made without the vector", () => {
  const vectorizer = new RowVectorizer('english', FIELDS);
  const dated = new RowVectorizer('english', [
    { type: 'date' },
    { type: 'int4' },
    { type: 'float8' },
    { type: 'bool' },
    { type: 'timestamp' },
  ]);
  const keysOf = (document: string) => [...new Set(document.split(' ').filter((k) => k !== ''))].sort();
  let checked = 0;
  for (const values of rows(20_000, 11)) {
    assert.deepEqual(
      keysOf(vectorizer.document(values)),
      keysOf(ftsDocument(vectorizer.vector(values))),
      JSON.stringify(values),
    );
    checked += 1;
  }
  assert.equal(checked, 20_000);
  for (const values of [
    ['2019-04-14', 7, 1.5, true, '2020-02-08T00:00:00'],
    ['-0044-03-15', -3, -0, false, null],
    [null, null, 1e21, null, '2024-11-29T23:59:59.5'],
  ] as StoredValue[][])
    assert.deepEqual(keysOf(dated.document(values)), keysOf(ftsDocument(dated.vector(values))), JSON.stringify(values));
  assert.equal(vectorizer.document([null, null, null, null, null, null]), '');
});

test('positions run on across values and stop words, capped as PostgreSQL caps them', () => {
  const fields = FIELDS.slice(0, 2);
  const vectorizer = new RowVectorizer('english', fields);
  assert.equal(tsvectorToString(vectorizer.vector(['the cats', 'and the dogs'])), "'cat':2 'dog':5");
  const long = Array.from({ length: 9000 }, (_, i) => `w${i % 3}`).join(' ');
  assert.equal(
    tsvectorToString(vectorizer.vector([long, long])),
    tsvectorToString(toTsvector('english', `${long} ${long}`)),
  );
});

test('another language', () => {
  const vectorizer = new RowVectorizer('german', FIELDS.slice(0, 2));
  const values = ['Die Häuser der Straßen', 'Wahlkreise und Kandidaten'];
  assert.equal(
    tsvectorToString(vectorizer.vector(values)),
    tsvectorToString(toTsvector('german', foldText(values.join(' ')))),
  );
});

test('numbers of every type, however rarely repeated, lexize as to_tsvector reads their printed text', () => {
  const types = ['float8', 'numeric', 'int4', 'int8'] as const;
  const fields: FieldDefinition[] = [
    ...types.map((type) => ({ id: type, column: type, type, index: false, format: 'ISO' as const })),
    { id: 'name', column: 'name', type: 'text', index: false, format: 'ISO' },
  ];
  const number = fc.oneof(
    fc.double({ noNaN: true }),
    fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    fc.constantFrom(0, -0, 1e-4, -1e-4, 9.999999999999999e-5, 1e15, 999999999999999.9, -1e21, 5e-324, 1.5e-7),
    fc.integer(),
    fc.constant(null),
  );
  for (const language of ['english', 'simple', 'german']) {
    const vectorizer = new RowVectorizer(language, fields);
    const cell = fc.constantFrom('Cork', 'the -5', '1.5e3 x', null);
    fc.assert(
      fc.property(fc.tuple(number, number, number, number, cell), (row) => {
        // The integer fields get whole numbers.
        const values: StoredValue[] = row.map((v, i) => (i >= 2 && typeof v === 'number' ? Math.trunc(v) : v));
        const expected = tsvectorToString(toTsvector(language, foldText(rowDocument(fields, values))));
        assert.equal(tsvectorToString(vectorizer.vector(values)), expected, `${language}: ${JSON.stringify(values)}`);
      }),
      { numRuns: 10_000, seed: 2020 },
    );
  }
});

test('dates of every year, each once, lexize as to_tsvector reads their text', () => {
  const fields: FieldDefinition[] = [
    { id: 'day', column: 'day', type: 'date', index: false, format: 'ISO' },
    { id: 'name', column: 'name', type: 'text', index: false, format: 'ISO' },
  ];
  const vectorizer = new RowVectorizer('english', fields);
  fc.assert(
    fc.property(
      fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }),
      fc.constantFrom('Cork', 'the 2019-04-14', null),
      (day, name) => {
        const values: StoredValue[] = [day.toISOString().slice(0, 10), name];
        const expected = tsvectorToString(toTsvector('english', foldText(rowDocument(fields, values))));
        assert.equal(tsvectorToString(vectorizer.vector(values)), expected, JSON.stringify(values));
      },
    ),
    { numRuns: 20_000, seed: 2016 },
  );
});

test('a field that seldom repeats stops using the lexeme cache, and its vectors stay exact', () => {
  const fields = FIELDS.slice(0, 2);
  const vectorizer = new RowVectorizer('english', fields);
  for (let n = 0; n < 60_000; n++) {
    const values = [`unique running text ${n}x`, n % 2 ? 'Fianna Fáil' : 'Sinn Féin'];
    const expected = tsvectorToString(toTsvector('english', foldText(rowDocument(fields, values))));
    assert.equal(tsvectorToString(vectorizer.vector(values)), expected);
  }
  const caching = (vectorizer as unknown as { caching: { on: boolean; hits: number }[] }).caching;
  assert.deepEqual(
    caching.map((c) => c.on),
    [false, true],
  );
  assert.equal(caching[1]!.hits, 59_998);
});

test('timestamps of every year, with and without fractions of a second, lexize as to_tsvector reads their text', () => {
  const fields: FieldDefinition[] = [
    { id: 'at', column: 'at', type: 'timestamp', index: false, format: 'ISO' },
    { id: 'name', column: 'name', type: 'text', index: false, format: 'ISO' },
  ];
  const fraction = fc.constantFrom('', '.5', '.05', '.123456', '.000001', '.9');
  for (const language of ['english', 'simple', 'german', 'french']) {
    if (!isTextSearchConfig(language)) continue;
    const vectorizer = new RowVectorizer(language, fields);
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        fraction,
        fc.constantFrom('Cork', 'the 2019-04-14T10:00:00', null),
        (at, fraction, name) => {
          const values: StoredValue[] = [at.toISOString().slice(0, 19) + fraction, name];
          const expected = tsvectorToString(toTsvector(language, foldText(rowDocument(fields, values))));
          assert.equal(tsvectorToString(vectorizer.vector(values)), expected, `${language}: ${JSON.stringify(values)}`);
          const keys = (document: string) => [...new Set(document.split(' '))].sort();
          assert.deepEqual(keys(vectorizer.document(values)), keys(ftsDocument(vectorizer.vector(values))));
        },
      ),
      { numRuns: 5_000, seed: 2024 },
    );
  }
});
