// The catalogue file's mistakes are reported where they are: a JSON syntax error by line and column, an invalid
// entry by its path in the document.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CatalogError, loadCatalogFile } from '../../src/catalog/load.js';

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-catalog-file-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const failure = (text: string) => {
  const file = path.join(dir, 'catalog.json');
  writeFileSync(file, text);
  try {
    loadCatalogFile(file);
  } catch (err) {
    assert.ok(err instanceof CatalogError);
    return err.message.replace(file, 'catalog.json');
  }
  return assert.fail('the catalogue was accepted');
};

test('a JSON syntax error names its line and column', () => {
  const message = failure('{\n  "datasets": [\n    {"name": "x",\n     "title" "No colon"}\n  ]\n}\n');
  assert.match(message, /^catalogue catalog\.json, line 4, column 14 is not valid JSON: /);
});

test('a catalogue cut short names where it ends', () => {
  assert.match(failure('{\n  "datasets": [\n'), /^catalogue catalog\.json, line 3, column 1 is not valid JSON: /);
});

test('a wrong value names its path in the document', () => {
  assert.equal(
    failure(
      '{"datasets": [{"name": "xy", "resources": [{"id": "r", "name": "R", "source": {"path": "a.csv"}, "fields": [{"id": "_x", "type": "text"}]}]}]}',
    ),
    'catalogue catalog.json line 1, datasets[0].resources[0].fields[0].id: "_x" must not begin with "_" (reserved for the store\'s own columns)',
  );
});
