// Brings the store in line with the catalogue and its sources: rebuilds it when it is missing, when the checksum of
// any file a resource is read or derived from changed or a resource's catalogue entry changed, and otherwise leaves
// it alone. Rows come from src/ingest/sources.ts; a resource whose new source fails to load keeps its previous data,
// and a mirrored resource is copied only once its portal has settled (two probes a settle interval apart agree).

import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { TABLE_METADATA, type CatalogDefinition, type ResourceDefinition } from '../catalog/types.js';
import type { Settings } from '../settings.js';
import type {
  InputRecord,
  LoadSession,
  LoadTarget,
  ResourceLoadRecord,
  ResourceSink,
  StoreMeta,
} from '../storage/load-target.js';
import { CkanError } from '../portal/client.js';
import { DumpUnusable } from '../portal/dump.js';
import { MirrorMismatch, UpstreamReloading } from '../portal/mirror.js';
import { publicName } from './source.js';
import { LoadSources, type MirrorReadOptions } from './sources.js';

/**
 * `waiting`: a mirrored resource whose portal is reloading it (or was changing it while it was looked at); its last
 * complete copy keeps serving until the portal has settled.
 */
export type ResourceStatus = 'loaded' | 'unchanged' | 'kept-previous' | 'waiting' | 'failed';

export interface ResourceOutcome {
  id: string;
  name: string;
  status: ResourceStatus;
  rows: number | null;
  error: string | null;
  /** Something a publisher should look at although the load succeeded (e.g. a source with a header and no records). */
  warning?: string;
  /** How long loading it took (0 when it was kept). */
  ms?: number;
  /** For a mirrored resource that was copied: how (`dump`, or the paging method). */
  method?: string;
  /** For a mirrored resource: whether its portal answered its probe this time. */
  checked?: boolean;
  /** It failed because its portal could not be reached, kept failing, or did not answer as CKAN does. */
  unreachable?: boolean;
}

/** What a load tells as it goes, for a progress display or log lines. */
export interface LoadProgress {
  /**
   * A resource starts loading; `expected` is its record count when known beforehand (a mirror's, or the last load's).
   */
  start(resource: ResourceDefinition, expected: number | null): void;
  /** Records stored so far for the resource loading now. */
  rows(count: number): void;
  /** It finished (loaded, kept or failed). */
  end(outcome: ResourceOutcome): void;
  /** Mirrored resources changed: they are looked at again after `ms` before they are copied. */
  settling?(resources: number, ms: number): void;
}

export interface BuildResult {
  rebuilt: boolean;
  datasetVersion: string;
  outcomes: ResourceOutcome[];
}

export interface BuildOptions {
  catalog: CatalogDefinition;
  sources: string;
  /** The store to load into. */
  target: LoadTarget;
  logger: Logger;
  /** Rebuild even when nothing changed. */
  force?: boolean;
  /** Told of each resource's progress. */
  progress?: LoadProgress;
  /**
   * Only these resources (by id) are looked at: any other that the store holds is kept as it is, without asking its
   * portal (a write passed through touched these; a poll found these changed).
   */
  only?: ReadonlySet<string>;
  /**
   * How mirrored resources are read; how long after a change is seen it is looked at again (only a change two probes
   * that far apart agree on is copied); and how often a copy that did not add up is tried again, how long apart.
   */
  mirror?: MirrorReadOptions & { settleMs?: number; attempts?: number; retryWaitMs?: number };
}

