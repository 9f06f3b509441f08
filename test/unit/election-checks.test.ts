// The consistency checks and the constituency results derived from official count details, on small tables written
// here: what each check compares, how known faults and corrections show, and what stops a load.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DatasetDefinition, FieldType } from '../../src/catalog/types.js';
import { runChecks } from '../../src/ingest/transforms/checks.js';
import { constituenciesFromCounts } from '../../src/ingest/transforms/official.js';
import { table } from '../helpers/tables.js';

const DATASET = {
  name: 'general-election-test',
  election: { date: '2016-02-26', body: '32nd Dáil', seats: 3, ceannComhairle: { name: 'C', constituency: 'South' } },
} as DatasetDefinition;

const COUNT_COLUMNS: [string, FieldType][] = [
  ['Constituency Name', 'text'],
  ['Constituency Number', 'numeric'],
  ['Candidate Id', 'numeric'],
  ['Count Number', 'numeric'],
  ['Result', 'text'],
  ['Required To Reach Quota', 'numeric'],
  ['Required To Save Deposit', 'numeric'],
  ['Transfers', 'numeric'],
  ['Votes', 'numeric'],
  ['Total Votes', 'numeric'],
];

// North: quota 1,001 of a valid poll of 2,000 (1 seat), threshold 251. Candidate 1 is elected at count 2 after 2's
// exclusion, which distributes 300 votes of which 290 reach 1 (10 not transferable).
const COUNTS = table(COUNT_COLUMNS, [
  ['North', 7, 1, 1, '', 201, 0, 0, 800, 800],
  ['North', 7, 1, 2, 'Elected', 0, 0, 290, 800, 1090],
  ['North', 7, 2, 1, '', 701, 0, 0, 300, 300],
  ['North', 7, 2, 2, 'Excluded', 0, 0, -300, 300, 0],
  ['North', 7, 3, 1, '', 101, 0, 0, 900, 900],
  ['North', 7, 3, 2, '', 101, 0, 0, 900, 900],
  ['North', 7, 4, 1, '', 901, 151, 0, 100, 100],
  ['North', 7, 4, 2, '', 901, 151, 0, 100, 100],
]);

describe('consistency checks', () => {
  const candidates = table(
    [
      ['Constituency Number', 'numeric'],
      ['Result', 'text'],
      ['Required To Save Deposit', 'numeric'],
    ],
    [
      [7, 'Elected', 0],
      [7, 'Excluded', 0],
      [7, '', 0],
      [7, '', 0],
    ],
  );
  const constituencies = (quota: number, valid: number) =>
    table(
      [
        ['Constituency Name', 'text'],
        ['Constituency Number', 'numeric'],
        ['Number of Seats', 'numeric'],
        ['Quota', 'numeric'],
        ['Valid Poll', 'numeric'],
      ],
      [['North', 7, 1, quota, valid]],
    );

  test('every check, passed and failed, with what it compared', () => {
    const checks = runChecks(candidates, constituencies(1000, 2100), COUNTS, null, null, DATASET);
    assert.deepEqual(
      checks.map((c) => [c.check, c.constituency, c.count, c.expected, c.actual, c.status]),
      [
        ['first-preferences', '', null, 2100, 2100, 'passed'],
        ['dail-seats', '', null, 3, 2, 'failed'],
        ['first-preferences', 'North', null, 2100, 2100, 'passed'],
        ['elected-seats', 'North', null, 1, 1, 'passed'],
        ['quota', 'North', null, 1051, 1000, 'failed'],
        ['count-transfers', 'North', 2, 300, 290, 'passed'],
      ],
    );
    assert.equal(checks[1]!.note, 'Not reviewed.');
    assert.equal(checks[2]!.source, 'fixture');
  });

  test('a known fault is noted on its failed check; a note on a passing check says so; a note on no check stops the load', () => {
    const faults = table(
      [
        ['check', 'text'],
        ['constituency', 'text'],
        ['count', 'int4'],
        ['note', 'text'],
      ],
      [
        ['quota', 'north', null, 'The quota was misprinted.'],
        ['count-transfers', 'North', 2, 'Looked wrong once.'],
      ],
    );
    const checks = runChecks(candidates, constituencies(1000, 2100), COUNTS, null, faults, DATASET);
    assert.equal(
      checks.find((c) => c.check === 'quota')!.note,
      'Known fault, loaded as published: The quota was misprinted.',
    );
    assert.equal(
      checks.find((c) => c.check === 'count-transfers')!.note,
      'Listed as a known fault (Looked wrong once.), but the check passes.',
    );
    const stray = table(
      [
        ['check', 'text'],
        ['constituency', 'text'],
        ['count', 'int4'],
        ['note', 'text'],
      ],
      [['count-transfers', 'North', 9, 'No such count.']],
    );
    assert.throws(() => runChecks(candidates, constituencies(1000, 2100), COUNTS, null, stray, DATASET), {
      message: /^fixture, line 2: no count-transfers check of "North" count 9 to note$/,
    });
  });

  test('gains beyond the votes distributed fail the count', () => {
    const counts = table(
      COUNT_COLUMNS,
      COUNTS.rows.map((r) =>
        r.values[2] === 1 && r.values[3] === 2 ? [...r.values.slice(0, 7), 310, 800, 1110] : r.values,
      ),
    );
    const check = runChecks(candidates, constituencies(1051, 2100), counts, null, null, DATASET).find(
      (c) => c.check === 'count-transfers',
    )!;
    assert.deepEqual([check.expected, check.actual, check.status], [300, 310, 'failed']);
  });

  test('official counts of candidates below the expenses threshold, against those still lacking votes of it', () => {
    const withDeposit = table(
      [
        ['Constituency Number', 'numeric'],
        ['Result', 'text'],
        ['Required To Save Deposit', 'numeric'],
      ],
      [
        [7, 'Elected', 0],
        [7, 'Excluded', 51],
        [7, '', 0],
        [7, '', 151],
      ],
    );
    const expenses = (lost: number) =>
      table(
        [
          ['constituency', 'text'],
          ['lost_expenses_count', 'int4'],
        ],
        [['NORTH', lost]],
      );
    const check = (lost: number) =>
      runChecks(withDeposit, constituencies(1051, 2100), COUNTS, null, null, DATASET, expenses(lost)).find(
        (c) => c.check === 'expenses-threshold',
      )!;
    assert.deepEqual([check(2).expected, check(2).actual, check(2).status], [2, 2, 'passed']);
    assert.equal(check(1).status, 'failed');
  });

  test('each correction is listed with its evidence, numbered like the other tables', () => {
    const corrections = table(
      [
        ['file', 'text'],
        ['location', 'text'],
        ['published', 'text'],
        ['corrected', 'text'],
        ['constituency', 'text'],
        ['evidence', 'text'],
      ],
      [['north.json', '/candidates/0/counts/0', '810', '800', 'North', 'The constituency adds up.']],
    );
    const check = runChecks(candidates, constituencies(1051, 2100), COUNTS, corrections, null, DATASET).at(-1)!;
    assert.deepEqual(check, {
      check: 'correction',
      constituency: 'North',
      constituencyNumber: 7,
      count: null,
      expected: 800,
      actual: 810,
      status: 'corrected',
      note: 'Published 810, loaded 800. The constituency adds up.',
      source: 'north.json /candidates/0/counts/0',
    });
  });
});

