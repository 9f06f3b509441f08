// What changed since the election before: each party's seats gained or lost and its swing in first-preference share
// (in points, from unrounded shares), the arithmetic of a majority in the new Dáil, and, per constituency, seats
// gained from and lost to other parties where the reviewed constituency lineage says the two can be compared, with
// the predecessors named where it says they cannot. Pure: it is given totals, tallies and reviewed links.

import type { PartyLine } from './over-time.js';
import { isElectedResult } from './parties.js';
import { slugOf } from './names.js';
import type { Candidate, Constituency, ElectionTotals, PartyTotals } from './types.js';

/** One party's figures at two elections, and the change between them. */
export interface PartySwing {
  party: string;
  abbreviation: string;
  /** Party keys in each election (null where it did not stand). */
  keys: [string | null, string | null];
  /** Seats as the Dáil had them (null where the party did not stand). */
  seats: [number | null, number | null];
  /** Share of first preferences, 0–1 (null where the party did not stand). */
  shares: [number | null, number | null];
  /** Later seats minus earlier, a party that did not stand counted as 0. */
  seatChange: number;
  /** Later share minus earlier in percentage points, unrounded; a party that did not stand had 0. */
  swing: number;
  stood: 'both' | 'earlier only' | 'later only';
}

/** The change between one party's totals at two elections; either may be null where it did not stand. */
export function partySwing(earlier: PartyTotals | null, later: PartyTotals | null): PartySwing {
  const named = (later ?? earlier)!;
  return {
    party: named.party,
    abbreviation: named.abbreviation,
    keys: [earlier?.key ?? null, later?.key ?? null],
    seats: [earlier?.seats ?? null, later?.seats ?? null],
    shares: [earlier?.voteShare ?? null, later?.voteShare ?? null],
    seatChange: (later?.seats ?? 0) - (earlier?.seats ?? 0),
    swing: ((later?.voteShare ?? 0) - (earlier?.voteShare ?? 0)) * 100,
    stood: earlier && later ? 'both' : earlier ? 'earlier only' : 'later only',
  };
}

/**
 * Every party's change from election `index - 1` to election `index` of the lines across elections (matched by name
 * and by the reviewed party lineage): those that stood in the later election by seats, then share; then those that
 * stood only in the earlier one. Empty for the first election, which has none before it.
 */
export function partySwingsAt(lines: readonly PartyLine[], index: number): PartySwing[] {
  if (index < 1) return [];
  const changes = lines
    .filter((line) => line.totals[index] || line.totals[index - 1])
    .map((line) => partySwing(line.totals[index - 1] ?? null, line.totals[index] ?? null));
  const order = (c: PartySwing) => (c.stood === 'earlier only' ? 1 : 0);
  return changes.sort(
    (a, b) =>
      order(a) - order(b) ||
      (b.seats[1] ?? 0) - (a.seats[1] ?? 0) ||
      (b.shares[1] ?? 0) - (a.shares[1] ?? 0) ||
      (b.seats[0] ?? 0) - (a.seats[0] ?? 0) ||
      (b.shares[0] ?? 0) - (a.shares[0] ?? 0) ||
      a.party.localeCompare(b.party),
  );
}

/** Seats against the majority line, and what the largest parties hold together. */
export interface MajorityArithmetic {
  /** Seats in the Dáil, the Ceann Comhairle's included. */
  houseSeats: number;
  /** More than half of all seats: ⌊seats / 2⌋ + 1. */
  majority: number;
  /** Whether a Ceann Comhairle was returned automatically (so sits in the house, voting only to break a tie). */
  ceannComhairle: boolean;
  /** Seats of the TDs who vote (all but the Ceann Comhairle), and more than half of them. */
  votingSeats: number;
  votingMajority: number;
  /** The parties' seats added up, to be checked against `houseSeats`. */
  partySeats: number;
  /** Parties with seats, most first. */
  parties: { party: string; key: string; abbreviation: string; seats: number }[];
  /** The largest three parties in pairs and all three together, each with its seats and its distance to `majority`. */
  combinations: { parties: string[]; seats: number; short: number }[];
}

