// The election arithmetic against figures checked by hand from the 2020 files (count details, candidates and
// constituencies): what each count distributed, the votes that went no further, who was elected on which count,
// party totals, quarter-quota passes, and comparisons between elections on small made-up ones.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  compareElections,
  compareSurnames,
  displayName,
  Election,
  sheetAfterCount,
  slugOf,
  surnameSortKey,
  type ElectionRecords,
  type RecordObject,
} from '../../src/elections/index.js';
import { election2020Records, house2020 } from '../helpers/election-files.js';

const election = new Election(election2020Records(), house2020());
const name = (c: { surname: string }) => c.surname;

describe('reading 2020', () => {
  test('every record is read and joined, with nothing to report', () => {
    assert.deepEqual(election.data.problems, []);
    assert.equal(election.constituencies.length, 39);
    assert.equal(election.data.candidates.length, 531);
    assert.equal(election.data.counts.length, 5015);
  });

  test('constituencies are keyed by name, whichever spelling the files use, and joined by number', () => {
    const dbs = election.constituency('dublin-bay-south')!;
    assert.deepEqual(
      { ...dbs },
      {
        key: 'dublin-bay-south',
        number: 17,
        name: 'Dublin Bay South',
        nameGa: 'Cuan Bhaile Átha Cliath Theas',
        seats: 4,
        electorate: 80764,
        totalPoll: 39859,
        spoiled: 268,
        validPoll: 39591,
        quota: 7919,
        quarterQuota: 1980,
        counts: 8,
        recordId: 15,
        returnedAutomatically: 0,
      },
    );
    assert.equal(election.constituency('kildare-south')!.returnedAutomatically, 1);
    // "Carlow Kilkenny" in the constituencies file, "Carlow-Kilkenny" in the others.
    assert.equal(election.candidates('carlow-kilkenny').length, 14);
    assert.equal(election.constituency('dun-laoghaire')!.name, 'Dún Laoghaire');
  });
});

describe('the count in Dublin Bay South, 2020', () => {
  const sheet = election.sheet('dublin-bay-south')!;

  test('what each count distributed', () => {
    assert.deepEqual(
      sheet.steps.map((s) =>
        s.distribution.kind === 'first'
          ? 'first preferences'
          : `${s.distribution.kind} of ${s.distribution.from.map(name).join(', ')}: ${s.distribution.votes}`,
      ),
      [
        'first preferences',
        'surplus of Ryan: 969',
        "exclusion of Burke, Keigher, O'Leary: 178",
        'exclusion of Dooley, Scallan: 572',
        'exclusion of Flynn: 753',
        'exclusion of Gilbourne: 847',
        'exclusion of Durcan, Mooney: 3492',
        'exclusion of Humphreys: 4971',
      ],
    );
  });

  test('non-transferable votes per count and in all: the drop in the sum of running totals', () => {
    assert.deepEqual(
      sheet.steps.map((s) => s.nonTransferable),
      [0, 0, 10, 41, 68, 251, 420, 1055],
    );
    assert.equal(sheet.steps.at(-1)!.nonTransferableSoFar, 1845);
    // 39,591 valid votes, 37,746 still with a candidate after the last count.
    assert.equal(39591 - 1845, 37746);
  });

  test('who was elected, on which count and in what order', () => {
    assert.deepEqual(
      sheet.elected.map((s) => [name(s.candidate), s.elected!.count, s.elected!.order, s.cells.at(-1)!.total]),
      [
        ['Ryan', 1, 1, 7919],
        ['Andrews', 8, 2, 8797],
        ['Murphy', 8, 3, 7602],
        ["O'Callaghan", 8, 4, 7158],
      ],
    );
  });

  test('rows in order of first preferences; cells give each transfer and running total, and the events', () => {
    assert.deepEqual(
      sheet.candidates.slice(0, 3).map((s) => name(s.candidate)),
      ['Ryan', 'Andrews', 'Murphy'],
    );
    const ryan = sheet.candidates[0]!;
    assert.deepEqual(ryan.cells.slice(0, 3), [
      { count: 1, transfer: null, total: 8888, event: 'elected' },
      { count: 2, transfer: -969, total: 7919, event: null },
      { count: 3, transfer: 0, total: 7919, event: null },
    ]);
    const burke = sheet.candidates.find((s) => s.candidate.surname === 'Burke')!;
    assert.deepEqual(burke.cells.slice(0, 4), [
      { count: 1, transfer: null, total: 110, event: null },
      { count: 2, transfer: 6, total: 116, event: null },
      { count: 3, transfer: -116, total: null, event: 'excluded' },
      { count: 4, transfer: null, total: null, event: null },
    ]);
    assert.equal(burke.excludedAt, 3);
  });

  test("transfers worked out from running totals agree with the file's Transfers column", () => {
    const rows = election.data.counts.filter((r) => r.constituencyKey === 'dublin-bay-south' && r.count > 1);
    for (const row of rows) {
      const candidate = sheet.candidates.find((s) => s.candidate.candidateId === row.candidateId)!;
      const cell = candidate.cells[row.count - 1]!;
      if (cell.transfer !== null)
        assert.equal(cell.transfer, row.transfers, `${candidate.candidate.surname} count ${row.count}`);
    }
  });

  test("where Ryan's surplus went, largest share first", () => {
    assert.deepEqual(
      sheet.steps[1]!.gains.slice(0, 3).map((g) => [name(g.candidate), g.votes]),
      [
        ['Humphreys', 234],
        ['Durcan', 187],
        ["O'Connell", 161],
      ],
    );
    assert.equal(
      sheet.steps[1]!.gains.reduce((s, g) => s + g.votes, 0),
      969,
    );
  });

  test('a quarter of the quota (1,980) was passed by seven candidates', () => {
    assert.deepEqual(
      sheet.candidates.filter((s) => s.reachedQuarterQuota).map((s) => name(s.candidate)),
      ['Ryan', 'Andrews', 'Murphy', "O'Callaghan", "O'Connell", 'Humphreys', 'Durcan'],
    );
  });

  test('the state after a count: later counts and elections undone', () => {
    const after2 = sheetAfterCount(sheet, 2);
    assert.equal(after2.steps.length, 2);
    assert.deepEqual(
      after2.elected.map((s) => name(s.candidate)),
      ['Ryan'],
    );
    assert.equal(after2.candidates.find((s) => s.candidate.surname === 'Burke')!.excludedAt, null);
    assert.equal(sheetAfterCount(sheet, 99).steps.length, 8);
    assert.equal(sheetAfterCount(sheet, -3).steps.length, 1);
  });
});

