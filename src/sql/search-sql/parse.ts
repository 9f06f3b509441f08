// Reading user SQL with PostgreSQL's own parser (libpg-query, WebAssembly): one statement or CKAN's refusal,
// and PostgreSQL's wording for syntax errors.

import { loadModule, parseSync, type Node } from 'libpg-query';
import { CKAN_MESSAGES, SqlFailure } from './failure.js';

let loaded: Promise<void> | null = null;
let ready = false;

export function initParser(): Promise<void> {
  loaded ??= loadModule().then(() => {
    ready = true;
  });
  return loaded;
}

/** The one statement of `sql`, parsed; 409s for several statements, none, or a syntax error. */
export function parseSingleStatement(sql: string): Node {
  if (!ready) throw new Error('initSearchSql() must complete before statements are prepared');
  // CKAN refuses any text holding a backslash-quote, whatever the quoting around it.
  if (sql.includes("\\'")) throw new SqlFailure(CKAN_MESSAGES.notSingleStatement);
  if (sql.trim() === '') throw new SqlFailure('Query is empty.');
  let stmts;
  try {
    stmts = parseSync(sql).stmts ?? [];
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new SqlFailure(message);
  }
  if (stmts.length > 1) throw new SqlFailure(CKAN_MESSAGES.notSingleStatement);
  const stmt = stmts[0]?.stmt;
  if (!stmt) throw new SqlFailure('Query is empty.');
  return stmt;
}
