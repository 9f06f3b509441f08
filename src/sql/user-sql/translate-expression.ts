// Translation of PostgreSQL expressions (parse-tree nodes) into typed SQLite expressions: constants, column
// references, operators, CASE and friends, casts, function calls, aggregates, window functions and subqueries,
// with PostgreSQL's type resolution and its error messages.

import type {
  A_Const,
  A_Expr,
  BooleanTest,
  BoolExpr,
  CaseExpr,
  CoalesceExpr,
  ColumnRef,
  FuncCall,
  MinMaxExpr,
  Node,
  NullTest,
  SelectStmt,
  SortBy,
  SubLink,
  TypeCast,
  TypeName,
  WindowDef,
} from 'libpg-query';
import { lowerText } from '../../text-search/chars.js';
import { parseDecimal } from './decimal.js';
import {
  castEx,
  coerce,
  compareEx,
  comparisonType,
  constant,
  distinctEx,
  equalityKeys,
  ex,
  keyOf,
  numericConstant,
  requireBool,
  sqlText,
  textOf,
  unify,
  unknownConstant,
  type CompareOp,
  type Ex,
} from './typed-expression.js';
import { SqlFailure, unsupported } from './failure.js';
import { callScalarFunction, noSuchFunction } from './functions.js';
import { nodeKind, stringsOf, stringValue } from './ast.js';
import { globPattern, parseLike } from './like.js';
import {
  displayType,
  isFloatType,
  isIntegerType,
  isNumericType,
  isStringType,
  numericRank,
  TYPE_NAMES,
  UNSUPPORTED_TYPE_NAMES,
  type CastTarget,
  type PgType,
} from './pg-types.js';
import { RT } from './runtime.js';
import { SQLITE_FUNCTIONS as TS } from '../../dialect/sqlite/functions.js';
import { columnDisplay, type Column, type Grouping, type Scope } from './scope.js';
import { intBitsOf } from './conversions.js';

/** What an expression may see and contain where it stands. */
export interface ExprEnv {
  t: Translation;
  scope: Scope;
  /** How PostgreSQL names the clause in "… are not allowed in X" messages. */
  clause: string;
  aggAllowed: boolean;
  winAllowed: boolean;
  /** Inside the arguments of an aggregate / of a window function. */
  inAgg: boolean;
  inWindow?: boolean;
  /** Inside an aggregate's FILTER (WHERE …), where neither aggregates nor window functions may stand. */
  inFilter?: boolean;
  grouping: Grouping | null;
}

export interface SubqueryColumn {
  name: string;
  type: PgType;
  native: boolean;
  length: number | null;
  /** A resource's stored date or timestamp as it is (Column.timeKey): compared outside by its integer key too. */
  timeKeyed?: true;
}

export interface Subquery {
  /** A SELECT whose output columns are named c1, c2, … */
  sql: string;
  columns: SubqueryColumn[];
  /** Always exactly one row (an aggregate without GROUP BY, HAVING, LIMIT or OFFSET). */
  oneRow: boolean;
}

/** What expression translation needs from the statement translation. */
export interface Translation {
  subquery(stmt: SelectStmt, parent: Scope): Subquery;
  /** A column of an enclosing query used inside a subquery (re-checked when a translated subquery is reused). */
  noteOuterReference(column: Column, scope: Scope): void;
  defaultTextSearchConfig: string;
}

/** PostgreSQL's FUNC_MAX_ARGS; SQLite's own limit on function arguments is higher. */
export const MAX_ARGUMENTS = 100;

const COMPARE_OPS = new Set<string>(['=', '<>', '<', '>', '<=', '>=']);
const ARITH_OPS = new Set<string>(['+', '-', '*', '/', '%']);

export function translateExpr(node: Node, env: ExprEnv): Ex {
  const e = translateNode(node, env);
  return settle(e, env);
}

/** In a grouped query a whole expression that is a GROUP BY key counts as grouped, whatever it contains. */
function settle(e: Ex, env: ExprEnv): Ex {
  if (env.grouping && !env.inAgg && e.ungrouped !== null && env.grouping.keys.has(e.sql))
    return { ...e, ungrouped: null };
  return e;
}

function translateNode(node: Node, env: ExprEnv): Ex {
  const kind = nodeKind(node);
  const body = (node as Record<string, unknown>)[kind];
  switch (kind) {
    case 'A_Const':
      return translateConst(body as A_Const);
    case 'ColumnRef':
      return translateColumnRef(body as ColumnRef, env);
    case 'ParamRef':
      throw new SqlFailure(`there is no parameter $${(body as { number?: number }).number ?? 0}`);
    case 'A_Expr':
      return translateAExpr(body as A_Expr, env);
    case 'BoolExpr':
      return translateBoolExpr(body as BoolExpr, env);
    case 'NullTest': {
      const n = body as NullTest;
      const arg = translateExpr(n.arg!, env);
      const test = n.nulltesttype === 'IS_NOT_NULL' ? 'IS NOT NULL' : 'IS NULL';
      return ex(`(${arg.sql} ${test})`, 'bool', [arg]);
    }
    case 'BooleanTest':
      return translateBooleanTest(body as BooleanTest, env);
    case 'TypeCast':
      return translateTypeCast(body as TypeCast, env);
    case 'CollateClause': {
      const c = body as { arg?: Node; collname?: Node[] };
      const name = stringsOf(c.collname).join('.');
      if (!['C', 'POSIX', 'default', 'pg_catalog.C', 'pg_catalog.POSIX', 'pg_catalog.default'].includes(name)) {
        throw unsupported(`collation "${name}"`);
      }
      const arg = translateExpr(c.arg!, env);
      if (!isStringType(arg.type) && arg.type !== 'unknown') {
        throw new SqlFailure(`collations are not supported by type ${displayType(arg.type)}`);
      }
      return arg;
    }
    case 'FuncCall':
      return translateFuncCall(body as FuncCall, env);
    case 'CaseExpr':
      return translateCase(body as CaseExpr, env);
    case 'CoalesceExpr': {
      const args = ((body as CoalesceExpr).args ?? []).map((a) => translateExpr(a, env));
      const { type, items } = unify(args, 'COALESCE');
      if (items.length > MAX_ARGUMENTS) throw unsupported(`COALESCE with more than ${MAX_ARGUMENTS} arguments`);
      // SQLite's coalesce() wants two arguments at least; PostgreSQL's COALESCE takes one.
      const sql = items.length === 1 ? `(${items[0]!.sql})` : `coalesce(${items.map((i) => i.sql).join(', ')})`;
      return {
        ...ex(sql, type, items),
        native: items.every((i) => i.native),
        name: 'coalesce',
        strength: 2,
      };
    }
    case 'MinMaxExpr': {
      const m = body as MinMaxExpr;
      const greatest = m.op === 'IS_GREATEST';
      const args = (m.args ?? []).map((a) => translateExpr(a, env));
      const { type, items } = unify(args, greatest ? 'GREATEST' : 'LEAST');
      if (items.length > MAX_ARGUMENTS)
        throw unsupported(`${greatest ? 'GREATEST' : 'LEAST'} with more than ${MAX_ARGUMENTS} arguments`);
      if (type === 'tsvector' || type === 'tsquery') throw unsupported(`${greatest ? 'GREATEST' : 'LEAST'} of ${type}`);
      const kindArg =
        type === 'numeric' ? "'n'" : isStringType(type) || type === 'date' || type === 'timestamp' ? "'t'" : "'x'";
      const fn = greatest ? RT.greatest : RT.least;
      return {
        ...ex(`${fn}(${kindArg}, ${items.map((i) => i.sql).join(', ')})`, type, items),
        native: items.every((i) => i.native),
        name: greatest ? 'greatest' : 'least',
        strength: 2,
      };
    }
    case 'SubLink':
      return translateSubLink(body as SubLink, env);
    case 'SQLValueFunction': {
      const op = String((body as { op?: string }).op ?? '')
        .replace(/^SVFOP_/, '')
        .replace(/_N$/, '');
      throw unsupported(op);
    }
    case 'A_ArrayExpr':
      throw unsupported('ARRAY');
    case 'RowExpr':
      throw unsupported('ROW expressions');
    case 'A_Indirection':
      throw unsupported('subscripts and field selection');
    case 'GroupingFunc':
      throw unsupported('GROUPING');
    default:
      throw unsupported(describeNode(kind));
  }
}

