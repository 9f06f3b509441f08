// The pass-through's decisions, without a network: which URL a request reaches on the portal (or why none), which
// headers go on, what a write touched, what may be kept and under which key, which requests the copy answers, and
// the package_search filter of a whole portal's scope.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frontRoute } from '../../src/http/pass-through.js';
import { underBasePath } from '../../src/web/index.js';
import { parseCatalog } from '../../src/catalog/load.js';
import { loadSettings, SettingsError } from '../../src/settings.js';
import { scopeQuery } from '../../src/portal/discover.js';
import { PassThroughCache } from '../../src/portal/pass-through-cache.js';
import { actionOf, endToEnd, isWriteAction, touchedBy, upstreamUrl } from '../../src/portal/pass-through.js';
import { PassThroughRefused } from '../../src/domain-errors.js';

const portal = new URL('https://data.example.ie/portal/');

test('a request reaches the same path and query under the portal, and nowhere else', () => {
  assert.equal(
    upstreamUrl(portal, '/api/3/action/package_search?q=a%20b&fq=x:y').href,
    'https://data.example.ie/portal/api/3/action/package_search?q=a%20b&fq=x:y',
  );
  assert.equal(upstreamUrl(portal, '/dataset/a%2Fb').href, 'https://data.example.ie/portal/dataset/a%2Fb');
  for (const target of [
    'http://evil.example/x',
    '//evil.example/x',
    'evil.example',
    '*',
    '/..',
    '/a/../../b',
    '/a/./b',
    '/%2e%2e/x',
    '/%2E%2E%2Fx',
    '/%252e%252e/x',
    '/%25252e%25252e/x',
    '/%2F%2Fevil.example',
    '/a\\..\\b',
    '/a%5Cb',
    '/a%00b',
    '/a\u0000b',
    '/a?b=c d',
  ]) {
    assert.throws(
      () => upstreamUrl(portal, target),
      (err: unknown) => err instanceof PassThroughRefused && err.reason === 'path',
      target,
    );
  }
});

test('hop-by-hop headers, those Connection names, and Host are not passed on', () => {
  assert.deepEqual(
    endToEnd({
      host: 'countcentre.example',
      connection: 'keep-alive, X-Secret',
      'x-secret': '1',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      te: 'trailers',
      trailer: 'x',
      upgrade: 'h2c',
      'proxy-authorization': 'Basic x',
      'proxy-authenticate': 'Basic',
      expect: '100-continue',
      authorization: 'token',
      accept: 'application/json',
    }),
    { authorization: 'token', accept: 'application/json' },
  );
});

test('the write actions, and what each touched', () => {
  assert.equal(actionOf('/api/3/action/datastore_upsert'), 'datastore_upsert');
  assert.equal(actionOf('/en/api/action/package_patch'), 'package_patch');
  assert.equal(actionOf('/dataset/x'), null);
  for (const name of ['datastore_upsert', 'datastore_delete', 'datastore_create', 'resource_patch', 'package_update'])
    assert.ok(isWriteAction(name), name);
  for (const name of ['datastore_search', 'package_show', 'resource_view_list', null]) assert.ok(!isWriteAction(name));
  const body = (value: unknown) => Buffer.from(JSON.stringify(value));
  assert.deepEqual(touchedBy('datastore_upsert', body({ resource_id: 'r1', records: [] }), body({ result: {} })), {
    action: 'datastore_upsert',
    resourceIds: ['r1'],
    datasetIds: [],
  });
  assert.deepEqual(
    touchedBy(
      'datastore_create',
      body({ resource: { package_id: 'p1' }, fields: [] }),
      body({ result: { resource_id: 'r2' } }),
    ),
    { action: 'datastore_create', resourceIds: ['r2'], datasetIds: ['p1'] },
  );
  assert.deepEqual(touchedBy('resource_delete', Buffer.from('id=r3'), body({ result: null })), {
    action: 'resource_delete',
    resourceIds: ['r3'],
    datasetIds: [],
  });
  assert.deepEqual(touchedBy('package_patch', body({ id: 'ds', private: true }), body({ result: { id: 'p9' } })), {
    action: 'package_patch',
    resourceIds: [],
    datasetIds: ['ds', 'p9'],
  });
  assert.deepEqual(touchedBy('package_delete', Buffer.from('not json, not a form\u0000'), null).resourceIds, []);
});

test('only anonymous GETs are looked up; only shareable 200s are kept, and without a cookie', () => {
  const cache = new PassThroughCache(1024 * 1024, 60_000, () => 1000);
  assert.equal(cache.keyOf('GET', '/a', { 'accept-encoding': 'gzip, br' }), 'gzip /a');
  assert.equal(cache.keyOf('HEAD', '/a', {}), 'identity /a');
  assert.equal(cache.keyOf('POST', '/a', {}), null);
  assert.equal(cache.keyOf('GET', '/a', { authorization: 't' }), null);
  assert.equal(cache.keyOf('GET', '/a', { 'x-ckan-api-key': 't' }), null);
  assert.equal(cache.keyOf('GET', '/a', { cookie: 'c=1' }), null);
  assert.equal(cache.keyOf('GET', '/a', { range: 'bytes=0-1' }), null);
  assert.ok(cache.keepable(200, {}));
  assert.ok(cache.keepable(200, { 'cache-control': 'public, max-age=0, must-revalidate', 'set-cookie': 'c=1' }));
  assert.ok(!cache.keepable(200, { 'set-cookie': 'c=1' }));
  assert.ok(!cache.keepable(200, { 'cache-control': 'private' }));
  assert.ok(!cache.keepable(200, { 'cache-control': 'public, no-store' }));
  assert.ok(!cache.keepable(200, { vary: 'Cookie' }));
  assert.ok(cache.keepable(200, { vary: 'Accept-Encoding, Origin' }));
  assert.ok(!cache.keepable(404, {}));
  cache.keep('k', 200, { 'set-cookie': 'c=1', 'content-type': 'text/plain', vary: 'Origin' }, Buffer.from('x'), {
    origin: 'https://a.example',
  });
  const found = cache.lookup('k', { origin: 'https://a.example' });
  assert.deepEqual(found?.entry.headers, { 'content-type': 'text/plain', vary: 'Origin' });
  assert.equal(found?.fresh, true);
  assert.equal(cache.lookup('k', { origin: 'https://b.example' }), null, 'another origin is another answer');
  const tiny = new PassThroughCache(16 * 10, 60_000);
  tiny.keep('big', 200, {}, Buffer.alloc(11), {});
  assert.equal(tiny.lookup('big', {}), null, 'larger than a sixteenth of the memory');
});

