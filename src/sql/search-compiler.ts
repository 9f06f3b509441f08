// The search compiler shared by every dialect: how a plan becomes a page query and a count query. Dialects supply
// the small hooks that differ (placeholders, quoting, table names, IN lists, full-text matching and ranking,
// sort expressions), in the manner of Kysely's query compilers.

import {
  type AfterSeek,
  type ComparisonOperator,
  type Condition,
  type OutputColumn,
  type PlanField,
  type SearchPlan,
  type SortKey,
  type TextMatch,
  type ValueCountPlan,
} from '../query/plan.js';
import type { CompiledQuery } from '../dialect/compiled.js';
import type { SqlCompiler } from '../dialect/compiler.js';

export type SqlParam = CompiledQuery['params'][number];

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

/**
 * Which statement of a plan a row guard is for: its page (bounded by the page's limit and offset), its count, or the
 * counts of a field's values in its records (both of which read every record the plan's conditions select).
 */
export type GuardedStatement = 'page' | 'count' | 'values';

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
  /**
   * A field as IS NULL tests it, where its index holds another expression that is empty exactly where the field is
   * (the embedded store's integer keys of dates and timestamps); absent, the column itself.
   */
  nullTest?(field: PlanField): string;
  /** A value a filter compares with a field, as the field's key expression holds it; absent, the value is bound as it is. */
  keyValue?(params: ParamList, field: PlanField, value: string | number): string;
  /**
   * A numeric field's value with every digit, where the store keeps its exact text apart from the column filters and
   * sorts use (the embedded store); absent, the column is the value (PostgreSQL's numeric).
   */
  exactValue?(fieldId: string): string;
  /** Booleans as the dialect binds them. */
  bindBoolean(params: ParamList, value: boolean): string;
  /**
   * A condition evaluated on every row a statement visits that stops the statement once its time is up (the embedded
   * store's deadline function); null when this plan does not need one.
   */
  rowGuard?(plan: SearchPlan, statement: GuardedStatement): string | null;
  /**
   * Find the page's `_id`s first, then fetch their records (and compute their ranks) by `_id`: a store whose sorter
   * would otherwise carry every candidate's record text, and rank every candidate, does only the page's worth. A
   * function says it of each plan.
   */
  pageThenFetch?: boolean | ((plan: SearchPlan) => boolean);
  /**
   * Whether the store keeps an index in this page's whole order, so that each of the plan's `afterSeeks` is one stretch
   * of it: the page is then the first records of each, merged, each found by a seek (see afterSeeks in keyset.ts).
   */
  seeksAfterRecord?(plan: SearchPlan): boolean;
  /**
   * The `_id` that breaks a sort's ties, as ORDER BY writes it; absent, `_id` itself. A store may write it so that no
   * index holds the whole order (see the PostgreSQL compiler), which keeps its planner from walking one.
   */
  tieBreak?(plan: SearchPlan): string;
  /**
   * An `_id` ordering the store cannot satisfy by walking its table in order. Given, a page in `_id` order with a
   * range on an indexed field finds its candidates in that field's index and sorts them, instead of walking the whole
   * table in `_id` order in search of a few (which SQLite's planner does, its statistics being too coarse to see
   * that a range is selective).
   */
  unwalkedIdOrder?(id: string): string;
  /**
   * A whole record as one line of delimited text, rendered in the database as COPY writes it (see SearchPlan's
   * `delimitedLines`): one value per row to read. Absent, records are read as values and rendered by the writers.
   */
  delimitedLine?(fields: readonly PlanField[], lines: NonNullable<SearchPlan['delimitedLines']>): string;
  /**
   * A record as its compact JSON text, rendered in the database as the writers render it (see SearchPlan's
   * `jsonRecords`). Given, the compiler says it renders JSON records (`rendersJsonRecords`) and plans may ask for them.
   */
  jsonRecord?(fields: readonly PlanField[], json: NonNullable<SearchPlan['jsonRecords']>): string;
}

