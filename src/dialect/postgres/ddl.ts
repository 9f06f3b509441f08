// PostgreSQL statements that create, fill and publish resources in CKAN's DataStore layout: one table per resource and
// load (a generation; a mirror's patch makes a view instead, patch.ts), `_id` as the key, typed columns, a `_full_text`
// tsvector with a GIN index; per resource a view named by its id that shows the published generation; and the
// catalogue tables.

import { createHash } from 'node:crypto';
import type { FieldDefinition, FieldType, ResourceDefinition } from '../../catalog/types.js';
import type { IndexSpec } from '../../catalog/indexes.js';
import { foldSqlBody, foldSqlExpression, isTextSearchConfig } from '../../text-search/index.js';
import { qualified, quoteIdent, quoteLiteral } from './quote.js';

/** Bumped whenever the layout below changes, so an existing schema is reloaded rather than misread. */
export const POSTGRES_SCHEMA_VERSION = 12;

/**
 * A field as searches compare and sort it, and as its index is built: text by code point (CKAN's C collation).
 * Equality is the same in any deterministic collation, but PostgreSQL uses an index only for its own collation.
 */
export function keyExpression(field: { id: string; type: FieldType | 'int' }): string {
  return field.type === 'text' ? `${quoteIdent(field.id)} COLLATE "C"` : quoteIdent(field.id);
}

export const COLUMN_TYPES: Record<FieldType | 'int', string> = {
  text: 'text',
  numeric: 'numeric',
  int: 'integer',
  int4: 'integer',
  int8: 'bigint',
  float8: 'double precision',
  bool: 'boolean',
  date: 'date',
  timestamp: 'timestamp',
};

const TIMESTAMP_TEXT = 'countcentre_timestamp_text';
const DATE_TEXT = 'countcentre_date_text';
const DOCUMENT = 'countcentre_document';
const FOLD = 'countcentre_fold';

/** Text with its accents folded as the embedded store folds it (src/text-search/fold.ts), for full-text matching. */
export function foldSql(schema: string, text: string): string {
  return `${quoteIdent(schema)}.${FOLD}(${text})`;
}

/**
 * Where things live: `data` holds the resource tables (with the stores' own columns, such as `_full_text`), the catalogue
 * tables and helper functions; `public` holds, per resource, a view of exactly CKAN's columns in CKAN's order (_id,
 * _full_text, the fields), which is all datastore_search_sql can see, as in CKAN's DataStore.
 */
export interface PgSchemas {
  data: string;
  public: string;
}

/**
 * The table (or a patch's view) of one load of a resource. Each load writes a table of its own and publishing points
 * the resource's view at it, so a request that began on the previous generation still finds its table; that one is
 * dropped by the load after next. Resource ids are at most 50 characters, so the name (and a patch's segment, with a
 * plus) stays within PostgreSQL's 63.
 */
export function generationTable(resourceId: string, generation: number): string {
  return `${resourceId}@${generation.toString(36)}`;
}

/**
 * Whether a table or view in the data schema is a resource's generation (anything else there is the catalogue's): a
 * load's table, a patch's view, or the segment a patch adds (the view's name and a plus). CKAN's `_table_metadata` is
 * loaded as a resource too, so its generations go as the others do.
 */
export const GENERATION_TABLE = /^(?:[A-Za-z0-9][A-Za-z0-9_-]{0,49}|_table_metadata)@[0-9a-z]+\+?$/;

/** Index names from a digest of their table's name: short, whatever the resource id, and unique per generation. */
function indexName(table: string, suffix: string): string {
  return `cc_${createHash('sha1').update(table).digest('hex').slice(0, 20)}_${suffix}`;
}

