// datastore_search: reads the request, plans it against the resource, runs page and count on the store,
// and shapes the result as CKAN does (echoed parameters, records, fields, 2.11's _links and total_was_estimated,
// 2.12's next_page).

import type { CatalogResource } from '../catalog/catalog.js';
import { ApiError, errors } from '../errors.js';
import { idOnlyOrder, NEXT_AFTER_KEY, rowCursor } from '../query/keyset.js';
import type { Condition, PlanField, SearchPlan } from '../query/plan.js';
import { readSearchRequest, searchParamSpecs, type SearchRequest } from '../query/search-params.js';
import { planSearch } from '../query/search-plan.js';
import { pageLinks } from '../serialize/links.js';
import { fixedJson, RawJson } from '../serialize/python-json.js';
import {
  delimitedText,
  delimitedWriter,
  fieldDescription,
  jsonArray,
  listWriter,
  objectWriter,
  renderedLineWriter,
  valueReader,
  type RecordWriter,
  type RenderOptions,
  type ResultColumn,
} from '../serialize/records.js';
import { BoundedCache } from '../util/bounded-cache.js';
import type { Settings } from '../settings.js';
import { documented } from './help-text.js';
import { pageFromMark } from './offset-marks.js';
import { residentAnswer } from './resident.js';
import type { Action, ActionCall, Services } from './types.js';
import { validating } from './validation.js';

/**
 * What answers with the same columns of a resource share: the result columns, the `fields` list (serialised once)
 * and the record writers of each format, made for the first such answer.
 */
interface ResultShape {
  columns: ResultColumn[];
  fields: readonly ReturnType<typeof fieldDescription>[];
  writers: Map<string, RecordWriter>;
}

/** Shapes per resource (and so per version of the data), by their columns' ids; the most recently used are kept. */
const shapes = new WeakMap<CatalogResource, BoundedCache<string, ResultShape>>();
const SHAPES_PER_RESOURCE = 64;

function shapeOf(plan: SearchPlan, resource: CatalogResource): ResultShape {
  let known = shapes.get(resource);
  if (!known) {
    known = new BoundedCache(SHAPES_PER_RESOURCE);
    shapes.set(resource, known);
  }
  let key = '';
  // Every field in stored order (no `fields`, no `q`), the most common shape, is named without building a key.
  const { columns: planned } = plan;
  if (planned.length !== resource.fields.length || planned.some((c, i) => c.id !== resource.fields[i]!.id)) {
    for (const column of planned) key += column.id + '\u0000';
  }
  return known.getOrCreate(key, () => {
    const columns = plan.columns.map((c): ResultColumn =>
      c.kind === 'field'
        ? { id: c.id, type: c.field.type, info: resource.fieldById.get(c.id)?.info }
        : { id: c.id, type: 'float' },
    );
    return { columns, fields: fixedJson(columns.map(fieldDescription)), writers: new Map() };
  });
}

function writerFor(shape: ResultShape, request: SearchRequest, plan: SearchPlan, options: RenderOptions): RecordWriter {
  const key = plan.delimitedLines || plan.jsonRecords ? 'line' : request.recordsFormat;
  let writer = shape.writers.get(key);
  if (!writer) {
    const { columns } = shape;
    switch (key) {
      case 'line':
        writer = renderedLineWriter;
        break;
      case 'objects':
        writer = objectWriter(columns, options);
        break;
      case 'lists':
        writer = listWriter(columns, options);
        break;
      default:
        writer = delimitedWriter(columns, key === 'csv' ? ',' : '\t', options);
    }
    shape.writers.set(key, writer);
  }
  return writer;
}

function renderRecords(request: SearchRequest, writer: RecordWriter, rows: unknown[][]): RawJson | string {
  return request.recordsFormat === 'objects' || request.recordsFormat === 'lists'
    ? new RawJson(jsonArray(writer, rows))
    : delimitedText(writer, rows);
}

/** A search as run: the request read, its plan, and what the store (or memory) answered, before it is presented. */
interface SearchOutcome {
  request: SearchRequest;
  resource: CatalogResource;
  plan: SearchPlan;
  rows: unknown[][];
  total: number | null;
  estimated: boolean;
}

/**
 * The total a page gives by itself: the page and the count select the same records, so a page short of its limit holds
 * the last of them, and the total is the records skipped and shown. An empty page past the first says nothing.
 */