describe('constituency results from official count details', () => {
  const candidates = table(
    [
      ['Constituency Number', 'numeric'],
      ['Constituency Ainm', 'text'],
    ],
    [
      [7, 'An Tuaisceart'],
      [7, 'An Tuaisceart'],
    ],
  );
  const statistics = table(
    [
      ['constituency', 'text'],
      ['spoiled', 'int4'],
      ['valid_poll', 'int4'],
      ['electorate', 'int4'],
    ],
    [['North', 20, 2100, 3000]],
  );

  test('quota and threshold from what count-1 records lacked, seats from those elected, poll from the statistics', () => {
    const [row] = constituenciesFromCounts(COUNTS, candidates, statistics, DATASET);
    assert.deepEqual(row!.values, {
      'Constituency Name': 'North',
      'Constituency Ainm': 'An Tuaisceart',
      'Count Number': 2,
      'Date Of Election': '2016-02-26',
      'Number Of Candidates': 4,
      'Number of Seats': 1,
      Quota: 1001,
      'Required Save Deposit': 251,
      'Seats Filled': 1,
      'Seats in Constituency': 1,
      Spoiled: 20,
      'Total Electorate': 3000,
      'Total Poll': 2120,
      'Valid Poll': 2100,
      'Constituency Number': 7,
    });
  });

  test('count-1 records that disagree about the quota stop the load, naming both', () => {
    const counts = table(
      COUNT_COLUMNS,
      COUNTS.rows.map((r) =>
        r.values[2] === 3 && r.values[3] === 1 ? [...r.values.slice(0, 5), 102, ...r.values.slice(6)] : r.values,
      ),
    );
    assert.throws(() => constituenciesFromCounts(counts, candidates, statistics, DATASET), {
      message: /^fixture, line 6: gives a quota of 1002; fixture line 2 gave 1001$/,
    });
  });

  test('a constituency the statistics lack, or statistics for none, stop the load', () => {
    const other = table(
      [
        ['constituency', 'text'],
        ['spoiled', 'int4'],
        ['valid_poll', 'int4'],
        ['electorate', 'int4'],
      ],
      [['South', 1, 1, 1]],
    );
    assert.throws(() => constituenciesFromCounts(COUNTS, candidates, other, DATASET), {
      message: /the statistics have no constituency "North"/,
    });
    const extra = table(
      other.fields.map((f) => [f.id, f.type] as [string, FieldType]),
      [...statistics.rows.map((r) => r.values), ['South', 1, 1, 1]],
    );
    assert.throws(() => constituenciesFromCounts(COUNTS, candidates, extra, DATASET), {
      message: /the count details have no constituency "South"/,
    });
  });
});
