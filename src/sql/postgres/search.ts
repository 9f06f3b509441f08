// PostgreSQL's hooks for the search compiler: `$n` placeholders, `= ANY($n)` arrays, text ordered by code point
// (COLLATE "C", CKAN's collation), and full-text matching with the database's own @@ and ts_rank.

import { RANK_NORMALIZATION, type SearchPlan, type TextMatch } from '../../query/plan.js';
import type { SqlCompiler } from '../../dialect/compiler.js';
import { compilerOf, sortedByOneField, type ParamList, type SearchDialectHooks } from '../search-compiler.js';
import { wrapUserSql } from './user-sql.js';
import { COLUMN_TYPES, foldSql, keyExpression } from '../../dialect/postgres/ddl.js';
import { qualified, quoteIdent } from '../../dialect/postgres/quote.js';
import { delimitedLineSql } from '../../dialect/postgres/lines.js';

export interface PostgresCompileOptions {
  schema: string;
  /** The table that holds each resource in the version being read. */
  tables: ReadonlyMap<string, string>;
}

/** The text the query matches in one field: `value::text`, as CKAN casts it, with accents folded as the query's. */
function fieldText(p: ParamList, schema: string, match: TextMatch & { target: { kind: 'field' } }): string {
  return `to_tsvector(${p.bind(match.query.config)}::regconfig, ${foldSql(schema, `${quoteIdent(match.target.field.id)}::text`)})`;
}

/** Records a page may step over before finding its `_id`s first (in a sort index) pays for a second lookup. */
const DEEP_PAGE_OFFSET = 1000;

/** Whether a plan is sorted by one field (then `_id` ascending) whose sort index the store keeps in that direction. */
function sortedBySortIndex(plan: SearchPlan): boolean {
  const sorted = sortedByOneField(plan);
  if (!sorted) return false;
  return (sorted.descending ? sorted.field.sortIndexedDescending : sorted.field.sortIndexed) === true;
}

/**
 * A page of the whole resource sorted by one field that has its sort index, deep (offset 1,000 or more) or after a
 * keyset's record: its `_id`s are a stretch of that index, read without the table (an index-only scan: a load writes
 * its tables all-visible), then its records are fetched by `_id`. Read in one go, PostgreSQL fetches every record it
 * steps over from the table: at offset 45,000 of 100,000 records, 14 ms against 4 ms; after a keyset's record, every
 * record that shares its value, which the page then skips.
 */
function sortIndexPage(plan: SearchPlan): boolean {
  if (plan.narrowed || plan.distinct || (plan.where === null && plan.offset < DEEP_PAGE_OFFSET)) return false;
  return sortedBySortIndex(plan);
}

function hooks(options: PostgresCompileOptions): SearchDialectHooks {
  return {
    placeholder: (position) => `$${position}`,
    quoteIdent,
    table: (resourceId) => qualified(options.schema, options.tables.get(resourceId) ?? resourceId),
    bindBoolean: (p, value) => p.bindRaw(value),
    inList: (p, field, values) => `${keyExpression(field)} = ANY(${p.bindRaw(values)}::${COLUMN_TYPES[field.type]}[])`,
    keyExpression,
    delimitedLine: (fields, lines) => delimitedLineSql(fields, lines.delimiter, lines.timestampMilliseconds),
    pageThenFetch: sortIndexPage,
    seeksAfterRecord: sortIndexPage,
    // Given an index in a filtered sort's whole order, the planner walks it in search of a rare value's records (a
    // party's, in scenario 9 at 5,000,000 records: p95 190 ms against 4 ms). `_id + 0` sorts as `_id` does, but no
    // index holds it, so a filtered sort is planned as it was before the sort index was built.
    tieBreak: (plan) => (plan.narrowed && sortedBySortIndex(plan) ? '("_id" + 0)' : '"_id"'),
    textMatch(p: ParamList, _plan: SearchPlan, match: TextMatch) {
      // A query of stop words only matches nothing; saying so spares PostgreSQL's notice about it.
      if (match.query.candidates.kind === 'none') return '1 = 0';
      if (match.target.kind === 'row') return `"_full_text" @@ ${p.bind(match.query.text)}::tsquery`;
      return `${fieldText(p, options.schema, match as TextMatch & { target: { kind: 'field' } })} @@ ${p.bind(match.query.text)}::tsquery`;
    },
    rank(p: ParamList, match: TextMatch) {
      const vector =
        match.target.kind === 'row'
          ? '"_full_text"'
          : fieldText(p, options.schema, match as TextMatch & { target: { kind: 'field' } });
      return `ts_rank(${vector}, ${p.bind(match.query.text)}::tsquery, ${RANK_NORMALIZATION})`;
    },
  };
}

/** The PostgreSQL compiler for a version of the data (its schema and this load's tables); user SQL runs as written. */
export function postgresCompiler(options: PostgresCompileOptions): SqlCompiler {
  return compilerOf(hooks(options), (prepared, maxRows) => wrapUserSql(prepared.statement, maxRows));
}
