// Translation of SELECT statements: WITH, FROM (resources, subqueries, CTEs, joins), WHERE, GROUP BY and
// HAVING with PostgreSQL's grouping rules, select lists, DISTINCT [ON], set operations, ORDER BY and LIMIT.
// Every resource is read through the store's deadline filter, and every name in the output is generated here.

import type {
  Alias,
  JoinExpr,
  Node,
  RangeSubselect,
  RangeVar,
  ResTarget,
  SelectStmt,
  SortBy,
  WithClause,
} from 'libpg-query';
import { sparseDeadlineSql } from '../../dialect/sqlite/functions.js';
import { quoteIdent } from '../../dialect/sqlite/quote.js';
import { exactValueSql, rowTsvectorSql, temporalKeySql } from '../../dialect/sqlite/ddl.js';
import type { FieldType } from '../../catalog/types.js';
import { nodeKind, stringsOf, stringValue } from './ast.js';
import { coerce, compareEx, ex, keyOf, requireBool, unify, type Ex } from './typed-expression.js';
import {
  columnExpr,
  isGroupedColumn,
  orderTerm,
  translateExpr,
  type ExprEnv,
  type Subquery,
  type SubqueryColumn,
  type Translation,
} from './translate-expression.js';
import { CKAN_MESSAGES, forbidden, readOnlyRefusal, SqlFailure, unsupported } from './failure.js';
import type { PgType } from './pg-types.js';
import {
  columnDisplay,
  Scope,
  type Column,
  type CteDef,
  type FromItem,
  type Grouping,
  type RangeEntry,
} from './scope.js';

export interface SqlResourceInfo {
  id: string;
  fields: readonly { id: string; type: string }[];
  /** Numeric fields the store keeps exact texts of beside their doubles (read through exactValueSql). */
  exactFields?: readonly string[];
  /** The language of the rows' `_full_text`, which the embedded store works out from their values when read. */
  fullTextLanguage: string;
}

export type ResourceLookup = (id: string) => SqlResourceInfo | undefined;

/** A column a FROM item gives; a table's may be read from other columns (`column`, `nativeColumn`). */
interface BaseColumn {
  name: string;
  type: PgType;
  native: boolean;
  length: number | null;
  column?: string;
  nativeColumn?: string;
  /** Read as an expression of the table's columns (qualified by the table's name in the statement), not a column. */
  expression?: (table: string) => string;
  /**
   * A resource's date or timestamp, whose index is keyed on an integer (Column.timeKey), or a subquery's column that is
   * one as it is.
   */
  timeKeyed?: true;
}

/** A catalogue field type as the PostgreSQL type of its column (`_id` is int4, `_full_text` tsvector). */
const FIELD_TYPES: Record<string, PgType> = {
  int: 'int4',
  int4: 'int4',
  int8: 'int8',
  int2: 'int2',
  numeric: 'numeric',
  float8: 'float8',
  float4: 'float4',
  text: 'text',
  bool: 'bool',
  date: 'date',
  timestamp: 'timestamp',
  tsvector: 'tsvector',
  varchar: 'varchar',
};

interface OutputColumn {
  name: string;
  ex: Ex;
}

interface OrderItem {
  key: Ex;
  sort: SortBy;
}

/** A translated query level, written out on demand with the output names and types its user needs. */
interface Analyzed {
  columns: OutputColumn[];
  /** Exactly one row whatever the data (an aggregate without GROUP BY, HAVING, LIMIT or OFFSET). */
  oneRow: boolean;
  /** Whether the SQL can stand as an arm of a compound SELECT (no WITH, ORDER BY, LIMIT or OFFSET). */
  plain: boolean;
  /** For a set operation without WITH, ORDER BY or LIMIT: its arms as a flat compound, columns c1… of these types. */
  compound?: (types: readonly PgType[]) => string;
  /** Terms of that compound. */
  terms?: number;
  emit(aliases: readonly string[], types?: readonly PgType[], cap?: number): string;
}

/** PostgreSQL's MaxTupleAttributeNumber (SQLite's column limit is 2000). */
const MAX_TARGETS = 1664;

/** SQLite's SQLITE_MAX_COMPOUND_SELECT. */
const MAX_COMPOUND_TERMS = 500;

function q(name: string): string {
  return quoteIdent(name);
}

function internalNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `c${i + 1}`);
}

function limitClause(limit: bigint | null, offset: bigint | null, cap: number | undefined): string {
  let effective = limit;
  if (cap !== undefined && (effective === null || effective > BigInt(cap))) effective = BigInt(cap);
  if (effective === null && offset === null) return '';
  return ` LIMIT ${effective === null ? -1 : effective}${offset !== null && offset > 0n ? ` OFFSET ${offset}` : ''}`;
}

/** Refers to no column and holds no aggregate, window function or subquery: the same value on every row. */
function isConstant(e: Ex): boolean {
  return !e.local && !e.outer && !e.agg && !e.win;
}

/**
 * A GROUP BY key. SQLite reads an integer constant there as a column number, and folds constant expressions
 * (`1 IS NULL`) into one: a constant key is written as a BLOB, which keeps PostgreSQL's grouping (no rows, no
 * group).
 */
function groupTerm(e: Ex): string {
  return isConstant(e) ? `CAST(${keyOf(e)} AS BLOB)` : keyOf(e);
}

