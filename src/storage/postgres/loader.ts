// Loading into PostgreSQL: each resource is copied (COPY … FROM STDIN) into a table of this load's generation (a large
// one over two connections into two tables, the second then inheriting from the first), indexed and analysed; commit
// then points every loaded resource's view at its new table and rewrites the catalogue tables in one transaction, so
// readers see either the old data or the new. Tables of the generation replaced stay for requests still reading it,
// and go with the next load. A failed load drops its tables and leaves the published one serving.

import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { ResourceDefinition } from '../../catalog/types.js';
import {
  copyIntoTableSql,
  createGenerationTableSql,
  dropTableSql,
  GENERATION_TABLE,
  generationTable,
  indexTableSql,
  inheritSql,
  metaSql,
  POSTGRES_SCHEMA_VERSION,
  publishSql,
  schemaSetupSql,
  tableSizesSql,
  unpublishSql,
  vectorsFromLoader,
  type PgSchemas,
} from '../../dialect/postgres/ddl.js';
import {
  dropViewSql,
  inheritingTablesSql,
  relationsSql,
  segmentsReadSql,
  segmentTable,
  versionObjectsSql,
} from '../../dialect/postgres/patch.js';
import { qualified } from '../../dialect/postgres/quote.js';
import {
  type IdRange,
  type IndexSession,
  type LoadBase,
  type LoadSession,
  type LoadTarget,
  type Publication,
  type ResourceLoadRecord,
  type ResourceSink,
  type StoreMeta,
} from '../load-target.js';
import { RecordNumberer, numberingSink } from '../row-sink.js';
import { CopyLinePipeline } from './copy-lines.js';
import { storeError } from './connection.js';
import { otherPostgresLayout, readGeneration, readPostgresMeta } from './meta.js';
import { patchTable } from './patch.js';
import { postgresIndexSession } from './indexes.js';

export interface PostgresLoadOptions {
  url: string;
  schemas: PgSchemas;
  readerRole: string;
  /** Records after which a load copies on a second connection into a second table (COUNTCENTRE_PG_LOAD_SPLIT_ROWS). */
  splitAfterRows?: number;
  /** Records after which a load's COPY lines are also made on a helper thread (COUNTCENTRE_PG_LOAD_HELPER_ROWS). */
  helperAfterRows?: number;
}

/** PostgreSQL's SQLSTATE for a key too long for its index, among other limits. */
const PROGRAM_LIMIT_EXCEEDED = '54000';

/** COUNTCENTRE_PG_LOAD_SPLIT_ROWS's default, for a load target made without it. */
const DEFAULT_SPLIT_ROWS = 200_000;
/** COUNTCENTRE_PG_LOAD_HELPER_ROWS's default, for a load target made without it. */
const DEFAULT_HELPER_ROWS = 50_000;

/** One COPY of a load in progress: its connection, table and stream. */
interface TableCopy {
  client: pg.Client;
  table: string;
  stream: ReturnType<typeof copyFrom>;
  /** Whether the COPY is still open: a failure then ends it (CopyFail) before rolling back. */
  open: boolean;
  /** The stream's failure, once it has failed. */
  error: Error | null;
}

/**
 * Ends a COPY the load gave up on and rolls its transaction back. A COPY left open keeps its connection from running
 * anything else, so it is failed (CopyFail) first, or the ROLLBACK would wait behind it for ever.
 */
async function failCopy(copy: TableCopy, err: Error): Promise<void> {
  if (copy.open && !copy.stream.destroyed) {
    const closed = new Promise((resolve) => copy.stream.once('close', resolve));
    copy.stream.destroy(err);
    await closed;
  }
  copy.open = false;
  await copy.client.query('ROLLBACK').catch(() => {});
}

class PostgresLoadSession implements LoadSession {
  private readonly loaded: { resource: ResourceDefinition; record: ResourceLoadRecord }[] = [];
  private readonly kept: ResourceLoadRecord[] = [];
  /** Extra connections for building indexes side by side, opened on first use. */
  private readonly helpers: pg.Client[] = [];

  constructor(
    private readonly client: pg.Client,
    private readonly options: PostgresLoadOptions,
    private readonly previous: StoreMeta | null,
    private readonly fullTextLanguage: string,
    /** This load's generation: it numbers the tables the load writes. */
    private readonly generation: number,
  ) {}

  async keep(_resource: ResourceDefinition, record: ResourceLoadRecord): Promise<void> {
    this.kept.push(record);
  }

