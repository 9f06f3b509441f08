// Reads what a PostgreSQL schema records about its loads: layout version, dataset version, and per resource its
// source checksum, catalogue-entry hash, record count and sizes.

import type pg from 'pg';
import { metaSql, POSTGRES_SCHEMA_VERSION } from '../../sql/postgres/ddl.js';
import type { InputRecord, ResourceLoadRecord, StoreMeta } from '../load-target.js';

interface ResourceRow {
  id: string;
  source_sha256: string;
  spec_hash: string;
  total: string;
  loaded_at: string;
  source: string;
  data_bytes: string;
  index_bytes: string;
  null_fields: string;
  table_name: string;
  inputs: string;
  max_id: string;
}

/** The schema's meta, or null when it holds none we can use (never loaded, or loaded with another layout). */
export async function readPostgresMeta(db: pg.Pool | pg.Client, schema: string): Promise<StoreMeta | null> {
  const sql = metaSql(schema);
  const present = await db.query<{ present: boolean }>(sql.tablesExist, sql.tableNames);
  if (!present.rows[0]?.present) return null;
  const values = new Map((await db.query<{ key: string; value: string }>(sql.all)).rows.map((r) => [r.key, r.value]));
  if (Number(values.get('schema_version') ?? 0) !== POSTGRES_SCHEMA_VERSION) return null;
  const resources = new Map<string, ResourceLoadRecord>();
  for (const row of (await db.query<ResourceRow>(sql.allResources)).rows) {
    resources.set(row.id, {
      id: row.id,
      sourceSha256: row.source_sha256,
      specHash: row.spec_hash,
      total: Number(row.total),
      loadedAt: row.loaded_at,
      source: row.source,
      dataBytes: Number(row.data_bytes),
      indexBytes: Number(row.index_bytes),
      nullFields: JSON.parse(row.null_fields) as string[],
      table: row.table_name,
      inputs: JSON.parse(row.inputs) as InputRecord[],
      maxId: Number(row.max_id),
    });
  }
  return {
    schemaVersion: POSTGRES_SCHEMA_VERSION,
    datasetVersion: values.get('dataset_version') ?? '',
    builtAt: values.get('built_at') ?? '',
    fullTextLanguage: values.get('full_text_language') ?? '',
    databaseBytes: Number(values.get('database_bytes') ?? 0),
    resources,
    catalog: values.get('catalog') ?? '',
  };
}

/** How many loads this schema has published (numbers each load's tables); 0 before the first. */
export async function readGeneration(db: pg.Pool | pg.Client, schema: string): Promise<number> {
  const sql = metaSql(schema);
  const present = await db.query<{ present: boolean }>(sql.tablesExist, sql.tableNames);
  if (!present.rows[0]?.present) return 0;
  const values = new Map((await db.query<{ key: string; value: string }>(sql.all)).rows.map((r) => [r.key, r.value]));
  return Number(values.get('generation') ?? 0);
}