/** Whether a condition holds a range on an indexed field other than `_id`, outside any bound on `_id` itself. */
function rangeOnIndex(condition: Condition | null): boolean {
  if (!condition) return false;
  switch (condition.kind) {
    case 'compare':
      return condition.field.id !== '_id' && condition.field.indexed === true;
    case 'and':
    case 'or':
      return condition.of.some(rangeOnIndex);
    default:
      return false;
  }
}

/** Whether a condition bounds `_id` (a keyset page, a deep page): then a walk of the table from there is the way. */
function boundsId(condition: Condition | null): boolean {
  if (!condition) return false;
  switch (condition.kind) {
    case 'compare':
      return condition.field.id === '_id';
    case 'id-range':
      return true;
    case 'and':
      return condition.of.some(boundsId);
    default:
      return false;
  }
}

const COMPARISONS: Record<ComparisonOperator, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

function conditionSql(h: SearchDialectHooks, p: ParamList, plan: SearchPlan, condition: Condition): string {
  switch (condition.kind) {
    case 'equals':
    case 'compare': {
      const value = condition.value;
      const operator = condition.kind === 'equals' ? '=' : COMPARISONS[condition.operator];
      // The key expression is the one the field's index is built on, so that ranges as well as equality can use it.
      const bound =
        typeof value === 'boolean'
          ? h.bindBoolean(p, value)
          : h.keyValue
            ? h.keyValue(p, condition.field, value)
            : p.bind(value);
      return `${h.keyExpression(condition.field)} ${operator} ${bound}`;
    }
    case 'is-null':
      return `${h.nullTest?.(condition.field) ?? h.quoteIdent(condition.field.id)} IS NULL`;
    case 'not-null':
      return `${h.nullTest?.(condition.field) ?? h.quoteIdent(condition.field.id)} IS NOT NULL`;
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
  if (column.kind !== 'field') return h.rank(p, column.match);
  const { id, type } = column.field;
  return type === 'numeric' && h.exactValue ? h.exactValue(id) : h.quoteIdent(id);
}

/** Whether a sort key is `_id`'s. */
export function isIdKey(key: SortKey | undefined): boolean {
  return key?.target.kind === 'field' && key.target.field.id === '_id';
}

/**
 * The field a plan is sorted by, when it is one field other than `_id`, then at most `_id` ascending: the order of that
 * field's sort index (see src/catalog/indexes.ts), and, ascending, of SQLite's own index on it. Null for any other order.
 */
export function sortedByOneField(plan: SearchPlan): { field: PlanField; descending: boolean } | null {
  const [first, second, ...rest] = plan.orderBy;
  if (!first || first.target.kind !== 'field' || isIdKey(first) || rest.length > 0) return null;
  if (second && (!isIdKey(second) || second.descending)) return null;
  return { field: first.target.field, descending: first.descending };
}

function orderSql(h: SearchDialectHooks, p: ParamList, key: SortKey): string {
  const expression = key.target.kind === 'field' ? h.keyExpression(key.target.field) : h.rank(p, key.target.match);
  // Where there are no nulls their placement does not matter; saying nothing lets a store walk an index in order.
  const mayBeNull = key.target.kind === 'field' && key.target.field.nullable !== false;
  return `${expression}${key.descending ? ' DESC' : ''}${mayBeNull ? ` NULLS ${key.nullsFirst ? 'FIRST' : 'LAST'}` : ''}`;
}

/** Marks a statement that carries the dialect's row guard, so the store may stop it part way. */
function interruptible(
  h: SearchDialectHooks,
  plan: SearchPlan,
  statement: GuardedStatement = 'page',
): { interruptible?: true } {
  return h.rowGuard?.(plan, statement) ? { interruptible: true } : {};
}

function fromWhere(
  h: SearchDialectHooks,
  p: ParamList,
  plan: SearchPlan,
  statement: GuardedStatement = 'page',
  condition: Condition | null = plan.where,
): string {
  const table = h.table(plan.resourceId);
  const guard = h.rowGuard?.(plan, statement) ?? null;
  const where = condition ? conditionSql(h, p, plan, condition) : null;
  if (where && guard) return `FROM ${table} WHERE (${where}) AND ${guard}`;
  return where || guard ? `FROM ${table} WHERE ${where ?? guard}` : `FROM ${table}`;
}

/**
 * Above this many rows a result is not a page but most of the candidates (a dump, a large export): fetching them by
 * _id afterwards would sort them twice.
 */
const PAGE_THEN_FETCH_MAX_ROWS = 1000;

export function compileSearchWith(h: SearchDialectHooks, plan: SearchPlan): CompiledQuery {
  const p = new ParamList(h.placeholder);
  // A whole record as its line or JSON, where the store renders it; otherwise the values, which the writers render.
  const fields = () => plan.columns.flatMap((c) => (c.kind === 'field' ? [c.field] : []));
  const select =
    plan.delimitedLines && h.delimitedLine
      ? [h.delimitedLine(fields(), plan.delimitedLines)]
      : plan.jsonRecords && h.jsonRecord
        ? [h.jsonRecord(fields(), plan.jsonRecords)]
        : plan.columns.map((c) => columnSql(h, p, c));
  // The keyset's values come last in each row, after whatever the writers read.
  const keyColumns = plan.distinct || !plan.keyset ? [] : plan.keyset.map((k) => h.quoteIdent(k.field.id));
  const selectList = [...select, ...keyColumns].join(', ') || 'NULL';
  const seeks = plan.afterSeeks && plan.limit <= PAGE_THEN_FETCH_MAX_ROWS && h.seeksAfterRecord?.(plan);
  if (seeks) return compileSeekPage(h, p, plan, plan.afterSeeks!, selectList);
  const from = fromWhere(h, p, plan);
  let sql: string;
  if (plan.distinct) {
    // GROUP BY gives DISTINCT's rows and lets them be ordered by first appearance, so pages are stable. A rank is
    // ordered by its position in the select list: written out again, its query would be another parameter, which
    // PostgreSQL cannot match with the grouped expression.
    const groupBy = select.length > 0 ? ` GROUP BY ${plan.columns.map((_, i) => i + 1).join(', ')}` : '';
    const order = plan.orderBy.map((key) => {
      if (key.target.kind !== 'rank') return orderSql(h, p, key);
      const { match } = key.target;
      const position = plan.columns.findIndex((c) => c.kind === 'rank' && c.match === match) + 1;
      return `${position}${key.descending ? ' DESC' : ''}`;
    });
    sql = `SELECT ${selectList} ${from}${groupBy} ORDER BY ${[...order, `min(${h.quoteIdent('_id')})`].join(', ')}`;
  } else {
    const tieBreak = h.tieBreak?.(plan);
    // `_id` after another key breaks its ties, written as the store wants them broken.
    const orderOf = (k: SortKey, i: number) =>
      tieBreak && i > 0 && isIdKey(k) ? `${tieBreak}${k.descending ? ' DESC' : ''}` : orderSql(h, p, k);
    const order = plan.orderBy.map(orderOf);
    const sortsById = plan.orderBy.some(isIdKey);
    const byId = sortsById ? [] : [tieBreak ?? h.quoteIdent('_id')];
    const idOrderOnly = plan.orderBy.every(isIdKey);
    if (
      h.unwalkedIdOrder &&
      idOrderOnly &&
      plan.limit <= PAGE_THEN_FETCH_MAX_ROWS &&
      rangeOnIndex(plan.where) &&
      !boundsId(plan.where)
    ) {
      const id = h.quoteIdent('_id');
      const direction = plan.orderBy[0]?.descending ? ' DESC' : '';
      const page = `SELECT ${id} ${from} ORDER BY ${h.unwalkedIdOrder(id)}${direction} LIMIT ${p.bind(plan.limit)} OFFSET ${p.bind(plan.offset)}`;
      return {
        sql: `SELECT ${selectList} FROM ${h.table(plan.resourceId)} WHERE ${id} IN (${page}) ORDER BY ${id}${direction}`,
        params: p.values,
        ...interruptible(h, plan),
      };
    }
    const pageFirst = typeof h.pageThenFetch === 'function' ? h.pageThenFetch(plan) : h.pageThenFetch === true;
    if (pageFirst && plan.limit <= PAGE_THEN_FETCH_MAX_ROWS && !idOrderOnly) {
      // Parameters bind in the order they appear: the select list's, the page's, then the outer order's.
      const id = h.quoteIdent('_id');
      const page = `SELECT ${id} ${from} ORDER BY ${[...order, ...byId].join(', ')} LIMIT ${p.bind(plan.limit)} OFFSET ${p.bind(plan.offset)}`;
      const outerOrder = plan.orderBy.map(orderOf);
      return {
        sql: `SELECT ${selectList} FROM ${h.table(plan.resourceId)} WHERE ${id} IN (${page}) ORDER BY ${[...outerOrder, ...byId].join(', ')}`,
        params: p.values,
        ...interruptible(h, plan),
      };
    }
    sql = `SELECT ${selectList} ${from} ORDER BY ${[...order, ...byId].join(', ')}`;
  }
  sql += ` LIMIT ${p.bind(plan.limit)} OFFSET ${p.bind(plan.offset)}`;
  return { sql, params: p.values, ...interruptible(h, plan) };
}

/**
 * A page after a record, its `_id`s found by a seek to the start of each of its stretches of the index in the page's
 * order (the first records of each, the page's worth, merged in that order), then its records fetched by `_id`.
 */
function compileSeekPage(
  h: SearchDialectHooks,
  p: ParamList,
  plan: SearchPlan,
  seeks: readonly AfterSeek[],
  selectList: string,
): CompiledQuery {
  const id = h.quoteIdent('_id');
  const sortFields = plan.orderBy.flatMap((k) => (k.target.kind === 'field' && !isIdKey(k) ? [k.target.field] : []));
  const columns = [id, ...sortFields.map((f) => h.quoteIdent(f.id))].join(', ');
  // `_id` is never empty: no placement of empty cells, whatever the resource's fields say of it.
  const orderOf = (keys: readonly SortKey[]) =>
    [
      ...keys.map((k) => (isIdKey(k) ? `${id}${k.descending ? ' DESC' : ''}` : orderSql(h, p, k))),
      ...(keys.some(isIdKey) ? [] : [id]),
    ].join(', ');
  // The merge sorts by the column names each stretch's select passes on as they are.
  const order = orderOf(plan.orderBy);
  const stretches = seeks.map(
    (seek, i) =>
      `SELECT * FROM (SELECT ${columns} ${fromWhere(h, p, plan, 'page', seek.where)} ORDER BY ${orderOf(seek.orderBy)} LIMIT ${p.bind(plan.limit + plan.offset)}) AS seek${i}`,
  );
  const page = `SELECT ${id} FROM (${stretches.join(' UNION ALL ')}) AS seeks ORDER BY ${order} LIMIT ${p.bind(plan.limit)} OFFSET ${p.bind(plan.offset)}`;
  return {
    sql: `SELECT ${selectList} FROM ${h.table(plan.resourceId)} WHERE ${id} IN (${page}) ORDER BY ${order}`,
    params: p.values,
    ...interruptible(h, plan),
  };
}

/**
 * The keys of every `every`th record of a plan's records in its order (the `every`th, the 2·`every`th, …), in that
 * order: one walk of the order, after which a deep page starts from the mark before its offset instead of stepping over
 * every record before it (src/actions/offset-marks.ts). `keys` are the order's keyset keys; each row holds their values.
 */
export function compileOffsetMarksWith(
  h: SearchDialectHooks,
  plan: SearchPlan,
  keys: readonly { field: PlanField }[],
  every: number,
): CompiledQuery {
  const p = new ParamList(h.placeholder);
  // Named by position: a sort may name a field twice, and the keys repeat it.
  const aliases = keys.map((_, i) => `cc_key${i}`);
  const values = keys.map((k, i) => `${h.quoteIdent(k.field.id)} AS ${aliases[i]}`);
  const order = plan.orderBy.map((key) => orderSql(h, p, key));
  if (!plan.orderBy.some(isIdKey)) order.push(h.quoteIdent('_id'));
  const from = fromWhere(h, p, plan, 'count');
  const numbered = `SELECT ${values.join(', ')}, row_number() OVER (ORDER BY ${order.join(', ')}) AS cc_position ${from}`;
  return {
    sql: `SELECT ${aliases.join(', ')} FROM (${numbered}) AS numbered WHERE cc_position % ${p.bind(every)} = 0 ORDER BY cc_position`,
    params: p.values,
    ...interruptible(h, plan, 'count'),
  };
}

export function compileCountWith(h: SearchDialectHooks, plan: SearchPlan): CompiledQuery {
  const p = new ParamList(h.placeholder);
  if (plan.distinct) {
    const select = plan.columns.map((c) => columnSql(h, p, c));
    const from = fromWhere(h, p, plan, 'count');
    return {
      sql: `SELECT count(*) FROM (SELECT DISTINCT ${select.join(', ') || 'NULL'} ${from}) AS counted`,
      params: p.values,
      ...interruptible(h, plan, 'count'),
    };
  }
  return {
    sql: `SELECT count(*) ${fromWhere(h, p, plan, 'count')}`,
    params: p.values,
    ...interruptible(h, plan, 'count'),
  };
}

/**
 * Each value of a field in the view's records and how many hold it, in one grouped statement: the most frequent first,
 * ties in the field's sort order (nulls last, as both stores then agree), at most the plan's limit.
 */
export function compileValueCountsWith(h: SearchDialectHooks, plan: ValueCountPlan): CompiledQuery {
  const p = new ParamList(h.placeholder);
  const column = h.quoteIdent(plan.field.id);
  const from = fromWhere(h, p, plan.view, 'values');
  const sql = `SELECT ${column}, count(*) ${from} GROUP BY ${column} ORDER BY count(*) DESC, ${h.keyExpression(plan.field)} NULLS LAST LIMIT ${p.bind(plan.limit)}`;
  return { sql, params: p.values, ...interruptible(h, plan.view, 'values') };
}

/**
 * `_id` and stored columns of a resource's records, in `_id` order, `limit` at a time: the first batch (afterId null),
 * then each after the last `_id` of the one before.
 */
export function compileColumnsWith(
  h: SearchDialectHooks,
  resourceId: string,
  columns: readonly string[],
  afterId: number | null,
  limit: number,
  numeric: ReadonlySet<string> = new Set(),
): CompiledQuery {
  const p = new ParamList(h.placeholder);
  const id = h.quoteIdent('_id');
  const where = afterId === null ? '' : ` WHERE ${id} > ${p.bind(afterId)}`;
  const value = (c: string) => (numeric.has(c) && h.exactValue ? h.exactValue(c) : h.quoteIdent(c));
  const select = [id, ...columns.map(value)].join(', ');
  return {
    sql: `SELECT ${select} FROM ${h.table(resourceId)}${where} ORDER BY ${id} LIMIT ${p.bind(limit)}`,
    params: p.values,
  };
}

/**
 * A dialect's compiler for one store version, in the shape every action reads it (SqlCompiler): the dialect's hooks,
 * made once, and the one way that dialect runs user SQL.
 */
export function compilerOf(h: SearchDialectHooks, compileUserSql: SqlCompiler['compileUserSql']): SqlCompiler {
  return {
    compileSearch: (plan) => compileSearchWith(h, plan),
    compileCount: (plan) => compileCountWith(h, plan),
    compileOffsetMarks: (plan, keys, every) => compileOffsetMarksWith(h, plan, keys, every),
    compileValueCounts: (plan) => compileValueCountsWith(h, plan),
    compileColumns: (resourceId, columns, afterId, limit, numeric) =>
      compileColumnsWith(h, resourceId, columns, afterId, limit, numeric),
    compileUserSql,
    rendersJsonRecords: h.jsonRecord !== undefined,
  };
}