function totalFromPage(plan: SearchPlan, pageRows: number): number | null {
  return pageRows < plan.limit && (pageRows > 0 || plan.offset === 0) ? plan.offset + pageRows : null;
}

/**
 * Reads, plans and runs a search: the stages every presenter of datastore_search shares. `format`: a presenter that
 * reads the values asks for them in that format (never rendered by the store); without it, the records are for the
 * API's answer, which the store may render as it would.
 */
async function runSearch(
  call: Pick<ActionCall, 'params' | 'timing'>,
  services: Services,
  specs: ReturnType<typeof searchParamSpecs>,
  format?: SearchRequest['recordsFormat'],
): Promise<SearchOutcome> {
  const { settings, catalog, backend } = services;
  let request = validating(() => readSearchRequest(call.params, settings, specs));
  // A presenter that wants values asks for them in the format it reads.
  if (format) request = { ...request, recordsFormat: format };
  const resource = catalog.get(request.resourceId);
  if (!resource) throw errors.resourceNotFound(request.resourceId);
  const dialect = backend.compiler;
  const rendered = { timestampMilliseconds: settings.msInTimestamp };
  const plan = planSearch(request, resource, {
    defaultLanguage: settings.ftsLanguage,
    delimited: rendered,
    ...(!format && dialect.rendersJsonRecords ? { json: rendered } : {}),
  });
  if (plan instanceof ApiError) throw plan;
  askForIndexes(plan, resource, services);

  call.timing?.mark('plan');
  const resident = await residentAnswer(plan, resource, services);
  // A deep page of a sorted order starts from the order's mark before it; the count is the plan's own.
  const pageQuery = resident ? null : dialect.compileSearch(await pageFromMark(plan, resource, services));
  // The page comes first and the count only if the page leaves the total open: most filters and searches match fewer
  // records than a page holds, and their count would be a second statement for a number the page already gives.
  const rows = resident ? resident.rows : await backend.rows(pageQuery!);
  call.timing?.mark('query');
  let total: number | null = null;
  let estimated = false;
  if (plan.count.mode === 'stored') {
    total = plan.count.total;
    const threshold = plan.count.estimationThreshold;
    if (threshold !== null) {
      // PostgreSQL's statistics when it keeps them; the embedded store's estimate is the stored (exact) count.
      const estimate = (await backend.estimateRows(resource.id)) ?? plan.count.total;
      if (estimate >= threshold) [total, estimated] = [estimate, true];
    }
  } else if (plan.count.mode === 'exact')
    total = resident
      ? resident.matched
      : (totalFromPage(plan, rows.length) ?? (await backend.count(dialect.compileCount(plan))));
  if (plan.count.mode !== 'none') call.timing?.mark('count');
  return { request, resource, plan, rows, total, estimated };
}

/**
 * Indexes follow the queries: a search of a large resource that filters or sorts on a field with no index yet asks for
 * one, which is built in the background (this search, and those before the index is in, read the table without it).
 */
function askForIndexes(plan: SearchPlan, resource: CatalogResource, services: Services): void {
  const { indexes, settings } = services;
  if (!indexes || settings.indexOnDemandRows === 0 || resource.total <= settings.indexOnDemandRows) return;
  const ask = (field: PlanField) => {
    if (field.id !== '_id' && !field.indexed) indexes.request(resource.id, field.id);
  };
  const walk = (condition: Condition | null): void => {
    if (!condition) return;
    switch (condition.kind) {
      case 'equals':
      case 'compare':
      case 'in':
      case 'is-null':
      case 'not-null':
        ask(condition.field);
        break;
      case 'and':
      case 'or':
        condition.of.forEach(walk);
        break;
    }
  };
  walk(plan.where);
  for (const key of plan.orderBy) {
    if (key.target.kind !== 'field') continue;
    const { field } = key.target;
    ask(field);
    if (field.id === '_id') continue;
    if (key.descending ? !field.sortIndexedDescending : !field.sortIndexed)
      indexes.request(resource.id, field.id, key.descending ? 'sort descending' : 'sort');
  }
}

