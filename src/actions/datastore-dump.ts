// The dump of a resource (`/datastore/dump/<id>`): the records a datastore_search with the same filters, q, sort,
// fields, limit and offset would select, all of them by default, streamed in batches in one of the dump formats.
// In `_id` order (the default) the batches are short queries that each start after the last record of the one before
// (keyset paging, as CKAN 2.12's dump does); other orders stream one statement.

import { ApiError, errors, messages } from '../errors.js';
import { toBoolean, toText } from '../query/coerce.js';
import { ParamErrors, type ParamSpec } from '../query/params.js';
import { readSearchRequest, searchParamSpecs } from '../query/search-params.js';
import { idWalk } from '../query/keyset.js';
import type { SearchPlan } from '../query/plan.js';
import { planSearch } from '../query/search-plan.js';
import { DUMP_FORMATS, dumpWriter, type DumpFormat } from '../serialize/dump-formats.js';
import type { Services } from './types.js';

/** Parameters a dump takes over from datastore_search; others are ignored, as CKAN ignores them. */
const SEARCH_PARAMS = [
  'filters',
  'q',
  'full_text',
  'distinct',
  'plain',
  'language',
  'fields',
  'sort',
  'limit',
  'offset',
];

/** The dump's parameters, for its documentation: its own two, and those it shares with datastore_search. */
export function dumpParamSpecs(limits: { rowsDefault: number; rowsMax: number }): ParamSpec[] {
  const shared = searchParamSpecs(limits).filter((spec) => SEARCH_PARAMS.includes(spec.name));
  return [
    {
      name: 'format',
      type: 'string',
      defaultText: 'csv',
      coerce: toText,
      schema: { type: 'string', enum: [...DUMP_FORMATS], default: 'csv' },
      example: 'json',
      description:
        'csv (a header line, then comma-separated records), tsv, json ({"fields": […], "records": [[…], …]}), xml (<data><row _id="1">…</row></data>) or ndjson (one JSON object per line).',
    },
    {
      name: 'bom',
      type: 'bool',
      defaultText: 'false',
      coerce: toBoolean,
      schema: { type: 'boolean', default: false },
      example: true,
      description:
        'start the file with a UTF-8 byte order mark, which some spreadsheet programs need to read accented letters right.',
    },
    ...shared.map((spec) =>
      spec.name === 'limit'
        ? {
            ...spec,
            defaultText: 'all records',
            schema: { type: 'integer', minimum: 0 },
            description: 'maximum number of records in the dump (default: all).',
          }
        : spec.name === 'sort'
          ? { ...spec, defaultText: '_id' }
          : spec,
    ),
  ];
}

/**
 * Rows per piece of the file handed to the response: big enough to amortise a write, small enough that the pieces
 * the response buffers ahead of a slow client stay small, and the loop responsive.
 */
const BATCH_ROWS = 500;
/** Rows per keyset query: each is a statement of its own, so fewer, larger ones, sent on in pieces of BATCH_ROWS. */
const KEYSET_BATCH_ROWS = 5000;

/**
 * A dump's records in batches. Every batch reads the version the request holds (the services' backend is pinned), so
 * a load published meanwhile does not change the file; if that version's tables go away under it (a second load), the
 * batch fails and the client sees an incomplete download rather than a file spliced from two versions.
 */
function batchesOf(
  plan: SearchPlan,
  services: Services,
  idField: Parameters<typeof idWalk>[1],
): AsyncGenerator<unknown[][]> {
  const { backend } = services;
  const dialect = backend.compiler;
  const walk = idWalk(plan, idField);
  if (!walk) return backend.stream(dialect.compileSearch(plan), BATCH_ROWS);
  return (async function* keysetBatches() {
    let remaining = plan.limit;
    let batch = walk.first(Math.min(KEYSET_BATCH_ROWS, remaining));
    for (;;) {
      const rows = await backend.bulkRows(dialect.compileSearch(batch));
      for (let start = 0; start < rows.length; start += BATCH_ROWS) yield rows.slice(start, start + BATCH_ROWS);
      remaining -= rows.length;
      if (rows.length < batch.limit || remaining <= 0) return;
      // Each row ends with its _id (the plan's keyset), after the columns the writer reads.
      batch = walk.after(rows.at(-1)!.at(-1) as number, Math.min(KEYSET_BATCH_ROWS, remaining));
    }
  })();
}

export interface Dump {
  contentType: string;
  filename: string;
  /**
   * Starts the query and reads its first batch, so that a failure to reach the store is still answered with an
   * error status rather than a truncated file; then yields the file's text.
   */
  open(): Promise<AsyncGenerator<string>>;
}

/** Validates and plans a dump; everything that can fail is checked here, before the first byte is sent. */
export function prepareDump(resourceId: string, query: Record<string, unknown>, services: Services): Dump {
  const { catalog, settings } = services;
  // CKAN reads dump parameters with request.args.to_dict(): the first of repeated values wins.
  const first = (value: unknown) => (Array.isArray(value) ? value[0] : value);
  const format = toText(first(query.format) ?? 'csv') as DumpFormat;
  const problems: Record<string, string[]> = {};
  if (!(DUMP_FORMATS as readonly string[]).includes(format)) problems.format = [messages.oneOf(DUMP_FORMATS)];
  const bom = query.bom === undefined ? false : toBoolean(first(query.bom));

  // CSV and TSV records are rendered as lines by the store where it can (`delimitedLines`); the rest need the values.
  const recordsFormat = format === 'ndjson' ? 'objects' : format === 'csv' || format === 'tsv' ? format : 'lists';
  const input: Record<string, unknown> = { resource_id: resourceId, sort: '_id', records_format: recordsFormat };
  for (const name of SEARCH_PARAMS) if (query[name] !== undefined) input[name] = first(query[name]);
  const unlimited = { rowsDefault: Number.MAX_SAFE_INTEGER, rowsMax: Number.MAX_SAFE_INTEGER };
  let request;
  try {
    request = readSearchRequest(input, unlimited);
  } catch (err) {
    if (!(err instanceof ParamErrors)) throw err;
    Object.assign(problems, err.detail);
  }
  if (Object.keys(problems).length > 0 || !request) throw errors.validation(problems);

  const resource = catalog.get(resourceId);
  if (!resource) throw errors.resourceNotFound(resourceId);
  const plan = planSearch({ ...request, includeTotal: false }, resource, {
    defaultLanguage: settings.ftsLanguage,
    delimited: { timestampMilliseconds: settings.msInTimestamp },
  });
  if (plan instanceof ApiError) throw plan;

  const idField = resource.fieldById.get('_id')!;
  const writer = dumpWriter(
    format,
    plan.columns.map((c) =>
      c.kind === 'field'
        ? { id: c.id, type: c.field.type, info: resource.fieldById.get(c.id)?.info }
        : { id: c.id, type: 'float' as const },
    ),
    { timestampMilliseconds: settings.msInTimestamp },
    plan.delimitedLines !== null,
  );
  return {
    contentType: writer.contentType,
    filename: `${resource.id}.${writer.extension}`,
    async open() {
      const batches = batchesOf(plan, services, idField);
      const first = await batches.next();
      return (async function* body() {
        try {
          yield (bom ? '\uFEFF' : '') + writer.start();
          let next = first;
          while (!next.done) {
            let chunk = '';
            for (const row of next.value) chunk += writer.row(row);
            yield chunk;
            next = await batches.next();
          }
          yield writer.end();
        } finally {
          // Ends the store's stream when the client goes away before the end.
          await batches.return(undefined);
        }
      })();
    },
  };
}
