// A worker thread that runs user SQL on its own read-only connection to the embedded store, so that a long statement
// never holds up the event loop that serves everyone else. The statement's deadline aborts it from inside SQLite.

import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { ApiError } from '../../errors.js';
import { BoundedCache } from '../../util/bounded-cache.js';
import { DeadlineExceeded, loadExtensions, openReadConnection, type SqliteExtension } from './connection.js';

export interface WorkerRequest {
  id: number;
  sql: string;
  params: (string | number | null)[];
  ms: number;
}

export type WorkerFailure =
  | { kind: 'timeout' }
  | { kind: 'api'; apiKind: ApiError['kind']; message: string; validation: ApiError['validation'] }
  | { kind: 'sql'; message: string };

export type WorkerReply = { id: number; rows: unknown[][] } | { id: number; failure: WorkerFailure };

function failureOf(err: unknown): WorkerFailure {
  if (err instanceof DeadlineExceeded) return { kind: 'timeout' };
  if (err instanceof ApiError) return { kind: 'api', apiKind: err.kind, message: err.message, validation: err.validation };
  return { kind: 'sql', message: err instanceof Error ? err.message : String(err) };
}

const { file, extensions } = workerData as { file: string; extensions: SqliteExtension[] };
const connection = openReadConnection(file, 'query', await loadExtensions(extensions));
const statements = new BoundedCache<string, Database.Statement>(200);

parentPort!.on('message', (request: WorkerRequest) => {
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
