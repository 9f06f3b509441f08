// A small catalogue of two made-up elections with the 2020 files' three schemas (fewer fields), for the views that
// need more than one election: the comparison above all. Northtown stands in both (its seats changed), Old Bay only in
// the earlier one, Riverside only in the later one; the figures add up as a count's do.

import fs from 'node:fs';
import path from 'node:path';
import type { Settings } from '../../src/settings.js';
import { TEST_TMP } from './service.js';

const CONSTITUENCY_FIELDS = [
  'Constituency Name',
  'Constituency Ainm',
  'Constituency Number',
  'Number of Seats',
  'Quota',
  'Total Electorate',
  'Total Poll',
  'Spoiled',
  'Valid Poll',
  'Count Number',
];
const CANDIDATE_FIELDS = [
  'Constituency',
  'Surname',
  'Firstname',
  'Gender Id',
  'Party Id',
  'Party Abbreviation',
  'Votes',
  'Result',
  'Candidate Id',
  'Constituency Number',
];
const COUNT_FIELDS = [
  'Constituency Name',
  'Candidate surname',
  'Candidate First Name',
  'Result',
  'Count Number',
  'Transfers',
  'Total Votes',
  'Occurred On Count',
  'Constituency Number',
  'Candidate Id',
];
const NUMERIC = new Set([
  'Constituency Number',
  'Number of Seats',
  'Quota',
  'Total Electorate',
  'Total Poll',
  'Spoiled',
  'Valid Poll',
  'Count Number',
  'Votes',
  'Candidate Id',
  'Transfers',
  'Total Votes',
  'Occurred On Count',
]);

type Row = (string | number)[];

const EARLIER = {
  constituencies: [
    ['Northtown', 'Baile Thuaidh', 1, 2, 101, 500, 310, 10, 300, 2],
    ['Old Bay', 'An Seanchuan', 2, 1, 51, 200, 105, 5, 100, 1],
  ],
  candidates: [
    ['Northtown', 'Ó Ríordáin', 'Áine', 'F', 'Sinn Féin', 'S.F.', 150, 'Elected', 1, 1],
    ['Northtown', 'Murphy', 'Seán', 'M', 'Fianna Fáil', 'F.F.', 90, 'Elected', 2, 1],
    ['Northtown', 'Kelly', 'Pat', 'M', 'Fine Gael', 'F.G.', 60, '', 3, 1],
    ['Old Bay', 'Byrne', 'Mary', 'F', 'The Labour Party', 'LAB.', 60, 'Elected', 1, 2],
    ['Old Bay', 'Doyle', 'Tom', 'M', 'Fianna Fáil', 'F.F.', 40, '', 2, 2],
  ],
  counts: [
    ['Northtown', 'Ó Ríordáin', 'Áine', 'Elected', 1, 0, 150, 1, 1, 1],
    ['Northtown', 'Murphy', 'Seán', '', 1, 0, 90, 0, 1, 2],
    ['Northtown', 'Kelly', 'Pat', '', 1, 0, 60, 0, 1, 3],
    ['Northtown', 'Ó Ríordáin', 'Áine', 'Elected', 2, -49, 101, 1, 1, 1],
    ['Northtown', 'Murphy', 'Seán', 'Elected', 2, 30, 120, 2, 1, 2],
    ['Northtown', 'Kelly', 'Pat', '', 2, 15, 75, 0, 1, 3],
    ['Old Bay', 'Byrne', 'Mary', 'Elected', 1, 0, 60, 1, 2, 1],
    ['Old Bay', 'Doyle', 'Tom', '', 1, 0, 40, 0, 2, 2],
  ],
};

