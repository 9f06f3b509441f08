// Whole records as lines of delimited text, rendered by PostgreSQL as COPY writes them (CKAN's CSV and TSV): one text
// per row for the reader instead of one value per field, which is what makes a dump of a large resource fast. The
// text of each type is the serializers' (src/serialize/records.ts), which is PostgreSQL's own output: NULL as nothing,
// t/f, text quoted only where it must be, timestamps as CKAN's to_char writes them, numbers as PostgreSQL prints them.

import type { FieldType } from '../../catalog/types.js';
import { quoteIdent } from './quote.js';

function valueText(
  field: { id: string; type: FieldType | 'int'; nullable?: boolean; quoted?: boolean },
  delimiter: ',' | '\t',
  timestampMilliseconds: boolean,
): string {
  const c = quoteIdent(field.id);
  // A field with no nulls and no value to quote is its own text.
  if (field.type === 'text' && field.quoted === false) return field.nullable === false ? c : `coalesce(${c}, '')`;
  switch (field.type) {
    case 'bool':
      return `CASE WHEN ${c} THEN 't' WHEN NOT ${c} THEN 'f' ELSE '' END`;
    case 'timestamp':
      return `coalesce(to_char(${c}, 'YYYY-MM-DD"T"HH24:MI:SS${timestampMilliseconds ? '.MS' : ''}'), '')`;
    case 'text': {
      // COPY quotes an empty string (to tell it from NULL) and anything holding the delimiter, a quote or a line break.
      const marks = delimiter === ',' ? '[,"\\r\\n]' : '[\\t"\\r\\n]';
      return (
        `CASE WHEN ${c} IS NULL THEN '' WHEN ${c} = '' OR ${c} ~ E'${marks}' ` +
        `THEN '"' || replace(${c}, '"', '""') || '"' ELSE ${c} END`
      );
    }
    default:
      // Numbers and dates: PostgreSQL's own text of them is what the serializers write.
      return `coalesce(${c}::text, '')`;
  }
}

/** One record's line, its values joined by the delimiter and ended by a line feed. */
export function delimitedLineSql(
  fields: readonly { id: string; type: FieldType | 'int'; nullable?: boolean; quoted?: boolean }[],
  delimiter: ',' | '\t',
  timestampMilliseconds: boolean,
): string {
  const separator = ` || ${delimiter === ',' ? `','` : "E'\\t'"} || `;
  return `(${fields.map((f) => valueText(f, delimiter, timestampMilliseconds)).join(separator)} || E'\\n')`;
}
