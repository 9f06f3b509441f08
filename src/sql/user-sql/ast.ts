// Small readers for libpg-query's parse tree (PostgreSQL's nodes as JSON: `{ "<NodeType>": { …fields } }`,
// with fields at their default value left out).

import type { Node } from 'libpg-query';

/** The node type of a wrapped node ("SelectStmt", "A_Const", …). */
export function nodeKind(node: Node | undefined): string {
  if (!node) return '';
  for (const key in node) return key;
  return '';
}

/** The text of a String node (identifiers and name parts). */
export function stringValue(node: Node): string {
  const s = (node as { String?: { sval?: string } }).String;
  if (!s) throw new Error(`expected a name, found ${nodeKind(node)}`);
  return s.sval ?? '';
}

export function stringsOf(nodes: readonly Node[] | undefined): string[] {
  return (nodes ?? []).map((n) => stringValue(n));
}
