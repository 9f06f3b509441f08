// The error catalogue: every error the API answers with, its HTTP status, CKAN `__type` and message wording, and the
// one mapping of the lower layers' domain errors (domain-errors.ts) onto it, for the API and the pages alike.
// ApiErrors are raised by the layers that speak the API (actions, the plan) and become CKAN's envelope in
// http/envelope.ts.

import {
  PassThroughRefused,
  PortalUnreachable,
  ReadForbidden,
  StatementRejected,
  StatementTimeout,
  StoreBusy,
  StoreUnavailable,
} from './domain-errors.js';
import { pythonRepr } from './serialize/python-json.js';

export interface ErrorKindSpec {
  status: number;
  /** CKAN's `__type`; null for the errors CKAN answers with a bare JSON string instead of an envelope. */
  type: string | null;
  description: string;
}

export const ERROR_KINDS = {
  validation: {
    status: 409,
    type: 'Validation Error',
    description:
      'A parameter is missing, has the wrong type, or names a field the resource does not have. `error` maps each parameter to its messages.',
  },
  notFound: {
    status: 404,
    type: 'Not Found Error',
    description: 'The resource, action documentation or object named does not exist.',
  },
  authorization: {
    status: 403,
    type: 'Authorization Error',
    description: 'The request asks for something it may not read.',
  },
  badRequest: {
    status: 400,
    type: null,
    description:
      'Unknown action, or a body that cannot be decoded. As in CKAN, the body is a bare JSON string, not an envelope.',
  },
  methodNotAllowed: {
    status: 405,
    type: 'Method Not Allowed',
    description: 'The path is served, but not for this HTTP method (actions take GET and POST; dumps GET).',
  },
  payloadTooLarge: {
    status: 413,
    type: 'Request Entity Too Large',
    description: 'The request body is larger than the server accepts, compressed or once decompressed.',
  },
  unavailable: {
    status: 503,
    type: 'Service Unavailable',
    description: 'The storage backend cannot be reached; retry later.',
  },
  badGateway: {
    status: 502,
    type: 'Bad Gateway',
    description:
      'In front of a portal: the portal a request was passed to could not be reached, or dropped the connection, and no answer to it was kept.',
  },
  gatewayTimeout: {
    status: 504,
    type: 'Gateway Timeout',
    description:
      'In front of a portal: the portal a request was passed to did not answer within COUNTCENTRE_PORTAL_TIMEOUT_SECONDS, and no answer to it was kept.',
  },
  internal: {
    status: 500,
    type: 'Internal Server Error',
    description: 'An unexpected failure. It is logged; the body never carries internals.',
  },
} as const satisfies Record<string, ErrorKindSpec>;

export type ErrorKind = keyof typeof ERROR_KINDS;

/** Field name → messages (and optional extra keys such as `info`), as in CKAN's ValidationError dict. */
export type ValidationDetail = Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly validation: ValidationDetail | null = null,
    /** For errors other than validation: an extra `info` entry for people (a hint), beside CKAN's `message`. */
    readonly info: Record<string, unknown> | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get status(): number {
    return ERROR_KINDS[this.kind].status;
  }
}

/** Wording of validation messages, kept identical to CKAN's so clients that match on text keep working. */
export const messages = {
  missingValue: 'Missing value',
  invalidInteger: 'Invalid integer',
  enterInteger: 'Please enter an integer value',
  naturalNumber: 'Must be a natural number',
  cannotParseJson: 'Cannot parse JSON',
  notAList: 'Not a list',
  invalidValue: (value: unknown) => `invalid value "${typeof value === 'string' ? value : pythonRepr(value)}"`,
  oneOf: (choices: readonly string[]) => `Value must be one of ${pythonRepr([...choices])}`,
  neitherStringNorList: (value: unknown) => `Neither a string nor a list: ${pythonRepr(value)}`,
  filtersShape: 'Filters must be defined as a dict or a list of dicts',
  notAString: 'Must be a string',
  tooLarge: (max: number) => `Must be at most ${max}`,
  invalidQuery: 'Invalid query',
} as const;

