// Friendlier errors for people: a close field, parameter, action or resource name is suggested in an extra `info`
// entry (or, for CKAN's bare-string 400, after its words), CKAN's keys and messages unchanged; nothing is added when
// nothing is close, so the answers the CKAN contract examples pin stay CKAN's bytes. On both stores.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closest } from '../../src/actions/hints.js';
import { RESOURCE_A, startService, TEST_BACKENDS, type TestService } from '../helpers/service.js';

test('closest: case, accents and spacing, then one to three typing slips by length; ties all named', () => {
  assert.deepEqual(closest('votes', ['Votes', 'Surname']), ['Votes']);
  assert.deepEqual(closest('Constituency Ainm', ['Constituency Áinm', 'Constituency']), ['Constituency Áinm']);
  assert.deepEqual(closest('Surnme', ['Surname', 'Firstname']), ['Surname']);
  assert.deepEqual(closest('Nope', ['Votes', 'Result']), []);
  assert.deepEqual(closest('abc', ['abd', 'abe', 'xyz']), ['abd', 'abe']);
});

for (const backend of TEST_BACKENDS)
  describe(`hints in errors [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    const error = async (url: string) => {
      const { status, body } = await service.getJson(url);
      return { status, error: body.error };
    };

    test('a misspelt field in filters, sort or fields', async () => {
      assert.deepEqual(
        await error(
          `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&filters=${encodeURIComponent('{"votes": 5}')}`,
        ),
        {
          status: 409,
          error: {
            filters: ['Unknown field: votes'],
            info: { hint: 'filters: "votes" is not a field; did you mean "Votes"?' },
            __type: 'Validation Error',
          },
        },
      );
      assert.deepEqual(
        (await error(`/api/3/action/datastore_search?resource_id=${RESOURCE_A}&sort=Surnam%20desc`)).error.info,
        { hint: 'sort: "Surnam" is not a field; did you mean "Surname"?' },
      );
      assert.deepEqual(
        (await error(`/api/3/action/datastore_search?resource_id=${RESOURCE_A}&fields=Party%20id`)).error.info,
        { hint: 'fields: "Party id" is not a field; did you mean "Party Id"?' },
      );
    });

    test('a misspelt parameter, action, or help_show name', async () => {
      assert.deepEqual((await error(`/api/3/action/datastore_search?resource_id=${RESOURCE_A}&ofset=5`)).error, {
        __extras: ['invalid value "ofset"'],
        info: { hint: '"ofset" is not a parameter of datastore_search; did you mean "offset"?' },
        __type: 'Validation Error',
      });
      const action = await service.request('/api/3/action/datastore_serch');
      assert.equal(action.statusCode, 400);
      assert.equal(
        JSON.parse(action.body),
        'Bad request - Action name not known: datastore_serch (did you mean "datastore_search"?)',
      );
      assert.deepEqual(await error('/api/3/action/help_show?name=package_shw'), {
        status: 404,
        error: {
          __type: 'Not Found Error',
          message: 'Not found: Action function not found',
          info: { hint: 'did you mean "package_show"?' },
        },
      });
    });

    test('a resource named where its id belongs: in datastore_search, datastore_info and SQL', async () => {
      const hint = { hint: `resources are named by id: "Candidate results 2020" is ${RESOURCE_A}` };
      assert.deepEqual(await error('/api/3/action/datastore_search?resource_id=Candidate%20results%202020'), {
        status: 404,
        error: {
          __type: 'Not Found Error',
          message: 'Not found: Resource "Candidate results 2020" was not found.',
          info: hint,
        },
      });
      assert.deepEqual((await error('/api/3/action/datastore_info?id=candidate%20results%202020')).error.info, hint);
      const sql = await error(
        `/api/3/action/datastore_search_sql?sql=${encodeURIComponent('SELECT * FROM "Candidate results 2020"')}`,
      );
      assert.equal(sql.status, 409);
      assert.deepEqual(sql.error.query, ['relation "Candidate results 2020" does not exist']);
      assert.equal(sql.error.info.hint, hint.hint);
      const other = await error(
        `/api/3/action/datastore_search_sql?sql=${encodeURIComponent('SELECT * FROM candidates')}`,
      );
      assert.match(
        other.error.info.hint,
        /^the tables are the resources, named by id in double quotes, e\.g\. FROM "[0-9a-f-]{36}"/,
      );
    });

    test("nothing close: CKAN's answer as it is", async () => {
      assert.deepEqual(
        (await error(`/api/3/action/datastore_search?resource_id=${RESOURCE_A}&fields=Surname,Nope`)).error,
        { fields: ['invalid value "Nope"'], __type: 'Validation Error' },
      );
      assert.deepEqual((await error('/api/3/action/datastore_search?resource_id=does-not-exist')).error, {
        __type: 'Not Found Error',
        message: 'Not found: Resource "does-not-exist" was not found.',
      });
    });
  });
