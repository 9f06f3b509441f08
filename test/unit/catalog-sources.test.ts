// The catalogue's sources: layouts, inputs and derived resources are checked when the catalogue is read, and each
// mistake is reported with its line and JSON path, before any file is opened.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadCatalogFile, parseCatalog } from '../../src/catalog/load.js';
import { LAYOUT_PRESETS, TRANSFORM_SPECS } from '../../src/catalog/source-kinds.js';
import { LoadSources } from '../../src/ingest/sources.js';
import { TRANSFORMS, unimplementedTransforms } from '../../src/ingest/transforms/index.js';
import { PROJECT_ROOT } from '../../src/settings.js';

const CHECK_FIELDS = [
  'Check',
  'Constituency',
  'Constituency Number',
  'Count Number',
  'Expected',
  'Actual',
  'Difference',
  'Status',
  'Note',
  'Source',
].map((id) => ({ id, type: ['Check', 'Constituency', 'Status', 'Note', 'Source'].includes(id) ? 'text' : 'numeric' }));

/** A small election: three CSV resources and the checks derived from them. */
function base(): any {
  return structuredClone({
    datasets: [
      {
        name: 'election',
        inputs: {
          faults: {
            path: 'faults.csv',
            base: 'catalog',
            fields: [
              { id: 'check', type: 'text' },
              { id: 'constituency', type: 'text' },
              { id: 'count', type: 'int4' },
              { id: 'note', type: 'text' },
            ],
          },
        },
        resources: [
          {
            id: 'a',
            name: 'A',
            role: 'candidates',
            source: { path: 'a.csv' },
            fields: [
              { id: 'Constituency Number', type: 'numeric' },
              { id: 'Result', type: 'text' },
              { id: 'Required To Save Deposit', type: 'numeric' },
            ],
          },
          {
            id: 'b',
            name: 'B',
            role: 'constituencies',
            source: { path: 'b.csv' },
            fields: ['Constituency Name', 'Constituency Number', 'Number of Seats', 'Quota', 'Valid Poll'].map(
              (id) => ({ id, type: id === 'Constituency Name' ? 'text' : 'numeric' }),
            ),
          },
          {
            id: 'c',
            name: 'C',
            role: 'counts',
            source: { path: 'c.csv' },
            fields: ['Constituency Number', 'Candidate Id', 'Count Number', 'Transfers', 'Votes'].map((id) => ({
              id,
              type: 'numeric',
            })),
          },
          {
            id: 'checks',
            name: 'Checks',
            role: 'checks',
            source: {
              derive: 'election-checks',
              inputs: {
                candidates: { resource: 'candidates' },
                constituencies: { resource: 'b' },
                counts: { resource: 'counts' },
                known_faults: 'faults',
              },
            },
            fields: CHECK_FIELDS,
          },
        ],
      },
    ],
  });
}

function fails(change: (catalog: any) => void, message: RegExp): void {
  const catalog = base();
  change(catalog);
  const text = JSON.stringify(catalog, null, 2);
  assert.throws(
    () => parseCatalog(JSON.parse(text), { text, name: 'catalog.json' }),
    (err: Error) => {
      assert.match(err.message, message);
      return true;
    },
  );
}

