// Hostile statements (test/fixtures/search-sql/attacks.json): writes, several statements hidden in comments,
// strings and dollar quotes, SQLite's and PostgreSQL's catalogues, dangerous functions, quoting tricks, CTEs that
// shadow names, and statements that are merely expensive. Each is refused with the expected status, CKAN __type
// and message, or runs (an expensive one until the statement deadline stops it). The database file must be
// byte for byte the same afterwards.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_KINDS, toApiError } from '../../src/errors.js';
import { PROJECT_ROOT } from '../../src/settings.js';
import { initSearchSql, prepareSearchSql, type SqlResourceInfo } from '../../src/sql/user-sql/index.js';
import { StatementTimeout } from '../../src/storage/backend.js';
import type { SqliteVersion } from '../../src/storage/sqlite/backend.js';
import { startService, type TestService } from '../helpers/service.js';

type Expect = 'allowed' | 'deadline' | { status: number; type: string; message?: string };

const fixture = JSON.parse(
  fs.readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'search-sql', 'attacks.json'), 'utf8'),
) as {
  attacks: { name: string; sql: string; expect: Expect }[];
};

/** How long an allowed statement may run here: short, so that the expensive ones show the deadline working. */
const DEADLINE_MS = 300;

let service: TestService;
let backend: SqliteVersion;
let lookup: (id: string) => SqlResourceInfo | undefined;
let databaseFile: string;
let hashBefore: string;

function fileHash(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

before(async () => {
  await initSearchSql();
  service = await startService();
  backend = service.prepared.services.backend as SqliteVersion;
  // Like the action, the lookup knows every resource the catalogue serves, _table_metadata included.
  lookup = (id) => {
    const resource = service.prepared.services.catalog.get(id);
    return resource ? { id: resource.id, fields: resource.fields, fullTextLanguage: backend.indexLanguage } : undefined;
  };
  databaseFile = service.settings.databasePath;
  hashBefore = fileHash(databaseFile);
});

after(async () => {
  await service.close();
});

test('the attack corpus has at least 60 statements', () => {
  assert.ok(fixture.attacks.length >= 60, `${fixture.attacks.length} statements`);
});

for (const attack of fixture.attacks) {
  test(`attack: ${attack.name}`, async () => {
    let outcome: Expect;
    try {
      const prepared = prepareSearchSql(attack.sql, lookup, { maxRows: 100 });
      try {
        const rows = (await backend.userSql(prepared.sqlite, DEADLINE_MS)).rows;
        assert.ok(rows.length <= 101);
        outcome = 'allowed';
      } catch (err) {
        if (err instanceof StatementTimeout) outcome = 'deadline';
        else throw err;
      }
    } catch (thrown) {
      const err = toApiError(thrown, () => assert.fail(thrown as Error));
      const query = (err.validation?.['query'] as string[] | undefined)?.[0];
      outcome = { status: err.status, type: ERROR_KINDS[err.kind].type ?? '', message: query ?? err.message };
    }
    const expected = attack.expect;
    if (typeof expected === 'string' || typeof outcome === 'string') {
      assert.deepEqual(outcome, expected, attack.sql);
    } else {
      assert.equal(outcome.status, expected.status, `${attack.sql}\n→ ${outcome.message}`);
      assert.equal(outcome.type, expected.type, attack.sql);
      if (expected.message !== undefined) assert.equal(outcome.message, expected.message, attack.sql);
    }
  });
}

test('the database file is unchanged by every attack', () => {
  assert.equal(fileHash(databaseFile), hashBefore);
  for (const suffix of ['-wal', '-journal', '-shm']) {
    const side = databaseFile + suffix;
    if (fs.existsSync(side)) assert.equal(fs.statSync(side).size, 0, `${side} holds no writes`);
  }
});
