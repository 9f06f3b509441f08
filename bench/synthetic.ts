// The synthetic large resource: N seeded, realistic candidate-results records with resource A's schema, written as
// a CSV source plus a catalogue that serves it. Used by the benchmark (scenario 4) and on its own:
//   node dist/bench/synthetic.js --rows 1000000 --out DIR [--seed 2020]

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Rng, Weighted } from './rng.js';

/** The synthetic resource's id; fixed so that URLs in reports and recordings are stable. */
export const SYNTHETIC_RESOURCE_ID = '5e7e71c0-b3c4-4d5e-8f00-c0ffee000001';
export const SYNTHETIC_SOURCE = 'synthetic-candidates.csv';
export const SYNTHETIC_CATALOG = 'catalog.json';
export const DEFAULT_SEED = 2020;

/** Resource A's fields, in its order; the generator knows how to make a value for each. */
export const CANDIDATE_FIELDS = [
  { id: 'Constituency', type: 'text' },
  { id: 'Surname', type: 'text' },
  { id: 'Firstname', type: 'text' },
  { id: 'Gender Id', type: 'text' },
  { id: 'Party Id', type: 'text' },
  { id: 'Party Abbreviation', type: 'text' },
  { id: 'Count Number', type: 'numeric' },
  { id: 'Required To Reach Quota', type: 'numeric' },
  { id: 'Required To Save Deposit', type: 'numeric' },
  { id: 'Votes', type: 'numeric' },
  { id: 'Result', type: 'text' },
  { id: 'Candidate Id', type: 'numeric' },
  { id: 'Constituency Number', type: 'numeric' },
  { id: 'Constituency Ainm', type: 'text' },
] as const;

// 40 constituencies: the 39 of 2020 and one of the older map, with their Irish names and numbers.
const CONSTITUENCIES: ReadonlyArray<readonly [string, string, number]> = [
  ['Carlow-Kilkenny', 'Ceatharlach-Cill Chainnigh', 1],
  ['Cavan-Monaghan', 'An Cabhán-Muineachán', 2],
  ['Clare', 'An Clár', 3],
  ['Cork East', 'Corcaigh Thoir', 4],
  ['Cork North-Central', 'Corcaigh Thuaidh-Lár', 5],
  ['Cork North-West', 'Corcaigh Thiar Thuaidh', 6],
  ['Cork South-Central', 'Corcaigh Theas-Lár', 7],
  ['Cork South-West', 'Corcaigh Thiar Theas', 8],
  ['Donegal', 'Dún na nGall', 9],
  ['Dublin Central', 'Baile Átha Cliath Láir', 11],
  ['Dublin South', 'Baile Átha Cliath Theas', 12],
  ['Dublin Bay North', 'Cuan Bhaile Átha Cliath Thuaidh', 13],
  ['Dublin Fingal', 'Baile Átha Cliath - Fine Gall', 14],
  ['Dublin North-West', 'Baile Átha Cliath Thiar Thuaidh', 15],
  ['Dublin South-Central', 'Baile Átha Cliath Theas-Lár', 16],
  ['Dublin Bay South', 'Cuan Bhaile Átha Cliath Theas', 17],
  ['Dublin Rathdown', 'Baile Átha Cliath-Ráth an Dúin', 18],
  ['Dublin South-West', 'Baile Átha Cliath Thiar Theas', 19],
  ['Dublin West', 'Baile Átha Cliath Thiar', 20],
  ['Dún Laoghaire', 'Dún Laoghaire', 21],
  ['Galway East', 'Gaillimh Thoir', 22],
  ['Galway West', 'Gaillimh Thiar', 23],
  ['Kerry', 'Ciarraí', 24],
  ['Kildare North', 'Cill Dara Thuaidh', 26],
  ['Laois-Offaly', 'Laois-Uíbh Fhailí', 27],
  ['Limerick City', 'Cathair Luimnigh', 28],
  ['Limerick County', 'Contae Luimnigh', 29],
  ['Longford-Westmeath', 'An Longfort-An Iarmhí', 30],
  ['Louth', 'Lú', 31],
  ['Mayo', 'Maigh Eo', 32],
  ['Meath East', 'An Mhí Thoir', 34],
  ['Sligo-Leitrim', 'Sligeach-Liatroim', 35],
  ['Tipperary', 'Tiobraid Árann', 36],
  ['Waterford', 'Port Láirge', 38],
  ['Meath West', 'An Mhí Thiar', 39],
  ['Wexford', 'Loch Garman', 40],
  ['Wicklow', 'Cill Mhantáin', 41],
  ['Kildare South', 'Cill Dara Theas', 42],
  ['Dublin Mid-West', 'Baile Átha Cliath Thiar-Meán', 43],
  ['Roscommon-Galway', 'Ros Comáin-Gaillimh', 44],
];

