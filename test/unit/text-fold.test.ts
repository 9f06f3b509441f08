// Accent folding for full-text search: what it does to Irish names, that it leaves text without diacritics exactly as
// it is (so ranks and matches stay CKAN's there), and that PostgreSQL's fold function, made from the same table,
// folds every character as the embedded store does (live, against 127.0.0.1:5432; skipped when none answers).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  FOLDED_LETTERS,
  foldSqlBody,
  foldText,
  plainToTsquery,
  toTsvector,
  tsMatches,
} from '../../src/text-search/index.js';
import { quoteLiteral } from '../../src/dialect/postgres/quote.js';
import { livePostgres } from '../helpers/service.js';

test('Irish names fold to their letters without fadas', () => {
  assert.equal(foldText('Mícheál Martin'), 'Micheal Martin');
  assert.equal(foldText('Ó RÍORDÁIN'), 'O RIORDAIN');
  assert.equal(foldText('Sinn Féin'), 'Sinn Fein');
  assert.equal(foldText('Cuan Bhaile Átha Cliath Theas'), 'Cuan Bhaile Atha Cliath Theas');
  assert.equal(foldText('An Cabhán-Muineachán'), 'An Cabhan-Muineachan');
  // The old Gaelic type's dotted consonants.
  assert.equal(foldText('ḃ ċ ḋ ḟ ġ ṁ ṗ ṡ ṫ'), 'b c d f g m p s t');
  // Windows-1252 letters with no decomposition.
  assert.equal(foldText('Æ œ ß Ø þ ƒ'), 'AE oe ss O th f');
  // A query typed with decomposed accents folds as the composed one does.
  assert.equal(foldText('Fe\u0301in'), 'Fein');
  // Punctuation and other scripts are not accents on Latin letters: left alone.
  assert.equal(foldText('O’Brien ΣΊΣΥΦΟΣ'), 'O’Brien ΣΊΣΥΦΟΣ');
  assert.equal(foldText('Ёлка й'), 'Ёлка й');
});

test('text without diacritics is left exactly as it is', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary-ascii' }), (text) => foldText(text) === text),
    { numRuns: 2000 },
  );
  // Other scripts' letters are not accents on ASCII letters: Greek, Cyrillic, Arabic, CJK (NFC text) are left alone.
  const otherScripts = fc
    .oneof(
      fc.integer({ min: 0x0391, max: 0x03c9 }),
      fc.integer({ min: 0x0400, max: 0x04ff }),
      fc.integer({ min: 0x0621, max: 0x064a }),
      fc.integer({ min: 0x4e00, max: 0x9fff }),
    )
    .map((c) => String.fromCharCode(c))
    .filter((c) => c.normalize('NFC') === c);
  fc.assert(
    fc.property(fc.string({ unit: otherScripts }), (text) => foldText(text) === text),
    { numRuns: 500 },
  );
});

test('folding is idempotent and leaves no accented Latin letter behind', () => {
  assert.ok(FOLDED_LETTERS.length > 300, `${FOLDED_LETTERS.length} letters fold`);
  const piece = fc.oneof(fc.constantFrom(...FOLDED_LETTERS), fc.string({ unit: 'grapheme', maxLength: 3 }));
  fc.assert(
    fc.property(
      fc.array(piece, { maxLength: 20 }).map((a) => a.join('')),
      (text) => {
        const once = foldText(text);
        return foldText(once) === once && ![...once].some((c) => FOLDED_LETTERS.includes(c));
      },
    ),
    { numRuns: 2000 },
  );
});

test('folded documents and queries match names typed without fadas, in any case', () => {
  const doc = toTsvector(
    'english',
    foldText('Dublin Bay South Ó Ríordáin Aodhán The Labour Party Sinn Féin Mícheál Martin'),
  );
  for (const q of ['o riordain', 'Ó Ríordáin', 'sinn fein', 'SINN FÉIN', 'micheal martin', 'aodhan']) {
    assert.ok(tsMatches(doc, plainToTsquery('english', foldText(q))), q);
  }
});

const connect = livePostgres({
  setup: async (client) => {
    await client.query(
      `CREATE FUNCTION pg_temp.fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$ ${foldSqlBody(quoteLiteral)} $$`,
    );
  },
});

test('PostgreSQL folds every character as the embedded store does', async (t) => {
  const client = await connect();
  if (typeof client === 'string') return t.skip(client);
  const samples = [
    ...FOLDED_LETTERS,
    'Mícheál Martin',
    'Ó Ríordáin',
    'plain ascii',
    '',
    'Æsir ß',
    'e\u0301',
    'Ḃ-ċ',
    'ΣΊΣΥΦΟΣ',
    'O’Brien',
    ...fc.sample(
      fc
        .array(fc.oneof(fc.constantFrom(...FOLDED_LETTERS), fc.string({ unit: 'grapheme', maxLength: 4 })), {
          maxLength: 12,
        })
        .map((a) => a.join('').replace(/\u0000/g, '')),
      500,
    ),
  ];
  const { rows } = await client.query<{ folded: string[] }>(
    'SELECT array_agg(pg_temp.fold(s) ORDER BY n) AS folded FROM unnest($1::text[]) WITH ORDINALITY AS u(s, n)',
    [samples],
  );
  const folded = rows[0]!.folded;
  samples.forEach((text, i) => assert.equal(folded[i], foldText(text), JSON.stringify(text)));
});
