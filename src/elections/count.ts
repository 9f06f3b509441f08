// A constituency's count, worked out from the running totals: what each count distributed (a surplus, or the votes
// of the candidates excluded), what each candidate gained or gave, the votes that went no further, who was elected
// on which count and in what order, and who passed the quarter-quota threshold.

import type {
  Candidate,
  Constituency,
  CountCell,
  CountRecord,
  CountSheet,
  CountStep,
  SheetCandidate,
} from './types.js';

const isElected = (result: string) => /^elected$/i.test(result);
const isExcluded = (result: string) => /^excluded$/i.test(result);

/**
 * The count sheet of one constituency. `candidates` and `counts` are that constituency's; counts missing for a
 * candidate (a short file) carry the last known total forward.
 */
export function countSheet(
  constituency: Constituency,
  candidates: readonly Candidate[],
  counts: readonly CountRecord[],
): CountSheet {
  const byCandidate = new Map<number, CountRecord[]>();
  for (const row of counts) {
    const list = byCandidate.get(row.candidateId) ?? [];
    list.push(row);
    byCandidate.set(row.candidateId, list);
  }
  const lastCount = Math.max(1, constituency.counts ?? 0, ...counts.map((r) => r.count));

  interface Working {
    candidate: Candidate;
    totals: number[];
    electedAt: number | null;
    excludedAt: number | null;
  }
  const working: Working[] = candidates.map((candidate) => {
    const rows = (byCandidate.get(candidate.candidateId) ?? []).slice().sort((a, b) => a.count - b.count);
    const totals: number[] = [];
    let last = candidate.firstPreferences;
    let at = 0;
    for (let c = 1; c <= lastCount; c++) {
      while (at < rows.length && rows[at]!.count < c) at++;
      if (at < rows.length && rows[at]!.count === c) last = rows[at]!.total;
      totals.push(last);
    }
    if (rows.length === 0) totals.fill(candidate.firstPreferences);
    const electedRow = rows.find((r) => isElected(r.result));
    const excludedRow = rows.find((r) => isExcluded(r.result));
    // The count a result occurred on, as the file records it; else the first count showing the result.
    const occurred = (row: CountRecord | undefined) =>
      row ? (row.occurredOnCount > 0 ? row.occurredOnCount : row.count) : null;
    let electedAt = occurred(electedRow);
    if (electedAt === null && isElected(candidate.result)) electedAt = lastCount;
    let excludedAt = occurred(excludedRow);
    // A candidate with no count details at all reads its result from the candidates resource.
    if (excludedAt === null && rows.length === 0 && isExcluded(candidate.result)) excludedAt = lastCount;
    return { candidate, totals, electedAt, excludedAt };
  });

  const steps: CountStep[] = [];
  let nonTransferableSoFar = 0;
  for (let c = 1; c <= lastCount; c++) {
    const change = (w: Working) => (c === 1 ? 0 : w.totals[c - 1]! - w.totals[c - 2]!);
    const givers = working.filter((w) => change(w) < 0);
    const gains = working
      .filter((w) => change(w) > 0)
      .map((w) => ({ candidate: w.candidate, votes: change(w) }))
      .sort((a, b) => b.votes - a.votes);
    const before = c === 1 ? 0 : working.reduce((sum, w) => sum + w.totals[c - 2]!, 0);
    const after = working.reduce((sum, w) => sum + w.totals[c - 1]!, 0);
    const nonTransferable = c === 1 ? 0 : Math.max(0, before - after);
    nonTransferableSoFar += nonTransferable;
    // A candidate elected before this count gives a surplus; anyone else gives up their votes on exclusion.
    const surplus = givers.length > 0 && givers.every((w) => w.electedAt !== null && w.electedAt < c);
    const distribution =
      c === 1 || givers.length === 0
        ? { kind: 'first' as const }
        : {
            kind: surplus ? ('surplus' as const) : ('exclusion' as const),
            from: givers.map((w) => w.candidate),
            votes: givers.reduce((s, w) => s - change(w), 0),
          };
    const electedNow = working
      .filter((w) => w.electedAt === c)
      .sort(
        (a, b) => b.totals[c - 1]! - a.totals[c - 1]! || b.candidate.firstPreferences - a.candidate.firstPreferences,
      );
    steps.push({
      count: c,
      distribution,
      nonTransferable,
      nonTransferableSoFar,
      elected: electedNow.map((w) => w.candidate),
      gains,
    });
  }

  const order = new Map<string, number>();
  for (const step of steps) for (const candidate of step.elected) order.set(candidate.key, order.size + 1);

  const sheetCandidates: SheetCandidate[] = working.map((w) => {
    const cells: CountCell[] = [];
    for (let c = 1; c <= lastCount; c++) {
      const total = w.totals[c - 1]!;
      const excluded = w.excludedAt !== null && c >= w.excludedAt;
      const gone = w.excludedAt !== null && c > w.excludedAt;
      cells.push({
        count: c,
        transfer: c === 1 || gone ? null : total - w.totals[c - 2]!,
        total: excluded ? null : total,
        event: w.electedAt === c ? 'elected' : w.excludedAt === c ? 'excluded' : null,
      });
    }
    const highest = Math.max(...w.totals);
    return {
      candidate: w.candidate,
      cells,
      elected: w.electedAt === null ? null : { count: w.electedAt, order: order.get(w.candidate.key) ?? 0 },
      excludedAt: w.excludedAt,
      highest,
      reachedQuarterQuota: highest >= constituency.quarterQuota,
    };
  });
  sheetCandidates.sort(
    (a, b) =>
      b.candidate.firstPreferences - a.candidate.firstPreferences || a.candidate.candidateId - b.candidate.candidateId,
  );
  const elected = sheetCandidates.filter((s) => s.elected !== null).sort((a, b) => a.elected!.order - b.elected!.order);
  return { constituency, candidates: sheetCandidates, steps, elected };
}

/** The sheet as it stood after count `n`: later counts dropped, elections after it undone. */
export function sheetAfterCount(sheet: CountSheet, n: number): CountSheet {
  const last = Math.max(1, Math.min(n, sheet.steps.length));
  const candidates = sheet.candidates.map((s) => ({
    ...s,
    cells: s.cells.slice(0, last),
    elected: s.elected && s.elected.count <= last ? s.elected : null,
    excludedAt: s.excludedAt !== null && s.excludedAt <= last ? s.excludedAt : null,
    highest: Math.max(...s.cells.slice(0, last).map((c) => c.total ?? 0)),
  }));
  return {
    constituency: sheet.constituency,
    candidates,
    steps: sheet.steps.slice(0, last),
    elected: candidates.filter((s) => s.elected !== null).sort((a, b) => a.elected!.order - b.elected!.order),
  };
}

/** A candidate's running total after count `n` (the last known, for an excluded candidate: 0). */
export function totalAfter(candidate: SheetCandidate, n: number): number {
  const cell = candidate.cells[Math.min(n, candidate.cells.length) - 1];
  return cell?.total ?? 0;
}
