// The one place results and errors become CKAN's response bodies: `{"help", "success", "result"}` on success,
// `{"help", "error", "success"}` on failure (CKAN's key order), or a bare JSON string for 400s; and the one place
// where the failures of lower layers become API errors.

import { StatementRejected, StatementTimeout, StoreBusy, StoreUnavailable } from '../domain-errors.js';
import { ApiError, errors, ERROR_KINDS } from '../errors.js';
import { pyJsonDumps } from '../serialize/python-json.js';

export interface EnvelopeResponse {
  status: number;
  body: string;
}

export function helpUrl(siteUrl: string, locale: string, action: string): string {
  const prefix = locale ? `/${locale}` : '';
  return `${siteUrl}${prefix}/api/3/action/help_show?name=${encodeURIComponent(action)}`;
}

export function successEnvelope(help: string, result: unknown): EnvelopeResponse {
  return { status: 200, body: `{"help": ${pyJsonDumps(help)}, "success": true, "result": ${pyJsonDumps(result)}}` };
}

export function errorEnvelope(help: string | null, error: ApiError): EnvelopeResponse {
  const kind = ERROR_KINDS[error.kind];
  if (kind.type === null || help === null) {
    return { status: kind.status, body: pyJsonDumps(error.message) };
  }
  const detail = error.validation
    ? { ...error.validation, __type: kind.type }
    : { __type: kind.type, message: error.message, ...(error.info ? { info: error.info } : {}) };
  return { status: kind.status, body: `{"help": ${pyJsonDumps(help)}, "error": ${pyJsonDumps(detail)}, "success": false}` };
}

/**
 * Any failure as the API error it is answered with: API errors as they are; the store's own failures as CKAN words
 * them (503 while it cannot be reached or is saturated, 409 for a statement that ran too long or was refused);
 * anything else is reported to `unexpected` (for the log) and answered as a 500 that carries no internals.
 */
export function toApiError(err: unknown, unexpected: (err: unknown) => void): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof StoreUnavailable) return errors.unavailable('The data store cannot be reached at the moment; please try again shortly.');
  if (err instanceof StoreBusy) return errors.unavailable('The data store is busy; please try again shortly.');
  if (err instanceof StatementTimeout) return errors.queryTimeout();
  if (err instanceof StatementRejected) return new ApiError('validation', err.message, { query: [err.message], info: { orig: [err.message] } });
  unexpected(err);
  return errors.internal();
}
