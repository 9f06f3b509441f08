// CKAN 2.12's filter grammar in the planner, as a table: every form (values, lists, operators, mixed lists, $and /
// $or, $$ escaping), what each becomes as a condition tree, and every error with CKAN's wording — including where
// CKAN's limits on operations and nesting fall, and which problem wins when a request has several.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FieldInfo } from '../../src/catalog/types.js';
import { ApiError } from '../../src/errors.js';
import { MAX_FILTER_DEPTH, MAX_FILTER_OPERATIONS, readFilterGrammar } from '../../src/query/filter-grammar.js';
import { planFilters } from '../../src/query/filters.js';
import type { Condition } from '../../src/query/plan.js';
import { PlanProblems } from '../../src/query/problems.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch, type PlanResource } from '../../src/query/search-plan.js';

const fields: FieldInfo[] = [
  { id: '_id', type: 'int', nullable: false },
  { id: 'Name', type: 'text' },
  { id: 'Votes', type: 'numeric' },
  { id: 'Held', type: 'timestamp' },
  { id: 'Seats', type: 'int4' },
  { id: 'Big', type: 'int8' },
  { id: 'Won', type: 'bool' },
  { id: 'Day', type: 'date' },
  { id: '$Odd', type: 'text' },
];
const resource: PlanResource = { id: 'r', fields, fieldById: new Map(fields.map((f) => [f.id, f])), total: 10 };
const f = (id: string) => resource.fieldById.get(id)!;

const eq = (id: string, value: string | number | boolean): Condition => ({ kind: 'equals', field: f(id), value });
const inList = (id: string, values: (string | number | boolean)[]): Condition => ({ kind: 'in', field: f(id), values });
const cmp = (id: string, operator: 'gt' | 'gte' | 'lt' | 'lte', value: string | number | boolean): Condition => ({
  kind: 'compare',
  field: f(id),
  operator,
  value,
});
const and = (...of: Condition[]): Condition => ({ kind: 'and', of });
const or = (...of: Condition[]): Condition => ({ kind: 'or', of });
const isNull = (id: string): Condition => ({ kind: 'is-null', field: f(id) });
const NEVER: Condition = { kind: 'never' };

function run(filters: unknown): { condition: Condition | null; error: Record<string, unknown> | null } {
  const problems = new PlanProblems();
  const condition = planFilters(filters, resource.fieldById, problems);
  return { condition, error: problems.toError()?.validation ?? null };
}

/** {"$or": [{"$or": [… {"Votes": 1} …]}]}, `depth` levels of `$or`. */
function nested(depth: number): Record<string, unknown> {
  let filters: Record<string, unknown> = { Votes: 1 };
  for (let i = 0; i < depth; i++) filters = { $or: [filters] };
  return filters;
}

const invalidQuery = (orig: string) => ({ query: ['Invalid query'], info: { orig: [orig] } });

