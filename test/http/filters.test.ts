// CKAN 2.12's filters over HTTP on both stores: ranges, operators on one field, mixed lists, $and / $or, lists of
// dictionaries, in datastore_search (GET and POST, every records format) and in dumps. Each answer is checked against
// records computed straight from the source CSV, filtered by a predicate written here for each case.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  RESOURCE_A,
  RESOURCE_B,
  RESOURCE_C,
  startService,
  type TestService,
  TEST_BACKENDS,
} from '../helpers/service.js';
import { sourceRecords, type SourceRecord } from '../helpers/source-records.js';

const SEARCH = '/api/3/action/datastore_search';

/** A number for comparing, NaN for an empty cell, so that no comparison with it holds (as SQL's NULL). */
const n = (value: unknown): number => (typeof value === 'number' ? value : NaN);
const s = (value: unknown): string => value as string;

interface Case {
  what: string;
  resource: string;
  filters: unknown;
  keep: (r: SourceRecord) => boolean;
  sort?: string;
  /** How the sort orders records (ties by _id, which the service adds). */
  order?: (a: SourceRecord, b: SourceRecord) => number;
}

const CASES: Case[] = [
  {
    what: 'a range',
    resource: RESOURCE_A,
    filters: { Votes: { gte: 5000, lt: 10000 } },
    keep: (r) => n(r.Votes) >= 5000 && n(r.Votes) < 10000,
  },
  { what: 'gt alone', resource: RESOURCE_A, filters: { Votes: { gt: 500 } }, keep: (r) => n(r.Votes) > 500 },
  { what: 'a bound as text', resource: RESOURCE_A, filters: { Votes: { lte: '300' } }, keep: (r) => n(r.Votes) <= 300 },
  {
    what: 'eq and in spelled as operators',
    resource: RESOURCE_A,
    filters: { 'Party Abbreviation': { in: ['S.D.', 'LAB.'] }, Result: { eq: 'Elected' } },
    keep: (r) => ['S.D.', 'LAB.'].includes(s(r['Party Abbreviation'])) && r.Result === 'Elected',
  },
  {
    what: 'a list mixing values and operators',
    resource: RESOURCE_A,
    filters: { Votes: [43, { gt: 12000 }, { lte: 50 }] },
    keep: (r) => n(r.Votes) === 43 || n(r.Votes) > 12000 || n(r.Votes) <= 50,
  },
  {
    what: 'a text range, by code point',
    resource: RESOURCE_A,
    filters: { Surname: { gte: 'Mc', lt: 'Md' } },
    keep: (r) => s(r.Surname) >= 'Mc' && s(r.Surname) < 'Md',
  },
  {
    what: 'upper case sorts before lower case',
    resource: RESOURCE_A,
    filters: { Surname: { gt: 'Z' } },
    keep: (r) => s(r.Surname) > 'Z',
  },
  {
    what: 'accented names beyond ASCII',
    resource: RESOURCE_A,
    filters: { 'Constituency Ainm': { gte: 'Ciarra\u00ed' } },
    keep: (r) => s(r['Constituency Ainm']) >= 'Ciarra\u00ed',
  },
  {
    what: 'a number against a text field compares its text',
    resource: RESOURCE_A,
    filters: { Surname: { gt: 9, lt: 'B' } },
    keep: (r) => s(r.Surname) > '9' && s(r.Surname) < 'B',
  },
  {
    what: 'text with a NUL',
    resource: RESOURCE_A,
    filters: { Surname: { lt: 'B\u0000x' } },
    keep: (r) => s(r.Surname) < 'B\u0000x',
  },
  {
    what: '$or of AND-ed fields and a nested $and',
    resource: RESOURCE_A,
    filters: {
      $or: [
        { 'Party Abbreviation': 'S.F.', Votes: { gte: 10000 } },
        { $and: [{ Result: 'Elected' }, { 'Count Number': { lte: 3 } }] },
      ],
    },
    keep: (r) =>
      (r['Party Abbreviation'] === 'S.F.' && n(r.Votes) >= 10000) ||
      (r.Result === 'Elected' && n(r['Count Number']) <= 3),
  },
  {
    what: 'fields beside $or',
    resource: RESOURCE_A,
    filters: { 'Gender Id': 'F', $or: [{ Constituency: 'Kerry' }, { _id: { gt: 500 } }] },
    keep: (r) => r['Gender Id'] === 'F' && (r.Constituency === 'Kerry' || n(r._id) > 500),
  },
  {
    what: 'a list of dictionaries',
    resource: RESOURCE_A,
    filters: [{ 'Gender Id': 'F', Votes: { gt: 9000 } }, { Constituency: { gte: 'Dublin', lt: 'Dublin Z' } }],
    keep: (r) =>
      (r['Gender Id'] === 'F' && n(r.Votes) > 9000) ||
      (s(r.Constituency) >= 'Dublin' && s(r.Constituency) < 'Dublin Z'),
  },
  {
    what: 'nested 9 deep',
    resource: RESOURCE_A,
    filters: Array.from({ length: 8 }, () => 0).reduce<unknown>((inner) => ({ $and: [inner, { Votes: { gte: 1 } }] }), {
      $or: [{ Result: 'Excluded' }],
    }),
    keep: (r) => r.Result === 'Excluded' && n(r.Votes) >= 1,
  },
  {
    what: '_id between',
    resource: RESOURCE_A,
    filters: { _id: { gt: 100, lte: 200 } },
    keep: (r) => n(r._id) > 100 && n(r._id) <= 200,
  },
  {
    what: '_id between fractions',
    resource: RESOURCE_A,
    filters: { _id: { gt: 2.5, lt: 5.5 } },
    keep: (r) => n(r._id) > 2.5 && n(r._id) < 5.5,
  },
  { what: '_id beyond any record number', resource: RESOURCE_A, filters: { _id: { gt: 1e20 } }, keep: () => false },
  { what: '_id below 1e20: every record', resource: RESOURCE_A, filters: { _id: { lt: 1e20 } }, keep: () => true },
  {
    what: '_id at least -1e20 with another field',
    resource: RESOURCE_A,
    filters: { _id: { gte: -1e20 }, Result: 'Elected' },
    keep: (r) => r.Result === 'Elected',
  },
  {
    what: 'a range and a sort',
    resource: RESOURCE_A,
    filters: { Votes: { gte: 8000 } },
    sort: 'Votes desc',
    keep: (r) => n(r.Votes) >= 8000,
    order: (a, b) => n(b.Votes) - n(a.Votes),
  },
  {
    what: 'a text range sorted by the same field',
    resource: RESOURCE_A,
    filters: { Surname: { gte: 'O', lt: 'P' } },
    sort: 'Surname',
    keep: (r) => s(r.Surname) >= 'O' && s(r.Surname) < 'P',
    order: (a, b) => (s(a.Surname) < s(b.Surname) ? -1 : s(a.Surname) > s(b.Surname) ? 1 : 0),
  },
  {
    what: 'timestamps from a date',
    resource: RESOURCE_B,
    filters: { 'Date Of Election': { gte: '2020-02-08' } },
    keep: () => true,
  },
  {
    what: 'timestamps beyond the day',
    resource: RESOURCE_B,
    filters: { 'Date Of Election': { gt: '2020-02-08T00:00:00' } },
    keep: () => false,
  },
  {
    what: 'timestamps before a second later',
    resource: RESOURCE_B,
    filters: { 'Date Of Election': { lt: '2020-02-08T00:00:01' } },
    keep: () => true,
  },
  {
    what: 'a range with in',
    resource: RESOURCE_B,
    filters: { Quota: { gte: 10000 }, 'Number of Seats': { in: [4, 5] } },
    keep: (r) => n(r.Quota) >= 10000 && [4, 5].includes(n(r['Number of Seats'])),
  },
  {
    what: 'two ranges',
    resource: RESOURCE_C,
    filters: { 'Count Number': { gte: 10 }, Transfers: { gt: 0 } },
    keep: (r) => n(r['Count Number']) >= 10 && n(r.Transfers) > 0,
  },
  {
    what: '$or of ranges, empty cells never in range',
    resource: RESOURCE_C,
    filters: { $or: [{ 'Non-Transferable': { gt: 1000 } }, { 'Total Votes': { lt: 100 } }] },
    keep: (r) => n(r['Non-Transferable']) > 1000 || n(r['Total Votes']) < 100,
  },
  {
    what: 'null among operators: empty cells',
    resource: RESOURCE_C,
    filters: { 'Total Votes': [null, { gt: 20000 }] },
    keep: (r) => r['Total Votes'] === null || n(r['Total Votes']) > 20000,
  },
  {
    what: 'a quote in a text range',
    resource: RESOURCE_C,
    filters: { 'Candidate surname': { gte: "O'", lt: "O'D" } },
    keep: (r) => s(r['Candidate surname']) >= "O'" && s(r['Candidate surname']) < "O'D",
  },
];

