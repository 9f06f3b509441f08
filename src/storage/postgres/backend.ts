// The PostgreSQL store at query time: reads run as the read-only role in read-only sessions with a statement timeout,
// from bounded pools on the primary or spread across replicas (falling back to the primary when a replica fails, and
// leaving out a replica that has not yet replayed the version of the data the primary serves). Each version served
// reads its own generation's tables, so a request is answered from the version it began with.

import pg from 'pg';
import Cursor from 'pg-cursor';
import type { CompiledQuery } from '../../dialect/compiled.js';
import type { CompilerFor, SqlCompiler } from '../../dialect/compiler.js';
import { metaSql, type PgSchemas } from '../../dialect/postgres/ddl.js';
import { qualified } from '../../dialect/postgres/quote.js';
import {
  DataVersionMoved,
  StatementRejected,
  StatementTimeout,
  StoreUnavailable,
  type Lease,
  type Store,
  type StoreHealth,
  type UserSqlResult,
} from '../backend.js';
import { CountMemo } from '../count-memo.js';
import type { StoreMeta } from '../load-target.js';
import { createPool, isConnectionFailure, pgTypes, storeError } from './connection.js';
import { readPostgresMeta } from './meta.js';
import { redact } from './redact.js';
import { answersVersion, RecordedVersion, ServedVersions, type ClosableVersion } from '../versions.js';

export interface PostgresBackendOptions {
  /** Makes each version's SQL compiler (src/stores.ts composes the store with the PostgreSQL dialect's). */
  compilerFor: CompilerFor;
  url: string;
  readUrls: string[];
  schemas: PgSchemas;
  poolSize: number;
  readerRole: string;
  searchTimeoutMs: number;
  sqlTimeoutMs: number;
}

export interface ReadTarget {
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
  [16, 'bool'],
  [18, 'char'],
  [19, 'name'],
  [20, 'int8'],
  [21, 'int2'],
  [23, 'int4'],
  [25, 'text'],
  [26, 'oid'],
  [114, 'json'],
  [700, 'float4'],
  [701, 'float8'],
  [1042, 'bpchar'],
  [1043, 'varchar'],
  [1082, 'date'],
  [1083, 'time'],
  [1114, 'timestamp'],
  [1184, 'timestamptz'],
  [1186, 'interval'],
  [1700, 'numeric'],
  [3614, 'tsvector'],
  [3615, 'tsquery'],
  [3802, 'jsonb'],
]);

/** How long a replica that failed is left out before it is tried again. */
const REPLICA_RETRY_MS = 5000;
/** How long to wait before listening again for loads after the listening connection was lost. */
const LISTENER_RETRY_MS = 2000;

/** Errors PostgreSQL gives when a statement names a table or column that is not there (any more). */
const MISSING_OBJECT = new Set(['42P01', '42703']);

/** One version of the data in PostgreSQL: the catalogue of one load, reading that load's generation tables. */
export class PostgresVersion extends RecordedVersion implements ClosableVersion {
  readonly dialect = 'postgres' as const;
  readonly compiler: SqlCompiler;
  private readonly counts = new CountMemo();

  constructor(
    private readonly store: PostgresStore,
    meta: StoreMeta,
  ) {
    super(meta);
    const tables = new Map([...meta.resources.values()].map((r) => [r.id, r.table]));
    this.compiler = store.compilerFor({ dialect: 'postgres', schema: store.schemas.data, tables });
  }

  health(): Promise<StoreHealth> {
    return this.store.health();
  }

  /**
   * A statement that found a table or column missing: if the store has moved on to another version meanwhile (this
   * version's tables were dropped by a second load, or a view now shows another generation), the request is answered
   * again from the current version; otherwise the failure stands.
   */
  private async moved(err: unknown): Promise<unknown> {
    const code = (err as { code?: string }).code;
    if (
      code &&
      MISSING_OBJECT.has(code) &&
      (await this.store.versionInStore().catch(() => null)) !== this.datasetVersion
    ) {
      return new DataVersionMoved((err as Error).message);
    }
    return storeError(err);
  }

