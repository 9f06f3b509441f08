// The query stages as pure functions: reading parameters (stage one), then filters, sort, fields and counting
// against a resource (stage two), producing the plan.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FieldInfo } from '../../src/catalog/types.js';
import { ApiError } from '../../src/errors.js';
import { planFilters } from '../../src/query/filters.js';
import { ParamErrors } from '../../src/query/params.js';
import type { SearchPlan } from '../../src/query/plan.js';
import { PlanProblems } from '../../src/query/problems.js';
import { readSearchRequest } from '../../src/query/search-params.js';
import { planSearch, type PlanResource } from '../../src/query/search-plan.js';
import { parseSortClause } from '../../src/query/sort.js';

const limits = { rowsDefault: 100, rowsMax: 32000 };
const fields: FieldInfo[] = [
  { id: '_id', type: 'int' },
  { id: 'Name', type: 'text' },
  { id: 'Votes', type: 'numeric' },
  { id: 'Held', type: 'timestamp' },
  { id: 'Seats', type: 'int4' },
];
const resource: PlanResource = { id: 'r', fields, fieldById: new Map(fields.map((f) => [f.id, f])), total: 531 };
const field = (id: string) => resource.fieldById.get(id)!;

function plan(input: Record<string, unknown>): SearchPlan {
  const result = planSearch(readSearchRequest({ resource_id: 'r', ...input }, limits), resource, {
    defaultLanguage: 'english',
  });
  if (result instanceof ApiError) assert.fail(`unexpected error ${JSON.stringify(result.validation)}`);
  return result;
}

function planError(input: Record<string, unknown>): Record<string, unknown> | null {
  const result = planSearch(readSearchRequest({ resource_id: 'r', ...input }, limits), resource, {
    defaultLanguage: 'english',
  });
  assert.ok(result instanceof ApiError, 'expected an error');
  return result.validation;
}

describe('reading parameters', () => {
  test('defaults and echoes', () => {
    const request = readSearchRequest({ resource_id: 'r' }, limits);
    assert.equal(request.limit, 100);
    assert.equal(request.offset, 0);
    assert.equal(request.recordsFormat, 'objects');
    assert.equal(request.includeTotal, true);
    assert.equal(request.plain, true);
    assert.equal(request.totalEstimationThreshold, null);
    assert.deepEqual([...request.echo], []);
  });

  test('query-string strings are coerced like CKAN validators', () => {
    const request = readSearchRequest(
      {
        resource_id: 'r',
        limit: ' 7 ',
        offset: '3',
        plain: 'no',
        distinct: 'Y',
        include_total: 'False',
        q: '{"Name": "x"}',
        filters: '{"Votes": 1}',
      },
      limits,
    );
    assert.deepEqual(
      [request.limit, request.offset, request.plain, request.distinct, request.includeTotal],
      [7, 3, false, true, false],
    );
    assert.deepEqual(request.q, { Name: 'x' });
    assert.deepEqual(request.filters, { Votes: 1 });
    assert.deepEqual([...request.echo.keys()], ['distinct', 'filters', 'offset', 'plain', 'q']);
  });

  test('q that is JSON but not an object stays text', () => {
    assert.equal(readSearchRequest({ resource_id: 'r', q: '123' }, limits).q, '123');
    assert.equal(readSearchRequest({ resource_id: 'r', q: '"{}"' }, limits).q, '"{}"');
  });

  test('empty text means "use the default" for limit, records_format and include_total', () => {
    const request = readSearchRequest({ resource_id: 'r', limit: '', records_format: '', include_total: '' }, limits);
    assert.deepEqual([request.limit, request.recordsFormat, request.includeTotal], [100, 'objects', true]);
  });

  test('fields and sort strings split on commas; fields lose surrounding quotes, sort clauses keep them', () => {
    const request = readSearchRequest(
      { resource_id: 'r', fields: ' "Name" , Votes', sort: '"Name" desc, Votes' },
      limits,
    );
    assert.deepEqual(request.fields, ['Name', 'Votes']);
    assert.deepEqual(request.sort, ['"Name" desc', 'Votes']);
  });

  test('every type error is collected', () => {
    assert.throws(
      () => readSearchRequest({ limit: 'x', fields: 3 }, limits),
      (err: ParamErrors) => {
        assert.deepEqual(err.detail, {
          resource_id: ['Missing value'],
          limit: ['Invalid integer', 'Please enter an integer value'],
          fields: ['Not a list'],
        });
        return true;
      },
    );
  });

  test('limit above rows_max is lowered, not refused', () => {
    assert.equal(readSearchRequest({ resource_id: 'r', limit: 10 ** 12 }, limits).limit, 32000);
    assert.equal(readSearchRequest({ resource_id: 'r', limit: 50 }, { rowsDefault: 10, rowsMax: 20 }).limit, 20);
  });
});

