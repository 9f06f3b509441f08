// A small CKAN portal for the mirror's tests: one dataset with DataStore resources, answering status_show,
// package_show, resource_show, datastore_search (limit 0, offset paging, 2.12's keyset filter, lists), the DataStore
// dump (`/datastore/dump/<id>`, CSV as PostgreSQL's COPY writes it) and, where switched on, datastore_search_sql and a
// loader's status (xloader_status or datapusher_status), as the CKAN version it plays does; and injecting the faults
// real portals show (429s with Retry-After, "Search took too long", answers and dumps cut off, data changed or
// truncated mid-copy, a DataPusher-style reload in chunks, a schema change, a resource gone private, an HTML page
// instead of JSON, a portal that is down). It records every request it was sent.

import { createHash } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CopyRoute } from '../../src/ingest/sources.js';
import { LosslessNumber, parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';

/**
 * Mirror settings for patching against the double: blocks of 10 `_id`s (so one changed record is one block of ten),
 * one attempt, no settle interval and no real waiting between retries, patches of up to 30 % of a table.
 */
export const PATCHING_MIRROR = {
  attempts: 1,
  settleMs: 0,
  routes: ['dump', 'pages'] as CopyRoute[],
  blockSize: 10,
  patchMaxShare: 0.3,
  sampleBlocks: 2,
  client: { baseDelayMs: 1, sleep: async () => {} },
};

export interface FakeField {
  id: string;
  type: string;
  info?: Record<string, string>;
}

export type FakeRecord = Record<string, unknown> & { _id: number };

export interface FakeOptions {
  /**
   * 2.9 and 2.10 page by offset only; 2.12 takes `{"_id": {"gt": N}}`. Before 2.11, SQL sends numeric values as
   * strings.
   */
  version: '2.9' | '2.10' | '2.11' | '2.12';
  /** Whether datastore_search_sql is on (CKAN 2.9's default; off from 2.10). */
  sql: boolean;
  /** The portal's rows_max: a larger limit is lowered to it (and echoed). */
  rowsMax: number;
  fields: FakeField[];
  records: FakeRecord[];
  resourceId?: string;
  datasetName?: string;
  /** The loader whose status action the portal offers (open to anyone here), if any. */
  loader?: 'xloader' | 'datapusher' | null;
  /** Whether the portal serves `/datastore/dump/<id>` (older portals behind a proxy may not). */
  dump?: boolean;
}

/** One DataStore table of the portal. */
export interface FakeTable {
  id: string;
  name: string;
  fields: FakeField[];
  records: FakeRecord[];
  /** The table's oid in `_table_metadata`: a reload that recreates the table changes it. */
  oid: number;
  modified: string;
  /** What the portal's loader says of its last load of the table; null: it knows nothing of it (a 404). */
  loaderStatus: { status: string; last_updated: string } | null;
}

export interface SeenRequest {
  /** The action's name, or `dump` for `/datastore/dump/<id>` (its query as params, the id as `resource_id`). */
  action: string;
  params: Record<string, any>;
  headers: IncomingMessage['headers'];
  /** Requests being answered when this one arrived (politeness: never more than one). */
  inFlight: number;
}

/** What the portal does to a request: answer it (undefined), or a fault of its own ('hang': never answer). */
export type Fault = (
  request: SeenRequest,
  portal: FakeCkan,
) => { status: number; body: string; headers?: Record<string, string> } | 'cut' | 'hang' | undefined;

const envelope = (result: unknown) =>
  stringifyLossless({ help: 'http://portal/api/3/action/help_show', success: true, result })!;
const failure = (status: number, error: Record<string, unknown>) => ({
  status,
  body: JSON.stringify({ help: 'http://portal/api/3/action/help_show', success: false, error }),
});

export class FakeCkan {
  readonly datasetName: string;
  readonly tables: FakeTable[];
  readonly seen: SeenRequest[] = [];
  /** Most requests it was ever answering at once. */
  maxInFlight = 0;
  /** Faults consulted for every request, in order; the first that answers wins. */
  faults: Fault[] = [];
  /**
   * Called after each data page (datastore_search or SQL with records) is answered: where tests change the data
   * mid-copy.
   */
  afterPage: ((pages: number) => void) | null = null;
  /**
   * Answers a request before anything else when it returns true: the pass-through's tests answer pages, files and
   * faults of the connection (a reset, a slow start) with it.
   */
  raw: ((req: IncomingMessage, res: ServerResponse, body: Buffer) => boolean) | null = null;
  /** Every request as it arrived: method, target, headers and body. */
  readonly received: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
  /** The dataset as anonymous users see it: public, private (refused) or deleted (not found). */
  visibility: 'public' | 'private' | 'deleted' = 'public';
  /** The dataset's metadata_modified. */
  datasetModified = '2026-11-01T10:00:00.000000';
  private pages = 0;
  private inFlight = 0;
  private server: Server | null = null;
  url = '';

  constructor(readonly options: FakeOptions) {
    this.datasetName = options.datasetName ?? 'fake-dataset';
    this.tables = [
      {
        id: options.resourceId ?? '7a1e0000-0000-4000-8000-00000000cafe',
        name: 'Fake counts',
        fields: options.fields,
        records: options.records,
        oid: 16401,
        modified: '2026-11-01T10:00:00.000000',
        loaderStatus: options.loader ? { status: 'complete', last_updated: '2026-11-01T10:00:00.000000' } : null,
      },
    ];
  }

  // The first table, as most tests have only one.
  get resourceId(): string {
    return this.tables[0]!.id;
  }
  get fields(): FakeField[] {
    return this.tables[0]!.fields;
  }
  set fields(fields: FakeField[]) {
    this.tables[0]!.fields = fields;
  }
  get records(): FakeRecord[] {
    return this.tables[0]!.records;
  }
  set records(records: FakeRecord[]) {
    this.tables[0]!.records = records;
  }
  get oid(): number {
    return this.tables[0]!.oid;
  }
  set oid(oid: number) {
    this.tables[0]!.oid = oid;
  }
  get modified(): string {
    return this.tables[0]!.modified;
  }
  set modified(modified: string) {
    this.tables[0]!.modified = modified;
  }

  /** Another resource of the dataset, with a table of its own. */
  addTable(id: string, name: string, fields: FakeField[], records: FakeRecord[]): FakeTable {
    const table: FakeTable = {
      id,
      name,
      fields,
      records,
      oid: 16401 + this.tables.length,
      modified: '2026-11-01T10:00:00.000000',
      loaderStatus: null,
    };
    this.tables.push(table);
    return table;
  }

  table(id: unknown): FakeTable | undefined {
    return this.tables.find((t) => t.id === id);
  }

  /** Listens on a free port, or on `port` (a portal that comes back where it was). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        if (this.raw?.(req, res, body)) return;
        this.inFlight += 1;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        const [pathname = '', query = ''] = (req.url ?? '').split('?');
        const dump = /\/datastore\/dump\/([^/]+)$/.exec(pathname);
        const action = dump ? 'dump' : decodeURIComponent(pathname.replace(/^.*\/api\/3\/action\//, ''));
        let params: Record<string, any> = {};
        try {
          params = dump
            ? { ...Object.fromEntries(new URLSearchParams(query)), resource_id: decodeURIComponent(dump[1]!) }
            : chunks.length > 0
              ? (parseLossless(Buffer.concat(chunks).toString('utf8'), null, (t) => new LosslessNumber(t)) as Record<
                  string,
                  any
                >)
              : {};
        } catch {
          params = {};
        }
        const request: SeenRequest = {
          action,
          params: dump ? params : (plain(params) as Record<string, any>),
          headers: req.headers,
          inFlight: this.inFlight - 1,
        };
        this.seen.push(request);
        // Answers come a moment later, so that requests sent at once would overlap here.
        setTimeout(() => {
          let answer: ReturnType<Fault> = undefined;
          for (const fault of this.faults) {
            answer = fault(request, this);
            if (answer) break;
          }
          if (answer === 'hang') return;
          const given: { status: number; body: string; headers?: Record<string, string> } =
            answer === 'cut' ? this.cut(this.answer(request)) : (answer ?? this.answer(request));
          const { status, body, headers = {} } = given;
          res.writeHead(status, {
            'content-type': headers['content-type'] ?? 'application/json;charset=utf-8',
            ...headers,
          });
          res.end(body);
          this.inFlight -= 1;
          // A page of the copy: not a probe (the last records, the table's oid, a one-record try of a paging method,
          // the
          // block hashes).
          const copyPage =
            (action === 'datastore_search' && request.params.sort === '_id' && Number(request.params.limit) > 1) ||
            (action === 'datastore_search_sql' && !/LIMIT 1$|GROUP BY/.test(String(request.params.sql)));
          if (status === 200 && (action === 'dump' || (copyPage && /"records": ?\[\s*[[{]/.test(body)))) {
            this.pages += 1;
            this.afterPage?.(this.pages);
          }
        }, 2);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** The port it listens on. */
  get port(): number {
    return Number(new URL(this.url).port);
  }

  /** Requests of one action. */
  requests(action: string): SeenRequest[] {
    return this.seen.filter((r) => r.action === action);
  }

  /** A 200 whose body stops half way, as a dump or an answer cut off by a proxy. */
  private cut(answer: { status: number; body: string; headers?: Record<string, string> }): {
    status: number;
    body: string;
    headers?: Record<string, string>;
  } {
    return { ...answer, body: answer.body.slice(0, Math.floor(answer.body.length / 2)) };
  }

  private resourceDict(table: FakeTable) {
    return {
      id: table.id,
      package_id: `pkg-${this.datasetName}`,
      name: table.name,
      description: 'Counts kept by a fake portal.',
      datastore_active: true,
      metadata_modified: table.modified,
      last_modified: table.modified,
      url_type: 'datastore',
      format: 'CSV',
    };
  }

  /**
   * Empties a table as DataPusher does before a reload (datastore_delete, then datastore_create: a new table, a new
   * oid), then sends the records in chunks, `pauseMs` apart, its loader saying "running" until the last. Resolves
   * when the reload is over.
   */
  async reloadInChunks(
    table: FakeTable,
    records: FakeRecord[],
    options: { chunk: number; pauseMs: number },
  ): Promise<void> {
    table.records = [];
    table.oid += 100;
    if (table.loaderStatus) table.loaderStatus = { status: 'running', last_updated: new Date().toISOString() };
    for (let at = 0; at < records.length; at += options.chunk) {
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
      table.records = [...table.records, ...records.slice(at, at + options.chunk)];
      if (table.loaderStatus) table.loaderStatus = { status: 'running', last_updated: new Date().toISOString() };
    }
    if (table.loaderStatus) table.loaderStatus = { status: 'complete', last_updated: new Date().toISOString() };
  }

  /** The dataset's dict, as package_show and package_search give it. */
  private datasetDict() {
    return {
      id: `pkg-${this.datasetName}`,
      name: this.datasetName,
      title: 'A fake dataset',
      notes: 'Served by the tests.',
      license_id: 'CC-BY-4.0',
      license_title: 'Creative Commons Attribution 4.0',
      organization: { name: 'fake-org', title: 'Fake Organisation' },
      private: this.visibility === 'private',
      state: this.visibility === 'deleted' ? 'deleted' : 'active',
      metadata_modified: this.datasetModified,
      extras: [{ key: 'frequency', value: 'daily' }],
      resources: this.tables.map((t) => this.resourceDict(t)),
    };
  }

  private answer({ action, params, headers }: SeenRequest): {
    status: number;
    body: string;
    headers?: Record<string, string>;
  } {
    const version = this.options.version;
    // What an anonymous request may not see of a private or deleted dataset.
    const hidden = this.visibility !== 'public' && headers.authorization === undefined;
    const refused = () =>
      this.visibility === 'private'
        ? failure(403, {
            __type: 'Authorization Error',
            message: 'Access denied: User  not authorized to read resource',
          })
        : failure(404, { __type: 'Not Found Error', message: 'Not found' });
    if (hidden && ['package_show', 'resource_show', 'datastore_search', 'datastore_info', 'dump'].includes(action))
      return refused();
    switch (action) {
      case 'package_search': {
        const fq = String(params.fq ?? '');
        const since = /metadata_modified:\[(\S+) TO \*\]/.exec(fq)?.[1]?.replace(/Z$/, '');
        const found = !hidden && (!since || this.datasetModified >= since) ? [this.datasetDict()] : [];
        return { status: 200, body: envelope({ count: found.length, results: found, facets: {}, search_facets: {} }) };
      }
      case 'package_list':
        return { status: 200, body: envelope(hidden ? [] : [this.datasetName]) };
      case 'datastore_upsert': {
        const table = this.table(params.resource_id);
        if (!table) return failure(404, { __type: 'Not Found Error', message: 'Not found: Resource was not found.' });
        let next = Math.max(0, ...table.records.map((r) => r._id));
        const records = (params.records as Record<string, unknown>[]).map((r) => ({ ...r, _id: ++next }));
        table.records = [...table.records, ...records];
        return { status: 200, body: envelope({ resource_id: table.id, method: 'insert', records: params.records }) };
      }
      case 'status_show':
        return { status: 200, body: envelope({ ckan_version: `${version}.0`, extensions: ['datastore'] }) };
      case 'package_show':
        if (params.id !== this.datasetName && params.id !== `pkg-${this.datasetName}`)
          return failure(404, { __type: 'Not Found Error', message: 'Not found' });
        return { status: 200, body: envelope(this.datasetDict()) };
      case 'resource_show': {
        const table = this.table(params.id);
        if (!table) return failure(404, { __type: 'Not Found Error', message: 'Not found: Resource was not found.' });
        return { status: 200, body: envelope(this.resourceDict(table)) };
      }
      case 'datastore_search':
        return this.search(params);
      case 'datastore_search_sql':
        if (!this.options.sql)
          return { status: 400, body: JSON.stringify('Bad request - Action name not known: datastore_search_sql') };
        return this.sql(String(params.sql ?? ''));
      case 'xloader_status':
      case 'datapusher_status': {
        if (action !== `${this.options.loader}_status`)
          return { status: 400, body: JSON.stringify(`Bad request - Action name not known: ${action}`) };
        const table = this.table(params.resource_id);
        if (!table?.loaderStatus)
          return failure(404, { __type: 'Not Found Error', message: 'Not found: Task was not found.' });
        return { status: 200, body: envelope({ ...table.loaderStatus, job_id: null, task_info: null, error: {} }) };
      }
      case 'dump':
        return this.dumpAnswer(params);
      default:
        return { status: 400, body: JSON.stringify(`Bad request - Action name not known: ${action}`) };
    }
  }

  /**
   * The table as CKAN 2.10's dump writes it: a header by Python's csv module (CRLF), then PostgreSQL's COPY … CSV
   * (LF; a value quoted only when it must be, the empty string as "", NULL as nothing; booleans t and f; numbers as
   * written; JSON and arrays as JSON text, a null one as `null`).
   */
  dumpAnswer(params: Record<string, any>): { status: number; body: string; headers?: Record<string, string> } {
    const html = (status: number, text: string) => ({
      status,
      body: `<!doctype html><html><body>${text}</body></html>`,
      headers: { 'content-type': 'text/html; charset=utf-8' },
    });
    if (this.options.dump === false) return html(404, 'Not Found');
    const table = this.table(params.resource_id);
    if (!table) return html(404, 'DataStore resource not found');
    const quoteHeader = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
    const types = new Map(table.fields.map((f) => [f.id, f.type]));
    const text = (id: string, value: unknown): string => {
      const type = types.get(id) ?? 'int';
      if (value === null || value === undefined) return type.startsWith('_') || type === 'json' ? 'null' : '';
      let out: string;
      if (value instanceof LosslessNumber) out = value.value;
      else if (typeof value === 'boolean') out = value ? 't' : 'f';
      else if (typeof value === 'object') out = stringifyLossless(value)!;
      else out = String(value);
      return out === '' || /[",\r\n]/.test(out) || out === '\\.' ? `"${out.replace(/"/g, '""')}"` : out;
    };
    const ids = ['_id', ...table.fields.map((f) => f.id)];
    const rows = [...table.records].sort((a, b) => a._id - b._id);
    const body = `${ids.map(quoteHeader).join(',')}\r\n${rows.map((r) => `${ids.map((id) => text(id, r[id])).join(',')}\n`).join('')}`;
    return {
      status: 200,
      body,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${table.id}.csv"`,
      },
    };
  }

  private search(params: Record<string, any>): { status: number; body: string } {
    const known = new Set([
      'resource_id',
      'limit',
      'offset',
      'sort',
      'filters',
      'fields',
      'records_format',
      'include_total',
      'q',
    ]);
    const unknown = Object.keys(params).filter((k) => !known.has(k));
    if (unknown.length > 0)
      return failure(409, { __extras: unknown.map((k) => `invalid value "${k}"`), __type: 'Validation Error' });
    if (params.resource_id === '_table_metadata') {
      const found = this.table(params.filters?.name);
      const records = found ? [{ _id: 1, name: found.id, oid: found.oid, alias_of: null }] : [];
      return { status: 200, body: envelope({ records, fields: [], total: records.length }) };
    }
    const table = this.table(params.resource_id);
    if (!table)
      return failure(404, {
        __type: 'Not Found Error',
        message: `Not found: Resource "${params.resource_id}" was not found.`,
      });
    let rows = [...table.records].sort((a, b) => a._id - b._id);
    const filters = params.filters ?? {};
    for (const [key, value] of Object.entries(filters)) {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        if (this.options.version !== '2.12' || key !== '_id' || Object.keys(value).join() !== 'gt') {
          return failure(409, { filters: [`invalid value "${JSON.stringify(value)}"`], __type: 'Validation Error' });
        }
        rows = rows.filter((r) => r._id > Number((value as { gt: unknown }).gt));
      } else if (Array.isArray(value)) {
        // A list matches any of its values, as CKAN's filters do.
        const wanted = new Set(value.map((v) => (v instanceof LosslessNumber ? Number(v.value) : v)));
        rows = rows.filter((r) => wanted.has(r[key]));
      } else rows = rows.filter((r) => r[key] === value);
    }
    if (params.sort === '_id desc') rows.reverse();
    const limit = Math.min(params.limit === undefined ? 100 : Number(params.limit), this.options.rowsMax);
    const offset = Number(params.offset ?? 0);
    const total = rows.length;
    const page = rows.slice(offset, offset + limit);
    const ids: string[] = params.fields
      ? Array.isArray(params.fields)
        ? params.fields
        : String(params.fields).split(',')
      : ['_id', ...table.fields.map((f) => f.id)];
    const records =
      params.records_format === 'lists'
        ? page.map((r) => ids.map((id) => r[id] ?? null))
        : page.map((r) => Object.fromEntries(ids.map((id) => [id, r[id] ?? null])));
    const result: Record<string, unknown> = {
      resource_id: table.id,
      fields: [{ id: '_id', type: 'int' }, ...table.fields],
      records,
      limit,
      ...(offset ? { offset } : {}),
    };
    if (params.include_total !== false) result.total = total;
    if (this.options.version !== '2.9')
      result._links = {
        start: '/api/3/action/datastore_search',
        next: '/api/3/action/datastore_search?offset=' + (offset + limit),
      };
    return { status: 200, body: envelope(result) };
  }

  private sql(statement: string): { status: number; body: string } {
    const hashes =
      /^SELECT \("_id" - 1\) \/ (\d+) AS "b", count\(\*\) AS "n", md5\(string_agg\(json_build_array\((.+)\)::text, ',' ORDER BY "_id"\)\) AS "h" FROM "((?:[^"]|"")+)" GROUP BY 1 ORDER BY 1$/.exec(
        statement,
      );
    if (hashes) return this.blockHashes(Number(hashes[1]), hashes[2]!, hashes[3]!, statement);
    const match =
      /^SELECT (.+) FROM "((?:[^"]|"")+)" WHERE "_id" > (\d+)(?: AND "_id" <= (\d+))? ORDER BY "_id" LIMIT (\d+)$/.exec(
        statement,
      );
    if (!match) return failure(409, { query: ['Invalid query'], __type: 'Validation Error' });
    const table = this.table(match[2]);
    if (!table) return failure(409, { query: [`relation "${match[2]}" does not exist`], __type: 'Validation Error' });
    const columns = [...match[1]!.matchAll(/"((?:[^"]|"")+)"/g)].map((m) => m[1]!.replace(/""/g, '"'));
    const after = Number(match[3]);
    const upTo = match[4] === undefined ? Infinity : Number(match[4]);
    const limit = Number(match[5]);
    const rows = table.records.filter((r) => r._id > after && r._id <= upTo).sort((a, b) => a._id - b._id);
    const page = rows.slice(0, Math.min(limit, this.options.rowsMax));
    const types = new Map(table.fields.map((f) => [f.id, f.type]));
    // Before 2.11 the DataStore's SQL sent numeric values as strings.
    const asSent = (id: string, value: unknown) =>
      value !== null && types.get(id) === 'numeric' && Number(this.options.version.split('.')[1]) < 11
        ? String(value instanceof LosslessNumber ? value.value : value)
        : value;
    const records = page.map((r) => Object.fromEntries(columns.map((id) => [id, asSent(id, r[id] ?? null)])));
    const result: Record<string, unknown> = {
      records,
      fields: columns.map((id) => ({ id, type: id === '_id' ? 'int4' : types.get(id) })),
      sql: statement,
    };
    if (limit > this.options.rowsMax && rows.length > page.length) result.records_truncated = true;
    return { status: 200, body: envelope(result) };
  }

  /** Per block of `size` _ids, its count and a hash of its records (the portal's own text of them, here their JSON). */
  private blockHashes(
    size: number,
    columnList: string,
    resourceId: string,
    statement: string,
  ): { status: number; body: string } {
    const table = this.table(resourceId.replace(/""/g, '"'));
    if (!table) return failure(409, { query: [`relation "${resourceId}" does not exist`], __type: 'Validation Error' });
    const columns = [...columnList.matchAll(/"((?:[^"]|"")+)"/g)].map((m) => m[1]!.replace(/""/g, '"'));
    const blocks = new Map<number, string[]>();
    for (const r of [...table.records].sort((a, b) => a._id - b._id)) {
      const b = Math.floor((r._id - 1) / size);
      const texts = blocks.get(b) ?? [];
      texts.push(stringifyLossless(columns.map((id) => r[id] ?? null)) ?? '');
      blocks.set(b, texts);
    }
    const records = [...blocks]
      .sort((x, y) => x[0] - y[0])
      .map(([b, texts]) => ({ b, n: texts.length, h: createHash('md5').update(texts.join(',')).digest('hex') }));
    const result = {
      records,
      fields: [
        { id: 'b', type: 'int4' },
        { id: 'n', type: 'int8' },
        { id: 'h', type: 'text' },
      ],
      sql: statement,
    };
    return { status: 200, body: envelope(result) };
  }
}

