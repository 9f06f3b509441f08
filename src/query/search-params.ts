// The datastore_search parameter table (CKAN 2.12's, with 2.10/2.11's `total_estimation_threshold`, and one Count
// Centre extension) and the typed request it produces.

import { messages } from '../errors.js';
import { AFTER_PARAMETER, NEXT_AFTER_KEY } from './keyset.js';
import { supportedTextSearchConfigs } from '../text-search/index.js';
import {
  ParamProblem,
  splitList,
  toBoolean,
  toInteger,
  toJson,
  toStringOrList,
  toText,
  toTextOrObject,
} from './coerce.js';
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
  /** CKAN 2.12's `include_next_page`: say where the next page starts. */
  includeNextPage: boolean;
  /** The Count Centre extension's keyset cursor: the previous page's last record's sort keys, then its `_id`. */
  after: unknown[] | undefined;
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
const orDefault =
  <T>(coerce: (v: unknown) => T, fallback: () => T) =>
  (value: unknown) =>
    value === '' ? fallback() : coerce(value);

const SCALAR = { type: ['string', 'number', 'boolean', 'null'] };
const OPERATORS = {
  type: 'object',
  minProperties: 1,
  properties: Object.fromEntries([
    ['eq', SCALAR],
    ['in', { type: 'array', items: SCALAR }],
    ...['gt', 'gte', 'lt', 'lte'].map((op) => [op, SCALAR]),
  ]),
  additionalProperties: false,
};
const FIELD_CONDITION = { oneOf: [SCALAR, OPERATORS, { type: 'array', items: { oneOf: [SCALAR, OPERATORS] } }] };
/** A dictionary of field conditions; `$and` / `$or` hold lists of such dictionaries (described, not recursed into). */
const FILTERS_OBJECT = {
  type: 'object',
  properties: {
    $and: { type: 'array', items: { type: 'object' }, description: 'filter dictionaries that must all match' },
    $or: { type: 'array', items: { type: 'object' }, description: 'filter dictionaries of which one must match' },
  },
  additionalProperties: FIELD_CONDITION,
};
const STRING_OR_LIST = { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };

/**
 * A true/false parameter defaulting to `byDefault`. With `filled` set the request always carries a value: a missing or
 * empty one reads as the default (CKAN's `default` validator); without, a missing one stays missing.
 */
function boolParam(name: string, byDefault: boolean, description: string, { filled = false } = {}): ParamSpec {
  return {
    name,
    type: 'bool',
    defaultText: String(byDefault),
    coerce: filled ? orDefault(toBoolean, () => byDefault) : toBoolean,
    ...(filled ? { whenMissing: () => byDefault } : {}),
    schema: { type: 'boolean', default: byDefault },
    example: !byDefault,
    description,
  };
}

