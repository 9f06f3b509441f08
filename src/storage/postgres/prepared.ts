// Searches as named prepared statements: PostgreSQL parses a statement's text once per connection, and each later
// search of the same shape (other values, other pages) is bound to its values and planned for them, not parsed again.
// A connection keeps a bounded number of them; one that reaches the bound is closed, which frees them on the server.

import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { CompiledQuery } from '../../dialect/compiled.js';
import { pgTypes } from './connection.js';

/** PostgreSQL's refusal to reuse a statement whose result's columns changed under it (a view redefined). */
const CACHED_PLAN_CHANGED = '0A000';

/** The statements each connection has prepared (by name), for connections of pools that prepare. */
const preparedOn = new WeakMap<pg.PoolClient, Set<string>>();

/**
 * A statement's name: a digest of its text, so that the same text is the same statement on every connection (the
 * text holds the table's generation, so another version of the data is another statement).
 */
function statementName(sql: string): string {
  return 'cc_' + createHash('sha1').update(sql).digest('base64url');
}

export class PreparedQueries {
  /** `perConnection`: statements a connection keeps before it is closed; 0 prepares nothing (a pooler that cannot). */
  constructor(private readonly perConnection: number) {}

  /** `query` on a connection of `pool`, prepared there under its name if the pool prepares; rows as arrays. */
  async run(pool: pg.Pool, query: CompiledQuery): Promise<pg.QueryArrayResult> {
    const values = query.params as unknown[];
    const unprepared = () => pool.query({ text: query.sql, values, rowMode: 'array', types: pgTypes });
    if (this.perConnection === 0) return unprepared();
    const client = await pool.connect();
    let prepared = preparedOn.get(client);
    if (!prepared) {
      prepared = new Set();
      preparedOn.set(client, prepared);
    }
    const name = statementName(query.sql);
    prepared.add(name);
    // A connection at its bound is closed, with all it prepared (the pool opens a fresh one when it needs it); one
    // that failed is closed too, as the pool's own query closes it.
    const full = prepared.size >= this.perConnection;
    const result = await new Promise<pg.QueryArrayResult | 'changed'>((resolve, reject) => {
      let released = false;
      const release = (how: Error | boolean | undefined) => {
        if (released) return;
        released = true;
        client.off('error', lost);
        client.release(how);
      };
      // The connection lost while the statement runs (the database gone): its error is the statement's.
      const lost = (err: Error) => {
        release(err);
        reject(err);
      };
      client.once('error', lost);
      // The callback form, as the pool's own query uses: with pg 8.23 the promise form cost a dump's batches of 5,000
      // records twice the garbage collection and a third more time, measured side by side.
      client.query(
        { name, text: query.sql, values, rowMode: 'array', types: pgTypes },
        (err: (Error & { code?: string }) | null, answered: pg.QueryArrayResult) => {
          if (!err) {
            release(full || undefined);
            resolve(answered);
            return;
          }
          release(err);
          if (err.code === CACHED_PLAN_CHANGED) resolve('changed');
          else reject(err);
        },
      );
    });
    // A view redefined under the statement: asked again on another connection, against the view as it is now.
    return result === 'changed' ? unprepared() : result;
  }
}
