// The consistency checks the load ran, read back for the pages that show the figures they concern: a page whose
// figure does not add up in its source says so beside it and links the check, not only the report. Read through the
// actions once per version of the data.

import { slugOf } from '../elections/index.js';
import { memoKey } from '../util/version-memos.js';
import type { ElectionView } from './catalog-view.js';
import type { ActionClient } from './data.js';
import { checksHref } from './page-context.js';

/** A check that failed: what the source says, what it adds up to, and the reviewed note on it. */
export interface FailedCheck {
  check: string;
  /** Empty for a check of the whole election. */
  constituency: string;
  count: number | null;
  expected: number | null;
  actual: number | null;
  note: string;
  /** The report, filtered to this check. */
  href: string | null;
}

const FAILED = memoKey<Map<string, Promise<FailedCheck[]>>>('web: failed consistency checks');

/** The election's failed checks (none where it has no checks resource). */
export function failedChecks(client: ActionClient, view: ElectionView): Promise<FailedCheck[]> {
  return client.memoPromise(FAILED, view.definition.name, async () => {
    const resource = view.roles.checks;
    if (!resource) return [];
    const result = await client.searchAll({ resource_id: resource.id, filters: { Status: 'failed' }, sort: '_id' });
    const number = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
    return result.records.map((r) => {
      const check = String(r.Check ?? '');
      const constituency = String(r.Constituency ?? '');
      const count = number(r['Count Number']);
      const filters: Record<string, unknown> = { Check: check, Status: 'failed' };
      if (constituency) filters.Constituency = constituency;
      if (count !== null) filters['Count Number'] = count;
      return {
        check,
        constituency,
        count,
        expected: number(r.Expected),
        actual: number(r.Actual),
        note: String(r.Note ?? ''),
        href: checksHref(view, filters),
      };
    });
  });
}

/** The failed checks of one constituency. */
export function checksOf(checks: readonly FailedCheck[], constituency: string): FailedCheck[] {
  return checks.filter((c) => c.constituency && slugOf(c.constituency) === slugOf(constituency));
}
