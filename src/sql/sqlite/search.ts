// Compiles a search plan into SQLite SQL: the page query and the count query. Full-text conditions use the
// FTS5 candidate index to narrow rows and the registered functions for PostgreSQL-exact matching and ranking.

import type { CandidateFilter } from '../../text-search/index.js';
import type { Condition, OutputColumn, SearchPlan, SortKey, TextMatch } from '../../query/plan.js';
import { lexemeKey } from '../../storage/full-text.js';
import type { CompiledQuery } from '../compiled.js';
import { RANK_NORMALIZATION, SQLITE_FUNCTIONS as F } from './functions.js';
import { quoteIdent, resourceTables } from './quote.js';

export interface SqliteCompileOptions {
  /** Configuration the whole-row index was built with; field matches in it can use the index too. */
  indexLanguage: string;
}

type Param = string | number | null;

class Builder {
  readonly params: Param[] = [];
  constructor(readonly plan: SearchPlan, readonly options: SqliteCompileOptions) {}

  bind(value: string | number | boolean | null): string {
    this.params.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
    return '?';
  }
}

/** An FTS5 MATCH expression over hex lexeme keys; null when the filter cannot narrow anything. */
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

function valueTextType(match: TextMatch): string {
  return match.target.kind === 'field' ? match.target.field.type : 'text';
}

function textMatchSql(b: Builder, match: TextMatch): string {
  const { query, target } = match;
  const canUseIndex = target.kind === 'row' ||
    (query.config === b.options.indexLanguage && (target.field.type === 'text' || target.field.type === 'numeric' || target.field.type === 'int'));
  const parts: string[] = [];
  if (canUseIndex) {
    const expression = ftsExpression(query.candidates);
    if (expression === false) return '0';
    if (expression !== null) {
      const fts = resourceTables(b.plan.resourceId).fullText;
      parts.push(`"_id" IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${b.bind(expression)})`);
    }
  }
  if (target.kind === 'row') {
    parts.push(`${F.tsMatch}("_full_text", ${b.bind(query.text)})`);
  } else {
    parts.push(`${F.tsMatchValue}(${b.bind(query.config)}, ${quoteIdent(target.field.id)}, ${b.bind(valueTextType(match))}, ${b.bind(query.text)})`);
  }
  return parts.join(' AND ');
}

function rankSql(b: Builder, match: TextMatch): string {
  if (match.target.kind === 'row') return `${F.tsRank}("_full_text", ${b.bind(match.query.text)}, ${RANK_NORMALIZATION})`;
  return `${F.tsRankValue}(${b.bind(match.query.config)}, ${quoteIdent(match.target.field.id)}, ${b.bind(valueTextType(match))}, ${b.bind(match.query.text)}, ${RANK_NORMALIZATION})`;
}

function conditionSql(b: Builder, condition: Condition): string {
  switch (condition.kind) {
    case 'equals':
      return `${quoteIdent(condition.field.id)} = ${b.bind(condition.value)}`;
    case 'is-null':
      return `${quoteIdent(condition.field.id)} IS NULL`;
    case 'in':
      // One JSON parameter whatever the list's length, so the statement text (and its cache entry) is shared.
      return `${quoteIdent(condition.field.id)} IN (SELECT value FROM json_each(${b.bind(JSON.stringify(condition.values))}))`;
    case 'text-match':
      return textMatchSql(b, condition.match);
    case 'and':
      return condition.of.map((c) => `(${conditionSql(b, c)})`).join(' AND ');
    case 'or':
      return condition.of.map((c) => `(${conditionSql(b, c)})`).join(' OR ');
    case 'never':
      return '0';
  }
}

function columnSql(b: Builder, column: OutputColumn): string {
  return column.kind === 'field' ? quoteIdent(column.field.id) : rankSql(b, column.match);
}

function orderSql(b: Builder, key: SortKey): string {
  const expression = key.target.kind === 'field' ? quoteIdent(key.target.field.id) : rankSql(b, key.target.match);
  return `${expression}${key.descending ? ' DESC' : ''} NULLS ${key.nullsFirst ? 'FIRST' : 'LAST'}`;
}

function fromWhere(b: Builder): string {
  const table = resourceTables(b.plan.resourceId).data;
  return b.plan.where ? `FROM ${table} WHERE ${conditionSql(b, b.plan.where)}` : `FROM ${table}`;
}

export function compileSearch(plan: SearchPlan, options: SqliteCompileOptions): CompiledQuery {
  const b = new Builder(plan, options);
  const select = plan.columns.map((c) => columnSql(b, c));
  const from = fromWhere(b);
  const order = plan.orderBy.map((k) => orderSql(b, k));
  let sql: string;
  if (plan.distinct) {
    // GROUP BY gives DISTINCT's rows and lets ties be ordered by first appearance, so pages are stable.
    const groupBy = select.length > 0 ? ` GROUP BY ${plan.columns.map((_, i) => i + 1).join(', ')}` : '';
    sql = `SELECT ${select.join(', ') || 'NULL'} ${from}${groupBy} ORDER BY ${[...order, 'min("_id")'].join(', ')}`;
  } else {
    const sortsById = plan.orderBy.some((k) => k.target.kind === 'field' && k.target.field.id === '_id');
    sql = `SELECT ${select.join(', ') || 'NULL'} ${from} ORDER BY ${[...order, ...(sortsById ? [] : ['"_id"'])].join(', ')}`;
  }
  sql += ` LIMIT ${b.bind(plan.limit)} OFFSET ${b.bind(plan.offset)}`;
  return { sql, params: b.params };
}

export function compileCount(plan: SearchPlan, options: SqliteCompileOptions): CompiledQuery {
  const b = new Builder(plan, options);
  if (plan.distinct) {
    const select = plan.columns.map((c) => columnSql(b, c));
    const from = fromWhere(b);
    return { sql: `SELECT count(*) FROM (SELECT DISTINCT ${select.join(', ') || 'NULL'} ${from})`, params: b.params };
  }
  return { sql: `SELECT count(*) ${fromWhere(b)}`, params: b.params };
}
