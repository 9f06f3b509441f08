// SQLite statements that create and fill the embedded database: resource tables, their indexes and the
// full-text candidate index, and the tables that record what was loaded from where.

import type { FieldDefinition, FieldType } from '../../catalog/types.js';
import type { IndexSpec } from '../../catalog/indexes.js';
import { rowSpec, SQLITE_FUNCTIONS } from './functions.js';
import { quoteIdent, quoteLiteral, resourceTables } from './quote.js';

/** Bumped whenever the layout below changes, so existing database files are rebuilt rather than misread. */
export const SQLITE_SCHEMA_VERSION = 13;

/**
 * The column that keeps a numeric field's exact text (every digit and the scale, "12.50"), beside the field's own
 * column, a double, which filters, sorts and indexes use. It holds a value only where the double's shortest digits
 * are not that text (a trailing zero, more than 15 significant digits), so whole numbers cost nothing. Field ids never
 * start with "_" (CKAN reserves those), so the name cannot be a field's.
 */
export function exactColumn(fieldId: string): string {
  return `_exact:${fieldId}`;
}

/**
 * A numeric field's value with every digit: its exact text where it has one, else the double. `table`: a quoted name
 * to qualify the columns with.
 */
export function exactValueSql(fieldId: string, table?: string): string {
  const column = (name: string) => (table ? `${table}.${quoteIdent(name)}` : quoteIdent(name));
  return `coalesce(${column(exactColumn(fieldId))}, ${column(fieldId)})`;
}

/**
 * The arguments of the row functions (SQLITE_FUNCTIONS.rowTsMatch and its kin) for a row of these fields: the row's
 * spec, then each field's value, a numeric's with every digit (what the load read, and made the row's vector from).
 */
export function rowArgumentsSql(
  language: string,
  fields: readonly { id: string; type: FieldType | 'int' }[],
  table?: string,
): string {
  const types = fields.map((f) => (f.type === 'int' ? 'int4' : f.type));
  const values = fields.map((f) =>
    f.type === 'numeric' ? exactValueSql(f.id, table) : table ? `${table}.${quoteIdent(f.id)}` : quoteIdent(f.id),
  );
  return [quoteLiteral(rowSpec(language, types)), ...values].join(', ');
}

/**
 * The row's `_full_text`, worked out from its values: what user SQL reads as that column. `table`: a quoted name to
 * qualify the columns with.
 */
export function rowTsvectorSql(
  language: string,
  fields: readonly { id: string; type: FieldType }[],
  table?: string,
): string {
  return `${SQLITE_FUNCTIONS.rowTsvector}(${rowArgumentsSql(language, fields, table)})`;
}

/** A resource's numeric fields: its table has an exact-text column for each, after the fields, in field order. */
export function exactFieldIds(fields: readonly { id: string; type: string }[]): string[] {
  return fields.filter((f) => f.type === 'numeric').map((f) => f.id);
}

/**
 * The page size of a new database file, in bytes. A load's cost is mostly whole-table passes (each `CREATE INDEX` reads
 * every page of its table) and each page read is a system call, so pages twice SQLite's default make a
 * 1,000,000-record, 14-field `add` about a fifth faster (41 s against 50 s, with less system time). 16 KiB and 32 KiB did
 * no better there, and 16 KiB made a narrow table's load slower (a 3,000,000-record, five-field Parquet file: 43–46 s
 * against 40–41 s at 8 KiB, 41–42 s at 4 KiB). A file keeps the size it was made with: a load that starts from the
 * served file keeps its.
 */
export const SQLITE_PAGE_SIZE = 8_192;

/** SQLite's limit on a table's columns (SQLITE_MAX_COLUMN, as better-sqlite3 builds it). */
export const SQLITE_MAX_COLUMNS = 2000;

/** The columns of a resource's table: `_id`, a column per field, then the numeric fields' exact texts. */
export function dataColumnCount(fields: readonly { id: string; type: string }[]): number {
  return columnCount(fields.length, exactFieldIds(fields).length);
}

function columnCount(fieldCount: number, exactCount: number): number {
  return 1 + fieldCount + exactCount;
}