  async load(
    resource: ResourceDefinition,
    base: LoadBase,
    fill: (sink: ResourceSink) => Promise<void>,
  ): Promise<ResourceLoadRecord> {
    const { client, options } = this;
    const schema = options.schemas.data;
    const table = generationTable(resource.id, this.generation);
    const copies: TableCopy[] = [];
    const splitAfter = options.splitAfterRows ?? DEFAULT_SPLIT_ROWS;
    let sent = 0;
    let chunks = 0;
    const write = async (text: string, rows: number) => {
      // Past the threshold, a second table takes every other batch: each server process parses and stores what it
      // receives, and the two tables' full-text indexes are built side by side.
      if (copies.length === 1 && splitAfter > 0 && sent >= splitAfter) {
        copies.push(await this.startCopy(await this.helper(), segmentTable(table), resource));
        chunks = 1;
      }
      const target = copies[chunks++ % copies.length]!;
      if (target.error) throw target.error;
      const full = !target.stream.write(text);
      sent += rows;
      if (full) await once(target.stream, 'drain');
    };
    const lines = new CopyLinePipeline(
      {
        fields: resource.fields.map((f) => ({ type: f.type })),
        // Null where PostgreSQL computes the vectors itself, for a language made only there (vectorsFromLoader).
        vectorLanguage: vectorsFromLoader(this.fullTextLanguage) ? this.fullTextLanguage : null,
      },
      write,
      options.helperAfterRows ?? DEFAULT_HELPER_ROWS,
    );
    try {
      copies.push(await this.startCopy(client, table, resource));
      const numberer = new RecordNumberer(resource.fields);
      await fill(numberingSink(numberer, (values, id) => lines.add(values, id)));
      await lines.end();
      // The helper thread's memory is given back before the index builds (the finally below closes it on a failure).
      await lines.close();
      for (const copy of copies) {
        if (copy.error) throw copy.error;
        copy.stream.end();
      }
      await Promise.all(copies.map((copy) => finished(copy.stream)));
      for (const copy of copies) copy.open = false;
      await Promise.all(copies.map((copy) => copy.client.query('COMMIT')));
      await this.indexAndAnalyse(schema, resource, copies);
      const sizes = await client.query<{ data: string; indexes: string }>(tableSizesSql, [[qualified(schema, table)]]);
      const record: ResourceLoadRecord = {
        ...base,
        total: numberer.count,
        loadedAt: new Date().toISOString(),
        dataBytes: Number(sizes.rows[0]?.data ?? 0),
        indexBytes: Number(sizes.rows[0]?.indexes ?? 0),
        nullFields: numberer.nullFields(),
        quotedFields: numberer.quotedFields(),
        table,
        maxId: numberer.maxId,
        // The field and composite indexes come once the resource is published (src/ingest/indexes.ts).
        builtIndexes: [],
      };
      this.loaded.push({ resource, record });
      return record;
    } catch (err) {
      for (const copy of copies) await failCopy(copy, err as Error);
      for (const sql of versionObjectsSql(schema, table)) await client.query(sql).catch(() => {});
      throw storeError(err);
    } finally {
      await lines.close();
    }
  }

