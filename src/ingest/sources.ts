// Sources produce rows; targets store them. For one load, this resolves what every resource is made from — the
// files of a layout source, or for a derived resource its transform's inputs (dataset inputs and other resources,
// read or derived once per load) — and yields each resource's rows checked against its fields, ready for a
// LoadTarget's sink. A layout source streams; a mirrored resource (a CKAN portal's DataStore, src/portal/) is
// probed, copied by the route chosen for it (the portal's dump, else pages) and verified before it may be published; a
// derivation holds its inputs in memory (they are tables of modest size: tens of thousands of records, not millions).

import { createHash } from 'node:crypto';
import { LAYOUT_PRESETS, TRANSFORM_SPECS } from '../catalog/source-kinds.js';
import type {
  CatalogDefinition,
  CkanSourceDefinition,
  DatasetDefinition,
  DerivedSourceDefinition,
  FieldDefinition,
  InputReference,
  LayoutSourceDefinition,
  ResourceDefinition,
  SourceDefinition,
} from '../catalog/types.js';
import type { Logger } from 'pino';
import { CkanClient, Slots, type CkanClientOptions } from '../portal/client.js';
import {
  BlockHasher,
  planChanges,
  portalBlockHashes,
  recordsIn,
  withBlocks,
  type BlockHashes,
  type ChangePlan,
} from '../portal/changes.js';
import { DumpUnusable, openDump, type DumpCopy, type DumpOptions } from '../portal/dump.js';
import {
  loaderVeto,
  looksMidReload,
  MirrorMismatch,
  probeDifference,
  schemaDifference,
  UpstreamReloading,
  UpstreamResource,
  verifyCopy,
  type MirrorOptions,
  type Probe,
} from '../portal/mirror.js';
import type { StoredValue } from '../catalog/values.js';
import type { InputRecord, ResourceLoadRecord } from '../storage/load-target.js';
import { checkAllUsed, readCorrections } from './corrections.js';
import { LoadError } from './csv.js';
import { decodedText } from './encoding.js';
import { combinedChecksum, FileCache, type ResolvedFile } from './files.js';
import { jsonLine, readLayout } from './layouts.js';
import { checkedValue, type Table, type TableRow } from './table.js';
import { TRANSFORMS } from './transforms/index.js';

const formatSeconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** Changes whenever the loader would store the same sources differently. */
export const LOADER_VERSION = 8;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * How a mirrored resource is copied: the portal's dump (one request, then verified), or pages of datastore_search.
 * Chosen per resource and load; the dump is the first choice, pages where it is missing or does not verify.
 */
export type CopyRoute = 'dump' | 'pages';

/** How mirrored resources are read: the client's politeness and the copy's page sizes (tests shorten the waits). */
export interface MirrorReadOptions extends MirrorOptions {
  client?: Omit<CkanClientOptions, 'token' | 'logger'>;
  /** Where API tokens are read from (the catalogue names the variable); the process's environment by default. */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Copy routes to try, best first (tests and the bench narrow them). */
  routes?: readonly CopyRoute[];
  dump?: DumpOptions;
  /** Longest one resource's probe may take, retries included. */
  probeTimeoutMs?: number;
  /** `_id`s per block whose hash a copy records, for a refresh to find what changed (src/portal/changes.ts). */
  blockSize?: number;
  /** Largest share of a copy's records (0–1) a refresh patches; past it, the table is copied whole. */
  patchMaxShare?: number;
  /** Without datastore_search_sql: blocks compared at random, besides those new records land in. */
  sampleBlocks?: number;
}

/** Layout options added after resources were first loaded, at their defaults: a spec hash leaves them out. */
const LAYOUT_OPTIONS_ADDED_LATER: Readonly<Record<string, unknown>> = {
  leadingSpaces: 'keep',
  headerPrefix: null,
  comments: null,
  orient: 'records',
} satisfies Partial<LayoutSourceDefinition>;

