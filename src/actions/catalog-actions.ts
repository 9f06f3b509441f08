// The catalogue actions clients call before they query: package_list, package_show, resource_show, status_show and
// site_read, answered from the catalogue in the shapes CKAN gives them.

import { datasetId, type Catalog, type CatalogResource } from '../catalog/catalog.js';
import { isOpenLicence } from '../catalog/licences.js';
import type { DatasetDefinition } from '../catalog/types.js';
import { errors } from '../errors.js';
import { ParamProblem, toInteger } from '../query/coerce.js';
import { requiredText, type ParamSpec } from '../query/params.js';
import { documented } from './help-text.js';
import { paramValues } from './validation.js';

import { COUNT_CENTRE_VERSION } from '../version.js';

export { COUNT_CENTRE_VERSION };
/**
 * The newest CKAN release whose read API is served (its filters, next_page, datastore_info parameters): clients that
 * branch on versions may use 2.12's features. Everything 2.10 and 2.11 clients read is still there
 * (docs/compatibility.md).
 */
export const CKAN_COMPATIBLE_VERSION = '2.12.0';

/** CKAN's timestamps: ISO 8601 without zone, to the microsecond. */
function ckanTimestamp(iso: string): string {
  return iso.replace(/Z$/, '').replace(/\.(\d{3})$/, '.$1000');
}

/** Validates parameters against an action's table; unknown names are ignored, as CKAN's catalogue actions do. */
function read(specs: readonly ParamSpec[], input: Record<string, unknown>): Map<string, unknown> {
  // An empty value counts as missing, as CKAN's not_empty and ignore_missing treat it.
  return paramValues(specs, Object.fromEntries(Object.entries(input).filter(([, v]) => v !== '')));
}

const naturalNumber = (value: unknown) => {
  const number = toInteger(value);
  if (number < 0) throw new ParamProblem(['Must be a natural number']);
  return number;
};

function datasetResources(catalog: Catalog, dataset: DatasetDefinition): CatalogResource[] {
  return dataset.resources.map((r) => catalog.get(r.id)).filter((r): r is CatalogResource => r !== undefined);
}

function resourceDict(resource: CatalogResource, position: number, siteUrl: string): Record<string, unknown> {
  const { definition, stored, dataset } = resource;
  const loaded = ckanTimestamp(stored.loadedAt);
  return {
    cache_last_updated: null,
    cache_url: null,
    created: loaded,
    datastore_active: true,
    datastore_contains_all_records_of_source_file: true,
    description: definition.description,
    format: 'CSV',
    hash: `sha256:${stored.sourceSha256}`,
    id: resource.id,
    last_modified: loaded,
    metadata_modified: loaded,
    mimetype: 'text/csv',
    mimetype_inner: null,
    name: definition.name,
    package_id: dataset ? datasetId(dataset.name) : null,
    position,
    resource_type: null,
    size: null,
    state: 'active',
    url: `${siteUrl}/datastore/dump/${resource.id}`,
    url_type: 'datastore',
  };
}

/**
 * The dataset's `extras`, sorted by key as CKAN sorts them: the catalogue's statements (attribution, source, what is
 * unofficial), the election's facts, and from the load, the files the data came from, the pages to attribute and
 * the resource holding the consistency checks. docs/api.md lists the keys.
 */
export function datasetExtras(
  dataset: DatasetDefinition,
  resources: readonly CatalogResource[],
): { key: string; value: string }[] {
  const extras = new Map<string, string>();
  if (dataset.attribution) extras.set('attribution', dataset.attribution);
  for (const extra of dataset.extras) extras.set(extra.key, extra.value);
  const { election } = dataset;
  if (election) {
    extras.set('election_date', election.date);
    if (election.seats !== null) extras.set('seats', String(election.seats));
    if (election.ceannComhairle)
      extras.set(
        'ceann_comhairle',
        `${election.ceannComhairle.name} (${election.ceannComhairle.constituency}), returned without a contest`,
      );
  }
  const inputs = resources.flatMap((r) => r.stored.inputs ?? []);
  if (inputs.length > 0) {
    const files = new Map(inputs.map((i) => [i.path, i.sha256]));
    extras.set('source_files', JSON.stringify([...files].map(([path, sha256]) => ({ path, sha256 }))));
    const urls = [...new Set(inputs.flatMap((i) => (i.url ? [i.url] : [])))];
    if (urls.length > 0) extras.set('attribution_urls', JSON.stringify(urls));
  }
  const checks = resources.find((r) => r.definition.role === 'checks');
  if (checks) extras.set('consistency_checks', checks.id);
  return [...extras].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, value]) => ({ key, value }));
}

