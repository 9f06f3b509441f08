// Indexes after publication: a load stores a resource with its key and full-text index only, and publishes it; the
// field and composite indexes the catalogue declares, and those that queries ask for, are built here afterwards, on
// the published data, while it serves. A search that runs before its index exists is slower, never wrong. What is
// built is recorded with each resource, so a process that starts (or restarts) builds what is still missing.

import type { Logger } from 'pino';
import {
  declaredIndexes,
  fieldIndex,
  indexesByKey,
  sortIndex,
  type IndexSpec,
  type IndexUse,
  type SortIndexDirections,
} from '../catalog/indexes.js';
import { parseCatalog } from '../catalog/load.js';
import type { ResourceDefinition } from '../catalog/types.js';
import type { LoadTarget, ResourceLoadRecord, StoreMeta } from '../storage/load-target.js';

/** Field indexes that queries asked for, by resource id: field ids. */
export type IndexRequests = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * What queries asked for: fields to find records by (or sort by), and fields to sort by, ascending or descending, whose
 * sort index the store builds for that direction.
 */
export interface AskedIndexes {
  fields: IndexRequests;
  ascending: IndexRequests;
  descending: IndexRequests;
}

/** A resource's indexes still to be built. */
export interface PendingIndexes {
  resource: ResourceDefinition;
  record: ResourceLoadRecord;
  specs: IndexSpec[];
}

/** One index as reported (healthz, the command line): its resource and key. */
export interface IndexReport {
  resource: string;
  index: string;
}

/** What the store holds that is not indexed yet: declared or requested, neither built nor refused. */
export function pendingIndexes(
  meta: StoreMeta,
  requested: AskedIndexes = { fields: new Map(), ascending: new Map(), descending: new Map() },
): PendingIndexes[] {
  if (!meta.catalog) return [];
  const catalog = parseCatalog(JSON.parse(meta.catalog));
  // Not the store's own listing of its tables (_table_metadata): a record per resource, searched in memory.
  const definitions = new Map(catalog.resources.map((r) => [r.id, r]));
  const pending: PendingIndexes[] = [];
  for (const record of meta.resources.values()) {
    const resource = definitions.get(record.id);
    if (!resource) continue;
    const done = new Set([...record.builtIndexes, ...(record.unbuiltIndexes ?? [])]);
    const wanted = new Map(declaredIndexes(resource).map((spec) => [spec.key, spec]));
    for (const fieldId of requested.fields.get(record.id) ?? []) {
      const spec = fieldIndex(resource, fieldId);
      if (spec && !wanted.has(spec.key)) wanted.set(spec.key, spec);
    }
    for (const [asked, descending] of [
      [requested.ascending, false],
      [requested.descending, true],
    ] as const)
      for (const fieldId of asked.get(record.id) ?? []) {
        const spec = sortIndex(resource, fieldId, descending);
        if (spec && !wanted.has(spec.key)) wanted.set(spec.key, spec);
      }
    const specs = [...wanted.values()].filter((spec) => !done.has(spec.key));
    if (specs.length > 0) pending.push({ resource, record, specs });
  }
  return pending;
}

export interface IndexBuildOptions {
  requested?: AskedIndexes;
  logger?: Logger;
  /** Told as each resource's indexes are published (`seconds`: the time since the build began). */
  onPublished?: (resource: ResourceDefinition, keys: string[], seconds: number) => void;
}

export interface IndexBuildResult {
  built: IndexReport[];
  /** Indexes PostgreSQL refused: a value too long for a B-tree key. Searches on their fields are right, only slower. */
  refused: IndexReport[];
  /** Another load or index build held the store: what was left is built by the next round. */
  busy: boolean;
  seconds: number;
}

