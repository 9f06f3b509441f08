// How an election's records are shown, from reviewed decisions kept beside the data: names in the usual case and the
// usual spelling, Irish names of constituencies corrected, and party labels counted as the press counts them
// (candidates without a party as Independents; an alliance as one grouping). The records themselves never change:
// each candidate keeps what its record says, and every grouped row names the labels it counts.

import { displayName, slugOf } from './names.js';
import type { Candidate, ElectionData } from './types.js';

/** The row the press counts candidates without a party in: never a party, never given loyalty or a line of its own. */
export const INDEPENDENTS = 'Independents';

/** A reviewed statement that a party label of an election (or one candidate of it) is counted in another row. */
export interface PartyGrouping {
  /** The election's dataset name. */
  election: string;
  /** The label as the election's records give it. */
  party: string;
  /** One candidate of that label (their name as recorded), or null for every candidate of it. */
  candidate: string | null;
  /** The row the press counts them in, and its abbreviation. */
  grouping: string;
  abbreviation: string;
  evidence: string;
}

/** A reviewed spelling of a candidate's name where the record's is not the usual one (a misspelling, words swapped). */
export interface NameSpelling {
  election: string;
  constituency: string;
  recordedFirstName: string;
  recordedSurname: string;
  firstName: string;
  surname: string;
  evidence: string;
}

/** A reviewed spelling of a constituency's Irish name where the records' is wrong (a fada or a word missing). */
export interface IrishNameSpelling {
  recorded: string;
  shown: string;
  evidence: string;
}

/** An official figure the records do not give, from another official source, reviewed with that source. */
export interface ElectionFigure {
  election: string;
  figure: 'women candidates';
  value: number;
  source: string;
}

export interface Presentation {
  groupings: readonly PartyGrouping[];
  spellings: readonly NameSpelling[];
  irishNames: readonly IrishNameSpelling[];
  figures: readonly ElectionFigure[];
}

export const NO_PRESENTATION: Presentation = { groupings: [], spellings: [], irishNames: [], figures: [] };

const spaced = (text: string) => text.replace(/\s+/g, ' ').trim();
const sameText = (a: string, b: string) => spaced(a) === spaced(b);

/** The grouping that counts a candidate of an election, if any: one naming the candidate wins over one for the label. */
export function groupingOf(
  groupings: readonly PartyGrouping[],
  election: string,
  candidate: Pick<Candidate, 'firstName' | 'surname' | 'party'>,
): PartyGrouping | undefined {
  const mine = groupings.filter((g) => g.election === election && sameText(g.party, candidate.party));
  const name = `${candidate.firstName} ${candidate.surname}`;
  return (
    mine.find((g) => g.candidate !== null && sameText(g.candidate, name)) ?? mine.find((g) => g.candidate === null)
  );
}

/** An election's records as they are shown: names, Irish names and party rows, each candidate keeping its record's. */
export function present(data: ElectionData, election: string, presentation: Presentation): ElectionData {
  const constituencyName = new Map(data.constituencies.map((c) => [c.key, c.name]));
  const constituencies = data.constituencies.map((c) => {
    const irish = c.nameGa === null ? undefined : presentation.irishNames.find((n) => sameText(n.recorded, c.nameGa!));
    return irish ? { ...c, nameGa: irish.shown } : c;
  });
  const candidates = data.candidates.map((c): Candidate => {
    const where = slugOf(constituencyName.get(c.constituencyKey) ?? '');
    const spelling = presentation.spellings.find(
      (s) =>
        s.election === election &&
        slugOf(s.constituency) === where &&
        sameText(s.recordedFirstName, c.firstName) &&
        sameText(s.recordedSurname, c.surname),
    );
    // A title is not part of the name readers look for (`Dr. Fidelma`, `DR RONAN`); the record keeps it.
    const firstName = spelling ? spelling.firstName : displayName(c.firstName).replace(/^Dr\.?\s+(?=\p{L})/u, '');
    const surname = spelling ? spelling.surname : displayName(c.surname);
    const grouping = groupingOf(presentation.groupings, election, c);
    const party = grouping ? grouping.grouping : c.party;
    const partyAbbreviation = grouping ? grouping.abbreviation : c.partyAbbreviation;
    if (firstName === c.firstName && surname === c.surname && party === c.party) return c;
    return {
      ...c,
      firstName,
      surname,
      party,
      partyAbbreviation,
      recorded: { firstName: c.firstName, surname: c.surname, party: c.party, partyAbbreviation: c.partyAbbreviation },
    };
  });
  return { ...data, constituencies, candidates };
}

/** How each grouped row of an election is counted: its evidence, by the row's name. */
export function countingOf(presentation: Presentation, election: string): Map<string, string> {
  const counting = new Map<string, string[]>();
  for (const g of presentation.groupings) {
    if (g.election !== election) continue;
    const said = counting.get(g.grouping) ?? [];
    if (!said.includes(g.evidence)) said.push(g.evidence);
    counting.set(g.grouping, said);
  }
  return new Map([...counting].map(([row, evidence]) => [row, evidence.join(' ')]));
}