export function searchParamSpecs(limits: SearchLimits): ParamSpec[] {
  return [
    {
      name: 'resource_id',
      alias: 'id',
      type: 'string',
      required: true,
      coerce: nonEmptyText,
      schema: { type: 'string', minLength: 1 },
      example: '60728fc9-2896-41d8-a70c-9c01dd3d57ce',
      description: 'id (or alias) of the resource to search. `id` is accepted as a synonym.',
    },
    {
      name: 'filters',
      type: 'dictionary',
      coerce: toJson,
      jsonInQuery: true,
      schema: { oneOf: [FILTERS_OBJECT, { type: 'array', items: FILTERS_OBJECT }] },
      example: { 'Party Abbreviation': ['F.F.', 'F.G.'] },
      description:
        'matching conditions (CKAN 2.12\'s grammar), e.g. {"Party Abbreviation": "F.F."}. A list value matches any of its values, e.g. {"Party Abbreviation": ["F.F.", "F.G."]}; an empty list matches nothing; null matches empty cells. Operators compare: {"Votes": {"gte": 5000, "lt": 10000}} (eq, in, gt, gte, lt, lte; several on one field must all hold); a list may mix values and operators, {"Votes": [0, {"gt": 10000}]}, and matches either. Several fields must all match; {"$or": [{…}, {…}]} and {"$and": [{…}, {…}]} combine dictionaries, nested up to 9 deep, with at most 100 operations in all. A field whose name starts with $ is written with $$. Values are converted to the field\'s type; text fields compare the value\'s text, by code point. A list of such dictionaries matches records that satisfy any one of them.',
    },
    {
      name: 'q',
      type: 'string or dictionary',
      coerce: toTextOrObject,
      schema: { oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }] },
      example: 'Dublin',
      description:
        'full text query. A string searches every field of each record; a dictionary {"field": "term"} searches each named field. Adds a `rank` field (`rank <field>` for a dictionary) and orders by it unless `sort` is given.',
    },
    {
      name: 'full_text',
      type: 'string',
      coerce: toText,
      schema: { type: 'string' },
      example: 'Dublin',
      description:
        'full text query over all fields of each record, to be used instead of a string `q`. It may be combined with a dictionary `q`.',
    },
    boolParam(
      'distinct',
      false,
      'return only distinct records (of the selected `fields`); the total counts distinct records.',
    ),
    boolParam(
      'plain',
      true,
      'treat `q` as plain text (all words must match). false enables PostgreSQL\'s tsquery syntax: & | ! <-> ( ) and prefix matching with :*, e.g. "Dub:*".',
    ),
    {
      name: 'language',
      type: 'string',
      defaultText: 'english',
      coerce: toText,
      schema: { type: 'string', enum: supportedTextSearchConfigs(), default: 'english' },
      example: 'english',
      description: `language (text search configuration) used to stem the words of \`q\`: ${supportedTextSearchConfigs().join(', ')}.`,
    },
    {
      name: 'limit',
      type: 'int',
      defaultText: String(limits.rowsDefault),
      schema: { type: 'integer', minimum: 0, default: limits.rowsDefault },
      example: 10,
      coerce: orDefault(
        (v) => Math.min(naturalNumber(toInteger(v, { withEnterMessage: true })), limits.rowsMax),
        () => limits.rowsDefault,
      ),
      whenMissing: () => limits.rowsDefault,
      description: `maximum number of records to return (default ${limits.rowsDefault}; a larger value than ${limits.rowsMax} is lowered to ${limits.rowsMax}).`,
    },
    {
      name: 'offset',
      type: 'int',
      defaultText: '0',
      coerce: orDefault(
        (v) => safeInteger(toInteger(v)),
        () => 0,
      ),
      schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
      example: 100,
      description: 'number of records to skip.',
    },
    {
      name: 'fields',
      type: 'list or comma separated string',
      coerce: toStringOrList,
      schema: STRING_OR_LIST,
      example: 'Surname,Votes',
      description:
        'fields to return, in this order (default: all fields in their stored order). `rank` may be named when `q` is given.',
    },
    {
      name: 'sort',
      type: 'string',
      coerce: toStringOrList,
      schema: STRING_OR_LIST,
      example: 'Votes desc, Surname',
      description:
        'comma separated field names with ordering, e.g. "Votes desc, Surname". A name with spaces may be double-quoted; `nulls first` or `nulls last` may follow. Ties are broken by record order (_id).',
    },
    boolParam('include_total', true, 'true to return the total number of matching records.', { filled: true }),
    boolParam(
      'include_next_page',
      false,
      `true to say where the next page starts. When the records are sorted by _id alone (the default order, or sort "_id" / "_id desc"), the result's \`next_page\` is a filter to merge into \`filters\` for the next page: {"_id": {"gt": <last _id>}} ({"lt": …} for _id desc). A page without records has none: the last page has been read. Sorted by any fields (not by rank, not distinct), the result also carries \`${NEXT_AFTER_KEY}\`, the value of \`${AFTER_PARAMETER}\` for the next page.`,
      { filled: true },
    ),
    {
      name: AFTER_PARAMETER,
      type: 'list',
      coerce: (value) => {
        const list = toJson(value);
        if (!Array.isArray(list)) throw new ParamProblem([messages.notAList]);
        return list;
      },
      jsonInQuery: true,
      schema: { type: 'array', items: SCALAR },
      example: [100],
      description: `Count Centre extension (not in CKAN): keyset paging in any order of fields. The last record of the previous page's values for each sort key, then its _id (exactly that page's \`${NEXT_AFTER_KEY}\`, with the same filters, q and sort): the page starts right after that record, however deep it is, and stays exact. E.g. with sort "Votes desc", [5000, 17] continues after the record with 5000 votes and _id 17.`,
    },
    {
      name: 'total_estimation_threshold',
      type: 'int or None',
      defaultText: 'None',
      schema: { type: ['integer', 'null'], default: null },
      example: 1000,
      coerce: orDefault(
        (v) => safeInteger(toInteger(v)) as number | null,
        () => null,
      ),
      whenMissing: () => null,
      description:
        "when set, and the query has no filters, full-text query or distinct, and the resource holds at least this many records, `total` comes from the catalogue's stored count and `total_was_estimated` is true, as in CKAN. The stored count is exact.",
    },
    {
      name: 'records_format',
      type: 'controlled list',
      defaultText: 'objects',
      schema: { type: 'string', enum: [...RECORDS_FORMATS], default: 'objects' },
      example: 'csv',
      coerce: orDefault(
        (v) => {
          const format = toText(v);
          if (!(RECORDS_FORMATS as readonly string[]).includes(format))
            throw new ParamProblem([messages.oneOf(RECORDS_FORMATS)]);
          return format;
        },
        () => 'objects',
      ),
      whenMissing: () => 'objects',
      description:
        "'objects' (default): a list of {field: value} objects; 'lists': a list of [value, …] lists; 'csv' or 'tsv': a string of comma- or tab-separated lines without a header.",
    },
  ];
}

/** Names the result echoes whenever they were given; the always-echoed ones are added by the action. */
const ECHO_WHEN_GIVEN = [
  AFTER_PARAMETER,
  'distinct',
  'filters',
  'full_text',
  'include_next_page',
  'language',
  'offset',
  'plain',
  'q',
  'sort',
];

/** Stage one of datastore_search: types and defaults, independent of the resource. Throws ParamErrors. */
export function readSearchRequest(
  input: Record<string, unknown>,
  limits: SearchLimits,
  specs = searchParamSpecs(limits),
): SearchRequest {
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
    includeNextPage: get<boolean>('include_next_page'),
    after: get<unknown[] | undefined>(AFTER_PARAMETER),
    totalEstimationThreshold: get<number | null>('total_estimation_threshold'),
    unknown,
    echo,
    fieldsGiven: given.has('fields'),
  };
}