describe('national and party totals, 2020', () => {
  test('national totals: 159 seats contested and the Ceann Comhairle, 160 in the Dáil', () => {
    assert.deepEqual(
      { ...election.totals },
      {
        seats: 159,
        returnedAutomatically: 1,
        houseSeats: 160,
        constituencies: 39,
        candidates: 531,
        electorate: 3509969,
        totalPoll: 2201192,
        validPoll: 2183489,
        spoiled: 17703,
        turnout: 2201192 / 3509969,
        elected: 159,
        women: 161,
        womenElected: 36,
      },
    );
  });

  test('party totals, largest first preferences first; Fianna Fáil 38 with the Ceann Comhairle, as the Dáil counts', () => {
    const rows = election.parties
      .slice(0, 4)
      .map((p) => [
        p.party,
        p.firstPreferences,
        p.candidates,
        p.elected,
        p.returnedAutomatically,
        p.seats,
        p.women,
        p.reachedQuarterQuota,
      ]);
    assert.deepEqual(rows, [
      ['Sinn Féin', 535573, 42, 37, 0, 37, 14, 42],
      ['Fianna Fáil', 484315, 84, 37, 1, 38, 26, 77],
      ['Fine Gael', 455568, 82, 35, 0, 35, 25, 73],
      ['Non-Party', 268392, 130, 19, 0, 19, 24, 41],
    ]);
    const sf = election.party('sinn-fein')!;
    assert.equal(sf.voteShare.toFixed(4), (535573 / 2183489).toFixed(4));
    assert.equal(sf.seatShare.toFixed(4), (37 / 160).toFixed(4));
    assert.equal(election.party('fianna-fail')!.seatShare.toFixed(4), (38 / 160).toFixed(4));
    assert.equal(
      election.parties.reduce((s, p) => s + p.reachedQuarterQuota, 0),
      319,
    );
    assert.equal(
      election.parties.reduce((s, p) => s + p.elected, 0),
      159,
    );
    assert.equal(
      election.parties.reduce((s, p) => s + p.seats, 0),
      160,
    );
    assert.equal(election.parties.reduce((s, p) => s + p.seatShare, 0).toFixed(10), (1).toFixed(10));
  });

  test('the records alone, with no house described, count the seats filled at the count', () => {
    const bare = new Election(election2020Records());
    assert.deepEqual([bare.totals.seats, bare.totals.houseSeats, bare.party('fianna-fail')!.seats], [159, 159, 37]);
    assert.equal(bare.party('sinn-fein')!.seatShare.toFixed(4), (37 / 159).toFixed(4));
  });
});

