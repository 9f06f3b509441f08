// The resource page's state, which lives in its URL only: datastore_search's own parameters (q, filters, sort,
// limit, offset, fields, distinct, plain, language), so the page and its API link share one query string, plus
// explorer-only ones that start with "_" (`_facet`). Forms send flat fields (a filter row's field, operator and
// value; column checkboxes; sort levels), which fold into those parameters for a 303 to the canonical URL.

import { mixedParams } from '../http/decode.js';

/** The order parameters take in canonical URLs, so that one view has one address. */
const CANONICAL_ORDER = [
  'q',
  'full_text',
  'filters',
  'sort',
  'fields',
  'distinct',
  'plain',
  'language',
  'limit',
  'offset',
  '_facet',
];

/**
 * Filter operators the form offers: equality (CKAN 2.10/2.11 filters) and CKAN 2.12's comparisons, which the
 * `filters` parameter writes as `{"Votes": {"gte": 5000}}`.
 */
export const FILTER_OPERATORS = [
  { id: 'eq', label: 'is' },
  { id: 'gte', label: 'at least' },
  { id: 'gt', label: 'more than' },
  { id: 'lte', label: 'at most' },
  { id: 'lt', label: 'less than' },
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number]['id'];
type RangeOperator = Exclude<FilterOperator, 'eq'>;
const RANGE_OPERATORS: readonly string[] = ['gt', 'gte', 'lt', 'lte'];

export interface FilterClause {
  field: string;
  op: FilterOperator;
  value: string | number | boolean | null;
}

export interface SortClause {
  field: string;
  descending: boolean;
}

type Scalar = string | number | boolean | null;
/** Comparisons on one field, all of which a record must meet (CKAN 2.12's operator dictionary). */
export type RangeFilter = Partial<Record<RangeOperator, Scalar>>;
/** An operator dictionary as a link may carry it: comparisons, and CKAN 2.12's `eq` and `in`. */
type OperatorFilter = RangeFilter & { eq?: Scalar; in?: Scalar[] };
export type FilterValue = Scalar | OperatorFilter | (Scalar | OperatorFilter)[];

/** The parameters without the explorer's own (`_…`): what datastore_search is asked. */
export function apiQuery(search: URLSearchParams): URLSearchParams {
  const api = new URLSearchParams();
  for (const [k, v] of search) if (!k.startsWith('_')) api.append(k, v);
  return api;
}

/** A query string's parameters as the API decodes them: one value a string, repeats a list. */
export const decodedParams = mixedParams;

/**
 * The `filters` parameter as a dictionary; `complex` when it is something the form cannot show (a list of them, bad
 * JSON).
 */
export function readFilters(search: URLSearchParams): { filters: Record<string, FilterValue>; complex: boolean } {
  const text = search.get('filters');
  if (text === null || text.trim() === '') return { filters: {}, complex: false };
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const values = Object.values(parsed as Record<string, unknown>);
      const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
      // The operator dictionaries the form writes (comparisons, eq, in); $or, $and and the rest are shown as they are.
      const operators = (v: unknown) =>
        v !== null &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        Object.keys(v).length > 0 &&
        Object.entries(v).every(([op, x]) =>
          op === 'eq' || RANGE_OPERATORS.includes(op) ? scalar(x) : op === 'in' && Array.isArray(x) && x.every(scalar),
        );
      const keysPlain = Object.keys(parsed as object).every((k) => !k.startsWith('$'));
      if (
        keysPlain &&
        values.every(
          (v) => scalar(v) || operators(v) || (Array.isArray(v) && v.every((x) => scalar(x) || operators(x))),
        )
      ) {
        return { filters: parsed as Record<string, FilterValue>, complex: false };
      }
    }
  } catch {
    // Shown as it is; the API reports what is wrong with it.
  }
  return { filters: {}, complex: true };
}

export function filterClauses(filters: Record<string, FilterValue>): FilterClause[] {
  return Object.entries(filters).flatMap(([field, value]) =>
    (Array.isArray(value) ? value : [value]).flatMap((v): FilterClause[] => {
      if (v === null || typeof v !== 'object') return [{ field, op: 'eq', value: v }];
      return Object.entries(v as Record<string, unknown>).flatMap(([op, x]): FilterClause[] => {
        if (op === 'in') return (x as Scalar[]).map((item) => ({ field, op: 'eq', value: item }));
        return [{ field, op: op as FilterOperator, value: x as Scalar }];
      });
    }),
  );
}

/**
 * Clauses on one field combine as people read them: several values ("is") into a list, matched as "any of"; the
 * comparisons ("at least", "less than") into one dictionary, all of which must hold; both together as CKAN 2.12's
 * list mixing values and a dictionary (any of the values, or within the range).
 */
export function foldClauses(clauses: readonly FilterClause[]): Record<string, FilterValue> {
  const values = new Map<string, Scalar[]>();
  const ranges = new Map<string, RangeFilter>();
  const order: string[] = [];
  for (const clause of clauses) {
    if (!order.includes(clause.field)) order.push(clause.field);
    if (clause.op === 'eq') {
      const list = values.get(clause.field) ?? [];
      if (!list.includes(clause.value)) list.push(clause.value);
      values.set(clause.field, list);
    } else {
      ranges.set(clause.field, { ...ranges.get(clause.field), [clause.op]: clause.value });
    }
  }
  const filters: Record<string, FilterValue> = {};
  for (const field of order) {
    const list = values.get(field) ?? [];
    const range = ranges.get(field);
    if (range && list.length > 0) filters[field] = [...list, range];
    else if (range) filters[field] = range;
    else filters[field] = list.length === 1 ? list[0]! : list;
  }
  return filters;
}

