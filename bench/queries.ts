// What the scenarios ask: the default page (1), twenty popular queries (2), a seeded stream of distinct queries made
// from the data itself (3), and the synthetic resource's pages and dump (4). Everything is a GET path.

import http from 'node:http';
import { httpGet } from './recording.js';
import { Rng } from './rng.js';

export const RESOURCE_A = '60728fc9-2896-41d8-a70c-9c01dd3d57ce';
export const RESOURCE_B = 'f6a59fec-6f64-48bb-9f65-e6679aa23dba';
export const RESOURCE_C = '6feac8a2-85a6-46ae-ad22-0c77f8065e23';

const SEARCH = '/api/3/action/datastore_search';

/** A datastore_search path; parameters in the given order, values URL-encoded as a browser or ckanapi would. */
export function searchPath(params: Record<string, string | number | boolean | object>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) q.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  return `${SEARCH}?${q.toString()}`;
}

export const DEFAULT_PAGE = searchPath({ resource_id: RESOURCE_A });

/** Scenario 2: what a portal's visitors and scripts ask most, fixed so every run asks the same. */
export const POPULAR: readonly string[] = [
  searchPath({ resource_id: RESOURCE_A, filters: { 'Party Abbreviation': 'F.F.' } }),
  searchPath({ resource_id: RESOURCE_A, filters: { 'Party Abbreviation': 'S.F.' }, sort: 'Votes desc' }),
  searchPath({ resource_id: RESOURCE_A, filters: { Constituency: 'Dublin Bay South' } }),
  searchPath({
    resource_id: RESOURCE_A,
    filters: { Constituency: 'Cork South Central', 'Party Abbreviation': ['F.F.', 'F.G.'] },
    sort: 'Votes desc',
  }),
  searchPath({ resource_id: RESOURCE_A, sort: 'Votes desc', limit: 20 }),
  searchPath({
    resource_id: RESOURCE_A,
    filters: { 'Party Abbreviation': ['F.F.', 'F.G.'], Result: 'Elected' },
    fields: 'Constituency,Surname,Firstname,Votes',
    sort: 'Votes desc',
  }),
  searchPath({ resource_id: RESOURCE_A, q: 'Murphy' }),
  searchPath({ resource_id: RESOURCE_A, q: { Surname: "O'Brien" } }),
  searchPath({ resource_id: RESOURCE_A, records_format: 'csv' }),
  searchPath({ resource_id: RESOURCE_A, fields: 'Party Id', distinct: true }),
  searchPath({
    resource_id: RESOURCE_A,
    filters: { 'Gender Id': 'F', Result: 'Elected' },
    sort: 'Votes desc',
    limit: 50,
  }),
  searchPath({ resource_id: RESOURCE_A, offset: 100, limit: 100 }),
  searchPath({ resource_id: RESOURCE_B }),
  searchPath({ resource_id: RESOURCE_B, records_format: 'csv', limit: 5 }),
  searchPath({
    resource_id: RESOURCE_B,
    sort: 'Total Electorate desc',
    fields: 'Constituency Name,Total Electorate,Quota',
  }),
  searchPath({ resource_id: RESOURCE_C, filters: { 'Constituency Name': 'Wicklow' } }),
  searchPath({
    resource_id: RESOURCE_C,
    filters: { 'Constituency Name': 'Wicklow', 'Count Number': 1 },
    sort: 'Votes desc',
  }),
  searchPath({ resource_id: RESOURCE_C, filters: { 'Constituency Name': 'Dublin Central', 'Count Number': 5 } }),
  searchPath({ resource_id: RESOURCE_C, q: 'Kenny', sort: 'Count Number asc' }),
  searchPath({ resource_id: RESOURCE_C, offset: 2500, limit: 100 }),
];

// ---------------------------------------------------------------------------------------------------------------
// scenario 3: the stream

interface Field {
  id: string;
  type: string;
}

export interface ResourceData {
  id: string;
  fields: Field[];
  records: Record<string, unknown>[];
}

/** Every record of a resource, read through the API (so this works on any backend the service has). */
export async function fetchResource(port: number, id: string): Promise<ResourceData> {
  const agent = new http.Agent({ keepAlive: false });
  try {
    const res = await httpGet(port, searchPath({ resource_id: id, limit: 32000 }), agent);
    if (res.status !== 200) throw new Error(`reading resource ${id}: HTTP ${res.status}`);
    const body = JSON.parse(res.body.toString('utf8')) as {
      result: { fields: Field[]; records: Record<string, unknown>[] };
    };
    return { id, fields: body.result.fields.filter((f) => f.id !== '_id'), records: body.result.records };
  } finally {
    agent.destroy();
  }
}

interface Profile {
  data: ResourceData;
  /** Fields with few distinct values: what people filter on (constituency, party, result, count…). */
  categorical: Field[];
  textFields: Field[];
  /** Words that occur in the records' text, for `q`. */
  words: string[];
}

