// Stage two of datastore_search: checks a typed request against the resource's fields and produces the
// backend-neutral plan. Unknown fields, sort clauses and parameters are reported exactly as CKAN reports them.

import type { ApiError } from '../errors.js';
import { pythonStr } from '../serialize/python-json.js';
import { allOf, planFilters } from './filters.js';
import { planFullText, type RankedMatch } from './full-text.js';
import { afterCondition, afterSeeks, keysetKeys, planAfter } from './keyset.js';
import type { Condition, CountPlan, OutputColumn, PlanField, SearchPlan, SortKey, ValueCountPlan } from './plan.js';
import { PlanProblems, QUERY_LIMITS } from './problems.js';
import type { SearchRequest } from './search-params.js';
import { parseSortClause, sortKey } from './sort.js';

export interface PlanResource {
  id: string;
  /** `_id` first, then the resource's fields in stored order. */
  fields: readonly PlanField[];
  fieldById: ReadonlyMap<string, PlanField>;
  /** Exact record count, kept at load time. */
  total: number;
  /** Whether `_id`s run 1…total without gaps (absent: they do, as every loader but a mirror numbers them). */
  denseIds?: boolean;
}

export interface PlanOptions {
  defaultLanguage: string;
  /**
   * Whole records in CSV or TSV may be rendered by the store as lines (see SearchPlan's `delimitedLines`), with
   * timestamps as CKAN 2.12 writes them (with milliseconds) or to the second.
   */
  delimited?: { timestampMilliseconds: boolean };
  /** Records in JSON may be rendered by the store (see SearchPlan's `jsonRecords`): set only where it can. */
  json?: { timestampMilliseconds: boolean };
}

function outputColumns(
  request: SearchRequest,
  resource: PlanResource,
  ranks: RankedMatch[],
  problems: PlanProblems,
): OutputColumn[] {
  const rankById = new Map(ranks.map((r) => [r.rankId, r]));
  if (request.fields === undefined) {
    return [
      ...resource.fields.map((field): OutputColumn => ({ kind: 'field', id: field.id, field })),
      ...ranks.map((r): OutputColumn => ({ kind: 'rank', id: r.rankId, match: r.match })),
    ];
  }
  if (request.fields.length > QUERY_LIMITS.maxFields) {
    problems.message('fields', `At most ${QUERY_LIMITS.maxFields} fields may be named`);
    return [];
  }
  const columns: OutputColumn[] = [];
  for (const item of request.fields) {
    const name = typeof item === 'string' ? item : null;
    const field = name === null ? undefined : resource.fieldById.get(name);
    const rank = name === null ? undefined : rankById.get(name);
    if (field) columns.push({ kind: 'field', id: field.id, field });
    else if (rank) columns.push({ kind: 'rank', id: rank.rankId, match: rank.match });
    else problems.invalidValue('fields', typeof item === 'string' ? item : pythonStr(item));
  }
  return columns;
}

function sortKeys(
  request: SearchRequest,
  resource: PlanResource,
  ranks: RankedMatch[],
  problems: PlanProblems,
): SortKey[] {
  if (request.sort === undefined) {
    // CKAN orders full-text results by each rank, best first.
    return ranks.map((r) => ({ target: { kind: 'rank', match: r.match }, descending: true, nullsFirst: false }));
  }
  if (request.sort.length > QUERY_LIMITS.maxSortClauses) {
    problems.message('sort', `At most ${QUERY_LIMITS.maxSortClauses} sort clauses are allowed`);
    return [];
  }
  const keys: SortKey[] = [];
  for (const clause of request.sort) {
    const parsed = typeof clause === 'string' ? parseSortClause(clause) : null;
    const field = parsed ? resource.fieldById.get(parsed.fieldId) : undefined;
    if (!parsed || !field) {
      problems.invalidValue('sort', typeof clause === 'string' ? clause : pythonStr(clause));
      continue;
    }
    keys.push(sortKey(field, parsed.descending, parsed.nulls));
  }
  return keys;
}

function sameField(a: PlanField, b: PlanField): boolean {
  return a.id === b.id;
}

function countPlan(request: SearchRequest, resource: PlanResource, where: Condition | null): CountPlan {
  if (!request.includeTotal) return { mode: 'none' };
  if (where !== null || request.distinct) return { mode: 'exact' };
  return { mode: 'stored', total: resource.total, estimationThreshold: request.totalEstimationThreshold };
}