export const errors = {
  /** 409 with one or more parameters' messages. */
  validation(detail: ValidationDetail): ApiError {
    return new ApiError('validation', 'Validation Error', detail);
  },
  /**
   * 409 for a query that cannot run (CKAN's "Invalid query", which CKAN raises when PostgreSQL rejects its SQL).
   * `reason` says why in plain words; unlike CKAN we never put SQL text in it.
   */
  invalidQuery(reason: string): ApiError {
    return errors.statementRefused(reason, messages.invalidQuery, reason);
  },
  /**
   * 409 for a statement refused (CKAN's `{"query": [...]}`); as in CKAN, what PostgreSQL said is also in `info.orig`
   * (ckan.js shows that), without the SQL CKAN puts beside it.
   */
  statementRefused(message: string, query: string = message, orig: string | null = message): ApiError {
    return new ApiError(
      'validation',
      message,
      orig === null ? { query: [query] } : { query: [query], info: { orig: [orig] } },
    );
  },
  queryTimeout(message = 'Search took too long'): ApiError {
    return new ApiError('validation', message, { query: [message] });
  },
  notFound(detail: string): ApiError {
    return new ApiError('notFound', detail ? `Not found: ${detail}` : 'Not found');
  },
  resourceNotFound(resourceId: string): ApiError {
    return errors.notFound(`Resource "${resourceId}" was not found.`);
  },
  authorization(detail: string): ApiError {
    return new ApiError('authorization', detail ? `Access denied: ${detail}` : 'Access denied');
  },
  /** CKAN words these "Bad request - <detail>" and sends them as a bare JSON string. */
  badRequest(detail: string): ApiError {
    return new ApiError('badRequest', `Bad request - ${detail}`);
  },
  /** CKAN's bare-string 400; `hint` (the closest action, when one is close) follows CKAN's words. */
  unknownAction(name: string, hint: string | null = null): ApiError {
    return errors.badRequest(`Action name not known: ${name}${hint ? ` (${hint})` : ''}`);
  },
  badJson(detail: string): ApiError {
    return errors.badRequest(`JSON Error: ${detail}`);
  },
  payloadTooLarge(limitBytes: number, decompressed = false): ApiError {
    return new ApiError(
      'payloadTooLarge',
      `Request body larger than ${limitBytes} bytes${decompressed ? ' once decompressed' : ''}`,
    );
  },
  methodNotAllowed(method: string, allowed: readonly string[]): ApiError {
    return new ApiError('methodNotAllowed', `Method ${method} not allowed here; use ${allowed.join(', ')}`);
  },
  unavailable(detail: string): ApiError {
    return new ApiError('unavailable', detail);
  },
  internal(): ApiError {
    return new ApiError('internal', 'Internal Server Error');
  },
  badGateway(detail: string): ApiError {
    return new ApiError('badGateway', detail);
  },
  gatewayTimeout(detail: string): ApiError {
    return new ApiError('gatewayTimeout', detail);
  },
};

/**
 * Any failure as the API error it is answered with: API errors as they are; the lower layers' domain errors as CKAN
 * words them (503 while the store cannot be reached or is saturated, 409 for a statement that ran too long or was
 * refused, 403 for a read that is forbidden); anything else is reported to `unexpected` (for the log) and answered as
 * a 500 that carries no internals.
 */
export function toApiError(err: unknown, unexpected: (err: unknown) => void): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof StoreUnavailable)
    return errors.unavailable('The data store cannot be reached at the moment; please try again shortly.');
  if (err instanceof StoreBusy) return errors.unavailable('The data store is busy; please try again shortly.');
  if (err instanceof StatementTimeout) return errors.queryTimeout();
  if (err instanceof StatementRejected) return errors.statementRefused(err.message, err.message, err.orig);
  if (err instanceof ReadForbidden) return errors.authorization(err.detail);
  if (err instanceof PortalUnreachable) {
    const words = `The portal could not be reached: ${err.detail}`;
    return err.timedOut ? errors.gatewayTimeout(words) : errors.badGateway(words);
  }
  if (err instanceof PassThroughRefused) {
    if (err.reason === 'too-large') return new ApiError('payloadTooLarge', err.detail);
    if (err.reason === 'method') return new ApiError('methodNotAllowed', err.detail);
    return errors.badRequest(err.detail);
  }
  unexpected(err);
  return errors.internal();
}