export function setFilters(search: URLSearchParams, filters: Record<string, FilterValue>): void {
  if (Object.keys(filters).length === 0) search.delete('filters');
  else search.set('filters', JSON.stringify(filters));
}

/** Splits on commas outside double quotes. */
function splitOutsideQuotes(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/** The `sort` parameter as clauses, or null when it says more than field and direction (the API judges it). */
export function readSort(search: URLSearchParams): SortClause[] | null {
  const texts = search.getAll('sort');
  if (texts.length === 0) return [];
  const clauses: SortClause[] = [];
  for (const part of texts.flatMap(splitOutsideQuotes)) {
    const match = /^(?:"([^"]+)"|([^\s"]+))(?:\s+(asc|desc))?$/i.exec(part);
    if (!match) return null;
    clauses.push({ field: (match[1] ?? match[2])!, descending: (match[3] ?? '').toLowerCase() === 'desc' });
  }
  return clauses;
}

export function sortText(clauses: readonly SortClause[]): string {
  return clauses.map((c) => `"${c.field}"${c.descending ? ' desc' : ''}`).join(', ');
}

export function setSort(search: URLSearchParams, clauses: readonly SortClause[]): void {
  if (clauses.length === 0) search.delete('sort');
  else search.set('sort', sortText(clauses));
}

/** `fields` as a list, or null for all fields. */
export function readFields(search: URLSearchParams): string[] | null {
  const values = search.getAll('fields');
  if (values.length === 0) return null;
  const list = values.length === 1 ? splitOutsideQuotes(values[0]!).map((f) => f.replace(/^"|"$/g, '')) : values;
  return list.length > 0 ? list : null;
}

export function setFields(search: URLSearchParams, fields: readonly string[] | null): void {
  search.delete('fields');
  if (!fields) return;
  // A name with a comma cannot go in a comma-separated list; the API takes a repeated parameter too.
  if (fields.some((f) => f.includes(','))) for (const f of fields) search.append('fields', f);
  else search.set('fields', fields.join(','));
}

/** In canonical order; parameters the explorer does not know keep their place after them (the API reports them). */
export function canonical(search: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const name of CANONICAL_ORDER) for (const value of search.getAll(name)) out.append(name, value);
  for (const [k, v] of search) if (!CANONICAL_ORDER.includes(k)) out.append(k, v);
  return out;
}

export function queryString(search: URLSearchParams): string {
  const text = canonical(search).toString();
  return text ? `?${text}` : '';
}

/** Names of the flat form fields that fold into the canonical parameters. */
const FLAT_FIELDS = [
  '_ff',
  '_fo',
  '_fv',
  '_col',
  '_cols',
  '_s1',
  '_d1',
  '_s2',
  '_d2',
  '_s3',
  '_d3',
  '_sorting',
  '_facet_add',
  '_go',
];

/**
 * A form's flat fields folded into datastore_search's parameters: the canonical query the browser is redirected to,
 * or null when the query has none. Any change of view starts again at the first page.
 */
export function foldForm(search: URLSearchParams, fieldIds: readonly string[]): URLSearchParams | null {
  if (!FLAT_FIELDS.some((name) => search.has(name))) return null;
  const out = new URLSearchParams();
  for (const [k, v] of search) if (!FLAT_FIELDS.includes(k) && k !== 'offset') out.append(k, v);

  if (search.has('_ff')) {
    const fields = search.getAll('_ff');
    const ops = search.getAll('_fo');
    const values = search.getAll('_fv');
    const clauses: FilterClause[] = [];
    fields.forEach((field, i) => {
      const value = values[i] ?? '';
      const op = (FILTER_OPERATORS.find((o) => o.id === ops[i])?.id ?? 'eq') as FilterOperator;
      // An emptied row is a filter removed; an unknown field is passed on for the API to report.
      if (field !== '' && value !== '') clauses.push({ field, op, value });
    });
    setFilters(out, foldClauses(clauses));
  }
  if (search.has('_cols')) {
    const chosen = search.getAll('_col').filter((f) => fieldIds.includes(f));
    const ordered = fieldIds.filter((f) => chosen.includes(f));
    setFields(out, ordered.length === 0 || ordered.length === fieldIds.length ? null : ordered);
  }
  if (search.has('_sorting')) {
    const clauses: SortClause[] = [];
    for (const level of ['1', '2', '3']) {
      const field = search.get(`_s${level}`) ?? '';
      if (field !== '' && !clauses.some((c) => c.field === field))
        clauses.push({ field, descending: search.get(`_d${level}`) === 'desc' });
    }
    setSort(out, clauses);
  }
  const added = search.get('_facet_add');
  if (added) {
    const facets = out.getAll('_facet').filter((f) => f !== '');
    out.delete('_facet');
    for (const f of [...facets.filter((f) => f !== added), added]) out.append('_facet', f);
  }
  return canonical(out);
}

/** A copy of `search` changed by `edit`, as a canonical query string (the first page unless `edit` sets an offset). */
export function edited(search: URLSearchParams, edit: (next: URLSearchParams) => void, keepOffset = false): string {
  const next = new URLSearchParams(search);
  if (!keepOffset) next.delete('offset');
  edit(next);
  return queryString(next);
}