// 20 parties, most popular first, with the share of candidates each fields (roughly 2020's) and a vote strength
// (mean first preferences per candidate), so a sort by votes is not a sort by party.
const PARTIES: ReadonlyArray<readonly [string, string, number, number]> = [
  ['Non-Party', 'NON-P.', 130, 2500],
  ['Fianna Fáil', 'F.F.', 84, 6500],
  ['Fine Gael', 'F.G.', 81, 6000],
  ['Sinn Féin', 'S.F.', 42, 11000],
  ['Green Party/ Comhaontas Glas', 'G.P.', 39, 3700],
  ['Solidarity - People Before Profit', 'S.P.B.P.', 37, 1700],
  ['The Labour Party', 'LAB.', 31, 3100],
  ['Aontú', 'A.', 25, 1700],
  ['Social Democrats', 'S.D.', 20, 3200],
  ['Renua Ireland', 'R.I.', 11, 500],
  ['The National Party - An Páirtí Náisiúnta', 'T.N.P.A.P.N.', 10, 500],
  ['Irish Freedom Party', 'I.F.P.', 10, 550],
  ['Workers Party', 'W.P.', 4, 300],
  ['Independents 4 Change', 'I.4.C.', 4, 2800],
  ['United People', 'U.P.', 2, 200],
  ['Irish Democratic Party', 'I.D.P.', 2, 150],
  ['Direct Democracy Ireland', 'D.D.I.', 2, 300],
  ['Éirígí', 'É.', 1, 400],
  ['Fís Nua', 'F.N.', 1, 150],
  ['Christian Solidarity Party', 'C.S.P.', 1, 250],
];

const SURNAMES = [
  'Murphy',
  'Kelly',
  "O'Sullivan",
  'Walsh',
  'Smith',
  "O'Brien",
  'Byrne',
  'Ryan',
  "O'Connor",
  "O'Neill",
  "O'Reilly",
  'Doyle',
  'McCarthy',
  'Gallagher',
  "O'Doherty",
  'Kennedy',
  'Lynch',
  'Murray',
  'Quinn',
  'Moore',
  'McLoughlin',
  "O'Carroll",
  'Connolly',
  'Daly',
  "O'Connell",
  'Wilson',
  'Dunne',
  'Brennan',
  'Burke',
  'Collins',
  'Campbell',
  'Clarke',
  'Johnston',
  'Hughes',
  "O'Farrell",
  'Fitzgerald',
  'Brown',
  'Martin',
  'Maguire',
  'Nolan',
  'Flynn',
  'Thompson',
  'Callaghan',
  "O'Donnell",
  'Duffy',
  'Mahony',
  'Boyle',
  'Healy',
  "O'Shea",
  'White',
  'Sweeney',
  'Hayes',
  'Kavanagh',
  'Power',
  'McGrath',
  'Moran',
  'Brady',
  'Stewart',
  'Casey',
  'Foley',
  'Fitzpatrick',
  "O'Leary",
  'McDonnell',
  'MacMahon',
  'Donnelly',
  'Regan',
  'Donovan',
  'Burns',
  'Flanagan',
  'Mullan',
  'Barry',
  'Kane',
  'Robinson',
  'Cunningham',
  'Griffin',
  'Kenny',
  'Sheehan',
  'Ward',
  'Whelan',
  'Lyons',
  'Reid',
  'Graham',
  'Higgins',
  'Cullen',
  'Keane',
  'King',
  'Maher',
  'McKenna',
  'Bell',
  'Scott',
  'Hogan',
  "O'Keeffe",
  'Magee',
  'McNamara',
  'McDonald',
  'MacDermott',
  'Moloney',
  "O'Rourke",
  'Buckley',
  "O'Dwyer",
  'Ó Broin',
  'Ó Cuív',
  'Ó Ríordáin',
  'Ó Snodaigh',
  'Tóibín',
  'Ó Murchú',
  'Mac Lochlainn',
  'Ní Riada',
  'Ó Caoláin',
  'Ó Laoghaire',
];