// [what, filters, the condition it becomes (null: every record)]
const FORMS: [string, unknown, Condition | null][] = [
  ['a value: equality', { Name: 'x' }, eq('Name', 'x')],
  ['a list: any of its values, converted to the field type', { Votes: ['1', 2] }, inList('Votes', [1, 2])],
  ['an empty list matches nothing', { Votes: [] }, NEVER],
  ['null matches empty cells', { Votes: null }, isNull('Votes')],
  ['null in a list', { Votes: [1, null] }, or(inList('Votes', [1]), isNull('Votes'))],
  ['eq', { Votes: { eq: 5 } }, eq('Votes', 5)],
  ['eq null', { Votes: { eq: null } }, isNull('Votes')],
  ['in', { Votes: { in: [5, 6] } }, inList('Votes', [5, 6])],
  ['in with one value stays a list', { Votes: { in: [5] } }, inList('Votes', [5])],
  ['in with null', { Votes: { in: [1, null] } }, or(inList('Votes', [1]), isNull('Votes'))],
  ['in with an empty list', { Votes: { in: [] } }, NEVER],
  ['gt', { Votes: { gt: 5 } }, cmp('Votes', 'gt', 5)],
  ['gte', { Votes: { gte: '5' } }, cmp('Votes', 'gte', 5)],
  ['lt', { Votes: { lt: 5.5 } }, cmp('Votes', 'lt', 5.5)],
  ['lte', { Votes: { lte: 5 } }, cmp('Votes', 'lte', 5)],
  [
    'several operators on one field: all of them',
    { Votes: { gte: 5000, lt: 10000 } },
    and(cmp('Votes', 'gte', 5000), cmp('Votes', 'lt', 10000)),
  ],
  [
    'a list mixing values and operators: any of them',
    { Votes: [0, { gt: 10000 }] },
    or(cmp('Votes', 'gt', 10000), inList('Votes', [0])),
  ],
  [
    "CKAN's own example",
    { Votes: [{ lte: 1 }, 7, { gte: 10 }] },
    or(cmp('Votes', 'lte', 1), cmp('Votes', 'gte', 10), inList('Votes', [7])),
  ],
  ['a comparison with null matches nothing', { Votes: { gt: null } }, NEVER],
  ['several fields: all of them', { Name: 'x', Seats: 3 }, and(eq('Name', 'x'), eq('Seats', 3))],
  ['$or', { $or: [{ Name: 'a' }, { Seats: 1 }] }, or(eq('Name', 'a'), eq('Seats', 1))],
  ['$and', { $and: [{ Name: 'a' }, { Seats: 1 }] }, and(eq('Name', 'a'), eq('Seats', 1))],
  [
    'a member of several keys is their AND',
    { $or: [{ Name: 'a', Won: false }, { Won: true }] },
    or(and(eq('Name', 'a'), eq('Won', false)), eq('Won', true)),
  ],
  [
    'fields beside $or',
    { Won: false, $or: [{ Name: 'appetizer' }, { _id: { gt: 2 } }] },
    and(eq('Won', false), or(eq('Name', 'appetizer'), cmp('_id', 'gte', 3))),
  ],
  [
    '$and inside $and is one AND',
    { $and: [{ Name: 'a' }, { $and: [{ Seats: 1 }, { Votes: 2 }] }] },
    and(eq('Name', 'a'), eq('Seats', 1), eq('Votes', 2)),
  ],
  [
    '$or inside $and',
    { $and: [{ Name: 'a' }, { $or: [{ Seats: 1 }, { Votes: 2 }] }] },
    and(eq('Name', 'a'), or(eq('Seats', 1), eq('Votes', 2))),
  ],
  ['nested 9 deep', nested(MAX_FILTER_DEPTH - 1), eq('Votes', 1)],
  [
    'a list of dictionaries: any of them',
    [{ Name: 'a' }, { Name: 'b', Seats: 1 }],
    or(eq('Name', 'a'), and(eq('Name', 'b'), eq('Seats', 1))),
  ],
  ['a member that asks nothing is left out, as CKAN leaves it out', [{ Name: 'a' }, {}], eq('Name', 'a')],
  ['an empty $or asks nothing', { $or: [] }, null],
  ['an empty operator dictionary asks nothing', { Votes: {} }, null],
  ['an empty list of filters', [], null],
  ['an empty dictionary', {}, null],
  ['falsy filters are none, as in CKAN', 0, null],
  ['$$ escapes a field name starting with $', { $$Odd: 'x' }, eq('$Odd', 'x')],
  [
    '$$ in an operator dictionary',
    { $$Odd: { gt: 'm', lt: 'p' } },
    and(cmp('$Odd', 'gt', 'm'), cmp('$Odd', 'lt', 'p')),
  ],
  // Text fields compare the Python str() of any JSON value, by code point.
  ['text: a number compares as its text', { Name: { gt: 25 } }, cmp('Name', 'gt', '25')],
  ['text: true is "True"', { Name: true }, eq('Name', 'True')],
  ['text: an object under eq', { Name: { eq: { a: 1 } } }, eq('Name', "{'a': 1}")],
  ['text: a list in a list', { Name: [[1, 'b']] }, inList('Name', ["[1, 'b']"])],
  ['text: equal to text with a NUL: nothing', { Name: 'a\u0000b' }, NEVER],
  [
    'text: below text with a NUL is at most what comes before it',
    { Name: { lt: 'a\u0000b' } },
    cmp('Name', 'lte', 'a'),
  ],
  [
    'text: beyond text with a NUL is beyond what comes before it',
    { Name: { gte: 'a\u0000b' } },
    cmp('Name', 'gt', 'a'),
  ],
  // Whole numbers compare numerically with any JSON number, and never reach the store out of range.
  ['_id beyond 2^31: nothing', { _id: { gt: 1e20 } }, NEVER],
  ['_id below 2^31: every record', { _id: { lt: 1e20 } }, null],
  ['_id at least -1e20: every record', { _id: { gte: -1e20 } }, null],
  ['_id below -1e20: nothing', { _id: { lt: -1e20 } }, NEVER],
  [
    'a nullable whole-number field below 1e20: every value',
    { Seats: { lt: 1e20 } },
    { kind: 'not-null', field: f('Seats') },
  ],
  ['_id at most 2147483647: every record', { _id: { lte: 2147483647 } }, null],
  ['_id beyond 2147483647: nothing', { _id: { gt: 2147483647 } }, NEVER],
  ['_id beyond 2.5 is at least 3', { _id: { gt: 2.5 } }, cmp('_id', 'gte', 3)],
  ['_id at least 2.5 is at least 3', { _id: { gte: 2.5 } }, cmp('_id', 'gte', 3)],
  ['_id below 2.5 is at most 2', { _id: { lt: 2.5 } }, cmp('_id', 'lte', 2)],
  ['_id at most 2.5 is at most 2', { _id: { lte: 2.5 } }, cmp('_id', 'lte', 2)],
  ['_id beyond 2 is at least 3', { _id: { gt: 2 } }, cmp('_id', 'gte', 3)],
  ['whole-number text', { Seats: { gt: '4' } }, cmp('Seats', 'gte', 5)],
  ['_id equal to 2.5: nothing', { _id: 2.5 }, NEVER],
  ['_id equal to 2^31: nothing', { _id: 99999999999 }, NEVER],
  ['int8 beyond 2^53: nothing', { Big: { gt: 2 ** 60 } }, NEVER],
  ['int8 below 2^53: every value', { Big: { lt: 2 ** 60 } }, { kind: 'not-null', field: f('Big') }],
  // Dates and times compare in time order; booleans false before true.
  ['timestamp', { Held: { gte: '2020-02-08' } }, cmp('Held', 'gte', '2020-02-08T00:00:00')],
  ['date', { Day: { lt: '2020-02-08' } }, cmp('Day', 'lt', '2020-02-08')],
  ['bool', { Won: { gt: 'no' } }, cmp('Won', 'gt', false)],
];

