// What a store and the compiler it is composed with agree on: what the compiler must know of the store
// (CompileTarget), and what it offers (SqlCompiler). The compilers implement it (src/sql/), the stores hold one per
// version (src/storage/), and src/stores.ts puts the two together.

import type { PlanField, SearchPlan, ValueCountPlan } from '../query/plan.js';
import type { CompiledQuery } from './compiled.js';

/** A guarded datastore_search_sql statement: as written, and as translated for the embedded store. */
export interface UserStatement {
  /** The statement as written, without a terminating semicolon: what a PostgreSQL store runs itself. */
  statement: string;
  /** SQLite SQL returning at most maxRows + 1 rows, in the statement's column order and names. */
  sqlite: CompiledQuery;
}

/**
 * What a compiler needs to know about the store it compiles for. PostgreSQL names each load's table on its own
 * (`tables`: resource id → table of the version being read).
 */
export type CompileTarget =
  | { dialect: 'sqlite'; indexLanguage: string }
  | { dialect: 'postgres'; schema: string; tables: ReadonlyMap<string, string> };

export interface SqlCompiler {
  /** Whether compiled searches render JSON records in the database when a plan asks (SearchPlan's `jsonRecords`). */
  rendersJsonRecords: boolean;
  compileSearch(plan: SearchPlan): CompiledQuery;
  compileCount(plan: SearchPlan): CompiledQuery;
  /**
   * The values of `keys` (the order's keyset keys) of every `every`th record of the plan's records in its order: the
   * marks a deep page of that order starts from.
   */
  compileOffsetMarks(plan: SearchPlan, keys: readonly { field: PlanField }[], every: number): CompiledQuery;
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
  compileUserSql(prepared: UserStatement, maxRows: number): CompiledQuery;
}

/** Makes the compiler for a store version; src/stores.ts hands each store the one of its dialect. */
export type CompilerFor = (target: CompileTarget) => SqlCompiler;
