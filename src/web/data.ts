// How pages get their data: from the API's own search (datastore_search's reading, validation, plan, resident tables
// and store, the same functions its action runs), handed over as values, never SQL or storage; and what a failure
// tells the reader, in the API's own terms.

import { searchRecordValues } from '../actions/datastore-search.js';
import type { Services } from '../actions/types.js';
import { countFieldValues, type ValueCounts } from '../actions/value-counts.js';
import { toApiError } from '../errors.js';
import type { MemoKey } from '../util/version-memos.js';

export const SEARCH_PATH = '/api/3/action/datastore_search';

export interface FieldMeta {
  id: string;
  type: string;
}

export interface SearchResult {
  records: Record<string, unknown>[];
  fields: FieldMeta[];
  total: number | null;
  limit: number;
  offset: number;
}

/** A failure a page shows to its reader: its HTTP status and what to say. */
export class PageFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail: Record<string, unknown> | null = null,
  ) {
    super(message);
  }
}

/**
 * What an action or the store raised, as the reader is told it: the API's mapping of domain errors (the same status
 * and words as the API's answer), or null for a failure nobody expected (logged, and shown as a 500).
 */
export function pageFailureOf(err: unknown): PageFailure | null {
  if (err instanceof PageFailure) return err;
  let unexpected = false;
  const answer = toApiError(err, () => {
    unexpected = true;
  });
  return unexpected ? null : new PageFailure(answer.status, answer.message, answer.validation);
}

/** One version of the data as pages read it: searches through the API's functions, and memos kept with the version. */
export class ActionClient {
  constructor(private readonly services: Services) {}

  get settings() {
    return this.services.settings;
  }

  get catalog() {
    return this.services.catalog;
  }

  get datasetVersion(): string {
    return this.services.backend.datasetVersion;
  }

  /** What is worked out once per version of the data, kept with its services (a reload's version starts afresh). */
  memo<T>(key: MemoKey<T>, make: () => T): T {
    return this.services.memos.get(key, make);
  }

  /**
   * What `start` promises, kept under `name` in the memo `key` for this version: started the first time it is asked
   * for. A failure (the store briefly unreachable) is not remembered, so the next page asks again.
   */
  memoPromise<T>(key: MemoKey<Map<string, Promise<T>>>, name: string, start: () => Promise<T>): Promise<T> {
    const kept = this.memo(key, () => new Map<string, Promise<T>>());
    let promise = kept.get(name);
    if (!promise) {
      promise = start();
      kept.set(name, promise);
      promise.catch(() => kept.delete(name));
    }
    return promise;
  }

  /** datastore_search with the given parameters, as decoded from a query string (strings, JSON text) or as values. */
  search(params: Record<string, unknown>): Promise<SearchResult> {
    return searchRecordValues(params, this.services);
  }

  /** Every record a search selects, fetched a page of the largest size at a time. */
  async searchAll(params: Record<string, unknown>): Promise<SearchResult> {
    const pageSize = this.settings.rowsMax;
    const first = await this.search({ ...params, limit: pageSize, offset: 0 });
    const records = [...first.records];
    while (first.total !== null && records.length < first.total) {
      const next = await this.search({ ...params, limit: pageSize, offset: records.length });
      if (next.records.length === 0) break;
      records.push(...next.records);
    }
    return { ...first, records };
  }

  /** How many records of the view `params` selects hold each value of `field`, the most frequent `limit` of them. */
  valueCounts(params: Record<string, unknown>, field: string, limit: number): Promise<ValueCounts> {
    return countFieldValues(params, field, limit, this.services);
  }
}