// [what, filters, the error]
const ERRORS: [string, unknown, Record<string, unknown>][] = [
  ['not a dictionary', 'text', { filters: ['Filters must be defined as a dict or a list of dicts'] }],
  ['a number', 5, { filters: ['Filters must be defined as a dict or a list of dicts'] }],
  [
    'a list with a non-dictionary',
    [{ Name: 'a' }, 3],
    { filters: ['Filters must be defined as a dict or a list of dicts'] },
  ],
  [
    'unknown fields: every one',
    { Nope: 1, Also: { gt: 2 } },
    { filters: ['Unknown field: Nope', 'Unknown field: Also'] },
  ],
  [
    'an unknown field in a mixed list, once per operator',
    { Nope: [1, { gt: 2 }, { lt: 3 }] },
    { filters: ['Unknown field: Nope', 'Unknown field: Nope'] },
  ],
  ["an unknown field in a plain list: CKAN's later check", { Nope: [1, 2] }, { filters: ['invalid value "Nope"'] }],
  [
    'an unknown field deep inside $or',
    { $or: [{ Name: 'a' }, { $and: [{ Nope: 1 }] }] },
    { filters: ['Unknown field: Nope'] },
  ],
  [
    'a single $ is an operator',
    { $Odd: [{ Name: 'x' }] },
    { filters: ['Unknown operators (must be one of $or, $and): $Odd'] },
  ],
  [
    'an unknown $ operator',
    { $not: [{ Name: 'a' }] },
    { filters: ['Unknown operators (must be one of $or, $and): $not'] },
  ],
  [
    '$or holding a dictionary',
    { $or: { Name: 'a' } },
    { filters: ["Filter operations must be defined as a list of dicts: {'Name': 'a'}"] },
  ],
  [
    '$and holding values',
    { $and: [1, 'b'] },
    { filters: ["Filter operations must be defined as a list of dicts: [1, 'b']"] },
  ],
  ['$or holding text', { $or: 'x' }, { filters: ['Filter operations must be defined as a list of dicts: x'] }],
  [
    'every error, in order',
    { $x: [], Nope: 1, $or: 5 },
    {
      filters: [
        'Unknown operators (must be one of $or, $and): $x',
        'Unknown field: Nope',
        'Filter operations must be defined as a list of dicts: 5',
      ],
    },
  ],
  ['nested 10 deep', nested(MAX_FILTER_DEPTH), { filters: ['Maximum nesting depth for filter operations reached'] }],
  [
    'a list nested 9 more deep',
    [nested(MAX_FILTER_DEPTH - 1)],
    { filters: ['Maximum nesting depth for filter operations reached'] },
  ],
  [
    '101 operations',
    { $or: Array.from({ length: 100 }, () => ({ Votes: 1 })) },
    { filters: ['Maximum number of filter operations exceeded'] },
  ],
  [
    'a list of 100 dictionaries',
    Array.from({ length: 100 }, () => ({ Votes: 1 })),
    { filters: ['Maximum number of filter operations exceeded'] },
  ],
  [
    '100 keys in one dictionary, before anything else is looked at',
    Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`F${i}`, 1])),
    { filters: ['Maximum number of filter operations exceeded'] },
  ],
  [
    'the limit drops errors found before it',
    { Nope: 1, $or: Array.from({ length: 101 }, () => ({ Votes: 1 })) },
    { filters: ['Maximum number of filter operations exceeded'] },
  ],
  [
    'an unknown operation',
    { Votes: { like: 5 } },
    { filters: ["Unknown filter operation: FilterOp(field='Votes', op='like', value=5)"] },
  ],
  [
    'a $ operation on a field',
    { Votes: { $gt: 'x' } },
    { filters: ["Unknown filter operation: FilterOp(field='Votes', op='$gt', value='x')"] },
  ],
  // A combinator's name used as a field's operator is an unknown operation, not a combination (once a 500).
  [
    "$and as a field's operation",
    { Votes: { $and: [true] } },
    { filters: ["Unknown filter operation: FilterOp(field='Votes', op='$and', value=[True])"] },
  ],
  [
    "$or among a field's operations",
    { Votes: { gt: 1, $or: [1] } },
    { filters: ["Unknown filter operation: FilterOp(field='Votes', op='$or', value=[1])"] },
  ],
  [
    'in without a list',
    { Votes: { in: 5 } },
    { filters: ["Filter operation \"in\" takes a list of values: FilterOp(field='Votes', op='in', value=5)"] },
  ],
  [
    "a value that is not of the field's type",
    { Votes: { gt: 'many' } },
    invalidQuery('invalid input syntax for type numeric: "many"'),
  ],
  [
    'a list under a comparison',
    { Votes: { gt: [1] } },
    invalidQuery('a filter value for "Votes" must be a single value, got [1]'),
  ],
  [
    'a dictionary as a value in a list',
    { Votes: { in: [{ a: 1 }] } },
    invalidQuery('a filter value for "Votes" must be a single value or a list of values, got {\'a\': 1}'),
  ],
  [
    'a fraction as whole-number text',
    { Seats: { gt: '4.5' } },
    invalidQuery('invalid input syntax for type integer: "4.5"'),
  ],
  [
    'a date that is not one',
    { Held: { lt: '2020-13-01' } },
    invalidQuery('invalid input syntax for type timestamp: "2020-13-01"'),
  ],
  ['a boolean on a number', { Votes: true }, invalidQuery('invalid input syntax for type numeric: "True"')],
  [
    'too many values',
    { Votes: Array.from({ length: 10_001 }, (_, i) => i) },
    { filters: ['At most 10000 filter values are allowed'] },
  ],
];

