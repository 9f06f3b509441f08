// The consistency checks of an election, run on its three tables as loaded, whatever their source: first preferences
// against the valid poll, each count's gains against the votes it distributed, elected candidates against seats,
// the quota against floor(valid / (seats + 1)) + 1, and the Dáil's seats. Each corrected source value is listed too,
// and a failed check carries the reviewed note on it when the fault is known. Checks never stop a load: they are
// published, so that a reader sees what the data does not add up to.

import type { DatasetDefinition } from '../../catalog/types.js';
import { columnReader, loadError, type DerivedRow, type Origin, type Table, type TableRow } from '../table.js';
import { nameKey } from './stv.js';

export type CheckName =
  | 'first-preferences'
  | 'count-transfers'
  | 'elected-seats'
  | 'quota'
  | 'dail-seats'
  | 'expenses-threshold'
  | 'correction';

export interface CheckRow {
  check: CheckName;
  constituency: string;
  constituencyNumber: number | null;
  count: number | null;
  expected: number | null;
  actual: number | null;
  status: 'passed' | 'failed' | 'corrected';
  note: string;
  source: string;
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

function files(rows: readonly TableRow[]): string {
  return [...new Set(rows.map((r) => r.origin.file))].join('; ');
}

interface CountTally {
  distributed: number;
  gained: number;
  rows: TableRow[];
}

export function runChecks(
  candidates: Table,
  constituencies: Table,
  counts: Table,
  corrections: Table | null,
  knownFaults: Table | null,
  dataset: DatasetDefinition,
  expenses: Table | null = null,
): CheckRow[] {
  const a = columnReader(candidates);
  const b = columnReader(constituencies);
  const c = columnReader(counts);
  const checks: CheckRow[] = [];
  const row = (check: CheckName, fields: Omit<CheckRow, 'check' | 'status' | 'note'>, passed: boolean): CheckRow => ({
    check,
    ...fields,
    status: passed ? 'passed' : 'failed',
    note: '',
  });

  const firstPreferences = new Map<number, { votes: number; rows: TableRow[] }>();
  const tallies = new Map<number, Map<number, CountTally>>();
  for (const r of counts.rows) {
    const number = num(c(r, 'Constituency Number'));
    const count = num(c(r, 'Count Number'));
    if (count === 1) {
      const fp = firstPreferences.get(number) ?? { votes: 0, rows: [] };
      fp.votes += num(c(r, 'Votes'));
      fp.rows.push(r);
      firstPreferences.set(number, fp);
      continue;
    }
    if (!tallies.has(number)) tallies.set(number, new Map());
    const byCount = tallies.get(number)!;
    const tally = byCount.get(count) ?? { distributed: 0, gained: 0, rows: [] };
    const transfer = num(c(r, 'Transfers'));
    if (transfer < 0) tally.distributed -= transfer;
    else tally.gained += transfer;
    tally.rows.push(r);
    byCount.set(count, tally);
  }
  const elected = new Map<number, number>();
  const belowThreshold = new Map<number, number>();
  for (const r of candidates.rows) {
    const number = num(a(r, 'Constituency Number'));
    if (num(a(r, 'Required To Save Deposit')) > 0) belowThreshold.set(number, (belowThreshold.get(number) ?? 0) + 1);
    if (a(r, 'Result') !== 'Elected') continue;
    elected.set(number, (elected.get(number) ?? 0) + 1);
  }
  const officialBelow = new Map<string, TableRow>();
  const e = expenses ? columnReader(expenses) : null;
  for (const r of expenses?.rows ?? []) officialBelow.set(nameKey(String(e!(r, 'constituency'))), r);

  const validTotal = constituencies.rows.reduce((sum, r) => sum + num(b(r, 'Valid Poll')), 0);
  const firstTotal = [...firstPreferences.values()].reduce((sum, fp) => sum + fp.votes, 0);
  checks.push(
    row(
      'first-preferences',
      {
        constituency: '',
        constituencyNumber: null,
        count: null,
        expected: validTotal,
        actual: firstTotal,
        source: files([...constituencies.rows, ...counts.rows.filter((r) => c(r, 'Count Number') === 1)]),
      },
      validTotal === firstTotal,
    ),
  );
  const seatsOfDail = dataset.election?.seats ?? null;
  if (seatsOfDail !== null) {
    const contested = constituencies.rows.reduce((sum, r) => sum + num(b(r, 'Number of Seats')), 0);
    const actual = contested + (dataset.election?.ceannComhairle ? 1 : 0);
    checks.push(
      row(
        'dail-seats',
        {
          constituency: '',
          constituencyNumber: null,
          count: null,
          expected: seatsOfDail,
          actual,
          source: files(constituencies.rows),
        },
        actual === seatsOfDail,
      ),
    );
  }

  for (const r of constituencies.rows) {
    const constituency = String(b(r, 'Constituency Name'));
    const number = num(b(r, 'Constituency Number'));
    const valid = num(b(r, 'Valid Poll'));
    const seats = num(b(r, 'Number of Seats'));
    const quota = num(b(r, 'Quota'));
    const fp = firstPreferences.get(number) ?? { votes: 0, rows: [] };
    const where = { constituency, constituencyNumber: number };
    checks.push(
      row(
        'first-preferences',
        { ...where, count: null, expected: valid, actual: fp.votes, source: files([r, ...fp.rows]) },
        valid === fp.votes,
      ),
    );
    const electedHere = elected.get(number) ?? 0;
    checks.push(
      row(
        'elected-seats',
        {
          ...where,
          count: null,
          expected: seats,
          actual: electedHere,
          source: files([r, ...candidates.rows.filter((x) => a(x, 'Constituency Number') === number)]),
        },
        seats === electedHere,
      ),
    );
    const formula = Math.floor(valid / (seats + 1)) + 1;
    checks.push(
      row('quota', { ...where, count: null, expected: formula, actual: quota, source: files([r]) }, formula === quota),
    );
    const official = officialBelow.get(nameKey(constituency));
    if (official) {
      const lost = num(e!(official, 'lost_expenses_count'));
      const below = belowThreshold.get(number) ?? 0;
      checks.push(
        row(
          'expenses-threshold',
          {
            ...where,
            count: null,
            expected: lost,
            actual: below,
            source: files([official, ...candidates.rows.filter((x) => a(x, 'Constituency Number') === number)]),
          },
          lost === below,
        ),
      );
    }
    const byCount = tallies.get(number) ?? new Map<number, CountTally>();
    for (const [count, tally] of [...byCount].sort(([x], [y]) => x - y)) {
      checks.push(
        row(
          'count-transfers',
          {
            ...where,
            count,
            expected: tally.distributed,
            actual: tally.gained,
            source: files(tally.rows),
          },
          tally.gained <= tally.distributed,
        ),
      );
    }
  }

  if (knownFaults) annotateKnownFaults(checks, knownFaults);
  for (const check of checks) if (check.status === 'failed' && !check.note) check.note = 'Not reviewed.';

  if (corrections) {
    const get = columnReader(corrections);
    const hasConstituency = corrections.fields.some((f) => f.id === 'constituency');
    for (const r of corrections.rows) {
      const published = Number(get(r, 'published'));
      const corrected = Number(get(r, 'corrected'));
      const numbers =
        String(get(r, 'published')).trim() !== '' && Number.isFinite(published) && Number.isFinite(corrected);
      checks.push({
        check: 'correction',
        constituency: hasConstituency ? String(get(r, 'constituency')) : '',
        constituencyNumber: null,
        count: null,
        expected: numbers ? corrected : null,
        actual: numbers ? published : null,
        status: 'corrected',
        note: `Published ${get(r, 'published')}, loaded ${get(r, 'corrected')}. ${get(r, 'evidence')}`,
        source: `${get(r, 'file')} ${get(r, 'location')}`,
      });
    }
  }
  // Corrections name constituencies by name; they get the number the other tables use.
  const numbers = new Map(
    constituencies.rows.map((r) => [nameKey(String(b(r, 'Constituency Name'))), num(b(r, 'Constituency Number'))]),
  );
  for (const check of checks)
    if (check.check === 'correction' && check.constituency)
      check.constituencyNumber = numbers.get(nameKey(check.constituency)) ?? null;
  return checks;
}

/** Puts the reviewed note of each known fault on its check; a note that matches no check stops the load. */
function annotateKnownFaults(checks: CheckRow[], knownFaults: Table): void {
  const get = columnReader(knownFaults);
  for (const r of knownFaults.rows) {
    const check = String(get(r, 'check'));
    const constituency = nameKey(String(get(r, 'constituency')));
    const count = get(r, 'count');
    const matching = checks.filter(
      (c) =>
        c.check === check &&
        nameKey(c.constituency) === constituency &&
        (count === null ? c.count === null : c.count === count),
    );
    if (matching.length === 0)
      throw loadError(
        r.origin as Origin,
        `no ${check} check of "${get(r, 'constituency')}"${count === null ? '' : ` count ${count}`} to note`,
      );
    for (const c of matching) {
      c.note =
        c.status === 'failed'
          ? `Known fault, loaded as published: ${get(r, 'note')}`
          : `Listed as a known fault (${get(r, 'note')}), but the check passes.`;
    }
  }
}

export function checkRows(checks: readonly CheckRow[], at: Origin): DerivedRow[] {
  return checks.map((c) => ({
    origin: at,
    values: {
      Check: c.check,
      Constituency: c.constituency,
      'Constituency Number': c.constituencyNumber,
      'Count Number': c.count,
      Expected: c.expected,
      Actual: c.actual,
      Difference: c.expected === null || c.actual === null ? null : c.expected - c.actual,
      Status: c.status,
      Note: c.note,
      Source: c.source,
    },
  }));
}
