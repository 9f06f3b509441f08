// Candidates across elections: each candidacy of every election (the Ceann Comhairle's automatic return among them),
// joined into people by name (fadas, case and the spacing of Ó / Mac prefixes folded), constituency continuity and
// party. A match that could go two ways is not made: the candidacies stay two people. Reviewed exceptions (a link the
// rules cannot see, such as a name spelt two ways, or a link they would make wrongly) are given with their evidence and
// applied first; names spelt nearly alike that neither rule nor review has decided are found, so that none is left
// unreviewed. Finding people is the search's (src/web/search.ts).

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
  /** The name as it is shown (the usual case and spelling). */
  firstName: string;
  surname: string;
  /** The name as the record spells it (the same as shown for the Ceann Comhairle, who has no record). */
  recordedName: string;
  /** The party as it is counted (a grouping, or Independents), and as the record gives it. */
  party: string;
  recordedParty: string;
  abbreviation: string;
  /** Null for the Ceann Comhairle, returned without a contest. */
  firstPreferences: number | null;
  /** Share of the constituency's valid poll, 0–1. */
  share: number | null;
  /** First preferences over the quota. */
  quotas: number | null;
  /** `returned automatically`: the outgoing Ceann Comhairle, in no count and in no results file. */
  result: 'elected' | 'excluded' | 'not elected' | 'returned automatically';
  /** The count on which the candidate was elected or excluded, from the count details; null where they do not say. */
  decidedOn: number | null;
  /** How many counts the constituency had. */
  counts: number;
  /** `_id` of the candidate's record in the candidates resource; 0 for the Ceann Comhairle's automatic return. */
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
  /** As the latest record spells it, in the usual case and spelling. */
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

const fullName = (c: { firstName: string; surname: string }) => `${c.firstName} ${c.surname}`.trim();

/** Seats held, at a count or returned automatically. */
export const isReturned = (c: Pick<Candidacy, 'result'>) =>
  c.result === 'elected' || c.result === 'returned automatically';

/**
 * Every candidacy of an election, with the count each candidate was elected or excluded on, and the Ceann Comhairle's
 * automatic return (in no count and no results file) as a candidacy of its own in their constituency.
 */
