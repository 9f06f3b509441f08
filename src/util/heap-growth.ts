// How far V8 lets a process's heap grow between full collections. Loading allocates fast and keeps little (a load's
// live heap stays under about 100 MB), and V8 reads a fast allocator as one to give room: it let the heap reach four
// times what was live, which made a load's peak resident memory grow with the file (670 MB publishing an 878,000-row
// TSV). A factor of 1.5 kept that load at 475 MB, for about 5 % more CPU time in collections.

import v8 from 'node:v8';

const HEAP_GROWING_PERCENT = 50;
/** V8's own value: no factor set, so the heap is sized by its heuristics. */
const V8_DEFAULT = 0;

let loadsUnderLimit = 0;

/** Sets the factor for the whole process, worker threads included; V8 reads it each time it sizes the heap. */
export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * Runs a load in a process that goes on serving (the server's start-up load, a mirror refresh) under the same factor,
 * then gives the heap back to V8's heuristics once no such load is running: serving allocates little and keeps it.
 */
export async function withLimitedHeapGrowth<T>(load: () => Promise<T>): Promise<T> {
  if (loadsUnderLimit++ === 0) limitHeapGrowth();
  try {
    return await load();
  } finally {
    if (--loadsUnderLimit === 0) v8.setFlagsFromString(`--heap-growing-percent=${V8_DEFAULT}`);
  }
}
