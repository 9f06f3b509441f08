// The error catalogue: every error the API answers with, its HTTP status, CKAN `__type` and message wording.
// Errors are raised anywhere as ApiError and become CKAN's envelope in one place (http/envelope.ts).

import { pythonRepr } from './serialize/python-json.js';

export interface ErrorKindSpec {
  status: number;
  /** CKAN's `__type`; null for the errors CKAN answers with a bare JSON string instead of an envelope. */
  type: string | null;
  description: string;
}

export const ERROR_KINDS = {
  validation: {
    status: 409, type: 'Validation Error',
    description: 'A parameter is missing, has the wrong type, or names a field the resource does not have. `error` maps each parameter to its messages.',
  },
  notFound: {
    status: 404, type: 'Not Found Error',
    description: 'The resource, action documentation or object named does not exist.',
  },
  authorization: {
    status: 403, type: 'Authorization Error',
    description: 'The request asks for something it may not read.',
  },
  badRequest: {
    status: 400, type: null,
    description: 'Unknown action, or a body that cannot be decoded. As in CKAN, the body is a bare JSON string, not an envelope.',
  },
  methodNotAllowed: {
    status: 405, type: 'Method Not Allowed',
    description: 'The path is served, but not for this HTTP method (actions take GET and POST; dumps GET).',
  },
  payloadTooLarge: {
    status: 413, type: 'Request Entity Too Large',
    description: 'The request body is larger than the server accepts, compressed or once decompressed.',
  },
  unavailable: {
    status: 503, type: 'Service Unavailable',
    description: 'The storage backend cannot be reached; retry later.',
  },
  internal: {
    status: 500, type: 'Internal Server Error',
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
    return new ApiError('validation', reason, { query: [messages.invalidQuery], info: { orig: [reason] } });
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
    return new ApiError('payloadTooLarge', `Request body larger than ${limitBytes} bytes${decompressed ? ' once decompressed' : ''}`);
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
};
