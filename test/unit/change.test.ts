// What changed since the election before, against figures worked by hand from the official 2016 and 2020 candidate
// files: Fine Gael's 50 seats (49 and the Ceann Comhairle) to 35 and 25.52 % to 20.86 % of first preferences,
// Sinn Féin's 23 to 37 and 13.85 % to 24.53 %, Dublin Bay South's Fine Gael seat won by Sinn Féin; the majority line of
// the 2020 Dáil; and the reviewed constituency lineage read as links between consecutive elections.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ConstituencyLineage,
  constituencySwing,
  Election,
  handsText,
  majorityArithmetic,
  partyMatchKey,
  partySwing,
  partySwingsAt,
  tallyOf,
  type ConstituencyLink,
  type PartyLine,
  type PartyTotals,
} from '../../src/elections/index.js';
import { loadPlaces } from '../../src/web/places.js';
import { election2020Records, house2020 } from '../helpers/election-files.js';

/** A party's national totals as the tables have them; only the figures the change reads matter here. */
function totals(party: string, seats: number, firstPreferences: number, validPoll: number): PartyTotals {
  return {
    key: party.toLowerCase().replace(/\W+/g, '-'),
    party,
    abbreviation: party.slice(0, 2).toUpperCase(),
    candidates: 0,
    elected: seats,
    returnedAutomatically: 0,
    seats,
    women: null,
    womenElected: null,
    firstPreferences,
    voteShare: firstPreferences / validPoll,
    seatShare: 0,
    reachedQuarterQuota: 0,
  };
}

// The official files' first preferences, all candidates: 2,132,895 in 2016 and 2,183,489 in 2020.
const VALID_2016 = 2_132_895;
const VALID_2020 = 2_183_489;

describe('a party since the election before, worked by hand', () => {
  test('Fine Gael 2016 → 2020: 50 → 35 seats (−15), 25.52 % → 20.86 % (−4.65 points, −4.7 to one place)', () => {
    // 2016: 49 elected and Seán Barrett, Ceann Comhairle, returned automatically: 50.
    const change = partySwing(
      totals('Fine Gael', 50, 544_230, VALID_2016),
      totals('Fine Gael', 35, 455_568, VALID_2020),
    );
    assert.equal(change.seatChange, -15);
    assert.deepEqual(change.seats, [50, 35]);
    // 544,230 / 2,132,895 = 25.5160 %; 455,568 / 2,183,489 = 20.8642 %.
    assert.equal(change.shares[0]!.toFixed(6), '0.255160');
    assert.equal(change.shares[1]!.toFixed(6), '0.208642');
    assert.equal(change.swing.toFixed(4), '-4.6518');
    assert.equal(change.stood, 'both');
  });

  test('Sinn Féin 2016 → 2020: 23 → 37 seats (+14), 13.85 % → 24.53 % (+10.7 points)', () => {
    const change = partySwing(
      totals('Sinn Féin', 23, 295_313, VALID_2016),
      totals('Sinn Féin', 37, 535_573, VALID_2020),
    );
    assert.equal(change.seatChange, 14);
    // 295,313 / 2,132,895 = 13.8456 %; 535,573 / 2,183,489 = 24.5283 %.
    assert.equal(change.swing.toFixed(4), '10.6827');
  });

  test('the swing is from unrounded shares, not the difference of the rounded ones', () => {
    // Fianna Fáil: 519,353 / 2,132,895 = 24.3497 % and 484,315 / 2,183,489 = 22.1808 %: −2.1689, though 22.2 − 24.3 = −2.1.
    const change = partySwing(
      totals('Fianna Fáil', 44, 519_353, VALID_2016),
      totals('Fianna Fáil', 38, 484_315, VALID_2020),
    );
    assert.equal(change.swing.toFixed(4), '-2.1689');
    assert.equal(change.seatChange, -6);
  });

  test('a party new at the later election gains all it won; one gone loses all it had', () => {
    const aontu = partySwing(null, totals('Aontú', 1, 40_057, VALID_2020));
    assert.deepEqual([aontu.seatChange, aontu.stood, aontu.seats], [1, 'later only', [null, 1]]);
    assert.equal(aontu.swing.toFixed(4), '1.8345');
    const gone = partySwing(totals('Anti-Austerity Alliance', 6, 84_168, VALID_2016), null);
    assert.deepEqual([gone.seatChange, gone.stood], [-6, 'earlier only']);
  });

  test('the lines across elections: the standing parties by seats, those gone last; none for the first election', () => {
    const line = (party: string, a: PartyTotals | null, b: PartyTotals | null): PartyLine => ({
      key: party,
      party,
      abbreviation: party,
      totals: [a, b],
      lineage: [],
    });
    const lines = [
      line('Gone', totals('Gone', 2, 10, 100), null),
      line('Small', null, totals('Small', 1, 5, 100)),
      line('Big', totals('Big', 3, 40, 100), totals('Big', 5, 50, 100)),
    ];
    assert.deepEqual(
      partySwingsAt(lines, 1).map((c) => [c.party, c.seatChange]),
      [
        ['Big', 2],
        ['Small', 1],
        ['Gone', -2],
      ],
    );
    assert.deepEqual(partySwingsAt(lines, 0), []);
  });
});