/** Builds every pending index of what the store publishes, a resource at a time, publishing each as it is done. */
export async function buildPendingIndexes(
  target: LoadTarget,
  options: IndexBuildOptions = {},
): Promise<IndexBuildResult> {
  const started = performance.now();
  const result: IndexBuildResult = { built: [], refused: [], busy: false, seconds: 0 };
  const meta = await target.readMeta();
  for (const { resource, record, specs } of meta ? pendingIndexes(meta, options.requested) : []) {
    const session = await target.beginIndexing();
    if (!session) {
      result.busy = true;
      break;
    }
    let indexed: ResourceLoadRecord;
    try {
      // The record as the store holds it now: a load may have published since the meta was read.
      const current = (await target.readMeta())?.resources.get(resource.id);
      if (!current || current.table !== record.table || current.loadedAt !== record.loadedAt) {
        await session.abort();
        continue;
      }
      const done = new Set([...current.builtIndexes, ...(current.unbuiltIndexes ?? [])]);
      const todo = indexesByKey(
        resource,
        specs.map((s) => s.key).filter((key) => !done.has(key)),
      );
      // A field a query asked for, which the catalogue does not declare, is not among indexesByKey's declared ones.
      for (const spec of specs) if (!done.has(spec.key) && !todo.some((t) => t.key === spec.key)) todo.push(spec);
      indexed = await session.index(resource, current, todo);
      await session.commit();
    } catch (err) {
      await session.abort().catch(() => {});
      throw err;
    }
    const keys = indexed.builtIndexes.filter((key) => !record.builtIndexes.includes(key));
    for (const key of keys) result.built.push({ resource: resource.id, index: key });
    for (const key of indexed.unbuiltIndexes ?? [])
      if (!(record.unbuiltIndexes ?? []).includes(key)) result.refused.push({ resource: resource.id, index: key });
    const seconds = (performance.now() - started) / 1000;
    options.logger?.debug(
      { resource: resource.id, indexes: keys, refused: indexed.unbuiltIndexes ?? [], seconds },
      `indexed ${resource.name}: ${keys.join(', ') || 'nothing new'}`,
    );
    options.onPublished?.(resource, keys, seconds);
  }
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

/** How long asks for indexes are gathered before a round starts: a burst of searches makes one round. */
const REQUEST_GATHER_MS = 1000;
/** How long a round waits when a load or another build holds the store. */
const BUSY_RETRY_MS = 5000;

/**
 * A serving process's index builds: a round at start (what a load, or a process that stopped, left to build), one
 * after each load it publishes, and one shortly after a search asks for an index. One round at a time; the store's
 * lock keeps processes from building at once (one that finds it held tries again a little later).
 */
export class IndexBuilds {
  private readonly requested = {
    fields: new Map<string, Set<string>>(),
    ascending: new Map<string, Set<string>>(),
    descending: new Map<string, Set<string>>(),
  };
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  /**
   * `sortIndexes`: which directions of sort a field's sort index is built for (see stores.ts); asking for one the store
   * does not build is no request at all.
   */
  constructor(
    private readonly target: () => LoadTarget,
    private readonly logger: Logger,
    private readonly sortIndexes: SortIndexDirections = { ascending: false, descending: false },
  ) {}

  request(resourceId: string, fieldId: string, use: IndexUse = 'filter'): void {
    if (use === 'sort' && !this.sortIndexes.ascending) return;
    if (use === 'sort descending' && !this.sortIndexes.descending) return;
    const asked =
      use === 'sort'
        ? this.requested.ascending
        : use === 'sort descending'
          ? this.requested.descending
          : this.requested.fields;
    let fields = asked.get(resourceId);
    if (!fields) asked.set(resourceId, (fields = new Set()));
    if (fields.has(fieldId)) return;
    fields.add(fieldId);
    this.schedule(REQUEST_GATHER_MS);
  }

  /** Starts a round after `delayMs` (or, if one runs, once more after it). */
  schedule(delayMs = 0): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.round().finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
    }, delayMs);
    this.timer.unref();
  }

  /** Waits for the round under way, if any (tests, and a clean stop). */
  async idle(): Promise<void> {
    while (this.running || this.timer) {
      if (this.running) await this.running;
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async building(): Promise<IndexReport[]> {
    const target = this.target();
    try {
      const meta = await target.readMeta();
      return (meta ? pendingIndexes(meta, this.requested) : []).flatMap(({ resource, specs }) =>
        specs.map((spec) => ({ resource: resource.id, index: spec.key })),
      );
    } finally {
      await target.close();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async round(): Promise<void> {
    const target = this.target();
    try {
      const result = await buildPendingIndexes(target, { requested: this.requested, logger: this.logger });
      for (const { resource, index } of result.refused)
        this.logger.warn(
          { resource, index },
          `index ${index} left out: a value is too long for a PostgreSQL index key (about 2,700 bytes); searches on it are right, only slower`,
        );
      if (result.busy && !this.stopped) {
        this.timer = setTimeout(() => {
          this.timer = null;
          this.schedule();
        }, BUSY_RETRY_MS);
        this.timer.unref();
      }
    } catch (err) {
      this.logger.error({ err }, `could not build indexes: ${(err as Error).message}`);
    } finally {
      await target.close();
    }
  }
}