describe('the Ceann Comhairle returned automatically', () => {
  const records = () =>
    fixture(
      [
        ['North', 2],
        ['South', 1],
      ],
      [
        ['North', 'A', 'Fianna Fáil', 60, 'Elected'],
        ['North', 'B', 'Fine Gael', 40, 'Elected'],
        ['South', 'C', 'Fine Gael', 100, 'Elected'],
      ],
    );
  const house = (party: string | null, constituency = 'South') => ({
    seats: 4,
    ceannComhairle: { name: 'Cathaoirleach', constituency, party },
  });
  const seatsOf = (e: Election) =>
    e.parties.map((p) => [p.party, p.elected, p.seats, Number((p.seatShare * 4).toFixed(6))]);

  test('counts for their party, matched as the comparison matches names ("Fianna Fail" finds "Fianna Fáil")', () => {
    const e = new Election(records(), house('Fianna Fail'));
    assert.deepEqual(seatsOf(e), [
      ['Fine Gael', 2, 2, 2],
      ['Fianna Fáil', 1, 2, 2],
    ]);
    assert.deepEqual([e.totals.seats, e.totals.houseSeats], [3, 4]);
    assert.deepEqual(
      e.constituencies.map((c) => [c.key, c.seats, c.returnedAutomatically]),
      [
        ['north', 2, 0],
        ['south', 1, 1],
      ],
    );
    assert.deepEqual(e.data.problems, []);
  });

  test('a party that ran no candidate gets a row of its own; a party not given, a row named for the seat', () => {
    assert.deepEqual(seatsOf(new Election(records(), house('Independent Alliance'))).at(-1), [
      'Independent Alliance',
      0,
      1,
      1,
    ]);
    assert.deepEqual(seatsOf(new Election(records(), house(null))).at(-1), [
      'The Ceann Comhairle (party not given)',
      0,
      1,
      1,
    ]);
  });

  test('a constituency that matches none is reported, and the seat still counted nationally', () => {
    const e = new Election(records(), house('Fine Gael', 'Nowhere'));
    assert.deepEqual(e.data.problems, [
      'The Ceann Comhairle\'s constituency, "Nowhere", matches no constituency; their seat is counted nationally only.',
    ]);
    assert.equal(e.totals.houseSeats, 4);
    assert.equal(e.party('fine-gael')!.seats, 3);
  });

  test('the comparison counts the seat in both elections and marks it', () => {
    const earlier = new Election(records(), house('Fine Gael'));
    const later = new Election(records(), house('Fianna Fáil'));
    const summary = (e: Election, n: string) => ({
      name: n,
      label: n,
      house: e.house,
      totals: e.totals,
      parties: e.parties,
      constituencies: e.constituencies,
    });
    const comparison = compareElections(summary(earlier, 'then'), summary(later, 'now'));
    assert.deepEqual(
      comparison.parties.map((p) => [p.party, p.seats, p.ceannComhairle, p.seatChange]),
      [
        ['Fine Gael', [3, 2], [true, false], -1],
        ['Fianna Fáil', [1, 2], [false, true], 1],
      ],
    );
    assert.deepEqual(
      comparison.constituencies.map((c) => [c.name, c.seats, c.ceannComhairle, c.status]),
      [
        ['North', [2, 2], [false, false], 'same'],
        ['South', [2, 2], [true, true], 'same'],
      ],
    );
  });
});

/** A small election: one constituency per entry of `seats`, candidates given as [surname, party, votes, result]. */
function fixture(
  constituencies: [string, number][],
  candidates: [string, string, string, number, string][],
): ElectionRecords {
  const constituencyRecords: RecordObject[] = constituencies.map(([n, seats], i) => ({
    _id: i + 1,
    'Constituency Name': n,
    'Number of Seats': seats,
    'Valid Poll': 100,
    'Total Poll': 110,
    'Total Electorate': 200,
  }));
  const candidateRecords: RecordObject[] = candidates.map(([constituency, surname, party, votes, result], i) => ({
    _id: i + 1,
    Constituency: constituency,
    Surname: surname,
    'Party Id': party,
    Votes: votes,
    Result: result,
    'Candidate Id': i + 1,
  }));
  return {
    constituencies: {
      fields: ['Constituency Name', 'Number of Seats', 'Valid Poll', 'Total Poll', 'Total Electorate'],
      records: constituencyRecords,
    },
    candidates: {
      fields: ['Constituency', 'Surname', 'Party Id', 'Votes', 'Result', 'Candidate Id'],
      records: candidateRecords,
    },
    counts: null,
  };
}

