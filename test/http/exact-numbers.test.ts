// Numeric values keep the digits they were published with (trailing zeros, scale, more digits than a double holds)
// in every answer, on both stores, whether a search is answered from memory or by the store; filters, ranges, sorts
// and totals still compare them as numbers. The JSON and XML dumps write them as CKAN 2.10's do (Python floats).

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startService, type TestService, TEST_BACKENDS, TEST_TMP } from '../helpers/service.js';

const RESOURCE = '44444444-0000-4000-8000-000000000012';

/**
 * Label, the Amount cell as published, Count; then the Amount as PostgreSQL prints it and as CKAN's JSON dump writes
 * it.
 */
const ROWS: [string, string, number, string | null, string][] = [
  ['a', '12.50', 1, '12.50', '12.5'],
  ['b', '-32782.20', 2, '-32782.20', '-32782.2'],
  ['c', '1e-7', 3, '0.0000001', '1e-07'],
  ['d', '0.00000015', 4, '0.00000015', '1.5e-07'],
  ['e', '0.000', 5, '0.000', '0.0'],
  ['f', '123456789012345678901234567890', 6, '123456789012345678901234567890', '123456789012345678901234567890'],
  ['g', '123456789012345678901234567891.25', 7, '123456789012345678901234567891.25', '1.2345678901234568e+29'],
  ['h', '9.5', 8, '9.5', '9.5'],
  ['i', '10.25', 9, '10.25', '10.25'],
  ['j', '12.5', 10, '12.5', '12.5'],
  ['k', '', 11, null, 'null'],
  ['l', '1.50E2', 12, '150', '150'],
  ['m', '-0.10', 13, '-0.10', '-0.1'],
];
const CSV =
  'Label,Amount,Count\n' + ROWS.map(([label, amount, count]) => `${label},${amount},${count}`).join('\n') + '\n';

/** Python's str(Decimal(text)), as CKAN 2.11+ writes a numeric in datastore_search_sql. */
const DECIMAL_STR: Record<string, string> = { '0.0000001': '1E-7', '0.00000015': '1.5E-7' };

const objectText = (r: (typeof ROWS)[number]) =>
  `{"_id":${r[2]},"Label":"${r[0]}","Amount":${r[3] ?? 'null'},"Count":${r[2]}}`;
const csvLine = (r: (typeof ROWS)[number], delimiter = ',') => [r[2], r[0], r[3] ?? '', r[2]].join(delimiter) + '\n';
const byLabel = (labels: string) => labels.split('').map((l) => ROWS.find((r) => r[0] === l)!);

/** The records array of a datastore_search answer, as the text the body holds. */
function recordsText(body: string): string {
  const match = /"records": (\[.*?\]|"[^"]*")(?:, "fields"|, "_links"|, "total"|})/.exec(body);
  assert.ok(match, body.slice(0, 300));
  return match[1]!;
}

