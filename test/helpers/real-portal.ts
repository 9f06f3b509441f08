// A whole portal on a real CKAN, for the opt-in suite that stands Count Centre in front of it: two organisations, a
// group, twenty datasets made through CKAN's own API (six with small DataStore tables, one large one, one private
// with a table, the rest metadata only, with tags and file links), kept between runs (made once, found again by
// name) so that a run does not wait for the large table each time.

import { CkanWriter, TEST_TABLE_FIELDS, testRecords } from './real-ckan.js';

export const PORTAL_PREFIX = 'cc-portal';
export const LARGE_ROWS = 100_000;

export interface SeededPortal {
  organizations: { north: string; south: string };
  group: string;
  /** Every dataset, by name. */
  datasets: string[];
  /** Public datasets with a DataStore table, and the table's resource id. */
  tables: { dataset: string; resource: string }[];
  large: { dataset: string; resource: string };
  /** The private dataset and its table. */
  hidden: { dataset: string; resource: string };
  /** A resource that is a link to a file, with no DataStore table. */
  fileResource: string;
}

const name = (n: number) => `${PORTAL_PREFIX}-${String(n).padStart(2, '0')}`;

async function ensureGroup(writer: CkanWriter, group: string): Promise<void> {
  try {
    await writer.action('group_show', { id: group });
  } catch {
    await writer.action('group_create', { name: group, title: 'Count Centre portal group' });
  }
}

async function ensureOrganization(writer: CkanWriter, organization: string, title: string): Promise<void> {
  try {
    await writer.action('organization_show', { id: organization });
  } catch {
    await writer.action('organization_create', { name: organization, title });
  }
}

/** The dataset's dict, or null when the portal has none of that name. */
async function existing(writer: CkanWriter, dataset: string): Promise<Record<string, any> | null> {
  try {
    return await writer.action('package_show', { id: dataset });
  } catch {
    return null;
  }
}

/** Makes what is missing of the portal, and says what it holds. */
export async function seedPortal(writer: CkanWriter): Promise<SeededPortal> {
  const north = `${PORTAL_PREFIX}-north`;
  const south = `${PORTAL_PREFIX}-south`;
  const group = `${PORTAL_PREFIX}-group`;
  await ensureOrganization(writer, north, 'Count Centre portal, north');
  await ensureOrganization(writer, south, 'Count Centre portal, south');
  await ensureGroup(writer, group);
  const seeded: SeededPortal = {
    organizations: { north, south },
    group,
    datasets: [],
    tables: [],
    large: { dataset: '', resource: '' },
    hidden: { dataset: '', resource: '' },
    fileResource: '',
  };
  for (let n = 1; n <= 20; n++) {
    const dataset = name(n);
    seeded.datasets.push(dataset);
    const withTable = n <= 8;
    const pkg =
      (await existing(writer, dataset)) ??
      (await writer.action('package_create', {
        name: dataset,
        title: `Portal dataset ${n}${n === 7 ? ' (large)' : n === 8 ? ' (private)' : ''}`,
        owner_org: n % 3 === 0 ? south : north,
        private: n === 8,
        notes: `Dataset ${n} of the portal Count Centre stands in front of in its tests.`,
        tags: [{ name: n % 2 === 0 ? 'even' : 'odd' }, { name: 'count-centre' }],
        groups: n % 4 === 0 ? [{ name: group }] : [],
        extras: [{ key: 'frequency', value: n % 2 === 0 ? 'weekly' : 'monthly' }],
        ...(withTable
          ? {}
          : { resources: [{ name: `File ${n}`, url: `http://example.org/files/${n}.csv`, format: 'CSV' }] }),
      }));
    const resources = (pkg.resources ?? []) as { id: string; datastore_active?: boolean }[];
    if (!withTable) {
      if (n === 9) seeded.fileResource = resources[0]!.id;
      continue;
    }
    let table = resources.find((r) => r.datastore_active)?.id;
    if (!table) {
      const rows = n === 7 ? LARGE_ROWS : 200 + n;
      table = await writer.createTable(pkg.id as string, `Table ${n}`, TEST_TABLE_FIELDS, testRecords(rows), 10_000);
    }
    if (n === 7) seeded.large = { dataset, resource: table };
    else if (n === 8) seeded.hidden = { dataset, resource: table };
    seeded.tables.push({ dataset, resource: table });
  }
  seeded.tables = seeded.tables.filter((t) => t.dataset !== seeded.hidden.dataset);
  return seeded;
}
