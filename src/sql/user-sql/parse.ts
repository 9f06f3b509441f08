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

export interface ParsedStatement {
  stmt: Node;
  /** The statement's own text, without a terminating semicolon (what PostgreSQL runs, wrapped, on that backend). */
  text: string;
}

/** The one statement of `sql`, parsed; 409s for several statements, none, or a syntax error. */
export function parseSingleStatement(sql: string): ParsedStatement {
  if (!ready) throw new Error('initSearchSql() must complete before statements are prepared');
  // CKAN refuses any text holding a backslash-quote, whatever the quoting around it.
  if (sql.includes("\\'")) throw new SqlFailure(CKAN_MESSAGES.notSingleStatement, { fromPostgres: false });
  if (sql.trim() === '') throw new SqlFailure('Query is empty.');
  let stmts;
  try {
    stmts = parseSync(sql).stmts ?? [];
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new SqlFailure(message);
  }
  if (stmts.length > 1) throw new SqlFailure(CKAN_MESSAGES.notSingleStatement, { fromPostgres: false });
  const raw = stmts[0];
  const stmt = raw?.stmt;
  if (!raw || !stmt) throw new SqlFailure('Query is empty.');
  // Locations are byte offsets into the UTF-8 text; a length of 0 means "to the end".
  const bytes = Buffer.from(sql, 'utf8');
  const start = raw.stmt_location ?? 0;
  const text = bytes.subarray(start, raw.stmt_len ? start + raw.stmt_len : undefined).toString('utf8');
  return { stmt, text };
}