test('in front of a portal the copy answers the DataStore reads, the explorer its base path, the portal the rest', () => {
  const cases: [string, string][] = [
    ['/api/3/action/datastore_search', 'api'],
    ['/api/action/datastore_search_sql', 'api'],
    ['/en/api/3/action/datastore_info', 'api'],
    ['/datastore/dump/abc', 'api'],
    ['/api/3', 'api'],
    ['/healthz', 'api'],
    ['/metrics', 'api'],
    ['/api/3/action/package_search', 'portal'],
    ['/api/3/action/datastore_upsert', 'portal'],
    ['/api/3/action/help_show', 'portal'],
    ['/', 'portal'],
    ['/dataset/x', 'portal'],
    ['/uploads/group/x.png', 'portal'],
    ['/explore/', 'pages'],
    ['/explore', 'pages'],
    ['/explore/resource/x', 'pages'],
    ['/explorer', 'portal'],
  ];
  for (const [path, where] of cases) assert.equal(frontRoute(path, '/explore/'), where, path);
});

test("a whole portal's scope as package_search's filter", () => {
  assert.equal(scopeQuery({ organizations: [], excludeOrganizations: [] }), '');
  assert.equal(
    scopeQuery({ organizations: ['a', 'b "c"'], excludeOrganizations: ['d'] }, '2026-12-05T10:00:00Z'),
    'organization:("a" OR "b \\"c\\"") -organization:"d" metadata_modified:[2026-12-05T10:00:00Z TO *]',
  );
});

test("the explorer's links under its base path; the API's, other sites' and fragments as they are", () => {
  const page =
    '<a href="/">Home</a><a href="/resource/x?q=1">R</a><link href="/static/e.1.css"><script src="/static/e.1.js">' +
    '<form action="/search"><a href="/api/3/action/datastore_search?resource_id=x">API</a>' +
    '<a href="/en/api/3/action/help_show">help</a><a href="/datastore/dump/x">CSV</a>' +
    '<a href="//cdn.example/x">cdn</a><a href="https://other.example/">o</a><a href="#top">top</a>';
  assert.equal(underBasePath(page, '/'), page);
  assert.equal(
    underBasePath(page, '/explore/'),
    '<a href="/explore/">Home</a><a href="/explore/resource/x?q=1">R</a><link href="/explore/static/e.1.css">' +
      '<script src="/explore/static/e.1.js"><form action="/explore/search">' +
      '<a href="/api/3/action/datastore_search?resource_id=x">API</a><a href="/en/api/3/action/help_show">help</a>' +
      '<a href="/datastore/dump/x">CSV</a><a href="//cdn.example/x">cdn</a><a href="https://other.example/">o</a>' +
      '<a href="#top">top</a>',
  );
});

test('settings and a catalogue that name a portal wrongly are refused, saying where', () => {
  assert.throws(() => loadSettings({ COUNTCENTRE_EXPLORER_PATH: 'explore' }), SettingsError);
  assert.throws(() => loadSettings({ COUNTCENTRE_EXPLORER_PATH: '/../' }), SettingsError);
  assert.throws(() => loadSettings({ COUNTCENTRE_PORTAL_URL: 'not a url' }), SettingsError);
  assert.throws(() => loadSettings({ COUNTCENTRE_PORTAL_TIMEOUT_SECONDS: '0' }), SettingsError);
  assert.equal(loadSettings({ COUNTCENTRE_EXPLORER_PATH: '/data/explore/' }).explorerPath, '/data/explore/');
  const catalog = (portal: unknown) => parseCatalog({ portal, datasets: [] }, { name: 'catalog.json' });
  assert.deepEqual(catalog({ url: 'https://data.example.ie/', max_rows: 10 }).portal, {
    url: 'https://data.example.ie/',
    organizations: [],
    excludeOrganizations: [],
    maxRows: 10,
    tokenEnv: null,
  });
  for (const [portal, problem] of [
    [{ url: 5 }, /portal\.url: must be a non-empty string/],
    [{ url: 'ftp://x/' }, /portal\.url: must be an http/],
    [{ url: 'https://x/', organizations: 'a' }, /portal\.organizations: must be a list/],
    [{ url: 'https://x/', max_rows: -1 }, /portal\.max_rows: must be a whole number/],
    [{ url: 'https://x/', cache: true }, /portal\.cache: is not a known key/],
    ['https://x/', /portal: must be an object/],
  ] as const)
    assert.throws(() => catalog(portal), problem);
  assert.throws(() => parseCatalog({ datasets: [] }), /datasets: must be a non-empty list/, 'without a portal');
});