function expected(c: Case): SourceRecord[] {
  const records = sourceRecords(c.resource).filter(c.keep);
  return c.order ? [...records].sort((a, b) => c.order!(a, b) || n(a._id) - n(b._id)) : records;
}

for (const backend of TEST_BACKENDS)
  describe(`CKAN 2.12 filters over HTTP [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    const search = async (params: Record<string, unknown>) => {
      const query = new URLSearchParams(
        Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      );
      const { status, body, raw } = await service.getJson(`${SEARCH}?${query}`);
      assert.equal(status, 200, raw.body.slice(0, 400));
      return body.result;
    };

    test('the cases are not trivial: each keeps some records and leaves out others, or says why not', () => {
      const trivial = CASES.filter((c) => {
        const k = expected(c).length;
        return k === 0 || k === sourceRecords(c.resource).length;
      }).map((c) => c.what);
      assert.deepEqual(trivial, [
        '_id beyond any record number',
        '_id below 1e20: every record',
        'timestamps from a date',
        'timestamps beyond the day',
        'timestamps before a second later',
      ]);
    });

    for (const c of CASES) {
      test(`${c.what}: ${JSON.stringify(c.filters).slice(0, 120)}`, async () => {
        const want = expected(c);
        const result = await search({
          resource_id: c.resource,
          filters: c.filters,
          limit: 32000,
          ...(c.sort ? { sort: c.sort } : {}),
        });
        assert.deepEqual(result.records, want);
        assert.equal(result.total, want.length);
        assert.deepEqual(result.filters, c.filters, 'echoed as given');
      });
    }

    test('POSTed JSON and every records format give the same records', async () => {
      const c = CASES.find((x) => x.what === 'a list of dictionaries')!;
      const want = expected(c);
      const response = await service.request({
        method: 'POST',
        url: SEARCH,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ resource_id: c.resource, filters: c.filters, limit: 1000 }),
      });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(JSON.parse(response.body).result.records, want);
      const lists = await search({ resource_id: c.resource, filters: c.filters, limit: 1000, records_format: 'lists' });
      assert.deepEqual(
        lists.records,
        want.map((r) => Object.values(r)),
      );
      const csv = await search({ resource_id: c.resource, filters: c.filters, limit: 1000, records_format: 'csv' });
      assert.deepEqual(
        csv.records
          .split('\n')
          .filter(Boolean)
          .map((line: string) => Number(line.split(',')[0])),
        want.map((r) => r._id),
      );
    });

    test('pages of a filtered result: total counts them all, pages hold the right slice', async () => {
      const c = CASES.find((x) => x.what === 'a range')!;
      const want = expected(c);
      const page = await search({ resource_id: c.resource, filters: c.filters, limit: 10, offset: 20 });
      assert.deepEqual(page.records, want.slice(20, 30));
      assert.equal(page.total, want.length);
    });

    test('dumps take the same filters', async () => {
      for (const c of CASES.filter((x) =>
        ['a range and a sort', '$or of ranges, empty cells never in range', 'timestamps from a date'].includes(x.what),
      )) {
        const want = expected(c);
        const query = new URLSearchParams({
          format: 'json',
          filters: JSON.stringify(c.filters),
          ...(c.sort ? { sort: c.sort } : {}),
        });
        const response = await service.request(`/datastore/dump/${c.resource}?${query}`);
        assert.equal(response.statusCode, 200, response.body.slice(0, 300));
        assert.deepEqual(
          JSON.parse(response.body).records,
          want.map((r) => Object.values(r)),
          c.what,
        );
        const csv = await service.request(
          `/datastore/dump/${c.resource}?${new URLSearchParams({ filters: JSON.stringify(c.filters), ...(c.sort ? { sort: c.sort } : {}) })}`,
        );
        assert.equal(csv.body.split('\n').length - 2, want.length, `${c.what}: a header, then one line per record`);
      }
    });

    test('a dump with an _id range and an offset walks from there', async () => {
      const want = sourceRecords(RESOURCE_C)
        .filter((r) => n(r._id) <= 4000)
        .slice(7, 7 + 2500);
      const query = new URLSearchParams({
        format: 'json',
        filters: JSON.stringify({ _id: { lte: 4000 } }),
        offset: '7',
        limit: '2500',
      });
      const response = await service.request(`/datastore/dump/${RESOURCE_C}?${query}`);
      assert.deepEqual(
        JSON.parse(response.body).records,
        want.map((r) => Object.values(r)),
      );
      const descending = await service.request(
        `/datastore/dump/${RESOURCE_C}?${new URLSearchParams({ format: 'json', sort: '_id desc', filters: JSON.stringify({ Transfers: { gt: 100 } }) })}`,
      );
      assert.deepEqual(
        JSON.parse(descending.body).records,
        sourceRecords(RESOURCE_C)
          .filter((r) => n(r.Transfers) > 100)
          .reverse()
          .map((r) => Object.values(r)),
      );
    });
  });