function profile(data: ResourceData): Profile {
  const categorical = data.fields.filter((f) => {
    const distinct = new Set(data.records.map((r) => r[f.id]));
    return distinct.size > 1 && distinct.size <= 60;
  });
  const textFields = data.fields.filter((f) => f.type === 'text');
  const words = new Set<string>();
  for (const r of data.records) {
    for (const f of textFields) {
      const v = r[f.id];
      if (typeof v !== 'string') continue;
      for (const w of v.split(/[^\p{L}']+/u)) if (w.length >= 3) words.add(w);
    }
  }
  return { data, categorical, textFields, words: [...words].sort() };
}

function existingValue(rng: Rng, data: ResourceData, field: string): unknown {
  // A value some record has (empty and null cells are skipped: a filter on them is legal but rarely asked).
  for (let tries = 0; tries < 20; tries++) {
    const v = rng.pick(data.records)[field];
    if (v !== null && v !== undefined && v !== '') return v;
  }
  return null;
}

function randomQuery(rng: Rng, p: Profile): string {
  const { data } = p;
  const params: Record<string, string | number | boolean | object> = { resource_id: data.id };

  const nFilters = rng.pick([0, 0, 1, 1, 1, 2, 2]);
  if (nFilters > 0) {
    const filters: Record<string, unknown> = {};
    const pool = rng.chance(0.85) && p.categorical.length > 0 ? p.categorical : data.fields;
    for (const f of rng.sample(pool, nFilters)) {
      if (rng.chance(0.2)) {
        const values = [
          ...new Set(Array.from({ length: rng.between(2, 3) }, () => existingValue(rng, data, f.id))),
        ].filter((v) => v !== null);
        if (values.length > 0) filters[f.id] = values;
      } else {
        const v = existingValue(rng, data, f.id);
        if (v !== null) filters[f.id] = v;
      }
    }
    if (Object.keys(filters).length > 0) params['filters'] = filters;
  }

  if (rng.chance(0.2) && p.words.length > 0) {
    const word = rng.pick(p.words);
    if (rng.chance(0.3) && p.textFields.length > 0) params['q'] = { [rng.pick(p.textFields).id]: word };
    else params['q'] = word;
  }

  if (rng.chance(0.3)) {
    params['fields'] = rng
      .sample(data.fields, rng.between(2, 6))
      .map((f) => f.id)
      .join(',');
  }

  if (rng.chance(0.6)) {
    const keys = rng.sample(data.fields, rng.chance(0.8) ? 1 : 2);
    params['sort'] = keys.map((f) => `${f.id} ${rng.chance(0.5) ? 'asc' : 'desc'}`).join(', ');
  }

  if (rng.chance(0.3)) params['offset'] = rng.between(1, Math.max(1, Math.min(500, data.records.length)));
  if (rng.chance(0.75)) params['limit'] = rng.pick([1, 5, 10, 10, 20, 25, 50, 50, 100]);
  const format = rng.next();
  if (format < 0.08) params['records_format'] = 'csv';
  else if (format < 0.12) params['records_format'] = 'lists';
  if (rng.chance(0.08)) params['include_total'] = false;
  return searchPath(params);
}

/**
 * `count` distinct search paths across the resources given (weighted by their share), seeded: the same data and
 * seed give the same stream. Every filter value exists in the data; sort keys, field subsets and `q` words too.
 */
export function generateStream(
  resources: readonly { data: ResourceData; share: number }[],
  count: number,
  seed: number,
): string[] {
  const rng = new Rng(seed);
  const profiles = resources.map((r) => ({ profile: profile(r.data), share: r.share }));
  const total = profiles.reduce((s, p) => s + p.share, 0);
  const seen = new Set<string>();
  const out: string[] = [];
  let attempts = 0;
  while (out.length < count) {
    if (++attempts > count * 50) throw new Error(`could not make ${count} distinct queries`);
    let x = rng.next() * total;
    let chosen = profiles[0];
    for (const p of profiles) {
      x -= p.share;
      if (x < 0) {
        chosen = p;
        break;
      }
    }
    if (!chosen) break;
    const path = randomQuery(rng, chosen.profile);
    if (seen.has(path)) continue;
    seen.add(path);
    out.push(path);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// scenario 4: the synthetic resource

export function syntheticPaths(
  resourceId: string,
  rows: number,
): { filteredSorted: string; deepOffset: string; dump: string; deepOffsetValue: number } {
  // 900,000 of a million; scaled down with --rows so a small resource still asks for a page near its end.
  const deepOffsetValue = rows >= 1_000_000 ? 900_000 : Math.floor(rows * 0.9);
  return {
    filteredSorted: searchPath({
      resource_id: resourceId,
      filters: { 'Party Abbreviation': 'S.F.' },
      sort: 'Votes desc',
    }),
    deepOffset: searchPath({ resource_id: resourceId, offset: deepOffsetValue }),
    dump: `/datastore/dump/${resourceId}?format=csv`,
    deepOffsetValue,
  };
}
