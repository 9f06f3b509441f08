// The SQL compilers, by dialect: each compiles plans into its own SQL for the store of the same dialect.

import type { CompileTarget, SqlCompiler } from '../dialect/compiler.js';
import * as postgres from './postgres/search.js';
import { wrapUserSql } from './postgres/user-sql.js';
import * as sqlite from './sqlite/search.js';

/** The compiler of the target's dialect, bound to what it must know of the store. */
export function sqlCompilerFor(target: CompileTarget): SqlCompiler {
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
