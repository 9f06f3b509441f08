// Keyset paging over HTTP on both stores. CKAN 2.12's `include_next_page`: merging each page's `next_page` into
// `filters` walks every record of A, B and C once, in order, ascending and descending, with or without a filter, and
// the walk ends at the first page without records. Count Centre's `count_centre_after` does the same in any order of
// fields, ties and empty cells included. Expected records come straight from the source CSV.

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

type Params = Record<string, unknown>;

function queryOf(params: Params): string {
  return new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  ).toString();
}

/** PostgreSQL's order for one sort clause: text by code point, empty cells last ascending and first descending. */
function comparator(
  clauses: { field: string; descending: boolean; nullsFirst?: boolean }[],
  idDescending = false,
): (a: SourceRecord, b: SourceRecord) => number {
  return (a, b) => {
    for (const { field, descending, nullsFirst = descending } of clauses) {
      const [x, y] = [a[field], b[field]];
      if (x === y) continue;
      if (x === null) return nullsFirst ? -1 : 1;
      if (y === null) return nullsFirst ? 1 : -1;
      const order = x! < y! ? -1 : 1;
      return descending ? -order : order;
    }
    return ((a._id as number) - (b._id as number)) * (idDescending ? -1 : 1);
  };
}

for (const backend of TEST_BACKENDS)
  describe(`keyset paging [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    const search = async (params: Params) => {
      const { status, body, raw } = await service.getJson(`${SEARCH}?${queryOf(params)}`);
      assert.equal(status, 200, raw.body.slice(0, 400));
      return body.result;
    };

    /** A CKAN 2.12 client: merges next_page into its filters until a page comes without one. */
    async function walkNextPage(params: Params): Promise<{ records: SourceRecord[]; pages: number }> {
      const filters = (params.filters ?? {}) as Record<string, unknown>;
      let next: Record<string, unknown> | undefined;
      const records: SourceRecord[] = [];
      let pages = 0;
      for (;;) {
        const result = await search({ ...params, filters: { ...filters, ...next }, include_next_page: true });
        pages += 1;
        assert.ok(result._links?.start && result._links?.next, '_links stay');
        assert.equal(result.include_next_page, true, 'echoed');
        const remaining = (await search({ ...params, filters: { ...filters, ...next }, limit: 0 })).total;
        assert.equal(result.total, remaining, 'total counts the records from here on, as in CKAN');
        if (result.records.length === 0) {
          assert.equal(result.next_page, undefined, 'a page without records has no next_page');
          break;
        }
        records.push(...result.records);
        const lastId = result.records.at(-1)._id;
        const descending = /desc/.test(String(params.sort ?? ''));
        assert.deepEqual(result.next_page, { _id: { [descending ? 'lt' : 'gt']: lastId } });
        assert.deepEqual(result.count_centre_next_after, [lastId]);
        next = result.next_page;
        assert.ok(pages < 200, 'the walk ends');
      }
      return { records, pages };
    }

    for (const [name, resource, limit] of [
      ['A', RESOURCE_A, 100],
      ['B', RESOURCE_B, 7],
      ['C', RESOURCE_C, 1000],
    ] as const) {
      test(`${name}: next_page walks every record once, in _id order, then stops`, async () => {
        const all = sourceRecords(resource);
        const { records, pages } = await walkNextPage({ resource_id: resource, limit });
        assert.deepEqual(records, all);
        assert.equal(pages, Math.ceil(all.length / limit) + 1, 'the full pages, then one without records');
      });

      test(`${name}: and descending, with sort "_id desc"`, async () => {
        const { records } = await walkNextPage({ resource_id: resource, limit, sort: '_id desc' });
        assert.deepEqual(records, [...sourceRecords(resource)].reverse());
      });
    }

    test('a filtered walk: the filter and next_page together', async () => {
      const { records } = await walkNextPage({
        resource_id: RESOURCE_C,
        limit: 250,
        filters: { Transfers: { gt: 0 }, 'Count Number': { lte: 5 } },
      });
      assert.deepEqual(
        records,
        sourceRecords(RESOURCE_C).filter((r) => (r.Transfers as number) > 0 && (r['Count Number'] as number) <= 5),
      );
    });

    test('next_page in every records format', async () => {
      for (const records_format of ['objects', 'lists', 'csv', 'tsv']) {
        const result = await search({
          resource_id: RESOURCE_A,
          limit: 3,
          offset: 10,
          include_next_page: true,
          records_format,
        });
        assert.deepEqual(result.next_page, { _id: { gt: 13 } }, records_format);
      }
    });

    test('when there is no next_page: not asked for, no records, another order, a rank order, distinct', async () => {
      const none = async (params: Params, why: string) => {
        const result = await search({ resource_id: RESOURCE_A, ...params });
        assert.equal(result.next_page, undefined, why);
        return result;
      };
      const plain = await none({}, 'not asked for');
      assert.equal(plain.include_next_page, undefined, 'echoed only when given, as 2.10/2.11 clients see it');
      assert.equal(plain.count_centre_next_after, undefined);
      assert.equal((await none({ include_next_page: true, limit: 0 }, 'limit 0')).count_centre_next_after, undefined);
      assert.equal(
        (await none({ include_next_page: true, offset: 531 }, 'past the end')).count_centre_next_after,
        undefined,
      );
      assert.equal((await none({ include_next_page: false }, 'false')).include_next_page, false);
      const sorted = await none({ include_next_page: true, sort: 'Votes desc', limit: 2 }, 'sorted by a field');
      assert.deepEqual(
        sorted.count_centre_next_after,
        [sorted.records[1].Votes, sorted.records[1]._id],
        'the extension covers it',
      );
      const twoKeys = await none(
        { include_next_page: true, sort: '_id, Votes', limit: 2 },
        '_id then another key: CKAN wants _id alone',
      );
      assert.deepEqual(twoKeys.count_centre_next_after, [2]);
      assert.equal(
        (await none({ include_next_page: true, q: 'Dublin' }, 'rank order')).count_centre_next_after,
        undefined,
      );
      assert.equal(
        (await none({ include_next_page: true, distinct: true, fields: 'Party Abbreviation' }, 'distinct'))
          .count_centre_next_after,
        undefined,
      );
      const byRankThenId = await search({
        resource_id: RESOURCE_A,
        include_next_page: true,
        q: 'Dublin',
        sort: '_id',
        limit: 5,
      });
      assert.deepEqual(
        byRankThenId.next_page,
        { _id: { gt: byRankThenId.records[4]._id } },
        'q sorted by _id has one, as in CKAN',
      );
    });

    /** A client of the extension: sends each page's count_centre_next_after back as count_centre_after. */
    async function walkAfter(params: Params, limit: number): Promise<SourceRecord[]> {
      const records: SourceRecord[] = [];
      let cursor: unknown[] | undefined;
      for (let pages = 0; ; pages++) {
        assert.ok(pages < 500, 'the walk ends');
        const result = await search({
          ...params,
          limit,
          include_next_page: true,
          ...(cursor ? { count_centre_after: cursor } : {}),
        });
        if (cursor) assert.deepEqual(result.count_centre_after, cursor, 'echoed');
        if (result.records.length === 0) {
          assert.equal(result.count_centre_next_after, undefined);
          return records;
        }
        records.push(...result.records);
        cursor = result.count_centre_next_after;
        assert.ok(Array.isArray(cursor));
      }
    }

    const ORDERS: [string, string, string, { field: string; descending: boolean; nullsFirst?: boolean }[], number][] = [
      ['A', RESOURCE_A, 'Votes desc', [{ field: 'Votes', descending: true }], 37],
      [
        'A',
        RESOURCE_A,
        'Party Abbreviation, Votes desc',
        [
          { field: 'Party Abbreviation', descending: false },
          { field: 'Votes', descending: true },
        ],
        50,
      ],
      [
        'A',
        RESOURCE_A,
        'Result desc, Surname',
        [
          { field: 'Result', descending: true },
          { field: 'Surname', descending: false },
        ],
        64,
      ],
      ['B', RESOURCE_B, 'Date Of Election', [{ field: 'Date Of Election', descending: false }], 5],
      [
        'B',
        RESOURCE_B,
        'Number of Seats desc, Quota',
        [
          { field: 'Number of Seats', descending: true },
          { field: 'Quota', descending: false },
        ],
        4,
      ],
      [
        'C',
        RESOURCE_C,
        'Constituency Name, Count Number desc',
        [
          { field: 'Constituency Name', descending: false },
          { field: 'Count Number', descending: true },
        ],
        700,
      ],
      ['C', RESOURCE_C, 'Total Votes', [{ field: 'Total Votes', descending: false }], 900],
      ['C', RESOURCE_C, 'Total Votes desc', [{ field: 'Total Votes', descending: true }], 900],
      [
        'C',
        RESOURCE_C,
        'Total Votes nulls first, Transfers desc nulls last',
        [
          { field: 'Total Votes', descending: false, nullsFirst: true },
          { field: 'Transfers', descending: true, nullsFirst: false },
        ],
        800,
      ],
      ['C', RESOURCE_C, 'Votes, _id desc, Transfers', [{ field: 'Votes', descending: false }], 1200],
    ];

    for (const [name, resource, sort, clauses, limit] of ORDERS) {
      test(`count_centre_after: ${name} sorted by "${sort}", every record once, in order`, async () => {
        const records = await walkAfter({ resource_id: resource, sort }, limit);
        assert.deepEqual(records, [...sourceRecords(resource)].sort(comparator(clauses, sort.includes('_id desc'))));
      });
    }

    test('count_centre_after with a filter and a text search', async () => {
      const records = await walkAfter(
        { resource_id: RESOURCE_C, sort: 'Votes desc', filters: { 'Count Number': 1 }, q: 'Dublin' },
        40,
      );
      const dublin = (
        await search({
          resource_id: RESOURCE_C,
          filters: { 'Count Number': 1 },
          q: 'Dublin',
          limit: 32000,
          fields: '_id',
        })
      ).records.map((r: { _id: number }) => r._id);
      const wanted = new Set(dublin);
      assert.ok(wanted.size > 40);
      assert.deepEqual(
        records.map((r) => r._id),
        sourceRecords(RESOURCE_C)
          .filter((r) => wanted.has(r._id))
          .sort(comparator([{ field: 'Votes', descending: true }]))
          .map((r) => r._id),
      );
    });

    test('count_centre_after: what is refused, and why', async () => {
      const failing = async (params: Params) => {
        const { status, body } = await service.getJson(`${SEARCH}?${queryOf({ resource_id: RESOURCE_A, ...params })}`);
        assert.equal(status, 409);
        return body.error;
      };
      assert.deepEqual(await failing({ count_centre_after: '5' }), {
        count_centre_after: ['Not a list'],
        __type: 'Validation Error',
      });
      assert.deepEqual(await failing({ count_centre_after: 'x' }), {
        count_centre_after: ['Cannot parse JSON'],
        __type: 'Validation Error',
      });
      assert.deepEqual(await failing({ count_centre_after: [1, 2] }), {
        count_centre_after: ["Must be a list of 1 value, the last record's ['_id']"],
        __type: 'Validation Error',
      });
      assert.deepEqual(await failing({ sort: 'Votes desc', count_centre_after: [5] }), {
        count_centre_after: ["Must be a list of 2 values, the last record's ['Votes', '_id']"],
        __type: 'Validation Error',
      });
      assert.deepEqual(await failing({ sort: 'Votes desc', count_centre_after: ['many', 5] }), {
        count_centre_after: ['invalid value \'many\' for "Votes"'],
        __type: 'Validation Error',
      });
      assert.deepEqual(await failing({ count_centre_after: [1e20] }), {
        count_centre_after: ['invalid value 100000000000000000000 for "_id"'],
        __type: 'Validation Error',
      });
      assert.deepEqual(await failing({ count_centre_after: [null] }), {
        count_centre_after: ['invalid value None for "_id"'],
        __type: 'Validation Error',
      });
      assert.deepEqual(await failing({ sort: 'Surname', count_centre_after: [{ a: 1 }, 5] }), {
        count_centre_after: ['invalid value {\'a\': 1} for "Surname"'],
        __type: 'Validation Error',
      });
      assert.deepEqual(await failing({ q: 'Dublin', count_centre_after: [5] }), {
        count_centre_after: [
          'Keyset paging needs records sorted by fields: not by rank (a full-text query without sort) and not distinct',
        ],
        __type: 'Validation Error',
      });
      // Past the last record: an empty page, not an error.
      const end = await search({ resource_id: RESOURCE_A, count_centre_after: [531], include_next_page: true });
      assert.deepEqual([end.records, end.next_page, end.total], [[], undefined, 0]);
    });
  });