interface OuterReference {
  column: Column;
  scope: Scope;
}

export class StatementTranslator implements Translation {
  readonly resources = new Set<string>();
  readonly defaultTextSearchConfig = 'english';
  private counter = 0;
  /**
   * Subqueries already translated, by parse-tree node. A grouped query's expressions are translated twice (once
   * to find the groups, once to check them), and without this a subquery nested in such expressions, k deep,
   * would be translated 2^k times.
   */
  private readonly translated = new Map<SelectStmt, { result: Subquery; outer: OuterReference[] }>();
  /** Outer references seen by the subqueries being translated, innermost last. */
  private readonly collectors: OuterReference[][] = [];

  constructor(private readonly lookup: ResourceLookup) {}

  private nextName(prefix: string): string {
    return `${prefix}${++this.counter}`;
  }

  /** The whole statement: output columns with PostgreSQL's names, at most `cap` rows. */
  top(stmt: SelectStmt, cap: number): { sql: string; columns: { id: string; type: PgType }[] } {
    const analyzed = this.analyze(stmt, null);
    // PostgreSQL answers rows without columns; SQLite cannot (inside EXISTS it does not matter).
    if (analyzed.columns.length === 0) throw unsupported('a SELECT without columns');
    const columns = analyzed.columns.map((c) => ({
      id: c.name,
      type: c.ex.type === 'unknown' ? ('text' as PgType) : c.ex.type,
    }));
    const sql = analyzed.emit(
      analyzed.columns.map((c) => c.name),
      columns.map((c) => c.type),
      cap,
    );
    return { sql, columns };
  }

  subquery(stmt: SelectStmt, parent: Scope): Subquery {
    const known = this.translated.get(stmt);
    if (known) {
      // Reused as translated; only the grouping of the enclosing queries may have changed since.
      for (const ref of known.outer) {
        if (ref.scope.activeGrouping && !isGroupedColumn(ref.column, ref.scope.activeGrouping)) {
          throw new SqlFailure(`subquery uses ungrouped column "${columnDisplay(ref.column)}" from outer query`);
        }
        this.noteOuterReference(ref.column, ref.scope);
      }
      return known.result;
    }
    const outer: OuterReference[] = [];
    this.collectors.push(outer);
    let result: Subquery;
    try {
      const analyzed = this.analyze(stmt, parent);
      const types = analyzed.columns.map((c) => (c.ex.type === 'unknown' ? 'text' : c.ex.type));
      const sql = analyzed.emit(internalNames(analyzed.columns.length), types);
      result = { sql, columns: this.columnsOf(analyzed, types), oneRow: analyzed.oneRow };
    } finally {
      this.collectors.pop();
    }
    this.translated.set(stmt, { result, outer });
    for (const ref of outer) this.noteOuterReference(ref.column, ref.scope);
    return result;
  }

  noteOuterReference(column: Column, scope: Scope): void {
    this.collectors[this.collectors.length - 1]?.push({ column, scope });
  }

  private columnsOf(analyzed: Analyzed, types: readonly PgType[]): SubqueryColumn[] {
    return analyzed.columns.map((c, i) => {
      const type = types[i]!;
      return {
        name: c.name,
        type,
        native: type === c.ex.type ? c.ex.native : type !== 'numeric',
        length: c.ex.length,
        // SQLite flattens most subqueries, and then this column's key is the stored column's, which its index holds.
        ...(type === c.ex.type && c.ex.timeKey?.of === c.ex.sql ? { timeKeyed: true as const } : {}),
      };
    });
  }

  // -------------------------------------------------------------------------------------------------------
  // query levels

  private analyze(stmt: SelectStmt, parent: Scope | null): Analyzed {
    // The guard has refused these already; the translation never depends on it.
    if (stmt.intoClause) throw readOnlyRefusal('SELECT INTO');
    if (stmt.lockingClause?.length) throw readOnlyRefusal('SELECT … FOR UPDATE/SHARE');
    const scope = new Scope(parent);
    const withSql = stmt.withClause ? this.translateWith(stmt.withClause, scope) : '';
    if (stmt.op && stmt.op !== 'SETOP_NONE') return this.analyzeSetOp(stmt, scope, withSql);
    if (stmt.valuesLists?.length) return this.analyzeValues(stmt, scope, withSql);
    return this.analyzeSelect(stmt, scope, withSql);
  }

  private translateWith(w: WithClause, scope: Scope): string {
    if (w.recursive) throw unsupported('WITH RECURSIVE');
    const parts: string[] = [];
    for (const node of w.ctes ?? []) {
      const cte = (
        node as {
          CommonTableExpr: {
            ctename?: string;
            aliascolnames?: Node[];
            ctequery?: Node;
            search_clause?: unknown;
            cycle_clause?: unknown;
          };
        }
      ).CommonTableExpr;
      const name = cte.ctename ?? '';
      if (scope.ctes.has(name)) throw new SqlFailure(`WITH query name "${name}" specified more than once`);
      const query = cte.ctequery;
      if (nodeKind(query) !== 'SelectStmt') throw unsupported('data-modifying statements in WITH');
      const sub = this.subquery((query as { SelectStmt: SelectStmt }).SelectStmt, scope);
      const aliases = stringsOf(cte.aliascolnames);
      if (aliases.length > sub.columns.length) {
        throw new SqlFailure(
          `WITH query "${name}" has ${sub.columns.length} columns available but ${aliases.length} columns specified`,
        );
      }
      const sqlName = this.nextName('w');
      const def: CteDef = {
        name,
        sqlName,
        columns: sub.columns.map((c, i) => ({ ...c, name: aliases[i] ?? c.name })),
      };
      parts.push(`${q(sqlName)}(${internalNames(sub.columns.length).map(q).join(', ')}) AS (${sub.sql})`);
      scope.ctes.set(name, def);
    }
    return parts.length ? `WITH ${parts.join(', ')} ` : '';
  }

