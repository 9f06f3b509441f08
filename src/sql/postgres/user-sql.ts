// datastore_search_sql on PostgreSQL: the guarded statement runs as written, wrapped as CKAN wraps it, so that only a
// query can run (never a command) and at most the row cap comes back.

import type { CompiledQuery } from '../../dialect/compiled.js';

/** `statement` is one SELECT without its terminating semicolon; the line breaks keep a trailing comment harmless. */
export function wrapUserSql(statement: string, maxRows: number): CompiledQuery {
  return { sql: `SELECT * FROM (\n${statement}\n) AS blah LIMIT ${Math.floor(maxRows) + 1}`, params: [] };
}
