// What an action is: a named operation with its documentation, run on decoded parameters against the
// services (catalogue, storage, settings). Actions return result values; the HTTP layer wraps them.

import type { Catalog } from '../catalog/catalog.js';
import type { IndexUse } from '../catalog/indexes.js';
import type { ResidentTables } from '../resident/tables.js';
import type { ParamSpec } from '../query/params.js';
import type { Settings } from '../settings.js';
import type { VersionMemos } from '../util/version-memos.js';
import { DataVersionMoved, type StoreVersion } from '../storage/backend.js';
import type { StageTimings } from '../util/timing.js';

/**
 * What an action reads: one version of the data (its store tables and the catalogue loaded with them), and settings.
 */
/**
 * The process's index builds (src/ingest/indexes.ts), as the actions and the health check see them: a search names the
 * fields it filters or sorts on that have no index yet, and the health check lists what is still to be built.
 */
export interface IndexDemand {
  /**
   * Asks for an index on a field of a large resource (built in the background; a repeated ask costs nothing): the
   * field's own, to find records by its values or sort by them; or its sort index in a sort's direction, which a store
   * that builds that direction's builds (and any other ignores).
   */
  request(resourceId: string, fieldId: string, use?: IndexUse): void;
  /** The indexes still to be built (declared or asked for), by resource and key. */
  building(): Promise<{ resource: string; index: string }[]>;
}

export interface Services {
  catalog: Catalog;
  backend: StoreVersion;
  settings: Settings;
  /** Index builds after publication; absent where none run (a store opened only to read). */
  indexes?: IndexDemand;
  /** This version's small resources held in memory, answering searches without the store (absent: turned off). */
  resident?: ResidentTables;
  /** What presenters work out from this version once (the explorer's election models, charts, facet counts). */
  memos: VersionMemos;
}

/** The services of one version, held by a request until it is answered (so that version stays open). */
export interface ServiceLease {
  readonly services: Services;
  release(): void;
}

/** What the HTTP layer serves from: the current version's services, leased per request. */
export interface ServiceState {
  readonly current: Services;
  acquire(): ServiceLease;
  /** Serves the version the store now holds, if it is another one; true when it switched. */
  refresh(): Promise<boolean>;
  /** The store's own figures (connections, query workers), for metrics. */
  storeStats?(): Record<string, number>;
}

export interface ActionCall {
  /** Where the request's time goes; actions mark their stages (plan, query, count) when the caller asks. */
  timing?: StageTimings;
  /** Decoded parameters: GET query, form or JSON body, by CKAN's precedence. */
  params: Record<string, unknown>;
  /** Request path without any locale prefix, e.g. `/api/3/action/datastore_search`. */
  path: string;
  /** The query string the parameters came from; empty when they came from a body. */
  linkQuery: string;
  /** Public base URL (SITE_URL, or the request's scheme and host), for absolute links such as resource URLs. */
  siteUrl: string;
}

export interface Action {
  name: string;
  /** Its parameters: what it validates, and what help_show and the OpenAPI description document. */
  params: readonly ParamSpec[];
  /** help_show's answer: the action's documentation. */
  help: string;
  run(call: ActionCall, services: Services): Promise<unknown>;
}

/** The version a request was reading went away under it: the request should be answered again from the current one. */
export function isVersionMoved(err: unknown): boolean {
  return err instanceof DataVersionMoved;
}

/**
 * Runs `work` on the lease's version of the data; if that version went away under it (a load published while it ran),
 * once more on the version now served, which the lease then holds instead.
 */
export async function onCurrentVersion<T>(
  state: ServiceState,
  lease: { current: ServiceLease },
  work: (services: Services) => Promise<T>,
): Promise<T> {
  try {
    return await work(lease.current.services);
  } catch (err) {
    if (!isVersionMoved(err)) throw err;
    await state.refresh();
    lease.current.release();
    lease.current = state.acquire();
    return work(lease.current.services);
  }
}