export function candidaciesOf(input: ElectionCandidacies): Candidacy[] {
  const { election } = input;
  const out: Candidacy[] = [];
  for (const constituency of election.constituencies) {
    const cc = election.house.ceannComhairle;
    if (cc && constituency.returnedAutomatically > 0) {
      const [firstName = '', ...rest] = cc.name.trim().split(/\s+/);
      const row = election.parties.find((p) => p.returnedAutomatically > 0);
      out.push({
        election: input.name,
        electionLabel: input.label,
        date: input.date,
        official: input.official,
        constituencyKey: constituency.key,
        constituencyName: constituency.name,
        candidateKey: `${constituency.key}/ceann-comhairle`,
        firstName,
        surname: rest.join(' '),
        recordedName: cc.name,
        party: row?.party ?? cc.party ?? '',
        recordedParty: cc.party ?? '',
        abbreviation: row?.abbreviation ?? '',
        firstPreferences: null,
        share: null,
        quotas: null,
        result: 'returned automatically',
        decidedOn: null,
        counts: 0,
        recordId: 0,
      });
    }
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
        recordedName: c.recorded ? `${c.recorded.firstName} ${c.recorded.surname}`.trim() : fullName(c),
        party: c.party,
        recordedParty: c.recorded?.party ?? c.party,
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

/** Whether a reviewed decision's side names this candidacy: by the name as shown or as recorded, and the party. */
function sideMatches(side: MatchSide, c: Candidacy): boolean {
  const name = nameKey({ firstName: '', surname: side.name });
  return (
    side.election === c.election &&
    sameConstituency(side.constituency, c.constituencyName) &&
    (name === nameKey(c) || name === nameKey({ firstName: '', surname: c.recordedName })) &&
    (!side.party ||
      partyMatchKey(side.party) === partyMatchKey(c.party) ||
      partyMatchKey(side.party) === partyMatchKey(c.recordedParty))
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
      // The same party line as counted, or the same label in the records (an independent counted in an alliance one
      // year is still the independent of the next).
      const likely = named.filter((p) => {
        const last = p.candidacies.at(-1)!;
        return (
          continuous(last.constituencyName, c.constituencyName) &&
          (partyMatchKey(lineOf(last)) === partyMatchKey(lineOf(c)) ||
            partyMatchKey(last.recordedParty) === partyMatchKey(c.recordedParty))
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
    // Named as the latest record names them (Wikipedia's tables use the names people go by; the official files add
    // middle names), in the usual case and spelling.
    const recorded = person.candidacies.filter((c) => c.recordId > 0);
    person.name = fullName((recorded.length > 0 ? recorded : person.candidacies).at(-1)!);
    // Other spellings are the records' own, where they are more than the case of the name shown.
    const spellings = new Map<string, string[]>();
    for (const c of recorded) {
      const spelt = displayName(c.recordedName);
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

/** How two names are spelt nearly alike. */
export type NearNameKind = 'word order' | 'middle name' | 'a name more' | 'a title' | 'short form' | 'one letter';

export interface NearNames {
  earlier: Person;
  later: Person;
  kind: NearNameKind;
}

/** Words of a name as written, prefixes apart; titles and a surname written twice left out (`Dr`, `Jnr`, `Collins Collins`). */
function plainWords(name: string): string[] {
  const words = foldText(name)
    .toLowerCase()
    .replace(/['’.]/g, ' ')
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !['dr', 'jnr', 'snr', 'jr'].includes(w));
  return words.filter((w, i) => !words.slice(0, i).includes(w) || w.length < 3);
}

/** Optimal string alignment distance: edits, a swap of two letters counted as one. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

const inOrderWithin = (short: string[], long: string[]) => {
  let at = 0;
  for (const w of long) if (w === short[at]) at++;
  return at === short.length;
};

/** How two names are nearly alike, or null: the kinds of spelling the records use for one person. */
export function nearNameKind(a: string, b: string): NearNameKind | null {
  const wa = plainWords(a);
  const wb = plainWords(b);
  if (wa.length === 0 || wb.length === 0) return null;
  const joined = (ws: string[]) => nameWords(ws.join(' ')).join(' ');
  if (joined(wa) === joined(wb)) {
    if (wa.join(' ') !== wb.join(' ')) return 'word order';
    return nameKey({ firstName: '', surname: a }) === nameKey({ firstName: '', surname: b }) ? null : 'a title';
  }
  if ([...wa].sort().join(' ') === [...wb].sort().join(' ')) return 'word order';
  const [short, long] = wa.length <= wb.length ? [wa, wb] : [wb, wa];
  if (short.length >= 2 && short.length < long.length && inOrderWithin(short, long))
    return short[0] === long[0] && short.at(-1) === long.at(-1) ? 'middle name' : 'a name more';
  if (
    wa.length === wb.length &&
    wa.slice(1).join(' ') === wb.slice(1).join(' ') &&
    wa[0]!.slice(0, 2) === wb[0]!.slice(0, 2)
  )
    return editDistance(joined(wa), joined(wb)) <= 1 ? 'one letter' : 'short form';
  return editDistance(joined(wa), joined(wb)) <= 1 ? 'one letter' : null;
}

/**
 * People left apart whose names are spelt nearly alike (word order, a middle name, a short form, a letter) in the same
 * or a redrawn constituency, who never stood in the same election, and whom no reviewed decision keeps apart: each is
 * a join for a reviewer to decide, never one the rules make.
 */
export function unreviewedNearNames(people: readonly Person[], matches: readonly CandidateMatch[]): NearNames[] {
  const found: NearNames[] = [];
  const byPlace = new Map<string, Person[]>();
  for (const p of people)
    for (const c of p.candidacies)
      for (const w of placeWords(c.constituencyName)) {
        const list = byPlace.get(w) ?? [];
        if (!list.includes(p)) list.push(p);
        byPlace.set(w, list);
      }
  const keptApart = (a: Person, b: Person) =>
    matches.some(
      (m) =>
        m.decision === 'different' &&
        a.candidacies.some((x) =>
          b.candidacies.some(
            (y) =>
              (sideMatches(m.earlier, x) && sideMatches(m.later, y)) ||
              (sideMatches(m.earlier, y) && sideMatches(m.later, x)),
          ),
        ),
    );
  const seen = new Set<string>();
  for (const group of byPlace.values())
    for (let i = 0; i < group.length; i++)
      for (let j = i + 1; j < group.length; j++) {
        const [a, b] = [group[i]!, group[j]!];
        const pair = [a.key, b.key].sort().join(' ');
        if (seen.has(pair)) continue;
        seen.add(pair);
        if (a.candidacies.some((x) => b.candidacies.some((y) => x.election === y.election))) continue;
        let kind: NearNameKind | null = null;
        for (const x of a.candidacies) {
          for (const y of b.candidacies) {
            if (!continuous(x.constituencyName, y.constituencyName)) continue;
            kind = nearNameKind(x.recordedName, y.recordedName) ?? nearNameKind(fullName(x), fullName(y));
            if (kind) break;
          }
          if (kind) break;
        }
        if (!kind || keptApart(a, b)) continue;
        const [earlier, later] = a.candidacies[0]!.date <= b.candidacies[0]!.date ? [a, b] : [b, a];
        found.push({ earlier, later, kind });
      }
  return found;
}