describe("filters: every form of CKAN 2.12's grammar", () => {
  for (const [what, filters, expected] of FORMS) {
    test(`${what}: ${JSON.stringify(filters)?.slice(0, 100)}`, () => {
      const { condition, error } = run(filters);
      assert.equal(error, null, JSON.stringify(error));
      assert.deepEqual(condition, expected);
    });
  }
});

describe("filters: every error, in CKAN's words", () => {
  for (const [what, filters, expected] of ERRORS) {
    test(`${what}: ${JSON.stringify(filters)?.slice(0, 100)}`, () => {
      assert.deepEqual(run(filters).error, expected);
    });
  }

  test('up to the limits, nothing is refused', () => {
    assert.equal(
      run({ $or: Array.from({ length: 99 }, () => ({ Votes: 1 })) }).error,
      null,
      '99 values and their $or: 100 operations',
    );
    assert.equal(run(Array.from({ length: 99 }, () => ({ Votes: 1 }))).error, null);
    assert.equal(run(nested(MAX_FILTER_DEPTH - 1)).error, null);
  });
});

describe('filters: operations counted where CKAN counts them', () => {
  const count = (filters: unknown) => {
    const result = readFilterGrammar(filters, (name) => resource.fieldById.has(name));
    assert.ok(result.ok);
    return result.operations;
  };
  const cases: [unknown, number][] = [
    [{ Votes: 1 }, 1],
    [{ Votes: [1, 2, 3] }, 1],
    [{ Votes: { gt: 1, lt: 5 } }, 3],
    [{ Votes: [1, { gt: 2 }] }, 3],
    [{ Votes: 1, Name: 'a' }, 3],
    [{ $and: [{ Votes: 1 }, { Name: 'a' }] }, 3],
    [{ $or: [{ Votes: 1 }, { Name: 'a' }] }, 3],
    [{ $or: [{ Votes: 1, Name: 'a' }] }, 4],
    [{ $or: [{ $and: [{ Votes: 1 }, { Name: 'a' }] }] }, 4],
    [[{ Votes: 1 }, { Name: 'a' }], 3],
  ];
  for (const [filters, operations] of cases) {
    test(`${JSON.stringify(filters)}: ${operations}`, () => assert.equal(count(filters), operations));
  }
  test('the limit', () => assert.equal(MAX_FILTER_OPERATIONS, 100));
});