  private limits(stmt: SelectStmt, scope: Scope): { limit: bigint | null; offset: bigint | null } {
    if (stmt.limitOption === 'LIMIT_OPTION_WITH_TIES') throw unsupported('FETCH … WITH TIES');
    const value = (node: Node | undefined, what: 'LIMIT' | 'OFFSET'): bigint | null => {
      if (!node) return null;
      const env = this.env(new Scope(scope.parent, scope.ctes), what);
      const e = translateExpr(node, env);
      if (e.local || e.outer) throw new SqlFailure(`argument of ${what} must not contain variables`);
      const v = coerce(e, 'int8');
      if (v.konst?.kind === 'null') return null;
      if (v.konst?.kind !== 'value') throw unsupported(`a ${what} that is not an integer constant`);
      const n = BigInt(v.konst.value);
      if (n < 0n) throw new SqlFailure(`${what} must not be negative`);
      return n;
    };
    return { limit: value(stmt.limitCount, 'LIMIT'), offset: value(stmt.limitOffset, 'OFFSET') };
  }

  private env(scope: Scope, clause: string, extra: Partial<ExprEnv> = {}): ExprEnv {
    return { t: this, scope, clause, aggAllowed: false, winAllowed: false, inAgg: false, grouping: null, ...extra };
  }

  // -------------------------------------------------------------------------------------------------------
  // SELECT … FROM … WHERE … GROUP BY … HAVING … ORDER BY … LIMIT

