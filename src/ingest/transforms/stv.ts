// From STV running totals (each candidate's total after each count, as Wikipedia's count tables give them) to the
// official layouts: count details, candidate results and constituency results. Pure functions of their inputs.
//
// What the running totals leave implicit is derived by the rules of the Irish count (Electoral Act 1992, s. 121-
// 123): a candidate's votes leave the count at the count after the last one with a total (the whole total on
// exclusion); an elected candidate's surplus over the quota is distributed at a count where no one is excluded,
// the largest undistributed surplus first. Transfers are then differences of totals. test/unit/stv.test.ts checks
// these rules reproduce the official 2016 and 2020 count details from their own running totals.

import type { DatasetDefinition } from '../../catalog/types.js';
import type { StoredValue } from '../../catalog/values.js';
import { columnReader, computedValue, loadError, type DerivedRow, type Origin, type Table } from '../table.js';

export const STATUSES = ['Elected', 'Excluded', 'Not Elected'] as const;
export type Status = (typeof STATUSES)[number];

export interface StvCandidate {
  id: string;
  name: string;
  party: string;
  status: Status;
  /** Running total after each count (index 0 is count 1); null once out of the count or elected with no change. */
  totals: (number | null)[];
  origin: Origin;
}

export interface StvConstituency {
  key: string;
  counts: number;
  candidates: StvCandidate[];
  origin: Origin;
}

/** One candidate at one count, in the official count-details terms. */
export interface CountState {
  count: number;
  result: '' | 'Elected' | 'Excluded';
  occurredOn: number;
  total: number;
  transfer: number;
  requiredToReachQuota: number;
  requiredToSaveDeposit: number;
}

export interface CandidateCounts {
  candidate: StvCandidate;
  firstPreferences: number;
  states: CountState[];
}

/** What one count did: whose votes it distributed, and why. */
export interface CountEvent {
  count: number;
  kind: 'exclusion' | 'surplus' | 'none';
  candidates: StvCandidate[];
}

/** floor(quota / 4) + 1: the votes that reach a quarter of the quota, as the official files compute the threshold. */
export function expensesThreshold(quota: number): number {
  return Math.floor(quota / 4) + 1;
}

/**
 * Groups running-totals rows (one per candidate per count) into constituencies and candidates, checking their shape.
 */
export function readRunningTotals(totals: Table): StvConstituency[] {
  const get = columnReader(totals);
  const byKey = new Map<string, StvConstituency>();
  const candidates = new Map<string, StvCandidate>();
  for (const row of totals.rows) {
    const key = String(get(row, 'constituency_key'));
    let constituency = byKey.get(key);
    if (!constituency) {
      constituency = { key, counts: 0, candidates: [], origin: row.origin };
      byKey.set(key, constituency);
    }
    const id = String(get(row, 'candidate'));
    let candidate = candidates.get(`${key}\u0000${id}`);
    if (!candidate) {
      const status = String(get(row, 'status'));
      if (!(STATUSES as readonly string[]).includes(status))
        throw loadError(row.origin, `status "${status}" is not one of ${STATUSES.join(', ')}`);
      candidate = {
        id,
        name: String(get(row, 'name')),
        party: totals.fields.some((f) => f.id === 'party') ? String(get(row, 'party')) : '',
        status: status as Status,
        totals: [],
        origin: row.origin,
      };
      candidates.set(`${key}\u0000${id}`, candidate);
      constituency.candidates.push(candidate);
    }
    const count = get(row, 'count');
    if (count !== candidate.totals.length + 1)
      throw loadError(
        row.origin,
        `count ${count} follows count ${candidate.totals.length} for candidate ${id}: counts must run 1, 2, 3, …`,
      );
    const total = get(row, 'running_total');
    if (total !== null && (typeof total !== 'number' || !Number.isInteger(total) || total < 0))
      throw loadError(row.origin, `running total ${total} is not a whole number of votes`);
    if (total !== null && candidate.totals.length > 0 && candidate.totals[candidate.totals.length - 1] === null) {
      throw loadError(row.origin, `candidate ${id} has a running total again after dropping out of the count`);
    }
    if (total === null && count === 1) throw loadError(row.origin, `candidate ${id} has no first-preference total`);
    candidate.totals.push(total as number | null);
  }
  for (const constituency of byKey.values()) {
    constituency.counts = Math.max(...constituency.candidates.map((c) => c.totals.length));
    for (const c of constituency.candidates) {
      if (c.totals.length !== constituency.counts)
        throw loadError(
          c.origin,
          `candidate ${c.id} has ${c.totals.length} counts, the constituency ${constituency.counts}`,
        );
      const last = lastCount(c);
      if (c.status === 'Excluded' && last === constituency.counts)
        throw loadError(c.origin, `candidate ${c.id} is excluded but has a total at the last count`);
      if (c.status === 'Not Elected' && last !== constituency.counts)
        throw loadError(
          c.origin,
          `candidate ${c.id} is neither elected nor excluded but has no total at the last count`,
        );
    }
  }
  return [...byKey.values()];
}

