// Whole records as one text each, rendered by PostgreSQL: lines of delimited text as COPY writes them (CKAN's CSV and
// TSV) and compact JSON objects or lists as the API writes them. One text per row for the reader instead of one value
// per field is what makes a dump of a large resource, and a page never asked for before, fast. The text of each type
// is the serializers' (src/serialize/records.ts), which is PostgreSQL's own output: NULL as nothing (or null), t/f
// (true/false), text quoted only where it must be (JSON text by to_json, which escapes as JSON.stringify does),
// timestamps as CKAN's to_char writes them, numbers as PostgreSQL prints them.

import type { FieldType } from '../../catalog/types.js';
import { quoteIdent, quoteLiteral } from './quote.js';

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

/** A value as the JSON of a record writes it (see the serializers' JSON format). */
function jsonValue(field: { id: string; type: FieldType | 'int' }, timestampMilliseconds: boolean): string {
  const c = quoteIdent(field.id);
  switch (field.type) {
    case 'bool':
      return `CASE WHEN ${c} THEN 'true' WHEN NOT ${c} THEN 'false' ELSE 'null' END`;
    case 'timestamp':
      return `coalesce('"' || to_char(${c}, 'YYYY-MM-DD"T"HH24:MI:SS${timestampMilliseconds ? '.MS' : ''}') || '"', 'null')`;
    case 'text':
      return `coalesce(to_json(${c})::text, 'null')`;
    case 'date':
      // ISO dates (the connection's DateStyle) hold nothing JSON escapes.
      return `coalesce('"' || ${c}::text || '"', 'null')`;
    default:
      // Numbers: PostgreSQL's own text of them is what the serializers write.
      return `coalesce(${c}::text, 'null')`;
  }
}

/** One record as a compact JSON object (each field's id and value) or list (the values), as the API's records. */
export function jsonRecordSql(
  fields: readonly { id: string; type: FieldType | 'int' }[],
  lists: boolean,
  timestampMilliseconds: boolean,
): string {
  const parts = fields.map((f, i) => {
    const lead = (i === 0 ? (lists ? '[' : '{') : ',') + (lists ? '' : `${JSON.stringify(f.id)}:`);
    return `${quoteLiteral(lead)} || ${jsonValue(f, timestampMilliseconds)}`;
  });
  return parts.length === 0
    ? quoteLiteral(lists ? '[]' : '{}')
    : `(${parts.join(' || ')} || ${quoteLiteral(lists ? ']' : '}')})`;
}
