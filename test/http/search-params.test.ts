// Every datastore_search parameter over HTTP against the election resources: what it selects, how it is echoed,
// and the shape of the whole result.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  RESOURCE_A,
  RESOURCE_B,
  RESOURCE_C,
  searchResult,
  startService,
  type TestService,
  TEST_BACKENDS,
} from '../helpers/service.js';

const SEARCH = '/api/3/action/datastore_search';

for (const backend of TEST_BACKENDS)
  describe(`datastore_search parameters [${backend}]`, () => {
    let service: TestService;
    const search = (params: Record<string, string | number | boolean | object>) => searchResult(service, params);
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    describe('filters', () => {
      test('a scalar is equality; the filters are echoed as parsed', async () => {
        const result = await search({ filters: { 'Party Abbreviation': 'F.F.' }, limit: 0 });
        assert.equal(result.total, 84);
        assert.deepEqual(result.filters, { 'Party Abbreviation': 'F.F.' });
      });

      test('a list matches any of its values', async () => {
        const result = await search({ filters: { 'Party Abbreviation': ['F.F.', 'F.G.'] }, limit: 500 });
        assert.equal(result.total, 166);
        assert.ok(result.records.every((r: any) => ['F.F.', 'F.G.'].includes(r['Party Abbreviation'])));
      });

      test('several fields are all required', async () => {
        const result = await search({ filters: { 'Party Abbreviation': 'S.F.', Result: 'Elected' } });
        assert.equal(result.total, 37);
        assert.ok(result.records.every((r: any) => r['Party Abbreviation'] === 'S.F.' && r.Result === 'Elected'));
      });

      test('values are converted to the field type: "1" and 1 both match a numeric field', async () => {
        const fromNumber = await search({ filters: { 'Constituency Number': 1 }, limit: 0 });
        const fromText = await search({ filters: { 'Constituency Number': '1' }, limit: 0 });
        assert.equal(fromNumber.total, 14);
        assert.equal(fromText.total, 14);
        const ids = await search({ filters: { 'Candidate Id': '161', 'Constituency Number': 1 } });
        assert.deepEqual(
          ids.records.map((r: any) => r.Surname),
          ['AYLWARD'],
        );
      });

      test('a number given for a text field compares as its text', async () => {
        const result = await search({ filters: { Surname: 25 }, limit: 0 });
        assert.equal(result.total, 0);
        const gender = await search({ filters: { 'Gender Id': 'F' }, limit: 0 });
        assert.equal(gender.total, 161);
      });

      test('the empty string matches empty text cells', async () => {
        const result = await search({ filters: { Result: '' }, limit: 0 });
        assert.equal(result.total, 28);
      });

      test('an empty list matches nothing (CKAN 2.11 fails with an SQL error)', async () => {
        const result = await search({ filters: { 'Party Abbreviation': [] } });
        assert.equal(result.total, 0);
        assert.deepEqual(result.records, []);
      });

      test('a list of dictionaries matches records that satisfy any one (CKAN 2.11 fails)', async () => {
        const result = await search({
          filters: [{ 'Party Abbreviation': 'G.P.', Result: 'Elected' }, { Surname: 'AYLWARD' }],
          limit: 50,
        });
        assert.equal(result.total, 13);
        assert.ok(
          result.records.every(
            (r: any) => (r['Party Abbreviation'] === 'G.P.' && r.Result === 'Elected') || r.Surname === 'AYLWARD',
          ),
        );
      });

      test('null matches empty (null) cells; no numeric cell of A is empty', async () => {
        const result = await search({ filters: { Votes: null }, limit: 0 });
        assert.equal(result.total, 0);
      });

      test('_id can be filtered', async () => {
        const result = await search({ filters: { _id: [3, 1] }, fields: '_id,Surname' });
        assert.deepEqual(result.records, [
          { _id: 1, Surname: 'AYLWARD' },
          { _id: 3, Surname: 'DEERING' },
        ]);
      });

      test('timestamps filter by ISO date', async () => {
        const query = new URLSearchParams({
          resource_id: RESOURCE_B,
          filters: JSON.stringify({ 'Date Of Election': '2020-02-08' }),
          limit: '0',
        });
        const { body } = await service.getJson(`${SEARCH}?${query}`);
        assert.equal(body.result.total, 39);
      });
    });

    describe('q, plain, language, full_text', () => {
      test('a string searches every field, adds rank, and orders by it', async () => {
        const result = await search({ q: 'Dublin', limit: 2 });
        assert.equal(result.total, 139);
        assert.equal(result.q, 'Dublin');
        assert.deepEqual(result.fields.at(-1), { id: 'rank', type: 'float' });
        assert.deepEqual(Object.keys(result.records[0]).at(-1), 'rank');
        assert.equal(result.records[0].rank, 0.057308756);
      });

      test('words are stemmed and all must match', async () => {
        const stemmed = await search({ q: 'parties elected Greens', limit: 0 });
        const exact = await search({ filters: { 'Party Abbreviation': 'G.P.', Result: 'Elected' }, limit: 0 });
        assert.equal(stemmed.total, exact.total);
      });

      test('a dictionary searches each named field into a `rank <field>` column', async () => {
        const result = await search({ q: { Surname: 'Murphy' }, limit: 100 });
        assert.ok(result.total >= 5);
        assert.deepEqual(result.fields.at(-1), { id: 'rank Surname', type: 'float' });
        assert.ok(result.records.every((r: any) => /murphy/i.test(r.Surname)));
        assert.deepEqual(result.q, { Surname: 'Murphy' });
      });

      test('plain=false takes tsquery syntax: prefixes, OR, NOT', async () => {
        const prefix = await search({ q: 'Dub:*', plain: false, limit: 0 });
        assert.equal(prefix.total, 139);
        assert.equal(prefix.plain, false);
        const either = await search({ q: 'Wicklow | Carlow', plain: false, limit: 0 });
        const wicklow = await search({ filters: { Constituency: 'Wicklow' }, limit: 0 });
        const carlow = await search({ filters: { Constituency: 'Carlow-Kilkenny' }, limit: 0 });
        assert.equal(either.total, wicklow.total + carlow.total);
        const not = await search({ q: 'Dublin & !Fingal', plain: false, limit: 0 });
        const fingal = await search({ filters: { Constituency: 'Dublin Fingal' }, limit: 0 });
        assert.equal(not.total, 139 - fingal.total);
      });

      test('language picks the configuration used for the query', async () => {
        const simple = await search({ q: 'Dublin', language: 'simple', limit: 0 });
        assert.equal(simple.total, 139);
        assert.equal(simple.language, 'simple');
        // French, as PostgreSQL 15's Snowball release stems it (CKAN portals in French ask for it).
        const french = await search({ q: 'Dublin', language: 'french', limit: 0 });
        assert.deepEqual([french.total, french.language], [139, 'french']);
      });

      test('full_text searches the whole record like a string q', async () => {
        const result = await search({ full_text: 'Dublin', limit: 1 });
        assert.equal(result.total, 139);
        assert.equal(result.full_text, 'Dublin');
        assert.equal(result.records[0].rank, 0.057308756);
      });

      test('rank can be chosen in fields; with sort the rank does not order', async () => {
        const result = await search({ q: 'Dublin', fields: 'Surname,rank', sort: 'Surname', limit: 3 });
        assert.deepEqual(result.fields, [
          { id: 'Surname', type: 'text' },
          { id: 'rank', type: 'float' },
        ]);
        const surnames = result.records.map((r: any) => r.Surname);
        assert.deepEqual(surnames, [...surnames].sort());
      });

      test('a dictionary q in lists and csv keeps its rank column last (CKAN answers wrongly)', async () => {
        const lists = await search({
          q: { Constituency: 'Wicklow' },
          records_format: 'lists',
          limit: 1,
          fields: 'Surname,rank Constituency',
        });
        assert.deepEqual(lists.records, [['BEHAN', 0.057308756]]);
        const all = await search({ q: { Constituency: 'Wicklow' }, records_format: 'lists', limit: 1 });
        assert.equal(all.records[0].length, 16);
        assert.equal(all.records[0][15], 0.057308756);
        const csv = await search({
          q: { Constituency: 'Wicklow' },
          records_format: 'csv',
          limit: 1,
          fields: 'Surname,rank Constituency',
        });
        assert.equal(csv.records, 'BEHAN,0.057308756\n');
      });

      test('a query of stop words only matches nothing', async () => {
        const result = await search({ q: 'the and of', limit: 0 });
        assert.equal(result.total, 0);
      });
    });

    describe('distinct', () => {
      test('distinct values of the selected fields, counted over all records, applied before the limit', async () => {
        const result = await search({ fields: 'Party Abbreviation', distinct: true, limit: 5 });
        assert.equal(result.total, 16);
        assert.equal(result.distinct, true);
        // First appearances in record order: a stable order for paging (CKAN leaves it undefined).
        assert.deepEqual(result.records, [
          { 'Party Abbreviation': 'F.F.' },
          { 'Party Abbreviation': 'R.I.' },
          { 'Party Abbreviation': 'F.G.' },
          { 'Party Abbreviation': 'S.F.' },
          { 'Party Abbreviation': 'NON-P.' },
        ]);
        const next = await search({ fields: 'Party Abbreviation', distinct: true, limit: 20, offset: 5 });
        assert.equal(next.records.length, 11);
      });

      test('with sort, the sort field must be selected', async () => {
        const sorted = await search({
          fields: 'Party Abbreviation',
          distinct: true,
          sort: 'Party Abbreviation desc',
          limit: 2,
        });
        assert.deepEqual(sorted.records, [{ 'Party Abbreviation': 'W.P.' }, { 'Party Abbreviation': 'U.P.' }]);
        const { status, body } = await service.getJson(
          `${SEARCH}?resource_id=${RESOURCE_A}&fields=Surname&distinct=true&sort=Votes`,
        );
        assert.equal(status, 409);
        assert.deepEqual(body.error.query, ['Invalid query']);
      });
    });

    describe('fields', () => {
      test('a comma list selects and orders fields; the result lists them in place of the parameter', async () => {
        const result = await search({ fields: 'Votes, Surname,_id', limit: 2 });
        assert.deepEqual(result.fields, [
          { id: 'Votes', type: 'numeric' },
          { id: 'Surname', type: 'text' },
          { id: '_id', type: 'int' },
        ]);
        assert.deepEqual(result.records, [
          { Votes: 7550, Surname: 'AYLWARD', _id: 1 },
          { Votes: 992, Surname: 'BYRNE', _id: 2 },
        ]);
        assert.deepEqual(Object.keys(result).slice(0, 2), ['fields', 'include_total']);
      });

      test('a JSON list is taken element by element, so names may contain commas or quotes', async () => {
        const post = await service.request({
          method: 'POST',
          url: SEARCH,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ resource_id: RESOURCE_A, fields: ['Party Id', 'Constituency Ainm'], limit: 1 }),
        });
        assert.deepEqual(JSON.parse(post.body).result.records, [
          { 'Party Id': 'Fianna Fáil', 'Constituency Ainm': 'Ceatharlach-Cill Chainnigh' },
        ]);
      });
    });

    describe('sort', () => {
      test('"Votes desc, Surname" sorts by votes, then surname', async () => {
        const result = await search({ sort: 'Votes desc, Surname', fields: 'Surname,Votes', limit: 3 });
        assert.deepEqual(result.records, [
          { Surname: 'Mitchell', Votes: 21344 },
          { Surname: 'Doherty', Votes: 21044 },
          { Surname: 'CULLINANE', Votes: 20569 },
        ]);
        assert.equal(result.sort, 'Votes desc, Surname');
      });

      test('quoted names, upper-case keywords and nulls placement parse', async () => {
        const result = await search({
          sort: '"Constituency Number" DESC NULLS LAST, "Candidate Id"',
          fields: 'Constituency Number,Candidate Id',
          limit: 2,
        });
        assert.deepEqual(result.records, [
          { 'Constituency Number': 996, 'Candidate Id': 161 },
          { 'Constituency Number': 996, 'Candidate Id': 162 },
        ]);
      });

      test("text sorts by code point, as CKAN's C collation (upper case before lower case)", async () => {
        const result = await search({ sort: 'Surname', fields: 'Surname', limit: 531 });
        const surnames = result.records.map((r: any) => r.Surname as string);
        const byCodePoint = [...surnames].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        assert.deepEqual(surnames, byCodePoint);
        assert.ok(surnames.indexOf('AYLWARD') < surnames.indexOf('Andrews'));
      });

      test('ties are broken by _id so pages never overlap', async () => {
        const seen = new Set<number>();
        for (let offset = 0; offset < 531; offset += 50) {
          const page = await search({ sort: 'Party Abbreviation', fields: '_id', limit: 50, offset });
          for (const record of page.records) {
            assert.equal(seen.has(record._id), false, `_id ${record._id} appears on two pages`);
            seen.add(record._id);
          }
        }
        assert.equal(seen.size, 531);
      });

      test('a list of clauses is taken as is', async () => {
        const query = new URLSearchParams({ resource_id: RESOURCE_A, limit: '1' });
        query.append('sort', 'Constituency Number desc');
        query.append('sort', 'Votes');
        const { body } = await service.getJson(`${SEARCH}?${query}`);
        assert.deepEqual(body.result.sort, ['Constituency Number desc', 'Votes']);
        assert.equal(body.result.records[0].Votes, 88);
      });
    });

    describe('limit and offset', () => {
      test('limit defaults to 100, is echoed as a number, and is lowered to 32000', async () => {
        assert.equal((await search({})).limit, 100);
        assert.equal((await search({ limit: '5' })).limit, 5);
        const clamped = await search({ limit: 99999999999 });
        assert.equal(clamped.limit, 32000);
        assert.equal(clamped.records.length, 531);
      });

      test('limit 0 returns no records but the total', async () => {
        const result = await search({ limit: 0 });
        assert.deepEqual(result.records, []);
        assert.equal(result.total, 531);
      });

      test('offset skips records and is echoed only when given', async () => {
        assert.equal('offset' in (await search({ limit: 1 })), false);
        const result = await search({ offset: 530, limit: 5 });
        assert.equal(result.offset, 530);
        assert.deepEqual(
          result.records.map((r: any) => r._id),
          [531],
        );
      });

      test('JSON numbers may be whole floats', async () => {
        const post = await service.request({
          method: 'POST',
          url: SEARCH,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ resource_id: RESOURCE_A, limit: 2.0, offset: 1 }),
        });
        assert.deepEqual(
          JSON.parse(post.body).result.records.map((r: any) => r._id),
          [2, 3],
        );
      });
    });

    describe('records_format', () => {
      test('lists', async () => {
        const result = await search({ records_format: 'lists', limit: 1, fields: '_id,Surname,Votes' });
        assert.deepEqual(result.records, [[1, 'AYLWARD', 7550]]);
      });

      test('csv: COPY quoting, empty text as "", no header', async () => {
        const result = await search({
          records_format: 'csv',
          filters: { _id: [1, 483] },
          fields: '_id,Surname,Result',
        });
        assert.equal(result.records, '1,AYLWARD,""\n483,"NEWMAN JULIAN,",Excluded\n');
      });

      test('tsv', async () => {
        const result = await search({ records_format: 'tsv', limit: 2, fields: '_id,Party Id' });
        assert.equal(result.records, '1\tFianna Fáil\n2\tRenua Ireland\n');
      });

      test('an empty page is "" in csv', async () => {
        const result = await search({ records_format: 'csv', limit: 0 });
        assert.equal(result.records, '');
      });
    });

    describe('include_total and total_estimation_threshold', () => {
      test('include_total=false leaves out total and total_was_estimated', async () => {
        const result = await search({ include_total: false, limit: 1 });
        assert.equal('total' in result, false);
        assert.equal('total_was_estimated' in result, false);
        assert.equal(result.include_total, false);
      });

      test('a threshold at or below the resource size reports the stored count as estimated; filters make it exact', async () => {
        const estimated = await search({ total_estimation_threshold: 531, limit: 0 });
        assert.equal(estimated.total, 531);
        assert.equal(estimated.total_was_estimated, true);
        assert.equal(estimated.total_estimation_threshold, 531);
        const exact = await search({ total_estimation_threshold: 532, limit: 0 });
        assert.equal(exact.total_was_estimated, false);
        const filtered = await search({ total_estimation_threshold: 1, filters: { 'Gender Id': 'F' }, limit: 0 });
        assert.deepEqual([filtered.total, filtered.total_was_estimated], [161, false]);
      });
    });

    describe('values', () => {
      test('numbers are JSON numbers, empty text is "", timestamps are YYYY-MM-DDTHH:MM:SS, Windows-1252 is decoded', async () => {
        const a = await search({ limit: 8 });
        assert.equal(a.records[0].Votes, 7550);
        assert.equal(a.records[0].Result, '');
        assert.equal(a.records[7].Surname, 'MURNANE O\u2019CONNOR');
        const { body } = await service.getJson(`${SEARCH}?resource_id=${RESOURCE_B}&limit=1`);
        assert.equal(body.result.records[0]['Date Of Election'], '2020-02-08T00:00:00');
        assert.equal(body.result.records[0]['Seats in Constituency'], 5);
      });

      test('resource C is served from its catalogue entry alone', async () => {
        const { body } = await service.getJson(`${SEARCH}?resource_id=${RESOURCE_C}&limit=1&offset=5014`);
        assert.equal(body.result.total, 5015);
        assert.deepEqual(body.result.records[0], {
          _id: 5015,
          'Constituency Name': 'Wicklow',
          'Candidate surname': 'WHITMORE',
          'Candidate First Name': 'JENNIEFER',
          Result: 'Elected',
          'Count Number': 15,
          'Non-Transferable': 722,
          'Occurred On Count': 14,
          'Required To Reach Quota': 0,
          'Required To Save Deposit': 0,
          Transfers: -1518,
          Votes: 7039,
          'Total Votes': 11887,
          'Constituency Number': 41,
          'Candidate Id': 203,
        });
      });
    });
  });