export class LoadSources {
  private readonly cache: FileCache;
  private readonly clients = new Map<string, CkanClient>();
  private readonly probes = new Map<string, Promise<Probe>>();
  /**
   * Per portal, probes running at once: as many as its requests in flight, so that each probe's time runs from its
   * start.
   */
  private readonly probeSlots = new Map<string, Slots>();
  /** Portals found to have no dump route this load. */
  private readonly dumpMissing = new Set<string>();
  /** Mirrored resources whose dump turned out unusable this load: they are copied page by page. */
  private readonly pagesOnly = new Set<string>();
  /** Per mirrored resource, how the last copy was made (`dump`, or the paging method), for reports. */
  readonly mirrorMethods = new Map<string, string>();
  /** Per mirrored resource, why the dump was not used, when it was tried. */
  readonly mirrorNotes = new Map<string, string>();
  /** Per mirrored resource, the block hashes its portal worked out this load. */
  private readonly blockHashes = new Map<string, Promise<BlockHashes | null>>();
  /** Dumps downloaded ahead of their turn (first copies, side by side), by upstream resource id. */
  private readonly prefetched = new Map<string, Promise<DumpCopy | Error>>();
  /** Per mirrored resource, the block hashes of the records its copy has read so far this load. */
  private readonly copyHashes = new Map<string, BlockHasher>();
  private readonly datasets: Map<string, DatasetDefinition>;
  private readonly resources: Map<string, ResourceDefinition>;
  private readonly tables = new Map<string, Promise<Table>>();
  private readonly abouts = new Map<string, Promise<{ title?: string; url?: string }>>();

  constructor(
    private readonly catalog: CatalogDefinition,
    sources: string,
    private readonly mirror: MirrorReadOptions = {},
  ) {
    this.cache = new FileCache(sources, catalog.baseDir);
    this.datasets = new Map(catalog.datasets.map((d) => [d.name, d]));
    this.resources = new Map(catalog.resources.map((r) => [r.id, r]));
  }

  private dataset(resource: ResourceDefinition): DatasetDefinition {
    const dataset = this.datasets.get(resource.datasetName);
    if (!dataset) throw new Error(`resource ${resource.id} belongs to no dataset`);
    return dataset;
  }

  private input(
    dataset: DatasetDefinition,
    ref: InputReference,
  ): { source: SourceDefinition; fields: FieldDefinition[]; key: string; resource?: ResourceDefinition } {
    if (ref.kind === 'input') {
      const input = Object.hasOwn(dataset.inputs, ref.name) ? dataset.inputs[ref.name] : undefined;
      if (!input) throw new Error(`the dataset ${dataset.name} has no input "${ref.name}"`);
      return { source: input.source, fields: input.fields, key: `input:${dataset.name}:${ref.name}` };
    }
    const resource = this.resources.get(ref.id);
    if (!resource) throw new Error(`no resource ${ref.id}`);
    return { source: resource.source, fields: resource.fields, key: `resource:${resource.id}`, resource };
  }

  private async layoutFiles(
    source: LayoutSourceDefinition,
  ): Promise<{ files: ResolvedFile[]; corrections: ResolvedFile[] }> {
    const [files, corrections] = await Promise.all([
      this.cache.resolve(source.files, source.encoding),
      source.corrections ? this.cache.resolve(source.corrections, 'auto') : Promise.resolve([]),
    ]);
    return { files, corrections };
  }

  /** Every file a source depends on (a derivation's, through its inputs), each once, in a stable order. */
  private async sourceFiles(
    dataset: DatasetDefinition,
    source: SourceDefinition,
    seen = new Set<string>(),
  ): Promise<{ file: ResolvedFile; source: LayoutSourceDefinition }[]> {
    if (source.kind === 'ckan') return [];
    if (source.kind === 'layout') {
      const { files, corrections } = await this.layoutFiles(source);
      return [...files, ...corrections].map((file) => ({ file, source }));
    }
    const all: { file: ResolvedFile; source: LayoutSourceDefinition }[] = [];
    for (const ref of Object.values(source.inputs).flat()) {
      const input = this.input(dataset, ref);
      if (seen.has(input.key)) continue;
      seen.add(input.key);
      all.push(...(await this.sourceFiles(dataset, input.source, seen)));
    }
    const unique = new Map(all.map((entry) => [`${entry.file.located.file}\u0000${entry.file.name}`, entry]));
    return [...unique.values()];
  }

