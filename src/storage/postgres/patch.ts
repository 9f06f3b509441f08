// A resource patched in PostgreSQL: a new generation table made from the published one without the changed `_id`
// ranges, their records inserted, then indexed and analysed as a load's table is. The published table is not touched,
// so requests reading the current version keep reading it; the load's commit points the resource at the new one.

import type pg from 'pg';
import { ID_FIELD } from '../../catalog/catalog.js';
import type { ResourceDefinition } from '../../catalog/types.js';
import { numberText, type StoredValue } from '../../catalog/values.js';
import { dropTableSql, indexTableSql, metaSql } from '../../dialect/postgres/ddl.js';
import { copyOutsideRangesSql, insertRecordsSql, patchedFactsSql } from '../../dialect/postgres/patch.js';
import { qualified } from '../../dialect/postgres/quote.js';
import { delimitedWriter, objectWriter } from '../../serialize/records.js';
import { checkedId, type IdRange, type LoadBase, type ResourceLoadRecord, type ResourceSink } from '../load-target.js';
import { storeError } from './connection.js';

/** Records sent per INSERT. */
const BATCH = 200;

export interface PatchContext {
  client: pg.Client;
  schema: string;
  fullTextLanguage: string;
  /** Builds independent statements side by side (the load's index builders). */
  buildSideBySide: (statements: readonly string[]) => Promise<void>;
}

export async function patchTable(
  context: PatchContext,
  resource: ResourceDefinition,
  base: LoadBase,
  previous: ResourceLoadRecord,
  table: string,
  ranges: readonly IdRange[],
  fill: (sink: ResourceSink) => Promise<void>,
): Promise<ResourceLoadRecord> {
  const { client, schema, fullTextLanguage } = context;
  const recordText = objectWriter([ID_FIELD, ...resource.fields]);
  const csvLine = delimitedWriter([ID_FIELD, ...resource.fields], ',');
  const types = resource.fields.map((f) => f.type);
  const param = (value: StoredValue, i: number): string | null => {
    if (value === null) return null;
    if (typeof value === 'number') return numberText(value, types[i]!);
    if (typeof value === 'boolean') return value ? 't' : 'f';
    return value;
  };
  try {
    await client.query('BEGIN');
    for (const sql of copyOutsideRangesSql(schema, table, previous.table, ranges)) await client.query(sql);
    let batch: (string | number | null)[] = [];
    let rows = 0;
    const flush = async () => {
      if (rows === 0) return;
      await client.query(insertRecordsSql(schema, table, resource, fullTextLanguage, rows), batch);
      batch = [];
      rows = 0;
    };
    let count = 0;
    let maxId = 0;
    const sink: ResourceSink = {
      get count() {
        return count;
      },
      insert(values, id) {
        count += 1;
        const rowId = checkedId(id, count, maxId);
        maxId = rowId;
        const row = [rowId, ...values];
        batch.push(rowId, ...values.map(param), recordText.record(row), csvLine.record(row));
        rows += 1;
        return rows >= BATCH ? flush() : undefined;
      },
    };
    await fill(sink);
    await flush();
    await client.query('COMMIT');
    const { indexes, finish } = indexTableSql(schema, table, resource);
    await context.buildSideBySide(indexes);
    for (const sql of finish) await client.query(sql);
    const facts = (await client.query<Record<string, unknown>>(patchedFactsSql(schema, table, resource))).rows[0]!;
    const sized = [qualified(schema, table)];
    const sizes = await client.query<{ data: string; indexes: string }>(metaSql(schema).sizes, sized);
    return {
      ...base,
      total: Number(facts.total),
      maxId: Number(facts.max_id),
      loadedAt: new Date().toISOString(),
      table,
      dataBytes: Number(sizes.rows[0]?.data ?? 0),
      indexBytes: Number(sizes.rows[0]?.indexes ?? 0),
      nullFields: resource.fields.filter((_, i) => facts[`n${i}`] === true).map((f) => f.id),
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    await client.query(dropTableSql(schema, table)).catch(() => {});
    throw storeError(err);
  }
}
