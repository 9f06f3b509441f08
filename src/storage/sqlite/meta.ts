// What an embedded database file records about itself: its layout version, dataset version, and for each
// resource where it was loaded from, with which field mapping, and how many records it holds.

import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { metaSql, SQLITE_SCHEMA_VERSION } from '../../sql/sqlite/ddl.js';
import type { InputRecord, ResourceLoadRecord, StoreMeta } from '../load-target.js';

export type { ResourceLoadRecord, StoreMeta as DatabaseMeta } from '../load-target.js';

interface ResourceRow {
  id: string;
  source_sha256: string;
  spec_hash: string;
  total: number;
  loaded_at: string;
  source: string;
  data_bytes: number;
  index_bytes: number;
  null_fields: string;
  inputs: string;
  max_id: number;
  exact_fields: string;
}

export function readMeta(db: Database.Database): StoreMeta {
  const values = new Map<string, string>();
  for (const row of db.prepare(metaSql.all).all() as { key: string; value: string }[]) values.set(row.key, row.value);
  const resources = new Map<string, ResourceLoadRecord>();
  for (const row of db.prepare(metaSql.allResources).all() as ResourceRow[]) {
    resources.set(row.id, {
      id: row.id,
      sourceSha256: row.source_sha256,
      specHash: row.spec_hash,
      total: row.total,
      loadedAt: row.loaded_at,
      source: row.source,
      dataBytes: row.data_bytes,
      indexBytes: row.index_bytes,
      nullFields: JSON.parse(row.null_fields) as string[],
      table: row.id,
      inputs: JSON.parse(row.inputs) as InputRecord[],
      maxId: row.max_id,
      exactFields: JSON.parse(row.exact_fields) as string[],
    });
  }
  return {
    schemaVersion: Number(values.get('schema_version') ?? 0),
    datasetVersion: values.get('dataset_version') ?? '',
    builtAt: values.get('built_at') ?? '',
    fullTextLanguage: values.get('full_text_language') ?? '',
    databaseBytes: Number(values.get('database_bytes') ?? 0),
    resources,
    catalog: values.get('catalog') ?? '',
  };
}

/**
 * The meta of the database file at `file`, or null when there is none we can use (missing, unreadable, or
 * written with another layout version) — in each of those cases it has to be rebuilt.
 */
export function readMetaFromFile(file: string): StoreMeta | null {
  if (!existsSync(file)) return null;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const hasMeta = db.prepare(metaSql.tableExists).get('_countcentre_meta');
    if (!hasMeta) return null;
    const meta = readMeta(db);
    return meta.schemaVersion === SQLITE_SCHEMA_VERSION ? meta : null;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}
