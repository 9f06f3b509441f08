// Candidates across elections on small made-up candidacies: joined by folded name and constituency, or by a redrawn
// constituency and the same party; a match that could go two ways left as two people; reviewed exceptions applied
// both ways; names found by the start of their words, without fadas. And parties as lines across elections.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nameKey, partiesOverTime, peopleOf, type Candidacy, type PartyTotals } from '../../src/elections/index.js';
import { personEntry, search } from '../../src/web/search.js';

const YEARS: Record<string, string> = { e2011: '2011-02-25', e2016: '2016-02-26', e2020: '2020-02-08' };

function candidacy(
  election: string,
  constituency: string,
  name: string,
  party: string,
  extra: Partial<Candidacy> = {},
): Candidacy {
  const [firstName, ...rest] = name.split(' ');
  return {
    election,
    electionLabel: election,
    date: YEARS[election]!,
    official: election !== 'e2011',
    constituencyKey: constituency.toLowerCase(),
    constituencyName: constituency,
    candidateKey: `${constituency}/${name}`,
    firstName: firstName!,
    surname: rest.join(' '),
    recordedName: name,
    party,
    recordedParty: party,
    abbreviation: '',
    firstPreferences: 1000,
    share: 0.1,
    quotas: 0.5,
    result: 'elected',
    decidedOn: 1,
    counts: 5,
    recordId: 1,
    ...extra,
  };
}

const sameLine = (_election: string, party: string) => party;
const names = (people: ReturnType<typeof peopleOf>) =>
  people.people.map((p) => [p.name, p.candidacies.map((c) => `${c.election} ${c.constituencyName}`)]);

