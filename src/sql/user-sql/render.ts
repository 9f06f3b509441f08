// Result cells as CKAN's datastore_search_sql renders them: psycopg2 reads PostgreSQL's value, CKAN's
// convert() turns it into JSON (numbers stay numbers, timestamps isoformat()). A numeric is a Decimal, which CKAN
// 2.11 and later keep, and simplejson writes as a JSON number with str(Decimal)'s digits (2.10 sent that text as a
// JSON string).

import { pythonFloatText, RawJson } from '../../serialize/python-json.js';
import { floatText, timestampIsoformat, toDecimal } from './conversions.js';
import { pythonDecimalStr } from './decimal.js';

/**
 * Python's repr() of a float, which simplejson writes: shortest round-trip digits like JavaScript, but a whole
 * number keeps ".0" and the exponent form starts at 1e16 ("1e+16"). Returned as a RawJson fragment only where
 * the text differs from what JavaScript would write for the same number.
 */
function pythonFloat(value: number): number | RawJson {
  const text = pythonFloatText(value);
  return text === String(value) ? value : new RawJson(text);
}

export function renderValue(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'int2':
    case 'int4':
    case 'int8':
      return typeof value === 'bigint' ? value : Number(value);
    case 'numeric':
      // Exact, however many digits: the number's text is written as it is, never through a double.
      return new RawJson(pythonDecimalStr(toDecimal(value)));
    case 'float8':
      return pythonFloat(Number(value));
    case 'float4':
      // psycopg2 parses PostgreSQL's float4 text (shortest float4 digits) into a Python float.
      return pythonFloat(Number(floatText(Number(value), 32)));
    case 'bool':
      return Number(value) !== 0;
    case 'timestamp':
      return timestampIsoformat(String(value));
    default:
      // text, varchar, bpchar, date, tsvector, tsquery: str() of what psycopg2 returned.
      return typeof value === 'string' ? value : String(value);
  }
}
