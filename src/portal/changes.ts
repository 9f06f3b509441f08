// What changed upstream since a mirror's copy, found without reading the table again: the table is cut into blocks of
// `_id`s, each with a hash recorded beside the copy; a later refresh compares them with the portal's (worked out by the
// portal itself through datastore_search_sql where that is enabled, else on sampled blocks read through
// datastore_search) and reads again only the blocks that differ, for the store to patch in.

import { createHash } from 'node:crypto';
import type { FieldDefinition } from '../catalog/types.js';
import type { StoredValue } from '../catalog/values.js';
import type { TableRow } from '../ingest/table.js';
import type { IdRange } from '../storage/load-target.js';
import { CkanError, isLosslessNumber, type CkanClient } from './client.js';
import { upstreamRecord, type Probe, type UpstreamResource } from './mirror.js';

/** Hashes of a table's blocks of `_id`s: block b holds `_id`s b·size+1 … (b+1)·size. */
export interface BlockHashes {
  /**
   * `sql`: each block's md5, worked out by the portal over its own text of the records (every record is covered);
   * `rows`: each block's SHA-256 over the records as this mirror typed them (only sampled blocks are compared).
   */
  method: 'sql' | 'rows';
  size: number;
  /** Blocks that hold records, in order: [block, records in it, hash]. */
  blocks: [number, number, string][];
}

export type { IdRange };

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const asNumber = (value: unknown): number => (isLosslessNumber(value) ? Number(value.value) : Number(value));

/**
 * The portal's hash query: per block, its count and the md5 of its records' JSON text in `_id` order. Only functions
 * CKAN's DataStore allows in datastore_search_sql (json_build_array, md5, string_agg, count) are used.
 */
export function blockHashSql(resourceId: string, fields: readonly FieldDefinition[], size: number): string {
  const columns = ['_id', ...fields.map((f) => f.id)].map(quote).join(', ');
  const hash = `md5(string_agg(json_build_array(${columns})::text, ',' ORDER BY "_id"))`;
  return (
    `SELECT ("_id" - 1) / ${size} AS "b", count(*) AS "n", ${hash} AS "h" ` +
    `FROM ${quote(resourceId)} GROUP BY 1 ORDER BY 1`
  );
}

/** The block hashes the portal works out, or null when its datastore_search_sql is off or refuses the query. */
export async function portalBlockHashes(
  upstream: UpstreamResource,
  fields: readonly FieldDefinition[],
  size: number,
): Promise<BlockHashes | null> {
  if (upstream.client.missingActions.has('datastore_search_sql')) return null;
  let result;
  try {
    result = await upstream.client.action('datastore_search_sql', { sql: blockHashSql(upstream.id, fields, size) });
  } catch (err) {
    if (!(err instanceof CkanError) || err.unreachable) throw err;
    // Switched off (CKAN 2.10's default), not open to this user, or a function not allowed there.
    if (err.status === 400 || err.status === 403 || /Action name not known/i.test(err.message)) {
      upstream.client.missingActions.add('datastore_search_sql');
    }
    return null;
  }
  // A table of more blocks than the portal returns rows for: not worth hashing this way.
  if (result.records_truncated === true || !Array.isArray(result.records)) return null;
  const blocks = (result.records as Record<string, unknown>[]).map((r): [number, number, string] => [
    asNumber(r.b),
    asNumber(r.n),
    String(r.h),
  ]);
  return { method: 'sql', size, blocks };
}

/** A probe's fingerprint with the portal's block hashes: the checksum of a copy whose blocks the portal hashed. */
export function withBlocks(fingerprint: string, hashes: BlockHashes): string {
  return createHash('sha256')
    .update(`${fingerprint}\n${JSON.stringify(hashes.blocks)}`)
    .digest('hex');
}

/** Block hashes of records as this mirror types them, worked out as they go by (a copy, or re-read blocks). */
export class BlockHasher {
  private readonly done: [number, number, string][] = [];
  private block = -1;
  private count = 0;
  private hash = createHash('sha256');

  constructor(readonly size: number) {}

  add(id: number, values: readonly StoredValue[]): void {
    const block = Math.floor((id - 1) / this.size);
    if (block !== this.block) {
      this.close();
      this.block = block;
    }
    this.count += 1;
    this.hash.update(JSON.stringify([id, ...values]));
    this.hash.update('\n');
  }

  private close(): void {
    if (this.count > 0) this.done.push([this.block, this.count, this.hash.digest('hex')]);
    this.count = 0;
    this.hash = createHash('sha256');
  }

  result(): BlockHashes {
    this.close();
    this.block = -1;
    return { method: 'rows', size: this.size, blocks: this.done };
  }
}

