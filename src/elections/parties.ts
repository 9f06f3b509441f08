// Party and national totals of an election: seats, first preferences and their share, seat share against vote share,
// candidates, women, and who passed the quarter-quota threshold.

import { slugOf } from './names.js';
import type { Candidate, CountSheet, ElectionData, ElectionTotals, PartyTotals } from './types.js';

/** Women as the files record them: `F`, `Female`, `Woman`; anything else (including missing) is not counted. */
export function isWoman(gender: string | null): boolean {
  return gender !== null && /^(f|female|woman|women)$/i.test(gender.trim());
}

export const isElectedResult = (result: string) => /^elected$/i.test(result);

/** Whether the records say anything about gender (some elections' sources do not): otherwise counts of women are unknown. */
function gendersKnown(candidates: readonly Candidate[]): boolean {
  return candidates.some((c) => c.gender !== null && c.gender.trim() !== '');
}

export function electionTotals(data: ElectionData): ElectionTotals {
  const sum = (values: (number | null)[]) => (values.some((v) => v === null) ? null : values.reduce<number>((s, v) => s + v!, 0));
  const { constituencies, candidates } = data;
  const electorate = sum(constituencies.map((c) => c.electorate));
  const totalPoll = sum(constituencies.map((c) => c.totalPoll));
  return {
    seats: constituencies.reduce((s, c) => s + c.seats, 0),
    constituencies: constituencies.length,
    candidates: candidates.length,
    electorate,
    totalPoll,
    validPoll: constituencies.reduce((s, c) => s + c.validPoll, 0),
    spoiled: sum(constituencies.map((c) => c.spoiled)),
    turnout: electorate && totalPoll !== null ? totalPoll / electorate : null,
    elected: candidates.filter((c) => isElectedResult(c.result)).length,
    women: gendersKnown(candidates) ? candidates.filter((c) => isWoman(c.gender)).length : null,
    womenElected: gendersKnown(candidates) ? candidates.filter((c) => isWoman(c.gender) && isElectedResult(c.result)).length : null,
  };
}

/**
 * Totals per party, largest first preferences first. Vote share is of all first preferences (the valid poll); seat
 * share is of the candidates elected. Quarter-quota passes come from the count sheets where there are any, else from
 * first preferences alone (a lower bound).
 */
export function partyTotals(data: ElectionData, sheets: readonly CountSheet[]): PartyTotals[] {
  const reached = new Set<string>();
  const sheeted = new Set<string>();
  for (const sheet of sheets) {
    sheeted.add(sheet.constituency.key);
    for (const s of sheet.candidates) if (s.reachedQuarterQuota) reached.add(s.candidate.key);
  }
  const quarterOf = new Map(data.constituencies.map((c) => [c.key, c.quarterQuota]));
  const passed = (c: Candidate) => (sheeted.has(c.constituencyKey) ? reached.has(c.key) : c.firstPreferences >= (quarterOf.get(c.constituencyKey) ?? Infinity));

  const allVotes = data.candidates.reduce((s, c) => s + c.firstPreferences, 0);
  const allElected = data.candidates.filter((c) => isElectedResult(c.result)).length;
  const byParty = new Map<string, PartyTotals>();
  for (const c of data.candidates) {
    const name = c.party || 'No party given';
    let totals = byParty.get(name);
    if (!totals) {
      totals = {
        key: '', party: name, abbreviation: c.partyAbbreviation || name, candidates: 0, elected: 0, women: 0, womenElected: 0,
        firstPreferences: 0, voteShare: 0, seatShare: 0, reachedQuarterQuota: 0,
      };
      byParty.set(name, totals);
    }
    const elected = isElectedResult(c.result);
    totals.candidates += 1;
    totals.elected += elected ? 1 : 0;
    totals.women! += isWoman(c.gender) ? 1 : 0;
    totals.womenElected! += isWoman(c.gender) && elected ? 1 : 0;
    totals.firstPreferences += c.firstPreferences;
    totals.reachedQuarterQuota += passed(c) ? 1 : 0;
  }
  const parties = [...byParty.values()];
  const used = new Set<string>();
  const genders = gendersKnown(data.candidates);
  for (const p of parties) {
    if (!genders) [p.women, p.womenElected] = [null, null];
    p.voteShare = allVotes > 0 ? p.firstPreferences / allVotes : 0;
    p.seatShare = allElected > 0 ? p.elected / allElected : 0;
    let key = slugOf(p.party);
    for (let n = 2; used.has(key); n++) key = `${slugOf(p.party)}-${n}`;
    used.add(key);
    p.key = key;
  }
  return parties.sort((a, b) => b.firstPreferences - a.firstPreferences || a.party.localeCompare(b.party));
}
