// PostgreSQL statements that make a resource's next generation from its published one: the records outside the
// changed `_id` ranges copied as they are stored (their `_full_text` included, not worked out again), the changed
// records inserted with their `_full_text` computed as a load computes it, and what the new table then holds.

import type { ResourceDefinition } from '../../catalog/types.js';
import { COLUMN_TYPES, fullTextExpressionSql } from './ddl.js';
import { qualified, quoteIdent } from './quote.js';

/** The new generation, holding the published one's records outside the ranges. */
export function copyOutsideRangesSql(
  schema: string,
  table: string,
  from: string,
  ranges: readonly { from: number; to: number }[],
): string[] {
  const inside = ranges.map((r) => `"_id" BETWEEN ${Math.trunc(r.from)} AND ${Math.trunc(r.to)}`);
  const outside = ranges.length === 0 ? '' : ` WHERE NOT (${inside.join(' OR ')})`;
  return [
    `DROP TABLE IF EXISTS ${qualified(schema, table)}`,
    `CREATE TABLE ${qualified(schema, table)} AS SELECT * FROM ${qualified(schema, from)}${outside}`,
  ];
}

/** Inserts `rows` records given as parameters (each: `_id`, the fields, `_record`, `_csv`), computing `_full_text`. */
export function insertRecordsSql(
  schema: string,
  table: string,
  resource: ResourceDefinition,
  fullTextLanguage: string,
  rows: number,
): string {
  const columns = ['_id', ...resource.fields.map((f) => f.id), '_record', '_csv'].map(quoteIdent);
  const types = ['integer', ...resource.fields.map((f) => COLUMN_TYPES[f.type]), 'text', 'text'];
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) {
    tuples.push(`(${types.map((type, i) => `$${r * types.length + i + 1}::${type}`).join(', ')})`);
  }
  return (
    `INSERT INTO ${qualified(schema, table)} (${columns.join(', ')}, "_full_text") ` +
    `SELECT ${columns.join(', ')}, ${fullTextExpressionSql(schema, resource, fullTextLanguage)} ` +
    `FROM (VALUES ${tuples.join(', ')}) AS "v" (${columns.join(', ')})`
  );
}

/** One row: the table's count (`total`), largest `_id` (`max_id`), per field (n0, n1, …) whether it holds a null. */
export function patchedFactsSql(schema: string, table: string, resource: ResourceDefinition): string {
  const nulls = resource.fields.map((f, i) => `, bool_or(${quoteIdent(f.id)} IS NULL) AS "n${i}"`).join('');
  return `SELECT count(*) AS "total", coalesce(max("_id"), 0) AS "max_id"${nulls} FROM ${qualified(schema, table)}`;
}
