// Paging through each election resource by following `_links.next` yields every record once, in file order,
// with every value equal to the source CSV's — checked against a parse of the CSV independent of the loader's.

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
import { sourceRows } from '../helpers/source-records.js';

for (const backend of TEST_BACKENDS)
  describe(`paging with _links.next [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    async function followAll(
      resourceId: string,
      limit?: number,
    ): Promise<{ records: Record<string, unknown>[]; pages: number; fields: { id: string; type: string }[] }> {
      let url = `/api/3/action/datastore_search?resource_id=${resourceId}${limit ? `&limit=${limit}` : ''}`;
      const records: Record<string, unknown>[] = [];
      let pages = 0;
      let fields: { id: string; type: string }[] = [];
      for (;;) {
        const { status, body } = await service.getJson(url);
        assert.equal(status, 200);
        pages += 1;
        fields = body.result.fields;
        if (body.result.records.length === 0) break;
        records.push(...body.result.records);
        url = body.result._links.next;
        assert.ok(pages < 1000, 'paging terminates');
      }
      return { records, pages, fields };
    }

    function assertMatchesSource(
      records: Record<string, unknown>[],
      fields: { id: string; type: string }[],
      file: string,
      columnOf: (id: string) => string = (id) => id,
    ) {
      const { header, rows } = sourceRows(file);
      assert.equal(records.length, rows.length);
      records.forEach((record, i) => {
        assert.equal(record._id, i + 1);
        for (const field of fields.slice(1)) {
          const cell = rows[i]![header.indexOf(columnOf(field.id))]!;
          const expected =
            field.type === 'numeric'
              ? Number(cell)
              : field.type === 'timestamp'
                ? cell.replace(/^(\d\d)\/(\d\d)\/(\d{4})$/, '$3-$2-$1T00:00:00')
                : cell;
          assert.equal(record[field.id], expected, `record ${i + 1}, ${field.id}`);
        }
      });
    }

    test('A (candidate results): _id 1..531 over 6 pages, every value as in candidates_info.csv', async () => {
      const { records, pages, fields } = await followAll(RESOURCE_A);
      assert.equal(pages, 7, 'six full or partial pages, then the empty one');
      assertMatchesSource(records, fields, '2020/candidates_info.csv');
      const special = records.find((r) => r._id === 483)!;
      assert.equal(special.Surname, 'NEWMAN JULIAN,');
      assert.equal(records.find((r) => r._id === 8)!.Surname, 'MURNANE O\u2019CONNOR');
    });

    test('B (constituency results): the renamed column and the DD/MM/YYYY dates', async () => {
      const { records, fields } = await followAll(RESOURCE_B, 7);
      assertMatchesSource(records, fields, '2020/constituencies.csv', (id) =>
        id === 'Seats in Constituency' ? 'SeatsinConstit' : id,
      );
    });

    test('C (count details): 5,015 records with quoted names', async () => {
      const { records, fields } = await followAll(RESOURCE_C, 1000);
      assertMatchesSource(records, fields, '2020/elections2.csv');
      assert.equal(records.find((r) => r['Candidate First Name'] === 'Martin "Jonesy"')?._id, 2642);
    });
  });
