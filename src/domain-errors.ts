// Failures lower layers report in their own terms (a statement ran too long, the store is out of reach, the data moved
// on): the request core turns each into CKAN's envelope in one place (http/envelope.ts), so no store knows HTTP.

/** A statement ran past its time limit and was cancelled. */
export class StatementTimeout extends Error {
  constructor(message = 'statement timeout') {
    super(message);
    this.name = 'StatementTimeout';
  }
}

/** The store refused a statement of user SQL (division by zero, a bad cast…); the message says why, without SQL. */
export class StatementRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementRejected';
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
