// The count memo: one run per query and dataset version, shared by concurrent callers, failures not remembered.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CountMemo } from '../../src/storage/count-memo.js';

const query = { sql: 'SELECT count(*) FROM "r" WHERE "Party" = ?', params: ['S.F.'] };

test('a count runs once per query and dataset version; concurrent callers share the run', async () => {
  const memo = new CountMemo();
  let runs = 0;
  const run = async () => {
    runs += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return 42;
  };
  assert.deepEqual(await Promise.all([memo.count('v1', query, run), memo.count('v1', query, run)]), [42, 42]);
  assert.equal(await memo.count('v1', query, run), 42);
  assert.equal(runs, 1);
  assert.equal(
    await memo.count('v1', { ...query, params: ['F.F.'] }, async () => 7),
    7,
    'other parameters, another count',
  );
  assert.equal(await memo.count('v2', query, async () => 43), 43, 'a reload is a new dataset version: counted again');
});

test('a failed count is forgotten: the next request counts again', async () => {
  const memo = new CountMemo();
  await assert.rejects(
    memo.count('v1', query, async () => {
      throw new Error('statement timeout');
    }),
    /statement timeout/,
  );
  assert.equal(await memo.count('v1', query, async () => 5), 5);
});
