// How many records of a view hold each value of a field (the explorer's facets), from one grouped statement planned
// as the view's own search is: the same parameters, validation, filters and full-text query. CKAN has no action for
// it, so the API does not serve it; the pages call it as they call datastore_search.

import { ApiError, errors } from '../errors.js';
import { validating } from './validation.js';
import { readSearchRequest, searchParamSpecs } from '../query/search-params.js';
import { planValueCounts } from '../query/search-plan.js';
import { valueReader } from '../serialize/records.js';
import type { Settings } from '../settings.js';
import type { Services } from './types.js';

export interface ValueCount {
  value: unknown;
  count: number;
}

export interface ValueCounts {
  /** The most frequent first, at most the limit asked for. */
  values: ValueCount[];
  /** Whether the view holds more distinct values than were answered. */
  more: boolean;
}

const specsBySettings = new WeakMap<Settings, ReturnType<typeof searchParamSpecs>>();

/**
 * The counts of `field`'s values among the records datastore_search's `params` select (`q`, `filters`, …; paging and
 * sorting do not matter), at most `limit` of them.
 */
export async function countFieldValues(
  params: Record<string, unknown>,
  field: string,
  limit: number,
  services: Services,
): Promise<ValueCounts> {
  const { settings, catalog, backend } = services;
  let specs = specsBySettings.get(settings);
  if (!specs) {
    specs = searchParamSpecs(settings);
    specsBySettings.set(settings, specs);
  }
  const request = validating(() => readSearchRequest({ ...params, fields: field }, settings, specs));
  const resource = catalog.get(request.resourceId);
  if (!resource) throw errors.resourceNotFound(request.resourceId);
  const plan = planValueCounts(request, resource, field, limit + 1, { defaultLanguage: settings.ftsLanguage });
  if (plan instanceof ApiError) throw plan;
  const rows = await backend.rows(backend.compiler.compileValueCounts(plan));
  const read = valueReader(plan.field.type, { timestampMilliseconds: settings.msInTimestamp });
  const values = rows.slice(0, limit).map((row) => ({ value: read(row[0]), count: Number(row[1]) }));
  return { values, more: rows.length > limit };
}
