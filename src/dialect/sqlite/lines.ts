// Whole records as lines of delimited text, rendered by SQLite as COPY writes them (CKAN's CSV and TSV): one string per
// row for the reader instead of one value per field, which is what makes a dump of a large resource fast. The text of
// each type is the serializers' (src/serialize/records.ts): NULL as nothing, t/f, text quoted only where it must be,
// timestamps to the second or the millisecond, numbers with the digits PostgreSQL prints (doubles through
// cc_number_text, which shares the serializers' code).

import type { FieldType } from '../../catalog/types.js';
import { exactColumn } from './ddl.js';
import { SQLITE_FUNCTIONS } from './functions.js';
import { quoteIdent, quoteLiteral } from './quote.js';

/**
 * Whether COPY quotes a text value: empty, or holding the delimiter, a quote or a line break. One GLOB (its pattern a
 * constant) costs a third of four instr calls.
 */
function quotingTest(column: string, delimiter: ',' | '\t'): string {
  return `${column} GLOB ${quoteLiteral(`*[${delimiter}"\n\r]*`)} OR ${column} = ''`;
}

/** A field as a line needs it: its type, and what loading found of its values (see PlanField). */
export interface LineField {
  id: string;
  type: FieldType | 'int';
  nullable?: boolean;
  quoted?: boolean;
}

function valueText(field: LineField, delimiter: ',' | '\t', timestampMilliseconds: boolean): string {
  const c = quoteIdent(field.id);
  // A field with no nulls and no value to quote is its own text (the test for quotes is most of a line's cost).
  if (field.type === 'text' && field.quoted === false) return field.nullable === false ? c : `coalesce(${c}, '')`;
  switch (field.type) {
    case 'int':
    case 'int4':
    case 'int8':
      return `coalesce(CAST(${c} AS TEXT), '')`;
    case 'bool':
      return `CASE ${c} WHEN 1 THEN 't' WHEN 0 THEN 'f' ELSE '' END`;
    case 'timestamp':
      return timestampMilliseconds
        ? `CASE WHEN ${c} IS NULL THEN '' ELSE substr(${c}, 1, 19) || '.' || substr(substr(${c}, 21) || '000', 1, 3) END`
        : `coalesce(substr(${c}, 1, 19), '')`;
    case 'numeric':
      // The exact text where the load kept one; a whole number as SQLite writes it; any other double as PostgreSQL.
      return (
        `coalesce(${quoteIdent(exactColumn(field.id))}, CASE WHEN ${c} IS NULL THEN '' WHEN typeof(${c}) = 'integer' ` +
        `THEN CAST(${c} AS TEXT) ELSE ${SQLITE_FUNCTIONS.numberText}(${c}, 'numeric') END)`
      );
    case 'float8':
      return `CASE WHEN ${c} IS NULL THEN '' ELSE ${SQLITE_FUNCTIONS.numberText}(${c}, 'float8') END`;
    case 'text':
    case 'date':
      return (
        `CASE WHEN ${c} IS NULL THEN '' WHEN ${quotingTest(c, delimiter)} ` +
        `THEN '"' || replace(${c}, '"', '""') || '"' ELSE ${c} END`
      );
  }
}

/** One record's line, its values joined by the delimiter and ended by a line feed. */
export function delimitedLineSql(
  fields: readonly LineField[],
  delimiter: ',' | '\t',
  timestampMilliseconds: boolean,
): string {
  const separator = ` || ${delimiter === ',' ? quoteLiteral(',') : 'char(9)'} || `;
  return `(${fields.map((f) => valueText(f, delimiter, timestampMilliseconds)).join(separator)} || char(10))`;
}
