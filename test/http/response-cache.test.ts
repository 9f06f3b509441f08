// The response cache and the fast path that answers repeated GETs from it: an answer from memory is the same answer
// (status, headers, bytes), whatever the encoding, and the cache never mixes up hosts, bodies or data versions.

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { negotiateEncoding } from '../../src/http/compression.js';
import { cacheKey, ResponseCache } from '../../src/http/response-cache.js';
import { RESOURCE_A, RESOURCE_B, startService, TEST_BACKENDS, type TestService } from '../helpers/service.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Headers that must agree between two answers to the same request (the date and connection ones are per message, and
 * Server-Timing says how this answer was made: computed, or from memory).
 */
function stable(headers: Raw['headers']): Record<string, unknown> {
  const {
    date: _date,
    connection: _connection,
    'keep-alive': _keepAlive,
    'transfer-encoding': _te,
    'content-length': _length,
    'server-timing': _timing,
    ...rest
  } = headers;
  return rest;
}

describe('ResponseCache and encoding negotiation', () => {
  test('bounded by bytes, least recently used first out; large answers are not kept', () => {
    const cache = new ResponseCache(300, 150);
    const entry = (key: string, n: number) => ({
      status: 200,
      contentType: 't',
      tag: `W/"${key}"`,
      body: Buffer.alloc(n),
    });
    // Each answer is offered twice: the first time it is only noted.
    const keep = (key: string, n: number) => {
      cache.set(key, entry(key, n));
      cache.set(key, entry(key, n));
    };
    keep('a', 100);
    keep('b', 100);
    cache.get('a');
    keep('c', 100);
    assert.ok(cache.get('a') && cache.get('c'));
    assert.equal(cache.get('b'), undefined, 'the least recently used went first');
    keep('big', 200);
    assert.equal(cache.get('big'), undefined);
    assert.ok(cache.size.bytes <= 300);
    assert.equal(new ResponseCache(0).enabled, false);
  });

  test('an answer is kept the second time it is made; answers made once take no room', () => {
    const cache = new ResponseCache(10_000, 5_000, 3);
    const entry = (key: string) => ({ status: 200, contentType: 't', tag: `W/"${key}"`, body: 'x'.repeat(100) });
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, entry(key));
    assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
    cache.set('d', entry('d'));
    assert.ok(cache.get('d'), 'made twice: kept');
    cache.set('a', entry('a'));
    assert.equal(
      cache.get('a'),
      undefined,
      'a was forgotten among the answers made once (3 remembered): noted again, not kept',
    );
  });

  test('through thousands of evictions, an answer asked for between them stays, and the newest are kept', () => {
    const cache = new ResponseCache(1_000, 200);
    const entry = (key: string) => ({
      status: 200,
      contentType: 't',
      tag: `W/"${key}"`,
      body: Buffer.alloc(100 - key.length),
    });
    const keep = (key: string) => {
      cache.set(key, entry(key));
      cache.set(key, entry(key));
    };
    keep('hot');
    for (let i = 0; i < 3_000; i++) {
      keep(`k${i}`);
      assert.ok(cache.get('hot'), `still kept after ${i + 1} more`);
    }
    assert.deepEqual(cache.size, { entries: 10, bytes: 1_000 });
    for (let i = 2_991; i < 3_000; i++) assert.ok(cache.get(`k${i}`), `k${i}, among the newest`);
    assert.equal(cache.get('k2990'), undefined);
  });

  test('answers made once are forgotten oldest first, each by its own place in the list', () => {
    const cache = new ResponseCache(10_000, 5_000, 3);
    const entry = (tag: string) => ({ status: 200, contentType: 't', tag, body: 'x'.repeat(100) });
    cache.set('k1', entry('T'));
    cache.set('k1', entry('T'));
    assert.ok(cache.get('k1'), 'made twice: kept');
    // The same answer made under another key (another host, say) is noted again, in a later place...
    cache.set('k2', entry('T'));
    cache.set('x', entry('X'));
    // ...so it outlives its first place, which this one takes.
    cache.set('y', entry('Y'));
    cache.set('k2', entry('T'));
    assert.ok(cache.get('k2'), 'noted in its second place, still remembered when the first was taken');
    for (const key of ['p', 'q', 'r']) cache.set(key, entry(key));
    cache.set('x', entry('X'));
    assert.equal(cache.get('x'), undefined, 'after three newer ones, X was forgotten');
    assert.equal(cache.size.entries, 2);
  });

  test('keys: version, method (HEAD is GET), URL, host, body', () => {
    assert.equal(cacheKey('v1', 'HEAD', '/x', null), cacheKey('v1', 'GET', '/x', null));
    assert.notEqual(cacheKey('v1', 'GET', '/x', null), cacheKey('v2', 'GET', '/x', null));
    assert.notEqual(cacheKey('v1', 'GET', '/x', 'http://a'), cacheKey('v1', 'GET', '/x', 'http://b'));
    assert.notEqual(cacheKey('v1', 'POST', '/x', null, '{"a":1}'), cacheKey('v1', 'POST', '/x', null, '{"a":2}'));
  });

  test('Accept-Encoding: brotli, then gzip, by weight, honouring q=0 and *', () => {
    assert.equal(negotiateEncoding(undefined), 'identity');
    assert.equal(negotiateEncoding('gzip, deflate, br'), 'br');
    assert.equal(negotiateEncoding('gzip'), 'gzip');
    assert.equal(negotiateEncoding('br;q=0, gzip;q=0.5'), 'gzip');
    assert.equal(negotiateEncoding('deflate'), 'identity');
    assert.equal(negotiateEncoding('*'), 'br');
    assert.equal(negotiateEncoding('*;q=0.5, br;q=0'), 'gzip');
    assert.equal(negotiateEncoding('gzip;q=0, identity'), 'identity');
    assert.equal(
      negotiateEncoding('identity;q=0, deflate'),
      'identity',
      'nothing acceptable is compressed: sent as it is',
    );
  });
});

