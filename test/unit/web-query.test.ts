// The resource page's URL state: reading datastore_search's parameters back, folding form fields into them, and the
// canonical query strings that make every shared link name one view; and the code snippets built from a view.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { apiSnippets } from '../../src/web/snippets.js';
import {
  apiQuery,
  canonical,
  decodedParams,
  filterClauses,
  foldClauses,
  foldForm,
  queryString,
  readFields,
  readFilters,
  readSort,
  sortText,
} from '../../src/web/table-query.js';

const FIELDS = ['Constituency', 'Surname', 'Party Abbreviation', 'Votes', 'Odd, name'];
const q = (text: string) => new URLSearchParams(text);

describe('reading the view from its URL', () => {
  test('filters: a dictionary of values or lists; anything else is shown as it is', () => {
    assert.deepEqual(readFilters(q('filters={"Party Abbreviation":["F.F.","F.G."],"Votes":5}')), {
      filters: { 'Party Abbreviation': ['F.F.', 'F.G.'], Votes: 5 },
      complex: false,
    });
    assert.deepEqual(readFilters(q('filters=[{"a":1}]')), { filters: {}, complex: true });
    assert.deepEqual(readFilters(q('filters={"a":{"gte":1}}')), { filters: { a: { gte: 1 } }, complex: false });
    assert.deepEqual(readFilters(q('filters={"a":[1,{"lt":0}]}')), { filters: { a: [1, { lt: 0 }] }, complex: false });
    assert.deepEqual(readFilters(q('filters={"$or":[{"a":1}]}')), { filters: {}, complex: true });
    assert.deepEqual(readFilters(q('filters={"a":{"like":"x"}}')), { filters: {}, complex: true });
    assert.deepEqual(readFilters(q('filters={bad')), { filters: {}, complex: true });
    assert.deepEqual(readFilters(q('')), { filters: {}, complex: false });
  });

  test('sort: fields quoted or not, with a direction; anything more is left to the API', () => {
    assert.deepEqual(readSort(q('sort="Party Abbreviation" desc, Votes')), [
      { field: 'Party Abbreviation', descending: true },
      { field: 'Votes', descending: false },
    ]);
    assert.equal(readSort(q('sort=Votes desc nulls first')), null);
    assert.deepEqual(readSort(q('')), []);
    assert.equal(
      sortText([
        { field: 'Party Abbreviation', descending: true },
        { field: 'Votes', descending: false },
      ]),
      '"Party Abbreviation" desc, "Votes"',
    );
  });

  test('fields: a comma list, or repeated names', () => {
    assert.deepEqual(readFields(q('fields=Surname,Votes')), ['Surname', 'Votes']);
    assert.deepEqual(readFields(q('fields=Odd, name&fields=Votes')), ['Odd, name', 'Votes']);
    assert.equal(readFields(q('')), null);
  });

  test("the API is asked the page's parameters without the explorer's own", () => {
    const page = q('q=x&_facet=Surname&filters={}&_facet=Votes&limit=5');
    assert.equal(apiQuery(page).toString(), 'q=x&filters=%7B%7D&limit=5');
    assert.deepEqual(decodedParams(q('fields=a&fields=b&q=x')), { fields: ['a', 'b'], q: 'x' });
  });

  test('canonical order: one view, one address', () => {
    assert.equal(
      queryString(q('offset=100&limit=25&_facet=Surname&sort=Votes&q=x&unknown=1')),
      '?q=x&sort=Votes&limit=25&offset=100&_facet=Surname&unknown=1',
    );
    assert.equal(canonical(q('')).toString(), '');
  });
});

