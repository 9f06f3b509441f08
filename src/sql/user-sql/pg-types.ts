// The PostgreSQL types the translation models: names as PostgreSQL reports them (typname, for `fields`) and as
// it words them in messages (format_type), categories, and how common types are chosen (select_common_type).

export type PgType =
  | 'int2'
  | 'int4'
  | 'int8'
  | 'numeric'
  | 'float4'
  | 'float8'
  | 'text'
  | 'varchar'
  | 'bpchar'
  | 'bool'
  | 'date'
  | 'timestamp'
  | 'tsvector'
  | 'tsquery'
  | 'unknown';

/** How PostgreSQL names a type in its messages. */
const DISPLAY: Record<PgType, string> = {
  int2: 'smallint',
  int4: 'integer',
  int8: 'bigint',
  numeric: 'numeric',
  float4: 'real',
  float8: 'double precision',
  text: 'text',
  varchar: 'character varying',
  bpchar: 'character',
  bool: 'boolean',
  date: 'date',
  timestamp: 'timestamp without time zone',
  tsvector: 'tsvector',
  tsquery: 'tsquery',
  unknown: 'unknown',
};

export function displayType(t: PgType): string {
  return DISPLAY[t];
}

/** Numeric types in PostgreSQL's implicit-cast order: each converts implicitly to every later one. */
const NUMERIC_ORDER: readonly PgType[] = ['int2', 'int4', 'int8', 'numeric', 'float4', 'float8'];

export function isNumericType(t: PgType): boolean {
  return NUMERIC_ORDER.includes(t);
}

export function isIntegerType(t: PgType): t is 'int2' | 'int4' | 'int8' {
  return t === 'int2' || t === 'int4' || t === 'int8';
}

export function isFloatType(t: PgType): t is 'float4' | 'float8' {
  return t === 'float4' || t === 'float8';
}

export function isStringType(t: PgType): boolean {
  return t === 'text' || t === 'varchar' || t === 'bpchar';
}

export function isDateTimeType(t: PgType): boolean {
  return t === 'date' || t === 'timestamp';
}

export type Category = 'N' | 'S' | 'D' | 'B' | 'U' | 'X';

/** PostgreSQL's type categories (pg_type.typcategory) for the types modelled; X stands for the text-search types. */
export function category(t: PgType): Category {
  if (isNumericType(t)) return 'N';
  if (isStringType(t)) return 'S';
  if (isDateTimeType(t)) return 'D';
  if (t === 'bool') return 'B';
  if (t === 'unknown') return 'U';
  return 'X';
}

export function numericRank(t: PgType): number {
  return NUMERIC_ORDER.indexOf(t);
}

/** Whether PostgreSQL converts a value of type `from` to `to` implicitly (the cases that matter here). */
export function implicitlyConvertible(from: PgType, to: PgType): boolean {
  if (from === to || from === 'unknown') return true;
  if (isNumericType(from) && isNumericType(to)) return numericRank(from) < numericRank(to);
  if (isStringType(from) && to === 'text') return true;
  if (from === 'bpchar' && to === 'varchar') return true;
  if (from === 'varchar' && to === 'bpchar') return true;
  if (from === 'date' && to === 'timestamp') return true;
  return false;
}

/**
 * select_common_type: unknowns give way; all others must share a category; within it the preferred type
 * (float8, text, timestamp) wins, else the last type the earlier ones convert to. Null when no type fits
 * (the caller words the error, naming the first two types that cannot be matched).
 */
export function commonType(types: readonly PgType[]): { type: PgType } | { conflict: [PgType, PgType] } {
  const known = types.filter((t) => t !== 'unknown');
  if (known.length === 0) return { type: 'text' };
  let result = known[0]!;
  const cat = category(result);
  for (const t of known.slice(1)) {
    if (category(t) !== cat) return { conflict: [result, t] };
    if (t === result) continue;
    if (cat === 'N') {
      if (numericRank(t) > numericRank(result)) result = t;
    } else if (cat === 'S') {
      // Mixed string types meet in text, PostgreSQL's preferred string type.
      result = 'text';
    } else if (cat === 'D') {
      result = 'timestamp';
    } else {
      return { conflict: [result, t] };
    }
  }
  return { type: result };
}

/** A target type of a cast, with its modifier (varchar(n), bpchar(n), numeric(p, s), timestamp(p)). */
export interface CastTarget {
  type: PgType;
  /** Length for varchar/bpchar; precision for numeric and timestamp. */
  length?: number;
  /** Scale for numeric(p, s). */
  scale?: number;
}

/**
 * Names a cast may use, after PostgreSQL's grammar has mapped its keywords (INT → pg_catalog.int4, DOUBLE
 * PRECISION → float8, CHAR → bpchar, …). Unqualified names are looked up as PostgreSQL's catalogue would.
 */
export const TYPE_NAMES: Readonly<Record<string, PgType>> = {
  int2: 'int2',
  int4: 'int4',
  int8: 'int8',
  numeric: 'numeric',
  float4: 'float4',
  float8: 'float8',
  text: 'text',
  varchar: 'varchar',
  bpchar: 'bpchar',
  bool: 'bool',
  date: 'date',
  timestamp: 'timestamp',
  tsvector: 'tsvector',
  tsquery: 'tsquery',
};

/** Type names PostgreSQL knows but the embedded store does not model (a 409 naming them, not "does not exist"). */
export const UNSUPPORTED_TYPE_NAMES: ReadonlySet<string> = new Set([
  'interval',
  'time',
  'timetz',
  'timestamptz',
  'json',
  'jsonb',
  'bytea',
  'uuid',
  'money',
  'inet',
  'cidr',
  'macaddr',
  'macaddr8',
  'bit',
  'varbit',
  'xml',
  'point',
  'line',
  'lseg',
  'box',
  'path',
  'polygon',
  'circle',
  'oid',
  'regclass',
  'regproc',
  'regprocedure',
  'regtype',
  'regconfig',
  'regnamespace',
  'regrole',
  'char',
  'name',
  'int4range',
  'int8range',
  'numrange',
  'tsrange',
  'tstzrange',
  'daterange',
  'record',
  'anyelement',
  'void',
  'txid_snapshot',
  'pg_lsn',
  'cstring',
]);
