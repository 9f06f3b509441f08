// Whole records as lines of delimited text, rendered by SQLite as COPY writes them (CKAN's CSV and TSV): one string per
// row for the reader instead of one value per field, which is what makes a dump of a large resource fast. The text of
// each type is the serializers' (src/serialize/records.ts): NULL as nothing, t/f, text quoted only where it must be,
// timestamps to the second or the millisecond, numbers with the digits PostgreSQL prints (doubles through
// cc_number_text, which shares the serializers' code).

import type { FieldType } from '../../catalog/types.js';
import { exactColumn } from './ddl.js';
import { SQLITE_FUNCTIONS } from './functions.js';
import { quoteIdent, quoteLiteral } from './quote.js';

/** The characters that make COPY quote a text value, by delimiter. */
function quotingTest(column: string, delimiter: ',' | '\t'): string {
  const marks = [delimiter === ',' ? "','" : 'char(9)', `'"'`, 'char(10)', 'char(13)'];
  return [`${column} = ''`, ...marks.map((m) => `instr(${column}, ${m}) > 0`)].join(' OR ');
}

function valueText(
  field: { id: string; type: FieldType | 'int' },
  delimiter: ',' | '\t',
  timestampMilliseconds: boolean,
): string {
  const c = quoteIdent(field.id);
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
  fields: readonly { id: string; type: FieldType | 'int' }[],
  delimiter: ',' | '\t',
  timestampMilliseconds: boolean,
): string {
  const separator = ` || ${delimiter === ',' ? quoteLiteral(',') : 'char(9)'} || `;
  return `(${fields.map((f) => valueText(f, delimiter, timestampMilliseconds)).join(separator)} || char(10))`;
}