describe('the majority line of the 2020 Dáil', () => {
  const election = new Election(election2020Records(), house2020());
  const arithmetic = majorityArithmetic(election.totals, election.parties);

  test('160 seats, 81 a majority; the Ceann Comhairle votes only to break a tie, so 80 of the 159 who vote', () => {
    assert.deepEqual(
      [arithmetic.houseSeats, arithmetic.majority, arithmetic.votingSeats, arithmetic.votingMajority],
      [160, 81, 159, 80],
    );
    assert.equal(arithmetic.ceannComhairle, true);
  });

  test("the parties' seats add up to the house's 160, Fianna Fáil's 38 counting the Ceann Comhairle", () => {
    assert.equal(arithmetic.partySeats, 160);
    assert.deepEqual(
      arithmetic.parties.slice(0, 3).map((p) => [p.party, p.seats]),
      [
        ['Fianna Fáil', 38],
        ['Sinn Féin', 37],
        ['Fine Gael', 35],
      ],
    );
  });

  test('the largest three in pairs and together: no two reach 81, all three do', () => {
    assert.deepEqual(
      arithmetic.combinations.map((c) => [c.parties.join(' + '), c.seats, c.short]),
      [
        ['Fianna Fáil + Sinn Féin', 75, 6],
        ['Fianna Fáil + Fine Gael', 73, 8],
        ['Sinn Féin + Fine Gael', 72, 9],
        ['Fianna Fáil + Sinn Féin + Fine Gael', 110, 0],
      ],
    );
  });
});