async function search(
  call: ActionCall,
  services: Services,
  specs: ReturnType<typeof searchParamSpecs>,
): Promise<Record<string, unknown>> {
  const { settings } = services;
  const { request, resource, plan, rows, total, estimated } = await runSearch(call, services, specs);
  const shape = shapeOf(plan, resource);
  const fieldList = shape.fields;
  // CKAN's result is its validated request dict, whose keys come out sorted; then the computed keys follow.
  const echoed: [string, unknown][] = [
    ['include_total', request.includeTotal],
    ['limit', plan.limit],
    ['records_format', request.recordsFormat],
    ['resource_id', resource.id],
    ['total_estimation_threshold', request.totalEstimationThreshold],
    ...request.echo,
  ];
  if (request.fieldsGiven) echoed.push(['fields', fieldList]);
  echoed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const result: Record<string, unknown> = Object.fromEntries(echoed);
  result.records = renderRecords(
    request,
    writerFor(shape, request, plan, { timestampMilliseconds: settings.msInTimestamp }),
    rows,
  );
  if (!request.fieldsGiven) result.fields = fieldList;
  result._links = pageLinks(call.path, call.linkQuery, request.offset, plan.limit);
  if (total !== null) {
    result.total = total;
    result.total_was_estimated = estimated;
  }
  // A page without records has no next page: that is how a client following next_page knows it is done.
  const last = rows.at(-1);
  if (plan.keyset && last) {
    const cursor = rowCursor(last, plan.keyset);
    const idOrder = idOnlyOrder(plan.keyset, plan.orderBy);
    if (idOrder) result.next_page = { _id: { [idOrder === 'asc' ? 'gt' : 'lt']: cursor[0] } };
    result[NEXT_AFTER_KEY] = cursor;
  }
  return result;
}

/** datastore_search's answer as values, for a presenter that renders records itself rather than reading JSON text. */
export interface RecordValues {
  fields: { id: string; type: string }[];
  /** Each record with the values the API's JSON would hold: numbers, booleans, text, timestamps as CKAN writes them. */
  records: Record<string, unknown>[];
  total: number | null;
  limit: number;
  offset: number;
}

const specsBySettings = new WeakMap<Settings, ReturnType<typeof searchParamSpecs>>();

/**
 * datastore_search run exactly as the action runs it (the same reading, validation, plan, resident tables and store),
 * its records handed over as values: the explorer's pages present them without a round trip through JSON text.
 */
export async function searchRecordValues(params: Record<string, unknown>, services: Services): Promise<RecordValues> {
  let specs = specsBySettings.get(services.settings);
  if (!specs) {
    specs = searchParamSpecs(services.settings);
    specsBySettings.set(services.settings, specs);
  }
  const { request, resource, plan, rows, total } = await runSearch({ params }, services, specs, 'lists');
  const columns = shapeOf(plan, resource).columns;
  const read = columns.map((c) => valueReader(c.type, { timestampMilliseconds: services.settings.msInTimestamp }));
  const records = rows.map((row) => {
    const record: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) record[columns[i]!.id] = read[i]!(row[i]);
    return record;
  });
  return {
    fields: columns.map((c) => ({ id: c.id, type: c.type })),
    records,
    total,
    limit: plan.limit,
    offset: request.offset,
  };
}

export function datastoreSearchAction(settings: Settings): Action {
  const specs = searchParamSpecs(settings);
  return documented({
    name: 'datastore_search',
    params: specs,
    summary: 'Search a DataStore resource.',
    details: `The datastore_search action allows you to search data in a resource. By default ${settings.rowsDefault} records are returned - see the \`limit\` parameter. Records come in _id order unless \`sort\` or a full-text \`q\` says otherwise. Follow \`_links.next\` to page through a resource, or, faster on large ones, ask for \`include_next_page\` and merge each page's \`next_page\` into \`filters\` until a page comes without one.`,
    results: `A dictionary with the parameters as applied (limit, offset, filters, q, sort, …, resource_id, records_format, include_total, total_estimation_threshold), \`records\` (in the requested records_format), \`fields\` (id and type of each returned field), \`_links\` (\`start\`, \`next\` and, past the first page, \`prev\`), when include_total is true \`total\` (the number of matching records) and \`total_was_estimated\`, and, with include_next_page and a page that has records, \`next_page\` (sorted by _id alone) and \`${NEXT_AFTER_KEY}\` (sorted by fields).`,
    run: (call, services) => search(call, services, specs),
  });
}
