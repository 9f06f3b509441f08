// Candidates across elections: each candidacy of every election, joined into people by name (fadas, case and the
// spacing of Ó / Mac prefixes folded), constituency continuity and party. A match that could go two ways is not made:
// the candidacies stay two people. Reviewed exceptions (a link the rules cannot see, such as a name spelt two ways, or
// a link they would make wrongly) are given with their evidence and applied first. Also: finding people by the start
// of the words of their names, as readers type them ("mich mart").

import { foldText } from '../text-search/index.js';
import type { Election } from './index.js';
import { displayName, partyMatchKey, slugOf } from './names.js';
import { isElectedResult } from './parties.js';

export interface Candidacy {
  /** The election's dataset name, label ("General Election 2020") and polling day. */
  election: string;
  electionLabel: string;
  date: string;
  /** Whether the election's candidate records are official (not derived from another source). */
  official: boolean;
  constituencyKey: string;
  constituencyName: string;
  /** The candidate's key within the election (`<constituency>/<candidate id>`). */
  candidateKey: string;
  firstName: string;
  surname: string;
  party: string;
  abbreviation: string;
  firstPreferences: number;
  /** Share of the constituency's valid poll, 0–1. */
  share: number | null;
  /** First preferences over the quota. */
  quotas: number | null;
  result: 'elected' | 'excluded' | 'not elected';
  /** The count on which the candidate was elected or excluded, from the count details; null where they do not say. */
  decidedOn: number | null;
  /** How many counts the constituency had. */
  counts: number;
  /** `_id` of the candidate's record in the candidates resource. */
  recordId: number;
}

/** A reviewed decision about two candidacies: the same person, or two people the rules would join. */
export interface CandidateMatch {
  decision: 'same' | 'different';
  /**
   * Each side: election (dataset name), constituency and name as the records give them, and the party where two
   * namesakes stood in one constituency.
   */
  earlier: MatchSide;
  later: MatchSide;
  evidence: string;
}

export interface MatchSide {
  election: string;
  constituency: string;
  name: string;
  party?: string;
}

export interface Person {
  /** URL-safe and unique. */
  key: string;
  /** As the latest official record spells it (else the latest record). */
  name: string;
  /** Oldest first. */
  candidacies: Candidacy[];
  /** Other spellings of the name in the records, with the elections that use them. */
  spellings: { name: string; elections: string[] }[];
  /** Reviewed decisions that joined these candidacies, or kept another apart from them. */
  reviewed: CandidateMatch[];
  /** Candidacies of the same name that could have been this person, left apart because the match could go two ways. */
  ambiguous: Candidacy[];
}

export interface ElectionCandidacies {
  name: string;
  label: string;
  date: string;
  official: boolean;
  election: Election;
}

const fullName = (c: { firstName: string; surname: string }) =>
  `${displayName(c.firstName)} ${displayName(c.surname)}`.trim();

/** Every candidacy of an election, with the count each candidate was elected or excluded on. */
export function candidaciesOf(input: ElectionCandidacies): Candidacy[] {
  const { election } = input;
  const out: Candidacy[] = [];
  for (const constituency of election.constituencies) {
    const sheet = election.hasCounts ? election.sheet(constituency.key) : undefined;
    const onSheet = new Map(sheet?.candidates.map((s) => [s.candidate.key, s]) ?? []);
    for (const c of election.candidates(constituency.key)) {
      const s = onSheet.get(c.key);
      const elected = s ? s.elected !== null : isElectedResult(c.result);
      const excluded = !elected && (s ? s.excludedAt !== null : /^excluded$/i.test(c.result));
      out.push({
        election: input.name,
        electionLabel: input.label,
        date: input.date,
        official: input.official,
        constituencyKey: constituency.key,
        constituencyName: constituency.name,
        candidateKey: c.key,
        firstName: c.firstName,
        surname: c.surname,
        party: c.party,
        abbreviation: c.partyAbbreviation,
        firstPreferences: c.firstPreferences,
        share: constituency.validPoll ? c.firstPreferences / constituency.validPoll : null,
        quotas: constituency.quota ? c.firstPreferences / constituency.quota : null,
        result: elected ? 'elected' : excluded ? 'excluded' : 'not elected',
        decidedOn: elected ? (s?.elected?.count ?? null) : excluded ? (s?.excludedAt ?? null) : null,
        counts: sheet?.steps.length ?? constituency.counts ?? 1,
        recordId: c.recordId,
      });
    }
  }
  return out;
}

/** Irish prefixes written apart, joined or with an apostrophe (Ó Ríordáin, O'Riordain, Ó'Ríordáin) read alike. */
const PREFIXES = /\b(o|ni|nic|mac|mc|ui|ua|de|di|du)\s+(?=\p{L})/gu;

