// `sort` clauses → sort keys. CKAN's clause grammar: `<field>[ asc|desc][ nulls first|last]`, the field
// optionally in double quotes (needed for names with spaces only to be unambiguous), case-insensitive keywords.

import type { PlanField, SortKey } from './plan.js';

const CLAUSE = /^(.+?)( +(asc|desc))?( nulls +(first|last) *)?$/i;

export interface ParsedClause {
  fieldId: string;
  descending: boolean;
  nulls: 'first' | 'last' | null;
}

export function parseSortClause(clause: string): ParsedClause | null {
  const match = CLAUSE.exec(clause);
  if (!match) return null;
  let fieldId = match[1]!;
  if (fieldId.length >= 2 && fieldId.startsWith('"') && fieldId.endsWith('"')) fieldId = fieldId.slice(1, -1);
  const nulls = match[5] ? (match[5].toLowerCase() as 'first' | 'last') : null;
  return { fieldId, descending: (match[3] ?? 'asc').toLowerCase() === 'desc', nulls };
}

/** A sort key with PostgreSQL's default null placement made explicit: last ascending, first descending. */
export function sortKey(field: PlanField, descending: boolean, nulls: 'first' | 'last' | null): SortKey {
  return { target: { kind: 'field', field }, descending, nullsFirst: nulls === null ? descending : nulls === 'first' };
}
