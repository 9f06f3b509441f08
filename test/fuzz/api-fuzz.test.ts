// The API under generated hostile requests, over HTTP, on both stores: every action and parameter, dumps, SQL, odd
// methods, paths, headers and bodies, eight clients at a time. Properties: never a 5xx; every error on an API path in
// CKAN's envelope (or CKAN's bare-string 400); no stack, file path, driver or internal SQL text in any answer; no
// request slower than 10 s; the data identical afterwards. COUNTCENTRE_FUZZ_RUNS sets the requests per store (a longer
// run: 50000), COUNTCENTRE_FUZZ_SEED replays a run.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { PROJECT_ROOT } from '../../src/settings.js';
import {
  RESOURCE_A,
  RESOURCE_B,
  RESOURCE_C,
  startService,
  TEST_BACKENDS,
  type RequestOptions,
  type TestResponse,
  type TestService,
  wellFormed,
} from '../helpers/service.js';

const RUNS = Number(process.env.COUNTCENTRE_FUZZ_RUNS ?? 3000);
const SEED = Number(process.env.COUNTCENTRE_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CLIENTS = 8;
// A stall, not a slow machine: on two busy cores an honest request (a compressed 150 MB body refused at 1 MB, say)
// has taken 4 s, while a request that hangs never answers at all.
const SLOWEST_MS = 10_000;

const RESOURCES = [RESOURCE_A, RESOURCE_B, RESOURCE_C];
const catalogue = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'catalog.json'), 'utf8')) as {
  datasets: { resources: { id: string; fields: { id: string }[] }[] }[];
};
const FIELDS = [...new Set(catalogue.datasets.flatMap((d) => d.resources.flatMap((r) => r.fields.map((f) => f.id))))];
const ACTIONS = [
  'datastore_search',
  'datastore_search_sql',
  'datastore_info',
  'help_show',
  'package_list',
  'package_show',
  'resource_show',
  'status_show',
  'site_read',
];
const SEARCH_PARAMS = [
  'resource_id',
  'id',
  'filters',
  'q',
  'full_text',
  'distinct',
  'plain',
  'language',
  'limit',
  'offset',
  'fields',
  'sort',
  'include_total',
  'total_estimation_threshold',
  'records_format',
  'callback',
  'include_next_page',
  'next_page',
];
const ATTACK_SQL = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'search-sql', 'attacks.json'), 'utf8')) as {
    attacks: { sql: string }[];
  }
).attacks.map((a) => a.sql);

// --- generators -------------------------------------------------------------------------------------------------

const nasty = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ufffd',
  '\ud800',
  '😀',
  'Ó Ríordáin',
  "O'Brien",
  '"',
  '""',
  '\\',
  '%',
  '%00',
  '%C3%28',
  '\r\n',
  '\t',
  "'; DROP TABLE x; --",
  '" OR 1=1 --',
  '1; SELECT pg_sleep(10)',
  '$1',
  '?',
  ':x',
  '{}',
  '[]',
  'null',
  'true',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '99999999999999999999',
  '-9223372036854775809',
  '2147483648',
  '0x10',
  '1_000',
  ' 10 ',
  '10.0',
  '1.5',
  '-1',
  '__proto__',
  'constructor',
  'rank',
  'rank Surname',
  '_id',
  '_full_text',
  '*',
  'Dub:*',
  '!!',
  '&',
  '|',
  '<->',
  '(',
  ')',
  'english',
  'simple',
  'klingon',
  'objects',
  'lists',
  'csv',
  'tsv',
  'xml',
  'asc',
  'desc',
  'Votes desc',
  '"Votes" desc nulls first',
  'Votes asc nulls last, _id',
);
const text = fc.oneof(
  { weight: 3, arbitrary: nasty },
  { weight: 2, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3000 }).map((n) => 'x'.repeat(n)) },
);
const number = fc.oneof(
  fc.integer({ min: -5, max: 6000 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 31, 2 ** 53, 2 ** 63, 1e20, -1e20, 0.5, -0),
);
const scalar = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const operatorDict = fc.dictionary(
  fc.constantFrom('eq', 'in', 'gt', 'gte', 'lt', 'lte', 'ne', 'like', '$or', '$and', 'bogus'),
  fc.oneof(scalar, fc.array(scalar, { maxLength: 4 })),
  { maxKeys: 3 },
);
const filterValue = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 6 }),
  operatorDict,
  fc.array(fc.oneof(scalar, operatorDict), { maxLength: 3 }),
  fc.integer({ min: 1, max: 12_000 }).map((n) => Array.from({ length: n }, (_, i) => `v${i}`)),
);
const filterDict = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS, '_id', '$or', '$and', '$$x'), text), filterValue, {
  maxKeys: 4,
});
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const paramValue = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 3, arbitrary: filterDict },
  { weight: 1, arbitrary: fc.array(filterDict, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...FIELDS, 'rank', '_id', 'nope'), { maxLength: 5 }) },
  { weight: 1, arbitrary: json },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 5000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)) },
);
const resourceId = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...RESOURCES) },
  { weight: 1, arbitrary: fc.constantFrom('_table_metadata', '6bc45750-652d-4e82-b422-0bdcfc2a4c53') },
  { weight: 2, arbitrary: text },
  { weight: 1, arbitrary: fc.uuid() },
);
const searchParams = fc.record({
  resource_id: fc.option(resourceId, { nil: undefined, freq: 8 }),
  extra: fc.dictionary(fc.oneof(fc.constantFrom(...SEARCH_PARAMS), text), paramValue, { maxKeys: 5 }),
});

