// The derivation of the official layouts from STV running totals: on small constituencies written here, every rule
// (exclusions, surpluses largest first, deferred surpluses, the last count), the shape checks, names; and on the
// official 2020 and 2016 count details, which the rules reproduce from the files' own running totals.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import type { FieldType } from '../../src/catalog/types.js';
import { LoadError } from '../../src/ingest/csv.js';
import type { Table } from '../../src/ingest/table.js';
import { table } from '../helpers/tables.js';
import {
  candidateRows,
  constituencyRows,
  countDetailRows,
  countEvents,
  deriveCounts,
  expensesThreshold,
  nameKey,
  readRunningTotals,
  splitName,
  type StvCandidate,
  type StvConstituency,
} from '../../src/ingest/transforms/stv.js';
import type { DatasetDefinition } from '../../src/catalog/types.js';
import { DATA_DIR } from '../helpers/service.js';

const TOTALS_COLUMNS: [string, FieldType][] = [
  ['constituency_key', 'text'],
  ['candidate', 'text'],
  ['name', 'text'],
  ['party', 'text'],
  ['status', 'text'],
  ['count', 'int4'],
  ['running_total', 'int4'],
];

/** Running-totals rows for one constituency: [id, name, party, status, totals…]. */
function totalsTable(key: string, candidates: [string, string, string, string, (number | null)[]][]): Table {
  return table(
    TOTALS_COLUMNS,
    candidates.flatMap(([id, name, party, status, totals]) =>
      totals.map((t, i) => [key, id, name, party, status, i + 1, t]),
    ),
  );
}

function candidate(id: string, status: StvCandidate['status'], totals: (number | null)[]): StvCandidate {
  return {
    id,
    name: `Candidate ${id}`,
    party: '',
    status,
    totals,
    origin: { file: 'f', line: null, column: null, pointer: `/candidates/${id}` },
  };
}

function constituency(candidates: StvCandidate[]): StvConstituency {
  return {
    key: 'k',
    counts: candidates[0]!.totals.length,
    candidates,
    origin: { file: 'f', line: null, column: null, pointer: null },
  };
}

// Quota 1,001 (valid poll 3,000, 2 seats). A exceeds the quota at count 1 (surplus 199, distributed at count 2);
// D is excluded at count 3; C is elected at count 3 above the quota with a surplus never distributed; B stays.
const EXAMPLE = constituency([
  candidate('1', 'Elected', [1200, null, null]),
  candidate('2', 'Not Elected', [700, 780, 880]),
  candidate('3', 'Elected', [900, 1000, 1050]),
  candidate('4', 'Excluded', [200, 210, null]),
]);

