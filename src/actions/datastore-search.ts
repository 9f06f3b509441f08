// datastore_search: reads the request, plans it against the resource, runs page and count on the store,
// and shapes the result as CKAN does (echoed parameters, records, fields, 2.11's _links and total_was_estimated,
// 2.12's next_page).

import type { CatalogResource } from '../catalog/catalog.js';
import { ApiError, errors } from '../errors.js';
import { ParamErrors } from '../query/params.js';
import { idOnlyOrder, NEXT_AFTER_KEY, rowCursor } from '../query/keyset.js';
import type { SearchPlan } from '../query/plan.js';
import { readSearchRequest, searchParamSpecs, type SearchRequest } from '../query/search-params.js';
import { planSearch } from '../query/search-plan.js';
import { pageLinks } from '../serialize/links.js';
import { fixedJson, RawJson } from '../serialize/python-json.js';
import { delimitedText, delimitedWriter, fieldDescription, jsonArray, listWriter, objectWriter, storedLineWriter, wholeRecordWriter, type RenderOptions, type ResultColumn } from '../serialize/records.js';
import { dialectFor } from '../sql/dialects.js';
import type { Settings } from '../settings.js';
import { renderHelp } from './help-text.js';
import { residentAnswer } from './resident.js';
import type { Action, ActionCall, Services } from './types.js';

function resultColumns(plan: SearchPlan, resource: CatalogResource): ResultColumn[] {
  return plan.columns.map((c) => (c.kind === 'field'
    ? { id: c.id, type: c.field.type, info: resource.fieldById.get(c.id)?.info }
    : { id: c.id, type: 'float' }));
}

/** Field lists answers share, per resource (and so per version of the data), by their columns' ids. */
const fieldLists = new WeakMap<CatalogResource, Map<string, readonly ReturnType<typeof fieldDescription>[]>>();
const FIELD_LISTS_PER_RESOURCE = 64;

/** The `fields` of an answer: made, and written as JSON, once for all the answers with the same columns. */
function fieldListOf(resource: CatalogResource, columns: readonly ResultColumn[]): readonly ReturnType<typeof fieldDescription>[] {
  let lists = fieldLists.get(resource);
  if (!lists) {
    lists = new Map();
    fieldLists.set(resource, lists);
  }
  const key = columns.map((c) => c.id).join('\u0000');
  let list = lists.get(key);
  if (!list) {
    list = fixedJson(columns.map(fieldDescription));
    if (lists.size < FIELD_LISTS_PER_RESOURCE) lists.set(key, list);
  }
  return list;
}

function renderRecords(request: SearchRequest, plan: SearchPlan, columns: ResultColumn[], rows: unknown[][], options: RenderOptions): RawJson | string {
  switch (request.recordsFormat) {
    case 'objects': {
      const writer = plan.wholeRecords ? wholeRecordWriter(columns.filter((c) => c.type === 'float')) : objectWriter(columns, options);
      return new RawJson(jsonArray(writer, rows));
    }
    case 'lists':
      return new RawJson(jsonArray(listWriter(columns, options), rows));
    case 'csv':
      return delimitedText(plan.csvLines ? storedLineWriter : delimitedWriter(columns, ',', options), rows);
    case 'tsv':
      return delimitedText(delimitedWriter(columns, '\t', options), rows);
  }
}

async function search(call: ActionCall, services: Services, specs: ReturnType<typeof searchParamSpecs>): Promise<Record<string, unknown>> {
  const { settings, catalog, backend } = services;
  let request: SearchRequest;
  try {
    request = readSearchRequest(call.params, settings, specs);
  } catch (err) {
    if (err instanceof ParamErrors) throw errors.validation(err.detail);
    throw err;
  }
  const resource = catalog.get(request.resourceId);
  if (!resource) throw errors.resourceNotFound(request.resourceId);
  const plan = planSearch(request, resource, { defaultLanguage: settings.ftsLanguage, timestampMilliseconds: settings.msInTimestamp });
  if (plan instanceof ApiError) throw plan;

  call.timing?.mark('plan');
  const resident = await residentAnswer(plan, resource, services);
  const dialect = dialectFor(backend.compileTarget);
  const rows = resident ? resident.rows : await backend.rows(dialect.compileSearch(plan));
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
  } else if (plan.count.mode === 'exact') total = resident ? resident.matched : await backend.count(dialect.compileCount(plan));
  if (plan.count.mode !== 'none') call.timing?.mark('count');

  const columns = resultColumns(plan, resource);
  const fieldList = fieldListOf(resource, columns);
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
  result.records = renderRecords(request, plan, columns, rows, { timestampMilliseconds: settings.msInTimestamp });
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

export function datastoreSearchAction(settings: Settings): Action {
  const specs = searchParamSpecs(settings);
  return {
    name: 'datastore_search',
    params: specs,
    help: renderHelp({
      summary: 'Search a DataStore resource.',
      details: `The datastore_search action allows you to search data in a resource. By default ${settings.rowsDefault} records are returned - see the \`limit\` parameter. Records come in _id order unless \`sort\` or a full-text \`q\` says otherwise. Follow \`_links.next\` to page through a resource, or, faster on large ones, ask for \`include_next_page\` and merge each page's \`next_page\` into \`filters\` until a page comes without one.`,
      params: specs,
      results: `A dictionary with the parameters as applied (limit, offset, filters, q, sort, …, resource_id, records_format, include_total, total_estimation_threshold), \`records\` (in the requested records_format), \`fields\` (id and type of each returned field), \`_links\` (\`start\`, \`next\` and, past the first page, \`prev\`), when include_total is true \`total\` (the number of matching records) and \`total_was_estimated\`, and, with include_next_page and a page that has records, \`next_page\` (sorted by _id alone) and \`${NEXT_AFTER_KEY}\` (sorted by fields).`,
    }),
    run: (call, services) => search(call, services, specs),
  };
}