/** How mirrored resources are read and refreshed, from the settings. */
export function mirrorOptions(
  settings: Pick<
    Settings,
    | 'mirrorContact'
    | 'mirrorConcurrency'
    | 'mirrorSettleSeconds'
    | 'mirrorProbeTimeoutSeconds'
    | 'mirrorPatchMaxPercent'
  >,
): NonNullable<BuildOptions['mirror']> {
  return {
    client: { contact: settings.mirrorContact, concurrency: settings.mirrorConcurrency },
    settleMs: settings.mirrorSettleSeconds * 1000,
    probeTimeoutMs: settings.mirrorProbeTimeoutSeconds * 1000,
    patchMaxShare: settings.mirrorPatchMaxPercent / 100,
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A short digest of exactly what is served: every resource's source and entry, and the catalogue that describes them
 * (a changed title is a new version too). It changes with any reload, so it versions cached answers and entity tags.
 */
export function datasetVersionOf(records: Iterable<ResourceLoadRecord>, catalog: string): string {
  const parts = [...records].map((r) => `${r.id}:${r.sourceSha256}:${r.specHash}`).sort();
  return sha256(`${parts.join('\n')}\n${catalog}`).slice(0, 16);
}

type CatalogDocument = { datasets?: { resources?: { id?: unknown }[] }[] };

/**
 * The catalogue a load publishes with its data: the catalogue file's, except that a resource still served from an
 * earlier load (its new source failed) keeps the entry it was loaded with, so that its fields describe its tables.
 */
export function publishedCatalog(
  document: unknown,
  previous: string | null,
  keptFromEarlier: ReadonlySet<string>,
): string {
  if (keptFromEarlier.size === 0 || !previous) return JSON.stringify(document);
  const earlier = new Map<unknown, unknown>();
  for (const dataset of (JSON.parse(previous) as CatalogDocument).datasets ?? [])
    for (const r of dataset.resources ?? []) earlier.set(r.id, r);
  const copy = structuredClone(document) as CatalogDocument;
  for (const dataset of copy.datasets ?? []) {
    dataset.resources = dataset.resources?.map((r) =>
      keptFromEarlier.has(String(r.id)) && earlier.has(r.id) ? (earlier.get(r.id) as { id: unknown }) : r,
    );
  }
  return JSON.stringify(copy);
}

interface Prepared {
  resource: ResourceDefinition;
  specHash: string;
  /** Checksum of every file the resource is read or derived from; null when one could not be read. */
  sha256: string | null;
  inputs: InputRecord[];
  problem: string | null;
  /** For a mirrored resource caught mid-reload: why it is not copied now (its last complete copy serves). */
  waiting: string | null;
  /** The problem is that its portal could not be reached. */
  unreachable: boolean;
  /**
   * A changed mirrored resource that was not settled, its change looking like one a patch takes at once (an append or
   * an edit to the same table): if it must be copied whole after all, it settles first.
   */
  unsettledChange?: boolean;
}

function sourceName(resource: ResourceDefinition): string {
  const { source } = resource;
  if (source.kind === 'layout') return source.files.patterns.map(publicName).join(', ');
  if (source.kind === 'ckan') return `${source.portal} resource ${source.resource}`;
  return `its inputs, by ${source.transform}`;
}

function problemText(resource: ResourceDefinition, err: unknown): string {
  const message = (err as Error).message;
  const name = sourceName(resource);
  return message.startsWith(name) || resource.source.kind === 'derived' ? message : `${name}: ${message}`;
}

async function prepare(
  resource: ResourceDefinition,
  sources: LoadSources,
  previous: ResourceLoadRecord | null,
  only: ReadonlySet<string> | undefined,
): Promise<Prepared> {
  let specHash = '';
  try {
    specHash = sources.specHash(resource);
    // Not asked about this time: what the store holds stands.
    if (only && !only.has(resource.id) && previous) {
      const inputs = [...(previous.inputs ?? [])];
      return {
        resource,
        specHash,
        sha256: previous.sourceSha256,
        inputs,
        problem: null,
        waiting: null,
        unreachable: false,
      };
    }
    const { sha256: checksum, inputs } = await sources.inputsOf(resource, previous);
    return { resource, specHash, sha256: checksum, inputs, problem: null, waiting: null, unreachable: false };
  } catch (err) {
    const problem = problemText(resource, err);
    return {
      resource,
      specHash,
      sha256: null,
      inputs: [],
      problem,
      waiting: err instanceof UpstreamReloading ? problem : null,
      unreachable: err instanceof CkanError && err.unreachable,
    };
  }
}

/**
 * Mirrored resources whose change may be a reload (a first copy, a new table, fewer records, fields changed, the
 * portal's loader at work) are looked at again a settle interval later (once for them all): a change the two probes do
 * not agree on, or that the portal's loader says is still being loaded, is not copied now. An append or an edit to the
 * same table is not waited for: it is patched at once (and settles after all if it must be copied whole).
 */
async function settle(
  prepared: readonly Prepared[],
  previous: StoreMeta | null,
  sources: LoadSources,
  options: BuildOptions,
): Promise<void> {
  const candidates = prepared.filter(
    (p) => p.resource.source.kind === 'ckan' && p.sha256 !== null && !isUnchanged(p, previous),
  );
  const changed: Prepared[] = [];
  await Promise.all(
    candidates.map(async (p) => {
      const why = await sources
        .settleReason(p.resource, previous?.resources.get(p.resource.id) ?? null)
        .catch((err: unknown) => (err as Error).message);
      if (why) changed.push(p);
      else p.unsettledChange = true;
    }),
  );
  await settleNow(changed, sources, options);
}

/** Waits the settle interval once, then looks at each resource again; a change still under way is `waiting`. */
async function settleNow(changed: readonly Prepared[], sources: LoadSources, options: BuildOptions): Promise<void> {
  if (changed.length === 0) return;
  const settleMs = options.mirror?.settleMs ?? 10_000;
  options.progress?.settling?.(changed.length, settleMs);
  if (settleMs > 0) await sleep(settleMs);
  await Promise.all(
    changed.map(async (p) => {
      try {
        const why = await sources.unsettled(p.resource, settleMs);
        if (why)
          Object.assign(p, {
            sha256: null,
            problem: `${sourceName(p.resource)}: ${why}`,
            waiting: `${sourceName(p.resource)}: ${why}`,
          });
      } catch (err) {
        Object.assign(p, {
          sha256: null,
          problem: problemText(p.resource, err),
          unreachable: err instanceof CkanError && err.unreachable,
        });
      }
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isUnchanged(prepared: Prepared, previous: StoreMeta | null): boolean {
  const record = previous?.resources.get(prepared.resource.id);
  return (
    !!record &&
    prepared.sha256 !== null &&
    record.sourceSha256 === prepared.sha256 &&
    record.specHash === prepared.specHash
  );
}

/** Reads (or derives) a resource's checked rows into the sink, in order: `_id` 1…N, or the source's own `_id`s. */
export async function loadRecords(
  resource: ResourceDefinition,
  sources: LoadSources,
  sink: ResourceSink,
  progress?: LoadProgress,
): Promise<void> {
  let next = 0;
  for await (const batch of sources.rows(resource)) {
    for (const row of batch) {
      const wait = sink.insert(row.values, row.id);
      if (wait) await wait;
    }
    if (progress && sink.count >= next) {
      progress.rows(sink.count);
      next = sink.count + 1000;
    }
  }
  progress?.rows(sink.count);
}

/**
 * Loads one resource; a mirrored copy that did not add up (the upstream changed while it was copied) is tried again
 * after a wait, up to the attempts allowed, once the upstream has settled again. Each try is all or nothing, and
 * records the checksum of the probe it was verified against: what the published data matches.
 */
async function loadWithRetries(
  session: LoadSession,
  resource: ResourceDefinition,
  base: Parameters<LoadSession['load']>[1],
  sources: LoadSources,
  options: BuildOptions,
  previous: ResourceLoadRecord | null,
): Promise<ResourceLoadRecord> {
  const source = resource.source;
  const attempts = source.kind === 'ckan' ? (options.mirror?.attempts ?? 3) : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      const current = { ...base };
      return await session.load(resource, current, async (sink) => {
        await loadRecords(resource, sources, sink, options.progress);
        await sources.recordBlocks(resource, current);
      });
    } catch (err) {
      if (err instanceof DumpUnusable && source.kind === 'ckan') {
        // Found out part way through the dump: copied again at once, page by page (not another attempt).
        sources.dumpUnusable(source, err);
        attempt -= 1;
        continue;
      }
      if (!(err instanceof MirrorMismatch) || !err.retryable || attempt >= attempts || source.kind !== 'ckan')
        throw err;
      const wait = options.mirror?.retryWaitMs ?? 30_000;
      options.logger.warn(
        { resource: resource.id, attempt, waitMs: wait },
        `copy not published: ${err.message}; trying again in ${Math.round(wait / 1000)} s`,
      );
      await sleep(wait);
      await sources.reprobe(source);
      const settleMs = options.mirror?.settleMs ?? 10_000;
      if (settleMs > 0) await sleep(settleMs);
      const why = await sources.unsettled(resource, settleMs);
      if (why) throw new UpstreamReloading(`${sourceName(resource)}: ${why}`);
      const { sha256: checksum, inputs } = await sources.inputsOf(resource, previous);
      base = { ...base, sourceSha256: checksum, inputs };
    }
  }
}

/**
 * Brings a changed mirrored resource up to date from its published copy, when the blocks that changed can be found and
 * are few: only their records are read, and the store patches them in. Null when the resource is to be copied whole
 * (said at debug: a refresh cycle logs one line at info; the outcome's `method` tells), or when the patch did not add
 * up (the upstream changed meanwhile; said at warn).
 */
async function patchMirror(
  session: LoadSession,
  resource: ResourceDefinition,
  base: Parameters<LoadSession['load']>[1],
  old: ResourceLoadRecord,
  sources: LoadSources,
  options: BuildOptions,
): Promise<{ record: ResourceLoadRecord; method: string } | { manyBlocks: boolean } | null> {
  const plan = await sources.changesSince(resource, old);
  if (plan.kind === 'full') {
    options.logger.debug(
      { resource: resource.id, reason: plan.reason },
      `copying ${resource.name} whole: ${plan.reason}`,
    );
    return { manyBlocks: (plan.changedBlocks ?? 0) > 1 };
  }
  const method = `patch (${plan.viaSql ? 'datastore_search_sql hashes' : 'sampled blocks'})`;
  const input = base.inputs?.find((i) => i.upstream);
  const inputs = (base.inputs ?? []).map((i) =>
    i === input && i.upstream ? { ...i, upstream: { ...i.upstream, blocks: plan.hashes } } : i,
  );
  const patched = { ...base, inputs, sourceSha256: sources.patchedChecksum(inputs, plan.hashes) };
  try {
    const record =
      plan.ranges.length === 0
        ? await keepAs(session, resource, { ...old, ...patched })
        : await session.patch(resource, patched, old, plan.ranges, async (sink) => {
            let next = 0;
            for await (const row of sources.patchRows(resource, plan)) {
              const wait = sink.insert(row.values, row.id);
              if (wait) await wait;
              if (options.progress && sink.count >= next) {
                options.progress.rows(sink.count);
                next = sink.count + 1000;
              }
            }
          });
    options.logger.debug(
      { resource: resource.id, blocks: plan.changedBlocks, ranges: plan.ranges.length, rows: record.total },
      `patched ${resource.name}: ${plan.changedBlocks} changed blocks of ${plan.hashes.size} _ids read again`,
    );
    return { record, method };
  } catch (err) {
    if (!(err instanceof MirrorMismatch)) throw err;
    options.logger.warn(
      { resource: resource.id },
      `patch not published: ${err.message}; copying the table whole instead`,
    );
    return null;
  }
}

/** The published table, under a new record (its data unchanged upstream, only its fingerprint moved). */
async function keepAs(
  session: LoadSession,
  resource: ResourceDefinition,
  record: ResourceLoadRecord,
): Promise<ResourceLoadRecord> {
  await session.keep(resource, record);
  return record;
}

/** What a mirrored resource's outcome says of its portal. */
function mirrorFacts(p: Prepared): Pick<ResourceOutcome, 'checked' | 'unreachable'> {
  if (p.resource.source.kind !== 'ckan') return {};
  return {
    checked: !p.unreachable && (p.problem === null || p.waiting !== null),
    ...(p.unreachable ? { unreachable: true } : {}),
  };
}

/**
 * The outcome of a resource that was not loaded this time, logged: a mirror caught mid-reload is `waiting` (at warn:
 * it is the portal's ordinary business), anything else kept its previous data or is not served (at error).
 */
function notLoaded(p: Prepared, old: ResourceLoadRecord | null, logger: Logger): ResourceOutcome {
  const { resource, problem } = p;
  const base = { id: resource.id, name: resource.name, error: problem, ...mirrorFacts(p) };
  if (p.waiting && old) {
    logger.warn(
      { resource: resource.id },
      `not copied now: ${p.waiting}; still serving the last complete copy (${old.total} records, loaded ${old.loadedAt})`,
    );
    return { ...base, status: 'waiting', rows: old.total };
  }
  if (old) {
    logger.error({ resource: resource.id }, `load failed, still serving the previous data: ${problem}`);
    return { ...base, status: 'kept-previous', rows: old.total };
  }
  logger.error({ resource: resource.id }, `load failed, resource not served: ${problem}`);
  return { ...base, status: 'failed', rows: null };
}

/** A stable number per table, standing in for PostgreSQL's oid in `_table_metadata`. */
function tableOid(resourceId: string): number {
  return parseInt(createHash('sha256').update(resourceId).digest('hex').slice(0, 7), 16);
}

async function writeTableMetadata(session: LoadSession, records: readonly ResourceLoadRecord[]): Promise<void> {
  const base = { id: TABLE_METADATA.id, sourceSha256: '', specHash: '', source: '', inputs: [] };
  await session.load(TABLE_METADATA, base, async (sink) => {
    for (const record of records) await sink.insert([record.id, tableOid(record.id), null]);
  });
}

export async function buildDatabase(options: BuildOptions): Promise<BuildResult> {
  const { catalog, target, logger } = options;
  const previous = await target.readMeta();
  if (!previous) {
    // A store of another layout is never read as this one: it is rebuilt whole, and the log says why.
    const other = await target.otherLayout();
    if (other)
      logger.warn(
        { layout: other.found, current: other.current },
        `the store was written in layout ${other.found} by ${other.found < other.current ? 'an earlier' : 'a later'} Count Centre (this one writes layout ${other.current}): every resource is loaded again into a new store`,
      );
  }
  const usablePrevious = previous && previous.fullTextLanguage === catalog.fullTextLanguage ? previous : null;
  const sources = new LoadSources(catalog, options.sources, { ...options.mirror, logger });
  const prepared = await Promise.all(
    catalog.resources.map((resource) =>
      prepare(resource, sources, usablePrevious?.resources.get(resource.id) ?? null, options.only),
    ),
  );
  try {
    await settle(prepared, usablePrevious, sources, options);
    const catalogIds = new Set(catalog.resources.map((r) => r.id));
    const staleTables = usablePrevious
      ? [...usablePrevious.resources.keys()].some((id) => id !== TABLE_METADATA.id && !catalogIds.has(id))
      : false;
    const catalogChanged = usablePrevious ? usablePrevious.catalog !== JSON.stringify(catalog.document) : false;
    const needsBuild =
      options.force ||
      !usablePrevious ||
      staleTables ||
      catalogChanged ||
      prepared.some((p) => p.sha256 !== null && !isUnchanged(p, usablePrevious));

    if (!needsBuild) {
      const outcomes = prepared.map((p): ResourceOutcome => {
        const record = usablePrevious.resources.get(p.resource.id) ?? null;
        if (p.problem) return notLoaded(p, record, logger);
        return {
          id: p.resource.id,
          name: p.resource.name,
          status: 'unchanged',
          rows: record?.total ?? null,
          error: null,
          ...mirrorFacts(p),
        };
      });
      return { rebuilt: false, datasetVersion: usablePrevious.datasetVersion, outcomes };
    }

    // First copies of mirrored resources are downloaded side by side while the ones before them are stored.
    for (const p of prepared)
      if (!p.problem && p.sha256 !== null && !usablePrevious?.resources.has(p.resource.id))
        sources.prefetch(p.resource);
    const session = await target.begin(catalog.fullTextLanguage);
    const outcomes: ResourceOutcome[] = [];
    const records: ResourceLoadRecord[] = [];
    try {
      for (const p of prepared) {
        const { resource } = p;
        const old = usablePrevious?.resources.get(resource.id) ?? null;
        const started = Date.now();
        const done = (outcome: ResourceOutcome) => {
          outcomes.push(outcome);
          options.progress?.end(outcome);
        };
        if (!options.force && old && isUnchanged(p, usablePrevious)) {
          await session.keep(resource, old);
          records.push(old);
          done({
            id: resource.id,
            name: resource.name,
            status: 'unchanged',
            rows: old.total,
            error: null,
            ms: 0,
            ...mirrorFacts(p),
          });
          continue;
        }
        if (!p.problem && p.sha256 !== null) {
          const base = {
            id: resource.id,
            sourceSha256: p.sha256,
            specHash: p.specHash,
            source: sourceName(resource),
            inputs: p.inputs,
          };
          options.progress?.start(resource, (await sources.expectedRows(resource)) ?? old?.total ?? null);
          try {
            const upstreamId = resource.source.kind === 'ckan' ? resource.source.resource : '';
            const tried =
              resource.source.kind === 'ckan' && old && !options.force && old.specHash === p.specHash
                ? await patchMirror(session, resource, base, old, sources, options)
                : null;
            const patched = tried && 'record' in tried ? tried : null;
            if (patched) sources.mirrorMethods.set(upstreamId, patched.method);
            else if (
              p.unsettledChange &&
              resource.source.kind === 'ckan' &&
              (!tried || ('manyBlocks' in tried && tried.manyBlocks))
            ) {
              // Copied whole after all because many blocks changed (or the patch found the table changing): only once
              // it has settled, from a look taken now, and recorded as what that look saw. A small table whose one
              // block changed is copied at once.
              await sources.reprobe(resource.source);
              await settleNow([p], sources, options);
              if (p.problem) throw p.waiting ? new UpstreamReloading(p.waiting) : new Error(p.problem);
              const fresh = await sources.inputsOf(resource, old);
              Object.assign(base, { sourceSha256: fresh.sha256, inputs: fresh.inputs });
            }
            const record = patched?.record ?? (await loadWithRetries(session, resource, base, sources, options, old));
            const rows = record.total;
            records.push(record);
            const outcome: ResourceOutcome = {
              id: resource.id,
              name: resource.name,
              status: 'loaded',
              rows,
              error: null,
              ms: Date.now() - started,
              ...mirrorFacts(p),
            };
            const method = sources.mirrorMethods.get(upstreamId);
            if (method) outcome.method = method;
            // A mirror's note, a left-out index and an empty table can all hold for one resource: each is told.
            const warnings: string[] = [];
            const note = patched ? undefined : sources.mirrorNotes.get(upstreamId);
            if (note) warnings.push(note);
            if (record.unbuiltIndexes) {
              const unbuilt = `${record.unbuiltIndexes.length === 1 ? 'an index' : 'indexes'} left out, as a value is too long for a PostgreSQL index key (about 2,700 bytes): ${record.unbuiltIndexes.join(', ')}; searches on these fields are right, only slower`;
              warnings.push(unbuilt);
              logger.warn({ resource: resource.id }, unbuilt);
            }
            if (rows === 0) {
              const empty = `${sourceName(resource)} has ${resource.source.kind === 'ckan' ? 'no records' : 'a header but no records'}: the resource is served empty`;
              warnings.push(empty);
              logger.warn({ resource: resource.id }, empty);
            }
            if (warnings.length > 0) outcome.warning = warnings.join('; ');
            done(outcome);
            logger.info(
              {
                resource: resource.id,
                rows,
                files: p.inputs.length,
                ms: Date.now() - started,
                ...(method ? { method } : {}),
              },
              `loaded ${resource.name} from ${sourceName(resource)}`,
            );
            continue;
          } catch (err) {
            const problem = (err as Error).message;
            Object.assign(p, {
              problem,
              waiting: err instanceof UpstreamReloading ? problem : null,
              unreachable: err instanceof CkanError && err.unreachable,
            });
          }
        }
        if (old) {
          await session.keep(resource, old);
          records.push(old);
        }
        const outcome = notLoaded(p, old, logger);
        done({ ...outcome, ms: Date.now() - started });
      }
      // Nothing new to publish (every resource kept, its new source failing): the store is left as it is, rather than
      // rewritten and reopened by every serving process for the same data.
      if (
        !options.force &&
        usablePrevious &&
        !staleTables &&
        !catalogChanged &&
        !outcomes.some((o) => o.status === 'loaded') &&
        outcomes.every((o) => o.status !== 'failed' || !usablePrevious.resources.has(o.id))
      ) {
        await session.abort();
        return { rebuilt: false, datasetVersion: usablePrevious.datasetVersion, outcomes };
      }
      await writeTableMetadata(session, records);
      const keptFromEarlier = new Set(outcomes.filter((o) => o.status === 'kept-previous').map((o) => o.id));
      const published = publishedCatalog(catalog.document, usablePrevious?.catalog ?? null, keptFromEarlier);
      const datasetVersion = datasetVersionOf(records, published);
      await session.commit({ datasetVersion, catalog: published });
      return { rebuilt: true, datasetVersion, outcomes };
    } catch (err) {
      await session.abort();
      throw err;
    }
  } finally {
    await sources.release();
  }
}
