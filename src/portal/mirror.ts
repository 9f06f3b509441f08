// A CKAN DataStore resource as a source of rows, read through the portal's public API only: its schema (fields, types,
// data dictionary) from datastore_search with limit 0; a cheap probe for change detection (total, largest _id, fields,
// resource metadata, table oid, the last records); and a copy in pages sorted by _id by the best method the portal
// offers (2.12's keyset filter, else keyset over datastore_search_sql, else offset), with upstream _ids kept, numbers
// copied digit for digit, and the copy verified against a second probe before it may be published.

import { createHash } from 'node:crypto';
import { stringify as stringifyLossless } from 'lossless-json';
import type { FieldDefinition, FieldDictionary, FieldType } from '../catalog/types.js';
import { parseInteger, parseNumeric, ValueError, type StoredValue } from '../catalog/values.js';
import { LoadError } from '../ingest/csv.js';
import { origin, typedValue, type TableRow } from '../ingest/table.js';
import { CkanError, isLosslessNumber, type CkanClient } from './client.js';

/** A field as the portal describes it. */
export interface UpstreamField {
  id: string;
  type: string;
  info?: Record<string, unknown>;
}

/** What one probe of an upstream resource saw: cheap to get, and changes when the data does (mostly: see docs). */
export interface Probe {
  total: number;
  maxId: number;
  fields: UpstreamField[];
  /** Hash of the fields (ids, types, data dictionary). */
  fieldsHash: string;
  /** The resource's metadata_modified / last_modified, when resource_show answers. */
  modified: string | null;
  /**
   * `_table_metadata`'s oid of the table, when the portal lets it be read: a reload that recreates the table changes
   * it.
   */
  oid: string | null;
  /** Hash of the last records by _id: catches appends and edits of recent records with the same count. */
  tailHash: string;
  /**
   * Those records (lists, `_id` first, the last first): a sample of the portal's own answers a dump is checked against.
   */
  tail: unknown[][];
  /** One hash of all of the above: what the store records as the resource's source checksum. */
  fingerprint: string;
  /** When it was taken (epoch ms). */
  at: number;
}

/** What the portal's own loader (ckanext-xloader, DataPusher) says of its last load of a resource. */
export interface LoaderWord {
  loader: 'xloader' | 'datapusher';
  /** pending, submitting, running, complete or error. */
  status: string;
  lastUpdated: string | null;
}

/** Why a loader's word means the table is not to be copied now, or null when it says the table is complete. */
export function loaderVeto(word: LoaderWord | null): string | null {
  if (!word || word.status === 'complete') return null;
  const when = word.lastUpdated ? `, updated ${word.lastUpdated}` : '';
  if (word.status === 'error')
    return `the portal's ${word.loader} reports that its last load of the table failed (status error${when}): the table may hold part of it`;
  return `the portal's ${word.loader} is loading the table (status ${word.status}${when})`;
}

/** What differs between two probes of a resource, in words, or null when they agree. */
export function probeDifference(before: Probe, after: Probe): string | null {
  if (before.fingerprint === after.fingerprint) return null;
  const parts: string[] = [];
  if (before.fieldsHash !== after.fieldsHash) parts.push('its fields changed');
  if (before.total !== after.total || before.maxId !== after.maxId)
    parts.push(`${before.total} records up to _id ${before.maxId}, then ${after.total} up to _id ${after.maxId}`);
  else if (before.tailHash !== after.tailHash) parts.push('its last records changed');
  if (before.oid !== after.oid) parts.push('its table was re-created');
  if (before.modified !== after.modified)
    parts.push(`its last_modified moved from ${before.modified ?? 'none'} to ${after.modified ?? 'none'}`);
  return parts.length > 0 ? parts.join('; ') : 'it changed';
}

export type PagingMethod = 'keyset' | 'sql' | 'offset';

/**
 * The upstream looks caught in the middle of a reload: it is not copied now, and the last complete copy keeps serving.
 */
export class UpstreamReloading extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamReloading';
  }
}

/** The upstream changed while it was copied, or does not add up: the copy is not published; another try may succeed. */
export class MirrorMismatch extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'MirrorMismatch';
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const TAIL_RECORDS = 100;

/** Numbers as their exact text inside JSON text (a json field's value, a hash of records). */
function exactJson(value: unknown): string {
  return stringifyLossless(value) ?? 'null';
}

