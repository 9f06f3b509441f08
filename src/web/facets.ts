// Facets: for a field, the values the current view's records hold and how many records hold each, every count exact,
// from one grouped query per field through the actions (the view's own filters and search, planned as its search is).

import type { CatalogResource } from '../catalog/catalog.js';
import { BoundedCache } from '../util/bounded-cache.js';
import { memoKey } from '../util/version-memos.js';
import type { ActionClient } from './data.js';
import { decodedParams, filterClauses, readFilters, setFilters, type FilterValue } from './table-query.js';

/** The most values a facet lists; a view with more says so and lists the most frequent. */
const VALUES_MAX = 40;
/** Default facets: text fields with this many distinct values at most, whose values repeat. */
const DEFAULT_DISTINCT_MAX = 40;
const DEFAULT_FACETS = 3;

export interface FacetValue {
  value: string | number | boolean | null;
  count: number;
  selected: boolean;
}

export interface Facet {
  field: string;
  values: FacetValue[];
  /** Set when the view holds more values than are listed. */
  note: string | null;
}

function valueKey(value: unknown): string {
  return JSON.stringify(value ?? null);
}

interface Counted {
  values: { value: FacetValue['value']; count: number }[];
  more: boolean;
}

/**
 * Counts by view, kept with the version of the data: the counts of a view never change until the data does, and a
 * first page (the view most often asked for) would otherwise count every facet again on every visit. Bounded by
 * entries, the least recently used going first.
 */
const COUNTED = memoKey<BoundedCache<string, Counted>>('web: facet counts by view');
/** Per resource of the version: the text fields worth faceting by default. */
const DEFAULTS = memoKey<Map<string, Promise<string[]>>>('web: default facets by resource');

/**
 * The facet of `field` in the view `search` selects. Counted without the field's own filter, so that every value
 * stays on offer (selecting another adds it to the filter's list: records with any of them).
 */
export async function facetOf(
  client: ActionClient,
  resource: CatalogResource,
  search: URLSearchParams,
  field: string,
): Promise<Facet> {
  const base = new URLSearchParams(search);
  for (const name of ['sort', 'fields', 'limit', 'offset', 'distinct']) base.delete(name);
  for (const name of [...base.keys()]) if (name.startsWith('_')) base.delete(name);
  const { filters, complex } = readFilters(search);
  const selected = new Set<string>();
  for (const clause of filterClauses(filters))
    if (clause.field === field && clause.op === 'eq') selected.add(valueKey(clause.value));
  if (!complex) {
    const others: Record<string, FilterValue> = { ...filters };
    delete others[field];
    setFilters(base, others);
  }
  const counted = client.memo(COUNTED, () => new BoundedCache<string, Counted>(2000));
  const memoKeyText = `${resource.id} ${field} ${base.toString()}`;
  let found = counted.get(memoKeyText);
  if (!found) {
    const answer = await client.valueCounts({ ...decodedParams(base), resource_id: resource.id }, field, VALUES_MAX);
    found = { values: answer.values as Counted['values'], more: answer.more };
    counted.set(memoKeyText, found);
  }
  const counts = new Map<string, FacetValue>(
    found.values.map((v) => [valueKey(v.value), { ...v, selected: selected.has(valueKey(v.value)) }]),
  );
  // Selected values stay listed even when the other filters leave none of them.
  for (const key of selected)
    if (!counts.has(key)) counts.set(key, { value: JSON.parse(key) as FacetValue['value'], count: 0, selected: true });
  const values = [...counts.values()].sort(
    (a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value), 'en-IE'),
  );
  const note = found.more
    ? `More than ${VALUES_MAX} different values in this view: the ${VALUES_MAX} most frequent are listed.`
    : null;
  return { field, values, note };
}

/**
 * The facets a resource page shows when the URL names none: up to three text fields with few distinct values that
 * repeat (party, result, gender), found once per version of the data.
 */
export function defaultFacets(client: ActionClient, resource: CatalogResource): Promise<string[]> {
  return client.memoPromise(DEFAULTS, resource.id, () => findDefaultFacets(client, resource));
}

async function findDefaultFacets(client: ActionClient, resource: CatalogResource): Promise<string[]> {
  const found: { field: string; distinct: number }[] = [];
  for (const field of resource.fields) {
    if (field.type !== 'text') continue;
    const { values, more } = await client.valueCounts({ resource_id: resource.id }, field.id, DEFAULT_DISTINCT_MAX);
    const n = values.length;
    if (!more && n >= 2 && n * 2 <= resource.total) found.push({ field: field.id, distinct: n });
  }
  return found
    .sort((a, b) => a.distinct - b.distinct)
    .slice(0, DEFAULT_FACETS)
    .map((f) => f.field);
}
