// PostgreSQL statements that make a resource's next version from its published one. Usually the version is a view over
// segments that earlier versions share: each segment a table of records (with its own indexes), shown without the
// `_id` ranges later segments replace, and one new segment holding the changed records. Now and then the segments are
// compacted into one table again: the records outside the changed ranges copied as stored (their `_full_text`
// included, not worked out again). The changed records are inserted with their `_full_text` made as a load makes it,
// by the loader from their values.

import type { ResourceDefinition } from '../../catalog/types.js';
import { COLUMN_TYPES, fullTextExpressionSql, vectorsFromLoader } from './ddl.js';
import { qualified, quoteIdent, quoteLiteral } from './quote.js';

export interface IdSpan {
  from: number;
  to: number;
}

/** One table a version reads, and the `_id` ranges of it that later segments replace (it is read without them). */
export interface Segment {
  table: string;
  /** The records the table holds (hidden ones included). */
  rows: number;
  without: IdSpan[];
}

/**
 * The table of a version's new segment, beside the version's view (its name with a plus: see GENERATION_TABLE); for a
 * load split over two connections, its second table.
 */
export function segmentTable(version: string): string {
  return `${version}+`;
}

/**
 * What a version may leave behind (a patch's view or table and new segment; a load's table and, if split, its second
 * one), to drop when unpublished.
 */
export function versionObjectsSql(schema: string, version: string): string[] {
  // The plus table before the version's own: a split load's second table inherits from it (see the loader).
  return [
    dropViewSql(schema, version),
    `DROP TABLE IF EXISTS ${qualified(schema, segmentTable(version))}`,
    `DROP TABLE IF EXISTS ${qualified(schema, version)}`,
  ];
}

export function dropViewSql(schema: string, name: string): string {
  return `DROP VIEW IF EXISTS ${qualified(schema, name)}`;
}

/** A condition that holds for `_id`s inside the ranges. */
function insideSql(ranges: readonly IdSpan[]): string {
  return ranges.map((r) => `"_id" BETWEEN ${Math.trunc(r.from)} AND ${Math.trunc(r.to)}`).join(' OR ') || 'false';
}

/** A WHERE clause that holds for `_id`s outside the ranges; empty when there are none. */
function outsideSql(ranges: readonly IdSpan[]): string {
  return ranges.length === 0 ? '' : ` WHERE NOT (${insideSql(ranges)})`;
}

/** The columns of a version, in its tables' order. */
function columnsSql(resource: ResourceDefinition): string {
  return ['_id', ...resource.fields.map((f) => f.id), '_full_text'].map(quoteIdent).join(', ');
}

/** The records of segments, each without its hidden ranges, one segment after another (the order they are stored). */
function segmentsSelectSql(schema: string, resource: ResourceDefinition, segments: readonly Segment[]): string {
  const columns = columnsSql(resource);
  return segments
    .map((s) => `SELECT ${columns} FROM ${qualified(schema, s.table)}${outsideSql(s.without)}`)
    .join(' UNION ALL ');
}

/**
 * A new table holding the records of `segments` (none: an empty table of the version's columns, `_full_text` a plain
 * column that inserts fill), read from them as they are stored.
 */
export function copySegmentsSql(
  schema: string,
  table: string,
  resource: ResourceDefinition,
  segments: readonly Segment[],
  like: string,
): string[] {
  const source =
    segments.length === 0
      ? `SELECT ${columnsSql(resource)} FROM ${qualified(schema, like)} WITH NO DATA`
      : segmentsSelectSql(schema, resource, segments);
  return [`DROP TABLE IF EXISTS ${qualified(schema, table)}`, `CREATE TABLE ${qualified(schema, table)} AS ${source}`];
}

/**
 * The version as a view over its segments, and what it is made of (read by the next patch) as the view's comment.
 * The hidden ranges are one condition on the union, each naming its segment by number, not a condition inside each
 * branch: PostgreSQL flattens only a union of plain branches, and then hands each table its own part of the condition
 * (the others fold to true), so that its indexes serve as a table's do (pages in `_id` order merge index scans).
 * A view's query names its tables, so PostgreSQL itself refuses to drop a segment that a version still reads.
 */