/**
 * How an upstream type is stored and served here. The DataStore's own types map to themselves; int2 and float4 are
 * served as int4 and float8 (the same values), and any other type (time, json, arrays, uuid, …) as text holding the
 * upstream's text, which the output of `count-centre mirror` points out.
 */
export function mappedType(upstream: string): { type: FieldType; note: string | null } {
  const t = upstream.toLowerCase();
  switch (t) {
    case 'text':
    case 'numeric':
    case 'int4':
    case 'int8':
    case 'float8':
    case 'bool':
    case 'date':
    case 'timestamp':
      return { type: t, note: null };
    case 'int':
    case 'integer':
    case 'int2':
    case 'smallint':
      return { type: 'int4', note: t === 'int2' || t === 'smallint' ? `upstream ${upstream}, served as int4` : null };
    case 'bigint':
      return { type: 'int8', note: null };
    case 'float4':
    case 'real':
    case 'float':
    case 'double precision':
      return { type: 'float8', note: t === 'double precision' ? null : `upstream ${upstream}, served as float8` };
    case 'boolean':
      return { type: 'bool', note: null };
    case 'timestamp without time zone':
      return { type: 'timestamp', note: null };
    case 'varchar':
    case 'character varying':
    case 'name':
    case 'citext':
      return { type: 'text', note: null };
    default:
      return { type: 'text', note: `upstream ${upstream}, served as its text` };
  }
}

/** The data dictionary entry as the catalogue keeps it (CKAN's label, notes and type_override). */
export function dictionaryOf(info: Record<string, unknown> | undefined): FieldDictionary | null {
  if (!info || typeof info !== 'object') return null;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  if (!('label' in info) && !('notes' in info) && !('type_override' in info)) return null;
  return { label: text(info.label), notes: text(info.notes), type_override: text(info.type_override) };
}

/** The catalogue's fields for an upstream schema. */
export function catalogFields(fields: readonly UpstreamField[]): FieldDefinition[] {
  return fields.map((f) => ({
    id: f.id,
    type: mappedType(f.type).type,
    column: f.id,
    format: 'ISO',
    index: true,
    info: dictionaryOf(f.info),
  }));
}

/** Why the upstream's fields no longer match the catalogue's, or null when they do. */
export function schemaDifference(
  upstream: readonly UpstreamField[],
  catalogue: readonly FieldDefinition[],
): string | null {
  const theirs = new Map(upstream.map((f) => [f.id, mappedType(f.type).type]));
  const ours = new Map(catalogue.map((f) => [f.id, f.type]));
  const problems: string[] = [];
  const added = [...theirs.keys()].filter((id) => !ours.has(id));
  const removed = [...ours.keys()].filter((id) => !theirs.has(id));
  if (added.length > 0) problems.push(`added ${added.map((id) => `"${id}"`).join(', ')}`);
  if (removed.length > 0) problems.push(`removed ${removed.map((id) => `"${id}"`).join(', ')}`);
  for (const [id, type] of theirs)
    if (ours.has(id) && ours.get(id) !== type) problems.push(`"${id}" is now ${type} (was ${ours.get(id)})`);
  if (problems.length === 0 && upstream.map((f) => f.id).join('\u0000') !== catalogue.map((f) => f.id).join('\u0000'))
    problems.push('the fields are in another order');
  return problems.length === 0 ? null : problems.join('; ');
}

/** The upstream's fields without `_id` (and `_full_text`, which is rebuilt here). */
function upstreamFields(result: { fields?: unknown }): UpstreamField[] {
  const fields = Array.isArray(result.fields)
    ? (result.fields as { id: unknown; type: unknown; info?: unknown }[])
    : [];
  return fields
    .filter((f) => typeof f.id === 'string' && f.id !== '_id' && f.id !== '_full_text')
    .map((f) => ({
      id: f.id as string,
      type: String(f.type),
      ...(f.info && typeof f.info === 'object' ? { info: f.info as Record<string, unknown> } : {}),
    }));
}

const asNumber = (value: unknown): number =>
  isLosslessNumber(value) ? Number(value.value) : typeof value === 'number' ? value : Number(value);

/** A portal's record of resource `resourceId`, typed as a copy types it; a value its field cannot hold stops the copy. */
export function upstreamRecord(
  resourceId: string,
  id: number,
  row: readonly unknown[],
  fields: readonly FieldDefinition[],
): TableRow & { id: number } {
  const values: StoredValue[] = new Array(fields.length);
  for (let j = 0; j < fields.length; j++) {
    try {
      values[j] = upstreamValue(row[j], fields[j]!);
    } catch (err) {
      if (!(err instanceof ValueError)) throw err;
      const field = fields[j]!;
      throw new LoadError(
        resourceId,
        null,
        null,
        `record _id ${id}, field "${field.id}" (${field.type}): ${err.message}`,
      );
    }
  }
  return { id, values, origin: origin(resourceId, { pointer: `/_id/${id}` }) };
}

