// Resident tables answer exactly as the store does: generated searches over the election data (filters of every
// operator on values the records hold and on values between them, full-text queries on the record and on fields,
// prefixes, phrases and negations, sorts with null placement, field lists, ranks, paging, every records format,
// totals, keyset cursors) get the same status and the same bytes from a service holding the resources in memory as
// from one that asks the store every time, on both stores; the store's deep pages start from offset marks. COUNTCENTRE_RESIDENT_RUNS sets the searches per store,
// COUNTCENTRE_RESIDENT_SEED replays a run.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { offsetMarkStats } from '../../src/actions/offset-marks.js';
import {
  RESOURCE_A,
  RESOURCE_B,
  RESOURCE_C,
  startService,
  TEST_BACKENDS,
  type TestService,
} from '../helpers/service.js';

const RUNS = Number(process.env.COUNTCENTRE_RESIDENT_RUNS ?? 400);
const SEED = Number(process.env.COUNTCENTRE_RESIDENT_SEED ?? Math.floor(Math.random() * 2 ** 31));

interface Field {
  id: string;
  type: string;
}

interface Resource {
  id: string;
  fields: Field[];
  records: Record<string, unknown>[];
  words: string[];
}

const SEARCH = '/api/3/action/datastore_search';

function searchUrl(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) query.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return `${SEARCH}?${query}`;
}

async function readResource(service: TestService, id: string): Promise<Resource> {
  const { body } = await service.getJson(searchUrl({ resource_id: id, limit: 32000 }));
  const fields = body.result.fields as Field[];
  const records = body.result.records as Record<string, unknown>[];
  const words = new Set<string>();
  for (const record of records) {
    for (const field of fields) {
      const value = record[field.id];
      if (typeof value === 'string')
        for (const word of value.split(/[^\p{L}\d']+/u)) if (word.length >= 2) words.add(word);
    }
  }
  return { id, fields, records, words: [...words].sort() };
}

/** A value some record holds in the field, or one near it (between stored values, or of another JSON type). */
function valueOf(resource: Resource, field: Field): fc.Arbitrary<unknown> {
  const held = fc.constantFrom(...resource.records.map((r) => r[field.id]));
  const near =
    field.type === 'text'
      ? fc.oneof(
          held.map((v) => (typeof v === 'string' ? `${v.slice(0, -1)}` : v)),
          fc.constantFrom('', 'M', 'Z', 'a', 'Ó', '😀'),
        )
      : fc.oneof(
          held.map((v) => (typeof v === 'number' ? v + 0.5 : v)),
          fc.integer({ min: -5, max: 30000 }),
          fc.constantFrom('12', '1.5'),
        );
  return fc.oneof(
    { weight: 4, arbitrary: held },
    { weight: 2, arbitrary: near },
    { weight: 1, arbitrary: fc.constant(null) },
  );
}

function filtersOf(resource: Resource): fc.Arbitrary<unknown> {
  const fields = resource.fields;
  const operation = fc.constantFrom(...fields).chain((field) =>
    fc.oneof(
      valueOf(resource, field).map((v) => ({ [field.id]: v })),
      fc.array(valueOf(resource, field), { minLength: 1, maxLength: 4 }).map((v) => ({ [field.id]: v })),
      fc
        .record({ op: fc.constantFrom('eq', 'in', 'gt', 'gte', 'lt', 'lte'), value: valueOf(resource, field) })
        .map(({ op, value }) => ({ [field.id]: { [op]: op === 'in' ? [value] : value } })),
      fc
        .tuple(valueOf(resource, field), valueOf(resource, field))
        .map(([low, high]) => ({ [field.id]: { gte: low, lt: high } })),
    ),
  );
  const merged = fc
    .array(operation, { minLength: 1, maxLength: 3 })
    .map((ops) => Object.assign({}, ...ops) as Record<string, unknown>);
  return fc.oneof(
    { weight: 5, arbitrary: merged },
    { weight: 1, arbitrary: fc.array(merged, { minLength: 1, maxLength: 3 }).map((members) => ({ $or: members })) },
    { weight: 1, arbitrary: fc.array(merged, { minLength: 1, maxLength: 3 }) },
  );
}

function textQuery(resource: Resource): fc.Arbitrary<string> {
  const word = fc.constantFrom(...resource.words);
  return fc.oneof(
    { weight: 4, arbitrary: word },
    { weight: 2, arbitrary: fc.array(word, { minLength: 2, maxLength: 3 }).map((w) => w.join(' ')) },
    { weight: 1, arbitrary: word.map((w) => `${w.slice(0, 3)}:*`) },
    { weight: 1, arbitrary: fc.tuple(word, word).map(([a, b]) => `${a} & !${b}`) },
    { weight: 1, arbitrary: fc.tuple(word, word).map(([a, b]) => `${a} <-> ${b}`) },
    { weight: 1, arbitrary: fc.tuple(word, word).map(([a, b]) => `${a} | ${b}:*`) },
    { weight: 1, arbitrary: fc.constantFrom('the', 'zzzqqq', '1', 'Féin', "o'brien") },
  );
}

function searchOf(resource: Resource): fc.Arbitrary<Record<string, unknown>> {
  const ids = resource.fields.map((f) => f.id);
  const sortClause = fc
    .record({
      field: fc.constantFrom(...ids),
      direction: fc.constantFrom('', ' asc', ' desc'),
      nulls: fc.constantFrom('', '', ' nulls first', ' nulls last'),
    })
    .map(({ field, direction, nulls }) => `"${field}"${direction}${nulls}`);
  return fc.record({
    resource_id: fc.constant(resource.id),
    filters: fc.option(filtersOf(resource), { nil: undefined, freq: 2 }),
    q: fc.option(
      fc.oneof(
        { weight: 3, arbitrary: textQuery(resource) },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.constantFrom(...ids), textQuery(resource)).map(([field, text]) => ({ [field]: text })),
        },
      ),
      { nil: undefined, freq: 3 },
    ),
    plain: fc.option(fc.constantFrom(false, true), { nil: undefined }),
    language: fc.option(fc.constantFrom('simple', 'english'), { nil: undefined, freq: 5 }),
    sort: fc.option(
      fc.array(sortClause, { minLength: 1, maxLength: 3 }).map((c) => c.join(', ')),
      { nil: undefined, freq: 2 },
    ),
    fields: fc.option(
      fc.subarray([...ids, 'rank'], { minLength: 1, maxLength: 6 }).map((f) => f.join(',')),
      { nil: undefined, freq: 3 },
    ),
    offset: fc.option(fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 6000 })), { nil: undefined }),
    limit: fc.option(fc.constantFrom(0, 1, 3, 10, 100, 1000), { nil: undefined }),
    records_format: fc.option(fc.constantFrom('objects', 'lists', 'csv', 'tsv'), { nil: undefined }),
    include_total: fc.option(fc.boolean(), { nil: undefined, freq: 4 }),
    include_next_page: fc.option(fc.constant(true), { nil: undefined, freq: 4 }),
    distinct: fc.option(fc.constant(true), { nil: undefined, freq: 10 }),
  });
}

