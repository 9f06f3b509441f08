// People, names, party rows and search, without HTTP: names in the usual case; names spelt nearly alike found for
// review and never joined by the rules alone; the Ceann Comhairle's automatic return as a candidacy; 2020's records
// shown with the reviewed spellings and groupings of data/ while each record keeps its own; search ranking, near
// spellings and odd input; and the reviewed files themselves (every party of an election told apart by its colour,
// 2024's women candidates equal to the official statistics).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import {
  candidaciesOf,
  displayName,
  Election,
  INDEPENDENTS,
  nearNameKind,
  partyRecords,
  peopleOf,
  unreviewedNearNames,
  type Candidacy,
  type CandidateMatch,
  type Presentation,
} from '../../src/elections/index.js';
import { reviewedData } from '../../src/web/reviewed.js';
import { editDistance, personEntry, readQuery, search, wordsOf, type SearchEntry } from '../../src/web/search.js';
import { election2020Records, house2020 } from '../helpers/election-files.js';
import { DATA_DIR } from '../helpers/service.js';

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
    official: true,
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
const joined = (people: ReturnType<typeof peopleOf>) =>
  people.people.map((p) => [p.name, p.candidacies.map((c) => `${c.election} ${c.constituencyName}`)]);

describe('names as readers write them', () => {
  test('capitals, the Irish Ó, O’ and Mc prefixes, initials, spacing; mixed case left alone', () => {
    const cases: [string, string][] = [
      ['JOHN', 'John'],
      ['McGUINNESS', 'McGuinness'],
      ["O'DONNELL", "O'Donnell"],
      ['MURNANE O’CONNOR', 'Murnane O’Connor'],
      ['MAC CANNA', 'Mac Canna'],
      ["Ó'Ríordáin", 'Ó Ríordáin'],
      ["Ó'Snodaigh", 'Ó Snodaigh'],
      ['O’ Donnell', 'O’Donnell'],
      ['Pettit O’leary', 'Pettit O’Leary'],
      ["D'arcy", "D'Arcy"],
      ['Mc Guinness', 'McGuinness'],
      ['William  D.j.', 'William D.J.'],
      ['DR RONAN', 'Dr Ronan'],
      ['NEWMAN JULIAN,', 'Newman Julian'],
      ['AJ', 'AJ'],
      ['T.P.', 'T.P.'],
      ['de Valera', 'de Valera'],
      ['Ó hAlmhain', 'Ó hAlmhain'],
      ['Carroll MacNeill', 'Carroll MacNeill'],
      ['Macken', 'Macken'],
      ["Luke 'Ming'", "Luke 'Ming'"],
    ];
    assert.deepEqual(
      cases.map(([recorded]) => [recorded, displayName(recorded)]),
      cases,
    );
  });
});

