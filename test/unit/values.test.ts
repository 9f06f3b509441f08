// Parsing source cells and filter values into stored values, and printing numbers as PostgreSQL does.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { numberText, parseCell, parseDate, parseNumber, parseTimestamp, ValueError } from '../../src/catalog/values.js';
import type { FieldDefinition, FieldType } from '../../src/catalog/types.js';
import { typedValue } from '../../src/ingest/table.js';

describe('values', () => {
  test('numbers: signs, decimals, exponents, surrounding spaces; anything else is an error', () => {
    assert.equal(parseNumber(' -12.50 '), -12.5);
    assert.equal(parseNumber('1e3'), 1000);
    assert.equal(parseNumber('.5'), 0.5);
    for (const bad of ['', 'abc', '1,000', 'NaN', 'Infinity', '0x10', '1e999'])
      assert.throws(() => parseNumber(bad), ValueError, bad);
  });

  test('numeric cells: PostgreSQL numeric text, every digit and the scale kept', () => {
    const cases: [string, string][] = [
      ['12.50', '12.50'],
      [' -32782.20 ', '-32782.20'],
      ['+1.0', '1.0'],
      ['.5', '0.5'],
      ['007', '7'],
      ['0.000', '0.000'],
      ['-0.00', '0.00'],
      ['1e-7', '0.0000001'],
      ['1.5E-7', '0.00000015'],
      ['1.50E2', '150'],
      ['1.505e2', '150.5'],
      ['1e3', '1000'],
      ['123456789012345678901234567890.123', '123456789012345678901234567890.123'],
      ['5.', '5'],
    ];
    for (const [cell, text] of cases) assert.equal(parseCell(cell, 'numeric', 'ISO'), text, cell);
    assert.equal(parseCell('1.234,50', 'numeric', '1.234,5'), '1234.50');
    for (const bad of ['abc', '1,000', 'NaN', 'Infinity', '1e999', '1e-1001', '.'])
      assert.throws(() => parseCell(bad, 'numeric', 'ISO'), ValueError, bad);
    assert.equal(numberText('12.50', 'numeric'), '12.50', "a numeric's text prints as it is");
  });

  test('timestamps and dates in ISO and day-first forms, validated against the calendar', () => {
    assert.equal(parseTimestamp('08/02/2020', 'DD/MM/YYYY'), '2020-02-08T00:00:00');
    assert.equal(parseTimestamp('02/08/2020', 'MM/DD/YYYY'), '2020-02-08T00:00:00');
    assert.equal(parseTimestamp('2020-02-08T00:00:00.000Z', 'ISO'), '2020-02-08T00:00:00');
    assert.equal(parseTimestamp('2020-02-08 13:45', 'ISO'), '2020-02-08T13:45:00');
    assert.equal(parseTimestamp('2020-02-08T13:45:01.250', 'ISO'), '2020-02-08T13:45:01.25');
    assert.equal(parseDate('2020-02-29', 'ISO'), '2020-02-29');
    for (const [text, format] of [
      ['2019-02-29', 'ISO'],
      ['31/04/2020', 'DD/MM/YYYY'],
      ['2020-13-01', 'ISO'],
      ['08/02/20', 'DD/MM/YYYY'],
      ['2020-02-08T25:00', 'ISO'],
    ] as const) {
      assert.throws(() => parseTimestamp(text, format), ValueError, text);
    }
    assert.throws(() => parseDate('2020-02-08T10:00', 'ISO'), ValueError);
  });

  test('years 1 to 99 are those years, as PostgreSQL reads them; there is no year 0', () => {
    assert.equal(parseDate('0050-03-01', 'ISO'), '0050-03-01');
    assert.equal(parseTimestamp('0001-01-01 00:00:00', 'ISO'), '0001-01-01T00:00:00');
    assert.equal(parseDate('29.02.0096', 'DD/MM/YYYY'), '0096-02-29');
    for (const text of ['0000-01-01', '0097-02-29', '0050-13-01'])
      assert.throws(() => parseDate(text, 'ISO'), ValueError, text);
  });

  test("dates as PostgreSQL's date input reads them too: year first with slashes or dots, month names, dots and hyphens", () => {
    for (const text of [
      '2020/02/08',
      '2020.02.08',
      '08-Feb-2020',
      '8-FEB-2020',
      '8 February 2020',
      'Feb 8, 2020',
      'february 8 2020',
    ])
      assert.equal(parseDate(text, 'ISO'), '2020-02-08', text);
    assert.equal(parseDate('08.02.2020', 'DD/MM/YYYY'), '2020-02-08');
    assert.equal(parseDate('08-02-2020', 'DD/MM/YYYY'), '2020-02-08');
    assert.equal(parseDate('02.08.2020', 'MM/DD/YYYY'), '2020-02-08');
    assert.equal(parseTimestamp('08.02.2020 13:45', 'DD/MM/YYYY'), '2020-02-08T13:45:00');
    assert.equal(parseTimestamp('Sept 30, 2020', 'ISO'), '2020-09-30T00:00:00');
    for (const [text, format] of [
      ['30-Feb-2020', 'ISO'],
      ['2020/13/01', 'ISO'],
      ['8 Febuary 2020', 'ISO'],
      ['08/02.2020', 'DD/MM/YYYY'],
      ['2020/02-08', 'ISO'],
      ['08-Feb-20', 'ISO'],
    ] as const) {
      assert.throws(() => parseDate(text, format), ValueError, text);
    }
  });

  test('cells: empty text stays "", other empty cells are null', () => {
    assert.equal(parseCell('', 'text', 'ISO'), '');
    assert.equal(parseCell(' ', 'numeric', 'ISO'), null);
    assert.equal(parseCell('true', 'bool', 'ISO'), true);
    assert.equal(parseCell('42', 'int4', 'ISO'), 42);
    assert.throws(() => parseCell('3000000000', 'int4', 'ISO'), ValueError);
    assert.throws(() => parseCell('4.5', 'int8', 'ISO'), ValueError);
  });

  test('numbers print without exponent (numeric) or in PostgreSQL float8 form', () => {
    assert.equal(numberText(7550, 'numeric'), '7550');
    assert.equal(numberText(1e21, 'numeric'), '1000000000000000000000');
    assert.equal(numberText(1.5e-7, 'numeric'), '0.00000015');
    assert.equal(numberText(-2.5e-3, 'numeric'), '-0.0025');
    assert.equal(numberText(1e15, 'float8'), '1e+15');
    assert.equal(numberText(123456789012345, 'float8'), '123456789012345');
    assert.equal(numberText(1e-5, 'float8'), '1e-05');
    assert.equal(numberText(0.0001, 'float8'), '0.0001');
  });
});