export function describeNode(kind: string): string {
  const words: Record<string, string> = {
    XmlExpr: 'XML functions',
    XmlSerialize: 'XMLSERIALIZE',
    JsonObjectConstructor: 'JSON constructors',
    JsonArrayConstructor: 'JSON constructors',
    JsonIsPredicate: 'IS JSON',
    JsonFuncExpr: 'SQL/JSON functions',
    MergeSupportFunc: 'MERGE_ACTION',
    SetToDefault: 'DEFAULT',
  };
  return words[kind] ?? `the expression ${kind}`;
}

// ---------------------------------------------------------------------------------------------------------
// constants and columns

function translateConst(c: A_Const): Ex {
  if (c.isnull) return { ...constant('unknown', null) };
  if (c.ival !== undefined) return constant('int4', c.ival.ival ?? 0);
  if (c.fval !== undefined) {
    const text = c.fval.fval ?? '0';
    // The parser hands integers too large for int4 over as "float" strings: int8 if they fit, else numeric.
    if (/^-?\d+$/.test(text)) {
      const n = BigInt(text);
      if (n >= -9223372036854775808n && n <= 9223372036854775807n) return constant('int8', n);
    }
    const d = parseDecimal(text);
    if (!d) throw new SqlFailure(`invalid input syntax for type numeric: "${text}"`);
    return numericConstant(d);
  }
  if (c.boolval !== undefined) return constant('bool', c.boolval.boolval ?? false);
  if (c.sval !== undefined) return unknownConstant(c.sval.sval ?? '');
  if (c.bsval !== undefined) throw unsupported('bit-string constants');
  return constant('int4', 0);
}

export function columnExpr(column: Column, levelsUp: number, env: ExprEnv, outerGrouping: Grouping | null): Ex {
  let ungrouped: string | null = null;
  if (levelsUp === 0) {
    if (env.grouping && !env.inAgg && !isGroupedColumn(column, env.grouping)) ungrouped = columnDisplay(column);
  } else if (outerGrouping && !isGroupedColumn(column, outerGrouping)) {
    throw new SqlFailure(`subquery uses ungrouped column "${columnDisplay(column)}" from outer query`);
  }
  return {
    ...ex(column.sql, column.type),
    native: column.native,
    ...(column.nativeKey ? { nativeKey: column.nativeKey } : {}),
    ...(column.timeKey ? { timeKey: column.timeKey } : {}),
    length: column.length,
    name: column.name,
    strength: 2,
    ungrouped,
    local: levelsUp === 0,
    outer: levelsUp > 0,
  };
}

export function isGroupedColumn(column: Column, grouping: Grouping): boolean {
  return grouping.keys.has(column.sql) || (column.entry !== null && grouping.pkEntries.has(column.entry));
}

function translateColumnRef(ref: ColumnRef, env: ExprEnv): Ex {
  const fields = ref.fields ?? [];
  if (fields.some((f) => nodeKind(f) === 'A_Star')) throw unsupported('"*" in an expression');
  const names = fields.map((f) => stringValue(f));
  const resolved = env.scope.resolve(names);
  if (resolved.levelsUp > 0) env.t.noteOuterReference(resolved.column, resolved.scope);
  return columnExpr(
    resolved.column,
    resolved.levelsUp,
    env,
    resolved.levelsUp > 0 ? resolved.scope.activeGrouping : null,
  );
}

// ---------------------------------------------------------------------------------------------------------
// operators

/** An operator's or function's name, unqualified or qualified by pg_catalog; other schemas are not supported. */
function catalogName(nameNodes: Node[] | undefined, what: 'operator' | 'function'): string {
  const names = stringsOf(nameNodes);
  if (names.length === 2 && names[0] === 'pg_catalog') return names[1]!;
  if (names.length !== 1) throw unsupported(`${what} ${names.join('.')}`);
  return names[0]!;
}

function operatorName(e: A_Expr): string {
  return catalogName(e.name, 'operator');
}