  /** One client per portal, so that its requests go one at a time and its findings (paging methods) are shared. */
  private client(source: CkanSourceDefinition): CkanClient {
    let client = this.clients.get(source.portal);
    if (!client) {
      const env = this.mirror.env ?? process.env;
      const token = source.tokenEnv ? (env[source.tokenEnv] ?? null) : null;
      if (source.tokenEnv && !token)
        throw new Error(`the environment variable ${source.tokenEnv}, which holds the portal's API token, is not set`);
      client = new CkanClient(source.portal, {
        ...this.mirror.client,
        token,
        ...(this.mirror.logger ? { logger: this.mirror.logger } : {}),
      });
      this.clients.set(source.portal, client);
    }
    return client;
  }

  private upstream(source: CkanSourceDefinition): UpstreamResource {
    return new UpstreamResource(this.client(source), source.resource, this.mirror);
  }

  /**
   * The probe of a mirrored resource: the latest taken this load (see `reprobe`). It is what the resource's checksum
   * is made from, and what its copy is verified against.
   */
  probeOf(source: CkanSourceDefinition): Promise<Probe> {
    let found = this.probes.get(source.resource);
    if (!found) {
      found = this.freshProbe(source);
      this.probes.set(source.resource, found);
    }
    return found;
  }

  /** Probes the resource again; the new probe replaces the one a copy is verified against. */
  reprobe(source: CkanSourceDefinition): Promise<Probe> {
    const probe = this.freshProbe(source);
    this.probes.set(source.resource, probe);
    return probe;
  }

  private freshProbe(source: CkanSourceDefinition): Promise<Probe> {
    const client = this.client(source);
    let slots = this.probeSlots.get(source.portal);
    if (!slots) {
      slots = new Slots(client.portal.slots.limit);
      this.probeSlots.set(source.portal, slots);
    }
    const timeout = this.mirror.probeTimeoutMs ?? 60_000;
    return slots.run(() => this.upstream(source).probe(Date.now() + timeout));
  }

  /**
   * Whether a mirrored resource that changed may be copied now: a fresh probe must agree with the one before it (taken
   * a settle interval earlier), and the portal's own loader, where it says anything, must say its load is complete.
   * Returns why not, or null.
   */
  async unsettled(resource: ResourceDefinition, settleMs: number): Promise<string | null> {
    if (resource.source.kind !== 'ckan') return null;
    const source = resource.source;
    const first = await this.probeOf(source);
    const second = await this.reprobe(source);
    const difference = probeDifference(first, second);
    if (difference)
      return `the upstream is still changing (${difference}, within ${formatSeconds(settleMs)}): most likely a reload in progress`;
    const timeout = this.mirror.probeTimeoutMs ?? 60_000;
    return loaderVeto(await this.upstream(source).loaderWord(Date.now() + timeout));
  }

  /**
   * Why a changed mirrored resource must settle before it is copied (looked at again a settle interval later), or null
   * when the change is one a patch takes at once: the same table (oid), fields and loader at rest, no fewer records
   * and no lower largest `_id` than the copy holds. A first copy settles too: nothing says its table is complete.
   */
  async settleReason(resource: ResourceDefinition, previous: ResourceLoadRecord | null): Promise<string | null> {
    if (resource.source.kind !== 'ckan') return null;
    const recorded = previous?.inputs?.find((i) => i.upstream)?.upstream;
    if (!previous || !recorded) return 'a first copy';
    const probe = await this.probeOf(resource.source);
    if (recorded.oid === undefined || recorded.oid !== probe.oid) return 'its table may have been re-created';
    if (recorded.fieldsHash !== probe.fieldsHash) return 'its fields changed';
    if (probe.total < recorded.total || probe.maxId < recorded.maxId) return 'it has fewer records';
    const timeout = this.mirror.probeTimeoutMs ?? 60_000;
    const word = await this.upstream(resource.source).loaderWord(Date.now() + timeout);
    return loaderVeto(word);
  }

