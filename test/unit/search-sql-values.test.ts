// The value machinery of datastore_search_sql on the embedded store: exact decimal arithmetic with
// PostgreSQL's scales (expected digits taken from PostgreSQL 15), text input and output of each type, the
// order-preserving numeric keys, LIKE matching, CKAN's rendering of result cells, and the runtime functions
// and aggregates on a SQLite connection (window frames, exactness beyond 2^53, PostgreSQL's errors).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { toApiError } from '../../src/errors.js';
import { RawJson } from '../../src/serialize/python-json.js';
import {
  compareText,
  floatToInt,
  roundTimestamp,
  textToBool,
  textToDate,
  textToDecimal,
  textToInt,
  textToTimestamp,
  timestampIsoformat,
  toDecimal,
} from '../../src/sql/user-sql/conversions.js';
import * as D from '../../src/sql/user-sql/decimal.js';
import { registerSqliteRuntime, renderSqlValue } from '../../src/sql/user-sql/index.js';
import { globPattern, likeMatch, parseLike } from '../../src/sql/user-sql/like.js';
import { numericKey } from '../../src/sql/user-sql/runtime.js';

const dec = (text: string) => D.parseDecimal(text)!;
const txt = (d: D.Decimal) => D.decimalText(d);

function sqlMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (thrown) {
    const err = toApiError(thrown, () => assert.fail(String(thrown)));
    return (err.validation?.['query'] as string[])[0]!;
  }
  assert.fail('no error');
}