describe('filters', () => {
  const run = (filters: unknown) => {
    const problems = new PlanProblems();
    const condition = planFilters(filters, resource.fieldById, problems);
    return { condition, error: problems.toError()?.validation ?? null };
  };

  test('scalar → equals, list → in, empty list → never, null → is-null, several → and', () => {
    assert.deepEqual(run({ Name: 'x' }).condition, { kind: 'equals', field: field('Name'), value: 'x' });
    assert.deepEqual(run({ Votes: ['1', 2] }).condition, { kind: 'in', field: field('Votes'), values: [1, 2] });
    assert.deepEqual(run({ Votes: [] }).condition, { kind: 'never' });
    assert.deepEqual(run({ Votes: null }).condition, { kind: 'is-null', field: field('Votes') });
    assert.deepEqual(run({ Votes: [1, null] }).condition, {
      kind: 'or',
      of: [
        { kind: 'in', field: field('Votes'), values: [1] },
        { kind: 'is-null', field: field('Votes') },
      ],
    });
    assert.deepEqual(run({ Name: 'x', Seats: 3 }).condition, {
      kind: 'and',
      of: [
        { kind: 'equals', field: field('Name'), value: 'x' },
        { kind: 'equals', field: field('Seats'), value: 3 },
      ],
    });
  });

  test('values take the field type; text takes Python str()', () => {
    assert.deepEqual(run({ Name: true }).condition, { kind: 'equals', field: field('Name'), value: 'True' });
    assert.deepEqual(run({ Held: '2020-02-08' }).condition, {
      kind: 'equals',
      field: field('Held'),
      value: '2020-02-08T00:00:00',
    });
    assert.deepEqual(run({ Seats: '4.5' }).error, {
      query: ['Invalid query'],
      info: { orig: ['invalid input syntax for type integer: "4.5"'] },
    });
  });

  test('a list of dictionaries is an OR; a dictionary that asks nothing is left out of it, as in CKAN 2.12', () => {
    assert.deepEqual(run([{ Name: 'a' }, { Name: 'b', Seats: 1 }]).condition, {
      kind: 'or',
      of: [
        { kind: 'equals', field: field('Name'), value: 'a' },
        {
          kind: 'and',
          of: [
            { kind: 'equals', field: field('Name'), value: 'b' },
            { kind: 'equals', field: field('Seats'), value: 1 },
          ],
        },
      ],
    });
    assert.deepEqual(run([{ Name: 'a' }, {}]).condition, { kind: 'equals', field: field('Name'), value: 'a' });
    assert.equal(run([{}]).condition, null);
    assert.equal(run([]).condition, null);
    assert.equal(run({}).condition, null);
  });

  test('unknown fields and bad shapes', () => {
    assert.deepEqual(run({ Nope: 1, Also: 2 }).error, { filters: ['Unknown field: Nope', 'Unknown field: Also'] });
    assert.deepEqual(run('text').error, { filters: ['Filters must be defined as a dict or a list of dicts'] });
    assert.deepEqual(run([{ Name: 'a' }, 3]).error, {
      filters: ['Filters must be defined as a dict or a list of dicts'],
    });
  });
});

describe('sort clauses', () => {
  test('CKAN grammar', () => {
    assert.deepEqual(parseSortClause('Votes desc'), { fieldId: 'Votes', descending: true, nulls: null });
    assert.deepEqual(parseSortClause('"Constituency Number"'), {
      fieldId: 'Constituency Number',
      descending: false,
      nulls: null,
    });
    assert.deepEqual(parseSortClause('Constituency Number ASC nulls FIRST'), {
      fieldId: 'Constituency Number',
      descending: false,
      nulls: 'first',
    });
    assert.deepEqual(parseSortClause('a  desc nulls   last  '), { fieldId: 'a', descending: true, nulls: 'last' });
    assert.equal(parseSortClause(''), null);
  });
});