describe('float8 text', () => {
  /**
   * PostgreSQL's float8 output, worked out from the exponent of the digits every time: JavaScript's shortest digits,
   * except where they fall exactly halfway to the next double (then PostgreSQL's are longer; see the next test).
   */
  function byExponent(value: number): string {
    if (value === 0) return Object.is(value, -0) ? '-0' : '0';
    const shown = numberText(value, 'float8');
    const [mantissa, exp] = (shown.includes('e') ? Number(shown) : value).toExponential().split('e') as [
      string,
      string,
    ];
    const digits = shown.includes('e') ? shown.split('e')[0]! : mantissa;
    const exponent = Number(exp);
    if (exponent < -4 || exponent >= 15)
      return `${digits}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
    return numberText(value, 'numeric');
  }

  test("digits halfway to the next double are not PostgreSQL's: it prints the shortest closer ones", () => {
    // As PostgreSQL 15 prints them (SELECT x::float8::text).
    assert.equal(numberText(19281542198048432, 'float8'), '1.9281542198048432e+16');
    assert.equal(numberText(1e23, 'float8'), '9.999999999999999e+22');
    assert.equal(numberText(-1e23, 'float8'), '-9.999999999999999e+22');
    assert.equal(numberText(123456789012345680000, 'float8'), '1.2345678901234568e+20');
    assert.equal(numberText(9007199254740992, 'float8'), '9.007199254740992e+15');
    assert.equal(numberText(1.5e300, 'float8'), '1.5e+300');
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = numberText(value, 'float8');
        assert.ok(Object.is(Number(text), value) || (value === 0 && Number(text) === 0), text);
      }),
      { numRuns: 20_000, seed: 4 },
    );
  });

  test('the range check agrees with the exponent of the shortest digits, at the bounds and anywhere', () => {
    const bounds = [1e-4, 1e15].flatMap((b) => [b, -b, b * (1 + Number.EPSILON), b * (1 - Number.EPSILON / 2)]);
    for (const value of [...bounds, 0, -0, 5e-324, Number.MAX_VALUE, 123.456, 0.1 + 0.2])
      assert.equal(numberText(value, 'float8'), byExponent(value), String(value));
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        assert.equal(numberText(value, 'float8'), byExponent(value));
      }),
      { numRuns: 50_000, seed: 2020 },
    );
    assert.equal(numberText(1e15, 'float8'), '1e+15');
    assert.equal(numberText(999999999999999.9, 'float8'), '999999999999999.9');
    assert.equal(numberText(0.0001, 'float8'), '0.0001');
    assert.equal(numberText(0.00009999999999999999, 'float8'), '9.999999999999999e-05');
    // PostgreSQL's words for the values that are not numbers (they once came out as "NaNe+NaN").
    assert.deepEqual(
      [NaN, Infinity, -Infinity].map((v) => numberText(v, 'float8')),
      ['NaN', 'Infinity', '-Infinity'],
    );
  });
});

describe('dates from Parquet and Excel (Date values)', () => {
  const field = (type: FieldType): FieldDefinition => ({ id: 'd', type, column: 'd', format: 'ISO', index: false });

  test('a midnight is its day, in a date or a text field, for any day JavaScript can hold', () => {
    const day = fc.integer({ min: -100_000_000, max: 100_000_000 });
    fc.assert(
      fc.property(day, (d) => {
        const iso = new Date(d * 86_400_000).toISOString();
        for (const type of ['date', 'text'] as const)
          assert.equal(typedValue(new Date(d * 86_400_000), field(type)), iso.slice(0, 10));
        // Again, now that the day is kept.
        assert.equal(typedValue(new Date(d * 86_400_000), field('date')), iso.slice(0, 10));
      }),
      { numRuns: 20_000 },
    );
    assert.equal(typedValue(new Date(Date.UTC(2020, 1, 29)), field('date')), '2020-02-29');
  });

  test('a time of day is a timestamp, and not a date', () => {
    const at = new Date(Date.UTC(2020, 1, 8, 13, 5, 9, 250));
    assert.equal(typedValue(at, field('timestamp')), '2020-02-08T13:05:09.25');
    assert.equal(typedValue(at, field('text')), '2020-02-08T13:05:09.25');
    assert.throws(() => typedValue(at, field('date')), ValueError);
    assert.equal(typedValue(new Date(Date.UTC(2020, 1, 8)), field('timestamp')), '2020-02-08T00:00:00');
    assert.throws(() => typedValue(new Date(Number.NaN), field('date')), ValueError);
  });

  test('a moment is the timestamp toISOString writes, cut after the seconds or the last digit of its milliseconds', () => {
    const expected = (ms: number): string => {
      const iso = new Date(ms).toISOString();
      return iso.slice(0, 19) + (iso.slice(19, 23) === '.000' ? '' : iso.slice(19, 23).replace(/0+$/, ''));
    };
    // Milliseconds from year 0 to 9999, and whole minutes (as most files hold them), both sides of 1970.
    const moment = fc.oneof(
      fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }),
      fc.integer({ min: -1_000_000, max: 5_000_000 }).map((minute) => minute * 60_000),
    );
    fc.assert(
      fc.property(moment, (ms) => {
        assert.equal(typedValue(new Date(ms), field('timestamp')), expected(ms));
      }),
      { numRuns: 20_000 },
    );
    assert.equal(typedValue(new Date(-1), field('timestamp')), '1969-12-31T23:59:59.999');
    assert.equal(typedValue(new Date(Date.UTC(2001, 0, 1, 0, 1)), field('timestamp')), '2001-01-01T00:01:00');
  });
});

describe('whole numbers from Parquet and JSON (numbers and bigints)', () => {
  const field = (type: FieldType): FieldDefinition => ({ id: 'n', type, column: 'n', format: 'ISO', index: false });

  test('an integer field takes a whole number within its range, as the number it is', () => {
    for (const [value, type, stored] of [
      [33, 'int4', 33],
      [33n, 'int8', 33],
      [-0, 'int4', 0],
      [2147483647, 'int4', 2147483647],
      [-2147483648n, 'int4', -2147483648],
      [9007199254740991n, 'int8', 9007199254740991],
      [-9007199254740991, 'int8', -9007199254740991],
    ] as const) {
      const typed = typedValue(value, field(type));
      assert.equal(typed, stored);
      assert.ok(!Object.is(typed, -0));
    }
  });

  test('a number that is not whole, or beyond the field, is refused as its text is', () => {
    assert.throws(() => typedValue(1.5, field('int4')), { message: '"1.5" is not a whole number' });
    assert.throws(() => typedValue(2147483648, field('int4')), { message: '"2147483648" is out of range for int4' });
    assert.throws(() => typedValue(2147483648n, field('int4')), { message: '"2147483648" is out of range for int4' });
    assert.throws(() => typedValue(9007199254740992n, field('int8')), {
      message: '9007199254740992 is beyond what is held exactly (2^53)',
    });
    assert.throws(() => typedValue(1e21, field('int8')), ValueError);
  });
});
