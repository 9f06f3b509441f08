// Searches answered from memory: the resident table of a small resource, read from the version's store through its
// dialect the first time a search needs it (or a column it lacks), then kept by the version's ResidentTables.

import type { CatalogResource } from '../catalog/catalog.js';
import type { SearchPlan } from '../query/plan.js';
import {
  answersPlan,
  Budget,
  executeSearch,
  residentNeeds,
  ResidentSearchTooLong,
  type ResidentAnswer,
} from '../resident/execute.js';
import type { ResidentReader } from '../resident/tables.js';
import type { Services } from './types.js';

/** Records per query when a table is read: each batch a short query, so the event loop is never held for long. */
const READ_BATCH = 5000;

function reader(services: Services, resource: CatalogResource): ResidentReader {
  const { backend } = services;
  const dialect = backend.compiler;
  // Numeric values come with every digit, for the records a search shows field by field.
  const numeric = new Set(resource.fields.filter((f) => f.type === 'numeric').map((f) => f.id));
  return async (columns) => {
    const rows: unknown[][] = [];
    let after: number | null = null;
    for (;;) {
      const batch = await backend.bulkRows(dialect.compileColumns(resource.id, columns, after, READ_BATCH, numeric));
      for (const row of batch) rows.push(row.slice(1));
      if (batch.length < READ_BATCH) return rows;
      after = Number(batch[batch.length - 1]![0]);
    }
  };
}

/**
 * How long a search may run on the event loop in memory before the store is asked instead (where a long search runs
 * on a worker, or under PostgreSQL's statement timeout): a few full-text queries reach thousands of records and rank
 * each one.
 */
const EVENT_LOOP_BUDGET_MS = 10;

/** `plan` answered from memory; null when the store is to answer it (not resident, or too long for the event loop). */
export async function residentAnswer(
  plan: SearchPlan,
  resource: CatalogResource,
  services: Services,
): Promise<ResidentAnswer | null> {
  const { resident, settings } = services;
  if (!resident || !answersPlan(plan)) return null;
  const table = await resident.table(resource, residentNeeds(plan), reader(services, resource));
  if (!table) return null;
  try {
    return executeSearch(table, plan, Budget.of(Math.min(EVENT_LOOP_BUDGET_MS, settings.searchTimeoutMs)));
  } catch (err) {
    if (err instanceof ResidentSearchTooLong) return null;
    throw err;
  }
}
