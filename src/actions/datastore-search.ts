// datastore_search: reads the request, plans it against the resource, runs page and count on the store,
// and shapes the result as CKAN 2.11 does (echoed parameters, records, fields, _links, total).

import { ApiError, errors } from '../errors.js';
import { ParamErrors } from '../query/params.js';
import type { SearchPlan } from '../query/plan.js';
import { readSearchRequest, searchParamSpecs, type SearchRequest } from '../query/search-params.js';
import { planSearch } from '../query/search-plan.js';
import { pageLinks } from '../serialize/links.js';
import { RawJson } from '../serialize/python-json.js';
import { delimitedText, delimitedWriter, jsonArray, listWriter, objectWriter, storedLineWriter, wholeRecordWriter, type ResultColumn } from '../serialize/records.js';
import { dialectFor } from '../sql/dialects.js';
import type { Settings } from '../settings.js';
import { renderHelp } from './help-text.js';
import type { Action, ActionCall, Services } from './types.js';

function resultColumns(plan: SearchPlan): ResultColumn[] {
  return plan.columns.map((c) => (c.kind === 'field' ? { id: c.id, type: c.field.type } : { id: c.id, type: 'float' }));
}

function renderRecords(request: SearchRequest, plan: SearchPlan, columns: ResultColumn[], rows: unknown[][]): RawJson | string {
  switch (request.recordsFormat) {
    case 'objects': {
      const writer = plan.wholeRecords ? wholeRecordWriter(columns.filter((c) => c.type === 'float')) : objectWriter(columns);
      return new RawJson(jsonArray(writer, rows));
    }
    case 'lists':
      return new RawJson(jsonArray(listWriter(columns), rows));
    case 'csv':
      return delimitedText(plan.csvLines ? storedLineWriter : delimitedWriter(columns, ','), rows);
    case 'tsv':
      return delimitedText(delimitedWriter(columns, '\t'), rows);
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
  const plan = planSearch(request, resource, { defaultLanguage: settings.ftsLanguage });
  if (plan instanceof ApiError) throw plan;

  const dialect = dialectFor(backend.compileTarget);
  const rows = await backend.rows(dialect.compileSearch(plan));
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
  } else if (plan.count.mode === 'exact') total = await backend.count(dialect.compileCount(plan));

  const columns = resultColumns(plan);
  const fieldList = columns.map((c) => ({ id: c.id, type: c.type }));
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
  result.records = renderRecords(request, plan, columns, rows);
  if (!request.fieldsGiven) result.fields = fieldList;
  result._links = pageLinks(call.path, call.linkQuery, request.offset, plan.limit);
  if (total !== null) {
    result.total = total;
    result.total_was_estimated = estimated;
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
      details: `The datastore_search action allows you to search data in a resource. By default ${settings.rowsDefault} records are returned - see the \`limit\` parameter. Records come in _id order unless \`sort\` or a full-text \`q\` says otherwise. Follow \`_links.next\` to page through a resource.`,
      params: specs,
      results: 'A dictionary with the parameters as applied (limit, offset, filters, q, sort, …, resource_id, records_format, include_total, total_estimation_threshold), `records` (in the requested records_format), `fields` (id and type of each returned field), `_links` (`start`, `next` and, past the first page, `prev`), and, when include_total is true, `total` (the number of matching records) and `total_was_estimated`.',
    }),
    run: (call, services) => search(call, services, specs),
  };
}
