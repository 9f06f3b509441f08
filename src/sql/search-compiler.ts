// The search compiler shared by every dialect: how a plan becomes a page query and a count query. Dialects supply
// the small hooks that differ (placeholders, quoting, table names, IN lists, full-text matching and ranking,
// sort expressions), in the manner of Kysely's query compilers.

import type { Condition, OutputColumn, PlanField, SearchPlan, SortKey, TextMatch } from '../query/plan.js';
import type { CompiledQuery } from './compiled.js';

export type SqlParam = CompiledQuery['params'][number];

/** CKAN ranks with ts_rank(…, 32): rank / (rank + 1). */
export const RANK_NORMALIZATION = 32;

/** The column where both stores keep each record's JSON object text, rendered at load time. */
export const RECORD_COLUMN = '_record';
/** The column in which stores keep each record's CSV line (COPY's quoting, ending in "\n"), rendered at load time. */
export const CSV_LINE_COLUMN = '_csv';

/** Collects parameters in order; each dialect decides what a placeholder looks like. */
export class ParamList {
  readonly values: SqlParam[] = [];
  constructor(private readonly placeholder: (position: number) => string) {}

  bind(value: string | number | null): string {
    this.values.push(value);
    return this.placeholder(this.values.length);
  }

  /** A value the dialect has already encoded (an array literal, a JSON list). */
  bindRaw(value: SqlParam): string {
    this.values.push(value);
    return this.placeholder(this.values.length);
  }
}

export interface SearchDialectHooks {
  placeholder(position: number): string;
  quoteIdent(name: string): string;
  table(resourceId: string): string;
  /** A field's value tested against a list, bound as one parameter whatever its length. */
  inList(params: ParamList, field: PlanField, values: readonly (string | number | boolean)[]): string;
  textMatch(params: ParamList, plan: SearchPlan, match: TextMatch): string;
  rank(params: ParamList, match: TextMatch): string;
  /**
   * A field as filters compare it and ORDER BY sorts it: text by code point (CKAN's C collation). The store's indexes
   * are built on the same expression, so that filters and sorts can use them.
   */
  keyExpression(field: PlanField): string;
  /** Booleans as the dialect binds them. */
  bindBoolean(params: ParamList, value: boolean): string;
  /**
   * Find the page's `_id`s first, then fetch their records (and compute their ranks) by `_id`: a store whose sorter
   * would otherwise carry every candidate's record text, and rank every candidate, does only the page's worth.
   */
  pageThenFetch?: boolean;
}

function conditionSql(h: SearchDialectHooks, p: ParamList, plan: SearchPlan, condition: Condition): string {
  switch (condition.kind) {
    case 'equals': {
      const value = condition.value;
      return `${h.keyExpression(condition.field)} = ${typeof value === 'boolean' ? h.bindBoolean(p, value) : p.bind(value)}`;
    }
    case 'is-null':
      return `${h.quoteIdent(condition.field.id)} IS NULL`;
    case 'id-range': {
      const bounds: string[] = [];
      if (condition.after !== undefined) bounds.push(`${h.quoteIdent('_id')} > ${p.bind(condition.after)}`);
      if (condition.atMost !== undefined) bounds.push(`${h.quoteIdent('_id')} <= ${p.bind(condition.atMost)}`);
      return bounds.join(' AND ') || '1 = 1';
    }
    case 'in':
      return h.inList(p, condition.field, condition.values);
    case 'text-match':
      return h.textMatch(p, plan, condition.match);
    case 'and':
      return condition.of.map((c) => `(${conditionSql(h, p, plan, c)})`).join(' AND ');
    case 'or':
      return condition.of.map((c) => `(${conditionSql(h, p, plan, c)})`).join(' OR ');
    case 'never':
      return '1 = 0';
  }
}

function columnSql(h: SearchDialectHooks, p: ParamList, column: OutputColumn): string {
  return column.kind === 'field' ? h.quoteIdent(column.field.id) : h.rank(p, column.match);
}

