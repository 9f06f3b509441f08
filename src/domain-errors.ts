// Failures lower layers report in their own terms (a statement was refused or ran too long, a read is forbidden, the
// store is out of reach, the data moved on); errors.ts maps each to the API's error in one place, so no store or SQL
// translator knows HTTP.

/** A statement ran past its time limit and was cancelled. */
export class StatementTimeout extends Error {
  constructor(message = 'statement timeout') {
    super(message);
    this.name = 'StatementTimeout';
  }
}

/**
 * A statement of user SQL was refused, by the store or by the translator in PostgreSQL's words (division by zero, a bad
 * cast…); the message says why, without SQL. `orig` is what PostgreSQL itself said, which CKAN passes on (null when
 * the refusal is CKAN's own wording, not PostgreSQL's).
 */
export class StatementRejected extends Error {
  readonly orig: string | null;

  constructor(message: string, { fromPostgres = true } = {}) {
    super(message);
    this.name = 'StatementRejected';
    this.orig = fromPostgres ? message : null;
  }
}

/** A statement reads what it may not (a system table, another schema, a function off the allow-list). */
export class ReadForbidden extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'ReadForbidden';
  }
}

/** The store cannot be reached (connection refused, lost, or not accepting connections); answered with 503. */
export class StoreUnavailable extends Error {
  constructor(readonly detail: string) {
    super(`store unavailable: ${detail}`);
    this.name = 'StoreUnavailable';
  }
}

/** Too much work is already waiting for the store (its query workers' queue is full); answered with 503. */
export class StoreBusy extends Error {
  constructor(readonly detail: string) {
    super(`store busy: ${detail}`);
    this.name = 'StoreBusy';
  }
}

/**
 * The version a request was reading is no longer in the store (a second load replaced it while the request ran, or a
 * statement reached a table of a newer version): the request should be answered again from the current version.
 */
export class DataVersionMoved extends Error {
  constructor(readonly detail: string) {
    super(`the data was reloaded: ${detail}`);
    this.name = 'DataVersionMoved';
  }
}

/**
 * The portal a request was passed through to did not answer: it refused the connection, dropped it, or answered what is
 * not HTTP. `timedOut` when it took longer than it may.
 */
export class PortalUnreachable extends Error {
  constructor(
    readonly detail: string,
    readonly timedOut = false,
  ) {
    super(`the portal did not answer: ${detail}`);
    this.name = 'PortalUnreachable';
  }
}

/** A request that may not be passed to the portal: a path that would reach elsewhere, or a method it never takes. */
export class PassThroughRefused extends Error {
  constructor(
    readonly detail: string,
    readonly reason: 'path' | 'method' | 'too-large',
  ) {
    super(detail);
    this.name = 'PassThroughRefused';
  }
}