export function majorityArithmetic(
  totals: Pick<ElectionTotals, 'houseSeats' | 'returnedAutomatically'>,
  parties: readonly PartyTotals[],
): MajorityArithmetic {
  const seated = parties
    .filter((p) => p.seats > 0)
    .map((p) => ({ party: p.party, key: p.key, abbreviation: p.abbreviation, seats: p.seats }))
    .sort((a, b) => b.seats - a.seats || a.party.localeCompare(b.party));
  const majority = Math.floor(totals.houseSeats / 2) + 1;
  const ceannComhairle = totals.returnedAutomatically > 0;
  const votingSeats = totals.houseSeats - (ceannComhairle ? 1 : 0);
  const top = seated.slice(0, 3);
  const groups: (typeof top)[] = [];
  for (let i = 0; i < top.length; i++) for (let j = i + 1; j < top.length; j++) groups.push([top[i]!, top[j]!]);
  if (top.length === 3) groups.push(top);
  return {
    houseSeats: totals.houseSeats,
    majority,
    ceannComhairle,
    votingSeats,
    votingMajority: Math.floor(votingSeats / 2) + 1,
    partySeats: parties.reduce((s, p) => s + p.seats, 0),
    parties: seated,
    combinations: groups.map((group) => {
      const seats = group.reduce((s, p) => s + p.seats, 0);
      return { parties: group.map((p) => p.party), seats, short: Math.max(0, majority - seats) };
    }),
  };
}

/** One constituency's result by party line: seats as the Dáil had them, and first preferences. */
export interface ConstituencyTally {
  /** Seats as the Dáil had them: the Ceann Comhairle's, where returned here automatically, included. */
  seats: number;
  firstPreferences: number;
  /** By the party's line across elections (its latest name), with the name and abbreviation this election uses. */
  parties: Map<string, { party: string; abbreviation: string; seats: number; firstPreferences: number }>;
}

/**
 * The tally of a constituency's candidates. `lineOf` names the line a party of this election belongs to, so that a
 * renamed party is the same party at the election before; `ceannComhairle` is the party of a Ceann Comhairle returned
 * here automatically (their seat is counted for it), or null.
 */
export function tallyOf(
  constituency: Pick<Constituency, 'seats' | 'returnedAutomatically'>,
  candidates: readonly Pick<Candidate, 'party' | 'partyAbbreviation' | 'firstPreferences' | 'result'>[],
  lineOf: (party: string) => string,
  ceannComhairle: { party: string; abbreviation: string } | null,
): ConstituencyTally {
  const parties: ConstituencyTally['parties'] = new Map();
  const rowOf = (party: string, abbreviation: string) => {
    const line = lineOf(party);
    let row = parties.get(line);
    if (!row) {
      row = { party, abbreviation, seats: 0, firstPreferences: 0 };
      parties.set(line, row);
    }
    return row;
  };
  let firstPreferences = 0;
  for (const c of candidates) {
    const row = rowOf(c.party, c.partyAbbreviation);
    row.firstPreferences += c.firstPreferences;
    row.seats += isElectedResult(c.result) ? 1 : 0;
    firstPreferences += c.firstPreferences;
  }
  if (constituency.returnedAutomatically > 0 && ceannComhairle)
    rowOf(ceannComhairle.party, ceannComhairle.abbreviation).seats += 1;
  return { seats: constituency.seats + constituency.returnedAutomatically, firstPreferences, parties };
}

/** One party's seats and share in a constituency at two elections. */
export interface ConstituencyPartySwing {
  line: string;
  party: string;
  abbreviation: string;
  seats: [number, number];
  /** Share of the constituency's first preferences, 0–1; null where the party had no candidate. */
  shares: [number | null, number | null];
  seatChange: number;
  /** In percentage points, unrounded; a party without a candidate had 0. */
  swing: number;
}