describe('names spelt nearly alike', () => {
  test('the kinds the records use for one person are found', () => {
    const pairs: [string, string, string | null][] = [
      ['Eamon Ryan', 'Eamonn Ryan', 'one letter'],
      ['Éamon Ó Cuív', 'Éamon Cuív Ó', 'word order'],
      ['Catherine Connolly', 'Catherine Martina Ann Connolly', 'middle name'],
      ['Donnchadh Ó Laoghaire', 'Donnchadh Uinseann Ó Laoghaire', 'middle name'],
      ['Sandra Murphy', 'Sandra Murphy Kelleher', 'a name more'],
      ['Paul Connaughton Jnr', 'Paul Connaughton', 'a title'],
      ['John Mythen', 'Johnny Mythen', 'short form'],
      ['Dessie Shiels', 'Dessie Sheils', 'one letter'],
      ['Edward MacManus', 'Edward McManus', 'one letter'],
      // Not nearly alike: other first names, other surnames.
      ['Jack Wall', 'Mark Wall', null],
      ['Mike Kennelly', 'Mike Kennedy', null],
      ['Micheál Martin', 'Micheal Martin', null],
    ];
    assert.deepEqual(
      pairs.map(([a, b]) => [a, b, nearNameKind(a, b)]),
      pairs,
    );
  });

  test('the rules never join them: two people stay two until a review says otherwise, and then only those', () => {
    const candidacies = [
      candidacy('e2016', 'Dublin Bay South', 'Eamon Ryan', 'Green Party'),
      candidacy('e2020', 'Dublin Bay South', 'Eamonn Ryan', 'Green Party'),
      candidacy('e2016', 'Dublin South Central', 'Joan Collins', 'Independents 4 Change'),
      candidacy('e2020', 'Dublin South Central', 'John Collins', 'Independents 4 Change'),
      candidacy('e2016', 'Kildare South', 'Mark Wall', 'Labour'),
      candidacy('e2020', 'Kildare South', 'Mark Wall', 'Labour'),
    ];
    const apart = peopleOf(candidacies, [], sameLine);
    assert.deepEqual(joined(apart), [
      ['Eamon Ryan', ['e2016 Dublin Bay South']],
      ['Joan Collins', ['e2016 Dublin South Central']],
      ['Mark Wall', ['e2016 Kildare South', 'e2020 Kildare South']],
      ['Eamonn Ryan', ['e2020 Dublin Bay South']],
      ['John Collins', ['e2020 Dublin South Central']],
    ]);
    // Both pairs are left for a reviewer, with their kind.
    assert.deepEqual(
      unreviewedNearNames(apart.people, []).map((n) => [n.earlier.name, n.later.name, n.kind]),
      [
        ['Eamon Ryan', 'Eamonn Ryan', 'one letter'],
        ['Joan Collins', 'John Collins', 'one letter'],
      ],
    );
    const reviews: CandidateMatch[] = [
      {
        decision: 'same',
        earlier: { election: 'e2016', constituency: 'Dublin Bay South', name: 'Eamon Ryan' },
        later: { election: 'e2020', constituency: 'Dublin Bay South', name: 'Eamonn Ryan' },
        evidence: 'One letter apart.',
      },
      {
        decision: 'different',
        earlier: { election: 'e2016', constituency: 'Dublin South Central', name: 'Joan Collins' },
        later: { election: 'e2020', constituency: 'Dublin South Central', name: 'John Collins' },
        evidence: 'Two people.',
      },
    ];
    const reviewed = peopleOf(candidacies, reviews, sameLine);
    assert.deepEqual(joined(reviewed), [
      ['Eamonn Ryan', ['e2016 Dublin Bay South', 'e2020 Dublin Bay South']],
      ['Joan Collins', ['e2016 Dublin South Central']],
      ['Mark Wall', ['e2016 Kildare South', 'e2020 Kildare South']],
      ['John Collins', ['e2020 Dublin South Central']],
    ]);
    assert.deepEqual(reviewed.people[0]!.spellings, [{ name: 'Eamon Ryan', elections: ['e2016'] }]);
    assert.deepEqual(unreviewedNearNames(reviewed.people, reviews), []);
  });

  test('a review names either spelling of a candidacy: the record’s or the one shown', () => {
    const people = peopleOf(
      [
        candidacy('e2016', 'Galway West', 'Éamon Ó Cuív', 'Fianna Fáil'),
        // Shown in the usual spelling, recorded with the prefix after the surname.
        candidacy('e2020', 'Galway West', 'Éamon Ó Cuív', 'Fianna Fáil', { recordedName: 'Éamon Cuív Ó' }),
      ],
      [],
      sameLine,
    );
    assert.deepEqual(joined(people), [['Éamon Ó Cuív', ['e2016 Galway West', 'e2020 Galway West']]]);
    assert.deepEqual(people.people[0]!.spellings, [{ name: 'Éamon Cuív Ó', elections: ['e2020'] }]);
  });
});

