// Where a party's transfers went: at each count whose distributed votes all belong to one party (a surplus, or the
// exclusion of one candidate, or of several of one party), each continuing candidate's gain is a transfer to their
// party and the drop in all the running totals is non-transferable. Shares are of the votes distributed, summed over
// counts (a sum of votes, never a mean of shares), per constituency and nationally, with the counts used listed and
// those left out said why.

import type { Candidate, CountSheet } from './types.js';

export interface TransferCount {
  constituencyKey: string;
  constituencyName: string;
  count: number;
  kind: 'surplus' | 'exclusion';
  /** The candidates whose votes were distributed, all of one party. */
  from: Candidate[];
  party: string;
  /** Votes distributed: what the givers' running totals fell by. */
  distributed: number;
  /** Votes gained, by party of the continuing candidates that gained them. */
  toParty: Map<string, number>;
  nonTransferable: number;
}

export interface LeftOutCount {
  constituencyKey: string;
  constituencyName: string;
  count: number;
  from: Candidate[];
  reason: 'several parties' | 'does not add up';
  /** Votes gained beyond those distributed, for counts that do not add up. */
  excess: number;
}

export const NON_TRANSFERABLE = 'Non-transferable';

/** The party a candidate's votes are counted for: candidates without one are "Non-Party", as the official files say. */
export function partyOf(c: Pick<Candidate, 'party'>): string {
  return c.party || 'Non-Party';
}

/** A constituency's counts, split into those whose votes belong to one party (used) and the others (left out). */
export function transferCounts(sheet: CountSheet): { used: TransferCount[]; left: LeftOutCount[] } {
  const used: TransferCount[] = [];
  const left: LeftOutCount[] = [];
  const where = { constituencyKey: sheet.constituency.key, constituencyName: sheet.constituency.name };
  for (const step of sheet.steps) {
    if (step.distribution.kind === 'first') continue;
    const { from, votes } = step.distribution;
    const parties = new Set(from.map(partyOf));
    const gained = step.gains.reduce((s, g) => s + g.votes, 0);
    if (parties.size > 1) {
      left.push({ ...where, count: step.count, from, reason: 'several parties', excess: 0 });
      continue;
    }
    // Sources whose totals gain more than the count released (a transcription fault) give no shares at all.
    if (gained > votes) {
      left.push({ ...where, count: step.count, from, reason: 'does not add up', excess: gained - votes });
      continue;
    }
    const toParty = new Map<string, number>();
    for (const g of step.gains) toParty.set(partyOf(g.candidate), (toParty.get(partyOf(g.candidate)) ?? 0) + g.votes);
    used.push({
      ...where,
      count: step.count,
      kind: step.distribution.kind,
      from,
      party: [...parties][0]!,
      distributed: votes,
      toParty,
      nonTransferable: votes - gained,
    });
  }
  return { used, left };
}

export interface PartyTransfers {
  /** The giving party. */
  party: string;
  /** Votes its candidates' surpluses and exclusions distributed, over the counts used. */
  distributed: number;
  /** Votes received by each party (and NON_TRANSFERABLE), largest first. */
  to: { party: string; votes: number; share: number }[];
  /** How many counts are summed. */
  counts: number;
}

/** Each party's transfers over the given counts, largest distributed first: sums of votes, shares of those sums. */
export function partyTransfers(counts: readonly TransferCount[]): PartyTransfers[] {
  const byParty = new Map<string, { distributed: number; to: Map<string, number>; counts: number }>();
  for (const count of counts) {
    let row = byParty.get(count.party);
    if (!row) {
      row = { distributed: 0, to: new Map(), counts: 0 };
      byParty.set(count.party, row);
    }
    row.distributed += count.distributed;
    row.counts += 1;
    for (const [party, votes] of count.toParty) row.to.set(party, (row.to.get(party) ?? 0) + votes);
    row.to.set(NON_TRANSFERABLE, (row.to.get(NON_TRANSFERABLE) ?? 0) + count.nonTransferable);
  }
  return [...byParty]
    .map(([party, row]) => ({
      party,
      distributed: row.distributed,
      counts: row.counts,
      to: [...row.to]
        .map(([to, votes]) => ({ party: to, votes, share: row.distributed > 0 ? votes / row.distributed : 0 }))
        .sort((a, b) => b.votes - a.votes || a.party.localeCompare(b.party)),
    }))
    .sort((a, b) => b.distributed - a.distributed || a.party.localeCompare(b.party));
}

/** A band of the count's flow: votes moving from one node to another. */
export interface FlowLink {
  source: string;
  target: string;
  votes: number;
  /** A transfer (or votes going no further), as opposed to a candidate's own votes carried to the next count. */
  transfer: boolean;
}

export interface FlowNode {
  id: string;
  /** 0-based column: count 1 is column 0. */
  column: number;
  /** The candidate's key, or NON_TRANSFERABLE. */
  who: string;
  votes: number;
}

/**
 * A constituency's count as a flow: a column per count, a node per candidate still in the count (their running total)
 * and one for the votes gone no further; bands carry each candidate's votes to the next count, and a count's
 * distributed votes to those who gained them. Where several candidates' votes were distributed at once, each giver's
 * share of a gain is in proportion to what they gave (the records do not say whose votes went where).
 */
export function countFlow(sheet: CountSheet): { nodes: FlowNode[]; links: FlowLink[] } {
  const nodes: FlowNode[] = [];
  const links: FlowLink[] = [];
  const id = (who: string, column: number) => `${column}:${who}`;
  const totalAt = (i: number, column: number) => sheet.candidates[i]!.cells[column]?.total ?? null;
  sheet.steps.forEach((step, column) => {
    sheet.candidates.forEach((s, i) => {
      const total = totalAt(i, column);
      if (total !== null && total > 0)
        nodes.push({ id: id(s.candidate.key, column), column, who: s.candidate.key, votes: total });
    });
    if (step.nonTransferableSoFar > 0)
      nodes.push({ id: id(NON_TRANSFERABLE, column), column, who: NON_TRANSFERABLE, votes: step.nonTransferableSoFar });
    if (column === 0) return;
    const givers = step.distribution.kind === 'first' ? [] : step.distribution.from.map((c) => c.key);
    const released = new Map<string, number>();
    sheet.candidates.forEach((s, i) => {
      const before = totalAt(i, column - 1);
      if (before === null || before <= 0) return;
      const after = totalAt(i, column) ?? 0;
      const kept = Math.min(before, after);
      if (kept > 0)
        links.push({
          source: id(s.candidate.key, column - 1),
          target: id(s.candidate.key, column),
          votes: kept,
          transfer: false,
        });
      if (givers.includes(s.candidate.key) && before > after) released.set(s.candidate.key, before - after);
    });
    const previousNt = sheet.steps[column - 1]!.nonTransferableSoFar;
    if (previousNt > 0)
      links.push({
        source: id(NON_TRANSFERABLE, column - 1),
        target: id(NON_TRANSFERABLE, column),
        votes: previousNt,
        transfer: false,
      });
    const allReleased = [...released.values()].reduce((a, b) => a + b, 0);
    if (allReleased === 0) return;
    for (const [giver, gave] of released) {
      const part = gave / allReleased;
      for (const g of step.gains)
        links.push({
          source: id(giver, column - 1),
          target: id(g.candidate.key, column),
          votes: g.votes * part,
          transfer: true,
        });
      if (step.nonTransferable > 0)
        links.push({
          source: id(giver, column - 1),
          target: id(NON_TRANSFERABLE, column),
          votes: step.nonTransferable * part,
          transfer: true,
        });
    }
  });
  return { nodes, links };
}