/** Validates `request` against `resource`; returns the plan or the error CKAN would answer with. */
export function planSearch(
  request: SearchRequest,
  resource: PlanResource,
  options: PlanOptions,
): SearchPlan | ApiError {
  const problems = new PlanProblems();
  if (request.unknown.length > 0) problems.invalidValue('__extras', request.unknown[0]);

  const filterCondition = planFilters(request.filters, resource.fieldById, problems);
  const ranks = planFullText(
    {
      q: request.q,
      fullText: request.fullText,
      plain: request.plain,
      language: request.language ?? options.defaultLanguage,
    },
    resource.fieldById,
    problems,
    resource.fields.filter((f) => f.id !== '_id'),
  );
  const columns = outputColumns(request, resource, ranks, problems);
  let orderBy = sortKeys(request, resource, ranks, problems);
  if (request.offset < 0) problems.invalidValue('offset', String(request.offset));

  if (request.distinct) {
    const selected = (key: SortKey) =>
      columns.some((c) =>
        key.target.kind === 'field'
          ? c.kind === 'field' && sameField(c.field, key.target.field)
          : c.kind === 'rank' && c.match === key.target.match,
      );
    if (request.sort === undefined) {
      // Rank order only applies when the rank is among the distinct columns.
      orderBy = orderBy.filter(selected);
    } else if (!orderBy.every(selected)) {
      problems.invalidQuery('for SELECT DISTINCT, ORDER BY expressions must appear in select list');
    }
  }

  const keyset = keysetKeys(orderBy, resource.fieldById.get('_id')!, request.distinct);
  const afterRecord = request.after === undefined ? null : planAfter(request.after, keyset, problems);

  const error = problems.toError();
  if (error) return error;

  const conditions: Condition[] = [];
  if (filterCondition) conditions.push(filterCondition);
  for (const rank of ranks) conditions.push({ kind: 'text-match', match: rank.match });
  const selecting = allOf(conditions);
  const after = afterRecord && keyset ? afterCondition(keyset, afterRecord) : null;
  if (after) conditions.push(after);
  const where: Condition | null =
    conditions.length === 0 ? null : conditions.length === 1 ? conditions[0]! : { kind: 'and', of: conditions };
  const seeks = afterRecord && keyset ? afterSeeks(keyset, afterRecord) : null;
  const count = countPlan(request, resource, where);

  // Records read from files are numbered 1..total in load order, without gaps, so a page of the whole resource in _id
  // order starts at a known _id: seeking to it costs the same at offset 900,000 as at 0. A mirror keeps its upstream's
  // _ids, gaps and all; its pages are found by offset.
  let seek: Condition | null = null;
  let offset = request.offset;
  const idOrder =
    orderBy.length === 0
      ? 'asc'
      : orderBy.length === 1 && orderBy[0]!.target.kind === 'field' && orderBy[0]!.target.field.id === '_id'
        ? orderBy[0]!.descending
          ? 'desc'
          : 'asc'
        : null;
  if (where === null && !request.distinct && idOrder !== null && offset > 0 && resource.denseIds !== false) {
    // Past the end the page is empty; saying so keeps an offset beyond any _id (2^31 and up) away from the store.
    seek =
      offset >= resource.total
        ? { kind: 'never' }
        : idOrder === 'asc'
          ? { kind: 'id-range', after: offset }
          : { kind: 'id-range', atMost: resource.total - offset };
    offset = 0;
  }

  const fieldColumns = columns.filter((c) => c.kind === 'field');
  const wholeRecords =
    !request.distinct &&
    columns.length === resource.fields.length &&
    fieldColumns.length === resource.fields.length &&
    fieldColumns.every((c, i) => c.id === resource.fields[i]!.id);
  const delimitedLines =
    options.delimited && wholeRecords && (request.recordsFormat === 'csv' || request.recordsFormat === 'tsv')
      ? {
          delimiter: request.recordsFormat === 'csv' ? (',' as const) : ('\t' as const),
          timestampMilliseconds: options.delimited.timestampMilliseconds,
        }
      : null;
  const jsonRecords =
    options.json &&
    !request.distinct &&
    columns.length > 0 &&
    fieldColumns.length === columns.length &&
    (request.recordsFormat === 'objects' || request.recordsFormat === 'lists')
      ? { lists: request.recordsFormat === 'lists', timestampMilliseconds: options.json.timestampMilliseconds }
      : null;

  return {
    resourceId: resource.id,
    resourceRows: resource.total,
    columns,
    delimitedLines,
    jsonRecords,
    where: seek ?? where,
    orderBy,
    distinct: request.distinct,
    narrowed: filterCondition !== null || ranks.length > 0,
    limit: request.limit,
    offset,
    count,
    keyset: request.includeNextPage ? keyset : null,
    afterSeeks: seeks?.map((seek) => ({ ...seek, where: allOf([selecting, seek.where])! })) ?? null,
  };
}

/**
 * The counts of `fieldId`'s values in the view `request` selects, validated as the view's search is (a field the
 * resource lacks is CKAN's invalid `fields` value); at most `limit` values, most frequent first.
 */
export function planValueCounts(
  request: SearchRequest,
  resource: PlanResource,
  fieldId: string,
  limit: number,
  options: PlanOptions,
): ValueCountPlan | ApiError {
  const view = planSearch(
    {
      ...request,
      fields: [fieldId],
      sort: undefined,
      distinct: false,
      offset: 0,
      after: undefined,
      includeNextPage: false,
    },
    resource,
    options,
  );
  if (!('columns' in view)) return view;
  const column = view.columns[0];
  // A rank is not a field of the records: there is nothing to count by.
  if (!column || column.kind !== 'field') {
    const problems = new PlanProblems();
    problems.invalidValue('fields', fieldId);
    return problems.toError()!;
  }
  return { view, field: column.field, limit };
}
