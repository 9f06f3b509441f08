// Identifier and literal quoting for PostgreSQL: the only place PostgreSQL SQL text is escaped.

export function quoteIdent(name: string): string {
  return '"' + name.replace(/\u0000/g, '').replace(/"/g, '""') + '"';
}

export function quoteLiteral(text: string): string {
  return "'" + text.replace(/\u0000/g, '').replace(/'/g, "''") + "'";
}

export function qualified(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}