/** The last count at which the candidate has a running total (1-based). */
export function lastCount(candidate: StvCandidate): number {
  let last = 0;
  candidate.totals.forEach((t, i) => {
    if (t !== null) last = i + 1;
  });
  return last;
}

/**
 * Which votes each count (from 2) distributed: exclusions as the totals show them, otherwise the largest pending
 * surplus.
 */
export function countEvents(constituency: StvConstituency, quota: number): CountEvent[] {
  const events: CountEvent[] = [];
  const distributed = new Set<StvCandidate>();
  for (let k = 2; k <= constituency.counts; k++) {
    const excluded = constituency.candidates.filter((c) => c.status === 'Excluded' && lastCount(c) === k - 1);
    if (excluded.length > 0) {
      events.push({ count: k, kind: 'exclusion', candidates: excluded });
      continue;
    }
    const pending = constituency.candidates
      .map((c, position) => ({
        c,
        position,
        elected: lastCount(c),
        surplus: (c.totals[lastCount(c) - 1] ?? 0) - quota,
      }))
      .filter((p) => p.c.status === 'Elected' && p.elected < k && p.surplus > 0 && !distributed.has(p.c))
      .sort((a, b) => b.surplus - a.surplus || a.elected - b.elected || a.position - b.position);
    const next = pending[0];
    if (next) {
      distributed.add(next.c);
      events.push({ count: k, kind: 'surplus', candidates: [next.c] });
    } else {
      events.push({ count: k, kind: 'none', candidates: [] });
    }
  }
  return events;
}

/** Every candidate's state at every count, in the official count-details terms. */
export function deriveCounts(constituency: StvConstituency, quota: number): CandidateCounts[] {
  const events = countEvents(constituency, quota);
  const threshold = expensesThreshold(quota);
  const n = constituency.counts;
  return constituency.candidates.map((candidate) => {
    const last = lastCount(candidate);
    const excludedAt = candidate.status === 'Excluded' ? last + 1 : null;
    const electedAt = candidate.status === 'Elected' ? last : null;
    const surplusAt = events.find((e) => e.kind === 'surplus' && e.candidates[0] === candidate)?.count ?? null;
    const states: CountState[] = [];
    let previous = 0;
    let highest = 0;
    for (let k = 1; k <= n; k++) {
      let total: number;
      if (excludedAt !== null && k >= excludedAt) total = 0;
      else if (electedAt !== null && k > electedAt)
        total = surplusAt !== null && k >= surplusAt ? quota : candidate.totals[electedAt - 1]!;
      else total = candidate.totals[k - 1]!;
      const excluded = excludedAt !== null && k >= excludedAt;
      if (!excluded) highest = Math.max(highest, total);
      const result = electedAt !== null && k >= electedAt ? 'Elected' : excluded ? 'Excluded' : '';
      states.push({
        count: k,
        result,
        occurredOn: result === 'Elected' ? electedAt! : result === 'Excluded' ? excludedAt! : k === n ? n : 0,
        total,
        transfer: k === 1 ? 0 : total - previous,
        requiredToReachQuota: excluded ? 0 : Math.max(0, quota - total),
        requiredToSaveDeposit: Math.max(0, threshold - highest),
      });
      previous = total;
    }
    return { candidate, firstPreferences: candidate.totals[0]!, states };
  });
}

// ---- names, parties, constituencies

const PARTICLES = new Set(['Ó', 'Ní', 'Nic', 'Mac', 'Mag', 'Mhic', 'Uí', 'Ua', 'de', 'De', 'van', 'Van', 'von', 'Von']);
const SUFFIXES = new Set(['Jnr', 'Snr', 'Jr', 'Sr', 'Jr.', 'Sr.']);

/**
 * A published name split into first name and surname: the surname is the last word, with a trailing Jnr or Snr
 * and the particles before it (Ó Cuív, Mac Lochlainn, de Valera). `${first} ${surname}` is the name again.
 */