describe('forms folded into parameters', () => {
  test('filter rows: values of one field become a list, empty rows are dropped, the page starts again', () => {
    const folded = foldForm(
      q(
        '_ff=Party Abbreviation&_fo=eq&_fv=F.F.&_ff=Party Abbreviation&_fo=eq&_fv=F.G.&_ff=Votes&_fo=eq&_fv=&_ff=&_fo=eq&_fv=x&q=dublin&offset=300',
      ),
      FIELDS,
    )!;
    assert.equal(
      folded.toString(),
      new URLSearchParams({ q: 'dublin', filters: '{"Party Abbreviation":["F.F.","F.G."]}' }).toString(),
    );
    const cleared = foldForm(q('_ff=Votes&_fo=eq&_fv=&filters={"Votes":1}'), FIELDS)!;
    assert.equal(cleared.toString(), '');
  });

  test('an operator the form does not know is read as equality', () => {
    const folded = foldForm(q('_ff=Votes&_fo=regex&_fv=5'), FIELDS)!;
    assert.equal(folded.get('filters'), '{"Votes":"5"}');
  });

  test("column checkboxes: in the resource's order; all or none means every field", () => {
    assert.equal(foldForm(q('_cols=1&_col=Votes&_col=Surname'), FIELDS)!.get('fields'), 'Surname,Votes');
    assert.deepEqual(foldForm(q('_cols=1&_col=Votes&_col=Odd, name'), FIELDS)!.getAll('fields'), [
      'Votes',
      'Odd, name',
    ]);
    assert.equal(foldForm(q('_cols=1'), FIELDS)!.has('fields'), false);
    assert.equal(
      foldForm(q(`_cols=1&${FIELDS.map((f) => `_col=${encodeURIComponent(f)}`).join('&')}`), FIELDS)!.has('fields'),
      false,
    );
  });

  test('sort levels, each field once', () => {
    const folded = foldForm(q('_sorting=1&_s1=Votes&_d1=desc&_s2=Votes&_d2=asc&_s3=Surname&_d3=asc'), FIELDS)!;
    assert.equal(folded.get('sort'), '"Votes" desc, "Surname"');
    assert.equal(foldForm(q('_sorting=1&_s1=&_d1=asc&sort=Votes'), FIELDS)!.has('sort'), false);
  });

  test('a facet added keeps the others', () => {
    const folded = foldForm(q('_facet=Surname&_facet=Votes&_facet_add=Constituency'), FIELDS)!;
    assert.deepEqual(folded.getAll('_facet'), ['Surname', 'Votes', 'Constituency']);
  });

  test('a query without form fields is not folded', () => {
    assert.equal(foldForm(q('q=x&offset=100'), FIELDS), null);
  });

  test('clauses and filters round-trip', () => {
    const filters = { a: ['x', 'y'], b: 1, c: null };
    assert.deepEqual(foldClauses(filterClauses(filters)), filters);
    const ranges = { Votes: { gte: 5000, lt: 10000 }, Surname: ['Ryan', { gte: 'W' }] };
    assert.deepEqual(foldClauses(filterClauses(ranges)), ranges);
  });

  test("the form's comparisons fold into CKAN 2.12's operator dictionary; several on one field all apply", () => {
    const folded = foldForm(
      q('_ff=Votes&_fo=gte&_fv=5000&_ff=Votes&_fo=lt&_fv=10000&_ff=Party&_fo=eq&_fv=S.F.&_ff=&_fo=eq&_fv='),
      FIELDS,
    )!;
    assert.deepEqual(JSON.parse(folded.get('filters')!), { Votes: { gte: '5000', lt: '10000' }, Party: 'S.F.' });
    assert.deepEqual(filterClauses({ Votes: { in: [1, 2], gt: 0 } }), [
      { field: 'Votes', op: 'eq', value: 1 },
      { field: 'Votes', op: 'eq', value: 2 },
      { field: 'Votes', op: 'gt', value: 0 },
    ]);
  });
});

describe('snippets', () => {
  test('curl, Python, R and JavaScript make the same call, quoting safely', () => {
    const params = q(`resource_id=abc&filters=${encodeURIComponent('{"Surname":"O\'Brien"}')}`);
    const [curl, python, r, js] = apiSnippets('http://x/api/3/action/datastore_search', params);
    assert.equal(
      curl!.code,
      `curl 'http://x/api/3/action/datastore_search?resource_id=abc&filters=%7B%22Surname%22%3A%22O%27Brien%22%7D'`,
    );
    assert.match(python!.code, /"filters": "\{\\"Surname\\":\\"O'Brien\\"\}",/);
    assert.match(r!.code, /resource_id = "abc",\n  filters = "\{\\"Surname\\":\\"O'Brien\\"\}"/);
    assert.match(
      js!.code,
      /^const response = await fetch\("http:\/\/x\/api\/3\/action\/datastore_search\?resource_id=abc&filters=/,
    );
  });
});
