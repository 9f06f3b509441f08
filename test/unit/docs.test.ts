// docs/api.md documents every action the API serves and every datastore_search parameter.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createActions } from '../../src/actions/registry.js';
import { searchParamSpecs } from '../../src/query/search-params.js';
import { loadSettings, PROJECT_ROOT } from '../../src/settings.js';

const api = readFileSync(path.join(PROJECT_ROOT, 'docs', 'api.md'), 'utf8');

test('every action has a section in docs/api.md', () => {
  const headings = api.split('\n').filter((line) => line.startsWith('## '));
  for (const name of createActions(loadSettings({})).keys()) {
    assert.ok(
      headings.some((h) => new RegExp(`\\b${name}\\b`).test(h)),
      name,
    );
  }
});

test('every datastore_search parameter is in its table, and the help text documents it', () => {
  const settings = loadSettings({});
  const help = createActions(settings).get('datastore_search')!.help;
  for (const spec of searchParamSpecs(settings)) {
    assert.match(api, new RegExp(`\\| \`${spec.name}\``), spec.name);
    assert.ok(help.includes(`:param ${spec.name}:`), `help_show documents ${spec.name}`);
  }
});
