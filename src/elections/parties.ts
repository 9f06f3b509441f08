// Party and national totals of an election: seats as the Dáil had them (the Ceann Comhairle returned automatically
// counted for their party), first preferences and their share, seat share against vote share, candidates, women, and
// who passed the quarter-quota threshold.

import { partyMatchKey, slugOf } from './names.js';
import type { Candidate, CountSheet, ElectionData, ElectionTotals, House, PartyTotals } from './types.js';

/** Women as the files record them: `F`, `Female`, `Woman`; anything else (including missing) is not counted. */
export function isWoman(gender: string | null): boolean {
  return gender !== null && /^(f|female|woman|women)$/i.test(gender.trim());
}

export const isElectedResult = (result: string) => /^elected$/i.test(result);

/**
 * Whether the records say anything about gender (some elections' sources do not): otherwise counts of women are
 * unknown.
 */
function gendersKnown(candidates: readonly Candidate[]): boolean {
  return candidates.some((c) => c.gender !== null && c.gender.trim() !== '');
}

/** Where the Ceann Comhairle's party is not given, their seat is a row of its own under this name. */
export const CEANN_COMHAIRLE_ROW = 'The Ceann Comhairle (party not given)';

export function electionTotals(data: ElectionData, house: Pick<House, 'ceannComhairle'>): ElectionTotals {
  const sum = (values: (number | null)[]) =>
    values.some((v) => v === null) ? null : values.reduce<number>((s, v) => s + v!, 0);
  const { constituencies, candidates } = data;
  const electorate = sum(constituencies.map((c) => c.electorate));
  const totalPoll = sum(constituencies.map((c) => c.totalPoll));
  const seats = constituencies.reduce((s, c) => s + c.seats, 0);
  const returnedAutomatically = house.ceannComhairle ? 1 : 0;
  return {
    seats,
    returnedAutomatically,
    houseSeats: seats + returnedAutomatically,
    constituencies: constituencies.length,
    candidates: candidates.length,
    electorate,
    totalPoll,
    validPoll: constituencies.reduce((s, c) => s + c.validPoll, 0),
    spoiled: sum(constituencies.map((c) => c.spoiled)),
    turnout: electorate && totalPoll !== null ? totalPoll / electorate : null,
    elected: candidates.filter((c) => isElectedResult(c.result)).length,
    women: gendersKnown(candidates) ? candidates.filter((c) => isWoman(c.gender)).length : null,
    womenElected: gendersKnown(candidates)
      ? candidates.filter((c) => isWoman(c.gender) && isElectedResult(c.result)).length
      : null,
  };
}

/**
 * Totals per party, largest first preferences first. Vote share is of all first preferences (the valid poll). Seats
 * are the candidates elected plus, for the party they were elected for, the Ceann Comhairle returned automatically;
 * seat share is of all those seats. Quarter-quota passes come from the count sheets where there are any, else from
 * first preferences alone (a lower bound).
 */
export function partyTotals(
  data: ElectionData,
  sheets: readonly CountSheet[],
  house: Pick<House, 'ceannComhairle'>,
): PartyTotals[] {
  const reached = new Set<string>();
  const sheeted = new Set<string>();
  for (const sheet of sheets) {
    sheeted.add(sheet.constituency.key);
    for (const s of sheet.candidates) if (s.reachedQuarterQuota) reached.add(s.candidate.key);
  }
  const quarterOf = new Map(data.constituencies.map((c) => [c.key, c.quarterQuota]));
  const passed = (c: Candidate) =>
    sheeted.has(c.constituencyKey)
      ? reached.has(c.key)
      : c.firstPreferences >= (quarterOf.get(c.constituencyKey) ?? Infinity);

  const allVotes = data.candidates.reduce((s, c) => s + c.firstPreferences, 0);
  const byParty = new Map<string, PartyTotals>();
  const rowOf = (name: string, abbreviation: string) => {
    let totals = byParty.get(name);
    if (!totals) {
      totals = {
        key: '',
        party: name,
        abbreviation,
        candidates: 0,
        elected: 0,
        returnedAutomatically: 0,
        seats: 0,
        women: 0,
        womenElected: 0,
        firstPreferences: 0,
        voteShare: 0,
        seatShare: 0,
        reachedQuarterQuota: 0,
      };
      byParty.set(name, totals);
    }
    return totals;
  };
  for (const c of data.candidates) {
    const name = c.party || 'No party given';
    const totals = rowOf(name, c.partyAbbreviation || name);
    const elected = isElectedResult(c.result);
    totals.candidates += 1;
    totals.elected += elected ? 1 : 0;
    totals.women! += isWoman(c.gender) ? 1 : 0;
    totals.womenElected! += isWoman(c.gender) && elected ? 1 : 0;
    totals.firstPreferences += c.firstPreferences;
    totals.reachedQuarterQuota += passed(c) ? 1 : 0;
  }
  const cc = house.ceannComhairle;
  if (cc) {
    // Matched as the comparison matches parties, so "Fianna Fail" in a description finds "Fianna Fáil" in the records.
    const wanted = cc.party === null ? null : partyMatchKey(cc.party);
    const row =
      (wanted === null ? undefined : [...byParty.values()].find((p) => partyMatchKey(p.party) === wanted)) ??
      rowOf(cc.party ?? CEANN_COMHAIRLE_ROW, cc.party ?? 'CC');
    row.returnedAutomatically += 1;
  }
  const parties = [...byParty.values()];
  const allSeats = parties.reduce((s, p) => s + p.elected + p.returnedAutomatically, 0);
  const used = new Set<string>();
  const genders = gendersKnown(data.candidates);
  for (const p of parties) {
    if (!genders) [p.women, p.womenElected] = [null, null];
    p.voteShare = allVotes > 0 ? p.firstPreferences / allVotes : 0;
    p.seats = p.elected + p.returnedAutomatically;
    p.seatShare = allSeats > 0 ? p.seats / allSeats : 0;
    let key = slugOf(p.party);
    for (let n = 2; used.has(key); n++) key = `${slugOf(p.party)}-${n}`;
    used.add(key);
    p.key = key;
  }
  return parties.sort((a, b) => b.firstPreferences - a.firstPreferences || a.party.localeCompare(b.party));
}
