// A resource patched in the embedded database being built (a copy of the served file): its records in the changed
// `_id` ranges removed, their replacements written as a load writes them (so their values and full-text lexemes are
// made the same way), in one transaction, published by the builder's rename like any load.

import type Database from 'better-sqlite3';
import type { StoredValue } from '../../catalog/values.js';
import { deleteRangeSql, nullFieldsSql, patchedTotalsSql } from '../../dialect/sqlite/patch.js';
import type { IdRange, LoadBase, ResourceLoadRecord } from '../load-target.js';
import type { ResourceShape, RowFacts } from './build-protocol.js';

export async function patchResource(
  db: Database.Database,
  fullTextLanguage: string,
  resource: ResourceShape,
  base: LoadBase,
  previous: ResourceLoadRecord,
  ranges: readonly IdRange[],
  /** Writes the replacements; tells what they held. */
  fill: () => Promise<RowFacts>,
  recordResource: (record: ResourceLoadRecord) => void,
): Promise<ResourceLoadRecord> {
  const { id, fields } = resource;
  const [forget, remove] = deleteRangeSql(id, fullTextLanguage, fields).map((sql) => db.prepare(sql));
  db.exec('BEGIN');
  try {
    for (const range of ranges) {
      forget!.run(range.from, range.to);
      remove!.run(range.from, range.to);
    }
    const facts = await fill();
    const { total, maxId } = db.prepare(patchedTotalsSql(id)).get() as { total: number; maxId: number };
    const nulls = db.prepare(nullFieldsSql(id, fields)).get() as Record<string, StoredValue>;
    const record: ResourceLoadRecord = {
      ...base,
      total,
      maxId,
      loadedAt: new Date().toISOString(),
      table: id,
      dataBytes: previous.dataBytes,
      indexBytes: previous.indexBytes,
      nullFields: fields.filter((_, i) => nulls[`n${i}`] === 1).map((f) => f.id),
      // Quoting as before, and wherever the replacements need it (a superset: a removed record may have been the one).
      ...(previous.quotedFields
        ? { quotedFields: [...new Set([...previous.quotedFields, ...facts.quotedFields])] }
        : {}),
      // The table is patched in place: it keeps its indexes.
      builtIndexes: previous.builtIndexes,
      ...(previous.unbuiltIndexes ? { unbuiltIndexes: previous.unbuiltIndexes } : {}),
    };
    recordResource(record);
    db.exec('COMMIT');
    return record;
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}