describe("decimal arithmetic with PostgreSQL's scales", () => {
  test('input keeps the scale written; output writes every digit of it', () => {
    assert.equal(txt(dec('1.50')), '1.50');
    assert.equal(txt(dec(' -0.0 ')), '0.0');
    assert.equal(txt(dec('1e3')), '1000');
    assert.equal(txt(dec('1.5e-3')), '0.0015');
    assert.equal(txt(dec('.5')), '0.5');
    assert.equal(D.parseDecimal('1.2.3'), null);
    assert.equal(D.parseDecimal('NaN'), null);
  });

  test('sums keep the larger scale, products add scales', () => {
    assert.equal(txt(D.add(dec('1.50'), dec('2'))), '3.50');
    assert.equal(txt(D.sub(dec('0.3'), dec('0.1'))), '0.2');
    assert.equal(txt(D.mul(dec('1.50'), dec('2.5'))), '3.750');
    assert.equal(txt(D.mul(dec('-0.5'), dec('2'))), '-1.0');
  });

  test('quotients get at least 16 significant digits, as select_div_scale chooses', () => {
    // Expected values from PostgreSQL 15.
    const cases: [string, string, string][] = [
      ['1', '3', '0.33333333333333333333'],
      ['1.0', '3', '0.33333333333333333333'],
      ['10', '3.0', '3.3333333333333333'],
      ['100000', '3', '33333.333333333333'],
      ['0.001', '3', '0.00033333333333333333'],
      ['2183489', '531', '4112.0320150659133710'],
      ['7', '2', '3.5000000000000000'],
      ['10.00', '3', '3.3333333333333333'],
      ['1', '7.0', '0.14285714285714285714'],
      ['22', '7.0', '3.1428571428571429'],
      ['123456789012345678901234567890.123456789', '7', '17636684144620811271604938270.017636684'],
      ['-1', '3', '-0.33333333333333333333'],
      ['2', '-3', '-0.66666666666666666667'],
    ];
    for (const [a, b, q] of cases) assert.equal(txt(D.div(dec(a), dec(b))), q, `${a} / ${b}`);
    assert.equal(
      sqlMessage(() => D.div(dec('1'), dec('0.0'))),
      'division by zero',
    );
  });

  test('rounding is half away from zero; trunc, ceil, floor and mod as PostgreSQL', () => {
    assert.equal(txt(D.round(dec('2.5'), 0)), '3');
    assert.equal(txt(D.round(dec('-2.5'), 0)), '-3');
    assert.equal(txt(D.round(dec('2.345'), 2)), '2.35');
    assert.equal(txt(D.round(dec('-2.345'), 2)), '-2.35');
    assert.equal(txt(D.round(dec('1234.5'), -2)), '1200');
    assert.equal(txt(D.round(dec('1.5'), 3)), '1.500');
    assert.equal(txt(D.trunc(dec('-1.999'), 0)), '-1');
    assert.equal(txt(D.trunc(dec('1.999'), 2)), '1.99');
    assert.equal(txt(D.ceil(dec('-0.1'))), '0');
    assert.equal(txt(D.floor(dec('-0.1'))), '-1');
    assert.equal(txt(D.mod(dec('7.5'), dec('2'))), '1.5');
    assert.equal(txt(D.mod(dec('-7.5'), dec('2'))), '-1.5');
    assert.equal(txt(D.applyTypmod(dec('12.345'), 5, 2)), '12.35');
    assert.equal(
      sqlMessage(() => D.applyTypmod(dec('123.45'), 4, 2)),
      'numeric field overflow',
    );
    assert.equal(D.roundToInteger(dec('-2.5')), -3n);
  });

  test('floats become numeric through 15 significant digits, as float8 → numeric does', () => {
    assert.equal(txt(D.fromFloat(0.1)), '0.1');
    assert.equal(txt(D.fromFloat(1 / 3)), '0.333333333333333');
    assert.equal(txt(D.fromFloat(1e20)), '100000000000000000000');
    assert.equal(txt(D.fromFloat(2)), '2');
  });

  test("CKAN renders numeric as Python's str(Decimal)", () => {
    const cases: [string, string][] = [
      ['268392', '268392'],
      ['0.000001', '0.000001'],
      ['0.0000001', '1E-7'],
      ['0.00000012', '1.2E-7'],
      ['0.000000', '0.000000'],
      ['0.0000000', '0E-7'],
      ['-0.00000012', '-1.2E-7'],
      ['1.50', '1.50'],
      ['0.0000000000000000000000000000000000000001', '1E-40'],
    ];
    for (const [pg, py] of cases) assert.equal(D.pythonDecimalStr(dec(pg)), py, pg);
  });

  test('numeric keys sort exactly as the values do', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const values: D.Decimal[] = [
      dec('0'),
      dec('0.000'),
      dec('-1'),
      dec('-1.5'),
      dec('1'),
      dec('1.50'),
      dec('10'),
      dec('-10'),
    ];
    for (let i = 0; i < 500; i++) {
      const digits = String(Math.floor(random() * 1e9));
      const scale = Math.floor(random() * 12);
      values.push(D.dec(BigInt(digits) * (random() < 0.5 ? -1n : 1n), scale));
    }
    const byValue = [...values].sort(D.compare).map(txt);
    const byKey = [...values]
      .sort((a, b) => (numericKey(a) < numericKey(b) ? -1 : numericKey(a) > numericKey(b) ? 1 : 0))
      .map(txt);
    for (let i = 0; i < values.length; i++)
      assert.equal(D.compare(dec(byKey[i]!), dec(byValue[i]!)), 0, `${byKey[i]} vs ${byValue[i]}`);
    assert.equal(numericKey(dec('1.0')), numericKey(dec('1.00')), 'equal values have equal keys, whatever the scale');
  });
});

