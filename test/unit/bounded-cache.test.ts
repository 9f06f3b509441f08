// The bounded cache behind prepared statements, parsed queries, counts and the explorer's memos: least recently used
// out first, `has` not counting as a use, and exactly its capacity kept however many entries came and went.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoundedCache } from '../../src/util/bounded-cache.js';

describe('bounded cache', () => {
  test('keeps its capacity, forgetting the least recently used first; a hit counts as a use', () => {
    const cache = new BoundedCache<string, number>(3);
    let made = 0;
    const get = (key: string) => cache.getOrCreate(key, () => ++made);
    assert.deepEqual(['a', 'b', 'c'].map(get), [1, 2, 3]);
    assert.equal(get('a'), 1, 'a hit is not made again');
    get('d');
    assert.deepEqual(
      ['a', 'b', 'c', 'd'].map((key) => cache.has(key)),
      [true, false, true, true],
    );
    assert.equal(cache.size, 3);
    assert.equal(made, 4);
  });

  test('has does not count as a use; delete forgets', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.getOrCreate('a', () => 1);
    cache.getOrCreate('b', () => 2);
    assert.ok(cache.has('a'));
    cache.getOrCreate('c', () => 3);
    assert.equal(cache.has('a'), false, 'a was the least recently used, has() notwithstanding');
    cache.delete('b');
    assert.equal(cache.has('b'), false);
    assert.equal(cache.size, 1);
    assert.equal(
      cache.getOrCreate('b', () => 4),
      4,
      'made again after being forgotten',
    );
  });

  test('get and set: a value made elsewhere is kept, a get counts as a use, clear forgets everything', () => {
    const cache = new BoundedCache<string, string>(2);
    assert.equal(cache.get('a'), undefined);
    cache.set('a', 'made asynchronously');
    cache.set('b', 'second');
    assert.equal(cache.get('a'), 'made asynchronously', 'a is now the most recently used');
    cache.set('c', 'third');
    assert.deepEqual(
      ['a', 'b', 'c'].map((key) => cache.get(key)),
      ['made asynchronously', undefined, 'third'],
    );
    cache.clear();
    assert.equal(cache.size, 0);
    assert.deepEqual(
      ['a', 'c'].map((key) => cache.has(key)),
      [false, false],
    );
  });

  test('a creation that throws keeps nothing', () => {
    const cache = new BoundedCache<string, number>(2);
    assert.throws(
      () =>
        cache.getOrCreate('a', () => {
          throw new Error('cannot prepare');
        }),
      /cannot prepare/,
    );
    assert.equal(cache.has('a'), false);
  });

  test('a long stream of new keys leaves exactly the most recent ones', () => {
    const capacity = 10_000;
    const cache = new BoundedCache<string, number>(capacity);
    for (let i = 0; i < 50_000; i++) cache.getOrCreate(`key ${i}`, () => i);
    assert.equal(cache.size, capacity);
    assert.ok(cache.has('key 49999') && cache.has(`key ${50_000 - capacity}`));
    assert.equal(cache.has(`key ${50_000 - capacity - 1}`), false);
  });
});
