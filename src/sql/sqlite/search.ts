// SQLite's hooks for the search compiler: `?` placeholders, IN lists as one JSON parameter, and full-text matching
// through the FTS5 candidate index plus the registered functions that match and rank exactly as PostgreSQL does.

import { lexemeKey, type CandidateFilter } from '../../text-search/index.js';
import { RANK_NORMALIZATION, type PlanField, type SearchPlan, type TextMatch } from '../../query/plan.js';
import type { SqlCompiler } from '../../dialect/compiler.js';
import { compilerOf, isIdKey, sortedByOneField, type ParamList, type SearchDialectHooks } from '../search-compiler.js';
import { SQLITE_FUNCTIONS as F, sparseDeadlineSql } from '../../dialect/sqlite/functions.js';
import {
  exactValueSql,
  keyedByTime,
  keyExpression,
  rowArgumentsSql,
  temporalKey,
  temporalKeySql,
} from '../../dialect/sqlite/ddl.js';
import { quoteIdent, resourceTables } from '../../dialect/sqlite/quote.js';
import { delimitedLineSql, jsonRecordSql } from '../../dialect/sqlite/lines.js';

export interface SqliteCompileOptions {
  /** Configuration the whole-row index was built with; field matches in it can use the index too. */
  indexLanguage: string;
}

/**
 * An FTS5 MATCH expression over hex lexeme keys; null when the filter cannot narrow anything, false when nothing
 * matches.
 */