  private analyzeSelect(stmt: SelectStmt, scope: Scope, withSql: string): Analyzed {
    if (stmt.windowClause?.length) throw unsupported('WINDOW clauses (named windows)');
    if (stmt.groupDistinct) throw unsupported('GROUP BY DISTINCT');
    const fromParts = (stmt.fromClause ?? []).map((node) => {
      const item = this.fromItem(node, scope);
      scope.addItem(item);
      return item.sql;
    });
    const where = stmt.whereClause
      ? requireBool(translateExpr(stmt.whereClause, this.env(scope, 'WHERE')), 'WHERE')
      : null;

    const selectEnv = (grouping: Grouping | null) =>
      this.env(scope, 'SELECT', { aggAllowed: true, winAllowed: true, grouping });
    const targetNodes = stmt.targetList ?? [];
    const analyzeTargets = (env: ExprEnv) => this.targets(targetNodes, env);
    let targets = analyzeTargets(selectEnv(null));

    // GROUP BY items: a column number, an input column, else an output column name, else an expression.
    const groupKeys: Ex[] = [];
    for (const node of stmt.groupClause ?? []) {
      const kind = nodeKind(node);
      if (kind === 'GroupingSet') throw unsupported('GROUPING SETS, ROLLUP and CUBE');
      groupKeys.push(this.groupOrOrderTarget(node, targets, scope, 'GROUP BY'));
    }
    for (const k of groupKeys) {
      if (k.agg) throw new SqlFailure('aggregate functions are not allowed in GROUP BY');
      if (k.win) throw new SqlFailure('window functions are not allowed in GROUP BY');
      if (k.type === 'tsvector' || k.type === 'tsquery')
        throw new SqlFailure(`could not identify an equality operator for type ${k.type}`);
    }
    const sortNodes = (stmt.sortClause ?? []).map((n) => (n as { SortBy: SortBy }).SortBy);
    const havingEnvBase = this.env(scope, 'HAVING', { aggAllowed: true });
    let having = stmt.havingClause ? translateExpr(stmt.havingClause, havingEnvBase) : null;
    let order = sortNodes.map((s) => ({
      key: this.groupOrOrderTarget(s.node!, targets, scope, 'ORDER BY', true),
      sort: s,
    }));

    const grouped =
      groupKeys.length > 0 || having !== null || targets.some((t) => t.ex.agg) || order.some((o) => o.key.agg);
    let grouping: Grouping | null = null;
    if (grouped) {
      grouping = { keys: new Set(groupKeys.map((k) => k.sql)), pkEntries: new Set() };
      for (const k of groupKeys) {
        for (const entry of scope.entries)
          if (entry.primaryKey && entry.primaryKey.sql === k.sql) grouping.pkEntries.add(entry);
      }
      // Second pass with the keys known: every column outside an aggregate must be grouped.
      scope.activeGrouping = grouping;
      try {
        targets = analyzeTargets(selectEnv(grouping));
        if (stmt.havingClause) having = translateExpr(stmt.havingClause, { ...havingEnvBase, grouping });
        order = sortNodes.map((s) => ({
          key: this.groupOrOrderTarget(s.node!, targets, scope, 'ORDER BY', true, grouping),
          sort: s,
        }));
      } finally {
        scope.activeGrouping = null;
      }
      for (const item of [...targets.map((t) => t.ex), ...(having ? [having] : []), ...order.map((o) => o.key)]) {
        if (item.ungrouped !== null) {
          throw new SqlFailure(
            `column "${item.ungrouped}" must appear in the GROUP BY clause or be used in an aggregate function`,
          );
        }
      }
    }
    if (having) having = requireBool(having, 'HAVING');
    if (having?.win) throw new SqlFailure('window functions are not allowed in HAVING');

    // DISTINCT and DISTINCT ON
    const distinctNodes = stmt.distinctClause;
    const distinctAll = distinctNodes !== undefined && distinctNodes.length === 1 && nodeKind(distinctNodes[0]) === '';
    const distinctOn =
      distinctNodes !== undefined && !distinctAll && distinctNodes.length > 0
        ? distinctNodes.map((n) => this.groupOrOrderTarget(n, targets, scope, 'DISTINCT ON', true, grouping))
        : null;
    const distinct = distinctAll || (distinctNodes !== undefined && distinctNodes.length === 0);
    if (distinct) {
      const targetSql = new Set(targets.map((t) => t.ex.sql));
      for (const o of order) {
        if (!targetSql.has(o.key.sql) && o.key.konst === null) {
          throw new SqlFailure('for SELECT DISTINCT, ORDER BY expressions must appear in select list');
        }
      }
    }
    if (distinctOn && order.length) {
      const onSql = new Set(distinctOn.map((d) => d.sql));
      for (let i = 0; i < Math.min(distinctOn.length, order.length); i++) {
        if (!onSql.has(order[i]!.key.sql))
          throw new SqlFailure('SELECT DISTINCT ON expressions must match initial ORDER BY expressions');
      }
    }
    for (const t of targets) {
      if (distinct && (t.ex.type === 'tsvector' || t.ex.type === 'tsquery')) {
        throw new SqlFailure(`could not identify an equality operator for type ${t.ex.type}`);
      }
    }

    const { limit, offset } = this.limits(stmt, scope);
    let fromSql = fromParts.length ? ` FROM ${fromParts.join(', ')}` : '';
    let whereSql = where ? ` WHERE ${where.sql}` : '';
    const groupSql = groupKeys.length ? ` GROUP BY ${groupKeys.map(groupTerm).join(', ')}` : '';
    let havingSql = having ? ` HAVING ${having.sql}` : '';
    const anyAggregate = targets.some((t) => t.ex.agg) || order.some((o) => o.key.agg) || (having?.agg ?? false);
    if (having && groupKeys.length === 0 && !anyAggregate) {
      // HAVING without GROUP BY or aggregates: PostgreSQL's single group (one row, even from no rows), in which
      // nothing can refer to the FROM items. SQLite refuses such a HAVING, so the group is a count's one row.
      fromSql = ` FROM (SELECT count(*)${fromSql}${whereSql}) AS "g"`;
      whereSql = ` WHERE ${having.sql}`;
      havingSql = '';
    }
    // Ordering by a constant changes nothing (and SQLite could read it as a column number): such terms are left out.
    const orderTerms = (items: OrderItem[]) =>
      items.filter((o) => !isConstant(o.key)).map((o) => orderTerm(o.key, o.sort, distinct));
    const oneRow =
      grouped && groupKeys.length === 0 && having === null && limit === null && offset === null && distinctOn === null;
    const plain = !withSql && order.length === 0 && limit === null && offset === null && distinctOn === null;

    return {
      columns: targets,
      oneRow,
      plain,
      emit: (aliases, types, cap) => {
        const outs = targets.map((t, i) =>
          types && types[i] && types[i] !== t.ex.type ? coerce(t.ex, types[i]!) : t.ex,
        );
        const select = outs.length ? outs.map((e, i) => `${e.sql} AS ${q(aliases[i]!)}`) : ['NULL AS "c0"'];
        const terms = orderTerms(order);
        if (distinctOn) {
          // First row of each DISTINCT ON group in ORDER BY order: numbered by a window, then filtered.
          const partition = distinctOn.map((d) => keyOf(d)).join(', ');
          const keys = order.map((o, i) => `${o.key.sql} AS ${q(`k${i + 1}`)}`);
          const inner =
            `SELECT ${[...select, ...keys, `row_number() OVER (PARTITION BY ${partition}${terms.length ? ` ORDER BY ${terms.join(', ')}` : ''}) AS "rn"`].join(', ')}` +
            `${fromSql}${whereSql}${groupSql}${havingSql}`;
          const outerOrder = order
            .filter((o) => !isConstant(o.key))
            .map((o) => orderTerm({ ...o.key, sql: q(`k${order.indexOf(o) + 1}`) }, o.sort));
          const names = aliases.map((a) => q(a)).join(', ');
          return (
            `${withSql}SELECT ${names} FROM (${inner}) WHERE "rn" = 1` +
            `${outerOrder.length ? ` ORDER BY ${outerOrder.join(', ')}` : ''}${limitClause(limit, offset, cap)}`
          );
        }
        return (
          `${withSql}SELECT ${distinct ? 'DISTINCT ' : ''}${select.join(', ')}${fromSql}${whereSql}${groupSql}${havingSql}` +
          `${terms.length ? ` ORDER BY ${terms.join(', ')}` : ''}${limitClause(limit, offset, cap)}`
        );
      },
    };
  }