  /** Records a resource is expected to have, where its source says so before it is read (a mirror's total). */
  async expectedRows(resource: ResourceDefinition): Promise<number | null> {
    if (resource.source.kind !== 'ckan') return null;
    return (await this.probeOf(resource.source).catch(() => null))?.total ?? null;
  }

  /**
   * A mirrored resource's checksum is its upstream probe's fingerprint: a change upstream reloads it. An upstream that
   * looks mid-reload, whose fields no longer match the catalogue's, or that cannot be read, is a problem, so the last
   * good copy keeps serving.
   */
  private async mirrorInputs(
    resource: ResourceDefinition,
    source: CkanSourceDefinition,
    previous: ResourceLoadRecord | null,
  ): Promise<{ sha256: string; inputs: InputRecord[]; files: ResolvedFile[] }> {
    const probe = await this.probeOf(source);
    const seen = previous?.inputs?.find((i) => i.upstream)?.upstream ?? (previous ? { total: previous.total } : null);
    const reloading = looksMidReload(probe, seen);
    if (reloading) throw new UpstreamReloading(`${source.portal} resource ${source.resource}: ${reloading}`);
    const difference = schemaDifference(probe.fields, resource.fields);
    if (difference) {
      throw new Error(
        `${source.portal} resource ${source.resource}: the upstream fields changed (${difference}); run \`count-centre mirror\` again to take the new fields`,
      );
    }
    const client = this.client(source);
    const input: InputRecord = {
      path: `${client.apiBase}datastore_search?resource_id=${encodeURIComponent(source.resource)}`,
      sha256: probe.fingerprint,
      bytes: 0,
      upstream: {
        total: probe.total,
        maxId: probe.maxId,
        fieldsHash: probe.fieldsHash,
        modified: probe.modified,
        oid: probe.oid,
      },
    };
    // The probe does not see an edit in the middle of a table; where the copy's blocks were hashed by the portal, their
    // hashes now are part of the checksum, so that any edit is seen (at the cost of one query the portal runs).
    const blocks = previous?.inputs?.find((i) => i.upstream)?.upstream?.blocks;
    const theirs = blocks?.method === 'sql' ? await this.portalHashes(source, resource.fields, blocks.size) : null;
    return { sha256: theirs ? withBlocks(probe.fingerprint, theirs) : probe.fingerprint, inputs: [input], files: [] };
  }

  /** The files of a resource, its combined checksum, and what each file says of its origin. */
  async inputsOf(
    resource: ResourceDefinition,
    previous: ResourceLoadRecord | null = null,
  ): Promise<{ sha256: string; inputs: InputRecord[]; files: ResolvedFile[] }> {
    if (resource.source.kind === 'ckan') return this.mirrorInputs(resource, resource.source, previous);
    const entries = await this.sourceFiles(this.dataset(resource), resource.source);
    const inputs = await Promise.all(
      entries.map(async ({ file, source }): Promise<InputRecord> => ({
        path: file.name,
        sha256: file.scan.sha256,
        bytes: file.scan.bytes,
        ...(await this.about(file, source)),
      })),
    );
    return { sha256: combinedChecksum(entries.map((e) => e.file)), inputs, files: entries.map((e) => e.file) };
  }