export function splitName(name: string): { first: string; surname: string } {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length <= 1) return { first: '', surname: words[0] ?? '' };
  let start = words.length - 1;
  if (SUFFIXES.has(words[start]!) && start > 1) start--;
  while (start > 1 && PARTICLES.has(words[start - 1]!)) start--;
  return { first: words.slice(0, start).join(' '), surname: words.slice(start).join(' ') };
}

/** A constituency name reduced for matching across sources: no accents, case, dashes or repeated spaces. */
export function nameKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

export function irishNames(table: Table | null): Map<string, string> {
  const names = new Map<string, string>();
  if (!table) return names;
  const get = columnReader(table);
  for (const row of table.rows) {
    const key = nameKey(String(get(row, 'name')));
    const ainm = String(get(row, 'ainm'));
    // The first input naming a constituency wins (the catalogue lists the most recent first).
    if (key && ainm && !names.has(key)) names.set(key, ainm);
  }
  return names;
}

// ---- the election, joined with its statistics

export interface StvElection {
  constituencies: {
    number: number;
    name: string;
    quota: number;
    /** The statistics record. */
    origin: Origin;
    statistics: Map<string, StoredValue>;
    stv: StvConstituency;
    counts: CandidateCounts[];
  }[];
}

// The three tables of an election are derived from the same inputs in one load: derive once.
const derivedElections = new WeakMap<Table, WeakMap<Table, Map<string, StvElection>>>();

/**
 * Joins running totals to statistics (by key, through `constituency_keys` where they differ) and derives the counts.
 */
export function deriveElection(totals: Table, statistics: Table, options: Record<string, unknown>): StvElection {
  const byStatistics = derivedElections.get(totals) ?? new WeakMap<Table, Map<string, StvElection>>();
  derivedElections.set(totals, byStatistics);
  const byOptions = byStatistics.get(statistics) ?? new Map<string, StvElection>();
  byStatistics.set(statistics, byOptions);
  const key = JSON.stringify(options.constituency_keys ?? {});
  let election = byOptions.get(key);
  if (!election) {
    election = joinAndDerive(totals, statistics, options);
    byOptions.set(key, election);
  }
  return election;
}

function joinAndDerive(totals: Table, statistics: Table, options: Record<string, unknown>): StvElection {
  const aliases = (options.constituency_keys ?? {}) as Record<string, string>;
  const stv = readRunningTotals(totals);
  const get = columnReader(statistics);
  const byKey = new Map<string, { row: (typeof statistics.rows)[number]; position: number }>();
  statistics.rows.forEach((row, i) => {
    const key = String(get(row, 'constituency_key'));
    if (byKey.has(key)) throw loadError(row.origin, `constituency "${key}" is listed twice`);
    byKey.set(key, { row, position: i + 1 });
  });
  const matched = new Set<string>();
  const constituencies = stv.map((constituency) => {
    const key = aliases[constituency.key] ?? constituency.key;
    const found = byKey.get(key);
    if (!found)
      throw loadError(
        constituency.origin,
        `the statistics have no constituency "${key}"${aliases[constituency.key] ? '' : ' (name it in the option constituency_keys if the two spell it differently)'}`,
      );
    if (matched.has(key))
      throw loadError(constituency.origin, `two running-totals tables are for the constituency "${key}"`);
    matched.add(key);
    const quota = get(found.row, 'quota');
    if (typeof quota !== 'number' || !Number.isInteger(quota) || quota <= 0)
      throw loadError(found.row.origin, `quota ${quota} is not a whole number of votes`);
    return {
      number: found.position,
      name: String(get(found.row, 'constituency')),
      origin: found.row.origin,
      quota,
      statistics: new Map(statistics.fields.map((f, i) => [f.id, computedValue(found.row.values[i], f.type)])),
      stv: constituency,
      counts: deriveCounts(constituency, quota),
    };
  });
  for (const [key, { row }] of byKey)
    if (!matched.has(key)) throw loadError(row.origin, `no running totals are for the constituency "${key}"`);
  constituencies.sort((a, b) => a.number - b.number);
  return { constituencies };
}

// ---- the three tables

