// Statements that patch a resource in the embedded database being built: the records of an `_id` range removed, with
// their lexemes taken out of the contentless full-text index (which can only forget what it is told it holds), and
// what the patched table then holds.

import type { FieldDefinition } from '../../catalog/types.js';
import { rowFtsDocumentSql } from './ddl.js';
import { quoteIdent, resourceTables } from './quote.js';

/**
 * Removes the records with `_id` between the two parameters, both included, and their lexemes (each row's document
 * worked out again from its values, as the load made it).
 */
export function deleteRangeSql(resourceId: string, language: string, fields: readonly FieldDefinition[]): string[] {
  const { data, fullText } = resourceTables(resourceId);
  return [
    `INSERT INTO ${fullText} (${fullText}, rowid, lexemes) ` +
      `SELECT 'delete', "_id", ${rowFtsDocumentSql(language, fields)} FROM ${data} WHERE "_id" BETWEEN ? AND ?`,
    `DELETE FROM ${data} WHERE "_id" BETWEEN ? AND ?`,
  ];
}

/** The patched table's count and largest `_id`. */
export function patchedTotalsSql(resourceId: string): string {
  return `SELECT count(*) AS "total", coalesce(max("_id"), 0) AS "maxId" FROM ${resourceTables(resourceId).data}`;
}

/** One row: per field (n0, n1, …), whether any record holds a null in it. */
export function nullFieldsSql(resourceId: string, fields: readonly FieldDefinition[]): string {
  const { data } = resourceTables(resourceId);
  if (fields.length === 0) return 'SELECT 0 AS "none"';
  const any = fields.map((f, i) => `EXISTS (SELECT 1 FROM ${data} WHERE ${quoteIdent(f.id)} IS NULL) AS "n${i}"`);
  return `SELECT ${any.join(', ')}`;
}
