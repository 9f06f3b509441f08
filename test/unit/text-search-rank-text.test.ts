// ts_rank from a vector's text, reading only the query's entries, equals ts_rank of the whole parsed vector — for
// every kind of query, including those (prefixes, weights) for which it has to parse the whole text after all.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parseTsvector,
  plainToTsquery,
  toTsquery,
  toTsvector,
  tsRank,
  tsRankText,
  tsvectorToString,
} from '../../src/text-search/index.js';

const WORDS = [
  'Dublin',
  'Bay',
  'South',
  'Fianna',
  'Fáil',
  'F.F.',
  "O'Brien",
  "o''brien",
  'back\\slash',
  'Excluded',
  'Elected',
  'Cork',
  'North-Central',
  'the',
  'and',
  '7550',
  '12',
  '1.5',
  'Murphy',
  'MURPHY',
  'murphys',
  'Ó',
  'Broin',
  'Sinn',
  'Féin',
  'x',
];

function documents(count: number): string[] {
  let state = 11;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(next() * 30) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' '),
  );
}

const QUERIES = [
  plainToTsquery('english', 'Dublin'),
  plainToTsquery('english', 'Murphy Cork'),
  plainToTsquery('english', "O'Brien excluded"),
  plainToTsquery('english', 'back\\slash'),
  plainToTsquery('english', 'the'),
  plainToTsquery('english', 'nowhere'),
  toTsquery('english', 'dublin | fáil'),
  toTsquery('english', 'dublin & !cork'),
  toTsquery('english', 'sinn <-> féin'),
  toTsquery('english', 'murph:*'),
  toTsquery('english', 'elect:A'),
  toTsquery('english', '(bay | south) & 7550'),
];

test('ranks read from the text equal ranks of the parsed vector', () => {
  let compared = 0;
  for (const document of documents(3000)) {
    const text = tsvectorToString(toTsvector('english', document));
    const vector = parseTsvector(text);
    for (const query of QUERIES) {
      for (const normalization of [0, 32, 1]) {
        assert.equal(
          tsRankText(text, query, normalization),
          tsRank(vector, query, normalization),
          `${text} / ${JSON.stringify(query)} / ${normalization}`,
        );
        compared += 1;
      }
    }
  }
  assert.equal(compared, 3000 * QUERIES.length * 3);
});

test('an empty vector ranks 0; a text with weights is parsed whole', () => {
  assert.equal(tsRankText('', plainToTsquery('english', 'dublin'), 32), 0);
  const weighted = "'dublin':1A,3 'south':2B";
  const query = plainToTsquery('english', 'dublin south');
  assert.equal(tsRankText(weighted, query, 32), tsRank(parseTsvector(weighted), query, 32));
  assert.ok(tsRankText(weighted, query, 32) > 0);
});