export function countDetailRows(totals: Table, statistics: Table, options: Record<string, unknown>): DerivedRow[] {
  const rows: DerivedRow[] = [];
  for (const c of deriveElection(totals, statistics, options).constituencies) {
    for (const { candidate, firstPreferences, states } of c.counts) {
      const { first, surname } = splitName(candidate.name);
      for (const s of states) {
        rows.push({
          origin: candidate.origin,
          values: {
            'Constituency Name': c.name,
            'Candidate surname': surname,
            'Candidate First Name': first,
            Result: s.result,
            'Count Number': s.count,
            'Non-Transferable': null,
            'Occurred On Count': s.occurredOn,
            'Required To Reach Quota': s.requiredToReachQuota,
            'Required To Save Deposit': s.requiredToSaveDeposit,
            Transfers: s.transfer,
            Votes: firstPreferences,
            'Total Votes': s.total,
            'Constituency Number': c.number,
            'Candidate Id': candidate.id,
          },
        });
      }
    }
  }
  return rows;
}

export function candidateRows(
  totals: Table,
  statistics: Table,
  parties: Table | null,
  names: Table | null,
  options: Record<string, unknown>,
): DerivedRow[] {
  const partyNames = new Map<string, { party: string; abbreviation: string }>();
  if (parties) {
    const get = columnReader(parties);
    for (const row of parties.rows)
      partyNames.set(String(get(row, 'label')), {
        party: String(get(row, 'party')),
        abbreviation: String(get(row, 'abbreviation')),
      });
  }
  const ainm = irishNames(names);
  const rows: DerivedRow[] = [];
  for (const c of deriveElection(totals, statistics, options).constituencies) {
    for (const { candidate, firstPreferences, states } of c.counts) {
      const { first, surname } = splitName(candidate.name);
      let party = { party: candidate.party, abbreviation: '' };
      if (parties) {
        const named = partyNames.get(candidate.party);
        if (!named)
          throw loadError(
            candidate.origin,
            `the party label "${candidate.party}" is not in the parties input: add it there`,
          );
        party = named;
      }
      const final = states[states.length - 1]!;
      rows.push({
        origin: candidate.origin,
        values: {
          Constituency: c.name,
          Surname: surname,
          Firstname: first,
          'Gender Id': null,
          'Party Id': party.party,
          'Party Abbreviation': party.abbreviation,
          'Count Number': c.stv.counts,
          'Required To Reach Quota': final.requiredToReachQuota,
          'Required To Save Deposit': final.requiredToSaveDeposit,
          Votes: firstPreferences,
          Result: final.result,
          'Candidate Id': candidate.id,
          'Constituency Number': c.number,
          'Constituency Ainm': ainm.get(nameKey(c.name)) ?? null,
        },
      });
    }
  }
  return rows;
}

export function constituencyRows(
  totals: Table,
  statistics: Table,
  names: Table | null,
  options: Record<string, unknown>,
  dataset: DatasetDefinition,
): DerivedRow[] {
  const ainm = irishNames(names);
  const cc = dataset.election?.ceannComhairle ?? null;
  const rows: DerivedRow[] = [];
  const election = deriveElection(totals, statistics, options);
  if (
    options.seats_include_ceann_comhairle &&
    cc &&
    !election.constituencies.some((c) => nameKey(c.name) === nameKey(cc.constituency))
  ) {
    throw loadError(
      election.constituencies[0]?.stv.origin ?? { file: '', line: null, column: null, pointer: null },
      `the Ceann Comhairle's constituency "${cc.constituency}" is not in the statistics`,
    );
  }
  for (const c of election.constituencies) {
    const stat = (id: string) => c.statistics.get(id) ?? null;
    const seats = stat('seats');
    const ceannComhairle =
      options.seats_include_ceann_comhairle && cc && nameKey(cc.constituency) === nameKey(c.name) ? 1 : 0;
    const contested = typeof seats === 'number' ? seats - ceannComhairle : seats;
    rows.push({
      origin: c.origin,
      values: {
        'Constituency Name': c.name,
        'Constituency Ainm': ainm.get(nameKey(c.name)) ?? null,
        'Count Number': c.stv.counts,
        'Date Of Election': dataset.election?.date ?? null,
        'Number Of Candidates': c.stv.candidates.length,
        'Number of Seats': contested,
        Quota: c.quota,
        'Required Save Deposit': expensesThreshold(c.quota),
        'Seats Filled': c.stv.candidates.filter((cand) => cand.status === 'Elected').length,
        'Seats in Constituency': contested,
        Spoiled: stat('spoiled'),
        'Total Electorate': stat('electorate'),
        'Total Poll': stat('total_poll'),
        'Valid Poll': stat('valid_poll'),
        'Constituency Number': c.number,
      },
    });
  }
  return rows;
}
