// /datastore/dump/<id>: formats, headers, the datastore_search parameters it takes, errors, HEAD.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { XMLValidator } from 'fast-xml-parser';
import {
  RESOURCE_A,
  RESOURCE_B,
  RESOURCE_C,
  startService,
  type TestService,
  TEST_BACKENDS,
} from '../helpers/service.js';

for (const backend of TEST_BACKENDS)
  describe(`dumps [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    const dump = (query: string, id = RESOURCE_A) => service.request(`/datastore/dump/${id}${query}`);

    test('every format: content type with charset, attachment filename, CKAN framing', async () => {
      const expectations: [string, string, (body: string) => void][] = [
        [
          'csv',
          'text/csv; charset=utf-8',
          (body) =>
            assert.ok(
              body.startsWith('_id,Constituency Name,Constituency Ainm,Count Number,Date Of Election,') &&
                body.includes('\r\n1,Carlow Kilkenny,'),
            ),
        ],
        [
          'tsv',
          'text/tab-separated-values; charset=utf-8',
          (body) =>
            assert.ok(
              body.startsWith('_id\tConstituency Name\t') &&
                body.includes('\r\n1\tCarlow Kilkenny\tCeatharlach-Cill Chainnigh\t10\t2020-02-08T00:00:00\t'),
            ),
        ],
        [
          'json',
          'application/json; charset=utf-8',
          (body) => {
            const parsed = JSON.parse(body);
            assert.equal(parsed.records.length, 39);
            assert.deepEqual(parsed.fields[0], { id: '_id', type: 'int' });
            assert.deepEqual(parsed.records[0].slice(0, 5), [
              1,
              'Carlow Kilkenny',
              'Ceatharlach-Cill Chainnigh',
              10,
              '2020-02-08T00:00:00',
            ]);
          },
        ],
        [
          'xml',
          'text/xml; charset=utf-8',
          (body) => {
            assert.equal(XMLValidator.validate(body), true);
            assert.ok(body.includes('<row _id="1"><Constituency_Name>Carlow Kilkenny</Constituency_Name>'));
          },
        ],
        [
          'ndjson',
          'application/x-ndjson; charset=utf-8',
          (body) => {
            const lines = body
              .trimEnd()
              .split('\n')
              .map((l) => JSON.parse(l));
            assert.equal(lines.length, 39);
            assert.equal(lines[38]._id, 39);
          },
        ],
      ];
      for (const [format, type, check] of expectations) {
        const response = await dump(`?format=${format}`, RESOURCE_B);
        assert.equal(response.statusCode, 200, format);
        assert.equal(response.headers['content-type'], type);
        assert.equal(response.headers['content-disposition'], `attachment; filename="${RESOURCE_B}.${format}"`);
        check(response.body);
      }
    });

    test('csv is the default; bom=true prefixes a UTF-8 byte order mark', async () => {
      const plain = await dump('', RESOURCE_B);
      assert.equal(plain.headers['content-type'], 'text/csv; charset=utf-8');
      const withBom = await dump('?bom=true', RESOURCE_B);
      assert.deepEqual([...withBom.rawPayload.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
      assert.equal(withBom.rawPayload.subarray(3).toString(), plain.body);
    });

    test('whole-record CSV lines kept by the store are the lines the values render to, for every record', async () => {
      // A dump of every field reads the line stored at load time; with distinct (no-op here: `_id` makes every record
      // distinct, and distinct records keep _id order) the store returns the values and they are rendered on the way
      // out.
      for (const id of [RESOURCE_A, RESOURCE_B, RESOURCE_C]) {
        const stored = await dump('', id);
        const rendered = await dump('?distinct=true', id);
        assert.equal(stored.statusCode, 200);
        assert.ok(stored.body.split('\n').length > 39, id);
        assert.equal(stored.body, rendered.body, id);
        const search = await service.getJson(
          `/api/3/action/datastore_search?resource_id=${id}&records_format=csv&limit=32000`,
        );
        assert.equal(
          stored.body,
          stored.body.slice(0, stored.body.indexOf('\r\n') + 2) + search.body.result.records,
          id,
        );
      }
    });

    test('filters, q, fields, sort, limit and offset select as in datastore_search', async () => {
      const filters = encodeURIComponent(JSON.stringify({ 'Party Abbreviation': 'G.P.', Result: 'Elected' }));
      const response = await dump(`?filters=${filters}&fields=Surname,Votes&sort=Votes desc&limit=3&offset=1`);
      assert.equal(response.body, "Surname,Votes\r\nMartin,8958\nRyan,8888\nO'Brien,8400\n");
      const search = await service.getJson(
        `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&filters=${filters}&fields=Surname,Votes&sort=Votes desc&limit=3&offset=1&records_format=csv`,
      );
      assert.equal(response.body, 'Surname,Votes\r\n' + search.body.result.records);
    });

    test('with q and no fields the rank comes along, and records stay in _id order', async () => {
      const response = await dump('?q=Wicklow&limit=2');
      const [header, first, second] = response.body.split(/\r?\n/);
      assert.ok(header!.endsWith(',Constituency Ainm,rank'));
      assert.match(first!, /^\d+,Wicklow,.*,0\.\d+$/);
      assert.ok(Number(first!.split(',')[0]) < Number(second!.split(',')[0]));
    });

    test('null cells: empty in csv, xsi:nil in xml, null in json', async () => {
      const csv = await dump('?fields=name,alias_of&limit=1', '_table_metadata');
      assert.equal(csv.body, `name,alias_of\r\n${RESOURCE_A},\n`);
      const xml = await dump('?format=xml&limit=1', '_table_metadata');
      assert.match(xml.body, /<alias_of xsi:nil="true" \/><\/row>/);
      assert.equal(XMLValidator.validate(xml.body), true);
    });

    test('errors come before any byte of the file, in the JSON envelope', async () => {
      const format = await dump('?format=xlsx');
      assert.equal(format.statusCode, 409);
      assert.deepEqual(JSON.parse(format.body).error, {
        format: ["Value must be one of ['csv', 'tsv', 'json', 'xml', 'ndjson']"],
        __type: 'Validation Error',
      });
      const missing = await dump('', 'does-not-exist');
      assert.equal(missing.statusCode, 404);
      assert.equal(JSON.parse(missing.body).error.message, 'Not found: Resource "does-not-exist" was not found.');
      const badSort = await dump('?sort=Nope');
      assert.equal(badSort.statusCode, 409);
      assert.deepEqual(JSON.parse(badSort.body).error.sort, ['invalid value "Nope"']);
      const badLimit = await dump('?limit=-5');
      assert.equal(badLimit.statusCode, 409);
    });

    test('unknown parameters are ignored, as CKAN ignores them; repeated ones take the first value', async () => {
      const response = await dump('?format=json&format=xml&utm_source=mail&limit=1', RESOURCE_B);
      assert.equal(response.statusCode, 200);
      assert.equal(JSON.parse(response.body).records.length, 1);
    });

    test('HEAD answers with the headers only', async () => {
      const response = await service.request({ method: 'HEAD', url: `/datastore/dump/${RESOURCE_A}?format=tsv` });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/tab-separated-values; charset=utf-8');
      assert.equal(response.body, '');
    });
  });
