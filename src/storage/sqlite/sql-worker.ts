// A worker thread that runs user SQL on its own read-only connection to the embedded store, so that a long statement
// never holds up the event loop that serves everyone else. The statement's deadline aborts it from inside SQLite.

import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { StatementRejected } from '../../domain-errors.js';
import { BoundedCache } from '../../util/bounded-cache.js';
import { DeadlineExceeded, loadExtensions, openReadConnection, type SqliteExtension } from './connection.js';

export interface WorkerRequest {
  id: number;
  sql: string;
  params: (string | number | null)[];
  ms: number;
}

export type WorkerFailure =
  { kind: 'timeout' } | { kind: 'rejected'; message: string; fromPostgres: boolean } | { kind: 'sql'; message: string };

export type WorkerReply =
  | { id: number; rows: unknown[][] }
  | { id: number; failure: WorkerFailure }
  /** Sent as the statement starts: a worker's own start (modules, connection) is not the statement's time. */
  | { id: number; started: true };

function failureOf(err: unknown): WorkerFailure {
  if (err instanceof DeadlineExceeded) return { kind: 'timeout' };
  // The translator's runtime functions refuse in PostgreSQL's words; SQLite's own failures are passed on as said.
  if (err instanceof StatementRejected)
    return { kind: 'rejected', message: err.message, fromPostgres: err.orig !== null };
  return { kind: 'sql', message: err instanceof Error ? err.message : String(err) };
}

const { file, extensions } = workerData as { file: string; extensions: SqliteExtension[] };
const connection = openReadConnection(file, 'query', await loadExtensions(extensions));
const statements = new BoundedCache<string, Database.Statement>(200);

parentPort!.on('message', (request: WorkerRequest) => {
  parentPort!.postMessage({ id: request.id, started: true } satisfies WorkerReply);
  let reply: WorkerReply;
  try {
    const statement = statements.getOrCreate(request.sql, () => connection.db.prepare(request.sql));
    const rows = connection.deadline.run(request.ms, () => statement.raw(true).all(...request.params) as unknown[][]);
    reply = { id: request.id, rows };
  } catch (err) {
    reply = { id: request.id, failure: failureOf(err) };
  }
  parentPort!.postMessage(reply);
});