function translateAExpr(e: A_Expr, env: ExprEnv): Ex {
  switch (e.kind) {
    case 'AEXPR_OP':
      return translateOperator(operatorName(e), e.lexpr, e.rexpr, env);
    case 'AEXPR_DISTINCT':
    case 'AEXPR_NOT_DISTINCT': {
      const l = translateExpr(e.lexpr!, env);
      const r = translateExpr(e.rexpr!, env);
      return distinctEx(l, r, e.kind === 'AEXPR_NOT_DISTINCT');
    }
    case 'AEXPR_NULLIF': {
      const l = translateExpr(e.lexpr!, env);
      const r = translateExpr(e.rexpr!, env);
      const eq = compareEx('=', l, r);
      // NULLIF's result is its first argument as the chosen = operator reads it: PostgreSQL has = between any
      // two integer types, two float types, date and timestamp; other pairs meet in a common type.
      const crossType =
        (isIntegerType(l.type) && isIntegerType(r.type)) ||
        (isFloatType(l.type) && isFloatType(r.type)) ||
        ((l.type === 'date' || l.type === 'timestamp') && (r.type === 'date' || r.type === 'timestamp'));
      const value = crossType ? l : coerce(l, comparisonType('=', l, r));
      return {
        ...ex(`(CASE WHEN ${eq.sql} THEN NULL ELSE ${value.sql} END)`, value.type, [value, eq]),
        native: value.native,
        name: 'nullif',
        strength: 2,
      };
    }
    case 'AEXPR_IN':
      return translateIn(e, env);
    case 'AEXPR_LIKE':
    case 'AEXPR_ILIKE':
      return translateLike(e, env);
    case 'AEXPR_BETWEEN':
    case 'AEXPR_NOT_BETWEEN':
    case 'AEXPR_BETWEEN_SYM':
    case 'AEXPR_NOT_BETWEEN_SYM':
      return translateBetween(e, env);
    case 'AEXPR_SIMILAR':
      throw unsupported('SIMILAR TO');
    case 'AEXPR_OP_ANY':
    case 'AEXPR_OP_ALL':
      throw unsupported(`${e.kind === 'AEXPR_OP_ANY' ? 'ANY' : 'ALL'} with an array`);
    default:
      throw unsupported(`the operator expression ${e.kind}`);
  }
}

function operatorError(op: string, l: PgType | null, r: PgType): SqlFailure {
  return new SqlFailure(`operator does not exist: ${l === null ? '' : displayType(l) + ' '}${op} ${displayType(r)}`);
}

function translateOperator(op: string, lnode: Node | undefined, rnode: Node | undefined, env: ExprEnv): Ex {
  if (!lnode) return unaryOperator(op, translateExpr(rnode!, env));
  if (nodeKind(lnode) === 'RowExpr' || nodeKind(rnode) === 'RowExpr') return rowComparison(op, lnode, rnode!, env);
  const l = translateExpr(lnode, env);
  const r = translateExpr(rnode!, env);
  if (COMPARE_OPS.has(op)) return compareEx(op as CompareOp, l, r);
  if (op === '!=') return compareEx('<>', l, r);
  if (ARITH_OPS.has(op)) return arithmetic(op, l, r);
  if (op === '||') return concatenate(l, r);
  if (op === '@@') return textMatch(l, r, env);
  if (op === '~' || op === '~*' || op === '!~' || op === '!~*')
    throw unsupported(`regular expression matching (${op})`);
  if (op === '~~' || op === '!~~' || op === '~~*' || op === '!~~*') return likeEx(op, l, r, null);
  throw unsupported(`operator ${op}`);
}

/** (a, b) = (x, y) and <>: field by field (ordering comparisons of rows are not supported). */
function rowComparison(op: string, lnode: Node, rnode: Node, env: ExprEnv): Ex {
  const fields = (n: Node) =>
    nodeKind(n) === 'RowExpr' ? ((n as { RowExpr: { args?: Node[] } }).RowExpr.args ?? []) : null;
  const l = fields(lnode);
  const r = fields(rnode);
  if (!l || !r) throw unsupported('comparing a row with a single value');
  if (op !== '=' && op !== '<>' && op !== '!=') throw unsupported(`row comparison with ${op}`);
  if (l.length !== r.length) throw new SqlFailure('unequal number of entries in row expressions');
  const parts = l.map((n, i) => compareEx(op === '=' ? '=' : '<>', translateExpr(n, env), translateExpr(r[i]!, env)));
  return ex(`(${parts.map((p) => p.sql).join(op === '=' ? ' AND ' : ' OR ')})`, 'bool', parts);
}

function unaryOperator(op: string, arg: Ex): Ex {
  if (arg.type === 'unknown') throw new SqlFailure(`operator is not unique: ${op} unknown`);
  if (!isNumericType(arg.type) || (op !== '-' && op !== '+')) throw operatorError(op, null, arg.type);
  if (op === '+') return { ...arg, konst: null, name: null, strength: 0 };
  let sql: string;
  if (isIntegerType(arg.type)) sql = `CAST(${RT.intCheck}(-(${arg.sql}), ${intBitsOf(arg.type)}) AS INTEGER)`;
  else if (arg.type === 'numeric' && !arg.native) sql = `${RT.numNeg}(${arg.sql})`;
  else sql = `(-(${arg.sql}))`;
  return { ...ex(sql, arg.type, [arg]), native: arg.native };
}

/** The result type of an arithmetic operator, by PostgreSQL's operator catalogue for the numeric types. */
function arithmeticType(op: string, l: PgType, r: PgType): PgType {
  if (l === 'unknown' && r === 'unknown') throw new SqlFailure(`operator is not unique: unknown ${op} unknown`);
  const lt = l === 'unknown' ? r : l;
  const rt = r === 'unknown' ? l : r;
  if (!isNumericType(lt) || !isNumericType(rt)) {
    // Date arithmetic PostgreSQL has (date ± integer, date - date, timestamp - timestamp) but the store does not.
    const datePlusInt =
      (lt === 'date' && isIntegerType(rt) && (op === '+' || op === '-')) ||
      (isIntegerType(lt) && rt === 'date' && op === '+');
    const difference = op === '-' && (lt === 'date' || lt === 'timestamp') && (rt === 'date' || rt === 'timestamp');
    if (datePlusInt || difference)
      throw unsupported(`date/time arithmetic (${displayType(l)} ${op} ${displayType(r)})`);
    throw operatorError(op, l, r);
  }
  if (op === '%' && (isFloatType(lt) || isFloatType(rt))) throw operatorError(op, l, r);
  if (isIntegerType(lt) && isIntegerType(rt)) return numericRank(lt) >= numericRank(rt) ? lt : rt;
  if (lt === 'float4' && rt === 'float4') return 'float4';
  if (isFloatType(lt) || isFloatType(rt)) return 'float8';
  return 'numeric';
}

