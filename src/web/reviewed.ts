// Reviewed inputs the explorer reads beside the data, from the repository's data/ folder, each with its evidence: which
// party a renamed party continues (party-lineage.csv), decisions on candidates the matching rules cannot make
// (candidate-matches.csv; a side's party is given only where two namesakes stood in one constituency), how parties are
// counted and drawn (party-groupings.csv, party-colours.csv), names as readers write them (display-names.csv,
// irish-names.csv), official figures the records lack (election-figures.csv), and the constituencies' lineage and
// tiles (places.ts). Read once, when first needed; their hash is part of every page's key and tag.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { CandidateMatch, PartyLineage, Presentation } from '../elections/index.js';
import { PROJECT_ROOT } from '../settings.js';
import { loadPlaces, type Places } from './places.js';

export const REVIEWED_DIR = path.join(PROJECT_ROOT, 'data');

export interface PartyColourRow {
  party: string;
  colour: string;
  basis: string;
}

export interface Reviewed {
  lineage: PartyLineage[];
  matches: CandidateMatch[];
  presentation: Presentation;
  colours: PartyColourRow[];
  /** Where constituencies came from, and their tiles on the map of the country. */
  places: Places;
  version: string;
}

/** The rows of a reviewed file, each with every `required` column filled (an empty one names its row). */
function rowsOf(
  file: string,
  required: readonly string[],
  hash: ReturnType<typeof createHash>,
): Record<string, string>[] {
  const text = readFileSync(path.join(REVIEWED_DIR, file), 'utf8');
  hash.update(file).update(text);
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  rows.forEach((row, i) => {
    for (const column of required) {
      if (!row[column]?.trim())
        throw new Error(
          `${file}, row ${i + 2}: ${column} is empty; every reviewed row needs it, its evidence included`,
        );
    }
  });
  return rows;
}

export function loadReviewed(): Reviewed {
  const hash = createHash('sha256');
  const lineage = rowsOf('party-lineage.csv', ['election', 'party', 'line', 'evidence'], hash);
  const matches = rowsOf(
    'candidate-matches.csv',
    [
      'decision',
      'earlier_election',
      'earlier_constituency',
      'earlier_name',
      'later_election',
      'later_constituency',
      'later_name',
      'evidence',
    ],
    hash,
  );
  for (const row of matches) {
    if (row.decision !== 'same' && row.decision !== 'different')
      throw new Error(`candidate-matches.csv: decision "${row.decision}" is neither same nor different`);
  }
  const groupings = rowsOf('party-groupings.csv', ['election', 'party', 'grouping', 'abbreviation', 'evidence'], hash);
  const spellings = rowsOf(
    'display-names.csv',
    ['election', 'constituency', 'recorded_first_name', 'recorded_surname', 'first_name', 'surname', 'evidence'],
    hash,
  );
  const irishNames = rowsOf('irish-names.csv', ['recorded', 'shown_as', 'evidence'], hash);
  const figures = rowsOf('election-figures.csv', ['election', 'figure', 'value', 'source'], hash);
  for (const row of figures) {
    if (row.figure !== 'women candidates' || !/^\d+$/.test(row.value!))
      throw new Error(
        `election-figures.csv: "${row.figure}" = "${row.value}" is not a known figure and a whole number`,
      );
  }
  const colours = rowsOf('party-colours.csv', ['party', 'colour', 'basis'], hash);
  for (const row of colours) {
    if (!/^#[0-9a-f]{6}$/.test(row.colour!))
      throw new Error(`party-colours.csv: ${row.party}'s colour "${row.colour}" is not #rrggbb in lower case`);
  }
  const places = loadPlaces();
  return {
    lineage: lineage.map((r) => ({ election: r.election!, party: r.party!, line: r.line!, evidence: r.evidence! })),
    matches: matches.map((r) => ({
      decision: r.decision as 'same' | 'different',
      earlier: {
        election: r.earlier_election!,
        constituency: r.earlier_constituency!,
        name: r.earlier_name!,
        ...(r.earlier_party ? { party: r.earlier_party } : {}),
      },
      later: {
        election: r.later_election!,
        constituency: r.later_constituency!,
        name: r.later_name!,
        ...(r.later_party ? { party: r.later_party } : {}),
      },
      evidence: r.evidence!,
    })),
    presentation: {
      groupings: groupings.map((r) => ({
        election: r.election!,
        party: r.party!,
        candidate: r.candidate?.trim() || null,
        grouping: r.grouping!,
        abbreviation: r.abbreviation!,
        evidence: r.evidence!,
      })),
      spellings: spellings.map((r) => ({
        election: r.election!,
        constituency: r.constituency!,
        recordedFirstName: r.recorded_first_name!,
        recordedSurname: r.recorded_surname!,
        firstName: r.first_name!,
        surname: r.surname!,
        evidence: r.evidence!,
      })),
      irishNames: irishNames.map((r) => ({ recorded: r.recorded!, shown: r.shown_as!, evidence: r.evidence! })),
      figures: figures.map((r) => ({
        election: r.election!,
        figure: 'women candidates' as const,
        value: Number(r.value),
        source: r.source!,
      })),
    },
    colours: colours.map((r) => ({ party: r.party!, colour: r.colour!, basis: r.basis! })),
    places,
    version: hash.update(places.version).digest('hex').slice(0, 12),
  };
}

let reviewedOnce: Reviewed | null = null;

/** The reviewed inputs, read on first use: they are files of the repository, which change only with a new release. */
export function reviewedData(): Reviewed {
  return (reviewedOnce ??= loadReviewed());
}