for (const backend of TEST_BACKENDS)
  for (const residentRows of [50_000, 0]) {
    describe(`numbers digit for digit [${backend}, ${residentRows ? 'resident' : 'store'}]`, () => {
      let service: TestService;
      const dir = path.join(TEST_TMP, `exact-numbers-${backend}-${residentRows}`);
      before(async () => {
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, 'amounts.csv'), CSV);
        writeFileSync(
          path.join(dir, 'catalog.json'),
          JSON.stringify({
            datasets: [
              {
                name: 'amounts',
                resources: [
                  {
                    id: RESOURCE,
                    name: 'Amounts',
                    source: { path: 'amounts.csv' },
                    fields: [
                      { id: 'Label', type: 'text' },
                      { id: 'Amount', type: 'numeric', index: true },
                      { id: 'Count', type: 'int4' },
                    ],
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
            databasePath: path.join(dir, 'amounts.sqlite'),
            residentRows,
            // The first statement starts the query workers, which a busy machine can make slow.
            sqlTimeoutMs: 30_000,
          },
          backend,
        );
      });
      after(() => service?.close());

      const search = async (params: Record<string, unknown>) => {
        const query = new URLSearchParams(
          Object.entries({ resource_id: RESOURCE, ...params }).map(([k, v]): [string, string] => [
            k,
            typeof v === 'string' ? v : JSON.stringify(v),
          ]),
        );
        const response = await service.request(`/api/3/action/datastore_search?${query}`);
        assert.equal(response.statusCode, 200, response.body.slice(0, 400));
        return { text: recordsText(response.body), result: JSON.parse(response.body).result };
      };

      test('JSON objects and lists keep every digit and the scale', async () => {
        assert.equal((await search({})).text, '[' + ROWS.map(objectText).join(',') + ']');
        assert.equal(
          (await search({ records_format: 'lists', fields: 'Amount' })).text,
          '[' + ROWS.map((r) => `[${r[3] ?? 'null'}]`).join(',') + ']',
        );
        assert.equal(
          (await search({ fields: 'Label,Amount' })).text,
          '[' + ROWS.map((r) => `{"Label":"${r[0]}","Amount":${r[3] ?? 'null'}}`).join(',') + ']',
        );
      });

      test('CSV and TSV records keep every digit', async () => {
        assert.equal(
          (await search({ records_format: 'csv' })).text,
          JSON.stringify(ROWS.map((r) => csvLine(r)).join('')),
        );
        assert.equal(
          (await search({ records_format: 'tsv' })).text,
          JSON.stringify(ROWS.map((r) => csvLine(r, '\t')).join('')),
        );
        assert.equal(
          (await search({ records_format: 'csv', fields: 'Amount' })).text,
          JSON.stringify(ROWS.map((r) => `${r[3] ?? ''}\n`).join('')),
        );
      });

      test('equality, lists and ranges compare numerically; totals count them', async () => {
        const equal = await search({ filters: { Amount: 12.5 } });
        assert.equal(equal.text, '[' + byLabel('aj').map(objectText).join(',') + ']');
        assert.equal(equal.result.total, 2);
        assert.equal((await search({ filters: { Amount: '12.500' } })).text, equal.text);
        assert.equal(
          (await search({ filters: { Amount: [0, 150, -0.1] } })).text,
          '[' + byLabel('elm').map(objectText).join(',') + ']',
        );
        const range = await search({ filters: { Amount: { gt: 9.5, lte: 12.5 } } });
        assert.equal(range.text, '[' + byLabel('aij').map(objectText).join(',') + ']');
        assert.equal(range.result.total, 3);
        assert.equal(
          (await search({ filters: { Amount: { gt: 0, lt: 0.000001 } } })).text,
          '[' + byLabel('cd').map(objectText).join(',') + ']',
        );
      });

      test('sorts are numeric, ties in record order, nulls where asked', async () => {
        assert.equal(
          (await search({ sort: 'Amount', fields: 'Label', records_format: 'csv' })).text,
          JSON.stringify('b\nm\ne\nc\nd\nh\ni\na\nj\nl\nf\ng\nk\n'),
        );
        assert.equal(
          (
            await search({
              sort: 'Amount desc nulls first',
              fields: 'Label,Amount',
              records_format: 'lists',
              filters: { Amount: [null, { lt: 1e20 }] },
            })
          ).text,
          '[["k",null],["l",150],["a",12.50],["j",12.5],["i",10.25],["h",9.5],["d",0.00000015],["c",0.0000001],["e",0.000],["m",-0.10],["b",-32782.20]]',
        );
      });

      const dump = async (format: string) => {
        const response = await service.request(`/datastore/dump/${RESOURCE}?format=${format}`);
        assert.equal(response.statusCode, 200, response.body.slice(0, 300));
        return response.body;
      };

      test('CSV and TSV dumps keep every digit', async () => {
        assert.equal(await dump('csv'), '_id,Label,Amount,Count\r\n' + ROWS.map((r) => csvLine(r)).join(''));
        assert.equal(await dump('tsv'), '_id\tLabel\tAmount\tCount\r\n' + ROWS.map((r) => csvLine(r, '\t')).join(''));
      });

      test('JSON and XML dumps write numerics as CKAN 2.10 does (Python floats of the exact text)', async () => {
        assert.equal(
          await dump('json'),
          '{\n  "fields": [{"id":"_id","type":"int"},{"id":"Label","type":"text"},{"id":"Amount","type":"numeric"},{"id":"Count","type":"int4"}],\n' +
            '  "records": [' +
            ROWS.map((r) => `\n    [${r[2]},"${r[0]}",${r[4]},${r[2]}]`).join(',') +
            '\n]}\n',
        );
        assert.equal(
          await dump('xml'),
          '<data xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
            ROWS.map(
              (r) =>
                `<row _id="${r[2]}"><Label>${r[0]}</Label>${r[3] === null ? '<Amount xsi:nil="true" />' : `<Amount>${r[4]}</Amount>`}<Count>${r[2]}</Count></row>\n`,
            ).join('') +
            '</data>\n',
        );
        assert.equal(await dump('ndjson'), ROWS.map((r) => objectText(r) + '\n').join(''));
      });

      const sql = async (statement: string) => {
        const response = await service.request(
          `/api/3/action/datastore_search_sql?sql=${encodeURIComponent(statement)}`,
        );
        assert.equal(response.statusCode, 200, response.body.slice(0, 400));
        return /"records": (\[.*?\]), "fields"/.exec(response.body)![1]!;
      };

      test('datastore_search_sql gives every digit, compares and adds exactly', async () => {
        assert.equal(
          await sql(`SELECT "Label", "Amount" FROM "${RESOURCE}" ORDER BY "_id"`),
          '[' +
            ROWS.map(
              (r) => `{"Label": "${r[0]}", "Amount": ${r[3] === null ? 'null' : (DECIMAL_STR[r[3]] ?? r[3])}}`,
            ).join(', ') +
            ']',
        );
        assert.equal(
          await sql(`SELECT "Label" FROM "${RESOURCE}" WHERE "Amount" = 12.5 ORDER BY "Amount", "_id"`),
          '[{"Label": "a"}, {"Label": "j"}]',
        );
        assert.equal(
          await sql(`SELECT "Label" FROM "${RESOURCE}" WHERE "Amount" < 1 ORDER BY "Amount" DESC, "_id"`),
          '[{"Label": "d"}, {"Label": "c"}, {"Label": "e"}, {"Label": "m"}, {"Label": "b"}]',
        );
        assert.equal(
          await sql(`SELECT sum("Amount") AS s, max("Amount") AS m FROM "${RESOURCE}" WHERE "Amount" < 1000`),
          '[{"s": -32587.54999975, "m": 150}]',
        );
        assert.equal(
          await sql(`SELECT "Amount" + 1 AS plus FROM "${RESOURCE}" WHERE "_id" IN (1, 7) ORDER BY "_id"`),
          '[{"plus": 13.50}, {"plus": 123456789012345678901234567892.25}]',
        );
      });
    });
  }