/** Per portal, the rows_max its answers showed: the most records asked for at once by `_id`. */
const learntRowsMax = new WeakMap<CkanClient, number>();

/** The records of `_id`s `from` to `to`, sorted by `_id`, typed as a copy types them. */
export async function* recordsIn(
  upstream: UpstreamResource,
  fields: readonly FieldDefinition[],
  range: IdRange,
  viaSql: boolean,
): AsyncGenerator<TableRow & { id: number }> {
  const ids = ['_id', ...fields.map((f) => f.id)];
  const typed = (id: number, row: readonly unknown[]) => upstreamRecord(upstream.id, id, row, fields);
  if (viaSql) {
    for (let after = range.from - 1; ;) {
      const sql =
        `SELECT ${ids.map(quote).join(', ')} FROM ${quote(upstream.id)} ` +
        `WHERE "_id" > ${after} AND "_id" <= ${range.to} ORDER BY "_id" LIMIT 10000`;
      const result = await upstream.client.action('datastore_search_sql', { sql });
      const records = Array.isArray(result.records) ? (result.records as Record<string, unknown>[]) : [];
      for (const r of records) {
        const id = asNumber(r._id);
        yield typed(
          id,
          ids.slice(1).map((f) => r[f]),
        );
        after = id;
      }
      if (records.length === 0 || (records.length < 10000 && result.records_truncated !== true)) return;
    }
  }
  // Without SQL, a block's records are asked for by their _ids (a filter with a list matches any of them), never more
  // at once than the portal's rows_max (learnt from the limit it echoes), so that no answer is cut short.
  let step = learntRowsMax.get(upstream.client) ?? 1000;
  for (let from = range.from; from <= range.to;) {
    const to = Math.min(range.to, from + step - 1);
    const wanted = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const result = await upstream.client.action('datastore_search', {
      resource_id: upstream.id,
      filters: { _id: wanted },
      limit: wanted.length,
      sort: '_id',
      records_format: 'lists',
      include_total: false,
      fields: ids,
    });
    const limit = result.limit === undefined ? wanted.length : asNumber(result.limit);
    if (limit < wanted.length) {
      step = Math.max(1, limit);
      learntRowsMax.set(upstream.client, step);
      continue;
    }
    const records = Array.isArray(result.records) ? (result.records as unknown[][]) : [];
    for (const r of records) yield typed(asNumber(r[0]), r.slice(1));
    from = to + 1;
  }
}

/** What a refresh does with a changed resource. */
export type ChangePlan =
  | {
      kind: 'full';
      reason: string;
      /** When the reason is that too many blocks changed: how many (more than one may be a reload). */
      changedBlocks?: number;
    }
  | {
      kind: 'patch';
      /** The ranges whose records are replaced by the portal's; none when the data is unchanged (metadata moved). */
      ranges: IdRange[];
      /** Records the ranges hold upstream, and the ranges' records in the copy. */
      changedBlocks: number;
      /** The hashes the patched copy will match, when `rows` (from re-read blocks) are known after the records are. */
      hashes: BlockHashes;
      viaSql: boolean;
      /** The changed blocks' records, when read to be compared (sampled blocks); else `recordsIn` reads them. */
      records: (TableRow & { id: number })[] | null;
    };

export interface PlanOptions {
  /** Largest share of the copy's records (0–1) a patch may replace; more is copied whole. */
  maxShare: number;
  /** Blocks compared besides the new ones, when only sampled blocks can be (no SQL). */
  sampleBlocks: number;
  random?: () => number;
}

const blockRange = (block: number, size: number): IdRange => ({ from: block * size + 1, to: (block + 1) * size });

/** Adjacent ranges joined, so that the store deletes and the portal is asked in as few pieces as may be. */
function joined(blocks: readonly number[], size: number): IdRange[] {
  const ranges: IdRange[] = [];
  for (const block of [...blocks].sort((a, b) => a - b)) {
    const range = blockRange(block, size);
    const last = ranges[ranges.length - 1];
    if (last && last.to + 1 >= range.from) last.to = Math.max(last.to, range.to);
    else ranges.push(range);
  }
  return ranges;
}

/**
 * Compares the blocks recorded with the copy (which holds `copied.total` records up to `_id` `copied.maxId`) with the
 * portal's now (`probe`), and says which ranges to read again, or why the table is to be copied whole.
 */
