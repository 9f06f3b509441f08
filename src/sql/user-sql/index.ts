// datastore_search_sql for the embedded store: user SQL in PostgreSQL's dialect is parsed by PostgreSQL's
// parser, guarded, and translated into SQLite SQL that gives PostgreSQL's answers (see docs/sql.md).

import type Database from 'better-sqlite3';
import type { SelectStmt } from 'libpg-query';
import type { UserStatement } from '../../dialect/compiler.js';
import { guard } from './guard.js';
import { initParser, parseSingleStatement } from './parse.js';
import { StatementTranslator, type SqlResourceInfo } from './query.js';
import { renderValue } from './render.js';
import { registerRuntime } from './runtime.js';
import { registerTextSearch } from '../../dialect/sqlite/functions.js';

export type { SqlResourceInfo } from './query.js';

export interface PreparedSql extends UserStatement {
  /** Resources the statement reads (for auditing and ETags). */
  resourceIds: string[];
  /** Output columns as PostgreSQL names them, with PostgreSQL's type names. */
  columns: { id: string; type: string }[];
}

/** Loads PostgreSQL's parser (WebAssembly); call once at start-up, before prepareSearchSql. */
export function initSearchSql(): Promise<void> {
  return initParser();
}

/**
 * Parses, guards and translates one statement. Throws StatementRejected (SqlFailure) for what PostgreSQL would refuse
 * (with its message), for anything that is not a read, and for constructs outside the subset; ReadForbidden for system
 * catalogues, other schemas and functions off CKAN's allow-list.
 */
export function prepareSearchSql(
  sql: string,
  lookup: (id: string) => SqlResourceInfo | undefined,
  options: { maxRows: number },
): PreparedSql {
  const { stmt, text } = parseSingleStatement(sql);
  guard(stmt);
  const translator = new StatementTranslator(lookup);
  const cap = Math.max(0, Math.floor(options.maxRows)) + 1;
  const { sql: sqlite, columns } = translator.top((stmt as { SelectStmt: SelectStmt }).SelectStmt, cap);
  return { resourceIds: [...translator.resources], sqlite: { sql: sqlite, params: [] }, columns, statement: text };
}

/** Registers the cc_ functions translated statements call (the store registers cc_deadline itself). */
export function registerSqliteRuntime(db: Database.Database): void {
  registerRuntime(db);
  registerTextSearch(db);
}

/** The JSON value CKAN's convert() gives for a result cell of this PostgreSQL type, from what SQLite returned. */
export function renderSqlValue(value: unknown, type: string): unknown {
  return renderValue(value, type);
}
