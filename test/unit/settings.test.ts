// Settings: parsing and defaults, and docs/configuration.md documenting every one of them.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadSettings, PROJECT_ROOT, SETTING_SPECS, SettingsError } from '../../src/settings.js';

describe('settings', () => {
  test('defaults', () => {
    const settings = loadSettings({});
    assert.equal(settings.port, 5000);
    assert.equal(settings.host, '127.0.0.1');
    assert.equal(settings.sources, path.resolve(PROJECT_ROOT, 'data/sources'));
    assert.equal(settings.databasePath, path.resolve(PROJECT_ROOT, 'var/countcentre.sqlite'));
    assert.equal(settings.siteUrl, null);
    assert.equal(settings.locale, 'en');
    assert.deepEqual([settings.rowsDefault, settings.rowsMax], [100, 32000]);
  });

  test('values from the environment are parsed and checked', () => {
    const settings = loadSettings({
      PORT: '8080',
      SITE_URL: 'https://data.example.ie/',
      COUNTCENTRE_SOURCES: 'https://example.org/data',
    });
    assert.equal(settings.port, 8080);
    assert.equal(settings.siteUrl, 'https://data.example.ie');
    assert.equal(settings.sources, 'https://example.org/data');
    assert.throws(() => loadSettings({ PORT: 'eighty' }), SettingsError);
    assert.throws(() => loadSettings({ PORT: '70000' }), SettingsError);
    assert.throws(() => loadSettings({ SITE_URL: 'not a url' }), SettingsError);
    assert.throws(() => loadSettings({ LOG_LEVEL: 'loud' }), SettingsError);
    assert.throws(
      () => loadSettings({ COUNTCENTRE_ROWS_DEFAULT: '50', COUNTCENTRE_ROWS_MAX: '10' }),
      /must not exceed/,
    );
  });

  test('docs/configuration.md documents every setting with its default and description', () => {
    const doc = readFileSync(path.join(PROJECT_ROOT, 'docs', 'configuration.md'), 'utf8');
    for (const spec of Object.values(SETTING_SPECS)) {
      const shownDefault =
        spec.default === null ? '(unset)' : Array.isArray(spec.default) ? '(none)' : `\`${spec.default}\``;
      assert.ok(
        doc.includes(`| \`${spec.env}\` | ${shownDefault} | ${spec.description} |`),
        `${spec.env} is documented as declared`,
      );
    }
  });
});
