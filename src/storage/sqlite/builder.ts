// Writes a new embedded database file beside the served one and swaps it in with one atomic rename, so readers
// only ever see a complete database. Each resource loads in its own transaction: a failed load leaves no trace.

import { mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { FieldDefinition, ResourceDefinition } from '../../catalog/types.js';
import type { StoredValue } from '../../catalog/values.js';
import {
  attachPreviousSql, copyResourceSql, createIndexesSql, createMetaTablesSql, createResourceSql, detachPreviousSql,
  FTS_DOCUMENT_FUNCTION, insertLexemesSql, insertRowSql, metaSql, SQLITE_SCHEMA_VERSION,
} from '../../sql/sqlite/ddl.js';
import { parseTsvector, tsvectorToString } from '../../text-search/index.js';
import { delimitedWriter, objectWriter } from '../../serialize/records.js';
import { ID_FIELD } from '../../catalog/catalog.js';
import { ftsDocument, RowVectorizer } from '../full-text.js';
import { nullTracker, type LoadBase, type LoadSession, type LoadTarget, type ResourceLoadRecord, type ResourceSink } from '../load-target.js';
import { readMetaFromFile } from './meta.js';

function toSqlite(value: StoredValue): string | number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

export class SqliteDatabaseBuilder {
  private readonly db: Database.Database;
  private readonly tempPath: string;
  private open = true;

  constructor(
    private readonly finalPath: string,
    private readonly fullTextLanguage: string,
  ) {
    mkdirSync(path.dirname(finalPath), { recursive: true });
    this.tempPath = `${finalPath}.building-${process.pid}`;
    rmSync(this.tempPath, { force: true });
    this.db = new Database(this.tempPath);
    // The file is private until the rename; if this process dies it is simply rebuilt, so durability
    // during the build buys nothing.
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('cache_size = -65536');
    this.db.function(FTS_DOCUMENT_FUNCTION, { deterministic: true }, (text: unknown) =>
      typeof text === 'string' ? ftsDocument(parseTsvector(text)) : '',
    );
    for (const sql of createMetaTablesSql()) this.db.exec(sql);
  }

  /** Loads one resource; `fill` feeds rows to the sink. If it throws, the resource is rolled back and the error rethrown. */
  async loadResource(resource: ResourceDefinition, base: LoadBase, fill: (sink: ResourceSink) => Promise<void>): Promise<ResourceLoadRecord> {
    const { id, fields } = resource;
    this.db.exec('BEGIN');
    try {
      for (const sql of createResourceSql(id, fields)) this.db.exec(sql);
      const nulls = nullTracker(fields.map((f) => f.id));
      const sink = this.sink(id, fields, nulls.see);
      await fill(sink);
      for (const sql of createIndexesSql(id, fields, resource.indexes)) this.db.exec(sql);
      const record: ResourceLoadRecord = {
        ...base, total: sink.count, loadedAt: new Date().toISOString(), dataBytes: 0, indexBytes: 0, nullFields: nulls.fields(),
      };
      this.recordResource(record);
      this.db.exec('COMMIT');
      return record;
    } catch (err) {
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  /** Carries a resource over unchanged from the database being replaced. */
  copyResource(previousPath: string, resource: ResourceDefinition, record: ResourceLoadRecord): void {
    this.db.prepare(attachPreviousSql).run(previousPath);
    try {
      this.db.transaction(() => {
        for (const sql of createResourceSql(resource.id, resource.fields)) this.db.exec(sql);
        for (const sql of copyResourceSql(resource.id)) this.db.exec(sql);
        for (const sql of createIndexesSql(resource.id, resource.fields, resource.indexes)) this.db.exec(sql);
        this.recordResource(record);
      })();
    } finally {
      this.db.exec(detachPreviousSql);
    }
  }

  /** Writes the database-wide facts, then atomically replaces the served file. */
  commit(datasetVersion: string): void {
    const put = this.db.prepare(metaSql.put);
    put.run('schema_version', String(SQLITE_SCHEMA_VERSION));
    put.run('dataset_version', datasetVersion);
    put.run('built_at', new Date().toISOString());
    put.run('full_text_language', this.fullTextLanguage);
    this.db.exec('ANALYZE');
    this.recordSizes();
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
    const sizes = this.db.prepare(metaSql.objectSizes).all() as { name: string; bytes: number }[];
    const ids = (this.db.prepare(metaSql.allResources).all() as { id: string }[]).map((r) => r.id);
    const setSizes = this.db.prepare(metaSql.setSizes);
    for (const id of ids) {
      const data = sizes.find((s) => s.name === id)?.bytes ?? 0;
      const index = sizes.filter((s) => s.name.startsWith(`${id}__`)).reduce((sum, s) => sum + s.bytes, 0);
      setSizes.run(data, index, id);
    }
  }

  private recordResource(record: ResourceLoadRecord): void {
    this.db.prepare(metaSql.putResource).run(record.id, record.sourceSha256, record.specHash, record.total, record.loadedAt, record.source, JSON.stringify(record.nullFields));
  }

  private sink(resourceId: string, fields: readonly FieldDefinition[], see: (values: readonly StoredValue[]) => void): ResourceSink {
    const insertRow = this.db.prepare(insertRowSql(resourceId, fields.length));
    const insertLexemes = this.db.prepare(insertLexemesSql(resourceId));
    const vectorizer = new RowVectorizer(this.fullTextLanguage, fields);
    const record = objectWriter([ID_FIELD, ...fields]);
    const csvLine = delimitedWriter([ID_FIELD, ...fields], ',');
    let count = 0;
    return {
      get count() {
        return count;
      },
      insert(values) {
        count += 1;
        see(values);
        const vector = vectorizer.vector(values);
        const row = [count, ...values];
        insertRow.run(count, ...values.map(toSqlite), record.record(row), csvLine.record(row), tsvectorToString(vector));
        insertLexemes.run(count, ftsDocument(vector));
      },
    };
  }
}

/** The embedded store as a load target: a load builds a new file, a commit renames it over the served one. */
export class SqliteLoadTarget implements LoadTarget {
  constructor(private readonly file: string) {}

  async readMeta() {
    return readMetaFromFile(this.file);
  }

  async begin(fullTextLanguage: string): Promise<LoadSession> {
    const builder = new SqliteDatabaseBuilder(this.file, fullTextLanguage);
    return {
      keep: async (resource, record) => builder.copyResource(this.file, resource, record),
      load: (resource, base, fill) => builder.loadResource(resource, base, fill),
      commit: async (datasetVersion) => builder.commit(datasetVersion),
      abort: async () => builder.abort(),
    };
  }

  async close(): Promise<void> {}
}
