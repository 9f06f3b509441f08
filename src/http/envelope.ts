// The one place results and errors become CKAN's response bodies: `{"help", "success", "result"}` on success,
// `{"help", "error", "success"}` on failure (CKAN's key order), or a bare JSON string for 400s. What lower layers
// raise becomes an API error first, in errors.ts (`toApiError`).

import { ApiError, ERROR_KINDS } from '../errors.js';
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
  return {
    status: kind.status,
    body: `{"help": ${pyJsonDumps(help)}, "error": ${pyJsonDumps(detail)}, "success": false}`,
  };
}