function ftsExpression(filter: CandidateFilter): string | null | false {
  switch (filter.kind) {
    case 'all':
      return null;
    case 'none':
      return false;
    case 'term':
      return `"${lexemeKey(filter.lexeme)}"${filter.prefix ? ' *' : ''}`;
    case 'and': {
      const parts = filter.of.map(ftsExpression);
      if (parts.includes(false)) return false;
      const narrowing = parts.filter((p): p is string => typeof p === 'string');
      if (narrowing.length === 0) return null;
      return narrowing.length === 1 ? narrowing[0]! : `(${narrowing.join(' AND ')})`;
    }
    case 'or': {
      const parts = filter.of.map(ftsExpression).filter((p) => p !== false);
      if (parts.length === 0) return false;
      if (parts.includes(null)) return null;
      return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' OR ')})`;
    }
  }
}

function valueType(match: TextMatch): string {
  return match.target.kind === 'field' ? match.target.field.type : 'text';
}

/**
 * Above this many records a scan, sort or count can take long enough to be felt by every other request the event
 * loop serves; below it, only full-text matching (a function call per candidate) can.
 */
const GUARD_ROWS = 50_000;

function hasTextSearch(plan: SearchPlan): boolean {
  const inCondition = (c: SearchPlan['where']): boolean =>
    c !== null && (c.kind === 'text-match' || ((c.kind === 'and' || c.kind === 'or') && c.of.some(inCondition)));
  return (
    inCondition(plan.where) ||
    plan.columns.some((c) => c.kind === 'rank') ||
    plan.orderBy.some((k) => k.target.kind === 'rank')
  );
}

/**
 * Index entries (or rows, in `_id` order) an unfiltered page may step over with no deadline at all. Walking one index
 * in its order with nothing to test on each entry, SQLite takes about 8 ns an entry: 2 ms for this many. Any test on
 * each row, the sparse deadline's included, costs about three times that.
 */
const UNGUARDED_WALK_ROWS = 250_000;
const UNGUARDED_PAGE_ROWS = 1000;

/**
 * Whether a statement is bounded by construction: a page of the whole resource in `_id` order, or by one field that has
 * no nulls and an index in the page's order (ascending, its index: `ORDER BY field, _id` is that index's own order;
 * descending, its descending sort index), no further than UNGUARDED_WALK_ROWS in. SQLite walks the table or the index
 * from its start and stops at the page's end.
 */
function boundedWalk(plan: SearchPlan): boolean {
  // The records read and rendered (microseconds each, where a step costs nanoseconds) are bounded too.
  if (plan.where !== null || plan.distinct || plan.limit > UNGUARDED_PAGE_ROWS) return false;
  if (plan.offset + plan.limit > UNGUARDED_WALK_ROWS) return false;
  const [first, second] = plan.orderBy;
  if (!first || (isIdKey(first) && !second)) return true;
  const sorted = sortedByOneField(plan);
  return sorted !== null && sorted.field.nullable === false && indexInOrder(sorted);
}

/**
 * Whether the store has an index in the order of a sort by one field, then `_id`: ascending, the field's own (whose
 * entries end with their `_id`); descending, its sort index (see src/catalog/indexes.ts), where the field's own,
 * walked backwards, has a value's records in descending `_id` order.
 */
function indexInOrder(sorted: NonNullable<ReturnType<typeof sortedByOneField>>): boolean {
  return (sorted.descending ? sorted.field.sortIndexedDescending : sorted.field.indexed) === true;
}

/** Whether a page of the whole resource sorted by one field keeps to an index in its order. */
function sortedByIndex(plan: SearchPlan): boolean {
  if (plan.narrowed || plan.distinct) return false;
  const sorted = sortedByOneField(plan);
  return sorted !== null && indexInOrder(sorted);
}

/** What a field-targeted full-text query reads of a field: a numeric with every digit, as PostgreSQL's `::text`. */
function fieldText(field: PlanField): string {
  return field.type === 'numeric' ? exactValueSql(field.id) : quoteIdent(field.id);
}

function hooks(options: SqliteCompileOptions): SearchDialectHooks {
  return {
    // A full-text function per row costs more than the deadline's call, which then goes on every row; without one, a
    // row costs SQLite so little that the call would be most of it.
    rowGuard: (plan, statement) =>
      hasTextSearch(plan)
        ? `${F.deadline}("_id")`
        : plan.resourceRows > GUARD_ROWS && !(statement === 'page' && boundedWalk(plan))
          ? sparseDeadlineSql()
          : null,
    placeholder: () => '?',
    quoteIdent,
    table: (resourceId) => resourceTables(resourceId).data,
    bindBoolean: (p, value) => p.bind(value ? 1 : 0),
    // One JSON parameter whatever the list's length, so the statement text (and its cache entry) is shared.
    inList: (p, field, values) => {
      const type = field.type;
      // A date's or a timestamp's keys, where each has one as a number; otherwise the texts, keyed in the statement.
      const keys = keyedByTime(type) ? values.map((v) => (typeof v === 'string' ? temporalKey(type, v) : null)) : [];
      const asKeys = keys.length > 0 && keys.every((k) => k !== null);
      const list = p.bindRaw(
        JSON.stringify(asKeys ? keys : values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v))),
      );
      const value = keyedByTime(type) && !asKeys ? temporalKeySql(type, () => 'value') : 'value';
      return `${keyExpression(field)} IN (SELECT ${value} FROM json_each(${list}))`;
    },
    keyExpression,
    nullTest: keyExpression,
    keyValue: (p, field, value) => {
      const type = field.type;
      if (!keyedByTime(type)) return p.bind(value);
      const key = typeof value === 'string' ? temporalKey(type, value) : null;
      return key === null ? temporalKeySql(type, () => p.bind(value)) : p.bind(key);
    },
    exactValue: exactValueSql,
    delimitedLine: (fields, lines) => delimitedLineSql(fields, lines.delimiter, lines.timestampMilliseconds),
    jsonRecord: (fields, json) => jsonRecordSql(fields, json.lists, json.timestampMilliseconds),
    pageThenFetch: true,
    seeksAfterRecord: sortedByIndex,
    // Unary + makes the expression not the column: SQLite can no longer read the table in _id order to produce it.
    unwalkedIdOrder: (id) => `+${id}`,
    textMatch(p: ParamList, plan: SearchPlan, match: TextMatch) {
      const { query, target } = match;
      const canUseIndex =
        target.kind === 'row' ||
        (query.config === options.indexLanguage &&
          (target.field.type === 'text' || target.field.type === 'numeric' || target.field.type === 'int'));
      const parts: string[] = [];
      if (canUseIndex) {
        const expression = ftsExpression(query.candidates);
        if (expression === false) return '1 = 0';
        if (expression !== null) {
          const fts = resourceTables(plan.resourceId).fullText;
          parts.push(`"_id" IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${p.bind(expression)})`);
          // The index holds each row's lexemes, so for a query of lexemes joined by & and | it is the answer itself.
          if (target.kind === 'row' && query.candidatesExact) return parts[0]!;
        }
      }
      if (target.kind === 'row')
        parts.push(`${F.rowTsMatch}(${p.bind(query.text)}, ${rowArgumentsSql(options.indexLanguage, target.fields)})`);
      else
        parts.push(
          `${F.tsMatchValue}(${p.bind(query.config)}, ${fieldText(target.field)}, ${p.bind(valueType(match))}, ${p.bind(query.text)})`,
        );
      return parts.join(' AND ');
    },
    rank(p: ParamList, match: TextMatch) {
      if (match.target.kind === 'row')
        return `${F.rowTsRank}(${p.bind(match.query.text)}, ${RANK_NORMALIZATION}, ${rowArgumentsSql(options.indexLanguage, match.target.fields)})`;
      return `${F.tsRankValue}(${p.bind(match.query.config)}, ${fieldText(match.target.field)}, ${p.bind(valueType(match))}, ${p.bind(match.query.text)}, ${RANK_NORMALIZATION})`;
    },
  };
}

/** The SQLite compiler for a version of the embedded store; translated user SQL is compiled when it is prepared. */
export function sqliteCompiler(options: SqliteCompileOptions): SqlCompiler {
  return compilerOf(hooks(options), (prepared) => prepared.sqlite);
}
