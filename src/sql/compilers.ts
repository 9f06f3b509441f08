// The SQL compilers, by dialect: each compiles plans into its own SQL for the store of the same dialect.

import type { CompileTarget, SqlCompiler } from '../dialect/compiler.js';
import { postgresCompiler } from './postgres/search.js';
import { sqliteCompiler } from './sqlite/search.js';

/** The compiler of the target's dialect, bound to what it must know of the store. */
export function sqlCompilerFor(target: CompileTarget): SqlCompiler {
  return target.dialect === 'sqlite' ? sqliteCompiler(target) : postgresCompiler(target);
}
