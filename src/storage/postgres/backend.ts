// The PostgreSQL store at query time: reads run as the read-only role in read-only sessions with a statement timeout,
// from bounded pools on the primary or spread across replicas (falling back to the primary when a replica fails, and
// leaving out a replica that has not yet replayed the version of the data the primary serves).

import pg from 'pg';
import Cursor from 'pg-cursor';
import type { CompiledQuery } from '../../sql/compiled.js';
import type { CompileTarget } from '../../sql/dialects.js';
import { metaSql, type PgSchemas } from '../../sql/postgres/ddl.js';
import { qualified } from '../../sql/postgres/quote.js';
import { StatementRejected, StatementTimeout, StoreUnavailable, type LoadedResource, type StorageBackend, type StoreHealth, type UserSqlResult } from '../backend.js';
import { CountMemo } from '../count-memo.js';
import type { StoreMeta } from '../load-target.js';
import { createPool, isConnectionFailure, pgTypes, storeError } from './connection.js';
import { readPostgresMeta } from './meta.js';

export interface PostgresBackendOptions {
  url: string;
  readUrls: string[];
  schemas: PgSchemas;
  poolSize: number;
  readerRole: string;
  searchTimeoutMs: number;
  sqlTimeoutMs: number;
}

interface ReadTarget {
  name: string;
  search: pg.Pool;
  /** User SQL runs with its own (shorter) statement timeout, set per session. */
  sql: pg.Pool;
  /** Until when this target is skipped after a connection failure. */
  downUntil: number;
  /** The dataset version a replica held when last asked (null: not known); one behind the primary is not read. */
  version: string | null;
}

/** The built-in types' oids, which never change; others are looked up once. */
const TYPE_NAMES = new Map<number, string>([
  [16, 'bool'], [18, 'char'], [19, 'name'], [20, 'int8'], [21, 'int2'], [23, 'int4'], [25, 'text'], [26, 'oid'], [114, 'json'],
  [700, 'float4'], [701, 'float8'], [1042, 'bpchar'], [1043, 'varchar'], [1082, 'date'], [1083, 'time'], [1114, 'timestamp'],
  [1184, 'timestamptz'], [1186, 'interval'], [1700, 'numeric'], [3614, 'tsvector'], [3615, 'tsquery'], [3802, 'jsonb'],
]);

/** How long a replica that failed is left out before it is tried again. */
const REPLICA_RETRY_MS = 5000;
/** How long to wait before listening again for loads after the listening connection was lost. */
const LISTENER_RETRY_MS = 2000;

export class PostgresBackend implements StorageBackend {
  readonly dialect = 'postgres' as const;
  readonly compileTarget: CompileTarget;
  private readonly admin: pg.Pool;
  private readonly primary: ReadTarget;
  private readonly replicas: ReadTarget[];
  private next = 0;
  private listener: pg.Client | null = null;
  private closed = false;
  private readonly counts = new CountMemo();

  private constructor(
    private readonly options: PostgresBackendOptions,
    private meta: StoreMeta,
    admin: pg.Pool,
    role: string | null,
  ) {
    this.compileTarget = { dialect: 'postgres', schema: options.schemas.data };
    this.admin = admin;
    const target = (url: string, name: string): ReadTarget => {
      const base = { url, max: options.poolSize, role, readOnly: true, applicationName: 'count-centre' };
      return {
        name,
        search: createPool({ ...base, schema: options.schemas.data, statementTimeoutMs: options.searchTimeoutMs }),
        // User SQL sees the public schema: a view of CKAN's columns per resource.
        sql: createPool({ ...base, schema: options.schemas.public, max: Math.max(1, Math.ceil(options.poolSize / 2)), statementTimeoutMs: options.sqlTimeoutMs }),
        downUntil: 0,
        version: null,
      };
    };
    this.primary = target(options.url, 'primary');
    this.replicas = options.readUrls.map((url, i) => target(url, `replica ${i + 1}`));
  }