function packageDict(catalog: Catalog, dataset: DatasetDefinition, siteUrl: string): Record<string, unknown> {
  const resources = datasetResources(catalog, dataset);
  const times = resources.map((r) => r.stored.loadedAt).sort();
  const created = times.length > 0 ? ckanTimestamp(times[0]!) : null;
  const modified = times.length > 0 ? ckanTimestamp(times[times.length - 1]!) : null;
  const organization = dataset.organization
    ? {
        id: datasetId(`organization ${dataset.organization}`),
        name: dataset.organization
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, ''),
        title: dataset.organization,
        type: 'organization',
        description: '',
        image_url: '',
        created,
        is_organization: true,
        approval_status: 'approved',
        state: 'active',
      }
    : null;
  return {
    author: dataset.organization || null,
    author_email: null,
    creator_user_id: null,
    id: datasetId(dataset.name),
    isopen: dataset.licenseId.startsWith('CC-BY') || isOpenLicence(dataset.licenseId),
    license_id: dataset.licenseId,
    license_title: dataset.licenseTitle,
    license_url: dataset.licenseUrl,
    maintainer: null,
    maintainer_email: null,
    metadata_created: created,
    metadata_modified: modified,
    name: dataset.name,
    notes: dataset.notes,
    num_resources: resources.length,
    num_tags: 0,
    organization,
    owner_org: organization ? organization.id : null,
    private: false,
    state: 'active',
    title: dataset.title,
    type: 'dataset',
    url: dataset.url,
    version: null,
    extras: datasetExtras(dataset, resources),
    resources: resources.map((r, i) => resourceDict(r, i, siteUrl)),
    tags: [],
    groups: [],
    relationships_as_subject: [],
    relationships_as_object: [],
  };
}

const packageListParams: ParamSpec[] = [
  {
    name: 'limit',
    type: 'int',
    coerce: naturalNumber,
    schema: { type: 'integer', minimum: 0 },
    example: 10,
    description:
      'if given, the list of datasets will be broken into pages of at most limit datasets per page and only one page will be returned at a time',
  },
  {
    name: 'offset',
    type: 'int',
    coerce: naturalNumber,
    schema: { type: 'integer', minimum: 0 },
    example: 0,
    description: 'when limit is given, the offset to start returning packages from',
  },
];
const packageShowParams = [requiredText('id', 'general-election-2020', 'the id or name of the dataset')];
const resourceShowParams = [requiredText('id', '60728fc9-2896-41d8-a70c-9c01dd3d57ce', 'the id of the resource')];

export const packageListAction = documented({
  name: 'package_list',
  params: packageListParams,
  summary: "Return a list of the names of the site's datasets (packages).",
  results: 'A list of dataset names.',
  async run({ params }, { catalog }) {
    const values = read(packageListParams, params);
    const limit = (values.get('limit') as number | undefined) ?? null;
    const offset = (values.get('offset') as number | undefined) ?? 0;
    const names = catalog.definition.datasets
      .filter((d) => datasetResources(catalog, d).length > 0)
      .map((d) => d.name)
      .sort();
    return names.slice(offset, limit === null ? undefined : offset + limit);
  },
});

export const packageShowAction = documented({
  name: 'package_show',
  params: packageShowParams,
  summary: 'Return the metadata of a dataset (package) and its resources.',
  results:
    'The dataset: name, title, notes, license (license_id, license_title, license_url), organization, extras (with the attribution the licence requires), and its resources as resource_show gives them.',
  async run({ params, siteUrl }, { catalog }) {
    const id = read(packageShowParams, params).get('id') as string;
    const dataset = catalog.definition.datasets.find((d) => d.name === id || datasetId(d.name) === id);
    if (!dataset || datasetResources(catalog, dataset).length === 0) throw errors.notFound('');
    return packageDict(catalog, dataset, siteUrl);
  },
});

export const resourceShowAction = documented({
  name: 'resource_show',
  params: resourceShowParams,
  summary: 'Return the metadata of a resource.',
  results:
    'The resource: id, name, description, format, url (its full download, /datastore/dump/<id>), datastore_active, package_id, position, timestamps and the checksum of its source.',
  async run({ params, siteUrl }, { catalog }) {
    const id = read(resourceShowParams, params).get('id') as string;
    const resource = catalog.get(id);
    if (!resource || !resource.dataset) throw errors.notFound('Resource was not found.');
    const position = datasetResources(catalog, resource.dataset).findIndex((r) => r.id === id);
    return resourceDict(resource, position, siteUrl);
  },
});

export const statusShowAction = documented({
  name: 'status_show',
  params: [],
  summary: "Return a dictionary with information about the site's configuration.",
  results:
    'site_title, site_description, site_url, ckan_version (the newest CKAN release whose read API this service serves; 2.10 and 2.11 clients are answered as before), count_centre_version, locale_default, error_emails_to and extensions.',
  async run({ siteUrl }, { settings }) {
    return {
      site_title: 'Count Centre',
      site_description: 'A read-only, CKAN-compatible DataStore query service.',
      site_url: siteUrl,
      ckan_version: CKAN_COMPATIBLE_VERSION,
      count_centre_version: COUNT_CENTRE_VERSION,
      error_emails_to: null,
      locale_default: settings.locale,
      extensions: ['datastore'],
    };
  },
});

export const siteReadAction = documented({
  name: 'site_read',
  params: [],
  summary: 'Return true if the site may be read.',
  results: 'true',
  async run() {
    return true;
  },
});
