// Behaviour of the text-search API on hand-picked cases (expected values taken from PostgreSQL 15).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  candidateFilter,
  debugTokens,
  formatFloat4,
  isTextSearchConfig,
  parseTsquery,
  parseTsvector,
  plainToTsquery,
  supportedTextSearchConfigs,
  toTsquery,
  toTsvector,
  tsMatches,
  tsqueryToString,
  tsRank,
  TsQuerySyntaxError,
  tsvectorToString,
  UnknownTextSearchConfigError,
} from '../../src/text-search/index.js';

test('to_tsvector of an election row, as PostgreSQL gives it', () => {
  const v = toTsvector(
    'english',
    'Carlow-Kilkenny AYLWARD BOBBY M Fianna Fáil F.F. 10 2289 0 7550  161 1 Ceatharlach-Cill Chainnigh',
  );
  assert.equal(
    tsvectorToString(v),
    "'0':12 '1':15 '10':10 '161':14 '2289':11 '7550':13 'aylward':4 'bobbi':5 'carlow':2 'carlow-kilkenni':1 " +
      "'ceatharlach':17 'ceatharlach-cil':16 'chainnigh':19 'cill':18 'f.f':9 'fianna':7 'fáil':8 'kilkenni':3 'm':6",
  );
});

test('the parser types tokens like ts_debug', () => {
  assert.deepEqual(debugTokens('F.F. -1.5e-3 a@b.ie'), [
    ['file', 'F.F'],
    ['blank', '. '],
    ['sfloat', '-1.5e-3'],
    ['blank', ' '],
    ['email', 'a@b.ie'],
  ]);
  assert.deepEqual(
    debugTokens('http://x.ie/a?b=1').map(([t]) => t),
    ['protocol', 'url', 'host', 'url_path'],
  );
  assert.deepEqual(
    debugTokens('O’Brien').map(([, s]) => s),
    ['O', '’', 'Brien'],
  );
  assert.deepEqual(debugTokens('x3-y'), [
    ['numhword', 'x3-y'],
    ['hword_numpart', 'x3'],
    ['blank', '-'],
    ['hword_asciipart', 'y'],
  ]);
});

test('stop words take a position but produce no lexeme', () => {
  assert.equal(tsvectorToString(toTsvector('english', 'the cats and the dogs')), "'cat':2 'dog':5");
  assert.equal(tsvectorToString(toTsvector('simple', 'the cats')), "'cats':2 'the':1");
});

test("French stems as PostgreSQL 15's Snowball release does, 'ë' and 'ï' included", () => {
  // Expected lexemes from PostgreSQL 15 (to_tsvector('french', …)), "étés" a stop word; the older Snowball stemmer
  // gave another stem for each of the first six.
  assert.equal(
    tsvectorToString(toTsvector('french', 'archaïque aiguës canoë amuïr coïtions avouaient nationales les étés')),
    "'aigu':2 'amuïr':4 'archa':1 'avou':6 'cano':3 'coït':5 'le':8 'national':7",
  );
});

test('configuration names', () => {
  assert.ok(supportedTextSearchConfigs().includes('simple'));
  assert.ok(supportedTextSearchConfigs().includes('english'));
  assert.equal(isTextSearchConfig('pg_catalog.english'), true);
  assert.equal(isTextSearchConfig('English'), true);
  assert.equal(isTextSearchConfig('klingon'), false);
  assert.throws(() => toTsvector('klingon', 'x'), UnknownTextSearchConfigError);
});

test('to_tsquery normalises operands, builds phrases and drops stop words', () => {
  assert.equal(tsqueryToString(toTsquery('english', 'Dublin:*')), "'dublin':*");
  assert.equal(tsqueryToString(toTsquery('english', 'foo-bar')), "'foo-bar' <-> 'foo' <-> 'bar'");
  assert.equal(tsqueryToString(toTsquery('english', 'cat <-> the <-> dog')), "'cat' <2> 'dog'");
  assert.equal(tsqueryToString(toTsquery('english', "'supernovae stars' & !crab")), "'supernova' <-> 'star' & !'crab'");
  assert.deepEqual(toTsquery('english', 'the'), { type: 'empty' });
  assert.equal(tsqueryToString(plainToTsquery('english', 'The Fianna Fáil & party')), "'fianna' & 'fáil' & 'parti'");
});

test('to_tsquery reports syntax errors with PostgreSQL messages', () => {
  assert.throws(() => toTsquery('simple', 'a &'), {
    name: 'TsQuerySyntaxError',
    message: 'no operand in tsquery: "a &"',
  });
  assert.throws(() => toTsquery('simple', 'a b'), { message: 'syntax error in tsquery: "a b"' });
  assert.throws(() => toTsquery('simple', '(a'), TsQuerySyntaxError);
  assert.equal(tsqueryToString(toTsquery('simple', '  ')), '');
});

