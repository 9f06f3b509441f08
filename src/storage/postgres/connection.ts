// Connections to PostgreSQL: pools whose sessions are set up by startup options (no extra round trips) — the
// read-only role, read-only transactions, the statement timeout, the schema — and the translation of failures into
// the store's errors: an unreachable database is StoreUnavailable (503), a cancelled statement StatementTimeout.

import pg from 'pg';
import { StatementTimeout, StoreUnavailable } from '../backend.js';

export interface PoolOptions {
  url: string;
  schema: string;
  max: number;
  /** The role reads run as (it may only SELECT the resource tables); null to read as the login role. */
  role: string | null;
  statementTimeoutMs: number | null;
  readOnly: boolean;
  applicationName: string;
}

const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;
const DATE = 1082;

/**
 * Values as the serialisers expect them from every store: timestamps as ISO text (not Date objects, which would lose
 * microseconds and apply the process's time zone), dates as text; numeric and int8 stay text, exact.
 */
export const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMP) return (text: string) => text.replace(' ', 'T');
    if (oid === TIMESTAMPTZ || oid === DATE) return (text: string) => text;
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

function startupOptions(options: PoolOptions): string {
  const settings: string[] = [
    `search_path=${options.schema}`,
    'DateStyle=ISO,YMD',
    'IntervalStyle=postgres',
    'extra_float_digits=1',
  ];
  if (options.role) settings.push(`role=${options.role}`);
  if (options.readOnly) settings.push('default_transaction_read_only=on');
  if (options.statementTimeoutMs !== null) settings.push(`statement_timeout=${options.statementTimeoutMs}`);
  return settings.map((s) => `-c ${s}`).join(' ');
}

export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max,
    // A database that is down must fail requests quickly (503), not leave them hanging.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    options: startupOptions(options),
    application_name: options.applicationName,
  });
  // An idle connection that the server drops emits an error on the pool; it is replaced on next use.
  pool.on('error', () => {});
  return pool;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

export function isConnectionFailure(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (e.code && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  const message = e.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)|connect ECONNREFUSED/.test(
    message,
  );
}

/**
 * The store's error for a failure from pg: unreachable → StoreUnavailable, cancelled → StatementTimeout, else as is.
 */
export function storeError(err: unknown): unknown {
  const e = err as { code?: string; message?: string };
  if (e.code === '57014') return new StatementTimeout(e.message);
  if (isConnectionFailure(err)) return new StoreUnavailable(e.message ?? String(err));
  return err;
}