function plain(value: unknown): unknown {
  if (value instanceof LosslessNumber) return Number(value.value);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

// ---- faults

/** The first `count` requests are refused with 429 and a Retry-After. */
/**
 * A moment as CKAN writes `metadata_modified` (UTC, microseconds, no zone): now by default, as a portal stamps a change
 * when it is made. A fixed date would fall behind a poll's "since" once the day of writing it has passed.
 */
export function ckanTime(ms = Date.now()): string {
  return new Date(ms).toISOString().replace(/Z$/, '000');
}

export function tooManyRequests(count: number, retryAfterSeconds = 2): Fault {
  let left = count;
  return () =>
    left-- > 0
      ? { ...failure(429, { message: 'Too Many Requests' }), headers: { 'retry-after': String(retryAfterSeconds) } }
      : undefined;
}

/** datastore_search pages larger than `limit` take too long (CKAN's 409 after its statement timeout). */
export function tooLongAbove(limit: number): Fault {
  return ({ action, params }) =>
    action === 'datastore_search' &&
    Number(params.limit) > limit &&
    params.limit !== undefined &&
    Number(params.limit) > 1
      ? failure(409, { query: ['Search took too long'], __type: 'Validation Error' })
      : undefined;
}

/** Every request is left unanswered, as by a portal that accepts connections and is stuck. */
export function hanging(): Fault {
  return () => 'hang';
}

/** Every request fails as a portal that is down behind its proxy does (503, with a Retry-After when given). */
export function unavailable(retryAfterSeconds: number | null = null): Fault {
  return () => ({
    status: 503,
    body: '<html><body>Service Unavailable</body></html>',
    headers: {
      'content-type': 'text/html',
      ...(retryAfterSeconds !== null ? { 'retry-after': String(retryAfterSeconds) } : {}),
    },
  });
}

/** The dump stops after `records` records, with a 200 and nothing to say so (as older CKANs end a failed dump). */
export function dumpCutAfter(records: number): Fault {
  return (request, portal) => {
    if (request.action !== 'dump') return undefined;
    const table = portal.table(request.params.resource_id);
    if (!table) return undefined;
    const kept = table.records;
    table.records = [...kept].sort((a, b) => a._id - b._id).slice(0, records);
    try {
      return portal.dumpAnswer(request.params);
    } finally {
      table.records = kept;
    }
  };
}

/** The `nth` data page (1-based) is cut off half way, with a 200. */
export function cutOffPage(nth: number): Fault {
  let pages = 0;
  return ({ action, params }) => {
    if (
      action !== 'datastore_search' ||
      Number(params.limit) <= 1 ||
      params.sort === '_id desc' ||
      params.resource_id === '_table_metadata'
    )
      return undefined;
    pages += 1;
    return pages === nth ? 'cut' : undefined;
  };
}

/** Every request about the resource is refused, as for a dataset gone private. */
export function gonePrivate(): Fault {
  return () =>
    failure(403, { __type: 'Authorization Error', message: 'Access denied: User not authorized to read resource' });
}

/** An HTML page instead of JSON (a login page, a bot challenge). */
export function htmlInstead(): Fault {
  return () => ({
    status: 200,
    body: '<!doctype html><html><body>Checking your browser…</body></html>',
    headers: { 'content-type': 'text/html' },
  });
}

/**
 * Records `first`…`first + count - 1`, with the fields every test uses; _ids skip every fifth number (deleted rows).
 */
export function sampleRecords(count: number, first = 1): FakeRecord[] {
  const records: FakeRecord[] = [];
  let id = first;
  for (let i = 0; i < count; i++) {
    if (id % 5 === 0) id += 1;
    records.push({
      _id: id,
      Name: `Name ${id} Ó Súilleabháin`,
      Votes: id * 10,
      Share: new LosslessNumber(`${id}.125`),
      Big: new LosslessNumber(String(9007199254700000 + id)),
      Seen: `2020-02-${String((id % 28) + 1).padStart(2, '0')}T10:00:00`,
      Notes: id % 3 === 0 ? null : '',
    });
    id += 1;
  }
  return records;
}

export const SAMPLE_FIELDS: FakeField[] = [
  { id: 'Name', type: 'text', info: { label: 'Name', notes: 'The candidate as printed.', type_override: '' } },
  { id: 'Votes', type: 'int4' },
  { id: 'Share', type: 'numeric' },
  { id: 'Big', type: 'int8' },
  { id: 'Seen', type: 'timestamp' },
  { id: 'Notes', type: 'text' },
];
