// Pure serialisation: CKAN-compatible JSON and repr text, paging links, and the four record formats.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'node:test';
import { pageLinks, parseQueryForLinks } from '../../src/serialize/links.js';
import { asciiJsonString, pyJsonDumps, pythonRepr, pythonStr, RawJson } from '../../src/serialize/python-json.js';
import { delimitedText, delimitedWriter, jsonArray, listWriter, objectWriter } from '../../src/serialize/records.js';

describe('python-json', () => {
  test('simplejson layout: ", " and ": " separators, ASCII-only strings, raw fragments verbatim', () => {
    assert.equal(
      pyJsonDumps({ a: [1, 'Fáil', null, true], b: {}, c: [] }),
      '{"a": [1, "F\\u00e1il", null, true], "b": {}, "c": []}',
    );
    assert.equal(pyJsonDumps({ records: new RawJson('[{"x":"Fáil"}]') }), '{"records": [{"x":"Fáil"}]}');
    assert.equal(pyJsonDumps({ skipped: undefined, kept: 1 }), '{"kept": 1}');
  });

  test('escapes control characters, DEL and astral characters as Python does', () => {
    assert.equal(asciiJsonString('a"b\\c\n\t\u0001\u007f'), '"a\\"b\\\\c\\n\\t\\u0001\\u007f"');
    assert.equal(asciiJsonString('💥'), '"\\ud83d\\udca5"');
  });

  test('repr and str', () => {
    assert.equal(pythonRepr({ id: 'bad', n: [1, 2.5, null, false] }), "{'id': 'bad', 'n': [1, 2.5, None, False]}");
    assert.equal(pythonRepr("it's"), '"it\'s"');
    assert.equal(pythonRepr(['objects', 'lists']), "['objects', 'lists']");
    assert.equal(pythonStr(true), 'True');
    assert.equal(pythonStr(25), '25');
    assert.equal(pythonStr('x'), 'x');
  });
});