export function schemaSetupSql(schemas: PgSchemas, readerRole: string): string[] {
  const schema = schemas.data;
  const s = quoteIdent(schema);
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schemas.public)}`,
    // The next three made the _full_text of tables loaded by earlier layouts, whose generated columns still call them
    // until those tables are dropped, so they stay. They declare immutable what is only stable (to_char for its locale
    // settings, which these formats do not use; array_to_string for its elements' output functions).
    `CREATE OR REPLACE FUNCTION ${s}.${TIMESTAMP_TEXT}(timestamp) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE ` +
      `AS $$ SELECT rtrim(rtrim(to_char($1, 'YYYY-MM-DD"T"HH24:MI:SS.US'), '0'), '.') $$`,
    `CREATE OR REPLACE FUNCTION ${s}.${DATE_TEXT}(date) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT to_char($1, 'YYYY-MM-DD') $$`,
    `CREATE OR REPLACE FUNCTION ${s}.${DOCUMENT}(VARIADIC text[]) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT array_to_string($1, ' ') $$`,
    // Names are found without their fadas: indexed text and field matches are folded by the same table as queries.
    `CREATE OR REPLACE FUNCTION ${s}.${FOLD}(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ ${foldSqlBody(quoteLiteral)} $$`,
    `CREATE TABLE IF NOT EXISTS ${qualified(schema, '_countcentre_meta')} ("key" text PRIMARY KEY, "value" text NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${qualified(schema, '_countcentre_resources')} ("id" text PRIMARY KEY, "source_sha256" text NOT NULL, ` +
      `"spec_hash" text NOT NULL, "total" bigint NOT NULL, "loaded_at" text NOT NULL, "source" text NOT NULL, ` +
      `"data_bytes" bigint NOT NULL DEFAULT 0, "index_bytes" bigint NOT NULL DEFAULT 0, "null_fields" text NOT NULL DEFAULT '[]', ` +
      `"table_name" text NOT NULL DEFAULT '')`,
    `ALTER TABLE ${qualified(schema, '_countcentre_resources')} ADD COLUMN IF NOT EXISTS "null_fields" text NOT NULL DEFAULT '[]'`,
    `ALTER TABLE ${qualified(schema, '_countcentre_resources')} ADD COLUMN IF NOT EXISTS "table_name" text NOT NULL DEFAULT ''`,
    `ALTER TABLE ${qualified(schema, '_countcentre_resources')} ADD COLUMN IF NOT EXISTS "inputs" text NOT NULL DEFAULT '[]'`,
    `ALTER TABLE ${qualified(schema, '_countcentre_resources')} ADD COLUMN IF NOT EXISTS "max_id" bigint NOT NULL DEFAULT 0`,
    `ALTER TABLE ${qualified(schema, '_countcentre_resources')} ADD COLUMN IF NOT EXISTS "built_indexes" text NOT NULL DEFAULT '[]'`,
    `ALTER TABLE ${qualified(schema, '_countcentre_resources')} ADD COLUMN IF NOT EXISTS "unbuilt_indexes" text NOT NULL DEFAULT '[]'`,
    `ALTER TABLE ${qualified(schema, '_countcentre_resources')} ADD COLUMN IF NOT EXISTS "quoted_fields" text`,
    `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${quoteLiteral(readerRole)}) THEN CREATE ROLE ${quoteIdent(readerRole)} NOLOGIN; END IF; END $$`,
    `GRANT USAGE ON SCHEMA ${s} TO ${quoteIdent(readerRole)}`,
    `GRANT USAGE ON SCHEMA ${quoteIdent(schemas.public)} TO ${quoteIdent(readerRole)}`,
    // Readers on a replica check which version of the data it holds before they are sent there.
    `GRANT SELECT ON ${qualified(schema, '_countcentre_meta')} TO ${quoteIdent(readerRole)}`,
  ];
}

/**
 * Text of a year as to_char's YYYY prints it: at least four digits, a year before the common era without its sign.
 * Built from immutable parts, as every piece of a generated column must be (to_char is only stable).
 */
function yearTextSql(value: string): string {
  const year = `abs(extract(year from ${value}))::text`;
  return `lpad(${year}, greatest(length(${year}), 4), '0')`;
}

/** `YYYY-MM-DD`, equal to to_char(value, 'YYYY-MM-DD') for every date PostgreSQL can print. */
function dateTextSql(value: string): string {
  return (
    `${yearTextSql(value)} || '-' || lpad(extract(month from ${value})::text, 2, '0') || '-' || ` +
    `lpad(extract(day from ${value})::text, 2, '0')`
  );
}

/** CKAN's ISO form (row_to_json's): the date, "T", the time, the fraction of a second without trailing zeros. */
function timestampTextSql(value: string): string {
  // extract(second …) of a timestamp is numeric with six decimals ("5.000000"), so trimming zeros then the point
  // leaves whole seconds bare, as trimming to_char's ".US" does.
  return (
    `${dateTextSql(value)} || 'T' || lpad(extract(hour from ${value})::text, 2, '0') || ':' || ` +
    `lpad(extract(minute from ${value})::text, 2, '0') || ':' || ` +
    `rtrim(rtrim(lpad(extract(second from ${value})::text, 9, '0'), '0'), '.')`
  );
}

/** The text of one value as the whole-record index reads it: the same text the embedded store indexes. */
function fullTextPart(field: FieldDefinition, text: (column: string) => string): string {
  const column = quoteIdent(field.id);
  switch (field.type) {
    case 'text':
      return text(column);
    case 'timestamp':
      return timestampTextSql(column);
    case 'date':
      return dateTextSql(column);
    case 'bool':
      return `CASE WHEN ${column} THEN 'true' WHEN NOT ${column} THEN 'false' END`;
    default:
      return `${column}::text`;
  }
}

/** The first code point of a combining mark (U+0300): a text value starting before it starts with a starter. */
const FIRST_COMBINING = 0x300;

/**
 * CKAN's _full_text of a row, computed by PostgreSQL from the row's columns, with accents folded, for a full-text
 * language the loader cannot make vectors in itself (one src/text-search/ does not implement, such as french): the
 * table's `_full_text` is then a generated column of this expression. It is to_tsvector of the
 * values joined by spaces, NULLs left out (each value is followed by a space: a trailing one changes no lexeme or
 * position), folded as a whole.
 *
 * It is written inline, with no function of ours on the common path: a generated column calls an SQL function that it
 * cannot inline (any that wraps a stable one, such as to_char or array_to_string) through the SQL executor once per
 * row, and the date's text, the document and the fold were three such calls. And each text value is folded on its
 * own, which is the same as folding the document: the fold works character by character (letters replaced, a value's
 * own decomposed marks dropped after an ASCII letter), and the spaces between values are starters that neither
 * compose nor reorder with what follows. The one exception is a value that starts with a combining mark, which the
 * document's fold would drop after the space before it: a row with a text value starting at U+0300 or later (a
 * combining mark, or a letter whose decomposition might start with one) is folded as a whole document instead,
 * through the fold function. COPY of 1,000,000 rows of the 14-field bench file, four in five holding an accented
 * name, took 53 s with the three functions and 37 s with this; the Parquet bench file, whose text is ASCII, 3,000,000
 * rows in 50 s and 26 s.
 */
export function fullTextExpressionSql(schema: string, resource: ResourceDefinition, fullTextLanguage: string): string {
  const document = (text: (column: string) => string) =>
    resource.fields.length === 0
      ? `''`
      : resource.fields.map((f) => `coalesce(${fullTextPart(f, text)} || ' ', '')`).join(' || ');
  const texts = resource.fields.filter((f) => f.type === 'text').map((f) => quoteIdent(f.id));
  const folded =
    texts.length === 0
      ? document((c) => c)
      : `CASE WHEN ${texts.map((c) => `ascii(${c}) >= ${FIRST_COMBINING}`).join(' OR ')} ` +
        `THEN ${foldSql(
          schema,
          document((c) => c),
        )} ELSE ${document((c) => foldSqlExpression(quoteLiteral, c))} END`;
  return `to_tsvector(${quoteLiteral(fullTextLanguage)}::regconfig, ${folded})`;
}

/**
 * Whether the loader makes the rows' `_full_text` itself (src/catalog/row-text.ts: the same vectors the embedded store
 * indexes) and sends it with the values, or, for a language src/text-search/ does not implement, PostgreSQL computes it
 * as a generated column (fullTextExpressionSql).
 */
export function vectorsFromLoader(fullTextLanguage: string): boolean {
  return isTextSearchConfig(fullTextLanguage);
}

/**
 * A load's table: `_id`, the fields' typed columns and `_full_text`. Records are stored as values only: they are
 * rendered when answered. `_full_text` is a plain tsvector column that the loader fills with each row's vector, made
 * from its values in the loading process (accents folded as queries fold them): PostgreSQL then parses the vector's
 * text instead of folding and parsing every value itself, which took about 85 % of the server's time under COPY.
 */
export function createGenerationTableSql(
  schema: string,
  table: string,
  resource: ResourceDefinition,
  fullTextLanguage: string,
): string[] {
  const qualifiedTable = qualified(schema, table);
  const columns = resource.fields.map((f) => `, ${quoteIdent(f.id)} ${COLUMN_TYPES[f.type]}`);
  const fullText = vectorsFromLoader(fullTextLanguage)
    ? '"_full_text" tsvector'
    : `"_full_text" tsvector GENERATED ALWAYS AS (${fullTextExpressionSql(schema, resource, fullTextLanguage)}) STORED`;
  return [
    `DROP TABLE IF EXISTS ${qualifiedTable}`,
    `CREATE TABLE ${qualifiedTable} ("_id" integer NOT NULL${columns.join('')}, ${fullText})`,
  ];
}

/**
 * FREEZE writes the rows already frozen and marked all-visible, so that counts are index-only scans from the first
 * query on (no VACUUM pass over the table); it needs the table to have been created in the same transaction.
 */
export function copyIntoTableSql(
  schema: string,
  table: string,
  resource: ResourceDefinition,
  fullTextLanguage: string,
): string {
  const names = [
    '_id',
    ...resource.fields.map((f) => f.id),
    ...(vectorsFromLoader(fullTextLanguage) ? ['_full_text'] : []),
  ];
  return `COPY ${qualified(schema, table)} (${names.map(quoteIdent).join(', ')}) FROM STDIN WITH (FREEZE)`;
}

/** PostgreSQL's statistics target for indexed fields (its default is 100). */
export const INDEXED_FIELD_STATISTICS = 1000;

/**
 * B-tree pages filled to the brim (PostgreSQL leaves a tenth free by default, for rows inserted later): a published
 * table only grows by a patch's appends, so the free tenth would mostly stay empty. Each B-tree about 10 % smaller
 * (scenario 9 at 1,000,000 records: 694 bytes a record, indexes included, then 680); a later insert in the middle of a
 * key range splits a page sooner, which costs a patch a little and a read nothing.
 */
const PACKED = ' WITH (fillfactor = 100)';

/** The B-tree index of one of a resource's field or composite indexes on a table (see src/catalog/indexes.ts). */
function fieldIndexSql(schema: string, table: string, resource: ResourceDefinition, spec: IndexSpec, how = ''): string {
  const fieldById = new Map(resource.fields.map((f) => [f.id, f]));
  // The store-neutral name ends with the field's position or the composite's number, which name it per table here.
  const suffix = spec.name.slice(resource.id.length + 2);
  // `_id` ends a sort index (see sortIndexName): the table's own column, not one of the resource's fields.
  const columns = spec.fields
    .map((id, i) =>
      id === '_id'
        ? quoteIdent(id)
        : `${keyExpression(fieldById.get(id)!)}${i === 0 && spec.descending ? ' DESC' : ''}`,
    )
    .join(', ');
  return `CREATE INDEX ${how}${quoteIdent(indexName(table, suffix))} ON ${qualified(schema, table)} (${columns})${PACKED}`;
}

/**
 * A finer histogram on indexed fields (1,000 buckets instead of 100) lets the planner see that a range in a field's
 * tail is selective: with the default it walked a million records in _id order looking for a few hundred.
 */
function statisticsSql(schema: string, table: string, fieldIds: readonly string[]): string[] {
  if (fieldIds.length === 0) return [];
  const columns = fieldIds.map((id) => `ALTER COLUMN ${quoteIdent(id)} SET STATISTICS ${INDEXED_FIELD_STATISTICS}`);
  return [`ALTER TABLE ${qualified(schema, table)} ${columns.join(', ')}`];
}

/**
 * Keys and indexes, built after the rows are in (much faster than maintaining them row by row): the full-text index
 * and the key, and the field and composite indexes `specs` names (a load names none: they are built once the resource
 * is published, by indexConcurrentlySql; a patch's new segment has those its version had). The `indexes` are
 * independent of one another and may be built at the same time on separate connections (CREATE INDEX takes a lock
 * that does not conflict with itself); `finish` runs after them all, then `analyze`.
 */
export function indexTableSql(
  schema: string,
  table: string,
  resource: ResourceDefinition,
  specs: readonly IndexSpec[] = [],
): {
  indexes: string[];
  /** The field and composite indexes among `indexes`, each with its key: searches are right without them. */
  optional: Map<string, string>;
  finish: string[];
  analyze: string;
} {
  const qualifiedTable = qualified(schema, table);
  const key = indexName(table, 'pkey');
  // The full-text index takes longest: first, so that the others are built alongside it.
  const indexes = [
    `CREATE INDEX ${quoteIdent(indexName(table, 'fts'))} ON ${qualifiedTable} USING gin ("_full_text")`,
    `CREATE UNIQUE INDEX ${quoteIdent(key)} ON ${qualifiedTable} ("_id")${PACKED}`,
  ];
  const optional = new Map<string, string>();
  for (const spec of specs) {
    const sql = fieldIndexSql(schema, table, resource, spec);
    indexes.push(sql);
    optional.set(sql, spec.key);
  }
  const indexed = specs.filter((s) => s.fields.length === 1).map((s) => s.fields[0]!);
  return {
    indexes,
    optional,
    finish: [
      `ALTER TABLE ${qualifiedTable} ADD CONSTRAINT ${quoteIdent(key)} PRIMARY KEY USING INDEX ${quoteIdent(key)}`,
      ...statisticsSql(schema, table, indexed),
    ],
    analyze: `ANALYZE ${qualifiedTable}`,
  };
}

/**
 * One field or composite index built on a published table while it serves: CONCURRENTLY, so that reads (and the
 * table's other index builds) go on, then the finer histogram on a field's column and fresh statistics of the
 * index's columns only. A whole-table ANALYZE after each build sampled 300,000 rows of every column, full-text
 * vectors included, for each index: 98 s of a 1,000,000-record load's 146. A build cut short leaves an invalid index,
 * which `dropInvalidIndexSql` removes before it is tried again.
 */
export function indexConcurrentlySql(
  schema: string,
  table: string,
  resource: ResourceDefinition,
  spec: IndexSpec,
): { build: string; after: string[] } {
  return {
    build: fieldIndexSql(schema, table, resource, spec, 'CONCURRENTLY IF NOT EXISTS '),
    after: [
      ...statisticsSql(schema, table, spec.fields.length === 1 || spec.fields[1] === '_id' ? [spec.fields[0]!] : []),
      `ANALYZE ${qualified(schema, table)} (${spec.fields.map(quoteIdent).join(', ')})`,
    ],
  };
}

/**
 * Drops what a cut-short concurrent build of this index left (PostgreSQL keeps it, marked invalid; CREATE INDEX … IF NOT
 * EXISTS would then see it and do nothing), so the build can start again.
 */
export function dropInvalidIndexSql(
  schema: string,
  table: string,
  resource: ResourceDefinition,
  spec: IndexSpec,
): string {
  const name = indexName(table, spec.name.slice(resource.id.length + 2));
  return (
    `DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ` +
    `ON n.oid = c.relnamespace WHERE n.nspname = ${quoteLiteral(schema)} AND c.relname = ${quoteLiteral(name)} AND NOT i.indisvalid) ` +
    `THEN EXECUTE ${quoteLiteral(`DROP INDEX ${qualified(schema, name)}`)}; END IF; END $$`
  );
}

/**
 * Makes the second table of a load split over two connections part of the first: PostgreSQL then reads the two as one
 * table (inheritance), each with its own indexes, and drops neither while the other depends on it. See the loader.
 */
export function inheritSql(schema: string, child: string, parent: string): string {
  return `ALTER TABLE ${qualified(schema, child)} INHERIT ${qualified(schema, parent)}`;
}

/** The tables named (qualified) in $1 and the tables that inherit from them: a split load's second table. */
const TABLE_TREES =
  `(SELECT t::oid AS "table" FROM unnest($1::regclass[]) AS t UNION ` +
  `SELECT i.inhrelid FROM pg_inherits i WHERE i.inhparent = ANY($1::regclass[]::oid[])) AS "tree"`;

/** One row: the data and index bytes of the tables named (qualified) in $1 with their inheriting tables, together. */
export const tableSizesSql = `SELECT coalesce(sum(pg_table_size("table")), 0) AS data, coalesce(sum(pg_indexes_size("table")), 0) AS indexes FROM ${TABLE_TREES}`;

/**
 * Points the resource's view (what datastore_search_sql reads) at a generation; run inside the publishing transaction.
 */
export function publishSql(
  schemas: PgSchemas,
  resource: ResourceDefinition,
  table: string,
  readerRole: string,
): string[] {
  const view = qualified(schemas.public, resource.id);
  const ckanColumns = ['_id', '_full_text', ...resource.fields.map((f) => f.id)].map(quoteIdent).join(', ');
  return [
    `GRANT SELECT ON ${qualified(schemas.data, table)} TO ${quoteIdent(readerRole)}`,
    `DROP VIEW IF EXISTS ${view}`,
    `CREATE VIEW ${view} AS SELECT ${ckanColumns} FROM ${qualified(schemas.data, table)}`,
    `GRANT SELECT ON ${view} TO ${quoteIdent(readerRole)}`,
  ];
}

export function dropTableSql(schema: string, name: string): string {
  return `DROP TABLE IF EXISTS ${qualified(schema, name)}`;
}

/** A resource no longer served: its view goes at once (its tables go as retired generations do). */
export function unpublishSql(schemas: PgSchemas, resourceId: string): string {
  return `DROP VIEW IF EXISTS ${qualified(schemas.public, resourceId)}`;
}

/** The notification channel on which a load announces that it has been published. */
export const LOADED_CHANNEL = 'countcentre_loaded';

export function metaSql(schema: string) {
  const meta = qualified(schema, '_countcentre_meta');
  const resources = qualified(schema, '_countcentre_resources');
  return {
    tablesExist: `SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AS present`,
    tableNames: [`${quoteIdent(schema)}._countcentre_meta`, `${quoteIdent(schema)}._countcentre_resources`],
    all: `SELECT "key", "value" FROM ${meta}`,
    datasetVersion: `SELECT "value" FROM ${meta} WHERE "key" = 'dataset_version'`,
    put: `INSERT INTO ${meta} ("key", "value") VALUES ($1, $2) ON CONFLICT ("key") DO UPDATE SET "value" = EXCLUDED."value"`,
    allResources: `SELECT "id", "source_sha256", "spec_hash", "total", "loaded_at", "source", "data_bytes", "index_bytes", "null_fields", "table_name", "inputs", "max_id", "built_indexes", "unbuilt_indexes", "quoted_fields" FROM ${resources}`,
    clearResources: `DELETE FROM ${resources}`,
    putResource: `INSERT INTO ${resources} ("id", "source_sha256", "spec_hash", "total", "loaded_at", "source", "data_bytes", "index_bytes", "null_fields", "table_name", "inputs", "max_id", "built_indexes", "unbuilt_indexes", "quoted_fields") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    /** Records indexes built on a published version (the resource's table still the one named). */
    setIndexes: `UPDATE ${resources} SET "built_indexes" = $3, "unbuilt_indexes" = $4, "index_bytes" = $5 WHERE "id" = $1 AND "table_name" = $2`,
    databaseBytes: `SELECT pg_database_size(current_database()) AS bytes`,
    /** Sent in the publishing transaction, so delivered when it commits; the payload is the data schema. */
    notify: `SELECT pg_notify('${LOADED_CHANNEL}', $1)`,
    listen: `LISTEN ${LOADED_CHANNEL}`,
    /** Serialises loaders: two processes publishing at once would interleave their swaps. */
    lock: `SELECT pg_advisory_lock(hashtext($1))`,
    unlock: `SELECT pg_advisory_unlock(hashtext($1))`,
    /** PostgreSQL's own estimate of a table's rows (CKAN's total_estimation_threshold reads it). */
    /** The planner's count of a table's records, its inheriting table's included; -1 when either was never analysed. */
    estimate:
      `SELECT CASE WHEN min(c.reltuples) < 0 THEN -1 ELSE sum(c.reltuples) END::bigint AS estimate FROM pg_class c ` +
      `WHERE c.oid = to_regclass($1) OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = to_regclass($1))`,
  };
}