describe('filters among the other parameters: which problem CKAN 2.12 reports', () => {
  const errorOf = (input: Record<string, unknown>) => {
    const result = planSearch(
      readSearchRequest({ resource_id: 'r', ...input }, { rowsDefault: 100, rowsMax: 32000 }),
      resource,
      { defaultLanguage: 'english' },
    );
    assert.ok(result instanceof ApiError);
    return result.validation;
  };

  test("the grammar's errors come before unknown parameters, fields and sorts", () => {
    assert.deepEqual(errorOf({ filters: { Nope: 1 }, sort: 'Nope', fields: 'Nope', foo: 1 }), {
      filters: ['Unknown field: Nope'],
    });
  });

  test('an unknown field in a plain list is one "invalid value" among the others, alphabetically', () => {
    assert.deepEqual(errorOf({ filters: { Nope: [1] }, foo: 1 }), { __extras: ['invalid value "foo"'] });
    assert.deepEqual(errorOf({ filters: { Nope: [1] }, sort: 'Nope' }), { filters: ['invalid value "Nope"'] });
  });

  test("an unknown operation comes after every other parameter's problem, and before the database's", () => {
    assert.deepEqual(errorOf({ filters: { Votes: { like: 1 } }, sort: 'Nope' }), { sort: ['invalid value "Nope"'] });
    assert.deepEqual(errorOf({ filters: { Votes: { like: 1, gt: 'x' } } }), {
      filters: ["Unknown filter operation: FilterOp(field='Votes', op='like', value=1)"],
    });
  });
});