const NUMERIC_FN: Record<string, string> = {
  '+': RT.numAdd,
  '-': RT.numSub,
  '*': RT.numMul,
  '/': RT.numDiv,
  '%': RT.numMod,
};

export function arithmetic(op: string, left: Ex, right: Ex): Ex {
  const type = arithmeticType(op, left.type, right.type);
  const l = coerce(left, type);
  const r = coerce(right, type);
  let sql: string;
  if (isIntegerType(type)) {
    const bits = intBitsOf(type);
    if (op === '/') sql = `CAST(${RT.intDiv}(${l.sql}, ${r.sql}, ${bits}) AS INTEGER)`;
    else if (op === '%') sql = `CAST(${RT.intMod}(${l.sql}, ${r.sql}) AS INTEGER)`;
    else sql = `CAST(${RT.intCheck}((${l.sql} ${op} ${r.sql}), ${bits}) AS INTEGER)`;
  } else if (type === 'numeric') {
    sql = `${NUMERIC_FN[op]}(${l.sql}, ${r.sql})`;
  } else {
    const bits = type === 'float4' ? 32 : 64;
    if (op === '/') sql = `${RT.floatDiv}(${l.sql}, ${r.sql}, ${bits})`;
    else if (type === 'float4') sql = `${RT.float4}(${l.sql} ${op} ${r.sql})`;
    else sql = `${RT.floatCheck}(${l.sql} ${op} ${r.sql})`;
  }
  return { ...ex(sql, type, [l, r]), native: false };
}

/** `||`: text with text, or with any other value written as text (NULL on either side gives NULL). */
function concatenate(l: Ex, r: Ex): Ex {
  const lText = isStringType(l.type) || l.type === 'unknown';
  const rText = isStringType(r.type) || r.type === 'unknown';
  if (!lText && !rText) throw operatorError('||', l.type, r.type);
  if (l.type === 'tsvector' || r.type === 'tsvector' || l.type === 'tsquery' || r.type === 'tsquery') {
    if (!(lText && rText)) throw unsupported('|| on text-search values');
  }
  const part = (e: Ex) => (e.type === 'unknown' ? e.sql : textOf(e));
  return ex(`(${part(l)} || ${part(r)})`, 'text', [l, r]);
}

function textMatch(l: Ex, r: Ex, env: ExprEnv): Ex {
  const config = `'${env.t.defaultTextSearchConfig}'`;
  let vector: Ex = l;
  let query: Ex = r;
  if (l.type === 'tsquery' && (r.type === 'tsvector' || isStringType(r.type))) {
    vector = r;
    query = l;
  }
  const vectorSql =
    vector.type === 'tsvector'
      ? vector.sql
      : isStringType(vector.type) || vector.type === 'unknown'
        ? `${TS.toTsvector}(${config}, ${vector.sql})`
        : null;
  let querySql: string | null = null;
  if (query.type === 'tsquery') querySql = query.sql;
  else if (query.type === 'unknown') querySql = coerce(query, 'tsquery').sql;
  else if (isStringType(query.type) && isStringType(vector.type))
    querySql = `${TS.plainToTsquery}(${config}, ${query.sql})`;
  if (vectorSql === null || querySql === null) throw operatorError('@@', l.type, r.type);
  return ex(`${TS.tsMatch}(${vectorSql}, ${querySql})`, 'bool', [l, r]);
}

function likeEx(op: string, value: Ex, pattern: Ex, escape: Ex | null): Ex {
  const insensitive = op.includes('*');
  const negated = op.startsWith('!');
  const okType = (t: PgType) => isStringType(t) || t === 'unknown';
  if (!okType(value.type) || !okType(pattern.type)) throw operatorError(op, value.type, pattern.type);
  const v = value.type === 'unknown' ? coerce(value, 'text') : value;
  const p = pattern.type === 'unknown' ? coerce(pattern, 'text') : pattern;
  // The escape character, when known at compile time (null when it is only known at run time).
  let escapeText: string | null = '\\';
  let escapeSql = sqlText('\\');
  if (escape) {
    const e = escape.type === 'unknown' ? coerce(escape, 'text') : escape;
    if (!isStringType(e.type)) throw noSuchFunction('like_escape', [pattern.type, escape.type]);
    escapeSql = e.sql;
    escapeText = e.konst?.kind === 'value' ? String(e.konst.value) : null;
  }
  let sql: string;
  const parts = [v, p, ...(escape ? [escape] : [])];
  if (p.konst?.kind === 'null' || (escape && escape.konst?.kind === 'null')) return ex('NULL', 'bool', parts);
  if (p.konst?.kind === 'value' && escapeText !== null) {
    const patternText = String(p.konst.value);
    const glob = globPattern(parseLike(insensitive ? lowerText(patternText) : patternText, escapeText));
    const subject = insensitive ? `${RT.lower}(${v.sql})` : v.sql;
    sql = `(${subject} GLOB ${sqlText(glob)})`;
  } else {
    sql = `${RT.like}(${v.sql}, ${p.sql}, ${escapeSql}, ${insensitive ? 1 : 0})`;
  }
  return ex(negated ? `(NOT ${sql})` : sql, 'bool', parts);
}

function translateLike(e: A_Expr, env: ExprEnv): Ex {
  const op = operatorName(e);
  const value = translateExpr(e.lexpr!, env);
  let escape: Ex | null = null;
  let patternNode = e.rexpr!;
  if (nodeKind(patternNode) === 'FuncCall') {
    const f = (patternNode as { FuncCall: FuncCall }).FuncCall;
    const names = stringsOf(f.funcname);
    if (names[names.length - 1] === 'like_escape' && (f.args?.length ?? 0) === 2) {
      patternNode = f.args![0]!;
      escape = translateExpr(f.args![1]!, env);
    }
  }
  const pattern = translateExpr(patternNode, env);
  return likeEx(op, value, pattern, escape);
}

