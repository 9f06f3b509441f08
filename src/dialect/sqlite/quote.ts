// Identifier and literal quoting for SQLite: the only place SQLite SQL text is escaped.

/** A double-quoted identifier; embedded quotes doubled and NULs removed, so any field name is safe. */
export function quoteIdent(name: string): string {
  return '"' + name.replace(/\u0000/g, '').replace(/"/g, '""') + '"';
}

/** A single-quoted string literal, for DDL option values that cannot be bound as parameters. */
export function quoteLiteral(text: string): string {
  return "'" + text.replace(/\u0000/g, '').replace(/'/g, "''") + "'";
}

/** Names of the tables that hold one resource. */
export function resourceTables(resourceId: string): { data: string; fullText: string } {
  return { data: quoteIdent(resourceId), fullText: quoteIdent(`${resourceId}__fts`) };
}
