// How pages get their data: by running the API's own actions (the same validation, plans, caches and answers as
// /api/3/action/…), never SQL or storage. Results come back as plain values; failures keep their kind.

import type { Action, Services } from '../actions/types.js';
import { StatementTimeout, StoreBusy, StoreUnavailable } from '../domain-errors.js';
import { ApiError } from '../errors.js';
import { RawJson } from '../serialize/python-json.js';

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
  constructor(readonly status: number, message: string, readonly detail: Record<string, unknown> | null = null) {
    super(message);
  }
}

/** Turns what an action or the store raised into what a reader is told; null for a failure nobody expected. */
export function pageFailureOf(err: unknown): PageFailure | null {
  if (err instanceof PageFailure) return err;
  if (err instanceof ApiError) return new PageFailure(err.status, err.message, err.validation);
  if (err instanceof StoreUnavailable) return new PageFailure(503, 'The data store cannot be reached at the moment; please try again shortly.');
  if (err instanceof StoreBusy) return new PageFailure(503, 'The data store is busy; please try again shortly.');
  if (err instanceof StatementTimeout) return new PageFailure(409, 'This query took too long. Try a narrower filter or search.');
  return null;
}

export class ActionClient {
  constructor(private readonly services: Services, private readonly actions: ReadonlyMap<string, Action>) {}

  get settings() {
    return this.services.settings;
  }

  get catalog() {
    return this.services.catalog;
  }

  get datasetVersion(): string {
    return this.services.backend.datasetVersion;
  }

  private action(name: string): Action {
    const action = this.actions.get(name);
    if (!action) throw new Error(`no action ${name}`);
    return action;
  }

  /**
   * datastore_search with the given parameters, as decoded from a query string (strings, JSON text) or as values.
   * `linkQuery` is the query string the parameters came from, for the result's `_links` (unused by pages).
   */
  async search(params: Record<string, unknown>, siteUrl: string): Promise<SearchResult> {
    const result = (await this.action('datastore_search').run({ params, path: SEARCH_PATH, linkQuery: '', siteUrl }, this.services)) as Record<string, unknown>;
    const raw = result.records;
    const records = raw instanceof RawJson ? (JSON.parse(raw.text) as Record<string, unknown>[]) : (raw as Record<string, unknown>[]);
    return {
      records,
      fields: (result.fields as FieldMeta[]) ?? [],
      total: typeof result.total === 'number' ? result.total : null,
      limit: result.limit as number,
      offset: typeof result.offset === 'number' ? result.offset : 0,
    };
  }

  /** Every record a search selects, fetched a page of the largest size at a time. */
  async searchAll(params: Record<string, unknown>, siteUrl: string): Promise<SearchResult> {
    const pageSize = this.settings.rowsMax;
    const first = await this.search({ ...params, limit: pageSize, offset: 0 }, siteUrl);
    const records = [...first.records];
    while (first.total !== null && records.length < first.total) {
      const next = await this.search({ ...params, limit: pageSize, offset: records.length }, siteUrl);
      if (next.records.length === 0) break;
      records.push(...next.records);
    }
    return { ...first, records };
  }
}
