// Which command lines start again with a larger young generation: loads into PostgreSQL only, once.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { semiSpaceMb, wantsLargerYoungGeneration } from '../../src/cli/young-generation.js';

const pg = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };

test('add, load and mirror into PostgreSQL start again with a larger young generation', () => {
  for (const command of ['add', 'load', 'mirror'])
    assert.equal(wantsLargerYoungGeneration([command, 'file.csv'], pg, []), true, command);
});

test('the embedded store, other commands, help, and a process already given a semi-space size do not', () => {
  assert.equal(wantsLargerYoungGeneration(['add', 'file.csv'], {}, []), false);
  assert.equal(wantsLargerYoungGeneration(['add', 'file.csv'], { DATABASE_URL: '' }, []), false);
  assert.equal(wantsLargerYoungGeneration(['serve'], pg, []), false);
  assert.equal(wantsLargerYoungGeneration([], pg, []), false);
  assert.equal(wantsLargerYoungGeneration(['--version'], pg, []), false);
  assert.equal(wantsLargerYoungGeneration(['add', '--help'], pg, []), false);
  assert.equal(wantsLargerYoungGeneration(['load', '-h'], pg, []), false);
  assert.equal(wantsLargerYoungGeneration(['load'], pg, ['--max-semi-space-size=64']), false);
});

test('32 MB semi-spaces where the helper thread shares the lines (the default), 64 MB for the reading thread alone', () => {
  assert.equal(semiSpaceMb({}), 32);
  assert.equal(semiSpaceMb({ COUNTCENTRE_PG_LOAD_HELPER_ROWS: '50000' }), 32);
  assert.equal(semiSpaceMb({ COUNTCENTRE_PG_LOAD_HELPER_ROWS: '0' }), 64);
  assert.equal(semiSpaceMb({ COUNTCENTRE_PG_LOAD_HELPER_ROWS: ' 0 ' }), 64);
  // Read as the setting reads it: "00" is 0, an empty value the default, and a refused one left to the load.
  assert.equal(semiSpaceMb({ COUNTCENTRE_PG_LOAD_HELPER_ROWS: '00' }), 64);
  assert.equal(semiSpaceMb({ COUNTCENTRE_PG_LOAD_HELPER_ROWS: '' }), 32);
  assert.equal(semiSpaceMb({ COUNTCENTRE_PG_LOAD_HELPER_ROWS: 'many' }), 32);
});

test('the started-again command answers with its own output and exit code', () => {
  const cli = fileURLToPath(new URL('../../src/cli/count-centre.js', import.meta.url));
  const result = spawnSync(process.execPath, [cli, 'add', 'no-such-file.csv'], {
    env: { ...process.env, ...pg },
    encoding: 'utf8',
  });
  assert.equal(result.status, 3);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr, 'count-centre: no-such-file.csv: file not found\n');
});