  private targets(nodes: readonly Node[], env: ExprEnv): OutputColumn[] {
    const out: OutputColumn[] = [];
    for (const node of nodes) {
      const target = (node as { ResTarget: ResTarget }).ResTarget;
      if (target.indirection?.length) throw unsupported('subscripts in the select list');
      const val = target.val!;
      if (nodeKind(val) === 'ColumnRef') {
        const fields = (val as { ColumnRef: { fields?: Node[] } }).ColumnRef.fields ?? [];
        if (fields.length > 0 && nodeKind(fields[fields.length - 1]) === 'A_Star') {
          out.push(...this.expandStar(fields, env));
          continue;
        }
      }
      const e = translateExpr(val, env);
      out.push({ name: target.name ?? e.name ?? '?column?', ex: e });
    }
    if (out.length > MAX_TARGETS) throw new SqlFailure(`target lists can have at most ${MAX_TARGETS} entries`);
    return out;
  }

  private expandStar(fields: readonly Node[], env: ExprEnv): OutputColumn[] {
    const columns: Column[] = [];
    if (fields.length === 1) {
      if (env.scope.items.length === 0) throw new SqlFailure('SELECT * with no tables specified is not valid');
      for (const item of env.scope.items) columns.push(...item.visible);
    } else if (fields.length === 2) {
      columns.push(...env.scope.entryForStar(stringValue(fields[0]!)).columns);
    } else {
      throw unsupported('a star qualified by a schema');
    }
    return columns.map((c) => ({ name: c.name, ex: columnExpr(c, 0, env, null) }));
  }

  /**
   * A GROUP BY, ORDER BY or DISTINCT ON item: an integer constant is a select-list position; a bare name is,
   * for GROUP BY, an input column before an output name, and for ORDER BY an output name before an input column.
   */
  private groupOrOrderTarget(
    node: Node,
    targets: readonly OutputColumn[],
    scope: Scope,
    clause: string,
    outputFirst = false,
    grouping: Grouping | null = null,
  ): Ex {
    const kind = nodeKind(node);
    if (kind === 'A_Const') {
      const c = (node as { A_Const: { ival?: { ival?: number } } }).A_Const;
      if (c.ival !== undefined) {
        const n = c.ival.ival ?? 0;
        const t = targets[n - 1];
        if (!t) throw new SqlFailure(`${clause} position ${n} is not in select list`);
        return t.ex;
      }
    }
    const env = this.env(scope, clause, {
      aggAllowed: clause !== 'GROUP BY',
      winAllowed: clause === 'ORDER BY',
      grouping,
    });
    if (kind === 'ColumnRef') {
      const fields = (node as { ColumnRef: { fields?: Node[] } }).ColumnRef.fields ?? [];
      if (fields.length === 1 && nodeKind(fields[0]) === 'String') {
        const name = stringValue(fields[0]!);
        const byName = targets.filter((t) => t.name === name);
        if (outputFirst && byName.length > 0) {
          if (byName.length > 1 && new Set(byName.map((t) => t.ex.sql)).size > 1) {
            throw new SqlFailure(`${clause} "${name}" is ambiguous`);
          }
          return byName[0]!.ex;
        }
        if (!outputFirst) {
          try {
            return translateExpr(node, env);
          } catch (e) {
            if (!(e instanceof SqlFailure) || !/does not exist$/.test(e.message) || byName.length === 0) throw e;
            if (byName.length > 1) throw new SqlFailure(`${clause} "${name}" is ambiguous`);
            return byName[0]!.ex;
          }
        }
      }
    }
    const e = translateExpr(node, env);
    return e.type === 'unknown' ? coerce(e, 'text') : e;
  }

  // -------------------------------------------------------------------------------------------------------
  // VALUES

  private analyzeValues(stmt: SelectStmt, scope: Scope, withSql: string): Analyzed {
    const env = this.env(scope, 'VALUES');
    const rows = (stmt.valuesLists ?? []).map((row) =>
      ((row as { List: { items?: Node[] } }).List.items ?? []).map((n) => translateExpr(n, env)),
    );
    const width = rows[0]?.length ?? 0;
    if (rows.some((r) => r.length !== width)) throw new SqlFailure('VALUES lists must all be the same length');
    const columnTypes: PgType[] = [];
    for (let i = 0; i < width; i++)
      columnTypes.push(
        unify(
          rows.map((r) => r[i]!),
          'VALUES',
        ).type,
      );
    const typed = rows.map((r) => r.map((e, i) => coerce(e, columnTypes[i]!)));
    const columns = columnTypes.map((type, i) => ({
      name: `column${i + 1}`,
      ex: { ...ex('NULL', type), native: typed.every((r) => r[i]!.native), length: null },
    }));
    const { limit, offset } = this.limits(stmt, scope);
    if (stmt.sortClause?.length) throw unsupported('ORDER BY on VALUES');
    return {
      columns,
      oneRow: false,
      plain: !withSql && limit === null && offset === null,
      emit: (aliases, types, cap) => {
        const selects = typed.map(
          (r) =>
            `SELECT ${r
              .map((e, i) => {
                const t = types?.[i];
                return `${(t && t !== e.type ? coerce(e, t) : e).sql} AS ${q(aliases[i]!)}`;
              })
              .join(', ')}`,
        );
        return `${withSql}${selects.join(' UNION ALL ')}${limitClause(limit, offset, cap)}`;
      },
    };
  }