const sqlExpression = fc.oneof(
  fc.constantFrom(
    ...FIELDS.map((f) => `"${f}"`),
    '*',
    'count(*)',
    '_id',
    '"_full_text"',
    '1/0',
    "'a'::int",
    'sum("Votes")',
    'avg("Votes")',
    'now()',
    'pg_sleep(1)',
    'random()',
    'upper("Surname")',
    'to_tsvector(\'english\', "Surname")',
    'generate_series(1, 100000000)',
    'version()',
    "current_setting('data_directory')",
    '"Votes" * 1e308 * 10',
    "length(repeat('x', 100000000))",
    'string_agg("Surname", \',\')',
    'row_number() OVER ()',
    '9223372036854775807 + 1',
  ),
  text.map((t) => `'${t.replace(/'/g, "''")}'`),
  number.map(String),
);
const sqlStatement = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record({
        columns: fc.array(sqlExpression, { minLength: 1, maxLength: 3 }),
        from: fc.constantFrom(...RESOURCES, '_table_metadata', 'pg_class', 'pg_catalog.pg_authid', 'nope'),
        join: fc.option(fc.constantFrom(...RESOURCES), { nil: undefined }),
        where: fc.option(sqlExpression, { nil: undefined }),
        tail: fc.constantFrom(
          '',
          ' GROUP BY 1',
          ' ORDER BY 1 DESC',
          ' LIMIT 5',
          ' OFFSET 1e10',
          ' LIMIT -1',
          ' FOR UPDATE',
          '; SELECT 1',
          ' --',
        ),
      })
      .map(
        (s) =>
          `SELECT ${s.columns.join(', ')} FROM "${s.from}"${s.join ? `, "${s.join}"` : ''}${s.where ? ` WHERE ${s.where}` : ''}${s.tail}`,
      ),
  },
  { weight: 2, arbitrary: fc.constantFrom(...ATTACK_SQL) },
  { weight: 1, arbitrary: text },
);

const contentType = fc.constantFrom(
  'application/json',
  'application/x-www-form-urlencoded',
  'text/plain',
  'application/json; charset=latin1',
  'multipart/form-data; boundary=x',
  '',
  'application/xml',
);