describe('Dublin Bay South 2016 → 2020, worked by hand from the candidate files', () => {
  const candidate = (party: string, firstPreferences: number, elected = false) => ({
    party,
    partyAbbreviation: party,
    firstPreferences,
    result: elected ? 'Elected' : '',
  });
  // Each party's candidates added up; the elected ones marked. 2016: Murphy and O'Connell (FG), O'Callaghan (FF),
  // Ryan (GP). 2020: Ryan, O'Callaghan, Andrews (SF), Murphy.
  const in2016 = [
    candidate('Fine Gael', 6_000, true),
    candidate('Fine Gael', 5_966, true),
    candidate('Fianna Fáil', 4_575, true),
    candidate('Green Party/Comhaontas Glas', 4_529, true),
    candidate('Renua Ireland', 4_229),
    candidate('The Labour Party', 4_205),
    candidate('Sinn Féin', 3_774),
    candidate('Social Democrats', 2_652),
    candidate('Non-Party', 2_045),
    candidate('Anti-Austerity Alliance–People Before Profit', 1_728),
  ];
  const in2020 = [
    candidate('Fine Gael', 10_970, true),
    candidate('Green Party/ Comhaontas Glas', 8_888, true),
    candidate('Sinn Féin', 6_361, true),
    candidate('Fianna Fáil', 5_474, true),
    candidate('The Labour Party', 3_121),
    candidate('Social Democrats', 1_801),
    candidate('Non-Party', 1_095),
    candidate('Solidarity - People Before Profit', 1_002),
    candidate('Renua Ireland', 634),
    candidate('Irish Freedom Party', 245),
  ];
  const lineOf = (party: string) =>
    /people before profit/i.test(party) ? 'people before profit' : partyMatchKey(party).replace(/ comhaontas glas/, '');
  const seats = { seats: 4, returnedAutomatically: 0 };
  const change = constituencySwing(tallyOf(seats, in2016, lineOf, null), tallyOf(seats, in2020, lineOf, null));
  const of = (party: string) => change.parties.find((p) => p.party === party)!;

  test('Sinn Féin gain from Fine Gael, the other seats held', () => {
    assert.deepEqual(change.gains, [{ party: 'Sinn Féin', from: 'Fine Gael' }]);
    assert.deepEqual(change.losses, [{ party: 'Fine Gael', to: 'Sinn Féin' }]);
    assert.deepEqual(change.seats, [4, 4]);
    assert.deepEqual(of('Fine Gael').seats, [2, 1]);
    assert.equal(handsText(change, 'Sinn Féin'), 'gain from Fine Gael');
    assert.equal(handsText(change, 'Fine Gael'), 'loss to Sinn Féin');
    assert.equal(handsText(change, 'Fianna Fáil'), '');
  });

  test('shares of 39,703 and 39,591 first preferences: Fine Gael −2.4, the Greens +11.0, Sinn Féin +6.6 points', () => {
    // Fine Gael 11,966 / 39,703 = 30.1388 % → 10,970 / 39,591 = 27.7083 %: −2.4305 (the shares rounded to three places
    // would give −2.431).
    assert.equal(of('Fine Gael').swing.toFixed(4), '-2.4305');
    // The Greens 4,529 / 39,703 = 11.407 % → 8,888 / 39,591 = 22.450 %, one party under two spellings.
    assert.equal(of('Green Party/ Comhaontas Glas').swing.toFixed(3), '11.042');
    // Sinn Féin 3,774 / 39,703 = 9.506 % → 6,361 / 39,591 = 16.067 %.
    assert.equal(of('Sinn Féin').swing.toFixed(3), '6.561');
    // The Irish Freedom Party had no candidate in 2016: its swing is its whole share, 245 / 39,591.
    assert.deepEqual(of('Irish Freedom Party').shares[0], null);
    assert.equal(of('Irish Freedom Party').swing.toFixed(3), '0.619');
    // People Before Profit, renamed, is one line: 4.352 % → 2.531 %.
    assert.equal(of('Solidarity - People Before Profit').swing.toFixed(3), '-1.821');
  });

  test('a seat more is a gain from nobody; a seat fewer a loss to nobody; the Ceann Comhairle counts for the party', () => {
    const more = constituencySwing(
      tallyOf(
        { seats: 3, returnedAutomatically: 0 },
        [candidate('A', 10, true), candidate('B', 9, true)],
        String,
        null,
      ),
      tallyOf(
        { seats: 3, returnedAutomatically: 1 },
        [candidate('A', 10, true), candidate('B', 9, true), candidate('C', 8, true)],
        String,
        { party: 'A', abbreviation: 'A' },
      ),
    );
    assert.deepEqual(more.seats, [3, 4]);
    assert.deepEqual(more.gains, [
      { party: 'A', from: null },
      { party: 'C', from: null },
    ]);
    assert.deepEqual(more.losses, []);
    const fewer = constituencySwing(
      tallyOf(
        { seats: 2, returnedAutomatically: 0 },
        [candidate('A', 10, true), candidate('B', 9, true)],
        String,
        null,
      ),
      tallyOf({ seats: 1, returnedAutomatically: 0 }, [candidate('A', 10, true), candidate('B', 9)], String, null),
    );
    assert.deepEqual(fewer.losses, [{ party: 'B', to: null }]);
    assert.equal(handsText(more, 'C'), 'new seat');
    assert.equal(handsText(fewer, 'B'), 'seat gone');
  });
});

