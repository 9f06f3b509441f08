// The SQL dialects, by name: each compiles plans into its own SQL for the backend of the same name.

import type { SearchPlan } from '../query/plan.js';
import type { CompiledQuery } from './compiled.js';
import * as postgres from './postgres/search.js';
import * as sqlite from './sqlite/search.js';

/** What a compiler needs to know about the store it compiles for. */
export type CompileTarget = { dialect: 'sqlite'; indexLanguage: string } | { dialect: 'postgres'; schema: string };

export interface Dialect {
  compileSearch(plan: SearchPlan): CompiledQuery;
  compileCount(plan: SearchPlan): CompiledQuery;
}

export function dialectFor(target: CompileTarget): Dialect {
  if (target.dialect === 'sqlite') {
    return { compileSearch: (plan) => sqlite.compileSearch(plan, target), compileCount: (plan) => sqlite.compileCount(plan, target) };
  }
  return { compileSearch: (plan) => postgres.compileSearch(plan, target), compileCount: (plan) => postgres.compileCount(plan, target) };
}