describe('STV running totals to count details', () => {
  test('count events: the surplus first, then an exclusion', () => {
    const events = countEvents(EXAMPLE, 1001);
    assert.deepEqual(
      events.map((e) => [e.count, e.kind, e.candidates.map((c) => c.id)]),
      [
        [2, 'surplus', ['1']],
        [3, 'exclusion', ['4']],
      ],
    );
  });

  test('every state: totals, transfers, results, the counts they occurred on, what each lacked', () => {
    const derived = deriveCounts(EXAMPLE, 1001);
    const rows = derived.map((d) =>
      d.states.map((s) => [
        s.result,
        s.occurredOn,
        s.total,
        s.transfer,
        s.requiredToReachQuota,
        s.requiredToSaveDeposit,
      ]),
    );
    assert.deepEqual(rows, [
      // Elected at count 1; the surplus of 199 leaves at count 2 and the total stays at the quota.
      [
        ['Elected', 1, 1200, 0, 0, 0],
        ['Elected', 1, 1001, -199, 0, 0],
        ['Elected', 1, 1001, 0, 0, 0],
      ],
      // Still in the count at the end: the last count is its "occurred on", as in the official 2020 file.
      [
        ['', 0, 700, 0, 301, 0],
        ['', 0, 780, 80, 221, 0],
        ['', 3, 880, 100, 121, 0],
      ],
      // Elected at count 3 above the quota; nothing is left to distribute it at.
      [
        ['', 0, 900, 0, 101, 0],
        ['', 0, 1000, 100, 1, 0],
        ['Elected', 3, 1050, 50, 0, 0],
      ],
      // Excluded at count 3: the whole total leaves; what it lacked of the threshold (251) stays as it was.
      [
        ['', 0, 200, 0, 801, 51],
        ['', 0, 210, 10, 791, 41],
        ['Excluded', 3, 0, -210, 0, 41],
      ],
    ]);
    assert.deepEqual(
      derived.map((d) => d.firstPreferences),
      [1200, 700, 900, 200],
    );
    assert.equal(expensesThreshold(1001), 251);
  });

  test('a surplus is deferred while candidates are excluded, and the largest pending surplus goes first', () => {
    const c = constituency([
      candidate('1', 'Elected', [1300, null, null, null]),
      candidate('2', 'Elected', [1100, null, null, null]),
      candidate('3', 'Excluded', [100, null, null, null]),
      candidate('4', 'Not Elected', [500, 560, 800, 850]),
    ]);
    const events = countEvents(c, 1001);
    assert.deepEqual(
      events.map((e) => [e.count, e.kind, e.candidates.map((x) => x.id)]),
      [
        [2, 'exclusion', ['3']],
        [3, 'surplus', ['1']],
        [4, 'surplus', ['2']],
      ],
    );
    const [first, second] = deriveCounts(c, 1001);
    assert.deepEqual(
      first!.states.map((s) => s.total),
      [1300, 1300, 1001, 1001],
    );
    assert.deepEqual(
      second!.states.map((s) => s.transfer),
      [0, 0, 0, -99],
    );
  });

  test("a count where nobody's votes leave is reported as such (the checks then flag its gains)", () => {
    const c = constituency([candidate('1', 'Not Elected', [10, 12]), candidate('2', 'Not Elected', [5, 6])]);
    assert.deepEqual(
      countEvents(c, 100).map((e) => e.kind),
      ['none'],
    );
  });

  describe('the shape of the running totals is checked, with where the problem is', () => {
    const fails = (rows: [string, string, string, string, (number | null)[]][], message: RegExp) =>
      assert.throws(
        () => readRunningTotals(totalsTable('k', rows)),
        (err: unknown) => err instanceof LoadError && message.test(err.message),
      );
    test('a total after dropping out', () =>
      fails(
        [['1', 'A', 'P', 'Excluded', [5, null, 7]]],
        /^fixture, line 4: candidate 1 has a running total again after dropping out/,
      ));
    test('an unknown status', () =>
      fails([['1', 'A', 'P', 'Withdrawn', [5]]], /status "Withdrawn" is not one of Elected, Excluded, Not Elected/));
    test('no first preferences', () =>
      fails([['1', 'A', 'P', 'Excluded', [null, null]]], /candidate 1 has no first-preference total/));
    test('an excluded candidate still in the last count', () =>
      fails([['1', 'A', 'P', 'Excluded', [5, 6]]], /is excluded but has a total at the last count/));
    test('a candidate neither elected nor excluded who leaves early', () =>
      fails(
        [
          ['1', 'A', 'P', 'Not Elected', [5, null]],
          ['2', 'B', 'P', 'Not Elected', [5, 6]],
        ],
        /neither elected nor excluded but has no total at the last count/,
      ));
    test('counts of different lengths', () =>
      fails(
        [
          ['1', 'A', 'P', 'Not Elected', [5, 6]],
          ['2', 'B', 'P', 'Not Elected', [5]],
        ],
        /candidate 2 has 1 counts, the constituency 2/,
      ));
    test('a fractional total', () =>
      fails([['1', 'A', 'P', 'Not Elected', [5.5]]], /running total 5.5 is not a whole number/));
  });
});