describe('text input and output of each type', () => {
  test('integers', () => {
    assert.equal(textToInt(' 12 ', 32), 12n);
    assert.equal(
      sqlMessage(() => textToInt('1.5', 32)),
      'invalid input syntax for type integer: "1.5"',
    );
    assert.equal(
      sqlMessage(() => textToInt('99999999999', 32)),
      'value "99999999999" is out of range for type integer',
    );
    assert.equal(
      sqlMessage(() => textToInt('x', 64)),
      'invalid input syntax for type bigint: "x"',
    );
    assert.equal(floatToInt(2.5, 32), 2n, 'float to integer rounds half to even');
    assert.equal(floatToInt(3.5, 32), 4n);
    assert.equal(
      sqlMessage(() => floatToInt(3e9, 32)),
      'integer out of range',
    );
  });

  test('numeric and boolean', () => {
    assert.equal(txt(textToDecimal(' 1.50 ')), '1.50');
    assert.equal(
      sqlMessage(() => textToDecimal('abc')),
      'invalid input syntax for type numeric: "abc"',
    );
    assert.equal(textToBool('TR'), true);
    assert.equal(textToBool(' off '), false);
    assert.equal(
      sqlMessage(() => textToBool('o')),
      'invalid input syntax for type boolean: "o"',
    );
  });

  test('dates and timestamps: ISO input, carried days, rounded fractions', () => {
    assert.equal(textToTimestamp('2020-02-08'), '2020-02-08T00:00:00');
    assert.equal(textToTimestamp('2020-02-08 10:30'), '2020-02-08T10:30:00');
    assert.equal(textToTimestamp('2020-02-08T10:30:05.1234567'), '2020-02-08T10:30:05.123457');
    assert.equal(textToTimestamp('2020-02-28 24:00:00'), '2020-02-29T00:00:00');
    // Years 1 to 99 are those years, not 1901 to 1999.
    assert.equal(textToTimestamp('0050-03-01 10:00'), '0050-03-01T10:00:00');
    assert.equal(textToTimestamp('0096-02-28 24:00:00'), '0096-02-29T00:00:00');
    assert.equal(textToDate('20200208'), '2020-02-08');
    assert.equal(
      sqlMessage(() => textToDate('2021-02-29')),
      'date/time field value out of range: "2021-02-29"',
    );
    assert.equal(
      sqlMessage(() => textToDate('soon')),
      'invalid input syntax for type date: "soon"',
    );
    assert.match(
      sqlMessage(() => textToDate('8 Feb 2020')),
      /the embedded store reads ISO dates/,
    );
    assert.equal(roundTimestamp('2020-02-08T23:59:59.5', 0), '2020-02-09T00:00:00');
    assert.equal(timestampIsoformat('2020-02-08T10:00:00.25'), '2020-02-08T10:00:00.250000');
    assert.equal(timestampIsoformat('2020-02-08T10:00:00'), '2020-02-08T10:00:00');
  });

  test('text compares by code point, beyond the BMP too', () => {
    assert.ok(compareText('B', 'a') < 0);
    assert.ok(compareText('\uffff', '\u{1f600}') < 0, "U+FFFF sorts before U+1F600 (JavaScript's < says otherwise)");
    assert.equal(compareText('é', 'é'), 0);
  });
});

describe('LIKE patterns', () => {
  test("parsed with PostgreSQL's escape rules", () => {
    assert.deepEqual(parseLike('a%%b_\\%', '\\'), [
      { kind: 'text', text: 'a' },
      { kind: 'any' },
      { kind: 'text', text: 'b' },
      { kind: 'one' },
      { kind: 'text', text: '%' },
    ]);
    assert.equal(
      sqlMessage(() => parseLike('abc\\', '\\')),
      'LIKE pattern must not end with escape character',
    );
    assert.equal(
      sqlMessage(() => parseLike('a', 'xy')),
      'invalid escape string',
    );
    assert.deepEqual(parseLike('a\\b', ''), [{ kind: 'text', text: 'a\\b' }], 'an empty escape turns escaping off');
  });

  test("written as GLOB patterns with GLOB's own metacharacters bracketed", () => {
    assert.equal(globPattern(parseLike('a*b?c[d]%_', '\\')), 'a[*]b[?]c[[]d]*?');
  });

  test('matched by code point without exponential backtracking', () => {
    const m = (text: string, pattern: string) => likeMatch(parseLike(pattern, '\\'), text);
    assert.equal(m('Ábc', '_bc'), true);
    assert.equal(m('😀x', '_x'), true);
    assert.equal(m('abc', 'a%c'), true);
    assert.equal(m('abc', 'a%b'), false);
    assert.equal(m('', '%'), true);
    assert.equal(m('a%c', 'a\\%c'), true);
    const start = performance.now();
    assert.equal(m('a'.repeat(5000), '%a'.repeat(40) + 'b'), false);
    // Exponential backtracking would take longer than the universe's age; a busy machine takes tens of milliseconds.
    assert.ok(performance.now() - start < 5000);
  });
});