describe('2020 shown as reviewed', () => {
  const reviewed = reviewedData();
  const election = new Election(election2020Records(), house2020(), reviewed.presentation, 'general-election-2020');
  const candidate = (surname: string) =>
    election.data.candidates.find((c) => (c.recorded?.surname ?? c.surname) === surname)!;

  test('names in the usual case and spelling; each record keeps its own', () => {
    const picks = ['McGUINNESS', "Ó'Ríordáin", 'WHITMORE', 'Cuív Ó', 'Ryan', 'O CATHASAIGH'].map(candidate);
    assert.deepEqual(
      picks.map((c) => [
        `${c.firstName} ${c.surname}`,
        c.recorded ? `${c.recorded.firstName} ${c.recorded.surname}` : null,
      ]),
      [
        ['John McGuinness', 'JOHN McGUINNESS'],
        ['Aodhán Ó Ríordáin', "Aodhán Ó'Ríordáin"],
        ['Jennifer Whitmore', 'JENNIEFER WHITMORE'],
        ['Éamon Ó Cuív', 'Éamon Cuív Ó'],
        ['Eamon Ryan', 'Eamonn Ryan'],
        ['Marc Ó Cathasaigh', 'MARC O CATHASAIGH'],
      ],
    );
    assert.equal(election.constituency('waterford')!.nameGa, 'Port Láirge');
    assert.equal(election.constituency('dublin-west')!.nameGa, 'Baile Átha Cliath Thiar');
  });

  test('Non-Party is counted as Independents, never as a party; its records keep their label', () => {
    const independents = election.parties.find((p) => p.party === INDEPENDENTS)!;
    assert.deepEqual(
      {
        abbreviation: independents.abbreviation,
        candidates: independents.candidates,
        seats: independents.seats,
        labels: independents.labels,
        independents: independents.independents,
      },
      { abbreviation: 'Ind.', candidates: 130, seats: 19, labels: ['Non-Party'], independents: true },
    );
    assert.equal(
      election.parties.some((p) => p.party === 'Non-Party' || p.abbreviation === 'NON-P.'),
      false,
    );
    assert.deepEqual(partyRecords(election.data, independents), { labels: ['Non-Party'] });
    assert.match(independents.counting!, /^Candidates without a party \(the official file's Non-Party\)/);
  });

  test("the Ceann Comhairle's automatic return is a candidacy of its own, in Kildare South", () => {
    const all = candidaciesOf({
      name: 'general-election-2020',
      label: 'General Election 2020',
      date: '2020-02-08',
      official: true,
      election,
    });
    const automatic = all.filter((c) => c.result === 'returned automatically');
    assert.deepEqual(
      automatic.map((c) => ({
        name: `${c.firstName} ${c.surname}`,
        constituency: c.constituencyName,
        party: c.party,
        firstPreferences: c.firstPreferences,
        recordId: c.recordId,
        candidateKey: c.candidateKey,
      })),
      [
        {
          name: 'Seán Ó Fearghaíl',
          constituency: 'Kildare South',
          party: 'Fianna Fáil',
          firstPreferences: null,
          recordId: 0,
          candidateKey: 'kildare-south/ceann-comhairle',
        },
      ],
    );
    assert.equal(all.length, 532);
  });
});

describe('a grouping that takes one candidate of a label', () => {
  test("is selected by its records, not by the label it shares with other rows (2011's Declan Bree)", () => {
    const presentation: Presentation = {
      groupings: [
        {
          election: 'e',
          party: 'Socialist Party',
          candidate: null,
          grouping: 'United Left Alliance',
          abbreviation: 'U.L.A.',
          evidence: 'An alliance.',
        },
        {
          election: 'e',
          party: 'Non-Party',
          candidate: 'Declan Bree',
          grouping: 'United Left Alliance',
          abbreviation: 'U.L.A.',
          evidence: 'A member.',
        },
        {
          election: 'e',
          party: 'Non-Party',
          candidate: null,
          grouping: INDEPENDENTS,
          abbreviation: 'Ind.',
          evidence: 'No party.',
        },
      ],
      spellings: [],
      irishNames: [],
      figures: [],
    };
    const records = {
      candidates: {
        fields: ['Constituency', 'Surname', 'Firstname', 'Party Id', 'Votes', 'Result'],
        records: [
          {
            _id: 1,
            Constituency: 'Sligo',
            Surname: 'Bree',
            Firstname: 'Declan',
            'Party Id': 'Non-Party',
            Votes: 2284,
            Result: '',
          },
          {
            _id: 2,
            Constituency: 'Sligo',
            Surname: 'Scanlon',
            Firstname: 'Eamon',
            'Party Id': 'Non-Party',
            Votes: 900,
            Result: 'Elected',
          },
          {
            _id: 3,
            Constituency: 'Dublin',
            Surname: 'Higgins',
            Firstname: 'Joe',
            'Party Id': 'Socialist Party',
            Votes: 8084,
            Result: 'Elected',
          },
        ],
      },
      constituencies: null,
      counts: null,
    };
    const e = new Election(records, undefined, presentation, 'e');
    const rows = Object.fromEntries(e.parties.map((p) => [p.party, [p.candidates, p.seats, p.labels ?? null]]));
    assert.deepEqual(rows, {
      'United Left Alliance': [2, 1, ['Non-Party', 'Socialist Party']],
      Independents: [1, 1, ['Non-Party']],
    });
    assert.deepEqual(partyRecords(e.data, { party: 'United Left Alliance' }), { recordIds: [1, 3] });
    assert.deepEqual(partyRecords(e.data, { party: INDEPENDENTS }), { recordIds: [2] });
    assert.equal(e.parties.find((p) => p.party === 'United Left Alliance')!.counting, 'An alliance. A member.');
  });
});

describe('search', () => {
  const person = (name: string, constituency: string, elected: boolean, election = 'e2020') => {
    const c = candidacy(election, constituency, name, 'Party', { result: elected ? 'elected' : 'excluded' });
    return personEntry({
      key: name.toLowerCase().replace(/\W+/g, '-'),
      name,
      candidacies: [c],
      spellings: [],
      reviewed: [],
      ambiguous: [],
    });
  };
  const place = (name: string, elections: number): SearchEntry => ({
    hit: { kind: 'constituency', key: name, name, nameGa: null, elections: [] },
    title: name,
    words: wordsOf(name),
    weight: elections,
    latest: '2024-11-29',
  });
  const party = (name: string, abbreviation: string, seats: number): SearchEntry => ({
    hit: { kind: 'party', key: name, name, abbreviation, independents: false, elections: [] },
    title: name,
    words: wordsOf(name, abbreviation),
    weight: seats,
    latest: '2024-11-29',
  });
  const entries: SearchEntry[] = [
    person('Micheál Martin', 'Cork South Central', true),
    person('Catherine Martin', 'Dublin Rathdown', true),
    person('Leo Varadkar', 'Dublin West', true),
    person('Kerry Guinan', 'Dublin Central', false),
    person('Aodhán Ó Ríordáin', 'Dublin Bay North', true),
    place('Kerry', 3),
    place('Kerry South', 1),
    place('Dublin Bay South', 3),
    party('Sinn Féin', 'S.F.', 113),
    party('Fianna Fáil', 'F.F.', 150),
  ];
  const titles = (q: string) => search(entries, q).matches.map((m) => m.entry.title);

  test('by the beginnings of words, without fadas or case; kinds in order, whole words first', () => {
    assert.deepEqual(titles('mich mart'), ['Micheál Martin']);
    // Equally good: those elected most often, then the most recent, then by name.
    assert.deepEqual(titles('MARTIN'), ['Catherine Martin', 'Micheál Martin']);
    assert.deepEqual(titles('kerry'), ['Kerry', 'Kerry South', 'Kerry Guinan']);
    assert.deepEqual(titles('dublin bay south'), ['Dublin Bay South']);
    assert.deepEqual(titles('sinn fein'), ['Sinn Féin']);
    assert.deepEqual(titles('ff'), ['Fianna Fáil']);
    assert.deepEqual(titles('o riord'), ['Aodhán Ó Ríordáin']);
    assert.deepEqual(titles('oriordain'), ['Aodhán Ó Ríordáin']);
    assert.equal(search(entries, 'sinn fein').nearly, false);
  });

  test('where nothing matches exactly, names spelt nearly alike, with the words meant', () => {
    for (const [q, title, meant] of [
      ['michael martin', 'Micheál Martin', 'micheal martin'],
      ['varadker', 'Leo Varadkar', 'varadkar'],
      ['sinn fien', 'Sinn Féin', 'sinn fein'],
      ['dublin bay sotuh', 'Dublin Bay South', 'dublin bay south'],
    ] as const) {
      const outcome = search(entries, q);
      assert.equal(outcome.nearly, true, q);
      assert.equal(outcome.matches[0]!.entry.title, title, q);
      assert.equal(outcome.matches[0]!.matched.join(' '), meant, q);
    }
    // Short words are not guessed at: three letters are too few to tell a misspelling from another name.
    assert.deepEqual(titles('leq'), []);
    assert.deepEqual(titles('zzzzzz'), []);
  });

  test('odd input: nothing to read, too many words, very long words', () => {
    assert.deepEqual(readQuery('!!! ... ’’').readings, []);
    assert.deepEqual(search(entries, '<script>').matches.length, 0);
    const many = search(entries, 'a b c d e f g h i j');
    assert.equal(many.dropped, 2);
    const started = performance.now();
    assert.deepEqual(search(entries, `${'varadkar'.repeat(20)} ${'x'.repeat(150)}`).matches, []);
    assert.ok(performance.now() - started < 500, 'a long word is not spelt against every name');
  });

  test('edit distance counts a swap of two letters as one edit, and stops past its limit', () => {
    assert.equal(editDistance('michael', 'micheal'), 1);
    assert.equal(editDistance('varadker', 'varadkar'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('abcdefgh', 'zzzzzzzz', 2), 3);
  });
});

describe('the reviewed files', () => {
  const reviewed = reviewedData();

  test("2024's women candidates are the official statistics' sum", () => {
    const rows = parse(readFileSync(path.join(DATA_DIR, '2024', 'constituency-statistics-2024.csv'), 'utf8'), {
      columns: true,
    }) as Record<string, string>[];
    const sum = rows.reduce((s, r) => s + Number(r.women_candidates), 0);
    assert.equal(rows.length, 43);
    assert.equal(sum, 246);
    assert.deepEqual(
      reviewed.presentation.figures.map((f) => [f.election, f.figure, f.value]),
      [['general-election-2024', 'women candidates', sum]],
    );
  });

  test('every row has its evidence, and every colour shows against white (3:1 or more)', () => {
    const luminance = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => {
        const c = parseInt(hex.slice(i, i + 2), 16) / 255;
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const low = reviewed.colours.filter((c) => 1.05 / (luminance(c.colour) + 0.05) < 3).map((c) => c.party);
    assert.deepEqual(low, []);
    for (const g of reviewed.presentation.groupings) assert.ok(g.evidence.length > 40, `${g.party}: evidence`);
    for (const m of reviewed.matches) assert.ok(m.evidence.length > 40, `${m.later.name}: evidence`);
  });
});
