// Two elections side by side: party shares and seats, turnout, and constituencies matched by name, with those that
// appear in only one election (new, abolished or renamed: boundaries were redrawn) or whose seats changed flagged.

import { foldText } from '../text-search/index.js';
import { partyMatchKey } from './names.js';
import type { Constituency, ElectionTotals, House, PartyTotals } from './types.js';

export interface ElectionSummary {
  name: string;
  label: string;
  house: House;
  totals: ElectionTotals;
  parties: readonly PartyTotals[];
  constituencies: readonly Constituency[];
}

export interface PartyChange {
  party: string;
  abbreviation: string;
  /** Party keys in each election (null where it did not stand). */
  keys: [string | null, string | null];
  voteShare: [number | null, number | null];
  /** As the Dáil had them: a Ceann Comhairle returned automatically counts for their party. */
  seats: [number | null, number | null];
  /** Whether each election's seats include a Ceann Comhairle returned automatically. */
  ceannComhairle: [boolean, boolean];
  /** Later minus earlier, in percentage points; null unless the party stood in both. */
  shareChange: number | null;
  seatChange: number | null;
}

export interface ConstituencyChange {
  name: string;
  keys: [string | null, string | null];
  /** As the Dáil had them: a Ceann Comhairle returned automatically is counted. */
  seats: [number | null, number | null];
  /** Whether each election's seats here include a Ceann Comhairle returned automatically. */
  ceannComhairle: [boolean, boolean];
  turnout: [number | null, number | null];
  /**
   * `same`; `seats` when the seats changed; `only-earlier` / `only-later` when the name appears in one election only.
   */
  status: 'same' | 'seats' | 'only-earlier' | 'only-later';
}

export interface Comparison {
  earlier: ElectionSummary;
  later: ElectionSummary;
  turnout: [number | null, number | null];
  parties: PartyChange[];
  constituencies: ConstituencyChange[];
}

/**
 * The words of a name in alphabetical order: "People Before Profit–Solidarity" is "Solidarity - People Before Profit".
 */
function wordsKey(name: string): string {
  return partyMatchKey(name).split(' ').sort().join(' ');
}

function constituencyMatchKey(name: string): string {
  return foldText(name)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * A constituency's seats in the Dáil: those contested and the Ceann Comhairle's, where returned there automatically.
 */
const houseSeatsOf = (c: Constituency) => c.seats + c.returnedAutomatically;

const turnoutOf = (c: Constituency) => (c.electorate && c.totalPoll !== null ? c.totalPoll / c.electorate : null);

export function compareElections(earlier: ElectionSummary, later: ElectionSummary): Comparison {
  const parties: PartyChange[] = [];
  const laterByKey = new Map<string, PartyTotals>();
  const laterByWords = new Map<string, PartyTotals>();
  const laterByAbbreviation = new Map<string, PartyTotals>();
  for (const p of later.parties) {
    laterByKey.set(partyMatchKey(p.party), p);
    laterByWords.set(wordsKey(p.party), p);
    laterByAbbreviation.set(p.abbreviation, p);
  }
  const matched = new Set<PartyTotals>();
  for (const a of earlier.parties) {
    const b =
      laterByKey.get(partyMatchKey(a.party)) ??
      laterByWords.get(wordsKey(a.party)) ??
      laterByAbbreviation.get(a.abbreviation);
    const usable = b && !matched.has(b) ? b : undefined;
    if (usable) matched.add(usable);
    parties.push(change(a, usable ?? null));
  }
  for (const b of later.parties) if (!matched.has(b)) parties.push(change(null, b));
  parties.sort(
    (x, y) => (y.voteShare[1] ?? -1) - (x.voteShare[1] ?? -1) || (y.voteShare[0] ?? -1) - (x.voteShare[0] ?? -1),
  );

  const laterConstituencies = new Map(later.constituencies.map((c) => [constituencyMatchKey(c.name), c]));
  const seen = new Set<string>();
  const constituencies: ConstituencyChange[] = [];
  for (const a of earlier.constituencies) {
    const key = constituencyMatchKey(a.name);
    const b = laterConstituencies.get(key);
    if (b) seen.add(key);
    constituencies.push({
      name: b?.name ?? a.name,
      keys: [a.key, b?.key ?? null],
      seats: [houseSeatsOf(a), b ? houseSeatsOf(b) : null],
      ceannComhairle: [a.returnedAutomatically > 0, (b?.returnedAutomatically ?? 0) > 0],
      turnout: [turnoutOf(a), b ? turnoutOf(b) : null],
      status: !b ? 'only-earlier' : houseSeatsOf(a) !== houseSeatsOf(b) ? 'seats' : 'same',
    });
  }
  for (const b of later.constituencies) {
    if (seen.has(constituencyMatchKey(b.name))) continue;
    constituencies.push({
      name: b.name,
      keys: [null, b.key],
      seats: [null, houseSeatsOf(b)],
      ceannComhairle: [false, b.returnedAutomatically > 0],
      turnout: [null, turnoutOf(b)],
      status: 'only-later',
    });
  }
  constituencies.sort((x, y) => x.name.localeCompare(y.name, 'en-IE'));
  return { earlier, later, turnout: [earlier.totals.turnout, later.totals.turnout], parties, constituencies };
}

function change(a: PartyTotals | null, b: PartyTotals | null): PartyChange {
  const both = a !== null && b !== null;
  return {
    party: (b ?? a)!.party,
    abbreviation: (b ?? a)!.abbreviation,
    keys: [a?.key ?? null, b?.key ?? null],
    voteShare: [a?.voteShare ?? null, b?.voteShare ?? null],
    seats: [a?.seats ?? null, b?.seats ?? null],
    ceannComhairle: [Boolean(a?.returnedAutomatically), Boolean(b?.returnedAutomatically)],
    shareChange: both ? (b.voteShare - a.voteShare) * 100 : null,
    seatChange: both ? b.seats - a.seats : null,
  };
}