export async function planChanges(
  upstream: UpstreamResource,
  fields: readonly FieldDefinition[],
  recorded: BlockHashes,
  portal: BlockHashes | null,
  copied: { total: number; maxId: number },
  probe: Probe,
  options: PlanOptions,
): Promise<ChangePlan> {
  const size = recorded.size;
  const ours = new Map(recorded.blocks.map(([b, n, h]) => [b, { n, h }]));
  const lastBlock = Math.max(Math.floor((Math.max(probe.maxId, copied.maxId, 1) - 1) / size), 0);
  const allowed = Math.max(1, Math.floor(options.maxShare * Math.max(copied.total, probe.total)));
  const tooMany = (records: number) => records > allowed;
  const tooManyBlocks = (blocks: number, records: number): ChangePlan => ({
    kind: 'full',
    changedBlocks: blocks,
    reason: `${blocks} blocks of ${size} _ids changed (${records} records), more than a patch takes (${allowed})`,
  });
  if (recorded.method === 'sql') {
    const theirs = portal;
    if (theirs && theirs.size === size) {
      const changed = new Set<number>();
      const mine = new Map(theirs.blocks.map(([b, n, h]) => [b, { n, h }]));
      let records = 0;
      for (const b of new Set([...ours.keys(), ...mine.keys()])) {
        const a = ours.get(b);
        const t = mine.get(b);
        if (a?.h === t?.h && a?.n === t?.n) continue;
        changed.add(b);
        records += Math.max(a?.n ?? 0, t?.n ?? 0);
      }
      if (tooMany(records)) return tooManyBlocks(changed.size, records);
      const ranges = joined([...changed], size);
      return { kind: 'patch', ranges, changedBlocks: changed.size, hashes: theirs, viaSql: true, records: null };
    }
    // SQL is no longer offered: the sampled blocks are compared below, but they were hashed otherwise.
    return {
      kind: 'full',
      reason: "the portal no longer answers datastore_search_sql, which worked out the copy's hashes",
    };
  }
  // Sampled blocks: every block from the copy's last on (appends land there), and a few others at random.
  const random = options.random ?? Math.random;
  const firstNew = Math.floor((Math.max(copied.maxId, 1) - 1) / size);
  const sampled = new Set<number>();
  for (let b = firstNew; b <= lastBlock; b++) sampled.add(b);
  const earlier = recorded.blocks.map(([b]) => b).filter((b) => b < firstNew);
  for (let i = 0; i < options.sampleBlocks && earlier.length > 0; i++) {
    sampled.add(earlier.splice(Math.floor(random() * earlier.length), 1)[0]!);
  }
  const added = probe.total - copied.total;
  if (tooMany(added))
    return { kind: 'full', reason: `${added} records were added, more than a patch takes (${allowed})` };
  const changed: number[] = [];
  let records = 0;
  let countChange = 0;
  const rows = new Map<number, [number, string]>();
  const read: (TableRow & { id: number })[] = [];
  for (const b of [...sampled].sort((x, y) => x - y)) {
    const blockHasher = new BlockHasher(size);
    const blockRows: (TableRow & { id: number })[] = [];
    for await (const row of recordsIn(upstream, fields, blockRange(b, size), false)) {
      blockHasher.add(row.id, row.values);
      blockRows.push(row);
    }
    const found = blockHasher.result().blocks[0];
    const theirs = found ? { n: found[1], h: found[2] } : undefined;
    const mine = ours.get(b);
    if (theirs) rows.set(b, [theirs.n, theirs.h]);
    if (mine?.h === theirs?.h && mine?.n === theirs?.n) continue;
    changed.push(b);
    read.push(...blockRows);
    records += Math.max(mine?.n ?? 0, theirs?.n ?? 0);
    countChange += (theirs?.n ?? 0) - (mine?.n ?? 0);
  }
  if (copied.total + countChange !== probe.total) {
    return {
      kind: 'full',
      reason:
        `the sampled blocks account for ${copied.total + countChange} records, but the portal counts ${probe.total}: ` +
        'records changed elsewhere, and without datastore_search_sql only sampled blocks can be compared',
    };
  }
  if (tooMany(records)) return tooManyBlocks(changed.length, records);
  const blocks = new Map(recorded.blocks.map(([b, n, h]) => [b, [n, h] as [number, string]]));
  for (const b of changed) {
    const now = rows.get(b);
    if (now) blocks.set(b, now);
    else blocks.delete(b);
  }
  const sorted = [...blocks].sort((a, b) => a[0] - b[0]).map(([b, [n, h]]): [number, number, string] => [b, n, h]);
  const hashes: BlockHashes = { method: 'rows', size, blocks: sorted };
  const ranges = joined(changed, size);
  return { kind: 'patch', ranges, changedBlocks: changed.length, hashes, viaSql: false, records: read };
}