/**
 * An upstream value as this store holds it, digit for digit: a numeric keeps its text (scale and every digit); a
 * number that a field's type cannot hold exactly here (an int8 beyond 2^53) stops the copy rather than change. Null
 * stays null, in text fields too (CKAN tells null from the empty string).
 */
export function upstreamValue(value: unknown, field: FieldDefinition): StoredValue {
  if (value === null || value === undefined) return null;
  if (isLosslessNumber(value)) {
    const text = value.value;
    switch (field.type) {
      case 'int4':
      case 'int8':
        return parseInteger(text, field.type);
      case 'numeric':
        return parseNumeric(text);
      case 'float8':
        return Number(text);
      case 'text':
        return text;
      default:
        throw new ValueError(`${text} is a number, not a ${field.type}`);
    }
  }
  if (typeof value === 'object') {
    if (field.type === 'text') return exactJson(value);
    throw new ValueError(`${exactJson(value).slice(0, 60)} is not a ${field.type}`);
  }
  if (typeof value === 'string' && field.type === 'text') return value;
  return typedValue(value, field);
}

export interface MirrorOptions {
  /** Pages are halved after "Search took too long", not below this (then another paging method is tried). */
  minPageSize?: number;
  /** Largest page asked for; the portal's rows_max lowers it. */
  maxPageSize?: number;
  /** Paging methods to try, best first (tests narrow it). */
  methods?: readonly PagingMethod[];
  /** Told after each page: records copied so far. */
  onPage?: (copied: number) => void;
}

interface Page {
  ids: number[];
  rows: unknown[][];
  /** The page size the portal used (its rows_max may be lower than asked). */
  limit: number;
}

/** One upstream resource, read through one client. */
export class UpstreamResource {
  /** The paging methods this portal was found to offer, probed once. */
  private methodsFound: PagingMethod[] | null = null;
  /** What the last copy used, for reports. */
  lastMethod: PagingMethod | null = null;

  constructor(
    readonly client: CkanClient,
    readonly id: string,
    private readonly options: MirrorOptions = {},
  ) {}

  /** The schema and total (datastore_search with limit 0). */
  async schema(deadline?: number): Promise<{ fields: UpstreamField[]; total: number }> {
    const result = await this.client.action('datastore_search', { resource_id: this.id, limit: 0 }, { deadline });
    return { fields: upstreamFields(result), total: asNumber(result.total) };
  }

  /** The cheap change-detection probe, over by `deadline` (epoch ms) or failed. */
  async probe(deadline?: number): Promise<Probe> {
    const at = Date.now();
    // One request after another: a portal that fails is left alone after the first failure, not after a handful.
    const { fields, total } = await this.schema(deadline);
    const tail = await this.client.action(
      'datastore_search',
      {
        resource_id: this.id,
        limit: TAIL_RECORDS,
        sort: '_id desc',
        records_format: 'lists',
        include_total: false,
        fields: ['_id', ...fields.map((f) => f.id)],
      },
      { deadline },
    );
    const modified = await this.modifiedStamp(deadline);
    const oid = await this.tableOid(deadline);
    const tailRecords = Array.isArray(tail.records) ? (tail.records as unknown[][]) : [];
    const maxId = tailRecords.length > 0 ? asNumber(tailRecords[0]![0]) : 0;
    const fieldsHash = sha256(exactJson(fields));
    const tailHash = sha256(exactJson(tailRecords));
    const fingerprint = sha256(JSON.stringify({ total, maxId, fieldsHash, modified, oid, tailHash }));
    return { total, maxId, fields, fieldsHash, modified, oid, tailHash, tail: tailRecords, fingerprint, at };
  }

  /** The resource's last_modified (or metadata_modified), when resource_show answers. */
  private async modifiedStamp(deadline?: number): Promise<string | null> {
    try {
      const resource = await this.client.action('resource_show', { id: this.id }, { deadline });
      const stamp = resource?.last_modified ?? resource?.metadata_modified ?? null;
      return typeof stamp === 'string' ? stamp : null;
    } catch (err) {
      // A portal may serve the DataStore without its catalogue actions; a resource gone private fails above already.
      if (!(err instanceof CkanError) || err.status === 403) throw err;
      return null;
    }
  }

