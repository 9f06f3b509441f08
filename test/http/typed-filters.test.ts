// Ranges and keyset paging on every field type, with empty cells and many ties, on both stores: a small resource
// written by the test (text, numeric, int4, int8 up to 2^53, float8, bool, date, timestamps with fractions of a
// second), so that what the election data lacks (nulls, booleans, dates) is covered too. Expected answers are
// computed here from the rows the test wrote, with PostgreSQL's ordering rules.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startService, type TestService, TEST_BACKENDS, TEST_TMP } from '../helpers/service.js';

const RESOURCE = '33333333-0000-4000-8000-000000000001';
const SEARCH = '/api/3/action/datastore_search';
const ROWS = 64;

type Value = string | number | boolean | null;
type Row = Record<string, Value>;

const FIELDS = [
  { id: 'Label', type: 'text' },
  { id: 'N', type: 'numeric' },
  { id: 'I', type: 'int4' },
  { id: 'Big', type: 'int8' },
  { id: 'F', type: 'float8' },
  { id: 'Flag', type: 'bool' },
  { id: 'Day', type: 'date' },
  { id: 'At', type: 'timestamp' },
] as const;

/** A small deterministic generator (a linear congruential one): the same rows on every run. */
function generator(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
}

/** Each row's values as the API gives them, and its `At` with the fraction the store keeps (for ordering). */
function makeRows(): { rows: Row[]; exactAt: (string | null)[]; csv: string } {
  const pick = generator(2012);
  const maybe = <T>(value: T): T | null => (pick(5) === 0 ? null : value);
  const labels = ['', 'alpha', 'Alpha', 'beta', 'b\u00e9ta', 'zeta', "o'neill", 'a,b'];
  const bigs = [9007199254740991, -9007199254740991, 2 ** 40, 0, 17];
  const floats = [0.1, -2.5, 1e-5, 12345.678, 0];
  const rows: Row[] = [];
  const exactAt: (string | null)[] = [];
  const lines = [FIELDS.map((f) => f.id).join(',')];
  for (let i = 1; i <= ROWS; i++) {
    const day = maybe(`2020-0${1 + pick(3)}-1${pick(3)}`);
    const fraction = i === 1 ? '.999999' : ['', '.5', '.25', '.999999'][pick(4)]!;
    const stamp = `2020-02-0${1 + pick(3)}T12:00:0${pick(2)}${fraction}`;
    const at = i === 1 ? stamp : maybe(stamp);
    const row: Row = {
      _id: i,
      Label: labels[pick(labels.length)]!,
      N: maybe(pick(6) * 2.5),
      I: maybe(pick(7) - 3),
      Big: maybe(bigs[pick(bigs.length)]!),
      F: maybe(floats[pick(floats.length)]!),
      Flag: maybe(pick(2) === 1),
      Day: day,
      At: at === null ? null : at.slice(0, 19),
    };
    rows.push(row);
    exactAt.push(at);
    const cell = (v: Value, index: number) =>
      index === 7
        ? (at ?? '')
        : v === null
          ? ''
          : typeof v === 'string' && /[,"]/.test(v)
            ? `"${v.replace(/"/g, '""')}"`
            : String(v);
    lines.push(FIELDS.map((f, index) => cell(row[f.id]!, index)).join(','));
  }
  return { rows, exactAt, csv: lines.join('\n') + '\n' };
}

const { rows, exactAt, csv } = makeRows();
/** The value a field is ordered and compared by: `At` with its full fraction. */
const sortValue = (row: Row, field: string): Value =>
  field === 'At' ? exactAt[(row._id as number) - 1]! : row[field]!;

interface Clause {
  field: string;
  descending: boolean;
  nullsFirst: boolean;
}

function byClauses(clauses: Clause[], idDescending = false): (a: Row, b: Row) => number {
  return (a, b) => {
    for (const { field, descending, nullsFirst } of clauses) {
      const [x, y] = [sortValue(a, field), sortValue(b, field)];
      if (x === y) continue;
      if (x === null) return nullsFirst ? -1 : 1;
      if (y === null) return nullsFirst ? 1 : -1;
      const order = x < y ? -1 : 1;
      return descending ? -order : order;
    }
    return ((a._id as number) - (b._id as number)) * (idDescending ? -1 : 1);
  };
}

// Held in memory (a resident table, the default for a resource this small); read by the store's own SQL from every
// field's index (the embedded store keys dates and timestamps on integers: see temporalKeySql); and, with every
// field's sort indexes built too, in both directions, by the seeks of afterSeeks (src/query/keyset.ts), which a
// store makes only where an index holds the page's whole order.
const VARIANTS = [
  { name: '', dir: '', indexed: false, sortIndexes: false },
  { name: ', indexed, not resident', dir: '-indexed', indexed: true, sortIndexes: false },
  { name: ', sort indexes, not resident', dir: '-sort-indexed', indexed: true, sortIndexes: true },
];
for (const backend of TEST_BACKENDS)
  for (const variant of VARIANTS)
    describe(`every field type: ranges and keyset paging [${backend}${variant.name}]`, () => {
      let service: TestService;
      const dir = path.join(TEST_TMP, `typed-filters-${backend}${variant.dir}`);
      // Any search of a resource larger than one record asks for the indexes it would use.
      const residence = variant.indexed
        ? { residentMb: 0, ...(variant.sortIndexes ? { indexOnDemandRows: 1 } : {}) }
        : {};
      before(async () => {
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, 'typed.csv'), csv);
        writeFileSync(
          path.join(dir, 'catalog.json'),
          JSON.stringify({
            datasets: [
              {
                name: 'typed',
                resources: [
                  {
                    id: RESOURCE,
                    name: 'Typed values',
                    source: { path: 'typed.csv' },
                    fields: variant.indexed ? FIELDS.map((f) => ({ ...f, index: true })) : FIELDS,
                  },
                ],
              },
            ],
          }),
        );
        service = await startService(
          {
            catalog: path.join(dir, 'catalog.json'),
            sources: dir,
            databasePath: path.join(dir, 'typed.sqlite'),
            ...residence,
          },
          backend,
        );
        if (!variant.sortIndexes) return;
        for (const field of FIELDS)
          for (const sort of [field.id, `${field.id} desc`]) {
            const { status } = await service.getJson(
              `${SEARCH}?resource_id=${RESOURCE}&sort=${encodeURIComponent(sort)}`,
            );
            assert.equal(status, 200);
          }
        await service.prepared.indexes.idle();
        await service.prepared.refresh();
        // The store builds what its planner needs: PostgreSQL both directions; SQLite, whose index on a field already
        // ends each entry with its _id, the descending one alone.
        const fields = service.prepared.services.catalog.get(RESOURCE)!.fields.filter((f) => f.id !== '_id');
        for (const field of fields) {
          assert.equal(field.sortIndexed, backend === 'postgres' ? true : undefined, `${field.id} ascending`);
          assert.equal(field.sortIndexedDescending, true, `${field.id} descending`);
        }
      });
      after(() => service?.close());

      const search = async (params: Record<string, unknown>) => {
        const query = new URLSearchParams(
          Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
        );
        const { status, body, raw } = await service.getJson(`${SEARCH}?${query}`);
        assert.equal(status, 200, raw.body.slice(0, 400));
        return body.result;
      };

      test('the resource holds what was written', async () => {
        assert.deepEqual((await search({ resource_id: RESOURCE, limit: 1000 })).records, rows);
      });

      const RANGES: [unknown, (r: Row) => boolean][] = [
        [{ N: { gt: 2.5, lte: 10 } }, (r) => r.N !== null && (r.N as number) > 2.5 && (r.N as number) <= 10],
        [{ I: { gte: -1, lt: 2 } }, (r) => r.I !== null && (r.I as number) >= -1 && (r.I as number) < 2],
        [{ I: { lt: 1e20 } }, (r) => r.I !== null],
        [{ I: { gt: -0.5 } }, (r) => r.I !== null && (r.I as number) > -0.5],
        [{ Big: { gt: 2 ** 40 } }, (r) => r.Big !== null && (r.Big as number) > 2 ** 40],
        [{ Big: { lte: -9007199254740991 } }, (r) => r.Big === -9007199254740991],
        [{ Big: { gt: 1e300 } }, () => false],
        [{ F: { gt: 0, lt: 1 } }, (r) => r.F !== null && (r.F as number) > 0 && (r.F as number) < 1],
        [{ F: { lte: -2.5 } }, (r) => r.F !== null && (r.F as number) <= -2.5],
        [{ Flag: { gt: false } }, (r) => r.Flag === true],
        [{ Flag: { lte: 'false' } }, (r) => r.Flag === false],
        [
          { Day: { gte: '2020-02-01', lt: '2020-03-11' } },
          (r) => r.Day !== null && (r.Day as string) >= '2020-02-01' && (r.Day as string) < '2020-03-11',
        ],
        [
          { At: { gt: '2020-02-02T12:00:00.5' } },
          (r) => exactAt[(r._id as number) - 1] !== null && exactAt[(r._id as number) - 1]! > '2020-02-02T12:00:00.5',
        ],
        [
          { At: { lte: '2020-02-01T12:00:01' } },
          (r) => exactAt[(r._id as number) - 1] !== null && exactAt[(r._id as number) - 1]! <= '2020-02-01T12:00:01',
        ],
        [{ Label: { gt: 'Alpha', lt: 'beta' } }, (r) => (r.Label as string) > 'Alpha' && (r.Label as string) < 'beta'],
        [{ Label: { gte: '' } }, () => true],
        [{ Label: [{ lt: 'a' }, 'zeta'] }, (r) => (r.Label as string) < 'a' || r.Label === 'zeta'],
        [
          { $or: [{ N: null }, { Flag: true, I: { gte: 0 } }] },
          (r) => r.N === null || (r.Flag === true && r.I !== null && (r.I as number) >= 0),
        ],
      ];

      for (const [filters, keep] of RANGES) {
        test(`range ${JSON.stringify(filters)}`, async () => {
          const want = rows.filter(keep);
          const result = await search({ resource_id: RESOURCE, filters, limit: 1000 });
          assert.deepEqual(result.records, want);
          assert.equal(result.total, want.length);
        });
      }

      const ORDERS: string[] = [];
      for (const field of FIELDS.map((f) => f.id)) {
        ORDERS.push(field, `${field} desc`, `${field} nulls first`, `${field} desc nulls last`);
      }
      ORDERS.push('Flag desc, N, Label desc', 'Day nulls first, At desc, I', 'I, _id desc');

      test('keyset paging in every order, empty cells first or last: every record once, in order', async () => {
        for (const sort of ORDERS) {
          const clauses: Clause[] = [];
          let idDescending = false;
          for (const clause of sort.split(',').map((c) => c.trim())) {
            const [field, ...words] = clause.split(' ');
            if (field === '_id') {
              idDescending = words[0] === 'desc';
              break;
            }
            const descending = words[0] === 'desc';
            clauses.push({
              field: field!,
              descending,
              nullsFirst: words.includes('nulls') ? words.at(-1) === 'first' : descending,
            });
          }
          const want = [...rows].sort(byClauses(clauses, idDescending));
          const walked: Row[] = [];
          let cursor: unknown;
          for (let page = 0; page < 100; page++) {
            const result = await search({
              resource_id: RESOURCE,
              sort,
              limit: 5,
              include_next_page: true,
              ...(cursor ? { count_centre_after: cursor } : {}),
            });
            if (result.records.length === 0) break;
            walked.push(...result.records);
            cursor = result.count_centre_next_after;
          }
          assert.deepEqual(
            walked.map((r) => r._id),
            want.map((r) => r._id),
            sort,
          );
        }
      });

      test('the cursor holds JSON values of the field types', async () => {
        const result = await search({
          resource_id: RESOURCE,
          sort: 'Flag desc, Big, F, Day, At, N, Label',
          limit: 1,
          include_next_page: true,
        });
        const last = result.records[0];
        const cursor = result.count_centre_next_after as Value[];
        assert.deepEqual(cursor.slice(0, 4), [last.Flag, last.Big, last.F, last.Day]);
        assert.equal(typeof cursor[0], last.Flag === null ? 'object' : 'boolean');
        assert.deepEqual(cursor.slice(5), [last.N, last.Label, last._id]);
      });

      test('milliseconds in timestamps when the setting asks for them, in records and dumps', async () => {
        const ms = await startService(
          {
            catalog: path.join(dir, 'catalog.json'),
            sources: dir,
            databasePath: path.join(dir, 'typed.sqlite'),
            msInTimestamp: true,
            ...residence,
          },
          backend,
        );
        try {
          const withMs = (i: number) => {
            const at = exactAt[i] ?? null;
            return at === null ? null : `${at.slice(0, 19)}.${(at.slice(20) + '000').slice(0, 3)}`;
          };
          const { body } = await ms.getJson(`${SEARCH}?resource_id=${RESOURCE}&limit=1000`);
          assert.deepEqual(
            body.result.records.map((r: Row) => r.At),
            rows.map((_, i) => withMs(i)),
          );
          assert.ok(
            body.result.records.some((r: Row) => typeof r.At === 'string' && r.At.endsWith('.999')),
            'truncated, not rounded',
          );
          const lists = await ms.getJson(`${SEARCH}?resource_id=${RESOURCE}&limit=1000&records_format=lists&fields=At`);
          assert.deepEqual(
            lists.body.result.records,
            rows.map((_, i) => [withMs(i)]),
          );
          const csvText = (
            await ms.getJson(`${SEARCH}?resource_id=${RESOURCE}&limit=3&records_format=csv&fields=_id,At`)
          ).body.result.records;
          assert.equal(
            csvText,
            rows
              .slice(0, 3)
              .map((_, i) => `${i + 1},${withMs(i) ?? ''}\n`)
              .join(''),
          );
          const dump = await ms.request(`/datastore/dump/${RESOURCE}?format=json`);
          assert.deepEqual(
            JSON.parse(dump.body).records.map((r: Value[]) => r[8]),
            rows.map((_, i) => withMs(i)),
          );
          const csvDump = (await ms.request(`/datastore/dump/${RESOURCE}?fields=At`)).body.split('\n').slice(1, 4);
          assert.deepEqual(
            csvDump,
            rows.slice(0, 3).map((_, i) => withMs(i) ?? ''),
          );
          // Without the setting: to the second, as the service description shows them.
          const plain = (await search({ resource_id: RESOURCE, limit: 1000 })).records.map((r: Row) => r.At);
          assert.deepEqual(
            plain,
            rows.map((r) => r.At),
          );
        } finally {
          await ms.close();
        }
      });
    });