const LATER = {
  constituencies: [
    ['Northtown', 'Baile Thuaidh', 1, 3, 101, 520, 400, 0, 400, 3],
    ['Riverside', 'Cois Abhann', 3, 1, 46, 150, 90, 0, 90, 1],
  ],
  candidates: [
    ['Northtown', 'Ó Ríordáin', 'Áine', 'F', 'Sinn Féin', 'S.F.', 130, 'Elected', 1, 1],
    ['Northtown', 'Murphy', 'Seán', 'M', 'Fianna Fáil', 'F.F.', 100, 'Elected', 2, 1],
    ['Northtown', 'Kelly', 'Pat', 'M', 'Fine Gael', 'F.G.', 90, 'Elected', 3, 1],
    ['Northtown', 'Walsh', 'Clíona', 'F', 'Green Party', 'G.P.', 80, 'Excluded', 4, 1],
    ['Riverside', 'Nolan', 'Ciarán', 'M', 'Non-Party', 'NON-P.', 50, 'Elected', 1, 3],
    ['Riverside', 'Quinn', 'Róisín', 'F', 'Social Democrats', 'S.D.', 40, '', 2, 3],
  ],
  counts: [
    ['Northtown', 'Ó Ríordáin', 'Áine', 'Elected', 1, 0, 130, 1, 1, 1],
    ['Northtown', 'Murphy', 'Seán', '', 1, 0, 100, 0, 1, 2],
    ['Northtown', 'Kelly', 'Pat', '', 1, 0, 90, 0, 1, 3],
    ['Northtown', 'Walsh', 'Clíona', '', 1, 0, 80, 0, 1, 4],
    ['Northtown', 'Ó Ríordáin', 'Áine', 'Elected', 2, -29, 101, 1, 1, 1],
    ['Northtown', 'Murphy', 'Seán', 'Elected', 2, 10, 110, 2, 1, 2],
    ['Northtown', 'Kelly', 'Pat', '', 2, 9, 99, 0, 1, 3],
    ['Northtown', 'Walsh', 'Clíona', '', 2, 8, 88, 0, 1, 4],
    ['Northtown', 'Ó Ríordáin', 'Áine', 'Elected', 3, 0, 101, 1, 1, 1],
    ['Northtown', 'Murphy', 'Seán', 'Elected', 3, 0, 110, 2, 1, 2],
    ['Northtown', 'Kelly', 'Pat', 'Elected', 3, 80, 179, 3, 1, 3],
    ['Northtown', 'Walsh', 'Clíona', 'Excluded', 3, -88, 0, 3, 1, 4],
    ['Riverside', 'Nolan', 'Ciarán', 'Elected', 1, 0, 50, 1, 3, 1],
    ['Riverside', 'Quinn', 'Róisín', '', 1, 0, 40, 0, 3, 2],
  ],
};

function csv(header: string[], rows: Row[]): string {
  const cell = (v: string | number) =>
    typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : String(v);
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

function fields(ids: string[]) {
  return ids.map((id) => ({ id, type: NUMERIC.has(id) ? 'numeric' : 'text' }));
}

/** Resource ids of the fixture, by election and role. */
export const TWO_ELECTIONS = {
  earlier: {
    name: 'test-election-2016',
    candidates: 'aaaaaaaa-0000-4000-8000-000000000001',
    constituencies: 'aaaaaaaa-0000-4000-8000-000000000002',
    counts: 'aaaaaaaa-0000-4000-8000-000000000003',
  },
  later: {
    name: 'test-election-2020',
    candidates: 'bbbbbbbb-0000-4000-8000-000000000001',
    constituencies: 'bbbbbbbb-0000-4000-8000-000000000002',
    counts: 'bbbbbbbb-0000-4000-8000-000000000003',
  },
};

/**
 * Writes the fixture's files and returns the settings that serve it instead of the real data; `only` keeps one
 * election.
 */
export function twoElectionSettings(only?: 'earlier' | 'later'): Partial<Settings> {
  const dir = path.join(TEST_TMP, only ? `one-election-${only}` : 'two-elections');
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  const all = [
    ['earlier', EARLIER, '2016-02-26', '32nd Dáil'],
    ['later', LATER, '2020-02-08', '33rd Dáil'],
  ] as const;
  const datasets = all
    .filter(([which]) => !only || which === only)
    .map(([which, data, date, body]) => {
      const ids = TWO_ELECTIONS[which];
      const files = {
        constituencies: `${which}-constituencies.csv`,
        candidates: `${which}-candidates.csv`,
        counts: `${which}-counts.csv`,
      };
      fs.writeFileSync(path.join(dir, 'data', files.constituencies), csv(CONSTITUENCY_FIELDS, data.constituencies));
      fs.writeFileSync(path.join(dir, 'data', files.candidates), csv(CANDIDATE_FIELDS, data.candidates));
      fs.writeFileSync(path.join(dir, 'data', files.counts), csv(COUNT_FIELDS, data.counts));
      return {
        name: ids.name,
        title: `Test Election ${date.slice(0, 4)}: made-up results`,
        attribution: 'Made-up figures for tests.',
        election: { date, body },
        resources: [
          {
            id: ids.candidates,
            name: `Candidates ${date.slice(0, 4)}`,
            role: 'candidates',
            source: { path: files.candidates },
            fields: fields(CANDIDATE_FIELDS),
          },
          {
            id: ids.constituencies,
            name: `Constituencies ${date.slice(0, 4)}`,
            role: 'constituencies',
            source: { path: files.constituencies },
            fields: fields(CONSTITUENCY_FIELDS),
          },
          {
            id: ids.counts,
            name: `Counts ${date.slice(0, 4)}`,
            role: 'counts',
            source: { path: files.counts },
            fields: fields(COUNT_FIELDS),
          },
        ],
      };
    });
  const catalog = path.join(dir, 'catalog.json');
  fs.writeFileSync(catalog, JSON.stringify({ datasets }, null, 1));
  return { catalog, sources: path.join(dir, 'data'), databasePath: path.join(dir, 'two-elections.sqlite') };
}
