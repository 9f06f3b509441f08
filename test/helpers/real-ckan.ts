// A real CKAN portal, written to through its action API with a sysadmin's API token: an organisation and a dataset
// for the tests, DataStore tables created and filled in chunks (datastore_create, datastore_upsert), records deleted
// (datastore_delete), and everything purged again. Used by the opt-in suite against a real CKAN and by the bench.

import { isLosslessNumber, parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';

/** Where a real CKAN is for the opt-in tests, and a token allowed to write to it; null when they are not set. */
export function realCkanFromEnv(env: NodeJS.ProcessEnv = process.env): { url: string; token: string } | null {
  const url = env.COUNTCENTRE_TEST_CKAN_URL;
  const token = env.COUNTCENTRE_TEST_CKAN_TOKEN;
  return url && token ? { url: url.endsWith('/') ? url : `${url}/`, token } : null;
}

export interface TableField {
  id: string;
  type: string;
}

export class CkanWriter {
  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  /** Calls an action; numbers in the result keep their digits (LosslessNumber). */
  async action(name: string, params: Record<string, unknown>): Promise<any> {
    const response = await fetch(new URL(`api/3/action/${name}`, this.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: this.token },
      body: stringifyLossless(params) ?? '{}',
    });
    const text = await response.text();
    let body: { success?: boolean; result?: unknown; error?: unknown };
    try {
      body = parseLossless(text) as typeof body;
    } catch {
      throw new Error(`${name}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
    }
    if (!body.success)
      throw new Error(
        `${name}: HTTP ${response.status}: ${JSON.stringify(body.error, (_k, v: unknown) => (isLosslessNumber(v) ? v.value : v))}`,
      );
    return body.result;
  }

  /** Whether the portal answers at all (status_show), within a few seconds. */
  async reachable(): Promise<boolean> {
    try {
      const response = await fetch(new URL('api/3/action/status_show', this.url), {
        signal: AbortSignal.timeout(5000),
      });
      return response.ok;
    } catch {
      return false;
    }
  }

  async ensureOrganization(name: string): Promise<string> {
    try {
      return (await this.action('organization_show', { id: name })).id as string;
    } catch {
      return (await this.action('organization_create', { name, title: 'Count Centre tests' })).id as string;
    }
  }

  /** A dataset of its own (an earlier one of that name, left by a run that was stopped, is purged first). */
  async createDataset(name: string, organization: string): Promise<{ id: string; name: string }> {
    await this.purgeDataset(name);
    const owner = await this.ensureOrganization(organization);
    const pkg = await this.action('package_create', {
      name,
      title: `Count Centre test ${name}`,
      owner_org: owner,
      notes: "Made by Count Centre's tests; removed after them.",
    });
    return { id: pkg.id as string, name: pkg.name as string };
  }

  async purgeDataset(name: string): Promise<void> {
    try {
      await this.action('dataset_purge', { id: name });
    } catch (err) {
      if (!/Not found/i.test((err as Error).message)) throw err;
    }
  }

  /** A new resource with a DataStore table of these fields, filled from `records` in chunks. Returns its id. */
  async createTable(
    datasetId: string,
    name: string,
    fields: readonly TableField[],
    records: Iterable<Record<string, unknown>>,
    chunk = 10_000,
  ): Promise<string> {
    const created = await this.action('datastore_create', {
      resource: { package_id: datasetId, name, format: 'CSV' },
      fields,
      records: [],
    });
    const id = created.resource_id as string;
    await this.insert(id, records, chunk);
    return id;
  }

  /** Appends records (datastore_upsert, method insert), a chunk per request. */
  async insert(resourceId: string, records: Iterable<Record<string, unknown>>, chunk = 10_000): Promise<void> {
    let batch: Record<string, unknown>[] = [];
    for (const record of records) {
      batch.push(record);
      if (batch.length >= chunk) {
        await this.action('datastore_upsert', {
          resource_id: resourceId,
          method: 'insert',
          records: batch,
          force: true,
        });
        batch = [];
      }
    }
    if (batch.length > 0)
      await this.action('datastore_upsert', { resource_id: resourceId, method: 'insert', records: batch, force: true });
  }

  /** Drops the table (datastore_delete without filters) or deletes the records the filters match. */
  async deleteRecords(resourceId: string, filters?: Record<string, unknown>): Promise<void> {
    await this.action('datastore_delete', { resource_id: resourceId, force: true, ...(filters ? { filters } : {}) });
  }

  /** The portal's own CSV dump of a table, as bytes. */
  async dump(resourceId: string, format: 'csv' | 'tsv' | 'json' | 'xml' = 'csv'): Promise<Buffer> {
    const response = await fetch(new URL(`datastore/dump/${resourceId}?format=${format}`, this.url), {
      headers: { authorization: this.token },
    });
    if (!response.ok) throw new Error(`dump of ${resourceId}: HTTP ${response.status}`);
    return Buffer.from(await response.arrayBuffer());
  }
}

/** The fields of a generated test table: each DataStore type a mirror maps, with NULLs, non-ASCII text and numerics. */
export const TEST_TABLE_FIELDS: TableField[] = [
  { id: 'name', type: 'text' },
  { id: 'count', type: 'int4' },
  { id: 'amount', type: 'numeric' },
  { id: 'ratio', type: 'float8' },
  { id: 'big', type: 'int8' },
  { id: 'flag', type: 'bool' },
  { id: 'day', type: 'date' },
  { id: 'at', type: 'timestamp' },
  { id: 'note', type: 'text' },
];

const NAMES = [
  'Ó Súilleabháin',
  'Nic Giolla Phádraig',
  'Zoë Ní Bhriain',
  'Łukasz Nowak',
  'Müller, Jürgen',
  'O\'Brien "Dubh"',
  'Ñúñez',
  '東京 Tōkyō',
  'Smith',
];
const NOTES = ['', 'a note, with a comma', 'two\nlines', 'says "hello"', 'plain', 'trailing space '];

/**
 * Record `i` (from 1) of a generated table: the same for the same `i`. Numerics are sent as text, so that their
 * scale reaches PostgreSQL as written ("-32782.20"); one value in seven of each nullable field is NULL.
 */
export function testRecord(i: number): Record<string, unknown> {
  // A small multiplicative hash stands in for randomness: reproducible, and varied enough for sorting and indexes.
  const h = (i * 2654435761) >>> 0;
  const nullHere = (salt: number) => (h >>> salt) % 7 === 0;
  const cents = (h % 9_000_000) - 4_500_000;
  const amount = `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
  return {
    name: `${NAMES[h % NAMES.length]} ${i}`,
    count: nullHere(3) ? null : (h % 100_000) - 1000,
    amount: nullHere(5) ? null : amount,
    ratio: nullHere(7) ? null : (h % 10_000) / 64,
    big: nullHere(9) ? null : `${9_000_000_000 + i}`,
    flag: nullHere(11) ? null : (h & 1) === 1,
    day: nullHere(13)
      ? null
      : `20${String(10 + (h % 15)).padStart(2, '0')}-${String(1 + (h % 12)).padStart(2, '0')}-${String(1 + (h % 28)).padStart(2, '0')}`,
    at: nullHere(15)
      ? null
      : `2020-02-${String(1 + (h % 28)).padStart(2, '0')}T${String(h % 24).padStart(2, '0')}:${String(h % 60).padStart(2, '0')}:${String((h >>> 4) % 60).padStart(2, '0')}`,
    note: nullHere(17) ? null : NOTES[(h >>> 2) % NOTES.length],
  };
}

export function* testRecords(count: number, first = 1): Generator<Record<string, unknown>> {
  for (let i = first; i < first + count; i++) yield testRecord(i);
}