for (const backend of TEST_BACKENDS)
  describe(`repeated requests [${backend}]`, () => {
    let service: TestService;
    let port: number;
    before(async () => {
      service = await startService({}, backend);
      port = service.port;
    });
    after(() => service.close());

    const SEARCH = `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&limit=20`;

    test('an answer from memory is the same answer: status, headers, bytes', async () => {
      const first = await get(port, SEARCH);
      const second = await get(port, SEARCH);
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.deepEqual(stable(second.headers), stable(first.headers));
      assert.ok(second.body.equals(first.body));
      assert.equal(second.headers['content-length'], String(second.body.length));
      assert.equal(second.headers.vary, 'accept-encoding');
    });

    // Bytes fewer than the Content-Length promises would leave the client waiting: the time limit makes that a failure.
    test(
      'a computed answer is sent as UTF-8 whatever its text: all ASCII, accented, or beyond Latin-1',
      { timeout: 15_000 },
      async () => {
        const cases = [
          { path: `/api/3/action/datastore_search?resource_id=${RESOURCE_B}&limit=0`, holds: null },
          {
            path: `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&q=Fianna&limit=3&fields=Party Id`,
            holds: 'Fianna Fáil',
          },
          {
            path: `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&q=MURNANE&fields=Surname`,
            holds: 'MURNANE O’CONNOR',
          },
        ];
        for (const { path, holds } of cases) {
          // Asked once: the answer as made, not one from memory.
          const answer = await get(port, encodeURI(path));
          assert.match(String(answer.headers['server-timing']), /serialise;dur=/, path);
          assert.equal(answer.status, 200, path);
          assert.equal(answer.headers['content-length'], String(answer.body.length), path);
          const text = answer.body.toString('utf8');
          assert.ok(Buffer.from(text, 'utf8').equals(answer.body), `${path}: valid UTF-8`);
          const ascii = answer.body.every((byte) => byte < 0x80);
          if (holds === null) assert.ok(ascii, `${path}: expected an all-ASCII answer`);
          else {
            assert.equal(ascii, false, path);
            assert.ok(text.includes(JSON.stringify(holds).slice(1, -1)), `${path}: ${holds}`);
          }
        }
      },
    );

    test('compressed forms of a remembered answer decode to the same bytes', async () => {
      const plain = await get(port, SEARCH);
      for (const [encoding, decode] of [
        ['br', brotliDecompressSync],
        ['gzip', gunzipSync],
      ] as const) {
        for (let i = 0; i < 2; i++) {
          const compressed = await get(port, SEARCH, { 'accept-encoding': encoding });
          assert.equal(compressed.headers['content-encoding'], encoding);
          assert.ok(decode(compressed.body).equals(plain.body), `${encoding} #${i + 1}`);
          assert.equal(compressed.headers.etag, plain.headers.etag);
        }
      }
    });

    test('If-None-Match and HEAD on a remembered answer', async () => {
      const first = await get(port, SEARCH);
      const notModified = await get(port, SEARCH, { 'if-none-match': String(first.headers.etag) });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.body.length, 0);
      assert.equal(notModified.headers.etag, first.headers.etag);
      const head = await get(port, SEARCH, {}, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0);
      assert.equal(head.headers['content-length'], String(first.body.length));
    });

    test('POSTs are remembered by their body', async () => {
      const post = (body: object) =>
        get(
          port,
          '/api/3/action/datastore_search',
          { 'content-type': 'application/json' },
          'POST',
          JSON.stringify(body),
        );
      const a1 = await post({ resource_id: RESOURCE_B, limit: 1 });
      const a2 = await post({ resource_id: RESOURCE_B, limit: 1 });
      const b = await post({ resource_id: RESOURCE_B, limit: 2 });
      assert.ok(a1.body.equals(a2.body));
      assert.equal(JSON.parse(b.body.toString()).result.records.length, 2);
    });

    test('answers built from the Host header are kept per host', async () => {
      const url = `/api/3/action/datastore_search?resource_id=${RESOURCE_B}&limit=0`;
      const one = JSON.parse((await get(port, url, { host: 'one.example' })).body.toString());
      const two = JSON.parse((await get(port, url, { host: 'two.example' })).body.toString());
      assert.match(one.help, /^http:\/\/one\.example\//);
      assert.match(two.help, /^http:\/\/two\.example\//);
    });

    test('errors and dumps are not remembered, and stay correct', async () => {
      const bad = `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&sort=Nope`;
      for (let i = 0; i < 2; i++) assert.equal((await get(port, bad)).status, 409);
      const dump = `/datastore/dump/${RESOURCE_B}`;
      const d1 = await get(port, dump);
      const d2 = await get(port, dump);
      assert.ok(d1.body.equals(d2.body));
    });
  });

describe('with the response cache turned off', () => {
  test('answers are the same, computed every time', async () => {
    const service = await startService({ responseCacheMb: 0 });
    try {
      const port = service.port;
      const url = `/api/3/action/datastore_search?resource_id=${RESOURCE_B}&limit=3`;
      const [a, b] = [await get(port, url), await get(port, url)];
      assert.ok(a.body.equals(b.body));
      assert.equal(b.headers.etag, a.headers.etag);
    } finally {
      await service.close();
    }
  });
});