  /**
   * Opens a COPY into a new table on `connection`, in the transaction that creates the table (as COPY … FREEZE
   * requires): the transaction stays open until the copy ends.
   */
  private async startCopy(connection: pg.Client, table: string, resource: ResourceDefinition): Promise<TableCopy> {
    const schema = this.options.schemas.data;
    await connection.query('BEGIN');
    const copy: TableCopy = { client: connection, table, stream: null as never, open: false, error: null };
    try {
      for (const sql of createGenerationTableSql(schema, table, resource, this.fullTextLanguage))
        await connection.query(sql);
      copy.stream = connection.query(copyFrom(copyIntoTableSql(schema, table, resource, this.fullTextLanguage)));
      // Kept for the next write: with two streams, one may fail while the load is waiting on the other.
      copy.stream.on('error', (err: Error) => {
        copy.error ??= err;
      });
      copy.open = true;
      return copy;
    } catch (err) {
      await connection.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  /**
   * Builds the key and full-text index of a loaded table and, when the load was split, of its second table, side by
   * side (the full-text indexes first, being the longest), then joins the second to the first (inheritance) and
   * analyses both. Field and composite indexes are built once the resource is published (src/ingest/indexes.ts).
   */
  private async indexAndAnalyse(schema: string, resource: ResourceDefinition, copies: readonly TableCopy[]) {
    const built = copies.map((copy) => indexTableSql(schema, copy.table, resource));
    // indexTableSql lists the full-text index first.
    await this.buildSideBySide([...built.map((b) => b.indexes[0]!), ...built.flatMap((b) => b.indexes.slice(1))]);
    for (const b of built) for (const sql of b.finish) await this.client.query(sql);
    if (copies.length > 1) await this.client.query(inheritSql(schema, copies[1]!.table, copies[0]!.table));
    // Analysing the first table also samples the second, for the statistics of the two read as one.
    await Promise.all(built.map((b, i) => (i === 0 ? this.client : this.helpers[0]!).query(b.analyze)));
  }

  /** The load's second connection: the second table's COPY, and the index builds beside the loader's own. */
  private async helper(): Promise<pg.Client> {
    if (this.helpers.length === 0) this.helpers.push(await connectLoader(this.options.url));
    return this.helpers[0]!;
  }

  async patch(
    resource: ResourceDefinition,
    base: LoadBase,
    previous: ResourceLoadRecord,
    ranges: readonly IdRange[],
    fill: (sink: ResourceSink) => Promise<void>,
  ): Promise<ResourceLoadRecord> {
    const context = {
      client: this.client,
      schema: this.options.schemas.data,
      fullTextLanguage: this.fullTextLanguage,
      buildSideBySide: (s: readonly string[], optional?: ReadonlyMap<string, string>) =>
        this.buildSideBySide(s, optional),
    };
    const record = await patchTable(
      context,
      resource,
      base,
      previous,
      generationTable(resource.id, this.generation),
      ranges,
      fill,
    );
    this.loaded.push({ resource, record });
    return record;
  }

  /**
   * Runs independent statements on the loader's connection and its second one, each taking the next when free. One of
   * the `optional` ones that PostgreSQL refuses because a key is too long for a B-tree (a text value of more than about
   * 2,700 bytes) is left out, and returned by name: searches on its fields stay right, only slower.
   */
  private async buildSideBySide(
    statements: readonly string[],
    optional: ReadonlyMap<string, string> = new Map(),
  ): Promise<string[]> {
    if (statements.length > 1) await this.helper();
    const queue = [...statements];
    const refused = new Set<string>();
    const worker = async (connection: pg.Client) => {
      try {
        for (let sql = queue.shift(); sql !== undefined; sql = queue.shift()) {
          try {
            await connection.query(sql);
          } catch (err) {
            if (!optional.has(sql) || (err as { code?: string }).code !== PROGRAM_LIMIT_EXCEEDED) throw err;
            refused.add(sql);
          }
        }
      } catch (err) {
        queue.length = 0;
        throw err;
      }
    };
    const outcomes = await Promise.allSettled([this.client, ...this.helpers].map(worker));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
    // In the order given (the connections finish in any order); a split load builds each index twice, once per table.
    return [...new Set(statements.filter((sql) => refused.has(sql)).map((sql) => optional.get(sql)!))];
  }

  async commit(publication: Publication): Promise<void> {
    const { client, options } = this;
    const { schemas, readerRole } = options;
    const sql = metaSql(schemas.data);
    const published = [...this.kept, ...this.loaded.map((l) => l.record)];
    const serving = new Set(published.map((r) => r.id));
    // The tables this load stops serving: kept for requests still reading the previous version, dropped next time.
    const replaced = [...(this.previous?.resources.values() ?? [])]
      .filter((r) => r.table !== '' && (!serving.has(r.id) || this.loaded.some((l) => l.record.id === r.id)))
      .map((r) => r.table);
    try {
      await client.query('BEGIN');
      for (const { resource, record } of this.loaded)
        for (const statement of publishSql(schemas, resource, record.table, readerRole)) await client.query(statement);
      for (const id of this.previous?.resources.keys() ?? [])
        if (!serving.has(id)) await client.query(unpublishSql(schemas, id));
      await client.query(sql.clearResources);
      for (const r of published) {
        await client.query(sql.putResource, [
          r.id,
          r.sourceSha256,
          r.specHash,
          r.total,
          r.loadedAt,
          r.source,
          r.dataBytes,
          r.indexBytes,
          JSON.stringify(r.nullFields),
          r.table,
          JSON.stringify(r.inputs ?? []),
          r.maxId,
          JSON.stringify(r.builtIndexes),
          JSON.stringify(r.unbuiltIndexes ?? []),
          r.quotedFields ? JSON.stringify(r.quotedFields) : null,
        ]);
      }
      const bytes = await client.query<{ bytes: string }>(sql.databaseBytes);
      for (const [key, value] of [
        ['schema_version', String(POSTGRES_SCHEMA_VERSION)],
        ['dataset_version', publication.datasetVersion],
        ['built_at', new Date().toISOString()],
        ['full_text_language', this.fullTextLanguage],
        ['database_bytes', bytes.rows[0]?.bytes ?? '0'],
        ['catalog', publication.catalog],
        ['generation', String(this.generation)],
      ] as const) {
        await client.query(sql.put, [key, value]);
      }
      await client.query(sql.notify, [schemas.data]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      await this.abort();
      throw storeError(err);
    }
    try {
      await this.dropUnused(new Set([...published.map((r) => r.table), ...replaced]));
    } finally {
      await this.release();
    }
  }

  /**
   * Drops generation tables and views that no version uses any more: those the previous load retired, an earlier
   * layout's, and any a failed load left; never a segment that a version in use still reads. A request still reading
   * one holds a lock that the drop waits for, up to a point; what cannot be dropped now is dropped by a later load.
   */
  private async dropUnused(inUse: ReadonlySet<string>): Promise<void> {
    const schema = this.options.schemas.data;
    const relations = (await this.client.query<{ name: string; view: boolean }>(relationsSql, [schema])).rows;
    const read = (await this.client.query<{ name: string }>(segmentsReadSql, [schema, [...inUse]])).rows;
    const reading = [...inUse, ...read.map((r) => r.name)];
    const inheriting = (await this.client.query<{ name: string }>(inheritingTablesSql, [schema, reading])).rows;
    const used = new Set([...reading, ...inheriting.map((r) => r.name)]);
    // Before generations, a resource's table was named by its id (and "<id>__load" while loading).
    const earlierLayout = new Set(
      [...inUse].flatMap((t) => {
        const id = t.split('@')[0]!;
        return [id, `${id}__load`];
      }),
    );
    const unused = relations.filter(
      (r) => !used.has(r.name) && (GENERATION_TABLE.test(r.name) || (!r.view && earlierLayout.has(r.name))),
    );
    await this.client.query(`SET lock_timeout = '5s'`).catch(() => {});
    // Views first: a segment goes only once no view reads it.
    for (const view of unused.filter((r) => r.view))
      await this.client.query(dropViewSql(schema, view.name)).catch(() => {});
    // A split load's second table (a plus name) before the table it inherits from, which cannot go while it is there.
    const tables = unused
      .filter((r) => !r.view)
      .sort((a, b) => Number(b.name.endsWith('+')) - Number(a.name.endsWith('+')));
    for (const table of tables) await this.client.query(dropTableSql(schema, table.name)).catch(() => {});
  }

  async abort(): Promise<void> {
    for (const { record } of this.loaded)
      for (const sql of versionObjectsSql(this.options.schemas.data, record.table))
        await this.client.query(sql).catch(() => {});
    this.loaded.length = 0;
    await this.release();
  }

  private async release(): Promise<void> {
    await this.client.query(metaSql(this.options.schemas.data).unlock, [this.options.schemas.data]).catch(() => {});
    await this.client.end().catch(() => {});
    for (const helper of this.helpers.splice(0)) await helper.end().catch(() => {});
  }
}

async function connectLoader(url: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 10_000,
    application_name: 'count-centre-loader',
  });
  // A connection lost between statements must not become an uncaught error; the next statement reports it.
  client.on('error', () => {});
  try {
    await client.connect();
    return client;
  } catch (err) {
    throw storeError(err);
  }
}

export class PostgresLoadTarget implements LoadTarget {
  constructor(private readonly options: PostgresLoadOptions) {}

