// Small checked tables for the transforms' tests, written inline: columns with their types, and rows of values.

import type { FieldType } from '../../src/catalog/types.js';
import type { Table } from '../../src/ingest/table.js';

/** A table whose rows come from "fixture", row i on line i + 2 (as after a header line). */
export function table(columns: [string, FieldType][], rows: unknown[][], file = 'fixture'): Table {
  return {
    fields: columns.map(([id, type]) => ({ id, type, column: id, format: 'ISO', index: false })),
    rows: rows.map((values, i) => ({
      values: values as Table['rows'][number]['values'],
      origin: { file, line: i + 2, column: null, pointer: null },
    })),
  };
}
