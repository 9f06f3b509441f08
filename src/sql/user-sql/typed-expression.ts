// Typed SQLite expressions: what translating a PostgreSQL expression yields (SQL text, PostgreSQL type,
// whether a numeric may travel as text), with PostgreSQL's casts, comparisons and sort keys written over them.

import { numberText } from '../../catalog/values.js';
import { parseTsquery, parseTsvector, tsqueryToString, tsvectorToString } from '../../text-search/index.js';
import { quoteLiteral } from '../../dialect/sqlite/quote.js';
import { temporalKey } from '../../dialect/sqlite/ddl.js';
import * as convert from './conversions.js';
import { applyTypmod, type Decimal } from './decimal.js';
import { SqlFailure, unsupported } from './failure.js';
import {
  category,
  commonType,
  displayType,
  implicitlyConvertible,
  isFloatType,
  isIntegerType,
  isNumericType,
  isStringType,
  type CastTarget,
  type PgType,
} from './pg-types.js';
import { numericKey, RT } from './runtime.js';

/** A compile-time constant: NULL, an untyped string literal, or a value already in the store's representation. */
export type Konst =
  { kind: 'null' } | { kind: 'unknown'; text: string } | { kind: 'value'; value: number | string | bigint };

export interface Ex {
  sql: string;
  type: PgType;
  /** For numeric: the value is always an SQLite integer or double (stored data), never computed numeric text. */
  native: boolean;
  /**
   * For a stored numeric read as its exact text: its column's double, which sorts and compares as the value does (to
   * 15–17 significant digits) and which the column's index is built on.
   */
  nativeKey?: string;
  /**
   * For a stored date or timestamp: the integer the column's index is keyed on (see temporalKeySql), which comparisons
   * with constants use, so that SQLite can use that index. It stands for the column's value only while the expression
   * is still the column (`of` is its SQL): conversions copy an expression's properties and change its SQL.
   */
  timeKey?: { of: string; key: string };
  konst: Konst | null;
  /** The output column name PostgreSQL would derive (FigureColname), and how strongly. */
  name: string | null;
  strength: number;
  /** Contains an aggregate of this query level / a window function. */
  agg: boolean;
  win: boolean;
  /** In a grouped query: the first column reference outside GROUP BY keys and aggregates ("rel.col"). */
  ungrouped: string | null;
  /** Refers to a column of this query level / of an enclosing one. */
  local: boolean;
  outer: boolean;
  /** Length of a bpchar/varchar value, when known (char(n)). */
  length: number | null;
}

/**
 * The longest SQLite expression a statement may translate into. Some constructs repeat an operand (BETWEEN, simple
 * CASE, NULLIF…), so nesting them doubles the text at each level; this stops that early.
 */
export const MAX_EXPRESSION_LENGTH = 4_000_000;

