// One search for everything the explorer has a page for: people, constituencies (with each election they existed at),
// parties (as lines across elections) and elections. Names are read as readers type them: without fadas or case, each
// word the beginning of a word of the name ("mich mart"), prefixes joined or apart ("o riord", "oriord"). Where nothing
// matches so, names spelt nearly alike are offered instead ("varadker" → Varadkar, "michael martin" → Micheál Martin),
// by edit distance on each word. The index is made once per version of the data; matching is pure and bounded.

import { isReturned, nameWords, type Person } from '../elections/index.js';
import { foldText } from '../text-search/index.js';

export type SearchKind = 'election' | 'party' | 'constituency' | 'person';

/** Kinds in the order results list them: the fewest and broadest first. */
export const KIND_ORDER: readonly SearchKind[] = ['election', 'party', 'constituency', 'person'];

export interface ElectionHit {
  kind: 'election';
  name: string;
  label: string;
  date: string;
  body: string;
  seats: number | null;
  constituencies: number;
}

export interface PartyHit {
  kind: 'party';
  /** The line's key, as elections over time names it. */
  key: string;
  name: string;
  abbreviation: string;
  /** Candidates without a party, counted together: not a party. */
  independents: boolean;
  /** Each election it stood in, oldest first, with its name there, its seats and its page. */
  elections: { election: string; year: string; party: string; seats: number; candidates: number; href: string }[];
}

export interface ConstituencyHit {
  kind: 'constituency';
  key: string;
  name: string;
  nameGa: string | null;
  /** Each election it existed at, oldest first, with its page. */
  elections: { election: string; year: string; seats: number; href: string }[];
}

export interface PersonHit {
  kind: 'person';
  person: Person;
}

export type SearchHit = ElectionHit | PartyHit | ConstituencyHit | PersonHit;

export interface SearchEntry {
  hit: SearchHit;
  title: string;
  /** Every word of every name it goes by, folded, prefixes joined and apart. */
  words: string[];
  /** Among equally good matches, the larger first: seats won, elections stood in or existed at. */
  weight: number;
  /** Its latest election's polling day: among equal weights, the more recent first. */
  latest: string;
  /** Where a match leads when the words it matched name the entry at one election more than another. */
  hrefFor?: (matched: readonly string[]) => string | null;
}

/** The words a reader may type for a name: folded, lower case, apostrophes and full stops gone; prefixes joined too. */
export function wordsOf(...names: string[]): string[] {
  const words = new Set<string>();
  for (const name of names) {
    for (const w of nameWords(name)) words.add(w);
    for (const w of foldText(name)
      .toLowerCase()
      .replace(/['’.]/g, ' ')
      .split(/[^a-z0-9]+/))
      if (w) words.add(w);
    // Abbreviations are typed without their full stops (F.F. as ff, S.P.B.P. as spbp).
    const squeezed = foldText(name)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '');
    if (/^[a-z0-9]{1,8}$/.test(squeezed)) words.add(squeezed);
  }
  return [...words];
}

export function personEntry(person: Person): SearchEntry {
  const names = person.candidacies.map((c) => `${c.firstName} ${c.surname}`);
  for (const c of person.candidacies) names.push(c.recordedName);
  return {
    hit: { kind: 'person', person },
    title: person.name,
    words: wordsOf(...names),
    weight: person.candidacies.filter(isReturned).length,
    latest: person.candidacies.at(-1)!.date,
  };
}

/** The most words of a query that are read; a search is for a name, not a paragraph. */
export const MAX_QUERY_WORDS = 8;
/** Words longer than this are matched by their beginning only, never by spelling. */
const MAX_FUZZY_WORD = 24;

export interface ReadQuery {
  /** Readings of the query's words: prefixes joined ("oriordain") and apart ("o riordain"); the first non-empty. */
  readings: string[][];
  /** Words beyond MAX_QUERY_WORDS, left out. */
  dropped: number;
}

export function readQuery(query: string): ReadQuery {
  const apart = foldText(query)
    .toLowerCase()
    .replace(/['’.]/g, ' ')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const joined = nameWords(query);
  const readings = [joined, apart].filter(
    (r, i, all) => r.length > 0 && all.findIndex((o) => o.join(' ') === r.join(' ')) === i,
  );
  const longest = Math.max(0, ...readings.map((r) => r.length));
  return {
    readings: readings.map((r) => r.slice(0, MAX_QUERY_WORDS)),
    dropped: Math.max(0, longest - MAX_QUERY_WORDS),
  };
}

/** Optimal string alignment distance, stopped once it exceeds `limit` (then `limit + 1`). */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i, ...new Array<number>(b.length).fill(0)];
    let best = current[0]!;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    [before, previous] = [previous, current];
  }
  return previous[b.length]!;
}