const COLUMN_TYPES: Record<FieldType, string> = {
  text: 'TEXT',
  // NUMERIC affinity keeps whole numbers as integers and others as doubles; both compare numerically.
  numeric: 'NUMERIC',
  int4: 'INTEGER',
  int8: 'INTEGER',
  // No affinity: REAL's would store -0 as the integer 0 (an integral value), and PostgreSQL writes float8's -0 as "-0".
  // The loader binds every float8 value as a double, so nothing else changes.
  float8: '',
  bool: 'INTEGER',
  // ISO 8601 text sorts and compares in time order.
  date: 'TEXT',
  timestamp: 'TEXT',
};

export const META_TABLES = {
  meta: quoteIdent('_countcentre_meta'),
  resources: quoteIdent('_countcentre_resources'),
};

export function createMetaTablesSql(): string[] {
  return [
    `CREATE TABLE ${META_TABLES.meta} ("key" TEXT PRIMARY KEY, "value" TEXT NOT NULL)`,
    `CREATE TABLE ${META_TABLES.resources} ("id" TEXT PRIMARY KEY, "source_sha256" TEXT NOT NULL, ` +
      `"spec_hash" TEXT NOT NULL, "total" INTEGER NOT NULL, "loaded_at" TEXT NOT NULL, "source" TEXT NOT NULL, ` +
      `"data_bytes" INTEGER NOT NULL DEFAULT 0, "index_bytes" INTEGER NOT NULL DEFAULT 0, "null_fields" TEXT NOT NULL DEFAULT '[]', ` +
      `"inputs" TEXT NOT NULL DEFAULT '[]', "max_id" INTEGER NOT NULL DEFAULT 0, "exact_fields" TEXT NOT NULL DEFAULT '[]', ` +
      `"built_indexes" TEXT NOT NULL DEFAULT '[]', "unbuilt_indexes" TEXT NOT NULL DEFAULT '[]', "quoted_fields" TEXT)`,
  ];
}