export function ex(sql: string, type: PgType, parts: readonly Ex[] = [], extra: Partial<Ex> = {}): Ex {
  if (sql.length > MAX_EXPRESSION_LENGTH)
    throw new SqlFailure('statement too complex: its SQLite translation would exceed 4 MB');
  let agg = false,
    win = false,
    local = false,
    outer = false;
  let ungrouped: string | null = null;
  for (const p of parts) {
    agg ||= p.agg;
    win ||= p.win;
    local ||= p.local;
    outer ||= p.outer;
    ungrouped ??= p.ungrouped;
  }
  return {
    sql,
    type,
    native: type !== 'numeric',
    konst: null,
    name: null,
    strength: 0,
    agg,
    win,
    ungrouped,
    local,
    outer,
    length: null,
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------------------
// literals

export function sqlText(text: string): string {
  if (text.includes('\u0000')) throw new SqlFailure('invalid byte sequence for encoding "UTF8": 0x00');
  return quoteLiteral(text);
}

function sqlInteger(value: bigint | number): string {
  const s = String(value);
  return s.startsWith('-') ? `(${s})` : s;
}

export function sqlFloat(value: number): string {
  if (!Number.isFinite(value)) throw unsupported('a non-finite floating-point constant');
  let s = String(value);
  if (!/[.e]/.test(s)) s += '.0';
  return s.startsWith('-') ? `(${s})` : s;
}

/** A numeric constant: as an SQLite number when that number reads back as the same digits and scale. */
export function numericLiteral(d: Decimal): { sql: string; native: boolean; value: number | string } {
  const text = convert.decimalText(d);
  if (d.scale === 0 && d.coef >= -9007199254740991n && d.coef <= 9007199254740991n) {
    return { sql: sqlInteger(d.coef), native: true, value: Number(d.coef) };
  }
  const n = Number(text);
  if (d.scale > 0 && Number.isFinite(n) && numberText(n, 'numeric') === text) {
    return { sql: sqlFloat(n), native: true, value: n };
  }
  return { sql: sqlText(text), native: false, value: text };
}

export function constant(type: PgType, value: number | string | bigint | boolean | null, extra: Partial<Ex> = {}): Ex {
  if (value === null) return { ...ex('NULL', type), konst: { kind: 'null' }, native: true, ...extra };
  let sql: string;
  let stored: number | string | bigint;
  const native = true;
  if (typeof value === 'boolean') {
    sql = value ? '1' : '0';
    stored = value ? 1 : 0;
  } else if (isIntegerType(type)) {
    sql = sqlInteger(value as bigint | number);
    stored =
      typeof value === 'bigint' && value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
  } else if (isFloatType(type)) {
    sql = sqlFloat(Number(value));
    stored = Number(value);
  } else if (type === 'numeric') {
    throw new Error('numeric constants are built with numericConstant');
  } else {
    sql = sqlText(String(value));
    stored = String(value);
  }
  return { ...ex(sql, type), native, konst: { kind: 'value', value: stored }, ...extra };
}

export function numericConstant(d: Decimal, extra: Partial<Ex> = {}): Ex {
  const lit = numericLiteral(d);
  return { ...ex(lit.sql, 'numeric'), native: lit.native, konst: { kind: 'value', value: lit.value }, ...extra };
}

export function unknownConstant(text: string): Ex {
  return { ...ex(sqlText(text), 'unknown'), konst: { kind: 'unknown', text } };
}

// ---------------------------------------------------------------------------------------------------------
// casts

function intCast(sqlFn: string, args: string): string {
  // Functions hand numbers back to SQLite as doubles; integers must stay integers (for integer division).
  return `CAST(${sqlFn}(${args}) AS INTEGER)`;
}

/** An untyped literal read as the target type, at compile time, with PostgreSQL's errors. */
function castUnknownConstant(e: Ex, target: CastTarget, keep: Partial<Ex>): Ex {
  const text = (e.konst as { kind: 'unknown'; text: string }).text;
  const t = target.type;
  switch (t) {
    case 'int2':
    case 'int4':
    case 'int8':
      return constant(t, convert.textToInt(text, convert.intBitsOf(t)), keep);
    case 'numeric': {
      let d = convert.textToDecimal(text);
      if (target.length !== undefined) d = applyTypmod(d, target.length, target.scale ?? 0);
      return numericConstant(d, keep);
    }
    case 'float4':
    case 'float8':
      return constant(t, convert.textToFloat(text, t === 'float4' ? 32 : 64), keep);
    case 'bool':
      return constant('bool', convert.textToBool(text), keep);
    case 'date':
      return constant('date', convert.textToDate(text), keep);
    case 'timestamp': {
      const ts = convert.textToTimestamp(text);
      return constant('timestamp', target.length !== undefined ? convert.roundTimestamp(ts, target.length) : ts, keep);
    }
    case 'text':
      return constant('text', text, keep);
    case 'varchar':
      return constant('varchar', target.length !== undefined ? [...text].slice(0, target.length).join('') : text, keep);
    case 'bpchar': {
      if (target.length === undefined) return constant('bpchar', text, keep);
      const chars = [...text];
      const v =
        chars.length >= target.length
          ? chars.slice(0, target.length).join('')
          : text + ' '.repeat(target.length - chars.length);
      return constant('bpchar', v, { ...keep, length: target.length });
    }
    case 'tsvector':
      return constant('tsvector', tsvectorToString(parseTsvector(text)), keep);
    case 'tsquery':
      return constant('tsquery', tsqueryToString(parseTsquery(text)), keep);
    default:
      throw new SqlFailure(`cannot cast type unknown to ${displayType(t)}`);
  }
}

/** value::text as PostgreSQL writes each type (boolean as true/false; bpchar loses its padding). */
export function textOf(e: Ex, booleanWords: 'words' | 'letters' = 'words'): string {
  switch (e.type) {
    case 'int2':
    case 'int4':
    case 'int8':
      return `CAST(${e.sql} AS TEXT)`;
    case 'numeric':
      return `${RT.numText}(${e.sql})`;
    case 'float4':
      return `${RT.floatText}(${e.sql}, 32)`;
    case 'float8':
      return `${RT.floatText}(${e.sql}, 64)`;
    case 'bool':
      return booleanWords === 'words'
        ? `(CASE ${e.sql} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END)`
        : `(CASE ${e.sql} WHEN 1 THEN 't' WHEN 0 THEN 'f' END)`;
    case 'timestamp':
      return `replace(${e.sql}, 'T', ' ')`;
    case 'bpchar':
      return `rtrim(${e.sql}, ' ')`;
    default:
      return e.sql;
  }
}

function cannotCast(from: PgType, to: PgType): SqlFailure {
  return new SqlFailure(`cannot cast type ${displayType(from)} to ${displayType(to)}`);
}

/**
 * CAST(e AS target). `explicit` distinguishes a written cast from PostgreSQL's implicit coercions (which only
 * widen). The result keeps the input's name and grouping flags.
 */
export function castEx(e: Ex, target: CastTarget, explicit = true): Ex {
  const from = e.type;
  const to = target.type;
  const keep: Partial<Ex> = {
    name: e.name,
    strength: e.strength,
    agg: e.agg,
    win: e.win,
    ungrouped: e.ungrouped,
    local: e.local,
    outer: e.outer,
  };
  if (e.konst?.kind === 'null') return { ...constant(to, null), ...keep, length: target.length ?? null };
  if (from === 'unknown') return castUnknownConstant(e, target, keep);
  if (!explicit && !implicitlyConvertible(from, to)) throw cannotCast(from, to);
  // A conversion that leaves the SQL as it is (widening an integer, say) keeps a constant's value.
  const out = (sql: string, native = to !== 'numeric', length: number | null = null): Ex => ({
    ...e,
    ...keep,
    sql,
    type: to,
    native,
    konst: sql === e.sql ? e.konst : null,
    length,
  });
  const withTypmod = (x: Ex): Ex => applyCastModifier(x, target);

  if (from === to) return withTypmod(e.type === to && target.length === undefined ? e : { ...e });
  if (isNumericType(from) && isNumericType(to)) {
    if (isIntegerType(to)) {
      const bits = convert.intBitsOf(to);
      if (isIntegerType(from)) {
        return convert.intBitsOf(from) <= bits ? out(e.sql) : out(intCast(RT.intCheck, `${e.sql}, ${bits}`));
      }
      if (from === 'numeric') return out(intCast(RT.numToInt, `${e.sql}, ${bits}`));
      return out(intCast(RT.floatToInt, `${e.sql}, ${bits}`));
    }
    if (to === 'numeric') {
      if (isIntegerType(from)) return withTypmod(out(e.sql, true));
      return withTypmod(out(`${RT.floatToNum}(${e.sql}, ${from === 'float4' ? 32 : 64})`, false));
    }
    // to float
    if (to === 'float8') {
      if (from === 'float4') return out(e.sql);
      if (from === 'numeric') return out(e.native ? `CAST(${e.sql} AS REAL)` : `${RT.numToFloat}(${e.sql}, 64)`);
      return out(`CAST(${e.sql} AS REAL)`);
    }
    // float4
    if (from === 'numeric') return out(`${RT.numToFloat}(${e.sql}, 32)`);
    return out(`${RT.float4}(${e.sql})`);
  }
  if (isStringType(to)) {
    if (from === 'tsquery' || from === 'tsvector') {
      if (!explicit) throw cannotCast(from, to);
    }
    const text = isStringType(from) && from !== 'bpchar' ? e.sql : textOf(e);
    return withTypmod(out(text));
  }
  if (isStringType(from)) {
    // Text input functions, at run time.
    switch (to) {
      case 'int2':
      case 'int4':
      case 'int8':
        return out(intCast(RT.textToInt, `${e.sql}, ${convert.intBitsOf(to)}`));
      case 'numeric':
        return withTypmod(out(`${RT.textToNum}(${e.sql})`, false));
      case 'float4':
        return out(`${RT.textToFloat}(${e.sql}, 32)`);
      case 'float8':
        return out(`${RT.textToFloat}(${e.sql}, 64)`);
      case 'bool':
        return out(`CAST(${RT.textToBool}(${e.sql}) AS INTEGER)`);
      case 'date':
        return out(`${RT.textToDate}(${e.sql})`);
      case 'timestamp':
        return withTypmod(out(`${RT.textToTimestamp}(${e.sql})`));
      default:
        throw unsupported(`casting ${displayType(from)} to ${displayType(to)}`);
    }
  }
  if (from === 'bool' && to === 'int4') return out(e.sql);
  if (from === 'int4' && to === 'bool') return out(`(${e.sql} <> 0)`);
  if (from === 'date' && to === 'timestamp') return withTypmod(out(`(${e.sql} || 'T00:00:00')`));
  if (from === 'timestamp' && to === 'date') return out(`substr(${e.sql}, 1, 10)`);
  throw cannotCast(from, to);
}

/** varchar(n) and char(n) truncate (char pads), numeric(p, s) rounds and checks, timestamp(p) rounds. */
function applyCastModifier(e: Ex, target: CastTarget): Ex {
  if (target.length === undefined) return e;
  switch (target.type) {
    case 'varchar':
      return { ...e, sql: `substr(${e.sql}, 1, ${target.length})`, length: null };
    case 'bpchar':
      return { ...e, sql: `${RT.bpchar}(${e.sql}, ${target.length})`, length: target.length };
    case 'numeric':
      if (e.konst?.kind === 'value')
        return {
          ...numericConstant(
            applyTypmod(convert.textToDecimal(String(e.konst.value)), target.length, target.scale ?? 0),
          ),
          name: e.name,
          strength: e.strength,
        };
      return { ...e, sql: `${RT.numTypmod}(${e.sql}, ${target.length}, ${target.scale ?? 0})`, native: false };
    case 'timestamp':
      return target.length >= 6 ? e : { ...e, sql: `${RT.timestampRound}(${e.sql}, ${target.length})` };
    default:
      return e;
  }
}

/** PostgreSQL's implicit coercion of an argument to a parameter type (unknown literals are read as it). */
export function coerce(e: Ex, to: PgType): Ex {
  if (e.type === to) return e;
  return castEx(e, { type: to }, false);
}

// ---------------------------------------------------------------------------------------------------------
// comparison

export type CompareOp = '=' | '<>' | '<' | '>' | '<=' | '>=';

function operatorError(op: string, l: PgType, r: PgType): SqlFailure {
  return new SqlFailure(`operator does not exist: ${displayType(l)} ${op} ${displayType(r)}`);
}

/** The type two operands of a comparison meet in, or PostgreSQL's "operator does not exist". */
export function comparisonType(op: string, l: Ex, r: Ex): PgType {
  // varchar has no operators of its own: it compares as text (char(n) has its own, ignoring padding).
  const own = (t: PgType): PgType => (t === 'varchar' ? 'text' : t);
  if (l.type === 'unknown' && r.type === 'unknown') return 'text';
  if (l.type === 'unknown') return own(r.type);
  if (r.type === 'unknown') return own(l.type);
  const cl = category(l.type);
  const cr = category(r.type);
  if (cl !== cr || (cl === 'X' && l.type !== r.type)) throw operatorError(op, l.type, r.type);
  if (cl === 'X' && op !== '=' && op !== '<>') throw operatorError(op, l.type, r.type);
  if (l.type === r.type) return own(l.type);
  const common = commonType([l.type, r.type]);
  if ('conflict' in common) throw operatorError(op, l.type, r.type);
  return common.type;
}

/** The expression a value sorts and compares by: numeric text by its order-preserving key, char(n) unpadded. */
export function keyOf(e: Ex): string {
  if (e.type === 'numeric' && !e.native && e.nativeKey) return e.nativeKey;
  if (e.type === 'numeric' && !e.native) {
    if (e.konst?.kind === 'value') return sqlText(numericKey(toDecimalConst(e)));
    return `${RT.numKey}(${e.sql})`;
  }
  if (e.type === 'bpchar') return `rtrim(${e.sql}, ' ')`;
  return e.sql;
}

/**
 * What two values of the same type are matched by for equality (IN, IS DISTINCT FROM): numeric values by their
 * keys unless both are stored numbers (1.0 and 1.00 are equal; SQLite compares their texts), char(n) unpadded.
 */
export function equalityKeys(l: Ex, r: Ex): [string, string] {
  if (l.type === 'numeric' && !(l.native && r.native)) return [numericKeyOf(l), numericKeyOf(r)];
  if (l.type === 'bpchar') return [keyOf(l), keyOf(r)];
  return [l.sql, r.sql];
}

function numericKeyOf(e: Ex): string {
  if (e.konst?.kind === 'value') return sqlText(numericKey(toDecimalConst(e)));
  if (e.konst?.kind === 'null') return 'NULL';
  return `${RT.numKey}(${e.sql})`;
}

function toDecimalConst(e: Ex): Decimal {
  return convert.textToDecimal(String((e.konst as { value: unknown }).value));
}

export function compareEx(op: CompareOp, left: Ex, right: Ex): Ex {
  const t = comparisonType(op, left, right);
  const l = coerce(left, t);
  const r = coerce(right, t);
  const times = t === 'date' || t === 'timestamp' ? timeKeys(t, l, r) : null;
  let sql: string;
  if (t === 'numeric' && (l.native || l.nativeKey) && (r.native || r.nativeKey)) {
    // Stored numbers (and constants a double holds) compare as doubles, as the column's index does.
    sql = `(${l.nativeKey ?? l.sql} ${op} ${r.nativeKey ?? r.sql})`;
  } else if (t === 'numeric' && !(l.native && r.native)) {
    sql = `(${RT.numCmp}(${l.sql}, ${r.sql}) ${op} 0)`;
  } else if (t === 'bpchar') {
    sql = `(${keyOf(l)} ${op} ${keyOf(r)})`;
  } else if (times) {
    sql = `(${times[0]} ${op} ${times[1]})`;
  } else {
    sql = `(${l.sql} ${op} ${r.sql})`;
  }
  return ex(sql, 'bool', [l, r]);
}

/**
 * Both sides of a date or timestamp comparison as the integers the embedded store's indexes are keyed on, where one is
 * a stored column and the other a column or a constant (the comparison is the same: the integers keep the text's
 * order); null where either has no such integer.
 */
function timeKeys(type: 'date' | 'timestamp', l: Ex, r: Ex): [string, string] | null {
  const integerOf = (e: Ex): string | null => {
    if (e.timeKey) return e.timeKey.of === e.sql ? e.timeKey.key : null;
    if (e.konst?.kind !== 'value' || typeof e.konst.value !== 'string') return null;
    const key = temporalKey(type, e.konst.value);
    return key === null ? null : String(key);
  };
  const [lk, rk] = [integerOf(l), integerOf(r)];
  return lk !== null && rk !== null && (l.timeKey?.of === l.sql || r.timeKey?.of === r.sql) ? [lk, rk] : null;
}

/** IS [NOT] DISTINCT FROM: equality where NULL equals NULL. */
export function distinctEx(left: Ex, right: Ex, not: boolean): Ex {
  const t = comparisonType('=', left, right);
  const l = coerce(left, t);
  const r = coerce(right, t);
  const [lk, rk] = equalityKeys(l, r);
  const sql = `(${lk} ${not ? 'IS' : 'IS NOT'} ${rk})`;
  return ex(sql, 'bool', [l, r]);
}

/** A condition (WHERE, ON, HAVING, CASE WHEN, AND/OR/NOT argument) must be boolean. */
export function requireBool(e: Ex, where: string): Ex {
  if (e.type === 'bool') return e;
  if (e.type === 'unknown') return coerce(e, 'bool');
  throw new SqlFailure(`argument of ${where} must be type boolean, not type ${displayType(e.type)}`);
}

/** The common type of several expressions (CASE, COALESCE, UNION…), coerced to it; PostgreSQL's error otherwise. */
export function unify(es: readonly Ex[], context: string): { type: PgType; items: Ex[] } {
  const common = commonType(es.map((e) => e.type));
  if ('conflict' in common) {
    const [a, b] = common.conflict;
    throw new SqlFailure(`${context} types ${displayType(a)} and ${displayType(b)} cannot be matched`);
  }
  return { type: common.type, items: es.map((e) => coerce(e, common.type)) };
}