  // -------------------------------------------------------------------------------------------------------
  // UNION / INTERSECT / EXCEPT

  private analyzeSetOp(stmt: SelectStmt, scope: Scope, withSql: string): Analyzed {
    const word = stmt.op === 'SETOP_UNION' ? 'UNION' : stmt.op === 'SETOP_INTERSECT' ? 'INTERSECT' : 'EXCEPT';
    const left = this.analyze(stmt.larg!, scope);
    const right = this.analyze(stmt.rarg!, scope);
    if (left.columns.length !== right.columns.length) {
      throw new SqlFailure(`each ${word} query must have the same number of columns`);
    }
    const types: PgType[] = left.columns.map((c, i) => {
      const { type } = unify([c.ex, right.columns[i]!.ex], word);
      return type === 'unknown' ? 'text' : type;
    });
    for (const t of types) {
      if (t === 'tsvector' || t === 'tsquery') {
        if (!(stmt.all && word === 'UNION'))
          throw new SqlFailure(`could not identify an equality operator for type ${t}`);
      }
    }
    const columns: OutputColumn[] = left.columns.map((c, i) => {
      const type = types[i]!;
      const native = type !== 'numeric' || (c.ex.native && right.columns[i]!.ex.native);
      return { name: c.name, ex: { ...ex(q(`c${i + 1}`), type), native, length: null, name: c.name, strength: 2 } };
    });
    const alias = this.nextName('u');
    const outputSql = (i: number) => `${q(alias)}.${q(`c${i + 1}`)}`;
    // ORDER BY on a set operation names output columns (or their positions), nothing else.
    const order = (stmt.sortClause ?? []).map((n) => {
      const sort = (n as { SortBy: SortBy }).SortBy;
      const node = sort.node!;
      const k = nodeKind(node);
      let index = -1;
      if (k === 'A_Const' && (node as { A_Const: { ival?: { ival?: number } } }).A_Const.ival !== undefined) {
        const pos = (node as { A_Const: { ival?: { ival?: number } } }).A_Const.ival!.ival ?? 0;
        if (pos < 1 || pos > columns.length) throw new SqlFailure(`ORDER BY position ${pos} is not in select list`);
        index = pos - 1;
      } else if (k === 'ColumnRef') {
        const fields = (node as { ColumnRef: { fields?: Node[] } }).ColumnRef.fields ?? [];
        if (fields.length === 1 && nodeKind(fields[0]) === 'String') {
          const name = stringValue(fields[0]!);
          const matches = columns.map((c, i) => (c.name === name ? i : -1)).filter((i) => i >= 0);
          if (matches.length > 1) throw new SqlFailure(`ORDER BY "${name}" is ambiguous`);
          if (matches.length === 0) throw new SqlFailure(`column "${name}" does not exist`);
          index = matches[0]!;
        }
      }
      if (index < 0) throw new SqlFailure('invalid UNION/INTERSECT/EXCEPT ORDER BY clause');
      const col = columns[index]!;
      return { key: { ...col.ex, sql: outputSql(index) }, sort };
    });
    const { limit, offset } = this.limits(stmt, scope);
    // SQLite's compound SELECTs associate to the left with one precedence, as a left-deep tree of set
    // operations does; a right arm that is itself a set operation (or has ORDER BY, LIMIT…) is a subquery.
    const armSql = (arm: Analyzed, armTypes: readonly PgType[]) => {
      const sql = arm.emit(internalNames(columns.length), armTypes);
      return arm.plain ? sql : `SELECT * FROM (${sql})`;
    };
    const terms = (left.compound ? (left.terms ?? 2) : 1) + 1;
    if (terms > MAX_COMPOUND_TERMS)
      throw unsupported(`a statement with more than ${MAX_COMPOUND_TERMS} UNION/INTERSECT/EXCEPT terms`);
    const compoundOf = (armTypes: readonly PgType[]) =>
      `${left.compound ? left.compound(armTypes) : armSql(left, armTypes)} ${word}${stmt.all ? ' ALL' : ''} ${armSql(right, armTypes)}`;
    const orderTerms = order.map((o) => orderTerm(o.key, o.sort));
    const simple = !withSql && order.length === 0 && limit === null && offset === null;
    return {
      columns,
      oneRow: false,
      plain: false,
      ...(simple ? { compound: compoundOf, terms } : {}),
      emit: (aliases, outTypes, cap) => {
        const select = columns.map((c, i) => {
          const col = { ...c.ex, sql: outputSql(i) };
          const t = outTypes?.[i];
          return `${(t && t !== col.type ? coerce(col, t) : col).sql} AS ${q(aliases[i]!)}`;
        });
        return (
          `${withSql}SELECT ${select.join(', ')} FROM (${compoundOf(types)}) AS ${q(alias)}` +
          `${orderTerms.length ? ` ORDER BY ${orderTerms.join(', ')}` : ''}${limitClause(limit, offset, cap)}`
        );
      },
    };
  }

  // -------------------------------------------------------------------------------------------------------
  // FROM