const FIRSTNAMES_M = [
  'John',
  'Sean',
  'Michael',
  'Paul',
  'Peter',
  'James',
  'Joe',
  'David',
  'Seán',
  'Thomas',
  'Shane',
  'Noel',
  'Conor',
  'Stephen',
  'Richard',
  'Patrick',
  'Niall',
  'Alan',
  'Robert',
  'Martin',
  'Mark',
  'Liam',
  'Kevin',
  'Frank',
  'Colm',
  'Charlie',
  'Cathal',
  'Brian',
  'Brendan',
  'Tony',
  'Eamon',
  'Darragh',
  'Pádraig',
  'Ciarán',
  'Eoin',
  'Dara',
  'Micheál',
  'Fergus',
  'Declan',
  'Donnchadh',
  'Aengus',
  'Barry',
  'Bernard',
  'Cian',
  'Denis',
  'Jim',
  'Mattie',
  'Willie',
];
const FIRSTNAMES_F = [
  'Mary',
  'Deirdre',
  'Catherine',
  'Sandra',
  'Sarah',
  'Pauline',
  'Norma',
  'Emer',
  'Louise',
  'Niamh',
  'Róisín',
  'Aoife',
  'Orla',
  'Jennifer',
  'Kathleen',
  'Helen',
  'Marian',
  'Bríd',
  'Holly',
  'Claire',
  'Imelda',
  'Verona',
  'Regina',
  'Josepha',
  'Cora',
  'Violet-Anne',
  'Mairéad',
  'Ruth',
  'Ivana',
  'Jackie',
  'Frances',
  'Anne',
];

export interface SyntheticOptions {
  rows: number;
  outDir: string;
  seed?: number;
}

