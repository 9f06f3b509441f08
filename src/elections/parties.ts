// Party and national totals of an election: seats as the Dáil had them (the Ceann Comhairle returned automatically
// counted for their party), first preferences and their share, seat share against vote share, candidates, women, and
// who passed the quarter-quota threshold.

import { partyMatchKey, slugOf } from './names.js';
import { INDEPENDENTS, type ElectionFigure } from './presentation.js';
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

/**
 * The election's totals. Women are counted from the candidates' genders; where the records give none, an official
 * figure reviewed from another source (`figures`) gives the number of women candidates, and where it is used says so.
 */
export function electionTotals(
  data: ElectionData,
  house: Pick<House, 'ceannComhairle'>,
  figures: readonly ElectionFigure[] = [],
): ElectionTotals {
  const sum = (values: (number | null)[]) =>
    values.some((v) => v === null) ? null : values.reduce<number>((s, v) => s + v!, 0);
  const { constituencies, candidates } = data;
  const electorate = sum(constituencies.map((c) => c.electorate));
  const totalPoll = sum(constituencies.map((c) => c.totalPoll));
  const seats = constituencies.reduce((s, c) => s + c.seats, 0);
  const returnedAutomatically = house.ceannComhairle ? 1 : 0;
  const known = gendersKnown(candidates);
  const womenFigure = known ? undefined : figures.find((f) => f.figure === 'women candidates');
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
    women: known ? candidates.filter((c) => isWoman(c.gender)).length : (womenFigure?.value ?? null),
    womenElected: known ? candidates.filter((c) => isWoman(c.gender) && isElectedResult(c.result)).length : null,
    ...(womenFigure ? { womenSource: womenFigure.source } : {}),
  };
}

/**
 * Totals per party, largest first preferences first. Vote share is of all first preferences (the valid poll). Seats
 * are the candidates elected plus, for the party they were elected for, the Ceann Comhairle returned automatically;
 * seat share is of all those seats. Quarter-quota passes come from the count sheets where there are any, else from
 * first preferences alone (a lower bound). Rows are the candidates' parties as shown (a reviewed grouping counts several
 * labels in one row, or candidates without a party as Independents); `counting` says how each grouped row is counted.
 */
export function partyTotals(
  data: ElectionData,
  sheets: readonly CountSheet[],
  house: Pick<House, 'ceannComhairle'>,
  counting: ReadonlyMap<string, string> = new Map(),
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
  const labelsOf = new Map<PartyTotals, Set<string>>();
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
    const labels = labelsOf.get(totals) ?? new Set<string>();
    labels.add(c.recorded?.party ?? c.party);
    labelsOf.set(totals, labels);
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
    const labels = [...(labelsOf.get(p) ?? [])];
    if (labels.length > 0 && (labels.length > 1 || labels[0] !== p.party)) p.labels = labels.sort();
    const how = counting.get(p.party);
    if (how) p.counting = how;
    if (p.party === INDEPENDENTS) p.independents = true;
    let key = slugOf(p.party);
    for (let n = 2; used.has(key); n++) key = `${slugOf(p.party)}-${n}`;
    used.add(key);
    p.key = key;
  }
  return parties.sort((a, b) => b.firstPreferences - a.firstPreferences || a.party.localeCompare(b.party));
}

/**
 * How to select a party row's records in the candidates resource: by the labels it counts, where it counts every
 * candidate of each; otherwise (a grouping that takes one candidate of a label, as 2011's United Left Alliance takes
 * Declan Bree of the independents) by the records themselves.
 */
export function partyRecords(
  data: ElectionData,
  party: Pick<PartyTotals, 'party'>,
): { labels: string[] } | { recordIds: number[] } {
  const shown = (c: Candidate) => c.party || 'No party given';
  const recorded = (c: Candidate) => c.recorded?.party ?? c.party;
  const mine = data.candidates.filter((c) => shown(c) === party.party);
  const labels = [...new Set(mine.map(recorded))].sort();
  const whole = data.candidates.every((c) => !labels.includes(recorded(c)) || shown(c) === party.party);
  return whole ? { labels } : { recordIds: mine.map((c) => c.recordId).sort((a, b) => a - b) };
}