describe('comparing elections', () => {
  const earlier = new Election(
    fixture(
      [
        ['North', 2],
        ['Old Town', 1],
      ],
      [
        ['North', 'A', 'The Labour Party', 40, 'Elected'],
        ['North', 'B', 'Fianna Fáil', 60, 'Elected'],
        ['Old Town', 'C', 'Fianna Fáil', 100, 'Elected'],
      ],
    ),
  );
  const later = new Election(
    fixture(
      [
        ['North', 3],
        ['New Town', 1],
      ],
      [
        ['North', 'A', 'Labour Party', 50, 'Elected'],
        ['North', 'B', 'Fianna Fail', 30, 'Elected'],
        ['North', 'D', 'Greens', 20, 'Elected'],
        ['New Town', 'E', 'Greens', 100, 'Elected'],
      ],
    ),
  );
  const summary = (e: Election, n: string) => ({
    name: n,
    label: n,
    house: e.house,
    totals: e.totals,
    parties: e.parties,
    constituencies: e.constituencies,
  });
  const comparison = compareElections(summary(earlier, 'then'), summary(later, 'now'));

  test('parties match across spellings; shares and seats change', () => {
    assert.deepEqual(
      comparison.parties.map((p) => [
        p.party,
        p.voteShare,
        p.seats,
        p.shareChange === null ? null : Math.round(p.shareChange),
        p.seatChange,
      ]),
      [
        ['Greens', [null, 0.6], [null, 2], null, null],
        ['Labour Party', [0.2, 0.25], [1, 1], 5, 0],
        ['Fianna Fail', [0.8, 0.15], [2, 1], -65, -1],
      ],
    );
  });

  test('constituencies matched by name; redrawn ones and changed seats flagged', () => {
    assert.deepEqual(
      comparison.constituencies.map((c) => [c.name, c.status, c.seats]),
      [
        ['New Town', 'only-later', [null, 1]],
        ['North', 'seats', [2, 3]],
        ['Old Town', 'only-earlier', [1, null]],
      ],
    );
    assert.deepEqual(comparison.turnout, [220 / 400, 220 / 400]);
  });

  test('an election without a constituencies resource derives them from its candidates', () => {
    const records = fixture(
      [['North', 2]],
      [
        ['North', 'A', 'X', 30, 'Elected'],
        ['North', 'B', 'Y', 20, ''],
      ],
    );
    const e = new Election({ ...records, constituencies: null });
    assert.deepEqual(e.data.problems, []);
    assert.deepEqual(
      e.constituencies.map((c) => [c.key, c.seats, c.validPoll, c.quota, c.quarterQuota]),
      [['north', 1, 50, 26, 7]],
    );
  });

  test('missing fields are reported, not thrown', () => {
    const e = new Election({
      candidates: { fields: ['Surname'], records: [{ Surname: 'A' }] },
      constituencies: null,
      counts: null,
    });
    assert.equal(e.data.candidates.length, 0);
    assert.match(e.data.problems.join(' '), /no Constituency \/ Constituency Name field/);
  });
});

describe('names', () => {
  test('keys ignore fadas, case and punctuation', () => {
    assert.equal(slugOf('Dún Laoghaire'), 'dun-laoghaire');
    assert.equal(slugOf('Carlow Kilkenny'), slugOf('Carlow-Kilkenny'));
    assert.equal(slugOf('Green Party/ Comhaontas Glas'), 'green-party-comhaontas-glas');
  });

  test('Irish surnames sort with their prefixes and without fadas', () => {
    const people = [
      'Ó Ríordáin',
      "O'Brien",
      'Nolan',
      'McDonald',
      'MacSharry',
      "Ó'Broin",
      'Murphy',
      'Mac Lochlainn',
      'Ní Riada',
    ].map((surname) => ({ surname, firstName: '' }));
    assert.deepEqual(
      people.sort(compareSurnames).map((p) => p.surname),
      ['McDonald', 'Mac Lochlainn', 'MacSharry', 'Murphy', 'Ní Riada', 'Nolan', "O'Brien", "Ó'Broin", 'Ó Ríordáin'],
    );
    assert.equal(surnameSortKey("Ó'Ríordáin"), surnameSortKey('O Riordain'));
  });

  test('upper-case names read as names', () => {
    assert.equal(displayName('AYLWARD'), 'Aylward');
    assert.equal(displayName('MURNANE O’CONNOR'), 'Murnane O’Connor');
    assert.equal(displayName('MCDONALD'), 'McDonald');
    assert.equal(displayName('Micheál'), 'Micheál');
  });
});
