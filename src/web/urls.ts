// The explorer's addresses, in one place: its pages, and the API and dump calls behind them.

import { SEARCH_PATH } from './data.js';

const enc = encodeURIComponent;

export const urls = {
  home: '/',
  compare: '/compare',
  resource: (id: string) => `/resource/${enc(id)}`,
  record: (resourceId: string, recordId: number | string) =>
    `/resource/${enc(resourceId)}/record/${enc(String(recordId))}`,
  election: (name: string) => `/election/${enc(name)}`,
  constituencies: (name: string) => `/election/${enc(name)}/constituencies`,
  constituency: (name: string, key: string) => `/election/${enc(name)}/constituencies/${enc(key)}`,
  parties: (name: string) => `/election/${enc(name)}/parties`,
  elected: (name: string) => `/election/${enc(name)}/elected`,
  party: (name: string, key: string) => `/election/${enc(name)}/parties/${enc(key)}`,
  transfers: (name: string, from?: string) => `/election/${enc(name)}/transfers${from ? `?from=${enc(from)}` : ''}`,
  constituencyTransfers: (name: string, key: string) => `/election/${enc(name)}/constituencies/${enc(key)}/transfers`,
  overTime: '/elections',
  search: (q: string) => `/search?q=${enc(q).replace(/%20/g, '+')}`,
  person: (key: string) => `/people/${enc(key)}`,
  // The parents of the addresses above, each a page of what it holds.
  people: '/people',
  allParties: '/parties',
  allElections: '/election',
  allResources: '/resource',
};

/** A resource page (or API call) for records with these equality filters, in this order. */
export function filteredQuery(filters: Record<string, unknown>, extra: Record<string, string> = {}): string {
  const search = new URLSearchParams();
  if (Object.keys(filters).length > 0) search.set('filters', JSON.stringify(filters));
  for (const [k, v] of Object.entries(extra)) search.set(k, v);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** datastore_search for a resource with the given parameters, absolute when `siteUrl` is given. */
export function apiSearchUrl(
  siteUrl: string,
  resourceId: string,
  params: URLSearchParams = new URLSearchParams(),
): string {
  const search = new URLSearchParams({ resource_id: resourceId });
  for (const [k, v] of params) if (k !== 'resource_id') search.append(k, v);
  return `${siteUrl}${SEARCH_PATH}?${search.toString()}`;
}

export function dumpUrl(resourceId: string, params: URLSearchParams): string {
  const text = params.toString();
  return `/datastore/dump/${enc(resourceId)}${text ? `?${text}` : ''}`;
}
