// What an embedded database file records about itself: its layout version, dataset version, and for each
// resource where it was loaded from, with which field mapping, and how many records it holds.

import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { metaSql, SQLITE_SCHEMA_VERSION } from '../../dialect/sqlite/ddl.js';
import type { StoreMeta } from '../load-target.js';
import { storeMeta, type ResourceRow } from '../meta-record.js';

export type { ResourceLoadRecord, StoreMeta as DatabaseMeta } from '../load-target.js';

export function readMeta(db: Database.Database): StoreMeta {
  const values = new Map<string, string>();
  for (const row of db.prepare(metaSql.all).all() as { key: string; value: string }[]) values.set(row.key, row.value);
  return storeMeta(values, db.prepare(metaSql.allResources).all() as ResourceRow[]);
}

/** The layout version the database file at `file` records, when it records one other than this build's. */
export function otherLayoutOfFile(file: string): { found: number; current: number } | null {
  if (!existsSync(file)) return null;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    if (!db.prepare(metaSql.tableExists).get('_countcentre_meta')) return null;
    const row = db.prepare(`${metaSql.all} WHERE "key" = 'schema_version'`).get() as { value: string } | undefined;
    const found = Number(row?.value ?? 0);
    return found === SQLITE_SCHEMA_VERSION ? null : { found, current: SQLITE_SCHEMA_VERSION };
  } catch {
    return null;
  } finally {
    db?.close();
  }
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
