// The indexes a resource may have, named by their keys: what a store records as built is read back as the same index
// (a patch gives its new segment the indexes its version had by those keys), and each store's DDL builds it in the
// order its name says.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { indexesByKey, sortIndex, sortIndexKey, type IndexSpec } from '../../src/catalog/indexes.js';
import { createIndexesSql } from '../../src/dialect/sqlite/ddl.js';
import { indexConcurrentlySql } from '../../src/dialect/postgres/ddl.js';
import type { ResourceDefinition } from '../../src/catalog/types.js';

const RESOURCE = {
  id: 'r1',
  fields: [
    { id: 'Name', type: 'text', index: true },
    { id: 'Votes', type: 'numeric' },
    { id: 'Odd "name"', type: 'numeric' },
  ],
  indexes: [['Name', 'Votes']],
} as const;
const resource = RESOURCE as unknown as ResourceDefinition;

describe('index specs', () => {
  test('every kind of key reads back as its index: declared, a field’s, a composite, a sort index either way', () => {
    const keys = [
      '"Name"',
      '"Votes"',
      '("Name", "Votes")',
      sortIndexKey('Votes', false),
      sortIndexKey('Votes', true),
      sortIndexKey('Odd "name"', true),
    ];
    const specs = indexesByKey(resource, keys);
    assert.deepEqual(
      specs.map((s) => [s.key, s.name, s.fields, s.descending ?? false]),
      [
        ['"Name"', 'r1__1', ['Name'], false],
        ['"Votes"', 'r1__2', ['Votes'], false],
        ['("Name", "Votes")', 'r1__c1', ['Name', 'Votes'], false],
        ['("Votes", "_id")', 'r1__s2', ['Votes', '_id'], false],
        ['("Votes" DESC, "_id")', 'r1__d2', ['Votes', '_id'], true],
        ['("Odd "name"" DESC, "_id")', 'r1__d3', ['Odd "name"', '_id'], true],
      ],
    );
  });

  test('keys of fields the resource no longer has are left out', () => {
    assert.deepEqual(indexesByKey(resource, ['"Gone"', sortIndexKey('Gone', true), '("Gone", "_id")']), []);
    assert.equal(sortIndex(resource, 'Gone', false), null);
  });

  test('each store builds a sort index in the order of a page sorted by its field, then _id', () => {
    const ascending = sortIndex(resource, 'Votes', false)!;
    const descending = sortIndex(resource, 'Votes', true)!;
    // SQLite: every index entry ends with its row's _id (the rowid), so the field alone is the whole key.
    assert.deepEqual(createIndexesSql({ id: 'r1', fields: [{ id: 'Votes', type: 'int4' }] }, [descending]), [
      'CREATE INDEX IF NOT EXISTS "r1__d2" ON "r1" ("Votes" DESC)',
    ]);
    const build = (spec: IndexSpec) => indexConcurrentlySql('countcentre', 'r1@1', resource, spec).build;
    assert.match(
      build(ascending),
      /^CREATE INDEX CONCURRENTLY IF NOT EXISTS "cc_[0-9a-f]{20}_s2" ON .* \("Votes", "_id"\)/,
    );
    assert.match(
      build(descending),
      /^CREATE INDEX CONCURRENTLY IF NOT EXISTS "cc_[0-9a-f]{20}_d2" ON .* \("Votes" DESC, "_id"\)/,
    );
  });
});
