// Fixed expectations recorded from PostgreSQL 15 (test/fixtures/text-search/expected.json, made by
// generate-fixtures.mjs there): every distinct text cell of the 2020 election data, whole rows,
// synthetic edge cases, to_tsquery/plainto_tsquery (including errors), @@ and ts_rank.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  formatFloat4,
  parseTsquery,
  parseTsvector,
  plainToTsquery,
  toTsquery,
  toTsvector,
  tsMatches,
  tsqueryToString,
  tsRank,
  tsvectorToString,
} from '../../src/text-search/index.js';

type Expected = {
  generatedWith: string;
  tsvector: Array<[string, string, string]>;
  tsquery: Array<[string, string, string, string | { error: string }]>;
  match: Array<[string, string, number, boolean, string]>;
};

function findFixture(): string {
  // The compiled test may live at different depths (dist/, .build-*/out/); walk up to the repository.
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'test', 'fixtures', 'text-search', 'expected.json');
    if (fs.existsSync(candidate)) return candidate;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('test/fixtures/text-search/expected.json not found');
    dir = up;
  }
}

const expected = JSON.parse(fs.readFileSync(findFixture(), 'utf8')) as Expected;

test('fixture covers the election data and edge cases', () => {
  assert.match(expected.generatedWith, /^PostgreSQL 15/);
  assert.ok(expected.tsvector.length + expected.tsquery.length + expected.match.length >= 300);
  assert.ok(expected.tsvector.some(([, input]) => input === 'Ceatharlach-Cill Chainnigh'));
});

test('to_tsvector matches PostgreSQL for every recorded input', () => {
  const failures: string[] = [];
  for (const [config, input, want] of expected.tsvector) {
    const got = tsvectorToString(toTsvector(config, input));
    if (got !== want) failures.push(`${config} ${JSON.stringify(input)}\n  want ${want}\n  got  ${got}`);
  }
  assert.deepEqual(failures, []);
});

test('tsvector text round-trips through parseTsvector', () => {
  for (const [, , want] of expected.tsvector) assert.equal(tsvectorToString(parseTsvector(want)), want);
});

test('to_tsquery and plainto_tsquery match PostgreSQL, errors included', () => {
  const failures: string[] = [];
  for (const [fn, config, input, want] of expected.tsquery) {
    let got: string | { error: string };
    try {
      const q = fn === 'plain' ? plainToTsquery(config, input) : toTsquery(config, input);
      got = tsqueryToString(q);
    } catch (e) {
      got = { error: (e as Error).message };
    }
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      failures.push(
        `${fn} ${config} ${JSON.stringify(input)}\n  want ${JSON.stringify(want)}\n  got  ${JSON.stringify(got)}`,
      );
    }
  }
  assert.deepEqual(failures, []);
});

test('tsquery text round-trips through parseTsquery', () => {
  for (const [, , , want] of expected.tsquery) {
    if (typeof want === 'string') assert.equal(tsqueryToString(parseTsquery(want)), want);
  }
});

test('@@ and ts_rank (as float4) match PostgreSQL', () => {
  const failures: string[] = [];
  let matched = 0;
  for (const [vector, query, norm, wantMatch, wantRank] of expected.match) {
    const v = parseTsvector(vector);
    const q = parseTsquery(query);
    const m = tsMatches(v, q);
    const r = tsRank(v, q, norm);
    if (m) matched++;
    if (m !== wantMatch) failures.push(`@@ ${vector} / ${query}: want ${wantMatch}`);
    if (formatFloat4(r) !== wantRank || r !== Math.fround(Number(wantRank))) {
      failures.push(`ts_rank(${norm}) ${vector} / ${query}: want ${wantRank}, got ${formatFloat4(r)}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(matched > 0 && matched < expected.match.length, 'cases include both matches and non-matches');
});
