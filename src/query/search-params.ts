// The datastore_search parameter table (CKAN 2.10/2.11 semantics) and the typed request it produces.

import { messages } from '../errors.js';
import { supportedTextSearchConfigs } from '../text-search/index.js';
import { ParamProblem, splitList, toBoolean, toInteger, toJson, toStringOrList, toText, toTextOrObject } from './coerce.js';
import { validateParams, type ParamSpec } from './params.js';

export const RECORDS_FORMATS = ['objects', 'lists', 'csv', 'tsv'] as const;
export type RecordsFormat = (typeof RECORDS_FORMATS)[number];

export interface SearchLimits {
  rowsDefault: number;
  rowsMax: number;
}

export interface SearchRequest {
  resourceId: string;
  filters: unknown;
  q: string | Record<string, unknown> | undefined;
  fullText: string | undefined;
  plain: boolean;
  language: string | undefined;
  distinct: boolean;
  /** Requested field names (undefined: all fields). */
  fields: unknown[] | undefined;
  /** Sort clauses as sent, one per element. */
  sort: unknown[] | undefined;
  limit: number;
  offset: number;
  offsetGiven: boolean;
  recordsFormat: RecordsFormat;
  includeTotal: boolean;
  totalEstimationThreshold: number | null;
  /** Names CKAN does not know; reported after the resource is found, as CKAN does. */
  unknown: string[];
  /** Parameters the result repeats back, by name, as coerced (`fields` excepted: it becomes the field list). */
  echo: Map<string, unknown>;
  fieldsGiven: boolean;
}

const naturalNumber = (value: number) => {
  if (value < 0) throw new ParamProblem([messages.naturalNumber]);
  return value;
};

const safeInteger = (value: number) => {
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) throw new ParamProblem([messages.tooLarge(Number.MAX_SAFE_INTEGER)]);
  return value;
};

const nonEmptyText = (value: unknown) => {
  const text = toText(value);
  if (text === '') throw new ParamProblem([messages.missingValue]);
  return text;
};

/** Empty text counts as "not given" for these, as CKAN's `default` validator treats it. */
const orDefault = <T>(coerce: (v: unknown) => T, fallback: () => T) => (value: unknown) => (value === '' ? fallback() : coerce(value));

