// Request → action parameters, by CKAN's rules: a non-empty form body wins; otherwise the query string (even on
// a POST, for read-only actions); otherwise the JSON body. Repeated query names become lists of strings.

import { errors } from '../errors.js';
import { parseJsonText } from '../query/json-text.js';
import { pythonRepr } from '../serialize/python-json.js';

export interface DecodedRequest {
  params: Record<string, unknown>;
  /** The query string the parameters came from ('' when from a body): what `_links` are built from. */
  linkQuery: string;
  /** JSONP callback name, removed from the parameters as CKAN removes it. */
  callback: string | null;
}

/** werkzeug's MultiDict flattened as CKAN's mixed(): one value stays a string, repeats become a list. */
export function mixedParams(search: URLSearchParams): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [key, value] of search) {
    const existing = params[key];
    if (existing === undefined) params[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else params[key] = [existing, value];
  }
  return params;
}

function decodeJson(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseJsonText(text);
  } catch (err) {
    throw errors.badJson(`Error decoding JSON data. Error: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw errors.badJson(`Request data JSON decoded to ${pythonRepr(parsed)} but it needs to be a dictionary.`);
  }
  return parsed as Record<string, unknown>;
}

function formParams(body: string): Record<string, unknown> | null {
  const form = new URLSearchParams(body);
  const entries = [...form];
  if (entries.length === 0) return null;
  const [only] = entries;
  // `curl -d '{"resource_id": …}'` posts the JSON as a form field name with an empty value; CKAN reads it as JSON.
  if (entries.length === 1 && only && (only[1] === '' || only[1] === '1')) return decodeJson(only[0]);
  return mixedParams(form);
}

function isForm(contentType: string): boolean {
  return contentType.startsWith('application/x-www-form-urlencoded');
}

function takeCallback(params: Record<string, unknown>): string | null {
  if (!Object.hasOwn(params, 'callback')) return null;
  const value = params.callback;
  delete params.callback;
  return typeof value === 'string' ? value : Array.isArray(value) ? String(value[value.length - 1]) : null;
}

export function decodeRequest(
  method: string,
  rawQuery: string,
  contentType: string | undefined,
  body: string | undefined,
): DecodedRequest {
  const queryParams = mixedParams(new URLSearchParams(rawQuery));
  const type = (contentType ?? '').toLowerCase();
  let params: Record<string, unknown>;
  let linkQuery = rawQuery;
  const hasBody = method === 'POST' && body !== undefined && body.trim() !== '';
  const form = hasBody && isForm(type) ? formParams(body) : null;
  if (form) {
    params = form;
    linkQuery = '';
  } else if (Object.keys(queryParams).length > 0) {
    params = queryParams;
  } else if (hasBody && !isForm(type)) {
    params = decodeJson(body);
    linkQuery = '';
  } else {
    params = {};
  }
  return { params, linkQuery, callback: takeCallback(params) };
}