interface Generated {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

function queryOf(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string') && key.length % 2 === 0)
      for (const v of value) search.append(key, v as string);
    else search.append(key, typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null'));
  }
  return search.toString();
}

const actionPath = fc
  .oneof(
    { weight: 8, arbitrary: fc.constantFrom(...ACTIONS) },
    { weight: 1, arbitrary: text.map((t) => encodeURIComponent(wellFormed(t))) },
    { weight: 1, arbitrary: fc.constantFrom('%C3%28', '%ED%B0%80', 'datastore%5Fsearch', '..%2F..%2Fetc', 'a/b', '') },
  )
  .chain((name) =>
    fc.constantFrom(
      `/api/3/action/${name}`,
      `/api/action/${name}`,
      `/en/api/3/action/${name}`,
      `/xx/api/action/${name}`,
    ),
  );

const actionRequest = fc
  .record({
    path: actionPath,
    params: searchParams,
    sql: fc.option(sqlStatement, { nil: undefined, freq: 3 }),
    how: fc.constantFrom(
      'get',
      'get',
      'post-json',
      'post-form',
      'post-raw',
      'post-gzip',
      'post-broken-br',
      'head',
      'options',
      'put',
    ),
    type: contentType,
    name: fc.boolean(),
    cut: fc.boolean(),
  })
  .map(({ path, params, sql, how, type, name, cut }): Generated => {
    const all: Record<string, unknown> = {
      ...params.extra,
      ...(params.resource_id !== undefined ? { resource_id: params.resource_id } : {}),
      ...(sql !== undefined ? { sql } : {}),
    };
    if (path.endsWith('help_show') && name) all.name = 'datastore_search';
    const jsonBody = JSON.stringify(all);
    switch (how) {
      case 'get':
        return { method: 'GET', url: `${path}?${queryOf(all)}`, headers: {} };
      case 'head':
        return { method: 'HEAD', url: `${path}?${queryOf(all)}`, headers: {} };
      case 'options':
        return {
          method: 'OPTIONS',
          url: path,
          headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' },
        };
      case 'put':
        return { method: 'PUT', url: path, headers: { 'content-type': 'application/json' }, payload: jsonBody };
      case 'post-json':
        return { method: 'POST', url: path, headers: { 'content-type': 'application/json' }, payload: jsonBody };
      case 'post-form':
        return {
          method: 'POST',
          url: path,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: queryOf(all),
        };
      case 'post-gzip':
        return {
          method: 'POST',
          url: path,
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          payload: gzipSync(jsonBody),
        };
      case 'post-broken-br':
        return {
          method: 'POST',
          url: path,
          headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
          payload: Buffer.from(jsonBody),
        };
      default:
        return {
          method: 'POST',
          url: path,
          headers: type ? { 'content-type': type } : {},
          payload: cut ? jsonBody.slice(0, Math.floor(jsonBody.length / 2)) : jsonBody,
        };
    }
  });

const dumpRequest = fc
  .record({
    id: resourceId,
    params: fc.dictionary(
      fc.oneof(
        fc.constantFrom(
          'format',
          'bom',
          'filters',
          'q',
          'sort',
          'fields',
          'limit',
          'offset',
          'distinct',
          'plain',
          'language',
        ),
        text,
      ),
      paramValue,
      { maxKeys: 4 },
    ),
    format: fc.option(fc.constantFrom('csv', 'tsv', 'json', 'xml', 'ndjson', 'xlsx'), { nil: undefined }),
    method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST'),
    encoding: fc.constantFrom('', 'gzip', 'br', '*', 'identity;q=0'),
  })
  .map(({ id, params, format, method, encoding }): Generated => ({
    method,
    url: `/datastore/dump/${encodeURIComponent(wellFormed(id))}?${queryOf({ ...params, ...(format ? { format } : {}), limit: params.limit ?? 200 })}`,
    headers: encoding ? { 'accept-encoding': encoding } : {},
  }));

/**
 * Bodies over the limit as sent, or once decompressed (a "zip bomb" of 150 MB of spaces in 150 KB), made once: making
 * them while the clients run would stall the process that also serves the requests.
 */
const OVERSIZED_BODIES = [
  { encoding: '', payload: Buffer.alloc(1024 * 1024 + 1, 97) },
  { encoding: '', payload: Buffer.alloc(3 * 1024 * 1024, 97) },
  { encoding: 'gzip', payload: gzipSync(Buffer.alloc(150 * 1024 * 1024, 32)) },
  { encoding: 'gzip', payload: gzipSync(Buffer.alloc(1024 * 1024 + 100, 32)) },
];

const oddRequest: fc.Arbitrary<Generated> = fc.oneof(
  fc
    .constantFrom(
      '/api',
      '/api/3',
      '/api/3/',
      '/api/4',
      '/api/3/openapi.json',
      '/healthz',
      '/datastore/dump/',
      '/datastore/',
      '/api/3/action/datastore_search/extra',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/api/3/action/datastore_search?%',
      '/api/3/action/datastore_search?resource_id=%ZZ',
      `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&resource_id=${RESOURCE_B}`,
    )
    .map((url) => ({ method: 'GET', url, headers: {} })),
  fc.record({ body: fc.constantFrom(...OVERSIZED_BODIES) }).map(({ body }) => ({
    method: 'POST',
    url: '/api/3/action/datastore_search',
    headers: { 'content-type': 'application/json', ...(body.encoding ? { 'content-encoding': body.encoding } : {}) },
    payload: body.payload,
  })),
  fc
    .record({
      header: fc.constantFrom('if-none-match', 'accept-encoding', 'content-type', 'origin', 'x-forwarded-for', 'host'),
      value: text,
    })
    .map(({ header, value }) => ({
      method: 'GET',
      url: `/api/3/action/datastore_search?resource_id=${RESOURCE_B}&limit=1`,
      headers: { [header]: value.replace(/[^\x20-\x7e]/g, '') },
    })),
);

const requests: fc.Arbitrary<Generated> = fc.oneof(
  { weight: 10, arbitrary: actionRequest },
  { weight: 3, arbitrary: dumpRequest },
  { weight: 1, arbitrary: oddRequest },
);

// --- properties -------------------------------------------------------------------------------------------------

const ERROR_TYPES = new Set([
  'Validation Error',
  'Not Found Error',
  'Authorization Error',
  'Method Not Allowed',
  'Request Entity Too Large',
  'Service Unavailable',
]);

/** Text no answer may hold: stack frames, file paths, driver and engine names, and the stores' internal SQL. */
const LEAKS = [
  /\n\s+at \S/,
  /\.(?:js|ts|cjs|mjs):\d+/,
  /node_modules|\/dist\/|\/work\/|\/home\/|\/usr\/|\/var\//,
  /SqliteError|SQLITE_[A-Z]|better-sqlite3|sqlite3_|libpq|pg-protocol|ECONNREFUSED|ECONNRESET/,
  /cc_deadline|cc_ts_|cc_row_|cc_fts|json_each|_countcentre_|"_exact:|COLLATE "C"|countcentre_/,
  /[0-9a-f-]{36}@[0-9a-z]+/,
];

interface Failure {
  request: string;
  problem: string;
}

/** A request's body as text: what the server reads from it (a small gzip body decompressed). */
function payloadText(r: Generated): string {
  if (r.payload === undefined) return '';
  if (!Buffer.isBuffer(r.payload)) return r.payload;
  if (r.headers['content-encoding'] !== 'gzip' || r.payload.length > 10_000) return '';
  try {
    return gunzipSync(r.payload).toString('utf8');
  } catch {
    return '';
  }
}

function describeRequest(r: Generated): string {
  const text = payloadText(r);
  const body =
    r.payload === undefined ? '' : ` body ${text ? JSON.stringify(text.slice(0, 300)) : `<${r.payload.length} bytes>`}`;
  return `${r.method} ${r.url.slice(0, 400)} ${JSON.stringify(r.headers)}${body}`;
}

/** The body as the client reads it: decompressed as its Content-Encoding says. */
function bodyText(response: TestResponse): string {
  const encoding = response.headers['content-encoding'];
  try {
    if (encoding === 'gzip') return gunzipSync(response.rawPayload).toString('utf8');
    if (encoding === 'br') return brotliDecompressSync(response.rawPayload).toString('utf8');
  } catch {
    return '<a body that does not decompress>';
  }
  return response.body;
}

function check(r: Generated, response: TestResponse, ms: number): string | null {
  const status = response.statusCode;
  const body = bodyText(response);
  if (status >= 500) return `status ${status}: ${body.slice(0, 300)}`;
  if (ms > SLOWEST_MS) return `took ${Math.round(ms)} ms`;
  const requestText = `${decodeURIComponentSafe(r.url)}\n${payloadText(r)}`;
  for (const leak of LEAKS) {
    const found = body.match(new RegExp(leak.source, `${leak.flags}g`)) ?? [];
    const unexplained = found.filter((m) => !requestText.includes(m.trim()));
    if (unexplained.length > 0) return `leaks ${JSON.stringify(unexplained[0])}: ${body.slice(0, 300)}`;
  }
  const apiPath =
    r.url.startsWith('/api') ||
    /^\/[^/]+\/api\//.test(r.url) ||
    r.url.startsWith('/datastore/') ||
    r.url.startsWith('/healthz');
  if (!apiPath || status < 400) return null;
  if (response.headers['content-type'] !== 'application/json;charset=utf-8')
    return `error without JSON: ${response.headers['content-type']}`;
  if (r.method === 'HEAD') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `error body is not JSON: ${body.slice(0, 200)}`;
  }
  if (typeof parsed === 'string')
    return (status === 400 || status === 431) && parsed.startsWith('Bad request - ')
      ? null
      : `bare string with status ${status}: ${parsed.slice(0, 200)}`;
  const envelope = parsed as { help?: unknown; error?: { __type?: unknown }; success?: unknown };
  if (JSON.stringify(Object.keys(envelope)) !== '["help","error","success"]')
    return `not CKAN's envelope: ${body.slice(0, 200)}`;
  if (
    envelope.success !== false ||
    typeof envelope.help !== 'string' ||
    !ERROR_TYPES.has(String(envelope.error?.__type))
  )
    return `envelope fields: ${body.slice(0, 200)}`;
  return null;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

async function checksums(service: TestService): Promise<Record<string, string>> {
  const sums: Record<string, string> = {};
  for (const id of [...RESOURCES, '_table_metadata']) {
    const dump = await service.request(`/datastore/dump/${id}?sort=_id`);
    assert.equal(dump.statusCode, 200);
    sums[id] = createHash('sha256').update(dump.rawPayload).digest('hex');
  }
  return sums;
}

for (const backend of TEST_BACKENDS)
  describe(`fuzzing the API [${backend}]`, () => {
    let service: TestService;
    let before_: Record<string, string>;

    before(async () => {
      // The time limits bound the cost of the most expensive request a client may ask for; a small response cache is
      // filled and emptied many times over.
      service = await startService({ searchTimeoutMs: 1000, sqlTimeoutMs: 1000, responseCacheMb: 2 }, backend);
      before_ = await checksums(service);
    });
    after(() => service.close());

    test(
      `${RUNS} generated hostile requests from ${CLIENTS} clients at once (seed ${SEED}): no 5xx, CKAN's envelope, no leaks, none slower than 10 s`,
      { timeout: 10 * 60_000 },
      async () => {
        // Generated a batch at a time: some requests carry bodies of megabytes, which a long run must not hold all at
        // once.
        const BATCH = 200;
        let batch: Generated[] = [];
        let taken = 0;
        const take = (): Generated | null => {
          if (taken >= RUNS) return null;
          if (taken % BATCH === 0)
            batch = fc.sample(requests, { numRuns: Math.min(BATCH, RUNS - taken), seed: SEED + taken / BATCH });
          return batch[taken++ % BATCH]!;
        };
        const failures: Failure[] = [];
        const statuses = new Map<number, number>();
        const client = async () => {
          for (let r = take(); r !== null; r = take()) {
            const started = performance.now();
            let response: TestResponse;
            try {
              response = await service.request(r as RequestOptions);
            } catch (err) {
              // The server may close a connection whose body it refused (a 413 before reading): not an answer to judge.
              if (/EPIPE|ECONNRESET/.test(String((err as Error).message))) continue;
              failures.push({ request: describeRequest(r), problem: `no answer: ${(err as Error).message}` });
              continue;
            }
            statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
            const problem = check(r, response, performance.now() - started);
            if (problem) failures.push({ request: describeRequest(r), problem });
          }
        };
        await Promise.all(Array.from({ length: CLIENTS }, client));
        const summary = [...statuses]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ');
        // One example of each kind of failure (by the start of its description), with how often it happened.
        const kinds = new Map<string, { count: number; example: Failure }>();
        for (const failure of failures) {
          const kind = failure.problem.replace(/\d+/g, 'N').slice(0, 50);
          const seen = kinds.get(kind);
          if (seen) seen.count += 1;
          else kinds.set(kind, { count: 1, example: failure });
        }
        assert.deepEqual(
          [...kinds.values()].slice(0, 12),
          [],
          `seed ${SEED}, statuses ${summary}, ${failures.length} failures`,
        );
        assert.ok((statuses.get(200) ?? 0) > RUNS / 10, `enough requests succeed to reach the stores: ${summary}`);
      },
    );

    test('the data is identical afterwards: a checksum of every resource', async () => {
      assert.deepEqual(await checksums(service), before_);
    });
  });