/** How far a misspelling may be from the word meant: one edit in a word of four letters or more, two from eight. */
const tolerance = (word: string) => (word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0);

export interface WordMatch {
  /** 0 a whole word, 1 the beginning of one, 2 + edits a word spelt nearly alike. */
  score: number;
  /** The word of the entry it matched (what "did you mean" suggests). */
  word: string;
}

function matchWord(wanted: string, words: readonly string[], fuzzy: boolean): WordMatch | null {
  let best: WordMatch | null = null;
  for (const word of words) {
    if (word === wanted) return { score: 0, word };
    if (word.startsWith(wanted)) {
      if (!best || best.score > 1) best = { score: 1, word };
      continue;
    }
    if (!fuzzy || (best && best.score <= 1)) continue;
    const limit = tolerance(wanted);
    if (limit === 0 || wanted.length > MAX_FUZZY_WORD) continue;
    // A misspelt whole word, or the misspelt beginning of a longer one.
    const whole = editDistance(wanted, word, limit);
    const start =
      word.length > wanted.length + limit ? editDistance(wanted, word.slice(0, wanted.length), limit) + 1 : Infinity;
    const d = Math.min(whole, start);
    if (d <= limit && (!best || best.score > 2 + d)) best = { score: 2 + d, word };
  }
  return best;
}

export interface Match {
  entry: SearchEntry;
  score: number;
  /** Whether any word was matched by its spelling alone. */
  fuzzy: boolean;
  /** The entry's words that the query's words matched, in the query's order. */
  matched: string[];
}

export interface SearchOutcome {
  /** Exact matches (whole words or their beginnings); where there are none, names spelt nearly alike. */
  matches: Match[];
  /** True when the matches are spelt nearly alike, nothing having matched exactly. */
  nearly: boolean;
  dropped: number;
}

function matchEntry(entry: SearchEntry, readings: string[][], fuzzy: boolean): Match | null {
  let best: Match | null = null;
  for (const words of readings) {
    const found: WordMatch[] = [];
    for (const w of words) {
      const m = matchWord(w, entry.words, fuzzy);
      if (!m) break;
      found.push(m);
    }
    if (found.length !== words.length) continue;
    const score = found.reduce((s, m) => s + m.score, 0);
    if (!best || score < best.score)
      best = { entry, score, fuzzy: found.some((m) => m.score >= 2), matched: found.map((m) => m.word) };
  }
  return best;
}

const kindRank = (entry: SearchEntry) => KIND_ORDER.indexOf(entry.hit.kind);

function byRank(a: Match, b: Match): number {
  return (
    kindRank(a.entry) - kindRank(b.entry) ||
    a.score - b.score ||
    b.entry.weight - a.entry.weight ||
    b.entry.latest.localeCompare(a.entry.latest) ||
    a.entry.title.localeCompare(b.entry.title)
  );
}

/**
 * Everything whose names have a word beginning with each word of the query (fadas, case and the spacing of prefixes
 * ignored); if nothing does, everything whose words are spelt nearly like the query's. Elections, then parties, then
 * constituencies, then people; within each, whole words before beginnings before misspellings, then the larger (seats,
 * elections) and the more recent.
 */
export function search(entries: readonly SearchEntry[], query: string): SearchOutcome {
  const { readings, dropped } = readQuery(query);
  if (readings.length === 0) return { matches: [], nearly: false, dropped };
  const exact = entries.map((e) => matchEntry(e, readings, false)).filter((m): m is Match => m !== null);
  if (exact.length > 0) return { matches: exact.sort(byRank), nearly: false, dropped };
  const near = entries.map((e) => matchEntry(e, readings, true)).filter((m): m is Match => m !== null);
  return { matches: near.sort(byRank), nearly: near.length > 0, dropped };
}