test('tsquery input keeps operands literally and prints with PostgreSQL parentheses', () => {
  assert.equal(tsqueryToString(parseTsquery('(a | b) & c')), "( 'a' | 'b' ) & 'c'");
  assert.equal(tsqueryToString(parseTsquery('a <-> (b <-> c)')), "'a' <-> ( 'b' <-> 'c' )");
  assert.equal(tsqueryToString(parseTsquery('!(a & B:*ba)')), "!( 'a' & 'B':*AB )");
});

test('@@ handles prefixes, negation, phrases and the empty query', () => {
  const v = toTsvector('english', 'Dublin Bay North Fianna Fáil');
  assert.equal(tsMatches(v, toTsquery('english', 'dub:*')), true);
  assert.equal(tsMatches(v, toTsquery('english', 'fianna <-> fáil')), true);
  assert.equal(tsMatches(v, toTsquery('english', 'fáil <-> fianna')), false);
  assert.equal(tsMatches(v, toTsquery('english', 'dublin & !cork')), true);
  assert.equal(tsMatches(v, toTsquery('english', 'bay <-> !south')), true);
  assert.equal(tsMatches(v, toTsquery('english', 'the')), false);
});

test('ts_rank with normalisation 32 gives the float4 PostgreSQL prints', () => {
  const v = toTsvector('english', 'Dublin Bay North 3 1 11');
  const q = plainToTsquery('english', 'Dublin');
  assert.equal(formatFloat4(tsRank(v, q, 32)), '0.057308756');
  assert.equal(tsRank(v, q, 32), Math.fround(0.057308756));
  assert.equal(formatFloat4(tsRank(v, plainToTsquery('english', 'Dublin North'), 32)), '0.08966844');
  assert.equal(tsRank(v, plainToTsquery('english', 'cork')), 0);
});

test('float4 output uses the shortest round-trip form', () => {
  assert.equal(formatFloat4(1e-20), '1e-20');
  assert.equal(formatFloat4(1234567), '1.234567e+06');
  assert.equal(formatFloat4(123456), '123456');
  assert.equal(formatFloat4(0.1), '0.1');
  assert.equal(formatFloat4(1.5e-5), '1.5e-05');
});

test('parseTsvector accepts the input syntax and merges duplicates', () => {
  const v = parseTsvector("b:3,1 'a''s':2A 'a''s':1 c");
  assert.equal(tsvectorToString(v), "'a''s':1,2A 'b':1,3 'c'");
  assert.deepEqual(v.entries[0], { lexeme: "a's", positions: [1, 2], weights: [0, 3] });
});

test('candidateFilter is a necessary lexeme condition', () => {
  assert.deepEqual(candidateFilter(toTsquery('english', 'the')), { kind: 'none' });
  assert.deepEqual(candidateFilter(toTsquery('english', '!cork')), { kind: 'all' });
  assert.deepEqual(candidateFilter(toTsquery('english', 'dub:* & (cork | !kerry)')), {
    kind: 'term',
    lexeme: 'dub',
    prefix: true,
  });
  assert.deepEqual(candidateFilter(toTsquery('english', 'a1 & (b1 | c1) & d1')), {
    kind: 'and',
    of: [
      { kind: 'term', lexeme: 'a1', prefix: false },
      {
        kind: 'or',
        of: [
          { kind: 'term', lexeme: 'b1', prefix: false },
          { kind: 'term', lexeme: 'c1', prefix: false },
        ],
      },
      { kind: 'term', lexeme: 'd1', prefix: false },
    ],
  });
});

test('toTsvector, parseTsvector, tsMatches and tsRank are fast enough for per-row use', () => {
  const row = 'Dublin Bay North,BROPHY,COLM,M,Fine Gael,F.G.,12,0,0,5329,Excluded,262,13,Baile Átha Cliath Thuaidh';
  const rowText = row.replace(/,/g, ' ') + ' ' + row.replace(/,/g, ' ');
  let t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < 200) {
    for (let i = 0; i < 100; i++) toTsvector('english', rowText);
    n += 100;
  }
  const rowsPerSecond = n / ((performance.now() - t0) / 1000);
  const text = tsvectorToString(toTsvector('english', rowText));
  const q = toTsquery('english', 'dublin & north:*');
  t0 = performance.now();
  let m = 0;
  while (performance.now() - t0 < 200) {
    for (let i = 0; i < 1000; i++) {
      const v = parseTsvector(text);
      if (tsMatches(v, q)) tsRank(v, q, 32);
    }
    m += 1000;
  }
  const microsPerRow = ((performance.now() - t0) * 1000) / m;
  // Bounds far below a quiet machine's pace: they catch a pathological (quadratic, backtracking) regression,
  // not two busy cores.
  assert.ok(rowsPerSecond > 500, `toTsvector: ${rowsPerSecond.toFixed(0)} rows/s`);
  assert.ok(microsPerRow < 1000, `parse+match+rank: ${microsPerRow.toFixed(2)} µs/row`);
});