export function versionViewSql(
  schema: string,
  view: string,
  resource: ResourceDefinition,
  segments: readonly Segment[],
): string[] {
  const name = qualified(schema, view);
  const columns = columnsSql(resource);
  const union = segments
    .map((s, i) => `SELECT ${i} AS "_segment", ${columns} FROM ${qualified(schema, s.table)}`)
    .join(' UNION ALL ');
  const hidden = segments.flatMap((s, i) =>
    s.without.length === 0 ? [] : [`NOT ("_segment" = ${i} AND (${insideSql(s.without)}))`],
  );
  const where = hidden.length === 0 ? '' : ` WHERE ${hidden.join(' AND ')}`;
  return [
    `CREATE VIEW ${name} AS SELECT ${columns} FROM (${union}) AS "segments"${where}`,
    `COMMENT ON VIEW ${name} IS ${quoteLiteral(JSON.stringify({ segments }))}`,
  ];
}

/** One row: whether the relation is a view (`view`), and its comment (`composition`, a view's segments as JSON). */
export function compositionSql(): string {
  return `SELECT c.relkind = 'v' AS "view", obj_description(c.oid, 'pg_class') AS "composition" FROM pg_class c WHERE c.oid = to_regclass($1)`;
}

/** One row: how many records the table holds in the ranges (`hidden`). */
export function recordsInRangesSql(schema: string, table: string, ranges: readonly IdSpan[]): string {
  return `SELECT count(*) AS "hidden" FROM ${qualified(schema, table)} WHERE ${insideSql(ranges)}`;
}

/** The tables and views of the data schema ($1), with whether each is a view. */
export const relationsSql = `SELECT c.relname AS "name", c.relkind = 'v' AS "view" FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'v')`;

/** The tables that the views named $2 in schema $1 read: the segments of versions still in use. */
export const segmentsReadSql =
  `SELECT DISTINCT t.relname AS "name" FROM pg_class v JOIN pg_namespace n ON n.oid = v.relnamespace ` +
  `JOIN pg_rewrite r ON r.ev_class = v.oid ` +
  `JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid AND d.refclassid = 'pg_class'::regclass ` +
  `JOIN pg_class t ON t.oid = d.refobjid ` +
  `WHERE n.nspname = $1 AND v.relkind = 'v' AND v.relname = ANY($2) AND t.oid <> v.oid AND t.relkind = 'r'`;

/** The tables that inherit from the tables named $2 in schema $1: the second tables of split loads still in use. */
export const inheritingTablesSql =
  `SELECT c.relname AS "name" FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid ` +
  `JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace n ON n.oid = p.relnamespace ` +
  `WHERE n.nspname = $1 AND p.relname = ANY($2)`;

/**
 * Inserts `rows` records given as parameters (each: `_id`, the fields, then `_full_text` as the vector's text), or,
 * for a language only PostgreSQL makes vectors in (vectorsFromLoader), computes `_full_text` as a load's table would.
 */
export function insertRecordsSql(
  schema: string,
  table: string,
  resource: ResourceDefinition,
  fullTextLanguage: string,
  rows: number,
): string {
  const fromLoader = vectorsFromLoader(fullTextLanguage);
  const columns = ['_id', ...resource.fields.map((f) => f.id), ...(fromLoader ? ['_full_text'] : [])].map(quoteIdent);
  const types = ['integer', ...resource.fields.map((f) => COLUMN_TYPES[f.type]), ...(fromLoader ? ['tsvector'] : [])];
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) {
    tuples.push(`(${types.map((type, i) => `$${r * types.length + i + 1}::${type}`).join(', ')})`);
  }
  if (fromLoader) return `INSERT INTO ${qualified(schema, table)} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`;
  return (
    `INSERT INTO ${qualified(schema, table)} (${columns.join(', ')}, "_full_text") ` +
    `SELECT ${columns.join(', ')}, ${fullTextExpressionSql(schema, resource, fullTextLanguage)} ` +
    `FROM (VALUES ${tuples.join(', ')}) AS "v" (${columns.join(', ')})`
  );
}

/** One row: the version's count (`total`), largest `_id` (`max_id`), per field (n0, n1, …) whether it holds a null. */
export function patchedFactsSql(schema: string, table: string, resource: ResourceDefinition): string {
  const nulls = resource.fields.map((f, i) => `, bool_or(${quoteIdent(f.id)} IS NULL) AS "n${i}"`).join('');
  return `SELECT count(*) AS "total", coalesce(max("_id"), 0) AS "max_id"${nulls} FROM ${qualified(schema, table)}`;
}