describe('the three tables', () => {
  const totals = totalsTable('north', [
    ['1', 'Éamon Ó Cuív', 'Fianna Fáil', 'Elected', [1200, null, null]],
    ['2', 'Mary Lou McDonald', 'Sinn Féin', 'Not Elected', [700, 780, 880]],
    ['3', 'Brian Lenihan Jnr', 'Independent politician (Ireland)', 'Elected', [900, 1000, 1050]],
    ['4', 'Ruairí de Valera', 'Fianna Fáil', 'Excluded', [200, 210, null]],
  ]);
  const statistics = table(
    [
      ['constituency_key', 'text'],
      ['constituency', 'text'],
      ['seats', 'int4'],
      ['electorate', 'int4'],
      ['total_poll', 'int4'],
      ['spoiled', 'int4'],
      ['valid_poll', 'int4'],
      ['quota', 'int4'],
    ],
    [['north-side', 'Dún Laoghaire', 3, 5000, 3020, 20, 3000, 1001]],
  );
  const parties = table(
    [
      ['label', 'text'],
      ['party', 'text'],
      ['abbreviation', 'text'],
    ],
    [
      ['Fianna Fáil', 'Fianna Fáil', 'F.F.'],
      ['Sinn Féin', 'Sinn Féin', 'S.F.'],
      ['Independent politician (Ireland)', 'Non-Party', 'NON-P.'],
    ],
  );
  const names = table(
    [
      ['name', 'text'],
      ['ainm', 'text'],
    ],
    [['Dun Laoghaire', 'Dún Laoghaire']],
  );
  const options = { constituency_keys: { north: 'north-side' } };
  const dataset = {
    name: 'd',
    election: { date: '2024-11-29', body: 'x', seats: 3, ceannComhairle: { name: 'C', constituency: 'Dún Laoghaire' } },
  } as DatasetDefinition;

  test("candidate results: names split, parties named, the last count's state, the Irish name found by name", () => {
    const rows = candidateRows(totals, statistics, parties, names, options);
    assert.deepEqual(
      rows.map((r) => r.values),
      [
        {
          Constituency: 'Dún Laoghaire',
          Surname: 'Ó Cuív',
          Firstname: 'Éamon',
          'Gender Id': null,
          'Party Id': 'Fianna Fáil',
          'Party Abbreviation': 'F.F.',
          'Count Number': 3,
          'Required To Reach Quota': 0,
          'Required To Save Deposit': 0,
          Votes: 1200,
          Result: 'Elected',
          'Candidate Id': '1',
          'Constituency Number': 1,
          'Constituency Ainm': 'Dún Laoghaire',
        },
        {
          Constituency: 'Dún Laoghaire',
          Surname: 'McDonald',
          Firstname: 'Mary Lou',
          'Gender Id': null,
          'Party Id': 'Sinn Féin',
          'Party Abbreviation': 'S.F.',
          'Count Number': 3,
          'Required To Reach Quota': 121,
          'Required To Save Deposit': 0,
          Votes: 700,
          Result: '',
          'Candidate Id': '2',
          'Constituency Number': 1,
          'Constituency Ainm': 'Dún Laoghaire',
        },
        {
          Constituency: 'Dún Laoghaire',
          Surname: 'Lenihan Jnr',
          Firstname: 'Brian',
          'Gender Id': null,
          'Party Id': 'Non-Party',
          'Party Abbreviation': 'NON-P.',
          'Count Number': 3,
          'Required To Reach Quota': 0,
          'Required To Save Deposit': 0,
          Votes: 900,
          Result: 'Elected',
          'Candidate Id': '3',
          'Constituency Number': 1,
          'Constituency Ainm': 'Dún Laoghaire',
        },
        {
          Constituency: 'Dún Laoghaire',
          Surname: 'de Valera',
          Firstname: 'Ruairí',
          'Gender Id': null,
          'Party Id': 'Fianna Fáil',
          'Party Abbreviation': 'F.F.',
          'Count Number': 3,
          'Required To Reach Quota': 0,
          'Required To Save Deposit': 41,
          Votes: 200,
          Result: 'Excluded',
          'Candidate Id': '4',
          'Constituency Number': 1,
          'Constituency Ainm': 'Dún Laoghaire',
        },
      ],
    );
  });

  test("a party label the parties input does not name stops the load, naming the candidate's place", () => {
    const few = table(
      [
        ['label', 'text'],
        ['party', 'text'],
        ['abbreviation', 'text'],
      ],
      [['Fianna Fáil', 'Fianna Fáil', 'F.F.']],
    );
    assert.throws(() => candidateRows(totals, statistics, few, null, options), {
      message: /^fixture, line 5: the party label "Sinn Féin" is not in the parties input/,
    });
  });

  test("constituency results: statistics, counts, candidates, the Ceann Comhairle's seat left out", () => {
    const [row] = constituencyRows(
      totals,
      statistics,
      names,
      { ...options, seats_include_ceann_comhairle: true },
      dataset,
    );
    assert.deepEqual(row!.values, {
      'Constituency Name': 'Dún Laoghaire',
      'Constituency Ainm': 'Dún Laoghaire',
      'Count Number': 3,
      'Date Of Election': '2024-11-29',
      'Number Of Candidates': 4,
      'Number of Seats': 2,
      Quota: 1001,
      'Required Save Deposit': 251,
      'Seats Filled': 2,
      'Seats in Constituency': 2,
      Spoiled: 20,
      'Total Electorate': 5000,
      'Total Poll': 3020,
      'Valid Poll': 3000,
      'Constituency Number': 1,
    });
    const [counted] = constituencyRows(totals, statistics, null, options, dataset);
    assert.equal(
      counted!.values['Number of Seats'],
      3,
      "without the option the statistics' seats are taken as they are",
    );
    assert.equal(counted!.values['Constituency Ainm'], null);
  });

  test('count details: one record per candidate per count', () => {
    const rows = countDetailRows(totals, statistics, options);
    assert.equal(rows.length, 12);
    assert.deepEqual(rows[3]!.values, {
      'Constituency Name': 'Dún Laoghaire',
      'Candidate surname': 'McDonald',
      'Candidate First Name': 'Mary Lou',
      Result: '',
      'Count Number': 1,
      'Non-Transferable': null,
      'Occurred On Count': 0,
      'Required To Reach Quota': 301,
      'Required To Save Deposit': 0,
      Transfers: 0,
      Votes: 700,
      'Total Votes': 700,
      'Constituency Number': 1,
      'Candidate Id': '2',
    });
  });

  test('running totals and statistics must match one to one', () => {
    assert.throws(() => countDetailRows(totals, statistics, {}), {
      message: /the statistics have no constituency "north" \(name it in the option constituency_keys/,
    });
    const more = table(
      statistics.fields.map((f) => [f.id, f.type] as [string, FieldType]),
      [...statistics.rows.map((r) => r.values), ['south', 'South', 3, 1, 1, 0, 1, 1]],
    );
    assert.throws(() => countDetailRows(totals, more, options), {
      message: /^fixture, line 3: no running totals are for the constituency "south"/,
    });
  });
});

describe('names', () => {
  test('the surname is the last word with its particles and suffix; the two parts give the name back', () => {
    const cases: [string, string, string][] = [
      ['Éamon Ó Cuív', 'Éamon', 'Ó Cuív'],
      ['Pádraig Mac Lochlainn', 'Pádraig', 'Mac Lochlainn'],
      ['Hazel De Nortúin', 'Hazel', 'De Nortúin'],
      ['Mary Lou McDonald', 'Mary Lou', 'McDonald'],
      ['Paul Connaughton Jnr', 'Paul', 'Connaughton Jnr'],
      ['Pat "the Cope" Gallagher', 'Pat "the Cope"', 'Gallagher'],
      ["Jennifer Murnane O'Connor", 'Jennifer Murnane', "O'Connor"],
      ['Síomha Ní Aonghusa', 'Síomha', 'Ní Aonghusa'],
      ['Cher', '', 'Cher'],
      ['Ó Cuív', 'Ó', 'Cuív'],
    ];
    for (const [name, first, surname] of cases) {
      assert.deepEqual(splitName(name), { first, surname }, name);
      assert.equal([first, surname].filter(Boolean).join(' '), name);
    }
  });

  test('constituency names match across sources without accents, case, dashes or spacing', () => {
    assert.equal(nameKey('Dún Laoghaire'), nameKey('Dun Laoghaire'));
    assert.equal(nameKey('Carlow–Kilkenny'), nameKey('Carlow Kilkenny'));
    assert.equal(nameKey('Roscommon - Galway'), 'roscommon galway');
    assert.notEqual(nameKey('Laois'), nameKey('Laois Offaly'));
  });
});

/** Official count details as running totals, the way Wikipedia's tables give them, and the file's rows by candidate. */
function officialAsRunningTotals(file: string) {
  const rows = parse(iconv.decode(readFileSync(path.join(DATA_DIR, file)), 'windows-1252'), {
    columns: true,
  }) as Record<string, string>[];
  const byConstituency = new Map<string, Map<string, Record<string, string>[]>>();
  // The 2016 file does not keep each candidate's counts in order.
  for (const r of [...rows].sort((a, b) => Number(a['Count Number']) - Number(b['Count Number']))) {
    const constituencyRows =
      byConstituency.get(r['Constituency Number']!) ?? new Map<string, Record<string, string>[]>();
    byConstituency.set(r['Constituency Number']!, constituencyRows);
    constituencyRows.set(r['Candidate Id']!, [...(constituencyRows.get(r['Candidate Id']!) ?? []), r]);
  }
  return [...byConstituency.values()].map((candidates) => {
    let quota = 0;
    for (const rs of candidates.values())
      if (Number(rs[0]!['Required To Reach Quota']) > 0)
        quota = Number(rs[0]!['Required To Reach Quota']) + Number(rs[0]!['Total Votes']);
    const list = [...candidates].map(([id, rs]) => {
      const last = rs[rs.length - 1]!;
      const occurred = Number(last['Occurred On Count']);
      // Excluded at the last count, with votes left: Wikipedia calls that "not elected", and shows the last total.
      const status =
        last.Result === 'Elected'
          ? 'Elected'
          : last.Result === 'Excluded' && Number(last['Total Votes']) === 0
            ? 'Excluded'
            : 'Not Elected';
      const totals = rs.map((r, i) =>
        (status === 'Excluded' && i + 1 >= occurred) || (status === 'Elected' && i + 1 > occurred)
          ? null
          : Number(r['Total Votes']),
      );
      return { ...candidate(id, status, totals), rows: rs };
    });
    return { quota, constituency: constituency(list), list };
  });
}

function compareWithOfficial(file: string): string[] {
  const differences: string[] = [];
  for (const { quota, constituency: c, list } of officialAsRunningTotals(file)) {
    deriveCounts(c, quota).forEach((derived, i) => {
      derived.states.forEach((s, k) => {
        const r = list[i]!.rows[k]!;
        const official = {
          result: r.Result,
          occurredOn: Number(r['Occurred On Count']),
          total: Number(r['Total Votes']),
          transfer: Number(r.Transfers),
          requiredToReachQuota: Number(r['Required To Reach Quota']),
          requiredToSaveDeposit: Number(r['Required To Save Deposit']),
        };
        // What the running totals cannot tell: an exclusion at the last count, which moved no votes.
        if (list[i]!.status === 'Not Elected' && official.result === 'Excluded') official.result = '';
        for (const [key, value] of Object.entries(official)) {
          if (s[key as keyof typeof s] !== value)
            differences.push(
              `${r['Constituency Name']} ${r['Candidate surname']} count ${s.count} ${key}: ${s[key as keyof typeof s]} for ${value}`,
            );
        }
      });
    });
  }
  return differences;
}

describe('the rules reproduce the official count details from their own running totals', () => {
  test('2020: every record, every field but Non-Transferable', () => {
    assert.deepEqual(compareWithOfficial('2020/elections2.csv'), []);
  });

  test('2016: every record, except where the 2016 file follows other conventions', () => {
    const differences = compareWithOfficial('2016/generalelection2016countdetails.csv');
    // 2016 gives 0 as the last count's "occurred on" of a candidate still in it (2020 gives the last count), and its
    // Galway West records lack one vote less of the threshold after count 1 than at it.
    const other = differences.filter(
      (d) =>
        !/^Galway West .* requiredToSaveDeposit: (\d+) for (\d+)$/.test(d) ||
        (() => {
          const [, ours, theirs] = /(\d+) for (\d+)$/.exec(d)!;
          return Number(ours) - Number(theirs) !== 1;
        })(),
    );
    assert.deepEqual(other, [
      'Dún Laoghaire Hanafin count 7 occurredOn: 7 for 0',
      'Meath West Butler count 6 occurredOn: 6 for 0',
    ]);
    assert.equal(differences.length, 93);
  });
});