/** The words of a name as matching reads them: folded, lower case, apostrophes and full stops gone, prefixes joined. */
export function nameWords(name: string): string[] {
  const folded = foldText(name)
    .toLowerCase()
    .replace(/['’.]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  return folded.replace(PREFIXES, '$1').split(' ').filter(Boolean);
}

export function nameKey(c: { firstName: string; surname: string }): string {
  return nameWords(`${c.firstName} ${c.surname}`).join(' ');
}

const GENERIC_PLACE_WORDS = new Set([
  'north',
  'south',
  'east',
  'west',
  'central',
  'mid',
  'bay',
  'city',
  'county',
  'and',
  'the',
  'of',
]);

/** The place words of a constituency's name: its county, town or area, without the directions. */
function placeWords(name: string): Set<string> {
  return new Set(
    foldText(name)
      .toLowerCase()
      .split(/[^a-z]+/)
      .filter((w) => w.length > 1 && !GENERIC_PLACE_WORDS.has(w)),
  );
}

function sameConstituency(a: string, b: string): boolean {
  return slugOf(a) === slugOf(b);
}

/**
 * Constituencies redrawn from one another keep a place in their names: Kerry South and Kerry, Laois–Offaly and Offaly.
 */
function continuous(a: string, b: string): boolean {
  const words = placeWords(b);
  return [...placeWords(a)].some((w) => words.has(w));
}

function sideMatches(side: MatchSide, c: Candidacy): boolean {
  return (
    side.election === c.election &&
    sameConstituency(side.constituency, c.constituencyName) &&
    nameKey({ firstName: '', surname: side.name }) === nameKey(c) &&
    (!side.party || partyMatchKey(side.party) === partyMatchKey(c.party))
  );
}

export interface People {
  people: Person[];
  byKey: Map<string, Person>;
  /** The person each candidacy belongs to, by `<election> <candidate key>`. */
  byCandidacy: Map<string, Person>;
}

export const candidacyId = (c: Pick<Candidacy, 'election' | 'candidateKey'>) => `${c.election} ${c.candidateKey}`;

/**
 * People from the candidacies of several elections. `partyLine` names the line a party of an election belongs to
 * (parties renamed between elections are one line), so that continuity of party survives a rename.
 */
export function peopleOf(
  all: readonly Candidacy[],
  matches: readonly CandidateMatch[],
  partyLine: (election: string, party: string) => string,
): People {
  const elections = [...new Set(all.map((c) => `${c.date} ${c.election}`))]
    .sort()
    .map((e) => e.slice(e.indexOf(' ') + 1));
  const people: Person[] = [];
  const ownerOf = new Map<string, Person>();
  const byName = new Map<string, Person[]>();
  const lineOf = (c: Candidacy) => partyLine(c.election, c.party);
  const kept = (a: Candidacy, b: Candidacy) =>
    matches.some(
      (m) =>
        m.decision === 'different' &&
        ((sideMatches(m.earlier, a) && sideMatches(m.later, b)) ||
          (sideMatches(m.earlier, b) && sideMatches(m.later, a))),
    );

  for (const election of elections) {
    const here = all.filter((c) => c.election === election);
    const proposals = new Map<
      Candidacy,
      { person: Person | null; reviewed: CandidateMatch | null; rivals: Person[] }
    >();
    for (const c of here) {
      const review = matches.find((m) => m.decision === 'same' && sideMatches(m.later, c));
      const reviewedOwner = review
        ? (all
            .filter((o) => sideMatches(review.earlier, o))
            .map((o) => ownerOf.get(candidacyId(o)))
            .find(Boolean) ?? null)
        : null;
      if (reviewedOwner) {
        proposals.set(c, { person: reviewedOwner, reviewed: review!, rivals: [] });
        continue;
      }
      const named = (byName.get(nameKey(c)) ?? []).filter((p) => {
        const last = p.candidacies.at(-1)!;
        return last.election !== election && !p.candidacies.some((o) => kept(o, c));
      });
      const strong = named.filter((p) => sameConstituency(p.candidacies.at(-1)!.constituencyName, c.constituencyName));
      const likely = named.filter((p) => {
        const last = p.candidacies.at(-1)!;
        return (
          continuous(last.constituencyName, c.constituencyName) &&
          partyMatchKey(lineOf(last)) === partyMatchKey(lineOf(c))
        );
      });
      const best = strong.length > 0 ? strong : likely;
      proposals.set(c, {
        person: best.length === 1 ? best[0]! : null,
        reviewed: null,
        rivals: best.length > 1 ? best : [],
      });
    }
    // One person stands once in an election: two candidacies claiming the same person leave it to neither, unless a
    // review gave it to one of them (the others then stay apart, with that review's evidence).
    const claims = new Map<Person, Candidacy[]>();
    for (const [c, p] of proposals) if (p.person) claims.set(p.person, [...(claims.get(p.person) ?? []), c]);
    const apart = new Map<Candidacy, CandidateMatch>();
    for (const [person, claimants] of claims) {
      if (claimants.length < 2) continue;
      const given = claimants.find((c) => proposals.get(c)!.reviewed);
      for (const c of claimants) {
        if (c === given) continue;
        proposals.set(c, { person: null, reviewed: null, rivals: given ? [] : [person] });
        if (given) apart.set(c, proposals.get(given)!.reviewed!);
      }
    }
    for (const c of here) {
      const proposal = proposals.get(c)!;
      let person = proposal.person;
      if (!person) {
        person = { key: '', name: '', candidacies: [], spellings: [], reviewed: [], ambiguous: [] };
        people.push(person);
        const key = nameKey(c);
        byName.set(key, [...(byName.get(key) ?? []), person]);
        for (const rival of proposal.rivals) {
          rival.ambiguous.push(c);
          person.ambiguous.push(...rival.candidacies);
        }
      }
      if (proposal.reviewed) person.reviewed.push(proposal.reviewed);
      if (apart.has(c)) person.reviewed.push(apart.get(c)!);
      person.candidacies.push(c);
      ownerOf.set(candidacyId(c), person);
      const key = nameKey(c);
      if (!(byName.get(key) ?? []).includes(person)) byName.set(key, [...(byName.get(key) ?? []), person]);
    }
  }
  for (const m of matches) {
    if (m.decision !== 'different') continue;
    for (const c of all)
      if (sideMatches(m.earlier, c) || sideMatches(m.later, c)) ownerOf.get(candidacyId(c))?.reviewed.push(m);
  }

  const used = new Set<string>();
  // Keys are given oldest first, so that a person's address does not change when a later namesake appears.
  for (const person of people) {
    const official = person.candidacies.filter((c) => c.official);
    const named = (official.length > 0 ? official : person.candidacies).at(-1)!;
    person.name = fullName(named);
    const spellings = new Map<string, string[]>();
    for (const c of person.candidacies) {
      const spelt = fullName(c);
      if (spelt !== person.name) spellings.set(spelt, [...(spellings.get(spelt) ?? []), c.electionLabel]);
    }
    person.spellings = [...spellings].map(([name, elections]) => ({ name, elections }));
    const base = slugOf(person.name);
    let key = base;
    if (used.has(key)) key = `${base}-${slugOf(person.candidacies[0]!.constituencyName)}`;
    for (let n = 2; used.has(key); n++) key = `${base}-${slugOf(person.candidacies[0]!.constituencyName)}-${n}`;
    used.add(key);
    person.key = key;
  }
  return { people, byKey: new Map(people.map((p) => [p.key, p])), byCandidacy: ownerOf };
}

/** Each person's search words, worked out on the first search that reads them (a search reads every person). */
const wordsOf = new WeakMap<Person, string[]>();

/** The words of a person's names in every spelling, whole and with prefixes apart ("o riordain" and "oriordain"). */
function searchWords(person: Person): string[] {
  const known = wordsOf.get(person);
  if (known) return known;
  const words = new Set<string>();
  for (const c of person.candidacies) {
    const name = `${c.firstName} ${c.surname}`;
    for (const w of nameWords(name)) words.add(w);
    for (const w of foldText(name)
      .toLowerCase()
      .replace(/['’.]/g, ' ')
      .split(/[^a-z0-9]+/))
      if (w) words.add(w);
  }
  const list = [...words];
  wordsOf.set(person, list);
  return list;
}

export interface PersonMatch {
  person: Person;
  /** Query words that are whole words of the name (the rest are its words' beginnings). */
  whole: number;
}

/**
 * People whose names have a word beginning with each word of `query`, fadas and case ignored ("mich mart" finds
 * Micheál Martin): whole-word matches first, then those elected most often, then the most recent.
 */
export function findPeople(
  people: readonly Person[],
  query: string,
  limit: number,
): { matches: PersonMatch[]; total: number } {
  const wanted = nameWords(query);
  const raw = foldText(query)
    .toLowerCase()
    .replace(/['’.]/g, ' ')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (wanted.length === 0) return { matches: [], total: 0 };
  const found: PersonMatch[] = [];
  for (const person of people) {
    const words = searchWords(person);
    const hit = (w: string) => words.some((n) => n.startsWith(w));
    // Either reading of the query may be the one the reader meant: prefixes joined ("oriordain") or apart ("o
    // riordain").
    const reading = [wanted, raw].find((ws) => ws.every(hit));
    if (!reading) continue;
    found.push({ person, whole: reading.filter((w) => words.includes(w)).length });
  }
  const elected = (p: Person) => p.candidacies.filter((c) => c.result === 'elected').length;
  found.sort(
    (a, b) =>
      b.whole - a.whole ||
      elected(b.person) - elected(a.person) ||
      b.person.candidacies.at(-1)!.date.localeCompare(a.person.candidacies.at(-1)!.date) ||
      a.person.name.localeCompare(b.person.name),
  );
  return { matches: found.slice(0, limit), total: found.length };
}
