// Full-text search finds names without their fadas and in any case, on both stores: `q` as a string and as a
// dictionary, plain and tsquery syntax, and the same records and ranks whichever way a name is typed.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  RESOURCE_A,
  RESOURCE_C,
  searchResult,
  startService,
  type TestService,
  TEST_BACKENDS,
} from '../helpers/service.js';

for (const backend of TEST_BACKENDS)
  describe(`accent folding in q [${backend}]`, () => {
    let service: TestService;
    const search = (params: Record<string, string | number | object>, resourceId = RESOURCE_A) =>
      searchResult(service, params, resourceId);
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    test('"micheal martin" finds Micheál Martin first', async () => {
      const result = await search({ q: 'micheal martin', fields: 'Surname,Firstname,Constituency' });
      assert.equal(result.total, 1);
      assert.deepEqual(result.records, [
        { Surname: 'Martin', Firstname: 'Micheál', Constituency: 'Cork South Central' },
      ]);
    });

    test('"o riordain" finds Aodhán Ó\'Ríordáin, as "Ó Ríordáin" does', async () => {
      const plain = await search({ q: 'o riordain', fields: 'Surname,Firstname' });
      const accented = await search({ q: 'Ó RÍORDÁIN', fields: 'Surname,Firstname' });
      assert.deepEqual(plain.records, [{ Surname: "Ó'Ríordáin", Firstname: 'Aodhán' }]);
      assert.deepEqual(accented.records, plain.records);
    });

    test('"sinn fein" matches every Sinn Féin candidate, however it is typed', async () => {
      const totals = [];
      for (const q of ['sinn fein', 'Sinn Féin', 'SINN FEIN', 'sinn fe\u0301in'])
        totals.push((await search({ q, limit: 0 })).total);
      assert.deepEqual(totals, [42, 42, 42, 42]);
    });

    test('a field query folds too', async () => {
      const result = await search({ q: { 'Party Id': 'fianna fail' }, limit: 0 });
      assert.equal(result.total, 84);
      const counts = await search(
        {
          q: { 'Candidate surname': 'o riordain' },
          fields: 'Candidate surname,Count Number',
          sort: 'Count Number',
          limit: 2,
        },
        RESOURCE_C,
      );
      assert.deepEqual(
        counts.records.map((r: any) => [r['Candidate surname'], r['Count Number']]),
        [
          ["Ó'Ríordáin", 1],
          ["Ó'Ríordáin", 2],
        ],
      );
    });

    test('prefixes in tsquery syntax fold', async () => {
      const result = await search({ q: 'Ríord:*', plain: 'false', fields: 'Surname', limit: 5 });
      assert.deepEqual(
        result.records.map((r: any) => r.Surname),
        ["Ó'Ríordáin"],
      );
    });

    test('text without diacritics matches and ranks as in CKAN', async () => {
      // CKAN's own answer (the contract example q-word): 139 records, the first five ranked 0.057308756.
      const result = await search({ q: 'Dublin', limit: 5 });
      assert.equal(result.total, 139);
      assert.deepEqual(
        result.records.map((r: any) => [r.Surname, r.rank]),
        [
          ['Bruton', 0.057308756],
          ['Burke', 0.057308756],
          ['Creaven', 0.057308756],
          ['Garrigan', 0.057308756],
          ['Gilroy', 0.057308756],
        ],
      );
    });
  });