/** A seat that changed hands: `from` null is a seat the constituency did not have before. */
export interface SeatGain {
  party: string;
  from: string | null;
}

/** A seat lost: `to` null is a seat the constituency no longer has. */
export interface SeatLoss {
  party: string;
  to: string | null;
}

export interface ConstituencySwing {
  seats: [number, number];
  parties: ConstituencyPartySwing[];
  gains: SeatGain[];
  losses: SeatLoss[];
}

/**
 * A constituency compared with its predecessor: each party's seats and share, and the seats that changed hands. A
 * party's seats gained are paired with other parties' seats lost, largest changes first ("Sinn Féin gain from Fine
 * Gael"); a gain left over is a seat the constituency did not have, a loss left over one it no longer has.
 */
export function constituencySwing(earlier: ConstituencyTally, later: ConstituencyTally): ConstituencySwing {
  const lines = new Set([...earlier.parties.keys(), ...later.parties.keys()]);
  const share = (tally: ConstituencyTally, line: string) => {
    const row = tally.parties.get(line);
    return row && tally.firstPreferences > 0 ? row.firstPreferences / tally.firstPreferences : null;
  };
  const parties: ConstituencyPartySwing[] = [...lines].map((line) => {
    const a = earlier.parties.get(line);
    const b = later.parties.get(line);
    const named = (b ?? a)!;
    const shares: [number | null, number | null] = [share(earlier, line), share(later, line)];
    return {
      line,
      party: named.party,
      abbreviation: named.abbreviation,
      seats: [a?.seats ?? 0, b?.seats ?? 0],
      shares,
      seatChange: (b?.seats ?? 0) - (a?.seats ?? 0),
      swing: ((shares[1] ?? 0) - (shares[0] ?? 0)) * 100,
    };
  });
  parties.sort(
    (x, y) =>
      y.seats[1] - x.seats[1] ||
      (y.shares[1] ?? -1) - (x.shares[1] ?? -1) ||
      (y.shares[0] ?? -1) - (x.shares[0] ?? -1) ||
      x.party.localeCompare(y.party),
  );
  const units = (rows: ConstituencyPartySwing[]) =>
    rows
      .sort((x, y) => Math.abs(y.seatChange) - Math.abs(x.seatChange) || x.party.localeCompare(y.party))
      .flatMap((row) => Array.from({ length: Math.abs(row.seatChange) }, () => row.party));
  const gained = units(parties.filter((p) => p.seatChange > 0));
  const lost = units(parties.filter((p) => p.seatChange < 0));
  const gains: SeatGain[] = gained.map((party, i) => ({ party, from: lost[i] ?? null }));
  const losses: SeatLoss[] = lost.map((party, i) => ({ party, to: gained[i] ?? null }));
  return { seats: [earlier.seats, later.seats], parties, gains, losses };
}

/**
 * A party's seats that changed hands, in words: "gain from Fine Gael", "loss to Sinn Féin", "new seat", "seat gone";
 * several joined by commas; empty where none did.
 */
export function handsText(swing: Pick<ConstituencySwing, 'gains' | 'losses'>, party: string): string {
  return [
    ...swing.gains.filter((g) => g.party === party).map((g) => (g.from ? `gain from ${g.from}` : 'new seat')),
    ...swing.losses.filter((l) => l.party === party).map((l) => (l.to ? `loss to ${l.to}` : 'seat gone')),
  ].join(', ');
}

/**
 * A reviewed statement of where a constituency came from: `same` (unchanged), `continues` (the same constituency with
 * its boundaries adjusted, perhaps renamed: compared with it) or `from` (it took in all or part of it: not compared).
 */
export interface ConstituencyLink {
  election: string;
  constituency: string;
  predecessorElection: string;
  predecessor: string;
  relation: 'same' | 'continues' | 'from';
  evidence: string;
}

export const LINK_RELATIONS = ['same', 'continues', 'from'] as const;

export interface ConstituencyRef {
  election: string;
  key: string;
  name: string;
}