  async rows(query: CompiledQuery): Promise<unknown[][]> {
    try {
      return await this.store.withFallback(async (target) => (await this.store.query(target.search, query)).rows);
    } catch (err) {
      throw await this.moved(err);
    }
  }

  /**
   * Each batch is a statement of its own on the pool: no connection is held between batches, and a load can publish
   * meanwhile (this version's generation tables stay until it is released).
   */
  async bulkRows(query: CompiledQuery): Promise<unknown[][]> {
    return this.rows(query);
  }

  async userSql(query: CompiledQuery, _ms: number): Promise<UserSqlResult> {
    // The sql pool's sessions carry the statement timeout for user SQL; PostgreSQL cancels the statement itself.
    let result: pg.QueryArrayResult;
    try {
      result = await this.store.withFallback((target) => this.store.query(target.sql, query));
    } catch (err) {
      if (err instanceof StoreUnavailable || err instanceof StatementTimeout) throw err;
      const failure = await this.moved(err);
      if (failure instanceof DataVersionMoved) throw failure;
      // PostgreSQL's own refusal of the statement (its message, never the SQL).
      if ((err as { code?: string }).code) throw new StatementRejected((err as Error).message);
      throw failure;
    }
    const columns = await Promise.all(
      result.fields.map(async (f) => ({ id: f.name, type: await this.store.typeName(f.dataTypeID) })),
    );
    return { rows: result.rows, columns };
  }

  async count(query: CompiledQuery): Promise<number> {
    return this.counts.count(this.datasetVersion, query, async () => {
      const rows = await this.rows(query);
      return Number(rows[0]?.[0] ?? 0);
    });
  }

