// Facets: for a field, the values the current view's records hold and how many records hold each, every count exact.
// Counted through datastore_search like everything else: one query reading the field's values when the view is small
// enough, otherwise one count per distinct value; a field with too many values says so instead of timing out.

import type { CatalogResource } from '../catalog/catalog.js';
import type { ActionClient } from './data.js';
import { decodedParams, filterClauses, readFilters, setFilters, type FilterValue } from './table-query.js';
import { BoundedCache } from '../util/bounded-cache.js';

/** Views up to this many records are counted from one read of the field's values. */
const SCAN_MAX = 10_000;
/** Above that, up to this many distinct values are each counted with a filtered total. */
const COUNT_EACH_MAX = 40;
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
  /** Set when the values could not all be counted (too many distinct values). */
  note: string | null;
}

function valueKey(value: unknown): string {
  return JSON.stringify(value ?? null);
}

interface Counted {
  values: { value: FacetValue['value']; count: number }[];
  note: string | null;
}

/**
 * Counts by view, kept per dataset version: the counts of a view never change until the data does, and a first page
 * (the view most often asked for) would otherwise count every facet again on every visit. Bounded by entries, the
 * least recently used going first.
 */
const counted = new BoundedCache<string, Counted>(2000);
let countedVersion = '';

/**
 * The facet of `field` in the view `search` selects. Counted without the field's own filter, so that every value
 * stays on offer (selecting another adds it to the filter's list: records with any of them).
 */
export async function facetOf(client: ActionClient, resource: CatalogResource, search: URLSearchParams, field: string, siteUrl: string): Promise<Facet> {
  const base = new URLSearchParams(search);
  for (const name of ['sort', 'fields', 'limit', 'offset', 'distinct']) base.delete(name);
  for (const name of [...base.keys()]) if (name.startsWith('_')) base.delete(name);
  const { filters, complex } = readFilters(search);
  const selected = new Set<string>();
  for (const clause of filterClauses(filters)) if (clause.field === field && clause.op === 'eq') selected.add(valueKey(clause.value));
  if (!complex) {
    const others: Record<string, FilterValue> = { ...filters };
    delete others[field];
    setFilters(base, others);
  }
  if (client.datasetVersion !== countedVersion) {
    counted.clear();
    countedVersion = client.datasetVersion;
  }
  const memoKey = `${resource.id} ${field} ${base.toString()}`;
  let found = counted.get(memoKey);
  if (!found) {
    found = await countValues(client, resource, base, field, siteUrl);
    counted.set(memoKey, found);
  }
  if (found.note !== null) return { field, values: [], note: found.note };
  const counts = new Map<string, FacetValue>(found.values.map((v) => [valueKey(v.value), { ...v, selected: selected.has(valueKey(v.value)) }]));
  // Selected values stay listed even when the other filters leave none of them.
  for (const key of selected) if (!counts.has(key)) counts.set(key, { value: JSON.parse(key) as FacetValue['value'], count: 0, selected: true });
  const values = [...counts.values()].sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value), 'en-IE'));
  return { field, values, note: null };
}

async function countValues(client: ActionClient, resource: CatalogResource, base: URLSearchParams, field: string, siteUrl: string): Promise<Counted> {
  const params = { ...decodedParams(base), resource_id: resource.id };
  const counts = new Map<string, { value: FacetValue['value']; count: number }>();
  const probe = await client.search({ ...params, fields: field, limit: SCAN_MAX, records_format: 'lists' }, siteUrl);
  if (probe.total !== null && probe.total <= SCAN_MAX) {
    for (const record of probe.records as unknown as unknown[][]) {
      const value = record[0] as FacetValue['value'];
      const key = valueKey(value);
      const entry = counts.get(key);
      if (entry) entry.count += 1;
      else counts.set(key, { value, count: 1 });
    }
    return { values: [...counts.values()], note: null };
  }
  const distinct = await client.search({ ...params, fields: field, distinct: true, limit: COUNT_EACH_MAX + 1, records_format: 'lists' }, siteUrl);
  if (distinct.records.length > COUNT_EACH_MAX) {
    return { values: [], note: `More than ${COUNT_EACH_MAX} different values in this view: filter it further to see counts.` };
  }
  for (const record of distinct.records as unknown as unknown[][]) {
    const value = record[0] as FacetValue['value'];
    const filtered = new URLSearchParams(base);
    const { filters: current } = readFilters(filtered);
    setFilters(filtered, { ...current, [field]: value });
    const total = await client.search({ ...decodedParams(filtered), resource_id: resource.id, limit: 0 }, siteUrl);
    counts.set(valueKey(value), { value, count: total.total ?? 0 });
  }
  return { values: [...counts.values()], note: null };
}

/** Per resource and dataset version: the text fields worth faceting by default. */
const defaults = new Map<string, string[]>();

/**
 * The facets a resource page shows when the URL names none: up to three text fields with few distinct values that
 * repeat (party, result, gender), found once per dataset version.
 */
export async function defaultFacets(client: ActionClient, resource: CatalogResource, siteUrl: string): Promise<string[]> {
  const key = `${client.datasetVersion} ${resource.id}`;
  const known = defaults.get(key);
  if (known) return known;
  const found: { field: string; distinct: number }[] = [];
  for (const field of resource.fields) {
    if (field.type !== 'text') continue;
    const distinct = await client.search({ resource_id: resource.id, fields: field.id, distinct: true, limit: DEFAULT_DISTINCT_MAX + 1, include_total: false }, siteUrl);
    const n = distinct.records.length;
    if (n >= 2 && n <= DEFAULT_DISTINCT_MAX && n * 2 <= resource.total) found.push({ field: field.id, distinct: n });
  }
  const chosen = found.sort((a, b) => a.distinct - b.distinct).slice(0, DEFAULT_FACETS).map((f) => f.field);
  if (defaults.size > 1000) defaults.clear();
  defaults.set(key, chosen);
  return chosen;
}