export const metaSql = {
  put: `INSERT OR REPLACE INTO ${META_TABLES.meta} ("key", "value") VALUES (?, ?)`,
  all: `SELECT "key", "value" FROM ${META_TABLES.meta}`,
  putResource: `INSERT OR REPLACE INTO ${META_TABLES.resources} ("id", "source_sha256", "spec_hash", "total", "loaded_at", "source", "null_fields", "inputs", "max_id", "exact_fields", "built_indexes", "unbuilt_indexes", "quoted_fields") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  allResources: `SELECT "id", "source_sha256", "spec_hash", "total", "loaded_at", "source", "data_bytes", "index_bytes", "null_fields", "inputs", "max_id", "exact_fields", "built_indexes", "unbuilt_indexes", "quoted_fields" FROM ${META_TABLES.resources}`,
  deleteResource: `DELETE FROM ${META_TABLES.resources} WHERE "id" = ?`,
  /** Bytes of one table or index, from SQLite's dbstat (which reads only that object's pages). */
  objectBytes: `SELECT coalesce(sum(pgsize), 0) AS bytes FROM dbstat WHERE name = ?`,
  /** Objects named "<prefix>…": a resource's indexes and full-text tables are named "<id>__…". */
  objectsNamed: `SELECT name FROM sqlite_schema WHERE substr(name, 1, length(:prefix)) = :prefix`,
  freePages: `SELECT freelist_count AS free, page_count AS pages FROM pragma_freelist_count(), pragma_page_count()`,
  setSizes: `UPDATE ${META_TABLES.resources} SET "data_bytes" = ?, "index_bytes" = ? WHERE "id" = ?`,
  databaseBytes: `SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()`,
  tableExists: `SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`,
};

export function createResourceSql(resourceId: string, fields: readonly FieldDefinition[]): string[] {
  const tables = resourceTables(resourceId);
  const columns = fields.map((f) => `${quoteIdent(f.id)}${COLUMN_TYPES[f.type] ? ` ${COLUMN_TYPES[f.type]}` : ''}`);
  const exact = exactFieldIds(fields)
    .map((id) => `, ${quoteIdent(exactColumn(id))} TEXT`)
    .join('');
  return [
    // The values only, then the numeric fields' exact texts (exactColumn). Records are rendered when they are
    // answered, and a row's `_full_text` is worked out from its values where a query needs it (rowArgumentsSql).
    `CREATE TABLE ${tables.data} ("_id" INTEGER PRIMARY KEY${columns.map((c) => `, ${c}`).join('')}${exact})`,
    // Contentless, presence-only index of hex-encoded lexemes: it only narrows candidates; the exact
    // PostgreSQL-compatible match and rank run on the row's vector, made from its values.
    `CREATE VIRTUAL TABLE ${tables.fullText} USING fts5(lexemes, content=${quoteLiteral('')}, detail=none, columnsize=0, tokenize=${quoteLiteral('ascii')})`,
  ];
}

/** Removes a resource's tables (its indexes go with them), as a reload of it or its removal from the catalogue does. */
export function dropResourceSql(resourceId: string): string[] {
  const tables = resourceTables(resourceId);
  return [`DROP TABLE IF EXISTS ${tables.fullText}`, `DROP TABLE IF EXISTS ${tables.data}`];
}

/** Fresh planner statistics for one resource's table and indexes. */
export function analyzeSql(resourceId: string): string {
  return `ANALYZE ${resourceTables(resourceId).data}`;
}

/** SQLite's limit on one statement's parameters (SQLITE_MAX_VARIABLE_NUMBER, as better-sqlite3 builds it). */
const SQLITE_MAX_PARAMETERS = 32_766;

/** The most rows one insert statement takes: enough to spread a statement's fixed cost, within the parameter limit. */
export function rowsPerInsert(fieldCount: number, exactCount = 0, most = 32): number {
  return Math.max(1, Math.min(most, Math.floor(SQLITE_MAX_PARAMETERS / columnCount(fieldCount, exactCount))));
}

/** `exactCount`: the numeric fields, whose exact texts come last. `rows`: how many rows the statement inserts. */
export function insertRowSql(resourceId: string, fieldCount: number, exactCount = 0, rows = 1): string {
  const row = `(${new Array(columnCount(fieldCount, exactCount)).fill('?').join(', ')})`;
  return `INSERT INTO ${resourceTables(resourceId).data} VALUES ${new Array(rows).fill(row).join(', ')}`;
}

export function insertLexemesSql(resourceId: string): string {
  return `INSERT INTO ${resourceTables(resourceId).fullText} (rowid, lexemes) VALUES (?, ?)`;
}

/**
 * The integer a date's or a timestamp's index is keyed on, and its filters and sorts compare: days since 1970 for a
 * date, microseconds for a timestamp. The row keeps the ISO text that every reader reads; the index holds a date in 2
 * or 3 bytes instead of 10, a timestamp in 8 instead of 19 to 26 (the 3,000,000 flights of bench scenario 8n: 11 bytes
 * a row less). For the canonical text the loader stores (src/catalog/values.ts) the integer has the text's order and
 * tells every two values apart. A timestamp's whole seconds are `unixepoch` of its first 19 characters: with its
 * fraction, unixepoch would truncate a time before 1970 towards 1970, and two times a second apart would meet. `text`
 * is called once for each time the expression reads the value (a bound parameter is bound again).
 */
export function temporalKeySql(type: 'date' | 'timestamp', text: () => string): string {
  if (type === 'date') return `(unixepoch(${text()}) / 86400)`;
  return `(unixepoch(substr(${text()}, 1, 19)) * 1000000 + CAST(substr(substr(${text()}, 21) || '000000', 1, 6) AS INTEGER))`;
}

const CANONICAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const CANONICAL_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/**
 * temporalKeySql's integer for a date's or a timestamp's canonical text, worked out here, so that a filter binds it as
 * a plain number: SQLite's planner reads a bound number against the index's statistics, where it can only guess at an
 * expression (and then read the whole table for a range of a few records). Null for text not in canonical form, or a
 * timestamp too far from 1970 (before 1685, after 2255) for a double to hold its microseconds: those are bound as
 * text, under temporalKeySql.
 */
export function temporalKey(type: 'date' | 'timestamp', text: string): number | null {
  const m = (type === 'date' ? CANONICAL_DATE : CANONICAL_TIMESTAMP).exec(text);
  if (!m) return null;
  const days = daysFromCivil(+m[1]!, +m[2]!, +m[3]!);
  if (type === 'date') return days;
  const seconds = days * 86400 + +m[4]! * 3600 + +m[5]! * 60 + +m[6]!;
  const whole = seconds * 1_000_000;
  const key = whole + +(m[7] ?? '').padEnd(6, '0');
  return Number.isSafeInteger(whole) && Number.isSafeInteger(key) ? key : null;
}

/** Whether a field's index is keyed on temporalKeySql rather than on its column. */
export function keyedByTime(type: FieldType | 'int'): type is 'date' | 'timestamp' {
  return type === 'date' || type === 'timestamp';
}

/**
 * A field as searches compare and sort it, and as its index is built: the column, or a date's or timestamp's integer
 * (temporalKeySql). SQLite uses an index on an expression only where a query writes the same expression.
 */
export function keyExpression(field: { id: string; type: FieldType | 'int' }): string {
  const column = quoteIdent(field.id);
  return keyedByTime(field.type) ? temporalKeySql(field.type, () => column) : column;
}

/**
 * An index's columns. A sort index's `_id` is left to SQLite, whose every index entry ends with its row's `_id` (the
 * rowid) already: `("Votes" DESC)` is the order of `ORDER BY "Votes" DESC, "_id"`.
 */
function columns(spec: IndexSpec, typeOf: (fieldId: string) => FieldType): string {
  const fields = spec.fields.length === 2 && spec.fields[1] === '_id' ? spec.fields.slice(0, 1) : spec.fields;
  return fields
    .map((f, i) => `${keyExpression({ id: f, type: typeOf(f) })}${i === 0 && spec.descending ? ' DESC' : ''}`)
    .join(', ');
}

/** The field and composite indexes `specs` names (see src/catalog/indexes.ts), each built unless it is there. */
export function createIndexesSql(
  resource: { id: string; fields: readonly { id: string; type: FieldType }[] },
  specs: readonly IndexSpec[],
): string[] {
  const table = resourceTables(resource.id).data;
  const types = new Map(resource.fields.map((f) => [f.id, f.type]));
  const typeOf = (id: string): FieldType => {
    const type = types.get(id);
    if (!type) throw new Error(`resource ${resource.id} has no field "${id}" to index`);
    return type;
  };
  return specs.map(
    (spec) => `CREATE INDEX IF NOT EXISTS ${quoteIdent(spec.name)} ON ${table} (${columns(spec, typeOf)})`,
  );
}

/**
 * Around a whole table's rows going into its full-text index: FTS5's merging of its segments as they fill is put off
 * until they are all in, then done once ('optimize'), which leaves one segment, as fast to search as any. On 3,000,000
 * rows that takes 16 s instead of 20 s of merging as it goes. Merging as it goes is then set back to FTS5's default, for
 * patches.
 */
export function fullTextBulkSql(resourceId: string): { before: string[]; after: string[] } {
  const index = resourceTables(resourceId).fullText;
  return {
    before: [`INSERT INTO ${index} (${index}, rank) VALUES ('automerge', 0)`],
    after: [
      `INSERT INTO ${index} (${index}) VALUES ('optimize')`,
      `INSERT INTO ${index} (${index}, rank) VALUES ('automerge', 4)`,
    ],
  };
}

/** The full-text candidate index's document of each row, worked out from its values (see rowArgumentsSql). */
export function rowFtsDocumentSql(language: string, fields: readonly { id: string; type: FieldType }[]): string {
  return `${SQLITE_FUNCTIONS.rowFtsDocument}(${rowArgumentsSql(language, fields)})`;
}

/**
 * Copies a resource's tables unchanged from an attached database (schema `previous`). The full-text index is
 * contentless, so it is made again from each row's values rather than read back.
 */
export function copyResourceSql(resourceId: string, language: string, fields: readonly FieldDefinition[]): string[] {
  const tables = resourceTables(resourceId);
  return [
    `INSERT INTO ${tables.data} SELECT * FROM "previous".${tables.data}`,
    `INSERT INTO ${tables.fullText} (rowid, lexemes) SELECT "_id", ${rowFtsDocumentSql(language, fields)} FROM "previous".${tables.data}`,
  ];
}

export const attachPreviousSql = `ATTACH DATABASE ? AS "previous"`;
export const detachPreviousSql = `DETACH DATABASE "previous"`;
