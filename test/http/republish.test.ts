// A property: whatever Count Centre's own dumps write publishes back as the same records. Random tables (text with
// commas, quotes, line breaks, tabs and any Unicode; whole numbers, decimals, dates, timestamps, booleans; empty
// cells) are served, dumped as CSV (with and without a byte order mark), TSV, JSON and NDJSON, each dump published
// with `add`'s plan and no options, and read back through the API. JSON dumps carry their field types, so they come
// back with the same types too. A dump's own `_id`s are kept.
//
// What no format can keep is left out, and said: CSV, TSV and NDJSON carry no field types, so a column with no value
// at all comes back as text, and (CSV and TSV) a text column whose every value reads as a number, a date or true/false
// comes back as such (JSON dumps, with their fields, keep both). XML dumps rename fields by CKAN's rules
// (spaces become "_"), so their records cannot come back under the same names.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { planAdd, writeCatalog } from '../../src/cli/add.js';
import { startService, type TestService } from '../helpers/service.js';

type Kind = 'text' | 'int4' | 'numeric' | 'date' | 'timestamp' | 'bool';
type Value = string | number | boolean | null;

interface Table {
  columns: { name: string; kind: Kind }[];
  rows: Value[][];
}

const valueOf: Record<Kind, fc.Arbitrary<Value>> = {
  // Text is never null in a DataStore text field: an empty cell is "".
  text: fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.constantFrom(
      'Ó Sé, Máire',
      'say "hi"',
      'two\nlines',
      'tab\there',
      'cr\ronly',
      '  padded  ',
      '',
      '00501',
      '1,234',
      '=SUM(A1)',
      'Note: not a note',
    ),
  ),
  int4: fc.option(fc.integer({ min: -2147483648, max: 2147483647 }), { nil: null }),
  numeric: fc.option(
    fc.double({ min: -1e9, max: 1e9, noNaN: true, noDefaultInfinity: true }).map((d) => Number(d.toPrecision(10))),
    { nil: null },
  ),
  date: fc.option(
    fc
      .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
    { nil: null },
  ),
  timestamp: fc.option(
    fc
      .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 19)),
    { nil: null },
  ),
  bool: fc.option(fc.boolean(), { nil: null }),
};

const NAMES = [
  'Name',
  'Party Id',
  'Votes',
  'Turnout %',
  'Date Of Election',
  'Counted at',
  'Elected?',
  'Fáilte',
  'Note',
];

const tableArbitrary: fc.Arbitrary<Table> = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom(...NAMES),
      kind: fc.constantFrom<Kind>('text', 'int4', 'numeric', 'date', 'timestamp', 'bool'),
    }),
    {
      minLength: 1,
      maxLength: 4,
      selector: (c) => c.name,
    },
  )
  .chain((columns) =>
    fc
      .array(fc.tuple(...columns.map((c) => valueOf[c.kind])), { minLength: 1, maxLength: 8 })
      .map((rows) => ({ columns, rows })),
  )
  // A row of empty cells only is an empty line in the original CSV, which CSV cannot tell from no line at all.
  .filter((table) =>
    table.rows.every((row) => row.some((v, i) => v !== null && (v !== '' || table.columns[i]!.kind === 'text'))),
  );

/**
 * The table as a CSV its catalogue entry reads with declared types (quoting every text cell, as a careful writer does).
 */
function originalCsv(table: Table): string {
  const cell = (v: Value, kind: Kind) =>
    v === null
      ? ''
      : kind === 'text'
        ? `"${String(v).replace(/"/g, '""')}"`
        : typeof v === 'boolean'
          ? String(v)
          : String(v);
  return (
    [
      table.columns.map((c) => `"${c.name}"`).join(','),
      ...table.rows.map((r) => r.map((v, i) => cell(v, table.columns[i]!.kind)).join(',')),
    ].join('\r\n') + '\r\n'
  );
}

/**
 * Whether a format can say every column's type from the cells alone: JSON dumps carry their fields' types, so always.
 * Elsewhere a column with no value at all has no type; in CSV and TSV (text, booleans as t and f) a text column whose
 * every value reads as a number, a date or true/false reads as such, and a boolean column of only t or only f is a
 * letter.
 */