describe('people across elections', () => {
  test('the same folded name in the same constituency is one person, whatever the case, fadas or party', () => {
    const people = peopleOf(
      [
        candidacy('e2011', 'Cork South Central', 'Micheal Martin', 'Fianna Fáil'),
        candidacy('e2016', 'Cork South Central', 'MICHEÁL MARTIN', 'Fianna Fáil'),
        candidacy('e2020', 'Cork South Central', 'Micheál Martin', 'Independent'),
      ],
      [],
      sameLine,
    );
    assert.deepEqual(names(people), [
      ['Micheál Martin', ['e2011 Cork South Central', 'e2016 Cork South Central', 'e2020 Cork South Central']],
    ]);
    assert.equal(people.people[0]!.key, 'micheal-martin');
    // Spelt as the latest official record spells it; other spellings listed.
    assert.deepEqual(people.people[0]!.spellings, [{ name: 'Micheal Martin', elections: ['e2011'] }]);
  });

  test('a redrawn constituency that keeps a place name joins the same name of the same party; another party does not', () => {
    const people = peopleOf(
      [
        candidacy('e2011', 'Kerry South', 'Tom Fleming', 'Non-Party'),
        candidacy('e2016', 'Kerry', 'Tom Fleming', 'Non-Party'),
        candidacy('e2011', 'Wexford', 'Pat Kelly', 'Fine Gael'),
        candidacy('e2016', 'Wicklow', 'Pat Kelly', 'Fine Gael'),
        candidacy('e2011', 'Laois Offaly', 'Ann Byrne', 'Labour'),
        candidacy('e2016', 'Offaly', 'Ann Byrne', 'Sinn Féin'),
      ],
      [],
      sameLine,
    );
    assert.deepEqual(names(people), [
      ['Tom Fleming', ['e2011 Kerry South', 'e2016 Kerry']],
      ['Pat Kelly', ['e2011 Wexford']],
      ['Ann Byrne', ['e2011 Laois Offaly']],
      ['Pat Kelly', ['e2016 Wicklow']],
      ['Ann Byrne', ['e2016 Offaly']],
    ]);
    assert.deepEqual(
      people.people.map((p) => p.key),
      ['tom-fleming', 'pat-kelly', 'ann-byrne', 'pat-kelly-wicklow', 'ann-byrne-offaly'],
    );
  });

  test('a match that could go two ways stays two people, and each says so', () => {
    const people = peopleOf(
      [
        candidacy('e2011', 'Cork East', 'John Murphy', 'Fine Gael'),
        candidacy('e2011', 'Cork North West', 'John Murphy', 'Fine Gael'),
        candidacy('e2016', 'Cork North West', 'John Murphy', 'Fine Gael'),
        candidacy('e2016', 'Cork South West', 'Mary Ryan', 'Fianna Fáil'),
        candidacy('e2020', 'Cork North Central', 'Mary Ryan', 'Fianna Fáil'),
        candidacy('e2020', 'Cork East', 'Mary Ryan', 'Fianna Fáil'),
      ],
      [],
      sameLine,
    );
    // The same constituency wins over continuity alone: the Cork North West John Murphy is one person.
    assert.deepEqual(
      names(people).filter(([n]) => n === 'John Murphy'),
      [
        ['John Murphy', ['e2011 Cork East']],
        ['John Murphy', ['e2011 Cork North West', 'e2016 Cork North West']],
      ],
    );
    // Two 2020 candidacies could each be the 2016 Mary Ryan: neither is joined.
    const ryans = people.people.filter((p) => p.name === 'Mary Ryan');
    assert.deepEqual(
      ryans.map((p) => p.candidacies.length),
      [1, 1, 1],
    );
    assert.equal(ryans[0]!.ambiguous.length, 2);
  });

  test('reviewed exceptions: a name spelt two ways joined, a namesake kept apart, each with its evidence', () => {
    const people = peopleOf(
      [
        candidacy('e2016', 'Donegal', 'Willie Aird', 'Non-Party'),
        candidacy('e2020', 'Donegal', 'William Aird', 'Non-Party'),
        candidacy('e2016', 'Kildare North', 'James Lawless', 'Fianna Fáil'),
        candidacy('e2020', 'Kildare North', 'James Lawless', 'Fianna Fáil'),
      ],
      [
        {
          decision: 'same',
          earlier: { election: 'e2016', constituency: 'Donegal', name: 'Willie Aird' },
          later: { election: 'e2020', constituency: 'Donegal', name: 'William Aird' },
          evidence: 'The same candidate.',
        },
        {
          decision: 'different',
          earlier: { election: 'e2016', constituency: 'Kildare North', name: 'James Lawless' },
          later: { election: 'e2020', constituency: 'Kildare North', name: 'James Lawless' },
          evidence: 'Two people.',
        },
      ],
      sameLine,
    );
    assert.deepEqual(names(people), [
      ['William Aird', ['e2016 Donegal', 'e2020 Donegal']],
      ['James Lawless', ['e2016 Kildare North']],
      ['James Lawless', ['e2020 Kildare North']],
    ]);
    assert.deepEqual(
      people.people[0]!.reviewed.map((r) => r.evidence),
      ['The same candidate.'],
    );
    assert.deepEqual(
      people.people[1]!.reviewed.map((r) => r.evidence),
      ['Two people.'],
    );
  });

  test('two namesakes in one constituency: a review naming the party gives the person to one, the other stays apart', () => {
    const review = {
      decision: 'same' as const,
      evidence: 'The Sinn Féin candidate is the TD.',
      earlier: { election: 'e2016', constituency: 'Dublin Mid West', name: 'Eoin Ó Broin', party: 'Sinn Féin' },
      later: { election: 'e2020', constituency: 'Dublin Mid West', name: 'Eoin Ó Broin', party: 'Sinn Féin' },
    };
    const people = peopleOf(
      [
        candidacy('e2016', 'Dublin Mid West', 'Eoin Ó Broin', 'Sinn Féin'),
        candidacy('e2020', 'Dublin Mid West', 'Eoin Ó Broin', 'Sinn Féin'),
        candidacy('e2020', 'Dublin Mid West', 'Eoin Ó Broin', 'Social Democrats', {
          candidateKey: 'Dublin Mid West/2',
        }),
      ],
      [review],
      sameLine,
    );
    assert.deepEqual(
      people.people.map((p) => [p.key, p.candidacies.map((c) => `${c.election} ${c.party}`), p.reviewed.length]),
      [
        ['eoin-o-broin', ['e2016 Sinn Féin', 'e2020 Sinn Féin'], 1],
        ['eoin-o-broin-dublin-mid-west', ['e2020 Social Democrats'], 1],
      ],
    );
  });

  test('found by the beginnings of the words of their names, without fadas or case', () => {
    const people = peopleOf(
      [
        candidacy('e2020', 'Cork South Central', 'Micheál Martin', 'Fianna Fáil'),
        candidacy('e2020', 'Dublin Rathdown', 'Catherine Martin', 'Green Party'),
        candidacy('e2020', 'Dublin Bay North', "Aodhán Ó'Ríordáin", 'The Labour Party'),
        candidacy('e2020', 'Kildare North', 'Vincent P. Martin', 'Green Party', { result: 'excluded' }),
      ],
      [],
      sameLine,
    );
    const index = people.people.map(personEntry);
    const found = (q: string) => search(index, q).matches.map((m) => m.entry.title);
    assert.deepEqual(found('mich mart'), ['Micheál Martin']);
    assert.deepEqual(found('micheal martin'), ['Micheál Martin']);
    // Equally good matches: those elected most often, then the most recent, then by name.
    assert.deepEqual(found('martin'), ['Catherine Martin', 'Micheál Martin', 'Vincent P. Martin']);
    assert.deepEqual(found('o riordain'), ["Aodhán Ó'Ríordáin"]);
    assert.deepEqual(found('oriord'), ["Aodhán Ó'Ríordáin"]);
    assert.deepEqual(found('mich'), ['Micheál Martin']);
    assert.deepEqual(found('zzz'), []);
    assert.equal(
      nameKey({ firstName: 'Aodhán', surname: 'Ó Ríordáin' }),
      nameKey({ firstName: 'AODHAN', surname: "O'RIORDAIN" }),
    );
  });
});