describe('the constituency lineage', () => {
  const elections = [
    {
      name: 'e1',
      constituencies: [
        { key: 'north', name: 'North' },
        { key: 'south', name: 'South' },
      ],
    },
    {
      name: 'e2',
      constituencies: [
        { key: 'north', name: 'North' },
        { key: 'bay', name: 'Bay' },
      ],
    },
    {
      name: 'e3',
      constituencies: [
        { key: 'bay', name: 'Bay' },
        { key: 'north-east', name: 'North East' },
      ],
    },
  ];
  const link = (
    election: string,
    constituency: string,
    predecessorElection: string,
    predecessor: string,
    relation: ConstituencyLink['relation'],
  ): ConstituencyLink => ({ election, constituency, predecessorElection, predecessor, relation, evidence: 'by hand' });
  const lineage = new ConstituencyLineage(
    [
      link('e2', 'North', 'e1', 'North', 'same'),
      link('e2', 'Bay', 'e1', 'South', 'continues'),
      link('e2', 'Bay', 'e1', 'North', 'from'),
      link('e3', 'Bay', 'e2', 'Bay', 'continues'),
      link('e3', 'North East', 'e2', 'North', 'from'),
      link('e3', 'Nowhere', 'e2', 'North', 'from'),
      link('e3', 'Bay', 'e1', 'South', 'same'),
    ],
    elections,
  );

  test('compared with what it is or continues (renamed too); only taken in from, not compared', () => {
    assert.equal(lineage.comparedWith('e2', 'bay')?.constituency.name, 'South');
    assert.equal(lineage.comparedWith('e3', 'north-east'), null);
    assert.deepEqual(
      lineage.predecessors('e3', 'north-east').map((l) => [l.constituency.name, l.relation]),
      [['North', 'from']],
    );
    assert.deepEqual(
      lineage.successors('e1', 'north').map((l) => [l.constituency.election, l.constituency.name, l.relation]),
      [
        ['e2', 'North', 'same'],
        ['e2', 'Bay', 'from'],
      ],
    );
  });

  test('the same constituency at every other election, through renames; a link to a missing one is reported', () => {
    assert.deepEqual(
      lineage.sameAt('e3', 'bay').map((r) => `${r.election} ${r.name}`),
      ['e1 South', 'e2 Bay'],
    );
    assert.deepEqual(
      lineage.sameAt('e1', 'north').map((r) => `${r.election} ${r.name}`),
      ['e2 North'],
    );
    // The link skipping e2 is not used; the one naming "Nowhere" is a problem.
    assert.deepEqual(lineage.problems, [
      'The constituency lineage names "Nowhere" in e3, which that election does not have.',
    ]);
    assert.equal(lineage.hasEarlier('e1'), false);
  });

  test("the repository's reviewed lineage: every 2020 constituency compared or explained, every row with evidence", () => {
    const { lineage: links } = loadPlaces();
    const election = new Election(election2020Records(), house2020());
    const in2020 = links.filter((l) => l.election === 'general-election-2020');
    const named = new Set(in2020.map((l) => l.constituency));
    assert.deepEqual(
      election.constituencies.filter((c) => !named.has(c.name)).map((c) => c.name),
      [],
    );
    // Laois–Offaly was made of two; Dublin Bay South was left as it was.
    assert.deepEqual(
      in2020.filter((l) => l.constituency === 'Laois-Offaly').map((l) => [l.predecessor, l.relation]),
      [
        ['Laois', 'from'],
        ['Offaly', 'from'],
      ],
    );
    assert.deepEqual(
      in2020.filter((l) => l.constituency === 'Dublin Bay South').map((l) => l.relation),
      ['same'],
    );
    assert.ok(links.every((l) => l.evidence.length > 40));
  });
});
