// Field and composite indexes built on published PostgreSQL tables while they serve: CREATE INDEX CONCURRENTLY on each
// table a version reads (a split load's two, a patched version's segments), each index recorded once it is in, and
// only while the version it was built for is still the published one. Builders take a lock of their own, so that one
// process builds at a time; not the loaders' lock: a concurrent build waits for every transaction that might read
// its table, which would include a load waiting on that lock (PostgreSQL reports that as a deadlock). A load that
// replaces the table meanwhile simply leaves the index with the table it retires.

import type pg from 'pg';
import type { IndexSpec } from '../../catalog/indexes.js';
import type { ResourceDefinition } from '../../catalog/types.js';
import { dropInvalidIndexSql, indexConcurrentlySql, metaSql, tableSizesSql } from '../../dialect/postgres/ddl.js';
import { compositionSql, inheritingTablesSql, type Segment } from '../../dialect/postgres/patch.js';
import { qualified } from '../../dialect/postgres/quote.js';
import type { IndexSession, ResourceLoadRecord } from '../load-target.js';

/** PostgreSQL's SQLSTATE for a key too long for its index, among other limits. */
const PROGRAM_LIMIT_EXCEEDED = '54000';

/** The tables a version reads: a table and the table that inherits from it, or a patched version's segments. */
async function versionTables(client: pg.Client, schema: string, table: string): Promise<string[]> {
  const row = (
    await client.query<{ view: boolean; composition: string | null }>(compositionSql(), [qualified(schema, table)])
  ).rows[0];
  if (!row) return [];
  if (row.view && row.composition)
    return (JSON.parse(row.composition) as { segments: Segment[] }).segments.map((s) => s.table);
  const inheriting = await client.query<{ name: string }>(inheritingTablesSql, [schema, [table]]);
  return [table, ...inheriting.rows.map((r) => r.name)];
}

export function postgresIndexSession(client: pg.Client, schema: string, release: () => Promise<void>): IndexSession {
  const sql = metaSql(schema);
  const builderLock = `${schema}:index builds`;
  return {
    async index(resource: ResourceDefinition, record: ResourceLoadRecord, specs: readonly IndexSpec[]) {
      let current = record;
      for (const spec of specs) {
        const locked = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
          builderLock,
        ]);
        if (!locked.rows[0]?.locked) return current;
        try {
          const tables = await versionTables(client, schema, current.table);
          let refused = false;
          for (const table of tables) {
            await client.query(dropInvalidIndexSql(schema, table, resource, spec));
            const { build, after } = indexConcurrentlySql(schema, table, resource, spec);
            try {
              await client.query(build);
            } catch (err) {
              if ((err as { code?: string }).code !== PROGRAM_LIMIT_EXCEEDED) throw err;
              await client.query(dropInvalidIndexSql(schema, table, resource, spec));
              refused = true;
              break;
            }
            for (const statement of after) await client.query(statement);
          }
          const next: ResourceLoadRecord = refused
            ? { ...current, unbuiltIndexes: [...new Set([...(current.unbuiltIndexes ?? []), spec.key])] }
            : { ...current, builtIndexes: [...new Set([...current.builtIndexes, spec.key])] };
          const sizes = await client.query<{ indexes: string }>(tableSizesSql, [
            tables.map((t) => qualified(schema, t)),
          ]);
          next.indexBytes = Number(sizes.rows[0]?.indexes ?? current.indexBytes);
          // Recorded only while the version is still the published one (a load may have replaced it meanwhile).
          await client.query(sql.setIndexes, [
            next.id,
            next.table,
            JSON.stringify(next.builtIndexes),
            JSON.stringify(next.unbuiltIndexes ?? []),
            next.indexBytes,
          ]);
          // Serving processes hear of it as of a load: what they answer of the resource's size changed.
          await client.query(sql.notify, [schema]);
          current = next;
        } finally {
          await client.query('SELECT pg_advisory_unlock(hashtext($1))', [builderLock]);
        }
      }
      return current;
    },
    commit: release,
    abort: release,
  };
}