describe("rendering of result cells, as CKAN's convert() writes them", () => {
  test('each type', () => {
    // numeric: a JSON number with str(Decimal)'s digits, written as they are (CKAN 2.11+; 2.10 sent the text as a
    // string).
    const numeric = (v: unknown) => {
      const rendered = renderSqlValue(v, 'numeric');
      assert.ok(rendered instanceof RawJson, 'numeric is written as raw JSON number text');
      return rendered.text;
    };
    assert.equal(renderSqlValue(null, 'numeric'), null);
    assert.equal(numeric(268392), '268392');
    assert.equal(numeric(1.5), '1.5');
    assert.equal(numeric('4112.0320150659133710'), '4112.0320150659133710');
    assert.equal(numeric('0.0000001'), '1E-7');
    assert.equal(JSON.parse(numeric('0.0000001')), 1e-7, 'valid JSON');
    assert.equal(renderSqlValue(130, 'int8'), 130);
    assert.equal(renderSqlValue(1, 'bool'), true);
    assert.equal(renderSqlValue(0, 'bool'), false);
    assert.equal(renderSqlValue('2020-02-08T00:00:00', 'timestamp'), '2020-02-08T00:00:00');
    assert.equal(renderSqlValue('2020-02-08', 'date'), '2020-02-08');
    assert.equal(renderSqlValue("'a':1", 'tsvector'), "'a':1");
    assert.equal(renderSqlValue('x', 'text'), 'x');
  });

  test('floats as Python\'s repr: a whole number keeps ".0", large and small ones switch to exponents', () => {
    assert.equal(renderSqlValue(4112.032015065914, 'float8'), 4112.032015065914);
    const raw = (v: unknown) => (v instanceof RawJson ? v.text : v);
    assert.equal(raw(renderSqlValue(2, 'float8')), '2.0');
    assert.equal(raw(renderSqlValue(1e16, 'float8')), '1e+16');
    assert.equal(raw(renderSqlValue(1.5e-5, 'float8')), '1.5e-05');
    assert.equal(raw(renderSqlValue(1e21, 'float8')), 1e21);
    assert.equal(renderSqlValue(Math.fround(0.1), 'float4'), 0.1, 'float4 through its shortest text');
  });
});