  /** The table's oid in `_table_metadata`, when the portal lets it be read. */
  private async tableOid(deadline?: number): Promise<string | null> {
    try {
      const table = await this.client.action(
        'datastore_search',
        { resource_id: '_table_metadata', filters: { name: this.id }, limit: 1 },
        { deadline },
      );
      const record = Array.isArray(table.records)
        ? (table.records[0] as Record<string, unknown> | undefined)
        : undefined;
      if (record && record.oid !== undefined && record.oid !== null)
        return isLosslessNumber(record.oid) ? record.oid.value : String(record.oid);
      return null;
    } catch (err) {
      if (!(err instanceof CkanError) || err.unreachable) throw err;
      return null;
    }
  }

  /**
   * What the portal's own loader says of the table: xloader_status, else datapusher_status. Null where neither is
   * offered, neither knows the resource, or they are not open to this mirror (they want edit rights on most portals).
   */
  async loaderWord(deadline?: number): Promise<LoaderWord | null> {
    for (const loader of ['xloader', 'datapusher'] as const) {
      const action = `${loader}_status`;
      if (this.client.missingActions.has(action)) continue;
      try {
        const result = await this.client.action(action, { resource_id: this.id }, { deadline });
        if (!result || typeof result.status !== 'string') continue;
        return {
          loader,
          status: result.status,
          lastUpdated: typeof result.last_updated === 'string' ? result.last_updated : null,
        };
      } catch (err) {
        if (!(err instanceof CkanError) || err.unreachable) throw err;
        if (err.status === 400 || /Action name not known/i.test(err.message)) this.client.missingActions.add(action);
      }
    }
    return null;
  }

  /**
   * Records `offset` to `offset + limit` by _id, as the portal's API gives them (lists, `_id` first): what a dump is
   * compared with, value by value.
   */
  async samplePage(fields: readonly FieldDefinition[], offset: number, limit: number): Promise<unknown[][]> {
    const result = await this.client.action('datastore_search', {
      resource_id: this.id,
      offset,
      limit,
      sort: '_id',
      records_format: 'lists',
      include_total: false,
      fields: ['_id', ...fields.map((f) => f.id)],
    });
    return Array.isArray(result.records) ? (result.records as unknown[][]) : [];
  }

  /** The paging methods the portal offers, best first: each is tried once with a one-record page. */
  private async methods(): Promise<PagingMethod[]> {
    if (this.methodsFound) return this.methodsFound;
    const wanted = this.options.methods ?? ['keyset', 'sql', 'offset'];
    const found: PagingMethod[] = [];
    for (const method of wanted) {
      if (method === 'offset') {
        found.push(method);
        continue;
      }
      try {
        await this.page(method, 0, 0, 1, ['_id']);
        found.push(method);
      } catch (err) {
        // Unknown parameters and switched-off SQL are refused with a 409, 400 or 403: the method is not offered.
        if (!(err instanceof CkanError) || err.kind === 'network' || err.kind === 'not-json') throw err;
      }
    }
    this.methodsFound = found;
    return found;
  }

  /** One page of records after `afterId` (offset: after `copied` records), sorted by _id. */
  private async page(
    method: PagingMethod,
    afterId: number,
    copied: number,
    limit: number,
    ids: readonly string[],
  ): Promise<Page> {
    if (method === 'sql') {
      const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
      const sql = `SELECT ${ids.map(quote).join(', ')} FROM ${quote(this.id)} WHERE "_id" > ${afterId} ORDER BY "_id" LIMIT ${limit}`;
      const result = await this.client.action('datastore_search_sql', { sql });
      const records = Array.isArray(result.records) ? (result.records as Record<string, unknown>[]) : [];
      // The SQL row cap (rows_max) silently shortens a page; the next page carries on after its last _id.
      const effective = result.records_truncated === true ? records.length : limit;
      return {
        ids: records.map((r) => asNumber(r._id)),
        rows: records.map((r) => ids.slice(1).map((id) => r[id])),
        limit: Math.max(1, effective),
      };
    }
    const params: Record<string, unknown> = {
      resource_id: this.id,
      limit,
      sort: '_id',
      records_format: 'lists',
      include_total: false,
      fields: ids,
    };
    if (method === 'keyset') params.filters = { _id: { gt: afterId } };
    else params.offset = copied;
    const result = await this.client.action('datastore_search', params);
    const records = Array.isArray(result.records) ? (result.records as unknown[][]) : [];
    return {
      ids: records.map((r) => asNumber(r[0])),
      rows: records.map((r) => r.slice(1)),
      limit: result.limit === undefined ? limit : asNumber(result.limit),
    };
  }

