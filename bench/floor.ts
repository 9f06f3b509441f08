// The store's own share of publishing a table: the rows `count-centre add` just wrote, written again by the database
// engine alone with the product's own statements, with no reading, parsing, inference or rendering. No load of the
// same table can take less on the same machine, so scenarios 7 and 8 print it beside the command's time.

import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { ResourceDefinition } from '../src/catalog/types.js';
import { loadCatalogFile } from '../src/catalog/load.js';
import { analyzeSql } from '../src/dialect/sqlite/ddl.js';
import { createGenerationTableSql, dropTableSql, indexTableSql, type PgSchemas } from '../src/dialect/postgres/ddl.js';
import { qualified, quoteIdent } from '../src/dialect/postgres/quote.js';
import { indexesByKey } from '../src/catalog/indexes.js';
import { readMetaFromFile } from '../src/storage/sqlite/meta.js';
import { readPostgresMeta } from '../src/storage/postgres/meta.js';
import { SqliteDatabaseBuilder } from '../src/storage/sqlite/builder.js';
import Database from 'better-sqlite3';

export interface StoreFloor {
  /** The whole: rows, full-text index, field indexes and planner statistics. */
  seconds: number;
  /** The rows and the full-text index (on PostgreSQL, the rows with their vectors; the GIN index is in `indexSeconds`). */
  rowSeconds: number;
  indexSeconds: number;
}

function onlyResource(catalogFile: string): ResourceDefinition {
  const resources = loadCatalogFile(catalogFile).resources;
  if (resources.length !== 1) throw new Error(`expected one resource in ${catalogFile}, found ${resources.length}`);
  return resources[0]!;
}

const since = (t: number) => (performance.now() - t) / 1000;

/**
 * SQLite: the loaded table copied into a new file by the builder a load uses (its page size, caches and index
 * threads), the full-text index filled from documents made from the rows' values, the field indexes built, then
 * ANALYZE. The copy moves
 * whole records between files, cheaper than inserting bound values, so this floor is if anything low.
 */
export function sqliteFloor(storeFile: string, catalogFile: string, scratchDir: string): StoreFloor {
  const resource = onlyResource(catalogFile);
  const meta = readMetaFromFile(storeFile);
  const record = meta?.resources.get(resource.id);
  if (!meta || !record) throw new Error(`${storeFile} holds no load of resource ${resource.id}`);
  // A builder with no base copies a kept resource from the file it will replace: here a copy of the store.
  const file = path.join(scratchDir, 'floor.sqlite');
  fs.copyFileSync(storeFile, file);
  const builder = new SqliteDatabaseBuilder(file, meta.fullTextLanguage);
  let t = performance.now();
  builder.keepResource({ id: resource.id, fields: resource.fields, indexes: resource.indexes }, record);
  const copySeconds = since(t);
  builder.commit({ datasetVersion: 'floor', catalog: meta.catalog });
  // commit analyses only what was loaded, not copied: the statistics a load computes are timed here.
  const db = new Database(file);
  t = performance.now();
  db.exec(analyzeSql(resource.id));
  const analyzeSeconds = since(t);
  // The share of the copy that is index builds, timed again apart on the finished file.
  t = performance.now();
  const indexes = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`).all() as {
    name: string;
    sql: string;
  }[];
  db.pragma('cache_size = -2048');
  db.pragma('threads = 2');
  for (const index of indexes) {
    db.exec(`DROP INDEX "${index.name}"`);
    db.exec(index.sql);
  }
  const indexSeconds = since(t);
  db.close();
  fs.rmSync(file, { force: true });
  return {
    seconds: copySeconds + analyzeSeconds,
    rowSeconds: Math.max(0, copySeconds - indexSeconds),
    indexSeconds: indexSeconds + analyzeSeconds,
  };
}

/**
 * PostgreSQL: the loaded rows inserted from the published table into two new tables of the load's own definition, on
 * two connections side by side as a large load splits (their `_full_text` copied as stored: the loader makes it), then
 * every index the load and the builds after publication make, two at a time, and ANALYZE. Reading rows already in the database costs less than
 * parsing COPY's text, so this floor is if anything low.
 */
export async function postgresFloor(url: string, catalogFile: string, schemas: PgSchemas): Promise<StoreFloor> {
  const resource = onlyResource(catalogFile);
  const clients = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
  await Promise.all(clients.map((c) => c.connect()));
  const schema = schemas.data;
  const tables = ['floor_a', 'floor_b'];
  try {
    const meta = await readPostgresMeta(clients[0]!, schema);
    const source = meta?.resources.get(resource.id)?.table;
    if (!meta || !source) throw new Error(`schema ${schema} holds no load of resource ${resource.id}`);
    const columns = ['_id', ...resource.fields.map((f) => f.id), '_full_text'].map(quoteIdent).join(', ');
    let t = performance.now();
    await Promise.all(
      clients.map(async (client, half) => {
        const table = tables[half]!;
        await client.query('BEGIN');
        for (const sql of createGenerationTableSql(schema, table, resource, meta.fullTextLanguage))
          await client.query(sql);
        await client.query(
          `INSERT INTO ${qualified(schema, table)} (${columns}) SELECT ${columns} FROM ${qualified(schema, source)} WHERE "_id" % 2 = ${half}`,
        );
        await client.query('COMMIT');
      }),
    );
    const rowSeconds = since(t);
    t = performance.now();
    const specs = indexesByKey(resource, meta.resources.get(resource.id)!.builtIndexes);
    const built = tables.map((table) => indexTableSql(schema, table, resource, specs));
    const queue = [...built.map((b) => b.indexes[0]!), ...built.flatMap((b) => b.indexes.slice(1))];
    await Promise.all(
      clients.map(async (client) => {
        for (let sql = queue.shift(); sql !== undefined; sql = queue.shift()) await client.query(sql);
      }),
    );
    for (const b of built) for (const sql of b.finish) await clients[0]!.query(sql);
    await Promise.all(built.map((b, i) => clients[i]!.query(b.analyze)));
    const indexSeconds = since(t);
    return { seconds: rowSeconds + indexSeconds, rowSeconds, indexSeconds };
  } finally {
    for (const table of tables) await clients[0]!.query(dropTableSql(schema, table)).catch(() => {});
    await Promise.all(clients.map((c) => c.end()));
  }
}
