// Constituency results derived from the official count details and candidate details, with the statistics an
// edited copy of the official constituency details kept (2016: the official file itself was not found).
// Every value is exact: quota and threshold are what the count details say each candidate lacked plus what they had.

import type { DatasetDefinition } from '../../catalog/types.js';
import { columnReader, loadError, type DerivedRow, type Origin, type Table } from '../table.js';

interface Constituency {
  number: number;
  name: string;
  origin: Origin;
  counts: number;
  candidates: Set<number>;
  elected: Set<number>;
  quota: number | null;
  quotaOrigin: Origin | null;
  threshold: number | null;
  thresholdOrigin: Origin | null;
}

function wholeNumber(value: unknown, what: string, at: Origin): number {
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw loadError(at, `${what} ${value} is not a whole number`);
  return value;
}

export function constituenciesFromCounts(
  counts: Table,
  candidates: Table,
  statistics: Table,
  dataset: DatasetDefinition,
): DerivedRow[] {
  const get = columnReader(counts);
  const byNumber = new Map<number, Constituency>();
  for (const row of counts.rows) {
    const number = wholeNumber(get(row, 'Constituency Number'), 'constituency number', row.origin);
    const name = String(get(row, 'Constituency Name'));
    let c = byNumber.get(number);
    if (!c) {
      c = {
        number,
        name,
        origin: row.origin,
        counts: 0,
        candidates: new Set(),
        elected: new Set(),
        quota: null,
        quotaOrigin: null,
        threshold: null,
        thresholdOrigin: null,
      };
      byNumber.set(number, c);
    }
    if (c.name !== name) throw loadError(row.origin, `constituency ${number} is "${name}" here and "${c.name}" before`);
    const count = wholeNumber(get(row, 'Count Number'), 'count', row.origin);
    const candidate = wholeNumber(get(row, 'Candidate Id'), 'candidate id', row.origin);
    c.counts = Math.max(c.counts, count);
    c.candidates.add(candidate);
    if (get(row, 'Result') === 'Elected') c.elected.add(candidate);
    if (count !== 1) continue;
    const total = wholeNumber(get(row, 'Total Votes'), 'total', row.origin);
    const toQuota = wholeNumber(get(row, 'Required To Reach Quota'), 'votes required to reach the quota', row.origin);
    const toThreshold = wholeNumber(
      get(row, 'Required To Save Deposit'),
      'votes required to save the deposit',
      row.origin,
    );
    // Only a candidate still short of the quota (or the threshold) says how far it is.
    if (toQuota > 0) {
      if (c.quota !== null && c.quota !== toQuota + total)
        throw loadError(
          row.origin,
          `gives a quota of ${toQuota + total}; ${c.quotaOrigin!.file} line ${c.quotaOrigin!.line} gave ${c.quota}`,
        );
      c.quota = toQuota + total;
      c.quotaOrigin ??= row.origin;
    }
    if (toThreshold > 0) {
      if (c.threshold !== null && c.threshold !== toThreshold + total)
        throw loadError(
          row.origin,
          `gives a threshold of ${toThreshold + total}; an earlier record gave ${c.threshold}`,
        );
      c.threshold = toThreshold + total;
      c.thresholdOrigin ??= row.origin;
    }
  }

  const getCandidate = columnReader(candidates);
  const ainm = new Map<number, string>();
  for (const row of candidates.rows) {
    const number = wholeNumber(getCandidate(row, 'Constituency Number'), 'constituency number', row.origin);
    const name = String(getCandidate(row, 'Constituency Ainm'));
    if (ainm.has(number) && ainm.get(number) !== name)
      throw loadError(row.origin, `constituency ${number} is "${name}" in Irish here and "${ainm.get(number)}" before`);
    ainm.set(number, name);
  }

  const getStat = columnReader(statistics);
  const stats = new Map(statistics.rows.map((row) => [String(getStat(row, 'constituency')), row]));
  const used = new Set<string>();
  const rows: DerivedRow[] = [];
  for (const c of [...byNumber.values()].sort((a, b) => a.number - b.number)) {
    const stat = stats.get(c.name);
    if (!stat) throw loadError(c.origin, `the statistics have no constituency "${c.name}"`);
    used.add(c.name);
    if (c.quota === null)
      throw loadError(
        c.origin,
        `no count-1 record of constituency ${c.number} is short of the quota, so the quota cannot be read from them`,
      );
    if (c.threshold === null)
      throw loadError(
        c.origin,
        `no count-1 record of constituency ${c.number} is short of the threshold, so it cannot be read from them`,
      );
    const valid = wholeNumber(getStat(stat, 'valid_poll'), 'valid poll', stat.origin);
    const spoiled = wholeNumber(getStat(stat, 'spoiled'), 'spoiled', stat.origin);
    rows.push({
      origin: c.origin,
      values: {
        'Constituency Name': c.name,
        'Constituency Ainm': ainm.get(c.number) ?? null,
        'Count Number': c.counts,
        'Date Of Election': dataset.election?.date ?? null,
        'Number Of Candidates': c.candidates.size,
        'Number of Seats': c.elected.size,
        Quota: c.quota,
        'Required Save Deposit': c.threshold,
        'Seats Filled': c.elected.size,
        'Seats in Constituency': c.elected.size,
        Spoiled: spoiled,
        'Total Electorate': getStat(stat, 'electorate'),
        'Total Poll': valid + spoiled,
        'Valid Poll': valid,
        'Constituency Number': c.number,
      },
    });
  }
  for (const [name, row] of stats)
    if (!used.has(name)) throw loadError(row.origin, `the count details have no constituency "${name}"`);
  return rows;
}