  /**
   * Every record, sorted by _id, as rows of the catalogue's fields with their upstream _ids. A page the portal finds
   * too expensive is asked for again at half the size (down to minPageSize), then with the next method.
   */
  async *records(fields: readonly FieldDefinition[]): AsyncGenerator<TableRow & { id: number }> {
    const ids = ['_id', ...fields.map((f) => f.id)];
    const methods = await this.methods();
    const minPage = this.options.minPageSize ?? 1000;
    let pageSize = this.options.maxPageSize ?? 32000;
    let methodAt = 0;
    let afterId = 0;
    let copied = 0;
    for (;;) {
      const method = methods[methodAt];
      if (!method)
        throw new MirrorMismatch('the portal found every page too expensive to answer ("Search took too long")', true);
      this.lastMethod = method;
      let page: Page;
      try {
        page = await this.page(method, afterId, copied, pageSize, ids);
      } catch (err) {
        if (err instanceof CkanError && err.tookTooLong) {
          if (pageSize > minPage) pageSize = Math.max(minPage, Math.floor(pageSize / 2));
          else methodAt += 1;
          continue;
        }
        throw err;
      }
      // The portal's rows_max: pages are asked for at that size from now on.
      if (page.limit > 0 && page.limit < pageSize) pageSize = page.limit;
      for (let i = 0; i < page.rows.length; i++) {
        const id = page.ids[i]!;
        if (!Number.isSafeInteger(id) || id <= afterId) {
          throw new MirrorMismatch(
            `_id ${id} came after _id ${afterId}: the records are not in _id order, or an _id repeats`,
            true,
          );
        }
        const record = upstreamRecord(this.id, id, page.rows[i]!, fields);
        afterId = id;
        copied += 1;
        yield record;
      }
      this.options.onPage?.(copied);
      if (page.rows.length === 0 || (method !== 'sql' && page.rows.length < page.limit)) return;
    }
  }
}

/**
 * Checks a finished copy against the probes taken before and after it: the same fingerprint (fields, total, largest
 * _id, last records, table, metadata), so that the copy is of the data the fingerprint describes, and as many records
 * copied as the portal counts. Throws MirrorMismatch otherwise.
 */
export function verifyCopy(before: Probe, after: Probe, copied: { count: number; lastId: number }): void {
  if (after.fieldsHash !== before.fieldsHash)
    throw new MirrorMismatch('the upstream fields changed during the copy', true);
  if (after.total !== before.total || after.maxId !== before.maxId) {
    throw new MirrorMismatch(
      `the upstream changed during the copy (${before.total} records up to _id ${before.maxId} before, ${after.total} up to _id ${after.maxId} after)`,
      true,
    );
  }
  const difference = probeDifference(before, after);
  if (difference) throw new MirrorMismatch(`the upstream changed during the copy (${difference})`, true);
  if (copied.count !== after.total)
    throw new MirrorMismatch(`${copied.count} records were copied, but the portal counts ${after.total}`, true);
  if (copied.lastId !== after.maxId)
    throw new MirrorMismatch(
      `the last record copied has _id ${copied.lastId}, but the portal's largest is ${after.maxId}`,
      true,
    );
}

/**
 * Why a probe looks like an upstream caught mid-reload (xloader truncates a table before it copies the file in): the
 * table suddenly empty, or down to under half, while its fields and metadata did not change. Null when it does not.
 */
export function looksMidReload(
  probe: Probe,
  previous: { total: number; fieldsHash?: string; modified?: string | null } | null,
): string | null {
  if (!previous || previous.total === 0) return null;
  const sameShape = previous.fieldsHash === undefined || previous.fieldsHash === probe.fieldsHash;
  const sameMetadata = previous.modified === undefined || previous.modified === probe.modified;
  if (!sameShape || !sameMetadata) return null;
  if (probe.total === 0)
    return `the portal now shows no records where ${previous.total} were copied, with unchanged metadata: most likely a reload in progress`;
  if (probe.total < previous.total / 2)
    return `the portal now shows ${probe.total} records where ${previous.total} were copied, with unchanged metadata: most likely a reload in progress`;
  return null;
}