  static async open(options: PostgresBackendOptions): Promise<PostgresBackend> {
    const admin = createPool({ url: options.url, schema: options.schemas.data, max: 2, role: null, readOnly: true, statementTimeoutMs: 10_000, applicationName: 'count-centre-admin' });
    try {
      const meta = await readPostgresMeta(admin, options.schemas.data);
      if (!meta) throw new Error(`no Count Centre data in this release's layout in schema "${options.schemas.data}" of ${redact(options.url)}; run the loader first`);
      // Reads take the read-only role when this login may; otherwise they run as the login (which should then be read-only itself).
      const member = await admin.query<{ member: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AND pg_has_role(current_user, $1, 'MEMBER') AS member`, [options.readerRole]);
      const backend = new PostgresBackend(options, meta, admin, member.rows[0]?.member ? options.readerRole : null);
      await backend.checkReplicas();
      return backend;
    } catch (err) {
      await admin.end();
      throw storeError(err);
    }
  }

  get indexLanguage(): string {
    return this.meta.fullTextLanguage;
  }

  get datasetVersion(): string {
    return this.meta.datasetVersion;
  }

  get databaseBytes(): number {
    return this.meta.databaseBytes;
  }

  get resources(): ReadonlyMap<string, LoadedResource> {
    return this.meta.resources;
  }

  /**
   * Asks each replica which dataset version it holds. A replica still replaying an earlier load (or one that cannot
   * say) is not read until it has caught up, so that an answer never mixes one version's catalogue with another's rows.
   */
  private async checkReplicas(): Promise<void> {
    const sql = metaSql(this.options.schemas.data).datasetVersion;
    await Promise.all(this.replicas.map(async (replica) => {
      try {
        const result = await replica.search.query<{ value: string }>(sql);
        replica.version = result.rows[0]?.value ?? null;
      } catch {
        replica.version = null;
      }
    }));
  }

  /** Replicas in turn, skipping those that failed recently or lag behind; the primary when there are none left. */
  private readTargets(): ReadTarget[] {
    const now = Date.now();
    const version = this.meta.datasetVersion;
    const up = this.replicas.filter((r) => r.downUntil <= now && r.version === version);
    if (up.length === 0) return [this.primary];
    const first = up[this.next++ % up.length]!;
    return [first, this.primary];
  }

  private async withFallback<T>(work: (target: ReadTarget) => Promise<T>): Promise<T> {
    const targets = this.readTargets();
    for (let i = 0; i < targets.length; i++) {
      const target = targets[i]!;
      try {
        return await work(target);
      } catch (err) {
        const failure = storeError(err);
        const last = i === targets.length - 1;
        if (failure instanceof StoreUnavailable && target !== this.primary) {
          target.downUntil = Date.now() + REPLICA_RETRY_MS;
          if (!last) continue;
        }
        throw failure;
      }
    }
    throw new StoreUnavailable('no database to read from');
  }

  private query(pool: pg.Pool, query: CompiledQuery): Promise<pg.QueryArrayResult> {
    return pool.query({ text: query.sql, values: query.params as unknown[], rowMode: 'array', types: pgTypes });
  }

  async rows(query: CompiledQuery): Promise<unknown[][]> {
    return this.withFallback(async (target) => (await this.query(target.search, query)).rows);
  }

  async userSql(query: CompiledQuery, _ms: number): Promise<UserSqlResult> {
    // The sql pool's sessions carry the statement timeout for user SQL; PostgreSQL cancels the statement itself.
    try {
      const result = await this.withFallback((target) => this.query(target.sql, query));
      const columns = await Promise.all(result.fields.map(async (f) => ({ id: f.name, type: await this.typeName(f.dataTypeID) })));
      return { rows: result.rows, columns };
    } catch (err) {
      if (err instanceof StoreUnavailable || err instanceof StatementTimeout) throw err;
      // PostgreSQL's own refusal of the statement (its message, never the SQL).
      if ((err as { code?: string }).code) throw new StatementRejected((err as Error).message);
      throw err;
    }
  }

  /** PostgreSQL's name for a result column's type (CKAN reports typnames: int8, numeric, text…). */
  private async typeName(oid: number): Promise<string> {
    const known = TYPE_NAMES.get(oid);
    if (known) return known;
    const result = await this.admin.query<{ typname: string }>('SELECT typname FROM pg_type WHERE oid = $1', [oid]);
    const name = result.rows[0]?.typname ?? 'unknown';
    TYPE_NAMES.set(oid, name);
    return name;
  }

  async count(query: CompiledQuery): Promise<number> {
    return this.counts.count(this.datasetVersion, query, async () => {
      const rows = await this.rows(query);
      return Number(rows[0]?.[0] ?? 0);
    });
  }

  async *stream(query: CompiledQuery, batchRows: number): AsyncGenerator<unknown[][]> {
    const client = await this.withFallback((target) => target.search.connect());
    const cursor = client.query(new Cursor(query.sql, query.params as unknown[], { rowMode: 'array', types: pgTypes }));
    let broken: unknown = null;
    try {
      for (;;) {
        let rows: unknown[][];
        try {
          rows = (await cursor.read(batchRows)) as unknown[][];
        } catch (err) {
          broken = err;
          throw storeError(err);
        }
        if (rows.length === 0) return;
        yield rows;
      }
    } finally {
      // Closing the cursor when the consumer stops early (a client gone) ends the statement on the server.
      await cursor.close().catch(() => {});
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  async estimateRows(resourceId: string): Promise<number | null> {
    try {
      const result = await this.admin.query<{ estimate: string }>(metaSql(this.options.schemas.data).estimate, [qualified(this.options.schemas.data, resourceId)]);
      const estimate = Number(result.rows[0]?.estimate ?? -1);
      return estimate >= 0 ? estimate : null;
    } catch (err) {
      throw storeError(err);
    }
  }

  async refresh(): Promise<boolean> {
    const meta = await readPostgresMeta(this.admin, this.options.schemas.data).catch(() => null);
    const changed = meta !== null && meta.datasetVersion !== this.meta.datasetVersion;
    // Replicas are checked before the new version is served, so none that lags is read from under it.
    await this.checkReplicas();
    if (changed) this.meta = meta;
    return changed;
  }

  /** Listens for loads published by any process, on a connection of its own, re-established if it is lost. */
  watch(changed: () => void): void {
    const connect = () => {
      if (this.closed) return;
      const client = new pg.Client({ connectionString: this.options.url, connectionTimeoutMillis: 3000, application_name: 'count-centre-listener' });
      this.listener = client;
      let retried = false;
      const retry = () => {
        if (retried || this.closed) return;
        retried = true;
        client.end().catch(() => {});
        setTimeout(connect, LISTENER_RETRY_MS).unref();
      };
      client.on('error', retry);
      client.on('end', retry);
      client.on('notification', (message) => {
        if (message.payload === this.options.schemas.data) changed();
      });
      client.connect()
        .then(() => client.query(metaSql(this.options.schemas.data).listen))
        // A load published while the listener was away is picked up by polling; this one check covers reconnections.
        .then(() => changed(), retry);
    };
    connect();
  }

  async health(): Promise<StoreHealth> {
    try {
      await this.admin.query('SELECT 1');
      const down = this.replicas.filter((r) => r.downUntil > Date.now()).map((r) => `${r.name} unreachable`);
      const behind = this.replicas.filter((r) => r.downUntil <= Date.now() && r.version !== this.meta.datasetVersion).map((r) => `${r.name} behind`);
      const problems = [...down, ...behind];
      return { ok: true, detail: problems.length > 0 ? `primary reachable; ${problems.join(', ')}` : 'database reachable' };
    } catch (err) {
      return { ok: false, detail: isConnectionFailure(err) ? 'database unreachable' : (err as Error).message };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener?.end().catch(() => {});
    await Promise.all([this.admin, this.primary.search, this.primary.sql, ...this.replicas.flatMap((r) => [r.search, r.sql])].map((p) => p.end()));
  }
}

/** A connection URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the database';
  }
}
