// `count-centre mirror BASE_URL DATASET_OR_RESOURCE_ID…` and `count-centre mirror BASE_URL --all`: finds what to copy
// through the portal's public API (src/portal/discover.ts), writes a catalogue entry per resource whose source is the
// portal itself (and, for a whole portal, the portal and its scope), then loads: each copy is verified and published
// as every load is.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EMPTY_CATALOG, withPortal } from '../catalog/edit.js';
import { parseCatalog } from '../catalog/load.js';
import type { PortalDefinition } from '../catalog/types.js';
import { CkanClient, CkanError } from '../portal/client.js';
import {
  catalogWithDatasets,
  inTurn,
  planDataset,
  portalJson,
  searchDatasets,
  type DatasetPlan,
  type Dict,
  type PlannedResource,
} from '../portal/discover.js';

export interface MirrorRequest {
  portal: string;
  ids: string[];
  /** The dataset name here (one dataset for everything mirrored by this command). */
  dataset?: string;
  /** Environment variable holding the portal's API token. */
  tokenEnv?: string;
  env?: NodeJS.ProcessEnv;
  contact?: string | null;
  /** Client settings for tests (short waits). */
  client?: ConstructorParameters<typeof CkanClient>[1];
  /** The whole portal (every dataset an anonymous user can read), within these organisations and this size. */
  all?: { organizations?: string[]; excludeOrganizations?: string[]; maxRows?: number | null };
}

export type MirroredResource = Omit<PlannedResource, 'entry'>;

export interface MirrorPlan {
  portal: string;
  ckanVersion: string | null;
  catalogText: string;
  resources: MirroredResource[];
  /** Resources of the datasets asked for that have no DataStore table, or are too large, and so are not mirrored. */
  skipped: { id: string; name: string; why: string }[];
  /** For a whole portal: datasets found. */
  datasets?: number;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Datasets planned at once: the client's own limit keeps the portal's requests within its politeness. */
const PLANNED_AT_ONCE = 4;

/** Finds what to mirror and writes the catalogue text for it (nothing is written to disk here). */
export async function planMirror(request: MirrorRequest, catalogFile: string): Promise<MirrorPlan> {
  const env = request.env ?? process.env;
  const token = request.tokenEnv ? (env[request.tokenEnv] ?? null) : null;
  if (request.tokenEnv && !token) throw new Error(`the environment variable ${request.tokenEnv} is not set`);
  const client = new CkanClient(request.portal, { ...request.client, token, contact: request.contact ?? null });
  const portal = client.apiBase.replace(/api\/3\/action\/$/, '');
  let ckanVersion: string | null = null;
  try {
    const status = await client.action('status_show', {});
    ckanVersion = text(status?.ckan_version) || null;
  } catch (err) {
    // status_show may be hidden; the portal is still tried.
    if (!(err instanceof CkanError) || err.kind === 'network' || err.kind === 'not-json' || err.kind === 'redirect')
      throw err;
  }
  let catalogText = existsSync(catalogFile) ? readFileSync(catalogFile, 'utf8') : EMPTY_CATALOG;
  const plans: DatasetPlan[] = [];
  let withdrawn: string[] = [];
  if (request.all) {
    const scope: PortalDefinition = {
      url: portal,
      organizations: request.all.organizations ?? [],
      excludeOrganizations: request.all.excludeOrganizations ?? [],
      maxRows: request.all.maxRows ?? null,
      tokenEnv: request.tokenEnv ?? null,
    };
    const found = await searchDatasets(client, scope);
    plans.push(
      ...(await inTurn(found, PLANNED_AT_ONCE, (pkg) =>
        planDataset(client, pkg, { portal, tokenEnv: request.tokenEnv, maxRows: scope.maxRows }),
      )),
    );
    // Datasets of this portal copied before and no longer found (private now, deleted, out of scope) go.
    const names = new Set(plans.map((p) => p.dataset.name));
    withdrawn = mirroredDatasets(catalogText, portal).filter((name) => !names.has(name));
    catalogText = withPortal(catalogText, portalJson(scope));
  } else {
    for (const id of request.ids) plans.push(await planNamed(client, id, portal, request));
  }
  catalogText = catalogWithDatasets(
    catalogText,
    plans.filter((p) => p.resources.length > 0),
    [...withdrawn, ...(request.all ? plans.filter((p) => p.resources.length === 0).map((p) => p.dataset.name) : [])],
  );
  parseCatalog(JSON.parse(catalogText), {
    text: catalogText,
    name: path.basename(catalogFile),
    baseDir: path.dirname(catalogFile),
  });
  return {
    portal,
    ckanVersion,
    catalogText,
    resources: plans.flatMap((p) => p.resources.map(({ entry: _entry, ...rest }) => rest)),
    skipped: plans.flatMap((p) => p.skipped),
    ...(request.all ? { datasets: plans.length } : {}),
  };
}

/** A dataset named by its name or id, or the dataset of a resource named by its id, with just that resource. */
async function planNamed(client: CkanClient, id: string, portal: string, request: MirrorRequest): Promise<DatasetPlan> {
  const options = { portal, ...(request.dataset ? { dataset: request.dataset } : {}), tokenEnv: request.tokenEnv };
  try {
    const pkg = (await client.action('package_show', { id })) as Dict;
    const resources = Array.isArray(pkg.resources) ? (pkg.resources as Dict[]) : [];
    return await planDataset(client, pkg, { ...options, only: resources });
  } catch (err) {
    if (!(err instanceof CkanError) || (err.status !== 404 && err.status !== 409)) throw err;
  }
  let resource: Dict;
  try {
    resource = await client.action('resource_show', { id });
  } catch (inner) {
    if (inner instanceof CkanError && (inner.status === 404 || inner.status === 403)) {
      throw new CkanError(
        `${id}: the portal has no public dataset or resource with this name or id (HTTP ${inner.status})`,
        'ckan',
        inner.status,
      );
    }
    throw inner;
  }
  const pkg = (await client.action('package_show', { id: resource.package_id })) as Dict;
  return planDataset(client, pkg, { ...options, only: [resource] });
}

/** Datasets of the catalogue whose resources are copied from this portal. */
export function mirroredDatasets(catalogText: string, portal: string): string[] {
  const document = JSON.parse(catalogText) as { datasets?: { name?: string; resources?: { source?: Dict }[] }[] };
  return (document.datasets ?? [])
    .filter((d) => (d.resources ?? []).some((r) => r.source?.ckan === portal))
    .map((d) => String(d.name));
}