  async *stream(query: CompiledQuery, batchRows: number): AsyncGenerator<unknown[][]> {
    const client = await this.store.withFallback((target) => target.search.connect());
    const cursor = client.query(new Cursor(query.sql, query.params as unknown[], { rowMode: 'array', types: pgTypes }));
    // A cursor's read is never answered if the connection drops under it: the connection's own end settles it instead.
    let lost: (err: Error) => void = () => {};
    const connectionLost = new Promise<never>((_, reject) => {
      lost = reject;
    });
    connectionLost.catch(() => {});
    const onLost = (err?: Error) =>
      lost(
        Object.assign(err ?? new Error('Connection terminated unexpectedly'), {
          code: (err as { code?: string } | undefined)?.code ?? 'ECONNRESET',
        }),
      );
    client.on('error', onLost);
    client.on('end', onLost);
    let broken: unknown = null;
    try {
      for (;;) {
        let rows: unknown[][];
        try {
          rows = (await Promise.race([cursor.read(batchRows), connectionLost])) as unknown[][];
        } catch (err) {
          broken = err;
          throw await this.moved(err);
        }
        if (rows.length === 0) return;
        yield rows;
      }
    } finally {
      client.off('error', onLost);
      client.off('end', onLost);
      // Closing the cursor when the consumer stops early (a client gone) ends the statement on the server; on a lost
      // connection it would wait for an answer that never comes.
      if (broken === null) await cursor.close().catch(() => {});
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  async estimateRows(resourceId: string): Promise<number | null> {
    const table = this.meta.resources.get(resourceId)?.table ?? resourceId;
    return this.store.estimateRows(table);
  }

  /** The pools belong to the store; a version holds nothing of its own to release. */
  async close(): Promise<void> {}
}

export class PostgresStore implements Store {
  readonly dialect = 'postgres' as const;
  private readonly admin: pg.Pool;
  private readonly primary: ReadTarget;
  private readonly replicas: ReadTarget[];
  private next = 0;
  private listener: pg.Client | null = null;
  private closed = false;
  private versions!: ServedVersions<PostgresVersion>;
  readonly schemas: PgSchemas;
  readonly compilerFor: CompilerFor;

  private constructor(
    private readonly options: PostgresBackendOptions,
    admin: pg.Pool,
    role: string | null,
  ) {
    this.admin = admin;
    this.schemas = options.schemas;
    this.compilerFor = options.compilerFor;
    const target = (url: string, name: string): ReadTarget => {
      const base = { url, max: options.poolSize, role, readOnly: true, applicationName: 'count-centre' };
      return {
        name,
        search: createPool({ ...base, schema: options.schemas.data, statementTimeoutMs: options.searchTimeoutMs }),
        // User SQL sees the public schema: a view of CKAN's columns per resource.
        sql: createPool({
          ...base,
          schema: options.schemas.public,
          max: Math.max(1, Math.ceil(options.poolSize / 2)),
          statementTimeoutMs: options.sqlTimeoutMs,
        }),
        downUntil: 0,
        version: null,
      };
    };
    this.primary = target(options.url, 'primary');
    this.replicas = options.readUrls.map((url, i) => target(url, `replica ${i + 1}`));
  }

  static async open(options: PostgresBackendOptions): Promise<PostgresStore> {
    const admin = createPool({
      url: options.url,
      schema: options.schemas.data,
      max: 2,
      role: null,
      readOnly: true,
      statementTimeoutMs: 10_000,
      applicationName: 'count-centre-admin',
    });
    try {
      const meta = await readPostgresMeta(admin, options.schemas.data);
      if (!meta)
        throw new Error(
          `no Count Centre data in this release's layout in schema "${options.schemas.data}" of ${redact(options.url)}; run the loader first`,
        );
      // Reads take the read-only role when this login may; otherwise they run as the login (which should then be
      // read-only itself).
      const member = await admin.query<{ member: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AND pg_has_role(current_user, $1, 'MEMBER') AS member`,
        [options.readerRole],
      );
      const store = new PostgresStore(options, admin, member.rows[0]?.member ? options.readerRole : null);
      store.versions = new ServedVersions(new PostgresVersion(store, meta));
      await store.checkReplicas();
      return store;
    } catch (err) {
      await admin.end();
      throw storeError(err);
    }
  }

  get current(): PostgresVersion {
    return this.versions.current;
  }

  acquire(): Lease {
    return this.versions.acquire();
  }

  /** The dataset version the primary holds now. */
  async versionInStore(): Promise<string | null> {
    const result = await this.admin.query<{ value: string }>(metaSql(this.options.schemas.data).datasetVersion);
    return result.rows[0]?.value ?? null;
  }

  /**
   * Asks each replica which dataset version it holds. A replica still replaying an earlier load (or one that cannot
   * say) is not read until it has caught up, so that an answer never mixes one version's catalogue with another's rows.
   */
  private async checkReplicas(): Promise<void> {
    const sql = metaSql(this.options.schemas.data).datasetVersion;
    await Promise.all(
      this.replicas.map(async (replica) => {
        try {
          const result = await replica.search.query<{ value: string }>(sql);
          replica.version = result.rows[0]?.value ?? null;
        } catch {
          replica.version = null;
        }
      }),
    );
  }

  /** Replicas in turn, skipping those that failed recently or lag behind; the primary when there are none left. */
  private readTargets(): ReadTarget[] {
    const now = Date.now();
    const version = this.current.datasetVersion;
    const up = this.replicas.filter((r) => r.downUntil <= now && r.version === version);
    if (up.length === 0) return [this.primary];
    const first = up[this.next++ % up.length]!;
    return [first, this.primary];
  }

  async withFallback<T>(work: (target: ReadTarget) => Promise<T>): Promise<T> {
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
        // Kept as PostgreSQL gave it when it is not a connection failure, so that callers can read its code.
        throw failure instanceof StoreUnavailable || failure instanceof StatementTimeout ? failure : err;
      }
    }
    throw new StoreUnavailable('no database to read from');
  }

  query(pool: pg.Pool, query: CompiledQuery): Promise<pg.QueryArrayResult> {
    return pool.query({ text: query.sql, values: query.params as unknown[], rowMode: 'array', types: pgTypes });
  }

  /** PostgreSQL's name for a result column's type (CKAN reports typnames: int8, numeric, text…). */
  async typeName(oid: number): Promise<string> {
    const known = TYPE_NAMES.get(oid);
    if (known) return known;
    const result = await this.admin.query<{ typname: string }>('SELECT typname FROM pg_type WHERE oid = $1', [oid]);
    const name = result.rows[0]?.typname ?? 'unknown';
    TYPE_NAMES.set(oid, name);
    return name;
  }

  async estimateRows(table: string): Promise<number | null> {
    try {
      const result = await this.admin.query<{ estimate: string }>(metaSql(this.options.schemas.data).estimate, [
        qualified(this.options.schemas.data, table),
      ]);
      const estimate = Number(result.rows[0]?.estimate ?? -1);
      return estimate >= 0 ? estimate : null;
    } catch (err) {
      throw storeError(err);
    }
  }

  async openLatest(): Promise<PostgresVersion | null> {
    const meta = await readPostgresMeta(this.admin, this.options.schemas.data).catch(() => null);
    // Replicas are checked before a new version is served, so none that lags is read from under it.
    await this.checkReplicas();
    // A version is also new when indexes were built on it since (what datastore_info says of its sizes changed).
    if (meta === null || answersVersion(meta) === this.current.answersVersion) return null;
    return new PostgresVersion(this, meta);
  }

  serve(version: PostgresVersion): void {
    this.versions.serve(version);
  }

  async discard(version: PostgresVersion): Promise<void> {
    await version.close();
  }

  /** Listens for loads published by any process, on a connection of its own, re-established if it is lost. */
  watch(changed: () => void): void {
    const connect = () => {
      if (this.closed) return;
      const client = new pg.Client({
        connectionString: this.options.url,
        connectionTimeoutMillis: 3000,
        application_name: 'count-centre-listener',
      });
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
      client
        .connect()
        .then(() => client.query(metaSql(this.options.schemas.data).listen))
        // A load published while the listener was away is picked up by polling; this one check covers reconnections.
        .then(() => changed(), retry);
    };
    connect();
  }

  async health(): Promise<StoreHealth> {
    try {
      await this.admin.query('SELECT 1');
      // A replica that stopped answering is found here too, not only when a read first fails on it (reads may all be
      // answered from memory for a while): a health check is asked every few seconds, and one SELECT 1 each is cheap.
      const now = Date.now();
      await Promise.all(
        this.replicas
          .filter((r) => r.downUntil <= now)
          .map((replica) =>
            replica.search.query('SELECT 1').catch((err: unknown) => {
              if (storeError(err) instanceof StoreUnavailable) replica.downUntil = Date.now() + REPLICA_RETRY_MS;
            }),
          ),
      );
      const down = this.replicas.filter((r) => r.downUntil > Date.now()).map((r) => `${r.name} unreachable`);
      const behind = this.replicas
        .filter((r) => r.downUntil <= Date.now() && r.version !== this.current.datasetVersion)
        .map((r) => `${r.name} behind`);
      const problems = [...down, ...behind];
      return {
        ok: true,
        detail: problems.length > 0 ? `primary reachable; ${problems.join(', ')}` : 'database reachable',
      };
    } catch (err) {
      return { ok: false, detail: isConnectionFailure(err) ? 'database unreachable' : (err as Error).message };
    }
  }

  /** Connections of each pool (total, idle, and requests waiting for one), per database. */
  stats(): Record<string, number> {
    const figures: Record<string, number> = {};
    for (const target of [this.primary, ...this.replicas]) {
      const name = target.name.replace(/\s+/g, '_');
      for (const [kind, pool] of [
        ['search', target.search],
        ['sql', target.sql],
      ] as const) {
        figures[`${name}_${kind}_connections`] = pool.totalCount;
        figures[`${name}_${kind}_connections_idle`] = pool.idleCount;
        figures[`${name}_${kind}_waiting`] = pool.waitingCount;
      }
    }
    figures.versions_open = this.versions.open;
    return figures;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener?.end().catch(() => {});
    await this.versions.closeAll();
    await Promise.all(
      [this.admin, this.primary.search, this.primary.sql, ...this.replicas.flatMap((r) => [r.search, r.sql])].map((p) =>
        p.end(),
      ),
    );
  }
}