for (const backend of TEST_BACKENDS)
  describe(`resident tables answer as the store does [${backend}]`, () => {
    let resident: TestService;
    let store: TestService;
    let resources: Resource[];

    before(async () => {
      resident = await startService({ responseCacheMb: 0 }, backend);
      // Marks every few records, so that most generated pages with an offset start from one (src/actions/offset-marks.ts).
      store = await startService({ responseCacheMb: 0, residentMb: 0, offsetMarkEvery: 7 }, backend);
      resources = await Promise.all([RESOURCE_A, RESOURCE_B, RESOURCE_C].map((id) => readResource(store, id)));
    });
    after(async () => {
      await resident?.close();
      await store?.close();
    });

    /** Both services' answers to a URL; they must be the same to the byte. */
    async function same(url: string): Promise<{ status: number; body: string }> {
      const [held, read] = await Promise.all([resident.request(url), store.request(url)]);
      assert.equal(held.statusCode, read.statusCode, `${url}\n${held.body.slice(0, 300)}\n${read.body.slice(0, 300)}`);
      assert.equal(held.body, read.body, url);
      return { status: held.statusCode, body: held.body };
    }

    test(`${RUNS} generated searches, and the page after each (seed ${SEED})`, async () => {
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 2 }).chain((i) => searchOf(resources[i]!)),
          async (params) => {
            const { status, body } = await same(searchUrl(params));
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
            if (status !== 200) return;
            const result = JSON.parse(body).result as Record<string, unknown>;
            // The next page by each cursor the answer gives.
            if (result.next_page)
              await same(
                searchUrl({
                  ...params,
                  filters: { $and: [params.filters ?? {}, result.next_page] },
                  offset: undefined,
                }),
              );
            if (result.count_centre_next_after)
              await same(
                searchUrl({ ...params, count_centre_after: result.count_centre_next_after, offset: undefined }),
              );
          },
        ),
        { numRuns: RUNS, seed: SEED },
      );
      // No search fails, and most are answered: the comparison is of records, not only of errors (a generated search is
      // often refused, as a field list may name `rank` without a `q`); and they were answered from memory.
      assert.ok(
        [...statuses.keys()].every((status) => status < 500),
        JSON.stringify([...statuses]),
      );
      assert.ok((statuses.get(200) ?? 0) > RUNS * 0.5, JSON.stringify([...statuses]));
      assert.equal(resident.prepared.services.resident?.count, 3);
      assert.equal(store.prepared.services.resident, undefined);
    });

    test(`${Math.ceil(RUNS / 2)} deep pages of sorted searches, started from offset marks (seed ${SEED})`, async () => {
      const pagesBefore = offsetMarkStats().offset_mark_pages;
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 2 }).chain((i) => {
            const resource = resources[i]!;
            return fc.record({
              params: searchOf(resource),
              // Broad or no filters, so that the pages reach deep into the order.
              filters: fc.option(
                fc
                  .constantFrom(...resource.fields)
                  .chain((field) => valueOf(resource, field).map((v) => ({ [field.id]: { gte: v } }))),
                { nil: undefined },
              ),
              sort: searchOf(resource).chain(() =>
                fc
                  .array(
                    fc.record({
                      field: fc.constantFrom(...resource.fields.map((f) => f.id)),
                      direction: fc.constantFrom('', ' desc'),
                      nulls: fc.constantFrom('', ' nulls first', ' nulls last'),
                    }),
                    { minLength: 1, maxLength: 3 },
                  )
                  .map((keys) => keys.map((k) => `"${k.field}"${k.direction}${k.nulls}`).join(', ')),
              ),
              offset: fc.integer({ min: 0, max: Math.ceil(resource.records.length * 1.1) }),
            });
          }),
          async ({ params, filters, sort, offset }) => {
            const url = searchUrl({ ...params, q: undefined, distinct: undefined, filters, sort, offset });
            assert.ok((await same(url)).status < 500, url);
          },
        ),
        { numRuns: Math.ceil(RUNS / 2), seed: SEED },
      );
      // Most of them started from a mark (the rest were refused, near the start, or of few records).
      assert.ok(offsetMarkStats().offset_mark_pages - pagesBefore > RUNS / 8, JSON.stringify(offsetMarkStats()));
    });

    test('the searches the benchmark and the explorer make most', async () => {
      const urls = [
        searchUrl({ resource_id: RESOURCE_A }),
        searchUrl({ resource_id: RESOURCE_A, filters: { 'Party Abbreviation': 'S.F.' }, sort: 'Votes desc' }),
        searchUrl({ resource_id: RESOURCE_A, q: 'Murphy' }),
        searchUrl({ resource_id: RESOURCE_A, q: { Surname: "O'Brien" } }),
        searchUrl({ resource_id: RESOURCE_A, records_format: 'csv' }),
        searchUrl({ resource_id: RESOURCE_A, fields: 'Party Id', distinct: true }),
        searchUrl({ resource_id: RESOURCE_A, sort: 'Result desc nulls first, Surname', offset: 7, limit: 13 }),
        searchUrl({
          resource_id: RESOURCE_B,
          sort: 'Total Electorate desc',
          fields: 'Constituency Name,Total Electorate,Quota',
        }),
        searchUrl({
          resource_id: RESOURCE_C,
          filters: { 'Constituency Name': 'Wicklow', 'Count Number': 1 },
          sort: 'Votes desc',
        }),
        searchUrl({ resource_id: RESOURCE_C, q: 'Kenny', sort: 'Count Number asc' }),
        searchUrl({ resource_id: RESOURCE_C, q: 'dub:*', plain: false, fields: '_id,rank' }),
        searchUrl({ resource_id: RESOURCE_C, offset: 2500, limit: 100, sort: '_id desc' }),
        searchUrl({
          resource_id: RESOURCE_C,
          filters: { Votes: { gte: 1000, lt: 1200 } },
          sort: 'Votes, _id desc',
          include_next_page: true,
        }),
        searchUrl({ resource_id: RESOURCE_C, filters: { _id: { gt: 5000 } }, limit: 32000 }),
      ];
      for (const url of urls) assert.equal((await same(url)).status, 200, url);
    });
  });