function cellsSayTypes(format: 'typed' | 'json values' | 'text', table: Table): boolean {
  if (format === 'typed') return true;
  return table.columns.every((c, i) => {
    const filled = table.rows.map((r) => r[i]).filter((v) => v !== null && v !== '');
    if (filled.length === 0) return false;
    if (format === 'json values') return true;
    if (c.kind === 'bool') return new Set(filled).size === 2;
    if (c.kind !== 'text') return true;
    return !filled
      .map((v) => String(v).trim())
      .every(
        (v) =>
          v === '' ||
          /^[+-]?[\d.,\s\u00a0\u202f]+([eE][+-]?\d+)?$/.test(v) ||
          /^\d{1,4}[-/]\d{1,2}[-/]\d{1,4}/.test(v) ||
          /^(true|false|t|f)$/i.test(v),
      );
  });
}

const FORMATS = [
  { name: 'csv', query: 'format=csv', file: 'dump.csv', cells: 'text' },
  { name: 'csv with BOM', query: 'format=csv&bom=true', file: 'dump-bom.csv', cells: 'text' },
  { name: 'tsv', query: 'format=tsv', file: 'dump.tsv', cells: 'text' },
  { name: 'json', query: 'format=json', file: 'dump.json', cells: 'typed' },
  { name: 'ndjson', query: 'format=ndjson', file: 'dump.ndjson', cells: 'json values' },
] as const;

describe('a dump published again is the same records', () => {
  test('random tables, every dump format, through add and back [sqlite]', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(tableArbitrary, async (table) => {
        runs += 1;
        const dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-republish-'));
        const catalog = path.join(dir, 'catalog.json');
        let original: TestService | null = null;
        let republished: TestService | null = null;
        try {
          writeFileSync(path.join(dir, 'original.csv'), originalCsv(table));
          const fields = table.columns.map((c) => ({ id: c.name, type: c.kind }));
          writeFileSync(
            catalog,
            JSON.stringify(
              {
                datasets: [
                  {
                    name: 'original',
                    resources: [{ id: 'original', name: 'Original', source: { path: 'original.csv' }, fields }],
                  },
                ],
              },
              null,
              2,
            ),
          );
          original = await startService({ catalog, sources: dir, databasePath: path.join(dir, 'original.sqlite') });
          const want = await original.getJson('/api/3/action/datastore_search?resource_id=original&limit=1000');
          assert.equal(want.status, 200, JSON.stringify(want.body));
          const published: { format: (typeof FORMATS)[number]; id: string }[] = [];
          for (const [i, format] of FORMATS.entries()) {
            const dump = await original.request(`/datastore/dump/original?${format.query}`);
            assert.equal(dump.statusCode, 200);
            writeFileSync(path.join(dir, format.file), dump.rawPayload);
            if (!cellsSayTypes(format.cells, table)) continue;
            const id = `republished-${i}`;
            const plan = await planAdd(
              { source: path.join(dir, format.file), id, dataset: 'again' },
              { catalog, sources: dir },
            );
            writeCatalog(catalog, plan.catalogText);
            published.push({ format, id });
          }
          await original.close();
          original = null;
          republished = await startService({ catalog, sources: dir, databasePath: path.join(dir, 'again.sqlite') });
          for (const { format, id } of published) {
            const got = await republished.getJson(`/api/3/action/datastore_search?resource_id=${id}&limit=1000`);
            assert.equal(got.status, 200, `${format.name}: ${JSON.stringify(got.body)}`);
            assert.deepEqual(
              got.body.result.records,
              want.body.result.records,
              `${format.name} dump of ${JSON.stringify(table)}`,
            );
            assert.deepEqual(
              got.body.result.fields.map((f: { id: string }) => f.id),
              want.body.result.fields.map((f: { id: string }) => f.id),
              format.name,
            );
            if (format.cells === 'typed')
              assert.deepEqual(got.body.result.fields, want.body.result.fields, `${format.name} keeps the types`);
          }
        } finally {
          await original?.close();
          await republished?.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: Number(process.env.REPUBLISH_RUNS ?? 25), seed: Number(process.env.REPUBLISH_SEED ?? 20261125) },
    );
    assert.equal(runs, Number(process.env.REPUBLISH_RUNS ?? 25));
  });
});
