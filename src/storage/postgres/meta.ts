// Reads what a PostgreSQL schema records about its loads: layout version, dataset version, and per resource its
// source checksum, catalogue-entry hash, record count and sizes.

import type pg from 'pg';
import { metaSql, POSTGRES_SCHEMA_VERSION } from '../../dialect/postgres/ddl.js';
import type { StoreMeta } from '../load-target.js';
import { storeMeta, type ResourceRow } from '../meta-record.js';

/** The schema's meta, or null when it holds none we can use (never loaded, or loaded with another layout). */
export async function readPostgresMeta(db: pg.Pool | pg.Client, schema: string): Promise<StoreMeta | null> {
  const sql = metaSql(schema);
  const present = await db.query<{ present: boolean }>(sql.tablesExist, sql.tableNames);
  if (!present.rows[0]?.present) return null;
  const values = new Map((await db.query<{ key: string; value: string }>(sql.all)).rows.map((r) => [r.key, r.value]));
  if (Number(values.get('schema_version') ?? 0) !== POSTGRES_SCHEMA_VERSION) return null;
  return storeMeta(values, (await db.query<ResourceRow>(sql.allResources)).rows);
}

/** The layout version the schema records, when it records one other than this build's. */
export async function otherPostgresLayout(
  db: pg.Pool | pg.Client,
  schema: string,
): Promise<{ found: number; current: number } | null> {
  const sql = metaSql(schema);
  const present = await db.query<{ present: boolean }>(sql.tablesExist, sql.tableNames);
  if (!present.rows[0]?.present) return null;
  const values = new Map((await db.query<{ key: string; value: string }>(sql.all)).rows.map((r) => [r.key, r.value]));
  const found = Number(values.get('schema_version') ?? 0);
  return found === POSTGRES_SCHEMA_VERSION ? null : { found, current: POSTGRES_SCHEMA_VERSION };
}

/** How many loads this schema has published (numbers each load's tables); 0 before the first. */
export async function readGeneration(db: pg.Pool | pg.Client, schema: string): Promise<number> {
  const sql = metaSql(schema);
  const present = await db.query<{ present: boolean }>(sql.tablesExist, sql.tableNames);
  if (!present.rows[0]?.present) return 0;
  const values = new Map((await db.query<{ key: string; value: string }>(sql.all)).rows.map((r) => [r.key, r.value]));
  return Number(values.get('generation') ?? 0);
}
