// How the translation and its runtime functions fail: as CKAN answers a statement PostgreSQL refuses
// (409, `{"query": ["<PostgreSQL's message>"]}`), as a refusal of what may not be read (403), or as a
// construct outside the supported subset (409 naming it).

import { ApiError, errors } from '../../errors.js';

/**
 * A statement PostgreSQL would refuse, or that fails while running; the message is PostgreSQL's wording. As in CKAN,
 * what PostgreSQL says is also in `info.orig` (ckan.js shows that), without the SQL CKAN puts beside it.
 */
export class SqlFailure extends ApiError {
  constructor(message: string, { fromPostgres = true } = {}) {
    super('validation', message, fromPostgres ? { query: [message], info: { orig: [message] } } : { query: [message] });
    this.name = 'SqlFailure';
  }
}

/** Something PostgreSQL would run but the embedded store does not (yet): a 409 that names the construct. */
export function unsupported(what: string): SqlFailure {
  return new SqlFailure(`${what} is not supported`);
}

/** A statement, or part of one, that would write or change something: datastore_search_sql only reads. */
export function readOnlyRefusal(what: string): SqlFailure {
  return new SqlFailure(`${what} is not allowed: datastore_search_sql only runs SELECT statements`);
}

export function forbidden(detail: string): ApiError {
  return errors.authorization(detail);
}

export const CKAN_MESSAGES = {
  notSingleStatement: 'Query is not a single statement.',
  systemTables: 'Not authorized to access system tables',
  readResource: 'Not authorized to read resource.',
  callFunction: (name: string) => `Not authorized to call function ${name}`,
} as const;
