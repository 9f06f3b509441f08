// How the translation and its runtime functions fail, as domain errors (errors.ts answers them as CKAN does): a
// statement PostgreSQL would refuse, a refusal of what may not be read, or a construct outside the supported subset.

import { ReadForbidden, StatementRejected } from '../../domain-errors.js';

/** A statement PostgreSQL would refuse, or that fails while running; the message is PostgreSQL's wording. */
export class SqlFailure extends StatementRejected {
  constructor(message: string, options: { fromPostgres?: boolean } = {}) {
    super(message, options);
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

export function forbidden(detail: string): ReadForbidden {
  return new ReadForbidden(detail);
}

export const CKAN_MESSAGES = {
  notSingleStatement: 'Query is not a single statement.',
  systemTables: 'Not authorized to access system tables',
  readResource: 'Not authorized to read resource.',
  callFunction: (name: string) => `Not authorized to call function ${name}`,
} as const;
