// In front of a whole portal, in the process that loads: keeps the catalogue in step with the portal and the copy with
// the catalogue. A poll asks the portal what changed portal-wide (one package_search of the datasets modified since the
// last poll, and package_list for those gone private or deleted), then copies, patches or withdraws only those; a write
// passed through and accepted has what it touched copied at once. Every load of the process runs one at a time.

import { renameSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { loadCatalogFile } from '../catalog/load.js';
import type { CatalogDefinition, PortalDefinition } from '../catalog/types.js';
import { buildDatabase, mirrorOptions, type BuildResult } from '../ingest/build.js';
import type { Settings } from '../settings.js';
import { storageFor } from '../stores.js';
import { withLimitedHeapGrowth } from '../util/heap-growth.js';
import { CkanClient, CkanError } from './client.js';
import { catalogWithDatasets, inTurn, planDataset, searchDatasets, type DatasetPlan, type Dict } from './discover.js';
import type { AcceptedWrite } from './pass-through.js';
import { exclusively } from './refresh.js';

/** What one poll found and did. */
export interface PollOutcome {
  changed: string[];
  withdrawn: string[];
  result: BuildResult | null;
}

export interface FrontHooks {
  /** Serve the version the store now holds (this process's services follow the load at once). */
  refreshed(): Promise<unknown>;
  /** The portal's answers kept are no longer to be trusted (a dataset withdrawn, a write copied). */
  forget(): void;
}

/** How far the portal's clock may be from this machine's, for the first poll. */
const CLOCK_MARGIN_MS = 5 * 60_000;

/** The portal's timestamp (UTC, with or without a zone) as Solr reads it. */
function solrTime(stamp: string): string {
  return /[zZ]|[+-]\d\d:?\d\d$/.test(stamp) ? stamp : `${stamp}Z`;
}

export class PortalFront {
  private readonly client: CkanClient;
  /** The newest metadata_modified seen: the next poll asks for what moved since. */
  private since: string | null = null;
  /** Each dataset's metadata_modified when it was last planned, so that a poll does not plan it again for nothing. */
  private readonly seen = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly settings: Settings,
    private readonly scope: PortalDefinition,
    private readonly logger: Logger,
    private readonly hooks: FrontHooks,
    /** A whole portal (`mirror --all`): a write may bring in a new dataset. Else only the datasets copied are. */
    private readonly options: { wholePortal: boolean } = { wholePortal: true },
  ) {
    const token = scope.tokenEnv ? (process.env[scope.tokenEnv] ?? null) : null;
    this.client = new CkanClient(scope.url, {
      contact: settings.mirrorContact,
      concurrency: settings.mirrorConcurrency,
      token,
      logger,
    });
  }

  /** Polls every COUNTCENTRE_PORTAL_POLL_SECONDS, one poll at a time. */
  start(): void {
    const every = this.settings.portalPollSeconds * 1000;
    if (every <= 0) return;
    const cycle = async () => {
      const started = Date.now();
      try {
        if (this.since === null) this.begin();
        const outcome = await this.poll();
        if (outcome.changed.length > 0 || outcome.withdrawn.length > 0)
          this.logger.info(
            { changed: outcome.changed, withdrawn: outcome.withdrawn },
            `portal: ${outcome.changed.length} datasets changed, ${outcome.withdrawn.length} withdrawn`,
          );
      } catch (err) {
        this.logger.warn({ err }, `portal: could not poll for changes: ${(err as Error).message}`);
      }
      if (this.stopped) return;
      this.timer = setTimeout(() => void cycle(), Math.max(0, every - (Date.now() - started)));
      this.timer.unref();
    };
    this.timer = setTimeout(() => void cycle(), every);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Whether a dataset (package_show's or package_search's dict) is one this mirror copies. */
  private inScope(pkg: Dict): boolean {
    if (pkg.private === true || (pkg.state ?? 'active') !== 'active') return false;
    const organization = typeof pkg.organization?.name === 'string' ? (pkg.organization.name as string) : null;
    if (this.scope.organizations.length > 0 && (!organization || !this.scope.organizations.includes(organization)))
      return false;
    return !(organization && this.scope.excludeOrganizations.includes(organization));
  }

  /**
   * Where polls start from: when the catalogue was last written (by `mirror --all`, or this process), less a margin
   * for the two clocks, so that what changed on the portal between the mirror and the start of serving is looked at.
   */
  begin(): void {
    const written = statSync(this.settings.catalog).mtimeMs;
    this.since = new Date(written - CLOCK_MARGIN_MS).toISOString().replace(/Z$/, '');
  }

  /**
   * One poll: the datasets modified since the last one (all, before any) are planned again, those no longer listed
   * (private, deleted) or out of scope withdrawn, and only their resources are probed and copied.
   */
  async poll(): Promise<PollOutcome> {
    const found = await searchDatasets(
      this.client,
      { organizations: [], excludeOrganizations: [] },
      this.since ? solrTime(this.since) : undefined,
    );
    const listed = new Set<string>((await this.client.action('package_list', {})) as string[]);
    const catalog = loadCatalogFile(this.settings.catalog);
    const mirrored = this.mirroredDatasets(catalog);
    const changed = found.filter((pkg) => {
      const modified = String(pkg.metadata_modified ?? '');
      if (!this.since || modified > this.since) this.since = modified;
      return this.seen.get(String(pkg.name)) !== modified;
    });
    const inScope = changed.filter((pkg) => this.inScope(pkg));
    const withdrawn = [
      ...[...mirrored].filter((name) => !listed.has(name)),
      ...changed.filter((pkg) => !this.inScope(pkg) && mirrored.has(String(pkg.name))).map((pkg) => String(pkg.name)),
    ];
    const plans = await inTurn(inScope, 4, (pkg) =>
      planDataset(this.client, pkg, {
        portal: this.scope.url,
        tokenEnv: this.scope.tokenEnv,
        maxRows: this.scope.maxRows,
      }),
    );
    for (const pkg of changed) this.seen.set(String(pkg.name), String(pkg.metadata_modified ?? ''));
    const touched = plans.filter((p) => p.resources.length > 0 || mirrored.has(p.dataset.name));
    if (touched.length === 0 && withdrawn.length === 0) return { changed: [], withdrawn: [], result: null };
    const result = await this.apply(touched, withdrawn, {});
    return { changed: touched.map((p) => p.dataset.name), withdrawn, result };
  }

  /**
   * Copies what a write that the portal accepted touched: its datasets planned again (a new table, a resource gone, a
   * dataset made private), then only their resources probed and patched or copied. No settling: the portal said the
   * write is done.
   */
  async copyWrite(write: AcceptedWrite): Promise<BuildResult | null> {
    const catalog = loadCatalogFile(this.settings.catalog);
    const datasets = new Set<string>(write.datasetIds);
    for (const id of write.resourceIds) {
      const known = catalog.resources.find((r) => r.id === id);
      if (known) {
        datasets.add(known.datasetName);
        continue;
      }
      try {
        const resource = (await this.client.action('resource_show', { id })) as Dict;
        if (typeof resource.package_id === 'string') datasets.add(resource.package_id);
      } catch (err) {
        // A resource the anonymous portal does not show (private, deleted): what the catalogue held of it goes below.
        if (!(err instanceof CkanError) || err.unreachable) throw err;
      }
    }
    const plans: DatasetPlan[] = [];
    const withdrawn: string[] = [];
    for (const id of datasets) {
      try {
        const pkg = (await this.client.action('package_show', { id })) as Dict;
        if (this.inScope(pkg))
          plans.push(
            await planDataset(this.client, pkg, {
              portal: this.scope.url,
              tokenEnv: this.scope.tokenEnv,
              maxRows: this.scope.maxRows,
            }),
          );
        else withdrawn.push(String(pkg.name));
      } catch (err) {
        if (!(err instanceof CkanError) || err.unreachable) throw err;
        // Gone or private: it is withdrawn if it was copied (by name or id).
        if (catalog.datasets.some((d) => d.name === id)) withdrawn.push(id);
      }
    }
    if (!this.options.wholePortal) {
      const mirrored = this.mirroredDatasets(catalog);
      const kept = plans.filter((p) => mirrored.has(p.dataset.name));
      plans.splice(0, plans.length, ...kept);
    }
    // A write to a resource the catalogue held but whose dataset could not be found is withdrawn with it.
    for (const id of write.resourceIds) {
      const known = catalog.resources.find((r) => r.id === id);
      if (known && !plans.some((p) => p.dataset.name === known.datasetName)) withdrawn.push(known.datasetName);
    }
    return this.apply(plans, [...new Set(withdrawn)], { settleMs: 0 });
  }

  /** Datasets of the catalogue copied from this portal. */
  private mirroredDatasets(catalog: CatalogDefinition): Set<string> {
    const url = this.scope.url;
    return new Set(
      catalog.resources.filter((r) => r.source.kind === 'ckan' && r.source.portal === url).map((r) => r.datasetName),
    );
  }

  /** Writes the catalogue with these datasets planned and those withdrawn, then loads only their resources. */
  private apply(
    plans: readonly DatasetPlan[],
    withdrawn: readonly string[],
    overrides: { settleMs?: number },
  ): Promise<BuildResult | null> {
    return exclusively(async () => {
      const file = this.settings.catalog;
      const before = readFileSync(file, 'utf8');
      const after = catalogWithDatasets(
        before,
        plans.filter((p) => p.resources.length > 0),
        [...withdrawn, ...plans.filter((p) => p.resources.length === 0).map((p) => p.dataset.name)],
      );
      if (after !== before) {
        // Written whole or not at all: a reader never sees half a catalogue.
        writeFileSync(`${file}.tmp`, after);
        renameSync(`${file}.tmp`, file);
      }
      const catalog = loadCatalogFile(file);
      const only = new Set(plans.flatMap((p) => p.resources.map((r) => r.id)));
      const target = storageFor(this.settings).loadTarget();
      const options = mirrorOptions(this.settings);
      const result = await withLimitedHeapGrowth(() =>
        buildDatabase({
          catalog,
          sources: this.settings.sources,
          target,
          logger: this.logger,
          only,
          mirror: { ...options, ...(overrides.settleMs === undefined ? {} : { settleMs: overrides.settleMs }) },
        }),
      ).finally(() => target.close());
      if (withdrawn.length > 0 || result.rebuilt) this.hooks.forget();
      if (result.rebuilt) await this.hooks.refreshed();
      return result;
    });
  }
}