/** A link between constituencies of consecutive elections, from either end. */
export interface LinkedConstituency {
  constituency: ConstituencyRef;
  relation: ConstituencyLink['relation'];
  evidence: string;
}

/** The elections a lineage reads: their dataset names, oldest first, with their constituencies. */
export interface LineageElection {
  name: string;
  constituencies: readonly { key: string; name: string }[];
}

/**
 * The reviewed lineage of the loaded elections' constituencies. Links between elections that are not consecutive
 * among those loaded are not used (the one between would be missed); links naming a constituency the elections do not
 * have are reported in `problems`, so a misspelt row is seen, not silently dropped.
 */
export class ConstituencyLineage {
  readonly problems: string[] = [];
  private readonly before = new Map<string, LinkedConstituency[]>();
  private readonly after = new Map<string, LinkedConstituency[]>();
  private readonly order: string[];

  constructor(links: readonly ConstituencyLink[], elections: readonly LineageElection[]) {
    this.order = elections.map((e) => e.name);
    const find = (election: string, name: string): ConstituencyRef | null => {
      const found = elections
        .find((e) => e.name === election)
        ?.constituencies.find((c) => slugOf(c.name) === slugOf(name));
      return found ? { election, key: found.key, name: found.name } : null;
    };
    for (const link of links) {
      const at = this.order.indexOf(link.election);
      if (at < 1 || this.order[at - 1] !== link.predecessorElection) continue;
      const later = find(link.election, link.constituency);
      const earlier = find(link.predecessorElection, link.predecessor);
      if (!later || !earlier) {
        this.problems.push(
          `The constituency lineage names ${!later ? `"${link.constituency}" in ${link.election}` : `"${link.predecessor}" in ${link.predecessorElection}`}, which that election does not have.`,
        );
        continue;
      }
      push(this.before, refKey(later), { constituency: earlier, relation: link.relation, evidence: link.evidence });
      push(this.after, refKey(earlier), { constituency: later, relation: link.relation, evidence: link.evidence });
    }
  }

  /** Where the constituency came from at the election before: what it continues first, then what it took in. */
  predecessors(election: string, key: string): LinkedConstituency[] {
    return sortLinks(this.before.get(`${election}/${key}`) ?? []);
  }

  /** What it became at the election after. */
  successors(election: string, key: string): LinkedConstituency[] {
    return sortLinks(this.after.get(`${election}/${key}`) ?? []);
  }

  /** The constituency it is compared with at the election before: the one it is, or continues; null if none. */
  comparedWith(election: string, key: string): LinkedConstituency | null {
    return this.predecessors(election, key).find((l) => l.relation !== 'from') ?? null;
  }

  /** Whether the lineage covers this election: it has an election before it among those loaded. */
  hasEarlier(election: string): boolean {
    return this.order.indexOf(election) > 0;
  }

  /**
   * The same constituency at every other election, followed from one election to the next through `same` and
   * `continues` links (renamed ones too); elections where it has none are left out.
   */
  sameAt(election: string, key: string): ConstituencyRef[] {
    const found: ConstituencyRef[] = [];
    for (const step of ['predecessors', 'successors'] as const) {
      let at: ConstituencyRef | null = { election, key, name: '' };
      while (at) {
        const next: LinkedConstituency | undefined = this[step](at.election, at.key).find((l) => l.relation !== 'from');
        at = next ? next.constituency : null;
        if (at) found.push(at);
      }
    }
    return found.sort((a, b) => this.order.indexOf(a.election) - this.order.indexOf(b.election));
  }
}

const refKey = (ref: ConstituencyRef) => `${ref.election}/${ref.key}`;

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const RELATION_ORDER: Record<ConstituencyLink['relation'], number> = { same: 0, continues: 1, from: 2 };

function sortLinks(links: LinkedConstituency[]): LinkedConstituency[] {
  return [...links].sort(
    (a, b) =>
      RELATION_ORDER[a.relation] - RELATION_ORDER[b.relation] ||
      a.constituency.name.localeCompare(b.constituency.name, 'en-IE'),
  );
}