describe('runtime functions on a SQLite connection', () => {
  const db = new Database(':memory:');
  registerSqliteRuntime(db);
  const one = (sql: string) => (db.prepare(sql).raw(true).get() as unknown[])[0];
  const error = (sql: string) => sqlMessage(() => db.prepare(sql).all());

  test('numeric arithmetic stays exact beyond 2^53', () => {
    assert.equal(one('SELECT cc_num_add(9223372036854775807, 1)'), '9223372036854775808');
    assert.equal(one('SELECT cc_num_mul(123456789, 987654321)'), '121932631112635269');
    assert.equal(one("SELECT cc_num_div(1, '3.0')"), '0.33333333333333333333');
    assert.equal(one('SELECT cc_num_cmp(9007199254740993, 9007199254740992)'), 1);
    assert.equal(error('SELECT cc_num_div(1, 0)'), 'division by zero');
  });

  test("integer operations raise PostgreSQL's errors", () => {
    assert.equal(error('SELECT cc_int_check(2147483648, 32)'), 'integer out of range');
    assert.equal(error('SELECT cc_int_check(9223372036854775807 + 1, 64)'), 'bigint out of range');
    assert.equal(error('SELECT cc_int_div(1, 0, 32)'), 'division by zero');
    assert.equal(one('SELECT cc_int_div(-7, 2, 32)'), -3);
    assert.equal(one('SELECT cc_int_mod(-7, 3)'), -1);
  });

  test("sum and avg are exact, with PostgreSQL's scale, also over moving window frames", () => {
    db.exec(
      "CREATE TABLE v (i INTEGER, x); INSERT INTO v VALUES (1, '1.5'), (2, 2.25), (3, 3), (4, '0.125'), (5, NULL)",
    );
    assert.deepEqual(
      db.prepare('SELECT cc_num_sum(x), cc_num_avg(x), cc_num_min(x), cc_num_max(x) FROM v').raw(true).get(),
      ['6.875', '1.7187500000000000', '0.125', 3],
    );
    const moving = db
      .prepare(
        'SELECT i, cc_num_sum(x) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), ' +
          'cc_num_max(x) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM v ORDER BY i',
      )
      .raw(true)
      .all();
    assert.deepEqual(moving, [
      [1, '1.5', '1.5'],
      [2, '3.75', 2.25],
      [3, '5.25', 3],
      [4, '3.125', 3],
      [5, '0.125', '0.125'],
    ]);
    assert.equal(one('SELECT cc_num_sum(x) FROM v WHERE false'), null);
  });

  test('floats are summed in row order without compensation, as PostgreSQL does', () => {
    db.exec('CREATE TABLE f (x REAL); INSERT INTO f VALUES (0.1), (0.2), (0.3)');
    assert.equal(one('SELECT cc_float_sum(x) FROM f'), 0.1 + 0.2 + 0.3);
  });

  test("a scalar subquery of more than one row is PostgreSQL's error", () => {
    assert.equal(
      error('SELECT (SELECT cc_scalar(x) FROM (SELECT 1 AS x UNION ALL SELECT 2))'),
      'more than one row returned by a subquery used as an expression',
    );
    assert.equal(one('SELECT (SELECT cc_scalar(x) FROM (SELECT 1 AS x WHERE 0))'), null);
  });

  test('text functions by code point, upper/lower beyond ASCII, LIKE at run time', () => {
    assert.equal(one("SELECT cc_upper('fianna fáil ß')"), 'FIANNA FÁIL ß');
    assert.equal(one("SELECT cc_lower('ÉIRE')"), 'éire');
    assert.equal(one("SELECT cc_substr('h😀llo', 2, 2)"), '😀l');
    assert.equal(one("SELECT cc_substr('hello', -1, 4)"), 'he');
    assert.equal(error("SELECT cc_substr('hello', 1, -1)"), 'negative substring length not allowed');
    assert.equal(one("SELECT cc_left('hello', -2)"), 'hel');
    assert.equal(one("SELECT cc_right('hello', -2)"), 'llo');
    assert.equal(one("SELECT cc_like('Ábc', 'á%', '\\', 1)"), 1);
    assert.equal(one("SELECT cc_like('Ábc', 'á%', '\\', 0)"), 0);
    assert.equal(one("SELECT cc_bpchar('ab', 4)"), 'ab  ');
  });

  test('casts from text at run time', () => {
    assert.equal(one("SELECT cc_text_to_num(' 1.50 ')"), '1.50');
    assert.equal(one("SELECT cc_text_to_int('42', 32)"), 42);
    assert.equal(error("SELECT cc_text_to_int('4x', 32)"), 'invalid input syntax for type integer: "4x"');
    assert.equal(one("SELECT cc_text_to_timestamp('2020-02-08 10:00')"), '2020-02-08T10:00:00');
    assert.equal(one('SELECT cc_float_text(1e16, 64)'), '1e+16');
    assert.equal(one('SELECT cc_num_text(1.5)'), '1.5');
    assert.equal(one('SELECT cc_num_to_int(2.5, 32)'), 3);
    assert.equal(one('SELECT cc_float_to_num(0.1, 64)'), '0.1');
    assert.equal(one("SELECT cc_greatest('n', '1.50', 2, NULL)"), 2);
    assert.equal(one("SELECT cc_least('t', 'b', 'a', NULL)"), 'a');
  });

  test('stored doubles are read as their shortest decimal', () => {
    assert.equal(D.decimalText(toDecimal(0.1)), '0.1');
    assert.equal(D.decimalText(toDecimal(1e-7)), '0.0000001');
    assert.equal(D.decimalText(toDecimal(9007199254740993n)), '9007199254740993');
  });
});
