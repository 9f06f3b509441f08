// Writes a new embedded database file beside the served one and swaps it in with one atomic rename, so readers
// only ever see a complete database. The new file starts as a copy of the served one, so resources that did not
// change are neither copied row by row nor re-indexed; each resource loads in its own transaction, replacing its
// previous tables only when it commits, so a failed load leaves no trace. It runs on the writing thread of a load
// (./build-worker.ts), fed rows that ./row-encoder.ts made.

import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { FieldDefinition } from '../../catalog/types.js';
import {
  analyzeSql,
  attachPreviousSql,
  copyResourceSql,
  createIndexesSql,
  createMetaTablesSql,
  createResourceSql,
  dataColumnCount,
  detachPreviousSql,
  dropResourceSql,
  exactFieldIds,
  fullTextBulkSql,
  insertLexemesSql,
  insertRowSql,
  rowsPerInsert,
  metaSql,
  SQLITE_MAX_COLUMNS,
  SQLITE_PAGE_SIZE,
  SQLITE_SCHEMA_VERSION,
} from '../../dialect/sqlite/ddl.js';
import { registerTextSearch } from '../../dialect/sqlite/functions.js';
import { indexesByKey, type IndexSpec } from '../../catalog/indexes.js';
import { type IdRange, type LoadBase, type Publication, type ResourceLoadRecord } from '../load-target.js';
import { patchResource } from './patch.js';
import type { ResourceShape, RowFill, RowWriter } from './build-protocol.js';

// Page caches in KiB (SQLite's negative form). Row inserts (the full-text index above all) want a large one; an index
// build wants a small one, which sorts in short runs that helper threads sort side by side before merging them: on a
// table of 1,000,000 records, 2 MiB and two helpers build an index in half the time that 64 MiB and none take.
const LOAD_CACHE = -65_536;
const INDEX_BUILD_CACHE = -2_048;
const INDEX_BUILD_THREADS = 2;

export class SqliteDatabaseBuilder {
  private readonly db: Database.Database;
  private readonly tempPath: string;
  private open = true;
  /** Resources the new file holds and will publish: carried over from the copied file, or loaded. */
  private readonly publishing = new Set<string>();
  /** Resources loaded by this build: their statistics and sizes are measured at commit. */
  private readonly loaded = new Set<string>();
  /** Resources indexed by this build: their sizes are measured at commit (their statistics were made then). */
  private readonly measured = new Set<string>();

  /**
   * `base`: a database file of this layout to start from (the served one), whose resources are kept unless replaced.
   */
  constructor(
    private readonly finalPath: string,
    private readonly fullTextLanguage: string,
    private readonly base: string | null = null,
  ) {
    mkdirSync(path.dirname(finalPath), { recursive: true });
    this.tempPath = `${finalPath}.building-${process.pid}`;
    rmSync(this.tempPath, { force: true });
    // The served file is only ever replaced, never written, so a copy of it is consistent.
    if (base) copyFileSync(base, this.tempPath);
    this.db = new Database(this.tempPath);
    // Only a new, empty file takes a page size; a copied one keeps its own.
    if (!base) this.db.pragma(`page_size = ${SQLITE_PAGE_SIZE}`);
    // The file is private until the rename; if this process dies it is simply rebuilt, so durability
    // during the build buys nothing.
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma(`cache_size = ${LOAD_CACHE}`);
    // Copies and patches make rows' full-text documents from their values (rowFtsDocumentSql).
    registerTextSearch(this.db);
    if (!base) for (const sql of createMetaTablesSql()) this.db.exec(sql);
  }

  /** Ids of the resources the copied file holds. */
  private get copiedIds(): string[] {
    return (this.db.prepare(metaSql.allResources).all() as { id: string }[]).map((r) => r.id);
  }