function orderSql(h: SearchDialectHooks, p: ParamList, key: SortKey): string {
  const expression = key.target.kind === 'field' ? h.keyExpression(key.target.field) : h.rank(p, key.target.match);
  // Where there are no nulls their placement does not matter; saying nothing lets a store walk an index in order.
  const mayBeNull = key.target.kind === 'field' && key.target.field.nullable !== false;
  return `${expression}${key.descending ? ' DESC' : ''}${mayBeNull ? ` NULLS ${key.nullsFirst ? 'FIRST' : 'LAST'}` : ''}`;
}

function fromWhere(h: SearchDialectHooks, p: ParamList, plan: SearchPlan): string {
  const table = h.table(plan.resourceId);
  return plan.where ? `FROM ${table} WHERE ${conditionSql(h, p, plan, plan.where)}` : `FROM ${table}`;
}

/**
 * Above this many rows a result is not a page but most of the candidates (a dump, a large export): fetching them by
 * _id afterwards would sort them twice.
 */
const PAGE_THEN_FETCH_MAX_ROWS = 1000;

export function compileSearchWith(h: SearchDialectHooks, plan: SearchPlan): CompiledQuery {
  const p = new ParamList(h.placeholder);
  // Whole records come as their stored JSON text (then any ranks) or CSV line: one value per row, not one per field.
  const select = plan.wholeRecords
    ? [h.quoteIdent(RECORD_COLUMN), ...plan.columns.filter((c) => c.kind === 'rank').map((c) => columnSql(h, p, c))]
    : plan.csvLines ? [h.quoteIdent(CSV_LINE_COLUMN)] : plan.columns.map((c) => columnSql(h, p, c));
  const selectList = select.join(', ') || 'NULL';
  const from = fromWhere(h, p, plan);
  const order = plan.orderBy.map((k) => orderSql(h, p, k));
  let sql: string;
  if (plan.distinct) {
    // GROUP BY gives DISTINCT's rows and lets them be ordered by first appearance, so pages are stable.
    const groupBy = select.length > 0 ? ` GROUP BY ${plan.columns.map((_, i) => i + 1).join(', ')}` : '';
    sql = `SELECT ${selectList} ${from}${groupBy} ORDER BY ${[...order, `min(${h.quoteIdent('_id')})`].join(', ')}`;
  } else {
    const sortsById = plan.orderBy.some((k) => k.target.kind === 'field' && k.target.field.id === '_id');
    const byId = sortsById ? [] : [h.quoteIdent('_id')];
    if (h.pageThenFetch && plan.limit <= PAGE_THEN_FETCH_MAX_ROWS && !plan.orderBy.every((k) => k.target.kind === 'field' && k.target.field.id === '_id')) {
      // Parameters bind in the order they appear: the select list's, the page's, then the outer order's.
      const id = h.quoteIdent('_id');
      const page = `SELECT ${id} ${from} ORDER BY ${[...order, ...byId].join(', ')} LIMIT ${p.bind(plan.limit)} OFFSET ${p.bind(plan.offset)}`;
      const outerOrder = plan.orderBy.map((k) => orderSql(h, p, k));
      return { sql: `SELECT ${selectList} FROM ${h.table(plan.resourceId)} WHERE ${id} IN (${page}) ORDER BY ${[...outerOrder, ...byId].join(', ')}`, params: p.values };
    }
    sql = `SELECT ${selectList} ${from} ORDER BY ${[...order, ...byId].join(', ')}`;
  }
  sql += ` LIMIT ${p.bind(plan.limit)} OFFSET ${p.bind(plan.offset)}`;
  return { sql, params: p.values };
}

export function compileCountWith(h: SearchDialectHooks, plan: SearchPlan): CompiledQuery {
  const p = new ParamList(h.placeholder);
  if (plan.distinct) {
    const select = plan.columns.map((c) => columnSql(h, p, c));
    const from = fromWhere(h, p, plan);
    return { sql: `SELECT count(*) FROM (SELECT DISTINCT ${select.join(', ') || 'NULL'} ${from}) AS counted`, params: p.values };
  }
  return { sql: `SELECT count(*) ${fromWhere(h, p, plan)}`, params: p.values };
}