  private connect(): Promise<pg.Client> {
    return connectLoader(this.options.url);
  }

  async readMeta(): Promise<StoreMeta | null> {
    const client = await this.connect();
    try {
      return await readPostgresMeta(client, this.options.schemas.data);
    } finally {
      await client.end();
    }
  }

  async otherLayout(): Promise<{ found: number; current: number } | null> {
    const client = await this.connect();
    try {
      return await otherPostgresLayout(client, this.options.schemas.data);
    } finally {
      await client.end();
    }
  }

  async begin(fullTextLanguage: string): Promise<LoadSession> {
    const client = await this.connect();
    try {
      await client.query(metaSql(this.options.schemas.data).lock, [this.options.schemas.data]);
      for (const sql of schemaSetupSql(this.options.schemas, this.options.readerRole)) await client.query(sql);
      const previous = await readPostgresMeta(client, this.options.schemas.data);
      const generation = await readGeneration(client, this.options.schemas.data);
      return new PostgresLoadSession(client, this.options, previous, fullTextLanguage, generation + 1);
    } catch (err) {
      await client.end().catch(() => {});
      throw storeError(err);
    }
  }

  async beginIndexing(): Promise<IndexSession | null> {
    const client = await this.connect();
    // A concurrent build waits for every transaction that might still read the table: none of ours may be open.
    return postgresIndexSession(client, this.options.schemas.data, async () => {
      await client.end().catch(() => {});
    });
  }

  async close(): Promise<void> {}
}