export interface SyntheticOutput {
  csvPath: string;
  catalogPath: string;
  resourceId: string;
  rows: number;
  bytes: number;
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Fields a portal's users filter and sort by; a million rows make indexing every field a real cost at load time. */
const INDEXED = new Set([
  'Constituency',
  'Surname',
  'Party Id',
  'Party Abbreviation',
  'Votes',
  'Result',
  'Constituency Number',
]);

/**
 * The catalogue serving the synthetic CSV as one resource with A's schema, indexed as a publisher would index it: the
 * usual filters, and the filter + sort pairs dashboards ask for (a party's or a constituency's candidates by votes).
 */
export function syntheticCatalog(rows: number): unknown {
  return {
    full_text_language: 'english',
    datasets: [
      {
        name: 'synthetic-candidates',
        title: 'Synthetic candidate results (benchmark)',
        notes: `${rows} generated records with the schema of the 2020 candidate results, for benchmarking.`,
        license_id: 'CC0-1.0',
        resources: [
          {
            id: SYNTHETIC_RESOURCE_ID,
            name: 'Synthetic candidate results',
            source: { path: SYNTHETIC_SOURCE },
            fields: CANDIDATE_FIELDS.map((f) => ({ ...f, index: INDEXED.has(f.id) })),
            indexes: [
              ['Party Abbreviation', 'Votes'],
              ['Constituency', 'Votes'],
            ],
          },
        ],
      },
    ],
  };
}

/**
 * Writes the CSV and the catalogue. Records come in groups of one "election" per constituency, like the real file:
 * candidates of a constituency are adjacent, with counts, quota and outcomes consistent within the group.
 */
export function writeSynthetic(options: SyntheticOptions): SyntheticOutput {
  const rng = new Rng(options.seed ?? DEFAULT_SEED);
  fs.mkdirSync(options.outDir, { recursive: true });
  const csvPath = path.join(options.outDir, SYNTHETIC_SOURCE);
  const catalogPath = path.join(options.outDir, SYNTHETIC_CATALOG);
  const parties = new Weighted(
    PARTIES,
    PARTIES.map((p) => p[2]),
  );
  const surnames = Weighted.zipf(SURNAMES, 0.8);
  const maleNames = Weighted.zipf(FIRSTNAMES_M, 0.7);
  const femaleNames = Weighted.zipf(FIRSTNAMES_F, 0.7);

  const fd = fs.openSync(csvPath, 'w');
  let bytes = 0;
  const flush = (lines: string[]) => {
    if (lines.length === 0) return;
    const chunk = Buffer.from(lines.join(''), 'utf8');
    fs.writeSync(fd, chunk);
    bytes += chunk.length;
    lines.length = 0;
  };
  const lines: string[] = [CANDIDATE_FIELDS.map((f) => csvCell(f.id)).join(',') + '\r\n'];
  try {
    let written = 0;
    let candidateId = 1;
    while (written < options.rows) {
      const [constituency, ainm, number] = rng.pick(CONSTITUENCIES);
      const size = Math.min(options.rows - written, rng.between(8, 20));
      const seats = rng.between(3, 5);
      const counts = rng.between(size - seats, size + 3);
      // Lognormal votes scaled by the party's strength: a long tail of small candidates, a few poll-toppers.
      const group = Array.from({ length: size }, () => {
        const party = parties.draw(rng);
        const votes = Math.max(20, Math.round(party[3] * Math.exp(0.6 * rng.normal() - 0.18)));
        return { party, votes };
      });
      const valid = group.reduce((s, c) => s + c.votes, 0);
      const quota = Math.floor(valid / (seats + 1)) + 1;
      const deposit = Math.ceil(quota / 4);
      const ranked = group.map((c, i) => ({ i, votes: c.votes })).sort((x, y) => y.votes - x.votes);
      const elected = new Set(ranked.slice(0, seats).map((r) => r.i));
      group.forEach((c, i) => {
        const isElected = elected.has(i);
        const female = rng.chance(0.31);
        const firstname = (female ? femaleNames : maleNames).draw(rng);
        // The official files mix "MURPHY" and "Murphy"; full-text search and filters must cope with both.
        const surname = rng.chance(0.3) ? surnames.draw(rng).toUpperCase() : surnames.draw(rng);
        const result = isElected ? 'Elected' : rng.chance(0.06) ? '' : 'Excluded';
        const values: Record<string, string> = {
          Constituency: constituency,
          Surname: surname,
          Firstname: firstname,
          'Gender Id': female ? 'F' : 'M',
          'Party Id': c.party[0],
          'Party Abbreviation': c.party[1],
          'Count Number': String(isElected ? rng.between(1, counts) : rng.between(1, Math.max(1, counts - 1))),
          'Required To Reach Quota': String(Math.max(0, quota - c.votes)),
          'Required To Save Deposit': String(Math.max(0, deposit - c.votes)),
          Votes: String(c.votes),
          Result: result,
          'Candidate Id': String(candidateId++),
          'Constituency Number': String(number),
          'Constituency Ainm': ainm,
        };
        lines.push(CANDIDATE_FIELDS.map((f) => csvCell(values[f.id] ?? '')).join(',') + '\r\n');
      });
      written += size;
      if (lines.length >= 20_000) flush(lines);
    }
    flush(lines);
  } finally {
    fs.closeSync(fd);
  }
  fs.writeFileSync(catalogPath, JSON.stringify(syntheticCatalog(options.rows), null, 2) + '\n');
  return { csvPath, catalogPath, resourceId: SYNTHETIC_RESOURCE_ID, rows: options.rows, bytes };
}

const USAGE = `Usage: node dist/bench/synthetic.js --rows N --out DIR [--seed S]

Writes DIR/${SYNTHETIC_SOURCE} (N records with the schema of the 2020 candidate results) and DIR/${SYNTHETIC_CATALOG}
(a catalogue serving it as resource ${SYNTHETIC_RESOURCE_ID}). Serve it with
  COUNTCENTRE_CATALOG=DIR/${SYNTHETIC_CATALOG} COUNTCENTRE_SOURCES=DIR COUNTCENTRE_DB=/tmp/synthetic.sqlite npm start`;

function cli(): void {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string' },
      out: { type: 'string' },
      seed: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || values.rows === undefined || values.out === undefined) {
    console.log(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const rows = Number(values.rows);
  const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
  if (!Number.isSafeInteger(rows) || rows < 1 || !Number.isSafeInteger(seed)) {
    console.error('--rows must be a positive whole number and --seed a whole number');
    process.exit(2);
  }
  const started = performance.now();
  const out = writeSynthetic({ rows, outDir: path.resolve(values.out), seed });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `wrote ${out.rows} records (${(out.bytes / 1e6).toFixed(1)} MB) to ${out.csvPath} in ${seconds.toFixed(1)} s`,
  );
  console.log(`catalogue: ${out.catalogPath} (resource ${out.resourceId})`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) cli();
