// The embedded store's choice between the event loop and a worker for a statement that once outran the loop's budget.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OverrunMemory } from '../../src/storage/sqlite/overrun-memory.js';

/** Where each of `runs` goes, given whether a run on the loop overruns. */
function places(memory: OverrunMemory, sql: string, runs: number, overruns: (run: number) => boolean): string {
  let placed = '';
  for (let run = 0; run < runs; run++) {
    if (memory.tryOnLoop(sql)) {
      placed += overruns(run) ? 'X' : 'L';
      if (overruns(run)) memory.overran(sql);
      else memory.kept(sql);
    } else placed += 'w';
  }
  return placed;
}

test('a statement that overran once goes to a worker twice, then back to the loop for good', () => {
  const memory = new OverrunMemory(10);
  assert.equal(
    places(memory, 'a', 8, (run) => run === 0),
    'XwwLLLLL',
  );
});

test('a statement that keeps overrunning goes to a worker for twice as many runs each time, at most 64', () => {
  const memory = new OverrunMemory(10);
  const placed = places(memory, 'a', 2 + 4 + 8 + 16 + 32 + 64 + 64 + 7, () => true);
  assert.equal(
    placed,
    ['X', 'w'.repeat(2), 'X', 'w'.repeat(4), 'X', 'w'.repeat(8), 'X', 'w'.repeat(16), 'X', 'w'.repeat(32), 'X']
      .concat(['w'.repeat(64), 'X', 'w'.repeat(64), 'X', 'w'.repeat(64)])
      .join('')
      .slice(0, placed.length),
  );
  // Then it keeps to the budget: forgiven at once.
  const fresh = new OverrunMemory(10);
  assert.equal(
    places(fresh, 'b', 10, (run) => run === 0 || run === 3),
    'XwwXwwwwLL',
  );
});

test('statements are remembered apart, and at most `capacity` of them', () => {
  const memory = new OverrunMemory(2);
  memory.overran('a');
  memory.overran('b');
  assert.equal(memory.tryOnLoop('a'), false);
  assert.equal(memory.tryOnLoop('c'), true);
  memory.overran('c');
  // 'c' pushed out the least recently used of the two.
  assert.equal(memory.tryOnLoop('c'), false);
  assert.equal([memory.tryOnLoop('a'), memory.tryOnLoop('b')].filter((onLoop) => onLoop).length, 1);
});