describe('parties over time', () => {
  const party = (name: string, abbreviation: string, seats: number): PartyTotals => ({
    key: name.toLowerCase().replace(/[^a-z]+/g, '-'),
    party: name,
    abbreviation,
    candidates: 1,
    elected: seats,
    returnedAutomatically: 0,
    seats,
    women: null,
    womenElected: null,
    firstPreferences: seats * 1000,
    voteShare: seats / 100,
    seatShare: 0,
    reachedQuarterQuota: 0,
  });
  const summary = (name: string, date: string, parties: PartyTotals[]) => ({
    name,
    label: name,
    date,
    house: { seats: null, ceannComhairle: null },
    totals: {} as never,
    parties,
    constituencies: [],
  });

  test('matched by name, by the same words in another order, and by reviewed lineage; oldest election first', () => {
    const result = partiesOverTime(
      [
        summary('e2020', '2020-02-08', [
          party('Fine Gael', 'F.G.', 35),
          party('Solidarity - People Before Profit', 'S.P.B.P.', 5),
        ]),
        summary('e2024', '2024-11-29', [
          party('Fine Gael', 'F.G.', 38),
          party('People Before Profit–Solidarity', 'P.B.P.S.', 3),
        ]),
        summary('e2016', '2016-02-26', [
          party('Fine Gael', 'F.G.', 50),
          party('Anti-Austerity Alliance–People Before Profit', 'AAA-PBP', 6),
        ]),
      ],
      [
        {
          election: 'e2016',
          party: 'Anti-Austerity Alliance–People Before Profit',
          line: 'Solidarity - People Before Profit',
          evidence: 'Renamed in 2017.',
        },
      ],
    );
    assert.deepEqual(
      result.elections.map((e) => e.name),
      ['e2016', 'e2020', 'e2024'],
    );
    assert.deepEqual(
      result.parties.map((p) => [p.party, p.totals.map((t) => t?.seats ?? null)]),
      [
        ['Fine Gael', [50, 35, 38]],
        ['People Before Profit–Solidarity', [6, 5, 3]],
      ],
    );
    assert.deepEqual(
      result.parties[1]!.lineage.map((l) => l.evidence),
      ['Renamed in 2017.'],
    );
  });
});
