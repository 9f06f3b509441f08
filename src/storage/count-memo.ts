// Counts remembered per dataset version: the data only changes with a reload, so a filter's total, once counted,
// holds until then. Paging through a filtered result (page 2, 3, … of the same filters) counts once.

import type { CompiledQuery } from '../dialect/compiled.js';
import { BoundedCache } from '../util/bounded-cache.js';

/** Distinct counts remembered; each is a key of a few hundred bytes and a number. */
const CAPACITY = 10_000;

export class CountMemo {
  private readonly counts = new BoundedCache<string, Promise<number>>(CAPACITY);

  /**
   * The count for `query` on the data of `datasetVersion`, from `run` the first time. Concurrent requests for the
   * same count share one run; a failed run (a timeout, an outage) is forgotten, so the next request tries again.
   */
  count(datasetVersion: string, query: CompiledQuery, run: () => Promise<number>): Promise<number> {
    const key = `${datasetVersion}\u0000${query.sql}\u0000${JSON.stringify(query.params)}`;
    return this.counts.getOrCreate(key, () => {
      const counting = run();
      counting.catch(() => this.counts.delete(key));
      return counting;
    });
  }
}
