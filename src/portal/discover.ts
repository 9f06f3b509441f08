// What a portal has to copy, found through its public API: every DataStore resource of a dataset (package_show's
// resources with `datastore_active`, each typed by datastore_search with limit 0), the datasets of a whole portal that
// an anonymous user can read (package_search, page by page, within the organisations asked for), those changed since
// a time, and the catalogue entries that copy them.

import type { PortalDefinition } from '../catalog/types.js';
import { withoutDataset, withResource, type DatasetEntry } from '../catalog/edit.js';
import { CkanError, isLosslessNumber, type CkanClient } from './client.js';
import { catalogFields, mappedType, UpstreamResource, type UpstreamField } from './mirror.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a portal's JSON, read field by field and checked as it is used
export type Dict = Record<string, any>;

const plain = (value: unknown): unknown => (isLosslessNumber(value) ? value.value : value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A resource to copy: its catalogue entry, and what `mirror` prints of it. */
export interface PlannedResource {
  id: string;
  name: string;
  dataset: string;
  fields: UpstreamField[];
  /** Fields whose upstream type is served as another type here. */
  notes: string[];
  entry: Record<string, unknown> & { id: string };
}

/** One dataset's part of a mirror: its catalogue keys, the resources copied, and those left to the portal. */
export interface DatasetPlan {
  /** The dataset's name on the portal. */
  portalName: string;
  portalId: string;
  dataset: DatasetEntry;
  resources: PlannedResource[];
  skipped: { id: string; name: string; why: string }[];
}

/** The catalogue's dataset keys from package_show's dict, kept as the portal gives them. */
export function datasetEntry(pkg: Dict, name: string, portal: string): DatasetEntry {
  const entry: DatasetEntry = { name };
  if (text(pkg.title)) entry.title = pkg.title;
  if (text(pkg.notes)) entry.notes = pkg.notes;
  for (const key of ['license_id', 'license_title', 'license_url']) if (text(pkg[key])) entry[key] = pkg[key];
  const organization = text(pkg.organization?.title) || text(pkg.organization?.name);
  if (organization) entry.organization = organization;
  const extras: Record<string, string> = {};
  for (const extra of Array.isArray(pkg.extras) ? (pkg.extras as Dict[]) : []) {
    const value = plain(extra.value);
    if (typeof extra.key !== 'string' || extra.key === '' || value === '' || value === null || value === undefined)
      continue;
    if (extra.key === 'attribution') entry.attribution = String(value);
    else extras[extra.key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  extras.mirror_of = new URL(
    `dataset/${encodeURIComponent(text(pkg.name) || name)}`,
    portal.endsWith('/') ? portal : `${portal}/`,
  ).href;
  entry.extras = extras;
  return entry;
}

/**
 * The resources of a dataset (package_show's dict) to copy, each typed by the portal's DataStore: those without a
 * table, those the DataStore refuses, and those larger than `maxRows` are left to the portal, and said so.
 */
export async function planDataset(
  client: CkanClient,
  pkg: Dict,
  options: { portal: string; dataset?: string; tokenEnv?: string | null; maxRows?: number | null; only?: Dict[] },
): Promise<DatasetPlan> {
  const datasetName = options.dataset ?? text(pkg.name);
  const plan: DatasetPlan = {
    portalName: text(pkg.name),
    portalId: text(pkg.id),
    dataset: datasetEntry(pkg, datasetName, options.portal),
    resources: [],
    skipped: [],
  };
  const wanted = options.only ?? (Array.isArray(pkg.resources) ? (pkg.resources as Dict[]) : []);
  for (const r of wanted) {
    const id = String(r.id);
    if (r.datastore_active === false || (options.only === undefined && r.datastore_active !== true)) {
      plan.skipped.push({ id, name: text(r.name), why: 'no DataStore table (datastore_active is false)' });
      continue;
    }
    let fields: UpstreamField[];
    let total: number;
    try {
      ({ fields, total } = await new UpstreamResource(client, id).schema());
    } catch (err) {
      if (err instanceof CkanError && (err.status === 404 || err.status === 403)) {
        plan.skipped.push({ id, name: text(r.name), why: `datastore_search refused it (HTTP ${err.status})` });
        continue;
      }
      throw err;
    }
    if (options.maxRows !== null && options.maxRows !== undefined && total > options.maxRows) {
      plan.skipped.push({
        id,
        name: text(r.name),
        why: `${total} records, more than the ${options.maxRows} copied at most: left to the portal`,
      });
      continue;
    }
    const entry: PlannedResource['entry'] = {
      id,
      name: text(r.name) || id,
      ...(text(r.description) ? { description: r.description } : {}),
      source: {
        ckan: options.portal,
        resource: id,
        ...(options.tokenEnv ? { token_env: options.tokenEnv } : {}),
      },
      fields: catalogFields(fields).map((f) => ({
        id: f.id,
        type: f.type,
        ...(f.index ? {} : { index: false }),
        ...(f.info ? { info: f.info } : {}),
      })),
    };
    plan.resources.push({
      id,
      name: String(entry.name),
      dataset: datasetName,
      fields,
      notes: fields.flatMap((f) => {
        const note = mappedType(f.type).note;
        return note ? [`"${f.id}": ${note}`] : [];
      }),
      entry,
    });
  }
  return plan;
}

/** Solr's quoting of a value in a filter query. */
function solrValue(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** package_search's `fq` for a whole portal's scope, and for what changed since a time (ISO, UTC). */
export function scopeQuery(scope: Pick<PortalDefinition, 'organizations' | 'excludeOrganizations'>, since?: string) {
  const parts: string[] = [];
  if (scope.organizations.length > 0) parts.push(`organization:(${scope.organizations.map(solrValue).join(' OR ')})`);
  for (const name of scope.excludeOrganizations) parts.push(`-organization:${solrValue(name)}`);
  if (since) parts.push(`metadata_modified:[${since} TO *]`);
  return parts.join(' ');
}

/** Datasets per package_search page: CKAN's default ckan.search.rows_max. */
const SEARCH_PAGE = 1000;

/**
 * Every dataset in the scope that an anonymous user can read (package_search: public, active), page by page, in a
 * stable order; with `since`, only those whose metadata moved since then. Datasets as package_search gives them, with
 * their resources.
 */
export async function searchDatasets(
  client: CkanClient,
  scope: Pick<PortalDefinition, 'organizations' | 'excludeOrganizations'>,
  since?: string,
): Promise<Dict[]> {
  const found: Dict[] = [];
  const fq = scopeQuery(scope, since);
  for (let start = 0; ; start += SEARCH_PAGE) {
    const result = await client.action('package_search', {
      q: '*:*',
      ...(fq ? { fq } : {}),
      rows: SEARCH_PAGE,
      start,
      sort: 'name asc',
      include_private: false,
    });
    const page = Array.isArray(result?.results) ? (result.results as Dict[]) : [];
    found.push(...page.filter((pkg) => pkg.private !== true && (pkg.state ?? 'active') === 'active'));
    const count = Number(plain(result?.count) ?? 0);
    if (page.length < SEARCH_PAGE || start + page.length >= count) return found;
  }
}

/**
 * The catalogue text with these datasets' entries put in (each replaced whole: a resource gone is gone) and those named
 * in `withdrawn` taken out. A dataset with nothing to copy is taken out as well.
 */
export function catalogWithDatasets(text: string, plans: readonly DatasetPlan[], withdrawn: readonly string[] = []) {
  let edited = text;
  for (const name of withdrawn) edited = withoutDataset(edited, name);
  for (const plan of plans) {
    edited = withoutDataset(edited, plan.dataset.name);
    for (const resource of plan.resources) edited = withResource(edited, plan.dataset, resource.entry);
  }
  return edited;
}

/** The catalogue's `portal` entry for a whole portal's scope, as the catalogue file writes it. */
export function portalJson(scope: PortalDefinition): Record<string, unknown> {
  return {
    url: scope.url,
    ...(scope.organizations.length > 0 ? { organizations: scope.organizations } : {}),
    ...(scope.excludeOrganizations.length > 0 ? { exclude_organizations: scope.excludeOrganizations } : {}),
    ...(scope.maxRows !== null ? { max_rows: scope.maxRows } : {}),
    ...(scope.tokenEnv ? { token_env: scope.tokenEnv } : {}),
  };
}

/** Runs `work` over `items`, at most `width` at a time, in order of the results. */
export async function inTurn<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await work(items[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