describe('catalogue sources', () => {
  test("a derived resource: its inputs resolved (a role names the resource), its fields given the transform's notes", () => {
    const catalog = parseCatalog(base());
    const checks = catalog.resources.find((r) => r.id === 'checks')!;
    assert.equal(checks.source.kind, 'derived');
    if (checks.source.kind !== 'derived') return;
    assert.deepEqual(checks.source.inputs, {
      candidates: [{ kind: 'resource', id: 'a' }],
      constituencies: [{ kind: 'resource', id: 'b' }],
      counts: [{ kind: 'resource', id: 'c' }],
      known_faults: [{ kind: 'input', name: 'faults' }],
    });
    assert.match(checks.fields[7]!.info!.notes, /^passed, failed, or corrected/);
    assert.equal(
      catalog.resources[0]!.fields[0]!.info,
      null,
      'a CSV field has no data dictionary unless the catalogue gives one',
    );
  });

  test('a csv option added later changes what a resource is made from only when it is given', () => {
    const hashOf = (leadingSpaces?: string) => {
      const catalog = base();
      if (leadingSpaces !== undefined) catalog.datasets[0].resources[0].source.leading_spaces = leadingSpaces;
      const parsed = parseCatalog(catalog);
      return new LoadSources(parsed, '.').specHash(parsed.resources[0]!);
    };
    assert.equal(hashOf('keep'), hashOf());
    assert.notEqual(hashOf('skip'), hashOf());
    const withPrefix = base();
    withPrefix.datasets[0].resources[0].source.header_prefix = '#';
    const parsed = parseCatalog(withPrefix);
    assert.notEqual(new LoadSources(parsed, '.').specHash(parsed.resources[0]!), hashOf());
    const withComments = base();
    withComments.datasets[0].resources[0].source.comments = '#';
    const commented = parseCatalog(withComments);
    assert.notEqual(new LoadSources(commented, '.').specHash(commented.resources[0]!), hashOf());
    const jsonHash = (orient?: string) => {
      const catalog = base();
      catalog.datasets[0].resources[0].source = {
        path: 'x.json',
        layout: 'json',
        records: '/*',
        ...(orient ? { orient } : {}),
      };
      const resource = catalog.datasets[0].resources[0];
      resource.fields = resource.fields.map((f: { id: string; column?: string }) => ({
        ...f,
        column: `/*/${f.column ?? f.id}`,
      }));
      const json = parseCatalog(catalog);
      return new LoadSources(json, '.').specHash(json.resources[0]!);
    };
    assert.equal(jsonHash('records'), jsonHash());
    assert.notEqual(jsonHash('columns'), jsonHash());
  });

  test("a preset layout's input without fields takes every column the preset offers", () => {
    const catalog = base();
    catalog.datasets[0].inputs.totals = { layout: 'stv-running-totals', files: 'counts/*.json' };
    const input = parseCatalog(catalog).datasets[0]!.inputs.totals!;
    assert.deepEqual(
      input.fields.map((f) => f.id),
      Object.keys(LAYOUT_PRESETS['stv-running-totals']!.columns),
    );
    assert.equal(input.source.records, '/candidates/*/counts/*');
  });

  test("the repository's catalogue reads, and every transform it can name is implemented", () => {
    const catalog = loadCatalogFile(path.join(PROJECT_ROOT, 'catalog.json'));
    assert.equal(catalog.datasets.length, 4);
    assert.deepEqual(unimplementedTransforms(), []);
    assert.deepEqual(Object.keys(TRANSFORMS).sort(), Object.keys(TRANSFORM_SPECS).sort());
  });

  describe('mistakes are reported with their line and path', () => {
    test('an unknown transform', () =>
      fails((c) => {
        c.datasets[0].resources[3].source.derive = 'magic';
      }, /^catalogue catalog\.json line \d+, datasets\[0\]\.resources\[3\]\.source\.derive: unknown transform "magic" \(known: stv-count-details,/));
    test('an input the transform does not take', () =>
      fails((c) => {
        c.datasets[0].resources[3].source.inputs.extra = 'faults';
      }, /source\.inputs\.extra: is not an input of election-checks/));
    test('a required input left out', () =>
      fails((c) => {
        delete c.datasets[0].resources[3].source.inputs.counts;
      }, /source\.inputs: election-checks needs the input "counts": The counts resource\./));
    test('an input the dataset does not have', () =>
      fails((c) => {
        c.datasets[0].resources[3].source.inputs.known_faults = 'fault';
      }, /inputs\.known_faults: the dataset has no input "fault" \(inputs: faults\)/));
    test('a resource that does not exist', () =>
      fails((c) => {
        c.datasets[0].resources[3].source.inputs.counts = { resource: 'votes' };
      }, /the dataset has no resource with id or role "votes"/));
    test('an input without a column the transform reads', () =>
      fails((c) => {
        c.datasets[0].resources[2].fields.pop();
      }, /inputs\.counts: election-checks reads the column "Votes" of its input "counts", which this table has no field for/));
    test('a column of the wrong kind', () =>
      fails((c) => {
        c.datasets[0].resources[0].fields[1].type = 'int4';
      }, /election-checks reads "Result" as text, but the field is int4/));
    test('an unknown option', () =>
      fails((c) => {
        c.datasets[0].resources[3].source.options = { strict: true };
      }, /source\.options\.strict: is not an option of election-checks \(options: none\)/));
    test('an option of the wrong type', () =>
      fails((c) => {
        c.datasets[0].inputs.totals = { layout: 'stv-running-totals', files: 'x/*.json' };
        c.datasets[0].resources.push({
          id: 'd',
          name: 'D',
          source: {
            derive: 'stv-count-details',
            inputs: { totals: 'totals', statistics: 'totals' },
            options: { constituency_keys: { a: 1 } },
          },
          fields: [],
        });
      }, /resources\[4\]\.source\.options\.constituency_keys\.a: must be a string/));
    test('a field taking a column the transform does not yield', () =>
      fails((c) => {
        c.datasets[0].resources[3].fields[0].column = 'Kind';
      }, /fields\[0\]: election-checks yields no column "Kind"/));
    test('a column the transform yields that no field takes', () =>
      fails((c) => {
        c.datasets[0].resources[3].fields.pop();
      }, /resources\[3\]\.fields: election-checks yields the column "Source", which no field takes/));
    test('derivations in a circle', () =>
      fails((c) => {
        const [a, b] = [structuredClone(c.datasets[0].resources[3]), structuredClone(c.datasets[0].resources[3])];
        Object.assign(a, { id: 'x', role: null, name: 'X' });
        Object.assign(b, { id: 'y', role: null, name: 'Y' });
        a.source.inputs.candidates = { resource: 'y' };
        b.source.inputs.candidates = { resource: 'x' };
        a.fields = [
          { id: 'Constituency Number', type: 'numeric' },
          { id: 'Result', type: 'text', column: 'Status' },
          { id: 'Required To Save Deposit', type: 'numeric', column: 'Difference' },
          ...a.fields.filter((f: any) => !['Constituency Number', 'Status', 'Difference'].includes(f.id)),
        ];
        b.fields = a.fields;
        c.datasets[0].resources.push(a, b);
      }, /resource x is derived, through other resources, from itself/));
    test('a misspelt key', () =>
      fails((c) => {
        c.datasets[0].resources[0].source.pth = 'a.csv';
      }, /resources\[0\]\.source\.pth: is not a known key here/));
    test('a pattern given as one path', () =>
      fails((c) => {
        c.datasets[0].resources[0].source.path = '*.csv';
      }, /source\.path: is one file; use "files" for a pattern/));
    test('a path out of its folder', () =>
      fails((c) => {
        c.datasets[0].resources[0].source = { files: ['../secret.csv'] };
      }, /source\.files\[0\]: must not climb out of its folder/));
    test('a JSON column that does not follow the records', () =>
      fails((c) => {
        c.datasets[0].inputs.people = {
          layout: 'json',
          files: 'p.json',
          records: '/people/*',
          fields: [{ id: 'name', type: 'text', column: '/others/*/name' }],
        };
      }, /inputs\.people\.fields\[0\]\.column: "\/others\/\*\/name" must follow the records path "\/people\/\*"/));
    test('a position that does not end its path', () =>
      fails((c) => {
        c.datasets[0].inputs.people = {
          layout: 'json',
          files: 'p.json',
          records: '/people/*',
          fields: [{ id: 'n', type: 'int4', column: '/people/#/x' }],
        };
      }, /# \(the position\) must end the path/));
    test('a json layout without records', () =>
      fails((c) => {
        c.datasets[0].inputs.people = { layout: 'json', files: 'p.json', fields: [{ id: 'n', type: 'text' }] };
      }, /inputs\.people: the json layout needs "records"/));
    test('a CSV-only option on JSON', () =>
      fails((c) => {
        c.datasets[0].inputs.people = {
          layout: 'json',
          files: 'p.json',
          records: '',
          extra_columns: 'ignore',
          fields: [{ id: 'n', type: 'text', column: '/n' }],
        };
      }, /inputs\.people\.extra_columns: only applies to the csv layout/));
    test('quotes neither csv nor literal, or on JSON', () => {
      fails((c) => {
        c.datasets[0].resources[0].source.quotes = 'none';
      }, /source\.quotes: must be "csv" or "literal"/);
      fails((c) => {
        c.datasets[0].inputs.people = {
          layout: 'json',
          files: 'p.json',
          records: '',
          quotes: 'literal',
          fields: [{ id: 'n', type: 'text', column: '/n' }],
        };
      }, /inputs\.people\.quotes: only applies to the csv layout/);
    });
    test('escapes neither none nor backslash, or on xlsx', () => {
      fails((c) => {
        c.datasets[0].resources[0].source.escapes = 'c';
      }, /source\.escapes: must be "none" or "backslash"/);
      fails((c) => {
        c.datasets[0].resources[0].source = { path: 'x.xlsx', layout: 'xlsx', escapes: 'backslash' };
      }, /source\.escapes: only applies to the csv layout/);
    });
    test('leading spaces neither keep nor skip, or on Parquet', () => {
      fails((c) => {
        c.datasets[0].resources[0].source.leading_spaces = true;
      }, /source\.leading_spaces: must be a non-empty string/);
      fails((c) => {
        c.datasets[0].resources[0].source.leading_spaces = 'trim';
      }, /source\.leading_spaces: must be "keep" or "skip"/);
      fails((c) => {
        c.datasets[0].resources[0].source = { path: 'x.parquet', layout: 'parquet', leading_spaces: 'skip' };
      }, /source\.leading_spaces: only applies to the csv layout/);
    });
    test('a header prefix that is empty or spaced, or on JSON', () => {
      for (const prefix of ['', '# ', true])
        fails((c) => {
          c.datasets[0].resources[0].source.header_prefix = prefix;
        }, /source\.header_prefix: must be/);
      fails((c) => {
        c.datasets[0].resources[0].source = { path: 'x.json', layout: 'json', records: '/*', header_prefix: '#' };
      }, /source\.header_prefix: only applies to the csv layout/);
    });
    test('a comment mark that is empty or spaced, or on a workbook', () => {
      for (const mark of ['', '# ', 1])
        fails((c) => {
          c.datasets[0].resources[0].source.comments = mark;
        }, /source\.comments: must be/);
      fails((c) => {
        c.datasets[0].resources[0].source = { path: 'x.xlsx', layout: 'xlsx', comments: '#' };
      }, /source\.comments: only applies to the csv layout/);
    });
    test('an orient other than records or columns, on csv, or of columns not at the root', () => {
      fails((c) => {
        c.datasets[0].resources[0].source = { path: 'x.json', layout: 'json', records: '/*', orient: 'index' };
      }, /source\.orient: must be "records" or "columns"/);
      fails((c) => {
        c.datasets[0].resources[0].source.orient = 'columns';
      }, /source\.orient: only applies to the json layout/);
      fails((c) => {
        c.datasets[0].resources[0].source = { path: 'x.json', layout: 'json', records: '/data/*', orient: 'columns' };
      }, /source\.records: must be "\/\*" for a document of columns/);
    });
    test('a header row that is not a line number (0, no header, is one)', () => {
      for (const headerRow of [-1, 1.5, '2'])
        fails((c) => {
          c.datasets[0].resources[0].source.header_row = headerRow;
        }, /source\.header_row: must be a line number, 1 or more \(0: the file has no header\)/);
    });
    test('missing markers that are not a list of cell texts, or on JSON', () => {
      for (const missing of ['NA', [''], [' NA'], [1]])
        fails((c) => {
          c.datasets[0].resources[0].source.missing = missing;
        }, /source\.missing: must be a list of cell texts, such as \["NA", "\.\."\]/);
      fails((c) => {
        c.datasets[0].resources[0].source = { path: 'x.xlsx', layout: 'xlsx', missing: ['NA'] };
      }, /source\.missing: only applies to the csv layout/);
    });
    test('nulls neither empty, unquoted-empty nor NULL', () =>
      fails((c) => {
        c.datasets[0].resources[0].source.nulls = 'null';
      }, /source\.nulls: must be "empty" or "unquoted-empty" or "NULL"/));
    test('an unknown layout', () =>
      fails((c) => {
        c.datasets[0].resources[0].source.layout = 'xls';
      }, /unknown layout "xls" \(known: csv, json, ndjson, xlsx, parquet, stv-running-totals\)/));
    test('an input without fields', () =>
      fails((c) => {
        c.datasets[0].inputs.faults.fields = undefined;
      }, /inputs\.faults: needs "fields"/));
    test('a Ceann Comhairle without a constituency', () =>
      fails((c) => {
        c.datasets[0].election = { date: '2016-02-26', body: 'x', ceann_comhairle: { name: 'C' } };
      }, /election\.ceann_comhairle\.constituency: must be a non-empty string/));
    test('the attribution given as an extra', () =>
      fails((c) => {
        c.datasets[0].extras = { attribution: 'x' };
      }, /extras\.attribution: is the dataset's "attribution" key/));
    test('a data dictionary entry with an unknown key', () =>
      fails((c) => {
        c.datasets[0].resources[0].fields[0].info = { note: 'x' };
      }, /fields\[0\]\.info\.note: is not a known key here \(known: label, notes, type_override\)/));
  });

  test('a catalogue that is not JSON names the line and column', () => {
    assert.throws(() => loadCatalogFile(path.join(PROJECT_ROOT, 'package.json', 'nope')), /cannot read catalogue/);
  });
});