function translateIn(e: A_Expr, env: ExprEnv): Ex {
  const negated = operatorName(e) === '<>';
  const value = translateExpr(e.lexpr!, env);
  const list =
    e.rexpr && nodeKind(e.rexpr) === 'List' ? ((e.rexpr as { List: { items?: Node[] } }).List.items ?? []) : [e.rexpr!];
  const items = list.map((n) => translateExpr(n, env));
  const all = [value, ...items];
  let unified: { type: PgType; items: Ex[] } | null = null;
  try {
    unified = unify(all, 'IN');
  } catch {
    unified = null;
  }
  if (!unified) {
    // No common type: PostgreSQL compares item by item, and reports the first comparison that cannot be made.
    const parts = items.map((i) => compareEx(negated ? '<>' : '=', value, i));
    return ex(`(${parts.map((p) => p.sql).join(negated ? ' AND ' : ' OR ')})`, 'bool', parts);
  }
  const [v, ...rest] = unified.items as [Ex, ...Ex[]];
  const allNative = unified.items.every((i) => i.native);
  const lhs = equalityKeys(v, allNative ? v : { ...v, native: false })[0];
  const rhs = rest.map((i) => equalityKeys(allNative ? i : { ...i, native: false }, i)[0]);
  return ex(`(${lhs} ${negated ? 'NOT IN' : 'IN'} (${rhs.join(', ')}))`, 'bool', unified.items);
}

function translateBetween(e: A_Expr, env: ExprEnv): Ex {
  const value = translateExpr(e.lexpr!, env);
  const bounds = (e.rexpr as { List: { items?: Node[] } }).List.items ?? [];
  const low = translateExpr(bounds[0]!, env);
  const high = translateExpr(bounds[1]!, env);
  const within = (a: Ex, b: Ex) => {
    const ge = compareEx('>=', value, a);
    const le = compareEx('<=', value, b);
    return ex(`(${ge.sql} AND ${le.sql})`, 'bool', [ge, le]);
  };
  let result = within(low, high);
  if (e.kind === 'AEXPR_BETWEEN_SYM' || e.kind === 'AEXPR_NOT_BETWEEN_SYM') {
    const swapped = within(high, low);
    result = ex(`(${result.sql} OR ${swapped.sql})`, 'bool', [result, swapped]);
  }
  if (e.kind === 'AEXPR_NOT_BETWEEN' || e.kind === 'AEXPR_NOT_BETWEEN_SYM')
    result = ex(`(NOT ${result.sql})`, 'bool', [result]);
  return result;
}

function translateBoolExpr(b: BoolExpr, env: ExprEnv): Ex {
  const word = b.boolop === 'AND_EXPR' ? 'AND' : b.boolop === 'OR_EXPR' ? 'OR' : 'NOT';
  const args = (b.args ?? []).map((a) => requireBool(translateExpr(a, env), word));
  if (word === 'NOT') return ex(`(NOT ${args[0]!.sql})`, 'bool', args);
  return ex(`(${args.map((a) => a.sql).join(` ${word} `)})`, 'bool', args);
}

function translateBooleanTest(t: BooleanTest, env: ExprEnv): Ex {
  const word: Record<string, string> = {
    IS_TRUE: 'IS TRUE',
    IS_NOT_TRUE: 'IS NOT TRUE',
    IS_FALSE: 'IS FALSE',
    IS_NOT_FALSE: 'IS NOT FALSE',
    IS_UNKNOWN: 'IS UNKNOWN',
    IS_NOT_UNKNOWN: 'IS NOT UNKNOWN',
  };
  const arg = requireBool(translateExpr(t.arg!, env), word[t.booltesttype ?? 'IS_TRUE']!);
  const test: Record<string, string> = {
    IS_TRUE: 'IS 1',
    IS_NOT_TRUE: 'IS NOT 1',
    IS_FALSE: 'IS 0',
    IS_NOT_FALSE: 'IS NOT 0',
    IS_UNKNOWN: 'IS NULL',
    IS_NOT_UNKNOWN: 'IS NOT NULL',
  };
  return ex(`(${arg.sql} ${test[t.booltesttype ?? 'IS_TRUE']})`, 'bool', [arg]);
}

// ---------------------------------------------------------------------------------------------------------
// CASE

function translateCase(c: CaseExpr, env: ExprEnv): Ex {
  const subject = c.arg ? translateExpr(c.arg, env) : null;
  const conditions: Ex[] = [];
  const results: Ex[] = [];
  for (const w of c.args ?? []) {
    const when = (w as { CaseWhen: { expr?: Node; result?: Node } }).CaseWhen;
    const test = translateExpr(when.expr!, env);
    conditions.push(subject ? compareEx('=', subject, test) : requireBool(test, 'CASE/WHEN'));
    results.push(translateExpr(when.result!, env));
  }
  const otherwise = c.defresult ? translateExpr(c.defresult, env) : null;
  const { type, items } = unify(otherwise ? [...results, otherwise] : results, 'CASE');
  const branches = conditions.map((cond, i) => `WHEN ${cond.sql} THEN ${items[i]!.sql}`);
  const elseSql = otherwise ? ` ELSE ${items[items.length - 1]!.sql}` : '';
  const parts = [...(subject ? [subject] : []), ...conditions, ...items];
  // PostgreSQL names a CASE after its ELSE result when that has a name of its own, else "case".
  const named = otherwise !== null && otherwise.strength > 1;
  return {
    ...ex(`(CASE ${branches.join(' ')}${elseSql} END)`, type, parts),
    native: items.every((i) => i.native),
    name: named ? otherwise.name : 'case',
    strength: named ? otherwise.strength : 1,
  };
}

// ---------------------------------------------------------------------------------------------------------
// casts

/** The type a TypeName denotes, with its modifiers; PostgreSQL's errors for unknown or unmodelled types. */
export function castTarget(t: TypeName): CastTarget {
  const names = stringsOf(t.names);
  if ((t.arrayBounds?.length ?? 0) > 0) throw unsupported('array types');
  const last = names[names.length - 1] ?? '';
  const qualified = names.length > 1;
  if (names.length > 2 || (qualified && names[0] !== 'pg_catalog')) {
    throw new SqlFailure(`type "${names.join('.')}" does not exist`);
  }
  const type = TYPE_NAMES[last];
  if (!type) {
    if (UNSUPPORTED_TYPE_NAMES.has(last) || last === 'timestamptz' || last === 'interval')
      throw unsupported(`type ${last}`);
    throw new SqlFailure(`type "${last}" does not exist`);
  }
  const mods = (t.typmods ?? []).map((m) => {
    if (nodeKind(m) !== 'A_Const' || (m as { A_Const: A_Const }).A_Const.ival === undefined) {
      throw new SqlFailure('type modifiers must be simple constants or identifiers');
    }
    return (m as { A_Const: A_Const }).A_Const.ival!.ival ?? 0;
  });
  if (mods.length === 0) return { type };
  switch (type) {
    case 'varchar':
    case 'bpchar':
      if (mods.length > 1) throw new SqlFailure(`invalid type modifier`);
      if (mods[0]! < 1) throw new SqlFailure(`length for type ${type} must be at least 1`);
      return { type, length: mods[0]! };
    case 'numeric': {
      const [precision, scale = 0] = mods as [number, number?];
      if (mods.length > 2) throw new SqlFailure('invalid NUMERIC type modifier');
      if (precision < 1 || precision > 1000)
        throw new SqlFailure(`NUMERIC precision ${precision} must be between 1 and 1000`);
      if (scale < 0 || scale > precision) throw unsupported(`NUMERIC scale ${scale} outside 0..precision`);
      return { type, length: precision, scale };
    }
    case 'timestamp':
      if (mods[0]! < 0) throw new SqlFailure(`TIMESTAMP(${mods[0]}) precision must not be negative`);
      return { type, length: Math.min(mods[0]!, 6) };
    default:
      throw new SqlFailure(`type modifier is not allowed for type "${type}"`);
  }
}

