// Bad input of every kind gets CKAN's error envelope with CKAN's status and wording — never a 500, never a
// crash, never SQL text — and leaves the data as it was.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RESOURCE_A, startService, type TestService, TEST_BACKENDS } from '../helpers/service.js';

const SEARCH = '/api/3/action/datastore_search';

for (const backend of TEST_BACKENDS)
  describe(`bad input [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    /** GETs a search with these raw (already JSON-encoded where needed) parameters and returns the error. */
    const failing = async (params: Record<string, string>, status = 409) => {
      const query = new URLSearchParams(
        params.resource_id === undefined ? { resource_id: RESOURCE_A, ...params } : params,
      );
      const response = await service.request(`${SEARCH}?${query}`);
      assert.equal(response.statusCode, status, response.body);
      assert.equal(response.headers['content-type'], 'application/json;charset=utf-8');
      const body = JSON.parse(response.body);
      assert.deepEqual(Object.keys(body), ['help', 'error', 'success']);
      assert.equal(body.success, false);
      assert.match(body.help, /\/api\/3\/action\/help_show\?name=datastore_search$/);
      return body.error;
    };

    const validation = (detail: Record<string, unknown>) => ({ ...detail, __type: 'Validation Error' });

    test('resource_id: missing, empty, unknown', async () => {
      assert.deepEqual(await failing({ resource_id: '' }), validation({ resource_id: ['Missing value'] }));
      const missing = await service.request(`${SEARCH}?limit=1`);
      assert.equal(missing.statusCode, 409);
      assert.deepEqual(JSON.parse(missing.body).error, validation({ resource_id: ['Missing value'] }));
      assert.deepEqual(await failing({ resource_id: 'nope' }, 404), {
        __type: 'Not Found Error',
        message: 'Not found: Resource "nope" was not found.',
      });
    });

    test('limit: not an integer, negative, fractional', async () => {
      assert.deepEqual(
        await failing({ limit: 'abc' }),
        validation({ limit: ['Invalid integer', 'Please enter an integer value'] }),
      );
      assert.deepEqual(
        await failing({ limit: '1.5' }),
        validation({ limit: ['Invalid integer', 'Please enter an integer value'] }),
      );
      assert.deepEqual(await failing({ limit: '-1' }), validation({ limit: ['Must be a natural number'] }));
    });

    test('offset: not an integer, negative, beyond any record number', async () => {
      assert.deepEqual(await failing({ offset: 'abc' }), validation({ offset: ['Invalid integer'] }));
      assert.deepEqual(await failing({ offset: '-1' }), validation({ offset: ['invalid value "-1"'] }));
      assert.deepEqual(
        await failing({ offset: '99999999999999999999999' }),
        validation({ offset: ['Must be at most 9007199254740991'] }),
      );
    });

    test('several type errors are reported together', async () => {
      const error = await failing({ limit: 'x', offset: 'y', records_format: 'xml' });
      assert.deepEqual(Object.keys(error).sort(), ['__type', 'limit', 'offset', 'records_format']);
      assert.deepEqual(error.records_format, ["Value must be one of ['objects', 'lists', 'csv', 'tsv']"]);
    });

    test('filters: not JSON, not a dictionary, unknown field, value of the wrong type', async () => {
      assert.deepEqual(await failing({ filters: 'the-filter' }), validation({ filters: ['Cannot parse JSON'] }));
      assert.deepEqual(
        await failing({ filters: '5' }),
        validation({ filters: ['Filters must be defined as a dict or a list of dicts'] }),
      );
      assert.deepEqual(
        await failing({ filters: '["a"]' }),
        validation({ filters: ['Filters must be defined as a dict or a list of dicts'] }),
      );
      assert.deepEqual(await failing({ filters: '{"Nope": 1}' }), validation({ filters: ['Unknown field: Nope'] }));
      assert.deepEqual(
        await failing({ filters: '{"Nope": [1, 2]}' }),
        validation({ filters: ['invalid value "Nope"'] }),
      );
      assert.deepEqual(
        await failing({ filters: '{"Votes": "many"}' }),
        validation({ query: ['Invalid query'], info: { orig: ['invalid input syntax for type numeric: "many"'] } }),
      );
      assert.deepEqual(
        await failing({ filters: '{"Votes": true}' }),
        validation({ query: ['Invalid query'], info: { orig: ['invalid input syntax for type numeric: "True"'] } }),
      );
      assert.deepEqual(
        await failing({ filters: '{"Votes": {"gt": "many"}}' }),
        validation({ query: ['Invalid query'], info: { orig: ['invalid input syntax for type numeric: "many"'] } }),
      );
    });

    test("filters: CKAN 2.12's operators are answered; what its grammar refuses is refused in its words", async () => {
      // Before CKAN 2.12's grammar, {"Votes": {"gt": 5}} was refused; it is a range now.
      const { status, body } = await service.getJson(
        `${SEARCH}?resource_id=${RESOURCE_A}&limit=1000&filters=${encodeURIComponent('{"Votes": {"gt": 5}}')}`,
      );
      assert.equal(status, 200);
      assert.ok(body.result.records.length > 0 && body.result.records.every((r: { Votes: number }) => r.Votes > 5));
      assert.equal(body.result.total, body.result.records.length);
      assert.deepEqual(
        await failing({ filters: '{"Votes": {"like": 5}}' }),
        validation({ filters: ["Unknown filter operation: FilterOp(field='Votes', op='like', value=5)"] }),
      );
      assert.deepEqual(
        await failing({ filters: '{"Votes": {"in": 5}}' }),
        validation({
          filters: ["Filter operation \"in\" takes a list of values: FilterOp(field='Votes', op='in', value=5)"],
        }),
      );
      assert.deepEqual(
        await failing({ filters: '{"$not": [{"Votes": 5}]}' }),
        validation({ filters: ['Unknown operators (must be one of $or, $and): $not'] }),
      );
      assert.deepEqual(
        await failing({ filters: '{"$or": {"Votes": 5}}' }),
        validation({ filters: ["Filter operations must be defined as a list of dicts: {'Votes': 5}"] }),
      );
      let deep: unknown = { Votes: 5 };
      for (let i = 0; i < 10; i++) deep = { $and: [deep] };
      assert.deepEqual(
        await failing({ filters: JSON.stringify(deep) }),
        validation({ filters: ['Maximum nesting depth for filter operations reached'] }),
      );
      const many = { $or: Array.from({ length: 100 }, (_, i) => ({ Votes: i })) };
      assert.deepEqual(
        await failing({ filters: JSON.stringify(many) }),
        validation({ filters: ['Maximum number of filter operations exceeded'] }),
      );
      // Hostile shapes: a nest well past the limit (and within the JSON reader's own), and huge bounds on every kind of
      // field, never reach the store.
      let hostile: unknown = { Votes: 5 };
      for (let i = 0; i < 25; i++) hostile = { $or: [hostile] };
      assert.deepEqual(
        await failing({ filters: JSON.stringify(hostile) }),
        validation({ filters: ['Maximum nesting depth for filter operations reached'] }),
      );
      for (const filters of [
        '{"_id": {"gt": 1e308}}',
        '{"Votes": {"lt": -1e308}}',
        '{"Surname": {"gt": "\\u0000"}}',
        '{"_id": {"lte": -99999999999}}',
      ]) {
        const answer = await service.getJson(
          `${SEARCH}?resource_id=${RESOURCE_A}&filters=${encodeURIComponent(filters)}`,
        );
        assert.equal(answer.status, 200, filters);
      }
    });

    test('fields: unknown, reserved, wrong types', async () => {
      assert.deepEqual(await failing({ fields: 'Surname,Nope' }), validation({ fields: ['invalid value "Nope"'] }));
      assert.deepEqual(await failing({ fields: '_full_text' }), validation({ fields: ['invalid value "_full_text"'] }));
      assert.deepEqual(await failing({ fields: 'rank' }), validation({ fields: ['invalid value "rank"'] }));
      const post = async (fields: unknown) => {
        const response = await service.request({
          method: 'POST',
          url: SEARCH,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ resource_id: RESOURCE_A, fields }),
        });
        assert.equal(response.statusCode, 409);
        return JSON.parse(response.body).error;
      };
      assert.deepEqual(
        await post([{ id: 'bad' }]),
        validation({ fields: ["Neither a string nor a list: {'id': 'bad'}"] }),
      );
      assert.deepEqual(await post(5), validation({ fields: ['Not a list'] }));
    });

    test('sort: unknown field, rank, malformed', async () => {
      assert.deepEqual(await failing({ sort: 'füü asc' }), validation({ sort: ['invalid value "füü asc"'] }));
      assert.deepEqual(
        await failing({ sort: 'Votes sideways' }),
        validation({ sort: ['invalid value "Votes sideways"'] }),
      );
      assert.deepEqual(
        await failing({ sort: 'rank desc', q: 'Dublin' }),
        validation({ sort: ['invalid value "rank desc"'] }),
      );
      assert.deepEqual(await failing({ sort: 'Votes,' }), validation({ sort: ['invalid value ""'] }));
    });

    test('q: unknown field, non-text term, broken tsquery syntax, unknown language', async () => {
      assert.deepEqual(await failing({ q: '{"Nope": "x"}' }), validation({ q: ['invalid value "Nope"'] }));
      assert.deepEqual(await failing({ q: '{"Surname": ["a", "b"]}' }), validation({ q: ['invalid value "Surname"'] }));
      const syntax = await failing({ q: 'Dublin &', plain: 'false' });
      assert.deepEqual(syntax.query, ['Invalid query']);
      assert.equal(syntax.info.orig[0], 'no operand in tsquery: "Dublin &"');
      assert.deepEqual(
        await failing({ q: 'Dublin', language: 'klingon' }),
        validation({
          query: ['Invalid query'],
          info: { orig: ['text search configuration "klingon" does not exist'] },
        }),
      );
    });

    test('unknown parameters are reported as CKAN 2.10 reports them; the alphabetically first problem wins', async () => {
      assert.deepEqual(await failing({ foo: 'bar', limit: '1' }), validation({ __extras: ['invalid value "foo"'] }));
      assert.deepEqual(await failing({ _: '12345' }), validation({ __extras: ['invalid value "_"'] }));
      assert.deepEqual(
        await failing({ sort: 'Nope', fields: 'Nope2' }),
        validation({ fields: ['invalid value "Nope2"'] }),
      );
    });

    test('SQL in names is an unknown field; SQL in values is just a value; nothing changes', async () => {
      const injected = `${RESOURCE_A}"; DROP TABLE "${RESOURCE_A}"; --`;
      assert.deepEqual(await failing({ resource_id: injected }, 404), {
        __type: 'Not Found Error',
        message: `Not found: Resource "${injected}" was not found.`,
      });
      assert.deepEqual(
        await failing({ fields: 'Surname" FROM sqlite_master; --' }),
        validation({ fields: ['invalid value "Surname" FROM sqlite_master; --"'] }),
      );
      assert.deepEqual(
        await failing({ sort: 'Votes; DROP TABLE x' }),
        validation({ sort: ['invalid value "Votes; DROP TABLE x"'] }),
      );
      assert.deepEqual(
        await failing({ filters: JSON.stringify({ 'Votes" OR 1=1 --': 1 }) }),
        validation({ filters: ['Unknown field: Votes" OR 1=1 --'] }),
      );
      assert.deepEqual(
        await failing({ filters: JSON.stringify({ Votes: { 'gt" OR 1=1 --': 1 } }) }),
        validation({ filters: ["Unknown filter operation: FilterOp(field='Votes', op='gt\" OR 1=1 --', value=1)"] }),
      );
      for (const value of ["' OR '1'='1", '"); DROP TABLE x; --', "Robert'); DROP TABLE Students;--"]) {
        const { status, body } = await service.getJson(
          `${SEARCH}?resource_id=${RESOURCE_A}&filters=${encodeURIComponent(JSON.stringify({ Surname: value }))}&q=${encodeURIComponent(value)}`,
        );
        assert.equal(status, 200);
        assert.equal(body.result.total, 0);
      }
      const { body } = await service.getJson(`${SEARCH}?resource_id=${RESOURCE_A}&limit=0`);
      assert.equal(body.result.total, 531);
    });

    test('bodies: broken JSON, a JSON array, a bad form hack are 400 bare strings', async () => {
      const post = (payload: string, contentType = 'application/json') =>
        service.request({ method: 'POST', url: SEARCH, headers: { 'content-type': contentType }, payload });
      const broken = await post('{not json');
      assert.equal(broken.statusCode, 400);
      assert.equal(broken.headers['content-type'], 'application/json;charset=utf-8');
      assert.match(JSON.parse(broken.body), /^Bad request - JSON Error: Error decoding JSON data\. Error: /);
      const array = await post('[1, 2]');
      assert.equal(array.statusCode, 400);
      assert.equal(
        JSON.parse(array.body),
        'Bad request - JSON Error: Request data JSON decoded to [1, 2] but it needs to be a dictionary.',
      );
      const form = await post('{broken', 'application/x-www-form-urlencoded');
      assert.equal(form.statusCode, 400);
    });

    test('a body over the size limit is a 413 in the envelope', async () => {
      const response = await service.request({
        method: 'POST',
        url: SEARCH,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ resource_id: RESOURCE_A, q: 'x'.repeat(2 * 1024 * 1024) }),
      });
      assert.equal(response.statusCode, 413);
      const body = JSON.parse(response.body);
      assert.equal(body.success, false);
      assert.equal(body.error.__type, 'Request Entity Too Large');
    });

    test('huge values are bounded: long q, many filter values, many sort clauses', async () => {
      const longQ = await failing({ q: 'word '.repeat(3000) });
      assert.deepEqual(longQ.query, ['Invalid query']);
      const manyValues = Array.from({ length: 10_001 }, (_, i) => i);
      const post = await service.request({
        method: 'POST',
        url: SEARCH,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ resource_id: RESOURCE_A, filters: { _id: manyValues } }),
      });
      assert.equal(post.statusCode, 409);
      assert.deepEqual(JSON.parse(post.body).error.filters, ['At most 10000 filter values are allowed']);
      const sorts = await failing({ sort: Array.from({ length: 101 }, () => 'Votes').join(',') });
      assert.deepEqual(sorts.sort, ['At most 100 sort clauses are allowed']);
    });

    test('unknown action: 400 bare string; unknown version: 404', async () => {
      const response = await service.request('/api/3/action/nope?x=1');
      assert.equal(response.statusCode, 400);
      assert.equal(response.body, '"Bad request - Action name not known: nope"');
      const old = await service.request(`/api/2/action/datastore_search?resource_id=${RESOURCE_A}`);
      assert.equal(old.statusCode, 404);
      assert.equal(JSON.parse(old.body).success, false);
    });

    test('random garbage in every parameter never yields a 500', async () => {
      const garbage = [
        '',
        ' ',
        'null',
        'true',
        '[]',
        '{}',
        '[[[]]]',
        '{"a":{"b":[1]}}',
        '-0',
        '1e309',
        'NaN',
        '\u0000',
        '%',
        '"',
        "'",
        '\\',
        '💥',
        'ÿ'.repeat(500),
        '9'.repeat(400),
      ];
      const params = [
        'resource_id',
        'id',
        'filters',
        'q',
        'full_text',
        'plain',
        'language',
        'distinct',
        'fields',
        'sort',
        'limit',
        'offset',
        'records_format',
        'include_total',
        'total_estimation_threshold',
      ];
      let seed = 42;
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      for (let i = 0; i < 400; i++) {
        const query = new URLSearchParams({ resource_id: RESOURCE_A });
        for (let j = 0; j < 1 + random(3); j++)
          query.set(params[random(params.length)]!, garbage[random(garbage.length)]!);
        const response = await service.request(`${SEARCH}?${query}`);
        assert.ok(
          [200, 400, 404, 409].includes(response.statusCode),
          `${query} → ${response.statusCode} ${response.body.slice(0, 300)}`,
        );
        assert.doesNotMatch(response.body, /SELECT|sqlite|SQLITE_/i, `${query} leaks SQL`);
        JSON.parse(response.body);
      }
      const { body } = await service.getJson(`${SEARCH}?resource_id=${RESOURCE_A}&limit=0`);
      assert.equal(body.result.total, 531);
    });
  });
