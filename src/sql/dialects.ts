// The SQL dialects, by name: each compiles plans into its own SQL for the backend of the same name.

import type { SearchPlan } from '../query/plan.js';
import type { CompiledQuery } from './compiled.js';
import { compileCount, compileSearch } from './sqlite/search.js';

/** What a compiler needs to know about the store it compiles for. */
export interface CompileTarget {
  dialect: 'sqlite';
  indexLanguage: string;
}

export interface Dialect {
  compileSearch(plan: SearchPlan, target: CompileTarget): CompiledQuery;
  compileCount(plan: SearchPlan, target: CompileTarget): CompiledQuery;
}

const DIALECTS: Record<CompileTarget['dialect'], Dialect> = {
  sqlite: {
    compileSearch: (plan, target) => compileSearch(plan, target),
    compileCount: (plan, target) => compileCount(plan, target),
  },
};

export function dialectFor(target: CompileTarget): Dialect {
  return DIALECTS[target.dialect];
}