  /**
   * Loads one resource; `fill` writes its encoded rows and reports what it saw. Its previous tables are replaced in the
   * same transaction, so if `fill` throws, the resource is as it was (or absent) and the error is rethrown.
   */
  async loadResource(resource: ResourceShape, base: LoadBase, fill: RowFill): Promise<ResourceLoadRecord> {
    const { id, fields } = resource;
    const columns = dataColumnCount(fields);
    if (columns > SQLITE_MAX_COLUMNS)
      throw new Error(
        `${fields.length.toLocaleString('en-IE')} fields need ${columns.toLocaleString('en-IE')} columns in the embedded store (one a field, a second for each numeric field's exact digits, and one for _id): more than SQLite's ${SQLITE_MAX_COLUMNS.toLocaleString('en-IE')}; split the table, or serve it from PostgreSQL (up to 1,598 fields)`,
      );
    this.db.exec('BEGIN');
    try {
      for (const sql of dropResourceSql(id)) this.db.exec(sql);
      for (const sql of createResourceSql(id, fields)) this.db.exec(sql);
      const fullText = fullTextBulkSql(id);
      for (const sql of fullText.before) this.db.exec(sql);
      const facts = await fill(this.writer(id, fields));
      for (const sql of fullText.after) this.db.exec(sql);
      const record: ResourceLoadRecord = {
        ...base,
        total: facts.count,
        loadedAt: new Date().toISOString(),
        dataBytes: 0,
        indexBytes: 0,
        nullFields: facts.nullFields,
        quotedFields: facts.quotedFields,
        table: id,
        maxId: facts.maxId,
        ...(facts.exactFields.length > 0 ? { exactFields: facts.exactFields } : {}),
        // The field and composite indexes come once the resource is published (src/ingest/indexes.ts).
        builtIndexes: [],
      };
      this.recordResource(record);
      this.db.exec('COMMIT');
      this.publishing.add(id);
      this.loaded.add(id);
      return record;
    } catch (err) {
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  /**
   * Patches a resource the copied file holds: see ./patch.ts. Its planner statistics and recorded sizes are the
   * previous version's (a patch changes few records; measuring them would read the whole table and its indexes).
   */
  async patchResource(
    resource: ResourceShape,
    base: LoadBase,
    previous: ResourceLoadRecord,
    ranges: readonly IdRange[],
    fill: RowFill,
  ): Promise<ResourceLoadRecord> {
    if (!this.base || !this.copiedIds.includes(resource.id))
      throw new Error(`resource ${resource.id}: the store holds no copy of it to patch`);
    const write = this.writer(resource.id, resource.fields);
    const record = await patchResource(
      this.db,
      this.fullTextLanguage,
      resource,
      base,
      previous,
      ranges,
      () => fill(write),
      (r) => this.recordResource(r),
    );
    this.publishing.add(resource.id);
    return record;
  }

  /** Keeps a resource as the served file holds it: already in the copy, or copied from it when there is no copy. */
  keepResource(resource: ResourceShape, record: ResourceLoadRecord): void {
    if (this.base && this.copiedIds.includes(resource.id)) {
      this.recordResource(record);
      this.publishing.add(resource.id);
      return;
    }
    this.copyResource(this.finalPath, resource, record);
    this.publishing.add(resource.id);
  }

  /** Carries a resource over unchanged from the database being replaced. */
  copyResource(previousPath: string, resource: ResourceShape, record: ResourceLoadRecord): void {
    this.db.prepare(attachPreviousSql).run(previousPath);
    try {
      this.db.transaction(() => {
        for (const sql of createResourceSql(resource.id, resource.fields)) this.db.exec(sql);
        const fullText = fullTextBulkSql(resource.id);
        const copy = copyResourceSql(resource.id, this.fullTextLanguage, resource.fields);
        for (const sql of [...fullText.before, ...copy, ...fullText.after]) this.db.exec(sql);
        this.buildIndexes(createIndexesSql(resource, indexesByKey(resource, record.builtIndexes)));
        this.recordResource(record);
      })();
    } finally {
      this.db.exec(detachPreviousSql);
    }
  }

  /**
   * Adds indexes to a resource the copied file holds (published, and kept by this build), with fresh planner
   * statistics; the record says which it now has. Its records are untouched.
   */
  addIndexes(resource: ResourceShape, record: ResourceLoadRecord, specs: readonly IndexSpec[]): ResourceLoadRecord {
    if (!this.base || !this.copiedIds.includes(resource.id))
      throw new Error(`resource ${resource.id}: the store holds no copy of it to index`);
    const next: ResourceLoadRecord = {
      ...record,
      builtIndexes: [...new Set([...record.builtIndexes, ...specs.map((s) => s.key)])],
    };
    this.db.transaction(() => {
      this.buildIndexes(createIndexesSql(resource, specs));
      this.db.exec(analyzeSql(resource.id));
      this.recordResource(next);
    })();
    this.publishing.add(resource.id);
    this.measured.add(resource.id);
    return next;
  }

  /**
   * Removes what is no longer published, writes the database-wide facts and the catalogue, then atomically replaces
   * the served file.
   */
  commit(publication: Publication): void {
    for (const id of this.copiedIds) {
      if (this.publishing.has(id)) continue;
      this.db.transaction(() => {
        for (const sql of dropResourceSql(id)) this.db.exec(sql);
        this.db.prepare(metaSql.deleteResource).run(id);
      })();
    }
    const put = this.db.prepare(metaSql.put);
    put.run('schema_version', String(SQLITE_SCHEMA_VERSION));
    put.run('dataset_version', publication.datasetVersion);
    put.run('built_at', new Date().toISOString());
    put.run('full_text_language', this.fullTextLanguage);
    put.run('catalog', publication.catalog);
    // Statistics of kept resources came with the copy; only the loaded ones are new.
    for (const id of this.loaded) this.db.exec(analyzeSql(id));
    this.recordSizes();
    // Replaced resources leave free pages behind; once they are most of the file, it is worth compacting.
    const { free, pages } = this.db.prepare(metaSql.freePages).get() as { free: number; pages: number };
    if (free > pages / 2) this.db.exec('VACUUM');
    put.run('database_bytes', String((this.db.prepare(metaSql.databaseBytes).get() as { bytes: number }).bytes));
    this.db.close();
    this.open = false;
    renameSync(this.tempPath, this.finalPath);
  }

  abort(): void {
    if (this.open) this.db.close();
    this.open = false;
    rmSync(this.tempPath, { force: true });
  }

  private recordSizes(): void {
    const bytes = this.db.prepare(metaSql.objectBytes).pluck();
    const objects = this.db.prepare(metaSql.objectsNamed).pluck();
    const setSizes = this.db.prepare(metaSql.setSizes);
    for (const id of new Set([...this.loaded, ...this.measured])) {
      const data = Number(bytes.get(id));
      const index = (objects.all({ prefix: `${id}__` }) as string[]).reduce(
        (sum, name) => sum + Number(bytes.get(name)),
        0,
      );
      setSizes.run(data, index, id);
    }
  }

  private recordResource(record: ResourceLoadRecord): void {
    this.db
      .prepare(metaSql.putResource)
      .run(
        record.id,
        record.sourceSha256,
        record.specHash,
        record.total,
        record.loadedAt,
        record.source,
        JSON.stringify(record.nullFields),
        JSON.stringify(record.inputs ?? []),
        record.maxId,
        JSON.stringify(record.exactFields ?? []),
        JSON.stringify(record.builtIndexes),
        JSON.stringify(record.unbuiltIndexes ?? []),
        record.quotedFields ? JSON.stringify(record.quotedFields) : null,
      );
    if (!this.loaded.has(record.id) && !this.measured.has(record.id))
      this.db.prepare(metaSql.setSizes).run(record.dataBytes, record.indexBytes, record.id);
  }

  /** Builds a resource's indexes with the page cache and helper threads that sort fastest (see INDEX_BUILD_CACHE). */
  private buildIndexes(statements: readonly string[]): void {
    this.db.pragma(`cache_size = ${INDEX_BUILD_CACHE}`);
    this.db.pragma(`threads = ${INDEX_BUILD_THREADS}`);
    try {
      for (const sql of statements) this.db.exec(sql);
    } finally {
      this.db.pragma(`cache_size = ${LOAD_CACHE}`);
      this.db.pragma('threads = 0');
    }
  }

  /**
   * Writes encoded rows (see ./row-encoder.ts) into a resource's table and its full-text index. Rows go into the table
   * several to a statement, which spends SQLite's and the binding's fixed cost per statement once for all of them
   * (about 40 % of a narrow table's insert time); the full-text index gains nothing from it, so it takes one a time.
   */
  private writer(resourceId: string, fields: readonly FieldDefinition[]): RowWriter {
    const exact = exactFieldIds(fields).length;
    const perStatement = rowsPerInsert(fields.length, exact);
    const insertRow = this.db.prepare(insertRowSql(resourceId, fields.length, exact));
    const insertRows = this.db.prepare(insertRowSql(resourceId, fields.length, exact, perStatement));
    const insertLexemes = this.db.prepare(insertLexemesSql(resourceId));
    return ({ rows, documents }) => {
      let i = 0;
      for (; i + perStatement <= rows.length; i += perStatement) {
        const values: (string | number | null)[] = [];
        for (let j = i; j < i + perStatement; j++) for (const value of rows[j]!) values.push(value);
        insertRows.run(values);
      }
      for (; i < rows.length; i++) insertRow.run(rows[i]!);
      for (let k = 0; k < rows.length; k++) insertLexemes.run(rows[k]![0], documents[k]);
    };
  }
}