  private fromItem(node: Node, scope: Scope): FromItem {
    const kind = nodeKind(node);
    switch (kind) {
      case 'RangeVar':
        return this.relation((node as { RangeVar: RangeVar }).RangeVar, scope);
      case 'RangeSubselect':
        return this.subselect((node as { RangeSubselect: RangeSubselect }).RangeSubselect, scope);
      case 'JoinExpr':
        return this.join((node as { JoinExpr: JoinExpr }).JoinExpr, scope);
      case 'RangeFunction':
        throw unsupported('functions in FROM');
      case 'RangeTableSample':
        throw unsupported('TABLESAMPLE');
      default:
        throw unsupported(`${kind} in FROM`);
    }
  }

  private entryFor(
    refName: string,
    alias: Alias | undefined,
    base: BaseColumn[],
    sqlAlias: string,
    source: string,
    primaryKey: string | null,
  ): RangeEntry {
    const colnames = stringsOf(alias?.colnames);
    if (colnames.length > base.length) {
      throw new SqlFailure(
        `table "${refName}" has ${base.length} columns available but ${colnames.length} columns specified`,
      );
    }
    const entry: RangeEntry = { refName, columns: [], primaryKey: null };
    entry.columns = base.map((c, i) => {
      const sql =
        source === 'table' && c.expression
          ? c.expression(q(sqlAlias))
          : `${q(sqlAlias)}.${q(source === 'table' ? (c.column ?? c.name) : `c${i + 1}`)}`;
      return {
        name: colnames[i] ?? c.name,
        type: c.type,
        native: c.native,
        length: c.length,
        entry,
        sql,
        ...(source === 'table' && c.nativeColumn ? { nativeKey: `${q(sqlAlias)}.${q(c.nativeColumn)}` } : {}),
        ...(c.timeKeyed && (c.type === 'date' || c.type === 'timestamp')
          ? { timeKey: { of: sql, key: temporalKeySql(c.type, () => sql) } }
          : {}),
      };
    });
    if (primaryKey !== null) entry.primaryKey = entry.columns.find((_, i) => base[i]!.name === primaryKey) ?? null;
    return entry;
  }

  private relation(rv: RangeVar, scope: Scope): FromItem {
    const name = rv.relname ?? '';
    if (rv.catalogname)
      throw new SqlFailure(
        `cross-database references are not implemented: ${[rv.catalogname, rv.schemaname, name].join('.')}`,
      );
    const cte = rv.schemaname ? undefined : scope.findCte(name);
    const refName = rv.alias?.aliasname ?? name;
    const sqlAlias = this.nextName('t');
    if (cte) {
      const entry = this.entryFor(refName, rv.alias, cte.columns, sqlAlias, 'cte', null);
      return { sql: `${q(cte.sqlName)} AS ${q(sqlAlias)}`, entries: [entry], visible: entry.columns };
    }
    checkRelationName(rv);
    // Names beginning with an underscore are the store's own tables (and CKAN's _table_metadata), never resources.
    const info = name.startsWith('_') ? undefined : this.lookup(name);
    if (!info || info.id !== name) {
      throw new SqlFailure(`relation "${rv.schemaname ? `${rv.schemaname}.` : ''}${name}" does not exist`);
    }
    this.resources.add(info.id);
    // The embedded store keeps no vector per row: `_full_text` is made from the row's values where it is read.
    const rowFields = info.fields.filter((f) => f.id !== '_id' && f.id !== '_full_text') as {
      id: string;
      type: FieldType;
    }[];
    const base: BaseColumn[] = [
      { name: '_id', type: 'int4', native: true, length: null },
      {
        name: '_full_text',
        type: 'tsvector',
        native: true,
        length: null,
        expression: (table) => rowTsvectorSql(info.fullTextLanguage, rowFields, table),
      },
    ];
    // A numeric field with exact texts is read as its text where it has one (computed numeric's representation), so
    // its digits and scale survive and arithmetic on it is exact; it compares and sorts by its double, as the search
    // API's filters and its index do.
    const exact = new Set(info.exactFields ?? []);
    const exactValues: string[] = [];
    for (const f of info.fields) {
      if (f.id === '_id' || f.id === '_full_text') continue;
      const type = FIELD_TYPES[f.type];
      if (!type) throw unsupported(`fields of type ${f.type}`);
      if (type === 'numeric' && exact.has(f.id)) {
        const column = `_value:${f.id}`;
        exactValues.push(`, ${exactValueSql(f.id)} AS ${q(column)}`);
        base.push({ name: f.id, type, native: false, length: null, column, nativeColumn: f.id });
      } else
        base.push({
          name: f.id,
          type,
          native: true,
          length: null,
          ...(type === 'date' || type === 'timestamp' ? { timeKeyed: true as const } : {}),
        });
    }
    const entry = this.entryFor(refName, rv.alias, base, sqlAlias, 'table', '_id');
    return {
      sql: `(SELECT *${exactValues.join('')} FROM ${q(info.id)} WHERE ${sparseDeadlineSql()}) AS ${q(sqlAlias)}`,
      entries: [entry],
      visible: entry.columns,
    };
  }

