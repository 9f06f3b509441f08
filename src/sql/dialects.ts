// The SQL dialects, by name: each compiles plans into its own SQL for the backend of the same name.

import type { SearchPlan, ValueCountPlan } from '../query/plan.js';
import type { CompiledQuery } from './compiled.js';
import * as postgres from './postgres/search.js';
import { wrapUserSql } from './postgres/user-sql.js';
import type { PreparedSql } from './search-sql/index.js';
import * as sqlite from './sqlite/search.js';

/**
 * What a compiler needs to know about the store it compiles for. PostgreSQL names each load's table on its own
 * (`tables`: resource id → table of the version being read).
 */
export type CompileTarget =
  | { dialect: 'sqlite'; indexLanguage: string }
  | { dialect: 'postgres'; schema: string; tables: ReadonlyMap<string, string> };

export interface Dialect {
  compileSearch(plan: SearchPlan): CompiledQuery;
  compileCount(plan: SearchPlan): CompiledQuery;
  /** Each value of one field in a view and how many records hold it (the explorer's facets). */
  compileValueCounts(plan: ValueCountPlan): CompiledQuery;
  /**
   * `_id` and stored columns of a resource's records after `_id` `afterId` (null: from the first), in `_id` order;
   * the `numeric` fields among them with every digit.
   */
  compileColumns(
    resourceId: string,
    columns: readonly string[],
    afterId: number | null,
    limit: number,
    numeric?: ReadonlySet<string>,
  ): CompiledQuery;
  /**
   * A guarded datastore_search_sql statement, returning at most maxRows + 1 rows (so that a cut answer can be told):
   * PostgreSQL runs it as written; the embedded store runs its translation.
   */
  compileUserSql(prepared: PreparedSql, maxRows: number): CompiledQuery;
}

export function dialectFor(target: CompileTarget): Dialect {
  if (target.dialect === 'sqlite') {
    return {
      compileSearch: (plan) => sqlite.compileSearch(plan, target),
      compileCount: (plan) => sqlite.compileCount(plan, target),
      compileValueCounts: (plan) => sqlite.compileValueCounts(plan, target),
      compileColumns: (resourceId, columns, afterId, limit, numeric = new Set()) =>
        sqlite.compileColumns(resourceId, columns, afterId, limit, numeric, target),
      compileUserSql: (prepared) => prepared.sqlite,
    };
  }
  return {
    compileSearch: (plan) => postgres.compileSearch(plan, target),
    compileCount: (plan) => postgres.compileCount(plan, target),
    compileValueCounts: (plan) => postgres.compileValueCounts(plan, target),
    compileColumns: (resourceId, columns, afterId, limit) =>
      postgres.compileColumns(resourceId, columns, afterId, limit, target),
    compileUserSql: (prepared, maxRows) => wrapUserSql(prepared.statement, maxRows),
  };
}