  /** A preset layout's files name the page they were taken from; that is part of the resource's provenance. */
  private about(file: ResolvedFile, source: LayoutSourceDefinition): Promise<{ title?: string; url?: string }> {
    const preset = LAYOUT_PRESETS[source.layout];
    if (!preset?.about) return Promise.resolve({});
    const key = `${file.located.file}\u0000${source.layout}`;
    let found = this.abouts.get(key);
    if (!found) {
      found = decodedText(file.located.file, file.scan, source.repair).then((text) => {
        let document: Record<string, unknown>;
        try {
          document = JSON.parse(text) as Record<string, unknown>;
        } catch {
          return {};
        }
        const at = (pointer: string) =>
          pointer
            .slice(1)
            .split('/')
            .reduce<unknown>(
              (v, s) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined),
              document,
            );
        const title = at(preset.about!.title);
        const url = at(preset.about!.url);
        return { ...(typeof title === 'string' ? { title } : {}), ...(typeof url === 'string' ? { url } : {}) };
      });
      this.abouts.set(key, found);
    }
    return found;
  }

  /**
   * What the rows are made from and how, as a hash: a resource is reloaded when it changes (fields, parsing, a
   * transform's options, its version, or anything of its inputs', which it is derived from).
   */
  specHash(resource: ResourceDefinition): string {
    const dataset = this.dataset(resource);
    const describe = (source: SourceDefinition, fields: FieldDefinition[], seen: Set<string>): unknown => {
      if (source.kind === 'ckan') return { source, fields };
      if (source.kind === 'layout') {
        // An option added later is left out at its default, so that adding it does not reload every file.
        const described = Object.fromEntries(
          Object.entries(source).filter(
            ([key, value]) =>
              !Object.hasOwn(LAYOUT_OPTIONS_ADDED_LATER, key) || LAYOUT_OPTIONS_ADDED_LATER[key] !== value,
          ),
        );
        return { source: described, fields };
      }
      const inputs = Object.fromEntries(
        Object.entries(source.inputs).map(([name, refs]) => [
          name,
          refs.map((ref) => {
            const input = this.input(dataset, ref);
            if (seen.has(input.key)) return input.key;
            return describe(input.source, input.fields, new Set([...seen, input.key]));
          }),
        ]),
      );
      return {
        transform: source.transform,
        version: TRANSFORM_SPECS[source.transform]?.version,
        options: source.options,
        inputs,
        election: dataset.election,
        fields,
      };
    };
    const { fields, indexes } = resource;
    return sha256(
      JSON.stringify({
        fields,
        indexes,
        source: describe(resource.source, fields, new Set([`resource:${resource.id}`])),
        fullTextLanguage: this.catalog.fullTextLanguage,
        LOADER_VERSION,
      }),
    );
  }

  /**
   * A resource's rows, checked against its fields: streamed from a layout source or a mirror, or derived; in batches,
   * so that the steps of asynchronous iteration are one a batch (see readLayout).
   */
  async *rows(resource: ResourceDefinition): AsyncGenerator<TableRow[]> {
    if (resource.source.kind === 'layout') {
      yield* this.readLayoutSource(resource.source, resource.fields);
      return;
    }
    if (resource.source.kind === 'ckan') {
      yield* inBatches(this.readMirror(resource.source, resource.fields));
      return;
    }
    const { rows } = await this.derived(resource, resource.source);
    for (let i = 0; i < rows.length; i += ROWS_A_BATCH) yield rows.slice(i, i + ROWS_A_BATCH);
  }

  private async *readLayoutSource(
    source: LayoutSourceDefinition,
    fields: readonly FieldDefinition[],
  ): AsyncGenerator<TableRow[]> {
    const { files, corrections: correctionFiles } = await this.layoutFiles(source);
    const corrections = await readCorrections(correctionFiles);
    yield* readLayout({ source, fields, files, corrections });
    checkAllUsed(
      corrections,
      files.map((f) => f.name),
    );
  }

  /** The route a mirrored resource is copied by this time: the dump, unless ruled out (the portal has none, tests). */
  private copyRoute(source: CkanSourceDefinition): CopyRoute {
    const routes = this.mirror.routes ?? ['dump', 'pages'];
    return routes[0] === 'dump' && !this.dumpMissing.has(source.portal) && !this.pagesOnly.has(source.resource)
      ? 'dump'
      : 'pages';
  }

  /** The resource's dump could not be used: it is copied page by page from now on this load, and the reason told. */
  dumpUnusable(source: CkanSourceDefinition, err: DumpUnusable): void {
    if (err.routeMissing) this.dumpMissing.add(source.portal);
    this.pagesOnly.add(source.resource);
    const note = `the dump was not used (${err.message}); copied page by page`;
    this.mirrorNotes.set(source.resource, note);
    this.mirror.logger?.warn(
      { resource: source.resource, portal: source.portal },
      `${source.portal} resource ${source.resource}: ${note}`,
    );
  }

  /**
   * Starts downloading a mirrored resource's dump ahead of its turn, so that first copies of many resources come side
   * by side (the client keeps to the portal's limit of requests at once); its turn reads the file. What goes wrong is
   * found there, as if the dump had been asked for then.
   */
  prefetch(resource: ResourceDefinition): void {
    const source = resource.source;
    if (source.kind !== 'ckan' || this.prefetched.has(source.resource) || this.copyRoute(source) !== 'dump') return;
    const download = this.probeOf(source).then((before) =>
      openDump(this.upstream(source), resource.fields, before, this.mirror.dump),
    );
    this.prefetched.set(
      source.resource,
      download.catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
    );
  }

  /**
   * A copy of a mirrored resource, verified against the probe its checksum was made from (the latest, `probeOf`):
   * from the dump, downloaded, then read and checked as it goes, or page by page; a copy that does not add up (the
   * upstream changed meanwhile, records are missing) throws at the latest after its last row, so that the load
   * session discards it and the previous copy keeps serving. A dump the portal will not give is replaced by pages at
   * once; one found unusable part way throws DumpUnusable, for the load to copy the resource again by pages.
   */
  private async *readMirror(
    source: CkanSourceDefinition,
    fields: readonly FieldDefinition[],
  ): AsyncGenerator<TableRow> {
    const upstream = this.upstream(source);
    const before = await this.probeOf(source);
    const difference = schemaDifference(before.fields, fields);
    if (difference)
      throw new Error(
        `${source.portal} resource ${source.resource}: the upstream fields changed (${difference}); run \`count-centre mirror\` again to take the new fields`,
      );
    if (!this.pagesOnly.has(source.resource)) this.mirrorNotes.delete(source.resource);
    const hasher = new BlockHasher(this.mirror.blockSize ?? 1000);
    this.copyHashes.set(source.resource, hasher);
    if (this.copyRoute(source) === 'dump') {
      let dump;
      try {
        const ahead = this.prefetched.get(source.resource);
        this.prefetched.delete(source.resource);
        const early = ahead ? await ahead : null;
        if (early instanceof Error) throw early;
        dump = early ?? (await openDump(upstream, fields, before, this.mirror.dump));
      } catch (err) {
        if (!(err instanceof DumpUnusable)) throw err;
        this.dumpUnusable(source, err);
      }
      if (dump) {
        this.mirrorMethods.set(source.resource, 'dump');
        for await (const row of dump.rows()) {
          hasher.add(row.id, row.values);
          yield row;
        }
        return;
      }
    }
    let count = 0;
    let lastId = 0;
    for await (const row of upstream.records(fields)) {
      count += 1;
      lastId = row.id;
      hasher.add(row.id, row.values);
      yield row;
    }
    if (upstream.lastMethod) this.mirrorMethods.set(source.resource, upstream.lastMethod);
    verifyCopy(before, await upstream.probe(), { count, lastId });
  }

  /** The portal's block hashes of a mirrored resource, asked for once per load (null: it does not answer them). */
  private portalHashes(
    source: CkanSourceDefinition,
    fields: readonly FieldDefinition[],
    size: number,
  ): Promise<BlockHashes | null> {
    let found = this.blockHashes.get(source.resource);
    if (!found) {
      found = portalBlockHashes(this.upstream(source), fields, size);
      this.blockHashes.set(source.resource, found);
    }
    return found;
  }

  /**
   * Records with a finished copy of a mirrored resource the hashes of its blocks, for a later refresh to compare, and
   * the checksum they make with the probe the copy was verified against: the portal's own hashes
   * (datastore_search_sql), when it offers them and has not changed since the copy was verified, else those of the
   * records as copied (always those of the published data).
   */
  async recordBlocks(
    resource: ResourceDefinition,
    base: { sourceSha256: string; inputs?: InputRecord[] },
  ): Promise<void> {
    if (resource.source.kind !== 'ckan') return;
    const source = resource.source;
    const input = base.inputs?.find((i) => i.upstream);
    const copied = this.copyHashes.get(source.resource);
    if (!input?.upstream || !copied) return;
    const upstream = this.upstream(source);
    const theirs = await portalBlockHashes(upstream, resource.fields, copied.size).catch(() => null);
    if (theirs && (await upstream.probe().catch(() => null))?.fingerprint === input.sha256) {
      input.upstream.blocks = theirs;
      base.sourceSha256 = withBlocks(input.sha256, theirs);
    } else {
      input.upstream.blocks = copied.result();
      base.sourceSha256 = input.sha256;
    }
  }

  /** The checksum a patch records: the probe's, with the portal's block hashes where they were compared. */
  patchedChecksum(inputs: readonly InputRecord[], hashes: BlockHashes): string {
    const input = inputs.find((i) => i.upstream);
    if (!input) throw new Error('a mirrored resource without its upstream recorded');
    return hashes.method === 'sql' ? withBlocks(input.sha256, hashes) : input.sha256;
  }

  /**
   * How a changed mirrored resource is brought up to date from its copy (`previous`): which `_id` ranges to read again,
   * or why it is copied whole (no hashes recorded with the copy, its fields changed, too many changes).
   */
  async changesSince(resource: ResourceDefinition, previous: ResourceLoadRecord): Promise<ChangePlan> {
    if (resource.source.kind !== 'ckan') return { kind: 'full', reason: 'not a mirrored resource' };
    const source = resource.source;
    const probe = await this.probeOf(source);
    const recorded = previous.inputs?.find((i) => i.upstream)?.upstream;
    if (!recorded?.blocks || !previous.table) return { kind: 'full', reason: 'its copy recorded no block hashes' };
    if (recorded.fieldsHash !== probe.fieldsHash) return { kind: 'full', reason: 'its fields changed' };
    const theirs =
      recorded.blocks.method === 'sql' ? await this.portalHashes(source, resource.fields, recorded.blocks.size) : null;
    return planChanges(
      this.upstream(source),
      resource.fields,
      recorded.blocks,
      theirs,
      { total: previous.total, maxId: previous.maxId },
      probe,
      {
        maxShare: this.mirror.patchMaxShare ?? 0.1,
        sampleBlocks: this.mirror.sampleBlocks ?? 8,
      },
    );
  }

  /**
   * The records a patch replaces the plan's ranges with, then a check that the portal is as the plan found it (the same
   * fingerprint): a patch of a table that changed meanwhile throws MirrorMismatch, and is not published.
   */
  async *patchRows(
    resource: ResourceDefinition,
    plan: Extract<ChangePlan, { kind: 'patch' }>,
  ): AsyncGenerator<TableRow & { id: number }> {
    if (resource.source.kind !== 'ckan') return;
    const source = resource.source;
    const before = await this.probeOf(source);
    const upstream = this.upstream(source);
    if (plan.records) yield* plan.records;
    else for (const range of plan.ranges) yield* recordsIn(upstream, resource.fields, range, plan.viaSql);
    const after = await upstream.probe();
    const difference = probeDifference(before, after);
    if (difference) throw new MirrorMismatch(`the upstream changed while it was patched (${difference})`, true);
  }

  /** An input of a derivation, read (or derived) once per load however many derivations take it. */
  private table(dataset: DatasetDefinition, ref: InputReference): Promise<Table> {
    const input = this.input(dataset, ref);
    if (input.source.kind === 'derived') return this.derived(input.resource!, input.source);
    const source = input.source;
    let found = this.tables.get(input.key);
    if (!found) {
      found = (async (): Promise<Table> => {
        const rows: TableRow[] = [];
        if (source.kind === 'ckan') for await (const row of this.readMirror(source, input.fields)) rows.push(row);
        else
          for await (const batch of this.readLayoutSource(source, input.fields))
            for (const row of batch) rows.push(row);
        return { fields: input.fields, rows };
      })();
      this.tables.set(input.key, found);
    }
    return found;
  }

  /** One table from several: each projected onto the columns the transform reads of it. */
  private async inputTable(
    dataset: DatasetDefinition,
    refs: readonly InputReference[],
    columns: readonly string[],
  ): Promise<Table> {
    const tables = await Promise.all(refs.map((ref) => this.table(dataset, ref)));
    if (tables.length === 1) return tables[0]!;
    const fields = columns.map((id) => tables[0]!.fields.find((f) => f.id === id)!);
    const rows = tables.flatMap((table) => {
      const positions = columns.map((id) => table.fields.findIndex((f) => f.id === id));
      return table.rows.map((row) => ({ origin: row.origin, values: positions.map((p) => row.values[p] ?? null) }));
    });
    return { fields, rows };
  }

  private derived(resource: ResourceDefinition, source: DerivedSourceDefinition): Promise<Table> {
    const key = `derived:${resource.id}`;
    let found = this.tables.get(key);
    if (!found) {
      found = this.derive(resource, source);
      this.tables.set(key, found);
    }
    return found;
  }

  private async derive(resource: ResourceDefinition, source: DerivedSourceDefinition): Promise<Table> {
    const dataset = this.dataset(resource);
    const spec = TRANSFORM_SPECS[source.transform]!;
    const inputs: Record<string, Table | null> = {};
    for (const [name, inputSpec] of Object.entries(spec.inputs)) {
      const refs = source.inputs[name];
      inputs[name] = refs ? await this.inputTable(dataset, refs, Object.keys(inputSpec.columns)) : null;
    }
    const transform = TRANSFORMS[source.transform];
    if (!transform) throw new Error(`no code derives ${source.transform}`);
    let derivedRows;
    try {
      derivedRows = transform({ inputs, options: source.options, dataset });
    } catch (err) {
      throw await this.withLine(err);
    }
    const rows: TableRow[] = [];
    for (const row of derivedRows) {
      const values: StoredValue[] = new Array(resource.fields.length);
      for (let i = 0; i < resource.fields.length; i++) {
        const field = resource.fields[i]!;
        if (!(field.column in row.values))
          throw new LoadError(source.transform, null, null, `yielded no column "${field.column}"`);
        try {
          values[i] = checkedValue(row.values[field.column], field, row.origin);
        } catch (err) {
          throw await this.withLine(err);
        }
      }
      rows.push({ values, origin: row.origin });
    }
    return { fields: resource.fields, rows };
  }

  /** Adds the line to a problem found at a JSON pointer of a file. */
  private async withLine(err: unknown): Promise<unknown> {
    if (!(err instanceof LoadError) || err.pointer === null || err.line !== null) return err;
    const files = await Promise.allSettled([this.cache.file('sources', err.source, 'auto')]);
    const file = files[0]?.status === 'fulfilled' ? files[0].value : null;
    const line = file ? await jsonLine(file, err.pointer).catch(() => null) : null;
    return line === null ? err : new LoadError(err.source, line, err.column, err.problem, err.pointer);
  }

  async release(): Promise<void> {
    // Dumps downloaded ahead for copies that did not happen (the load stopped, the resource was patched) are removed.
    for (const ahead of this.prefetched.values()) {
      const dump = await ahead;
      if (!(dump instanceof Error)) dump.discard();
    }
    this.prefetched.clear();
    await this.cache.release();
  }
}

/** Rows handed on at a time by a resource's source that does not read in batches of its own. */
const ROWS_A_BATCH = 1000;

async function* inBatches<T>(rows: AsyncIterable<T>): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const row of rows) {
    batch.push(row);
    if (batch.length === ROWS_A_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