describe('planning', () => {
  test('default: every field, _id order implied, stored total', () => {
    const p = plan({});
    assert.deepEqual(
      p.columns.map((c) => c.id),
      ['_id', 'Name', 'Votes', 'Held', 'Seats'],
    );
    assert.deepEqual(p.orderBy, []);
    assert.deepEqual(p.count, { mode: 'stored', total: 531, estimationThreshold: null });
    assert.equal(p.where, null);
  });

  test('sort keys make PostgreSQL null placement explicit', () => {
    assert.deepEqual(
      plan({ sort: 'Votes desc, Name, Seats nulls first' }).orderBy.map((k) => [
        k.target.kind === 'field' && k.target.field.id,
        k.descending,
        k.nullsFirst,
      ]),
      [
        ['Votes', true, true],
        ['Name', false, false],
        ['Seats', false, true],
      ],
    );
  });

  test('counting: none, stored (with the threshold for estimation), exact when filtered or distinct', () => {
    assert.deepEqual(plan({ include_total: false }).count, { mode: 'none' });
    assert.deepEqual(plan({ total_estimation_threshold: 531 }).count, {
      mode: 'stored',
      total: 531,
      estimationThreshold: 531,
    });
    assert.deepEqual(plan({ filters: { Name: 'x' }, total_estimation_threshold: 1 }).count, { mode: 'exact' });
    assert.deepEqual(plan({ distinct: true, fields: 'Name' }).count, { mode: 'exact' });
  });

  test('errors: the alphabetically first parameter is reported, as CKAN walks its sorted dict', () => {
    assert.deepEqual(planError({ sort: 'Nope', offset: -1, foo: 1 }), { __extras: ['invalid value "foo"'] });
    assert.deepEqual(planError({ sort: 'Nope', offset: -1 }), { offset: ['invalid value "-1"'] });
    assert.deepEqual(planError({ sort: ['Nope', 'Name'] }), { sort: ['invalid value "Nope"'] });
    assert.deepEqual(planError({ fields: ['Name', ['x']] }), { fields: ['invalid value "[\'x\']"'] });
  });
});

describe('full-text planning', () => {
  test('a string q matches the whole record and adds `rank`, ordered best first', () => {
    const p = plan({ q: 'Dublin Bay' });
    assert.deepEqual(p.columns.at(-1)?.id, 'rank');
    assert.equal(p.where?.kind, 'text-match');
    const match = p.where?.kind === 'text-match' ? p.where.match : null;
    assert.equal(match?.target.kind, 'row');
    assert.equal(match?.query.text, "'dublin' & 'bay'");
    assert.deepEqual(match?.query.candidates, {
      kind: 'and',
      of: [
        { kind: 'term', lexeme: 'dublin', prefix: false },
        { kind: 'term', lexeme: 'bay', prefix: false },
      ],
    });
    assert.deepEqual(
      p.orderBy.map((k) => [k.target.kind, k.descending]),
      [['rank', true]],
    );
    assert.deepEqual(p.count, { mode: 'exact' });
  });

  test('a dictionary q matches each field and adds `rank <field>`', () => {
    const p = plan({ q: { Name: 'murphy', Votes: '10' } });
    assert.deepEqual(
      p.columns.slice(-2).map((c) => c.id),
      ['rank Name', 'rank Votes'],
    );
  });

  test('full_text takes the place of a string q; plain=false reads tsquery syntax; language picks the stemmer', () => {
    const p = plan({ q: 'ignored', full_text: 'running', language: 'simple' });
    assert.equal(p.where?.kind === 'text-match' && p.where.match.query.text, "'running'");
    const stemmed = plan({ q: 'running & walk:*', plain: false });
    assert.equal(stemmed.where?.kind === 'text-match' && stemmed.where.match.query.text, "'run' & 'walk':*");
  });

  test('stop words only: a query that matches nothing', () => {
    const p = plan({ q: 'the of' });
    assert.equal(p.where?.kind === 'text-match' && p.where.match.query.text, '');
    assert.deepEqual(p.where?.kind === 'text-match' && p.where.match.query.candidates, { kind: 'none' });
  });

  test('problems: unknown field, non-text term, syntax, language', () => {
    assert.deepEqual(planError({ q: { Nope: 'x' } }), { q: ['invalid value "Nope"'] });
    assert.deepEqual(planError({ q: { Name: 5 } }), { q: ['invalid value "Name"'] });
    assert.deepEqual(planError({ q: '(a', plain: false }), {
      query: ['Invalid query'],
      info: { orig: ['syntax error in tsquery: "(a"'] },
    });
    assert.deepEqual(planError({ q: 'a', language: 'xx' }), {
      query: ['Invalid query'],
      info: { orig: ['text search configuration "xx" does not exist'] },
    });
    assert.deepEqual(planError({ fields: 'rank' }), { fields: ['invalid value "rank"'] });
  });
});