export function searchParamSpecs(limits: SearchLimits): ParamSpec[] {
  return [
    {
      name: 'resource_id', alias: 'id', type: 'string', required: true, coerce: nonEmptyText,
      description: 'id (or alias) of the resource to search. `id` is accepted as a synonym.',
    },
    {
      name: 'filters', type: 'dictionary', coerce: toJson,
      description: 'matching conditions, e.g. {"Party Abbreviation": "F.F."}. A list value matches any of its values, e.g. {"Party Abbreviation": ["F.F.", "F.G."]}; an empty list matches nothing; null matches empty cells. Values are converted to the field\'s type. A list of such dictionaries matches records that satisfy any one of them.',
    },
    {
      name: 'q', type: 'string or dictionary', coerce: toTextOrObject,
      description: 'full text query. A string searches every field of each record; a dictionary {"field": "term"} searches each named field. Adds a `rank` field (`rank <field>` for a dictionary) and orders by it unless `sort` is given.',
    },
    {
      name: 'full_text', type: 'string', coerce: toText,
      description: 'full text query over all fields of each record, to be used instead of a string `q`. It may be combined with a dictionary `q`.',
    },
    {
      name: 'distinct', type: 'bool', defaultText: 'false', coerce: toBoolean,
      description: 'return only distinct records (of the selected `fields`); the total counts distinct records.',
    },
    {
      name: 'plain', type: 'bool', defaultText: 'true', coerce: toBoolean,
      description: 'treat `q` as plain text (all words must match). false enables PostgreSQL\'s tsquery syntax: & | ! <-> ( ) and prefix matching with :*, e.g. "Dub:*".',
    },
    {
      name: 'language', type: 'string', defaultText: 'english', coerce: toText,
      description: `language (text search configuration) used to stem the words of \`q\`: ${supportedTextSearchConfigs().join(', ')}.`,
    },
    {
      name: 'limit', type: 'int', defaultText: String(limits.rowsDefault),
      coerce: orDefault((v) => Math.min(naturalNumber(toInteger(v, { withEnterMessage: true })), limits.rowsMax), () => limits.rowsDefault),
      whenMissing: () => limits.rowsDefault,
      description: `maximum number of records to return (default ${limits.rowsDefault}; a larger value than ${limits.rowsMax} is lowered to ${limits.rowsMax}).`,
    },
    {
      name: 'offset', type: 'int', defaultText: '0', coerce: orDefault((v) => safeInteger(toInteger(v)), () => 0),
      description: 'number of records to skip.',
    },
    {
      name: 'fields', type: 'list or comma separated string', coerce: toStringOrList,
      description: 'fields to return, in this order (default: all fields in their stored order). `rank` may be named when `q` is given.',
    },
    {
      name: 'sort', type: 'string', coerce: toStringOrList,
      description: 'comma separated field names with ordering, e.g. "Votes desc, Surname". A name with spaces may be double-quoted; `nulls first` or `nulls last` may follow. Ties are broken by record order (_id).',
    },
    {
      name: 'include_total', type: 'bool', defaultText: 'true', coerce: orDefault(toBoolean, () => true), whenMissing: () => true,
      description: 'true to return the total number of matching records.',
    },
    {
      name: 'total_estimation_threshold', type: 'int or None', defaultText: 'None',
      coerce: orDefault((v) => safeInteger(toInteger(v)) as number | null, () => null), whenMissing: () => null,
      description: 'when set, and the query has no filters, full-text query or distinct, and the resource holds at least this many records, `total` comes from the catalogue\'s stored count and `total_was_estimated` is true, as in CKAN. The stored count is exact.',
    },
    {
      name: 'records_format', type: 'controlled list', defaultText: 'objects',
      coerce: orDefault((v) => {
        const format = toText(v);
        if (!(RECORDS_FORMATS as readonly string[]).includes(format)) throw new ParamProblem([messages.oneOf(RECORDS_FORMATS)]);
        return format;
      }, () => 'objects'),
      whenMissing: () => 'objects',
      description: "'objects' (default): a list of {field: value} objects; 'lists': a list of [value, …] lists; 'csv' or 'tsv': a string of comma- or tab-separated lines without a header.",
    },
  ];
}

/** Names the result echoes whenever they were given; the always-echoed ones are added by the action. */
const ECHO_WHEN_GIVEN = ['distinct', 'filters', 'full_text', 'language', 'offset', 'plain', 'q', 'sort'];

/** Stage one of datastore_search: types and defaults, independent of the resource. Throws ParamErrors. */
export function readSearchRequest(input: Record<string, unknown>, limits: SearchLimits, specs = searchParamSpecs(limits)): SearchRequest {
  const { values, given, unknown } = validateParams(specs, input);
  const get = <T>(name: string) => values.get(name) as T;
  const echo = new Map<string, unknown>();
  for (const name of ECHO_WHEN_GIVEN) if (given.has(name)) echo.set(name, values.get(name));
  const fields = given.has('fields') ? splitList(get<string | unknown[]>('fields'), { stripQuotes: true }) : undefined;
  const sort = given.has('sort') ? splitList(get<string | unknown[]>('sort'), { stripQuotes: false }) : undefined;
  const language = given.has('language') && get<string>('language') !== '' ? get<string>('language') : undefined;
  return {
    resourceId: get<string>('resource_id'),
    filters: values.get('filters'),
    q: get<string | Record<string, unknown> | undefined>('q'),
    fullText: get<string | undefined>('full_text'),
    plain: given.has('plain') ? get<boolean>('plain') : true,
    language,
    distinct: given.has('distinct') ? get<boolean>('distinct') : false,
    fields: fields && fields.length > 0 ? fields : undefined,
    sort: sort && sort.length > 0 ? sort : undefined,
    limit: get<number>('limit'),
    offset: given.has('offset') ? get<number>('offset') : 0,
    offsetGiven: given.has('offset'),
    recordsFormat: get<RecordsFormat>('records_format'),
    includeTotal: get<boolean>('include_total'),
    totalEstimationThreshold: get<number | null>('total_estimation_threshold'),
    unknown,
    echo,
    fieldsGiven: given.has('fields'),
  };
}