function translateTypeCast(c: TypeCast, env: ExprEnv): Ex {
  const target = castTarget(c.typeName!);
  const arg = translateExpr(c.arg!, env);
  const out = castEx(arg, target, true);
  const names = stringsOf(c.typeName!.names);
  if (arg.strength <= 1) return { ...out, name: names[names.length - 1] ?? null, strength: 1 };
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// function calls, aggregates, window functions

const AGGREGATES = new Set(['count', 'sum', 'avg', 'min', 'max']);
const RANKING = new Set(['row_number', 'rank', 'dense_rank']);
const WINDOW_ONLY = new Set([
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
]);

function translateFuncCall(f: FuncCall, env: ExprEnv): Ex {
  const name = catalogName(f.funcname, 'function');
  const isAggregate = AGGREGATES.has(name);
  if (f.over) return translateWindowCall(f, name, env);
  if (WINDOW_ONLY.has(name)) throw new SqlFailure(`window function ${name} requires an OVER clause`);
  if (isAggregate) return { ...translateAggregate(f, name, env), name, strength: 2 };
  if (f.agg_star) throw new SqlFailure(`${name}(*) specified, but ${name} is not an aggregate function`);
  if (f.agg_distinct) throw new SqlFailure(`DISTINCT specified, but ${name} is not an aggregate function`);
  if (f.agg_filter) throw new SqlFailure(`FILTER specified, but ${name} is not an aggregate function`);
  if (f.agg_order?.length) throw new SqlFailure(`ORDER BY specified, but ${name} is not an aggregate function`);
  if (f.func_variadic) throw unsupported('VARIADIC');
  if ((f.args?.length ?? 0) > MAX_ARGUMENTS)
    throw new SqlFailure(`cannot pass more than ${MAX_ARGUMENTS} arguments to a function`);
  const args = (f.args ?? []).map((a) => translateExpr(a, env));
  const result = callScalarFunction(name, args, f.funcformat === 'COERCE_SQL_SYNTAX', env.t.defaultTextSearchConfig);
  return { ...result, name: result.name ?? name, strength: result.name ? result.strength : 2 };
}

function aggregateClauseError(env: ExprEnv): SqlFailure {
  return new SqlFailure(`aggregate functions are not allowed in ${env.clause}`);
}

/** count/sum/avg/min/max with PostgreSQL's result types; numeric arithmetic exact (runtime aggregates). */
function aggregateCall(name: string, f: FuncCall, args: Ex[]): Ex {
  const distinct = f.agg_distinct ? 'DISTINCT ' : '';
  if (name === 'count') {
    if (f.agg_star) return ex('count(*)', 'int8', []);
    if (args.length !== 1)
      throw noSuchFunction(
        'count',
        args.map((a) => a.type),
      );
    const a = args[0]!;
    return ex(`count(${distinct}${distinct ? keyOf(a) : a.sql})`, 'int8', [a]);
  }
  if (f.agg_star) throw new SqlFailure(`${name}(*) specified, but ${name} is not an aggregate function`);
  if (args.length !== 1)
    throw noSuchFunction(
      name,
      args.map((a) => a.type),
    );
  let a = args[0]!;
  if (a.type === 'unknown') {
    if (name === 'min' || name === 'max') a = coerce(a, 'text');
    else throw new SqlFailure(`function ${name}(unknown) is not unique`);
  }
  const arg = distinct && a.type === 'numeric' && !a.native ? a.sql : a.sql;
  switch (name) {
    case 'sum':
      if (a.type === 'int2' || a.type === 'int4') return ex(`sum(${distinct}${arg})`, 'int8', [a]);
      if (a.type === 'int8' || a.type === 'numeric')
        return { ...ex(`${RT.numSum}(${distinct}${arg})`, 'numeric', [a]), native: false };
      if (a.type === 'float4') return ex(`${RT.float4}(${RT.floatSum}(${distinct}${arg}))`, 'float4', [a]);
      if (a.type === 'float8') return ex(`${RT.floatSum}(${distinct}${arg})`, 'float8', [a]);
      throw noSuchFunction(name, [a.type]);
    case 'avg':
      if (isIntegerType(a.type) || a.type === 'numeric')
        return { ...ex(`${RT.numAvg}(${distinct}${arg})`, 'numeric', [a]), native: false };
      if (isFloatType(a.type)) return ex(`${RT.floatAvg}(${distinct}${arg})`, 'float8', [a]);
      throw noSuchFunction(name, [a.type]);
    default: {
      // min, max
      if (a.type === 'bool' || a.type === 'tsvector' || a.type === 'tsquery') throw noSuchFunction(name, [a.type]);
      if (a.type === 'numeric' && !a.native) {
        return { ...ex(`${name === 'min' ? RT.numMin : RT.numMax}(${distinct}${arg})`, 'numeric', [a]), native: false };
      }
      if (a.type === 'bpchar') throw unsupported(`${name} of character(n)`);
      return { ...ex(`${name}(${distinct}${arg})`, a.type, [a]), native: a.native, length: a.length };
    }
  }
}

function translateAggregate(f: FuncCall, name: string, env: ExprEnv): Ex {
  if (env.inFilter) throw new SqlFailure('aggregate functions are not allowed in FILTER');
  if (env.inAgg) throw new SqlFailure('aggregate function calls cannot be nested');
  if (!env.aggAllowed) throw aggregateClauseError(env);
  if (f.agg_order?.length) throw unsupported(`ORDER BY inside ${name}()`);
  if (f.agg_within_group) throw unsupported('WITHIN GROUP');
  const inner: ExprEnv = { ...env, inAgg: true, winAllowed: false, clause: 'aggregate function calls' };
  const args = (f.args ?? []).map((a) => translateExpr(a, inner));
  let call = aggregateCall(name, f, args);
  if (f.agg_filter) {
    const filter = requireBool(translateExpr(f.agg_filter, { ...inner, inFilter: true }), 'FILTER');
    call = { ...call, sql: `${call.sql} FILTER (WHERE ${filter.sql})` };
  }
  // Arguments referring only to outer columns would make this an aggregate of the outer query.
  if (!args.some((a) => a.local) && args.some((a) => a.outer)) throw unsupported('aggregates over outer-query columns');
  return {
    ...call,
    agg: true,
    win: false,
    ungrouped: null,
    local: args.some((a) => a.local),
    outer: args.some((a) => a.outer),
  };
}

const FRAME = {
  NONDEFAULT: 0x1,
  RANGE: 0x2,
  ROWS: 0x4,
  GROUPS: 0x8,
  BETWEEN: 0x10,
  START_UNBOUNDED_PRECEDING: 0x20,
  END_UNBOUNDED_PRECEDING: 0x40,
  START_UNBOUNDED_FOLLOWING: 0x80,
  END_UNBOUNDED_FOLLOWING: 0x100,
  START_CURRENT_ROW: 0x200,
  END_CURRENT_ROW: 0x400,
  START_OFFSET_PRECEDING: 0x800,
  END_OFFSET_PRECEDING: 0x1000,
  START_OFFSET_FOLLOWING: 0x2000,
  END_OFFSET_FOLLOWING: 0x4000,
  EXCLUDE: 0x8000 | 0x10000 | 0x20000,
};

function frameOffset(node: Node | undefined): string {
  if (!node || nodeKind(node) !== 'A_Const') throw unsupported('window frame offsets other than integer constants');
  const c = (node as { A_Const: A_Const }).A_Const;
  if (c.ival === undefined) throw unsupported('window frame offsets other than integer constants');
  const n = c.ival.ival ?? 0;
  if (n < 0) throw new SqlFailure('frame starting offset must not be negative');
  return String(n);
}

function frameClause(w: WindowDef): string {
  const o = w.frameOptions ?? 0;
  if (!(o & FRAME.NONDEFAULT)) return '';
  if (o & FRAME.EXCLUDE) throw unsupported('EXCLUDE in window frames');
  if (o & FRAME.GROUPS) throw unsupported('GROUPS window frames');
  const unit = o & FRAME.ROWS ? 'ROWS' : 'RANGE';
  const bound = (start: boolean): string => {
    if (o & (start ? FRAME.START_UNBOUNDED_PRECEDING : FRAME.END_UNBOUNDED_PRECEDING)) return 'UNBOUNDED PRECEDING';
    if (o & (start ? FRAME.START_UNBOUNDED_FOLLOWING : FRAME.END_UNBOUNDED_FOLLOWING)) return 'UNBOUNDED FOLLOWING';
    if (o & (start ? FRAME.START_CURRENT_ROW : FRAME.END_CURRENT_ROW)) return 'CURRENT ROW';
    const offset = frameOffset(start ? w.startOffset : w.endOffset);
    if (unit === 'RANGE') throw unsupported('RANGE window frames with offsets');
    if (o & (start ? FRAME.START_OFFSET_PRECEDING : FRAME.END_OFFSET_PRECEDING)) return `${offset} PRECEDING`;
    return `${offset} FOLLOWING`;
  };
  if (o & FRAME.BETWEEN) return ` ${unit} BETWEEN ${bound(true)} AND ${bound(false)}`;
  return ` ${unit} ${bound(true)}`;
}

/** ORDER BY items (of a window or a query): SQLite terms with PostgreSQL's default null placement. */
/**
 * An ORDER BY term with PostgreSQL's placement of nulls (last ascending, first descending, unless said). With
 * `nullsAsKey`, a placement that is not SQLite's own (nulls first ascending) is written as a key of its own before the
 * value: SQLite 3.53 answers SELECT DISTINCT ordered by an indexed column with NULLS LAST (or DESC NULLS FIRST) wrongly
 * once the table is analysed, walking the index and losing rows (the nulls, or all but them).
 */
export function orderTerm(key: Ex, sort: SortBy, nullsAsKey = false): string {
  if (sort.sortby_dir === 'SORTBY_USING') throw unsupported('ORDER BY … USING');
  if (key.type === 'tsvector' || key.type === 'tsquery') {
    throw new SqlFailure(`could not identify an ordering operator for type ${key.type}`);
  }
  const desc = sort.sortby_dir === 'SORTBY_DESC';
  const nullsFirst = sort.sortby_nulls === 'SORTBY_NULLS_FIRST' || (sort.sortby_nulls !== 'SORTBY_NULLS_LAST' && desc);
  const value = keyOf(key);
  if (nullsAsKey && nullsFirst === desc)
    return `${value} IS NULL ${nullsFirst ? 'DESC' : 'ASC'}, ${value} ${desc ? 'DESC' : 'ASC'}`;
  return `${value} ${desc ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`;
}

function translateWindowCall(f: FuncCall, name: string, env: ExprEnv): Ex {
  if (env.inFilter) throw new SqlFailure('window functions are not allowed in FILTER');
  if (env.inAgg) throw new SqlFailure('aggregate function calls cannot contain window function calls');
  if (env.inWindow) throw new SqlFailure('window function calls cannot be nested');
  if (!env.winAllowed) throw new SqlFailure(`window functions are not allowed in ${env.clause}`);
  const w = f.over!;
  if (w.name || w.refname) throw unsupported('named windows');
  if (f.agg_filter && !AGGREGATES.has(name))
    throw new SqlFailure('FILTER is not implemented for non-aggregate window functions');
  // A window function in the arguments is "nested"; in PARTITION BY or ORDER BY it is in the window definition.
  const argEnv: ExprEnv = { ...env, inWindow: true };
  const definitionEnv: ExprEnv = { ...env, winAllowed: false, clause: 'window definitions' };
  const nested = (node: Node) => translateExpr(node, definitionEnv);
  const partition = (w.partitionClause ?? []).map((p) => nested(p));
  for (const p of partition) {
    if (p.type === 'tsvector' || p.type === 'tsquery')
      throw new SqlFailure(`could not identify an equality operator for type ${p.type}`);
  }
  const order = (w.orderClause ?? []).map((s) => {
    const sort = (s as { SortBy: SortBy }).SortBy;
    const key = nested(sort.node!);
    return { key, term: orderTerm(key.type === 'unknown' ? coerce(key, 'text') : key, sort) };
  });
  let call: Ex;
  const args = (f.args ?? []).map((a) => translateExpr(a, argEnv));
  if (RANKING.has(name)) {
    if (args.length > 0 || f.agg_star)
      throw noSuchFunction(
        name,
        args.map((a) => a.type),
      );
    call = ex(`${name}()`, 'int8', []);
  } else if (AGGREGATES.has(name)) {
    if (f.agg_distinct) throw new SqlFailure('DISTINCT is not implemented for window functions');
    if (f.agg_order?.length) throw unsupported(`ORDER BY inside ${name}()`);
    call = aggregateCall(name, f, args);
    if (f.agg_filter) {
      const filter = requireBool(translateExpr(f.agg_filter, { ...argEnv, inFilter: true }), 'FILTER');
      call = {
        ...call,
        sql: `${call.sql} FILTER (WHERE ${filter.sql})`,
        ungrouped: call.ungrouped ?? filter.ungrouped,
      };
    }
  } else if (WINDOW_ONLY.has(name)) {
    throw unsupported(`window function ${name}`);
  } else {
    throw new SqlFailure(`OVER specified, but ${name} is not a window function nor an aggregate function`);
  }
  const clauses: string[] = [];
  if (partition.length) clauses.push(`PARTITION BY ${partition.map((p) => keyOf(p)).join(', ')}`);
  if (order.length) clauses.push(`ORDER BY ${order.map((o) => o.term).join(', ')}`);
  const frame = frameClause(w);
  const sql = `${call.sql} OVER (${clauses.join(' ')}${frame})`;
  const parts = [call, ...partition, ...order.map((o) => o.key)];
  return { ...ex(sql, call.type, parts), native: call.native, length: call.length, win: true, name, strength: 2 };
}

// ---------------------------------------------------------------------------------------------------------
// subqueries

function selectOf(node: Node | undefined): SelectStmt {
  if (!node || nodeKind(node) !== 'SelectStmt') throw unsupported('a subquery that is not a SELECT');
  return (node as { SelectStmt: SelectStmt }).SelectStmt;
}

function subqueryColumnEx(
  sql: string,
  col: { type: PgType; native: boolean; length: number | null },
  outerRefs: boolean,
): Ex {
  return { ...ex(sql, col.type), native: col.native, length: col.length, outer: outerRefs };
}

function translateSubLink(s: SubLink, env: ExprEnv): Ex {
  const sub = env.t.subquery(selectOf(s.subselect), env.scope);
  // A subquery's references to this level's columns make it depend on them; grouping was checked inside.
  const flags: Partial<Ex> = { local: true };
  switch (s.subLinkType) {
    case 'EXISTS_SUBLINK':
      return { ...ex(`(EXISTS (${sub.sql}))`, 'bool', []), ...flags, name: 'exists', strength: 2 };
    case 'EXPR_SUBLINK': {
      if (sub.columns.length !== 1) throw new SqlFailure('subquery must return only one column');
      const col = sub.columns[0]!;
      const sql = sub.oneRow ? `(${sub.sql})` : `(SELECT ${RT.scalar}("c1") FROM (${sub.sql}))`;
      return { ...subqueryColumnEx(sql, col, false), ...flags, name: col.name, strength: 2 };
    }
    case 'ANY_SUBLINK':
    case 'ALL_SUBLINK': {
      const all = s.subLinkType === 'ALL_SUBLINK';
      const op = stringsOf(s.operName).pop() ?? '=';
      if (nodeKind(s.testexpr) === 'RowExpr') throw unsupported('row comparisons with subqueries');
      if (sub.columns.length !== 1) {
        throw new SqlFailure(sub.columns.length > 1 ? 'subquery has too many columns' : 'subquery has too few columns');
      }
      const test = translateExpr(s.testexpr!, env);
      if (all || op !== '=') return quantified(op, all, test, sub, flags);
      const col = sub.columns[0]!;
      const inner = subqueryColumnEx('"s"."c1"', col, false);
      const t = comparisonType('=', test, inner);
      const l = coerce(test, t);
      const r = coerce(inner, t);
      const [lhs, rhs] = equalityKeys(l, r);
      return { ...ex(`(${lhs} IN (SELECT ${rhs} FROM (${sub.sql}) AS "s"))`, 'bool', [l]), ...flags };
    }
    case 'ARRAY_SUBLINK':
      throw unsupported('ARRAY(subquery)');
    default:
      throw unsupported('row comparisons with subqueries');
  }
}

/**
 * x op ANY/ALL (subquery) with SQL's three-valued answer: for ANY true if some comparison is true, else NULL if
 * some is unknown, else false; for ALL false if some comparison is false, else NULL if some is unknown, else true.
 */
function quantified(op: string, all: boolean, test: Ex, sub: Subquery, flags: Partial<Ex>): Ex {
  if (!COMPARE_OPS.has(op) && op !== '!=') throw unsupported(`${op} ${all ? 'ALL' : 'ANY'} (subquery)`);
  if (test.agg || test.win)
    throw unsupported(`aggregates or window functions compared with ${all ? 'ALL' : 'ANY'} (subquery)`);
  const col = sub.columns[0]!;
  const inner = subqueryColumnEx('"s"."c1"', col, false);
  const cmp = compareEx((op === '!=' ? '<>' : op) as CompareOp, test, inner);
  const rows = (where: string) => `EXISTS (SELECT 1 FROM (${sub.sql}) AS "s" WHERE ${where})`;
  const sql = all
    ? `(CASE WHEN ${rows(`NOT ${cmp.sql}`)} THEN 0 WHEN ${rows(`${cmp.sql} IS NULL`)} THEN NULL ELSE 1 END)`
    : `(CASE WHEN ${rows(cmp.sql)} THEN 1 WHEN ${rows(`${cmp.sql} IS NULL`)} THEN NULL ELSE 0 END)`;
  return { ...ex(sql, 'bool', [test]), ...flags };
}
