// `count-centre mirror BASE_URL DATASET_OR_RESOURCE_ID…`: discovers the datasets and resources through the portal's
// public API (status_show, package_show or resource_show, datastore_search with limit 0), writes a catalogue entry per
// resource whose source is the portal itself, then loads: the copy is verified and published as every load is.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EMPTY_CATALOG, withResource, type DatasetEntry } from '../catalog/edit.js';
import { parseCatalog } from '../catalog/load.js';
import { CkanClient, CkanError, isLosslessNumber } from '../portal/client.js';
import { catalogFields, mappedType, UpstreamResource, type UpstreamField } from '../portal/mirror.js';

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
}

export interface MirroredResource {
  id: string;
  name: string;
  dataset: string;
  fields: UpstreamField[];
  /** Fields whose upstream type is served as another type here. */
  notes: string[];
}

export interface MirrorPlan {
  portal: string;
  ckanVersion: string | null;
  catalogText: string;
  resources: MirroredResource[];
  /** Resources of the datasets asked for that have no DataStore table, and so are not mirrored. */
  skipped: { id: string; name: string; why: string }[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a portal's JSON, read field by field and checked as it is used
type Dict = Record<string, any>;

const plain = (value: unknown): unknown => (isLosslessNumber(value) ? value.value : value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The catalogue's dataset keys from package_show's dict, kept as the portal gives them. */
function datasetEntry(pkg: Dict, name: string, portal: string): DatasetEntry {
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

/** Finds what to mirror and writes the catalogue text for it (nothing is written to disk here). */
export async function planMirror(request: MirrorRequest, catalogFile: string): Promise<MirrorPlan> {
  const env = request.env ?? process.env;
  const token = request.tokenEnv ? (env[request.tokenEnv] ?? null) : null;
  if (request.tokenEnv && !token) throw new Error(`the environment variable ${request.tokenEnv} is not set`);
  const client = new CkanClient(request.portal, { ...request.client, token, contact: request.contact ?? null });
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
  const resources: MirroredResource[] = [];
  const skipped: MirrorPlan['skipped'] = [];
  for (const id of request.ids) {
    let pkg: Dict;
    let wanted: Dict[];
    try {
      pkg = await client.action('package_show', { id });
      wanted = Array.isArray(pkg.resources) ? pkg.resources : [];
    } catch (err) {
      if (!(err instanceof CkanError) || (err.status !== 404 && err.status !== 409)) throw err;
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
      pkg = await client.action('package_show', { id: resource.package_id });
      wanted = [resource];
    }
    const datasetName = request.dataset ?? text(pkg.name);
    const dataset = datasetEntry(pkg, datasetName, request.portal);
    for (const r of wanted) {
      if (r.datastore_active === false) {
        skipped.push({ id: String(r.id), name: text(r.name), why: 'no DataStore table (datastore_active is false)' });
        continue;
      }
      let fields: UpstreamField[];
      try {
        fields = (await new UpstreamResource(client, String(r.id)).schema()).fields;
      } catch (err) {
        if (err instanceof CkanError && (err.status === 404 || err.status === 403)) {
          skipped.push({
            id: String(r.id),
            name: text(r.name),
            why: `datastore_search refused it (HTTP ${err.status})`,
          });
          continue;
        }
        throw err;
      }
      const entry: Record<string, unknown> & { id: string } = {
        id: String(r.id),
        name: text(r.name) || String(r.id),
        ...(text(r.description) ? { description: r.description } : {}),
        source: {
          ckan: client.apiBase.replace(/api\/3\/action\/$/, ''),
          resource: String(r.id),
          ...(request.tokenEnv ? { token_env: request.tokenEnv } : {}),
        },
        fields: catalogFields(fields).map((f) => ({
          id: f.id,
          type: f.type,
          ...(f.index ? {} : { index: false }),
          ...(f.info ? { info: f.info } : {}),
        })),
      };
      catalogText = withResource(catalogText, dataset, entry);
      resources.push({
        id: entry.id,
        name: String(entry.name),
        dataset: datasetName,
        fields,
        notes: fields.flatMap((f) => {
          const note = mappedType(f.type).note;
          return note ? [`"${f.id}": ${note}`] : [];
        }),
      });
    }
  }
  parseCatalog(JSON.parse(catalogText), {
    text: catalogText,
    name: path.basename(catalogFile),
    baseDir: path.dirname(catalogFile),
  });
  return { portal: client.apiBase.replace(/api\/3\/action\/$/, ''), ckanVersion, catalogText, resources, skipped };
}