  private subselect(rs: RangeSubselect, scope: Scope): FromItem {
    if (rs.lateral) throw unsupported('LATERAL');
    if (!rs.alias?.aliasname) throw new SqlFailure('subquery in FROM must have an alias');
    const stmt =
      rs.subquery && nodeKind(rs.subquery) === 'SelectStmt'
        ? (rs.subquery as { SelectStmt: SelectStmt }).SelectStmt
        : null;
    if (!stmt) throw unsupported('a subquery in FROM that is not a SELECT');
    // Without LATERAL a subquery sees the enclosing queries and this level's CTEs, not its sibling FROM items.
    const sub = this.subquery(stmt, new Scope(scope.parent, scope.ctes));
    const sqlAlias = this.nextName('t');
    const entry = this.entryFor(rs.alias.aliasname, rs.alias, sub.columns, sqlAlias, 'subquery', null);
    return { sql: `(${sub.sql}) AS ${q(sqlAlias)}`, entries: [entry], visible: entry.columns };
  }

  private join(j: JoinExpr, scope: Scope): FromItem {
    if (j.alias) throw unsupported('an alias on a JOIN');
    if (j.join_using_alias) throw unsupported('an alias on JOIN USING');
    const left = this.fromItem(j.larg!, scope);
    const right = this.fromItem(j.rarg!, scope);
    const kinds: Record<string, string> = {
      JOIN_INNER: 'JOIN',
      JOIN_LEFT: 'LEFT JOIN',
      JOIN_RIGHT: 'RIGHT JOIN',
      JOIN_FULL: 'FULL JOIN',
    };
    const joinWord = kinds[j.jointype ?? 'JOIN_INNER'];
    if (!joinWord) throw unsupported(`${j.jointype} joins`);
    const local = new Scope(scope.parent, scope.ctes);
    local.addItem(left);
    local.addItem(right);
    const entries = [...left.entries, ...right.entries];

    let usingNames = stringsOf(j.usingClause);
    if (j.isNatural) {
      const rightNames = new Set(right.visible.map((c) => c.name));
      usingNames = [...new Set(left.visible.map((c) => c.name).filter((n) => rightNames.has(n)))];
    }
    if (usingNames.length > 0 || j.isNatural) {
      const seen = new Set<string>();
      const merged: Column[] = [];
      const conditions: string[] = [];
      for (const name of usingNames) {
        if (seen.has(name)) throw new SqlFailure(`column name "${name}" appears more than once in USING clause`);
        seen.add(name);
        const l = left.visible.filter((c) => c.name === name);
        const r = right.visible.filter((c) => c.name === name);
        if (l.length === 0)
          throw new SqlFailure(`column "${name}" specified in USING clause does not exist in left table`);
        if (l.length > 1) throw new SqlFailure(`common column name "${name}" appears more than once in left table`);
        if (r.length === 0)
          throw new SqlFailure(`column "${name}" specified in USING clause does not exist in right table`);
        if (r.length > 1) throw new SqlFailure(`common column name "${name}" appears more than once in right table`);
        const le = columnExpr(l[0]!, 0, this.env(local, 'JOIN/USING'), null);
        const re = columnExpr(r[0]!, 0, this.env(local, 'JOIN/USING'), null);
        const { type, items } = unify([le, re], 'JOIN/USING');
        const [lc, rc] = items as [Ex, Ex];
        conditions.push(compareEx('=', lc, rc).sql);
        const sql =
          j.jointype === 'JOIN_FULL' ? `coalesce(${lc.sql}, ${rc.sql})` : j.jointype === 'JOIN_RIGHT' ? rc.sql : lc.sql;
        const native =
          j.jointype === 'JOIN_FULL' ? lc.native && rc.native : j.jointype === 'JOIN_RIGHT' ? rc.native : lc.native;
        merged.push({ name, type, sql, native, length: null, entry: null });
      }
      const visible = [
        ...merged,
        ...left.visible.filter((c) => !seen.has(c.name)),
        ...right.visible.filter((c) => !seen.has(c.name)),
      ];
      const on = conditions.length ? conditions.join(' AND ') : '1';
      return { sql: `(${left.sql} ${joinWord} ${right.sql} ON ${on})`, entries, visible };
    }
    let on = '1';
    if (j.quals) {
      const cond = requireBool(translateExpr(j.quals, this.env(local, 'JOIN conditions')), 'JOIN/ON');
      on = cond.sql;
    } else if (j.jointype !== 'JOIN_INNER') {
      throw new SqlFailure('syntax error: a JOIN needs ON or USING');
    }
    return {
      sql: `(${left.sql} ${joinWord} ${right.sql} ON ${on})`,
      entries,
      visible: [...left.visible, ...right.visible],
    };
  }
}

/** Relation names that are never resources: PostgreSQL's catalogues and other schemas (CKAN's 403s). */
export function checkRelationName(rv: RangeVar): void {
  const schema = rv.schemaname;
  const name = rv.relname ?? '';
  if (schema !== undefined && schema !== 'public') {
    if (isSystemSchema(schema)) throw forbidden(CKAN_MESSAGES.systemTables);
    throw forbidden(CKAN_MESSAGES.readResource);
  }
  if (name.startsWith('pg_')) throw forbidden(CKAN_MESSAGES.systemTables);
}

export function isSystemSchema(schema: string): boolean {
  return schema === 'pg_catalog' || schema === 'information_schema' || schema.startsWith('pg_');
}