describe('_links', () => {
  const path = '/api/3/action/datastore_search';
  // Python's quote_plus, written out: UTF-8 bytes, A-Z a-z 0-9 _ . ~ - kept, space as +, the rest %XX.
  const quotePlus = (text: string) =>
    [...Buffer.from(text, 'utf8')]
      .map((byte) => {
        const ch = String.fromCharCode(byte);
        return /[A-Za-z0-9_.~-]/.test(ch)
          ? ch
          : ch === ' '
            ? '+'
            : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      })
      .join('');
  // However the client encoded them: as JavaScript's encodeURIComponent, as a form (URLSearchParams), as Python
  // itself (written back as they came), or with lower-case and needless escapes.
  const encodings: ((text: string) => string)[] = [
    encodeURIComponent,
    (text) => new URLSearchParams({ x: text }).toString().slice(2),
    quotePlus,
    (text) => [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
  ];

  test('start drops offset; next sets it in place or appends it; values are re-encoded like urlencode', () => {
    assert.deepEqual(pageLinks(path, 'resource_id=R&sort=Votes%20desc&limit=10', 0, 10), {
      start: `${path}?resource_id=R&sort=Votes+desc&limit=10`,
      next: `${path}?resource_id=R&sort=Votes+desc&limit=10&offset=10`,
    });
    assert.deepEqual(pageLinks(path, 'offset=100&resource_id=R', 100, 100), {
      start: `${path}?resource_id=R`,
      next: `${path}?offset=200&resource_id=R`,
    });
  });

  test('prev only when offset − limit > 0; next even past the end', () => {
    assert.equal(pageLinks(path, 'resource_id=R&offset=100', 100, 100).prev, undefined);
    assert.equal(pageLinks(path, 'resource_id=R&offset=1000', 1000, 100).prev, `${path}?resource_id=R&offset=900`);
  });

  test('a body-sourced request links the bare path', () => {
    assert.deepEqual(pageLinks(path, '', 0, 3), { start: path, next: `${path}?offset=3` });
  });

  test("values are encoded byte for byte as Python's quote_plus encodes them", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 30 }),
        fc.string({ maxLength: 10 }),
        fc.constantFrom(...encodings),
        (value, name, encode) => {
          const key = name.replace(/[&=%+]/g, '') || 'k';
          const cleaned = value.replace(/[\ud800-\udfff]/g, '');
          const link = pageLinks(path, `${encode(key)}=${encode(cleaned)}`, 0, 1).start;
          return cleaned === '' ? link === path : link === `${path}?${quotePlus(key)}=${quotePlus(cleaned)}`;
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('several parameters, repeated names, offset anywhere: urlencode(dict(parse_qsl(query))) with offset set', () => {
    const names = ['a', 'b', 'offset', 'q', '%61', 'n%C3%A1'];
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom(...names),
            fc.string({ unit: 'binary', maxLength: 12 }),
            fc.constantFrom(...encodings),
          ),
          { maxLength: 6 },
        ),
        fc.nat(500),
        fc.integer({ min: 1, max: 100 }),
        (params, offset, limit) => {
          const query = params
            .map(([name, value, encode]) => `${name}=${encode(value.replace(/[\ud800-\udfff]/g, ''))}`)
            .join('&');
          const dict = [...parseQueryForLinks(query)];
          const link = (at: number | null) => {
            const pairs = dict.flatMap(([name, value]) =>
              name !== 'offset' ? [`${quotePlus(name)}=${quotePlus(value)}`] : at === null ? [] : [`offset=${at}`],
            );
            if (at !== null && !dict.some(([name]) => name === 'offset')) pairs.push(`offset=${at}`);
            return pairs.length === 0 ? path : `${path}?${pairs.join('&')}`;
          };
          const links = pageLinks(path, query, offset, limit);
          assert.deepEqual(links, {
            start: link(null),
            next: link(offset + limit),
            ...(offset - limit > 0 ? { prev: link(offset - limit) } : {}),
          });
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('blank values dropped; the last of repeated names wins at the first position; + and %2B stay distinct', () => {
    assert.deepEqual(
      [...parseQueryForLinks('a=1&b=&c&a=2&q=x%2By+z')],
      [
        ['a', '2'],
        ['q', 'x+y z'],
      ],
    );
    assert.equal(pageLinks(path, 'q=x%2By', 0, 1).start, `${path}?q=x%2By`);
    assert.equal(
      pageLinks(path, 'q=%7B%22a%22%3A+1%7D&x=%E2%80%99*', 0, 1).start,
      `${path}?q=%7B%22a%22%3A+1%7D&x=%E2%80%99%2A`,
    );
  });
});

describe('record formats', () => {
  const columns = [
    { id: '_id', type: 'int' as const },
    { id: 'Name', type: 'text' as const },
    { id: 'Votes', type: 'numeric' as const },
    { id: 'When', type: 'timestamp' as const },
    { id: 'Ok', type: 'bool' as const },
    { id: 'rank', type: 'float' as const },
  ];
  const rows = [
    [1, 'O\'Neill, "Mary"', 7550, '2020-02-08T00:00:00.5', 1, 0.0573087558150291],
    [2, '', null, null, 0, 0],
    [3, 'Fáil\nline', 1.5e-7, '2020-02-08T10:11:12', null, null],
  ];

  test('objects: compact, UTF-8, numbers without exponent, timestamps to the second, float4 ranks', () => {
    assert.equal(
      jsonArray(objectWriter(columns), rows),
      '[{"_id":1,"Name":"O\'Neill, \\"Mary\\"","Votes":7550,"When":"2020-02-08T00:00:00","Ok":true,"rank":0.057308756},' +
        '{"_id":2,"Name":"","Votes":null,"When":null,"Ok":false,"rank":0},' +
        '{"_id":3,"Name":"Fáil\\nline","Votes":0.00000015,"When":"2020-02-08T10:11:12","Ok":null,"rank":null}]',
    );
  });

  test('lists', () => {
    assert.equal(
      jsonArray(listWriter(columns.slice(0, 3)), rows),
      '[[1,"O\'Neill, \\"Mary\\"",7550],[2,"",null],[3,"Fáil\\nline",0.00000015]]',
    );
  });

  test('csv and tsv: quote only when needed, "" for empty text, nothing for null, t/f booleans', () => {
    assert.equal(
      delimitedText(delimitedWriter(columns, ','), rows),
      '1,"O\'Neill, ""Mary""",7550,2020-02-08T00:00:00,t,0.057308756\n2,"",,,f,0\n3,"Fáil\nline",0.00000015,2020-02-08T10:11:12,,\n',
    );
    assert.equal(
      delimitedText(delimitedWriter(columns.slice(0, 2), '\t'), [
        [1, 'a,b'],
        [2, 'a\tb'],
      ]),
      '1\ta,b\n2\t"a\tb"\n',
    );
  });

  test('no records: [] and ""', () => {
    assert.equal(jsonArray(objectWriter(columns), []), '[]');
    assert.equal(delimitedText(delimitedWriter(columns, ','), []), '');
  });
});
