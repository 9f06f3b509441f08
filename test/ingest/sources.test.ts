// Sources on small files written by the tests: several CSV files by pattern, JSON records by path, a named layout,
// derived resources, reviewed corrections, repaired text; every failure named by file, line and JSON pointer; and
// reload detection over every file a resource depends on.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { parseCatalog } from '../../src/catalog/load.js';
import { buildDatabase } from '../../src/ingest/build.js';
import { readMetaFromFile } from '../../src/storage/sqlite/meta.js';
import { SqliteLoadTarget } from '../../src/storage/sqlite/load-target.js';
import { silentLogger } from '../helpers/service.js';

const ROWS = 'aaaaaaaa-0000-4000-8000-000000000001';
const PEOPLE = 'aaaaaaaa-0000-4000-8000-000000000002';
const COUNTS = 'aaaaaaaa-0000-4000-8000-000000000003';
const CANDIDATES = 'aaaaaaaa-0000-4000-8000-000000000004';

function constituencyJson(name: string, candidates: { name: string; status: string; counts: (number | null)[] }[]) {
  return JSON.stringify(
    {
      pageTitle: `${name} (constituency)`,
      pageUrl: `https://en.wikipedia.org/wiki/${name}`,
      constituency: name,
      electionDate: '2024-11-29',
      numCounts: candidates[0]!.counts.length,
      candidates: candidates.map((c, i) => ({
        id: String(i + 1),
        party: 'Independent',
        electedAt: null,
        lastCount: null,
        ...c,
      })),
    },
    null,
    2,
  );
}

const NORTH = constituencyJson('north', [
  { name: 'Áine Ní Bhriain', status: 'Elected', counts: [1200, null] },
  { name: 'Brian Byrne', status: 'Not Elected', counts: [700, 880] },
  { name: 'Colm Ó Cuív', status: 'Excluded', counts: [100, null] },
]);
const SOUTH = constituencyJson('south', [
  { name: 'Dara Doyle', status: 'Elected', counts: [900] },
  { name: 'Eoin Egan', status: 'Not Elected', counts: [400] },
]);

function catalogJson(overrides: { corrections?: boolean } = {}) {
  return {
    datasets: [
      {
        name: 'fixture',
        election: { date: '2024-11-29', body: 'Test' },
        inputs: {
          totals: {
            layout: 'stv-running-totals',
            files: 'counts/*.json',
            ...(overrides.corrections ? { corrections: 'corrections.csv' } : {}),
          },
          statistics: {
            path: 'statistics.csv',
            fields: [
              { id: 'constituency_key', type: 'text', column: 'slug' },
              { id: 'constituency', type: 'text', column: 'name' },
              { id: 'quota', type: 'int4' },
            ],
            extra_columns: 'ignore',
          },
        },
        resources: [
          {
            id: ROWS,
            name: 'Rows',
            source: { files: ['parts/b-*.csv', 'parts/a.csv'] },
            fields: [
              { id: 'Name', type: 'text' },
              { id: 'Votes', type: 'int4' },
            ],
          },
          {
            id: PEOPLE,
            name: 'People',
            source: { layout: 'json', files: 'people.json', records: '/groups/*/people/*', repair: 'windows-1252-c1' },
            fields: [
              { id: 'Group', type: 'text', column: '/groups/#' },
              { id: 'Position', type: 'int4', column: '/groups/*/people/#' },
              { id: 'Name', type: 'text', column: '/groups/*/people/*/name' },
              { id: 'Age', type: 'int4', column: '/groups/*/people/*/age' },
              { id: 'File', type: 'text', column: '$stem' },
            ],
          },
          {
            id: COUNTS,
            name: 'Counts',
            role: 'counts',
            source: { derive: 'stv-count-details', inputs: { totals: 'totals', statistics: 'statistics' } },
            fields: [
              'Constituency Name',
              'Candidate surname',
              'Candidate First Name',
              'Result',
              'Count Number',
              'Non-Transferable',
              'Occurred On Count',
              'Required To Reach Quota',
              'Required To Save Deposit',
              'Transfers',
              'Votes',
              'Total Votes',
              'Constituency Number',
              'Candidate Id',
            ].map((id) => ({
              id,
              type: ['Constituency Name', 'Candidate surname', 'Candidate First Name', 'Result'].includes(id)
                ? 'text'
                : 'numeric',
            })),
          },
          {
            id: CANDIDATES,
            name: 'Candidates',
            role: 'candidates',
            source: { derive: 'stv-candidate-results', inputs: { totals: 'totals', statistics: 'statistics' } },
            fields: [
              'Constituency',
              'Surname',
              'Firstname',
              'Gender Id',
              'Party Id',
              'Party Abbreviation',
              'Count Number',
              'Required To Reach Quota',
              'Required To Save Deposit',
              'Votes',
              'Result',
              'Candidate Id',
              'Constituency Number',
              'Constituency Ainm',
            ].map((id) => ({
              id,
              type: [
                'Constituency',
                'Surname',
                'Firstname',
                'Gender Id',
                'Party Id',
                'Party Abbreviation',
                'Result',
                'Constituency Ainm',
              ].includes(id)
                ? 'text'
                : 'numeric',
            })),
          },
        ],
      },
    ],
  };
}

describe('sources', () => {
  let dir: string;
  let sources: string;
  let repository: string;
  let db: string;

  const build = (catalog: object = catalogJson(), force = false) =>
    buildDatabase({
      catalog: parseCatalog(catalog, { baseDir: repository }),
      sources,
      target: new SqliteLoadTarget(db),
      logger: silentLogger,
      force,
    });
  const rows = (id: string) => {
    const handle = new Database(db, { readonly: true });
    try {
      return handle.prepare(`SELECT * FROM "${id}" ORDER BY _id`).all() as Record<string, unknown>[];
    } finally {
      handle.close();
    }
  };
  const write = (file: string, text: string | Buffer, root = sources) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-sources-'));
    sources = path.join(dir, 'sources');
    repository = path.join(dir, 'repository');
    db = path.join(dir, 'db', 'store.sqlite');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    rmSync(sources, { recursive: true, force: true });
    rmSync(repository, { recursive: true, force: true });
    rmSync(path.dirname(db), { recursive: true, force: true });
    write('parts/b-2.csv', 'Votes,Name\n3,Cara\n');
    write('parts/b-1.csv', 'Name,Votes\nAoife,1\nBran,2\n');
    write('parts/a.csv', 'Name,Votes\nDeirdre,4\n');
    // A name whose ’ became U+0092 in a conversion, as in the 2016 candidate details.
    write(
      'people.json',
      JSON.stringify(
        {
          groups: [
            { people: [{ name: 'Ann O\u0092Neill', age: 30 }] },
            { people: [{ name: 'Bob', age: 40 }, { name: 'Cat' }] },
          ],
        },
        null,
        2,
      ),
    );
    write('counts/north.json', NORTH);
    write('counts/south.json', SOUTH);
    write('statistics.csv', 'slug,name,quota,seats\nnorth,North,1001,1\nsouth,South,651,1\n');
  });

  test("several CSV files, in the order given (a pattern's matches sorted), each header mapped on its own", async () => {
    const result = await build();
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows]),
      [
        ['loaded', 4],
        ['loaded', 3],
        ['loaded', 8],
        ['loaded', 5],
      ],
    );
    assert.deepEqual(
      rows(ROWS).map((r) => [r._id, r.Name, r.Votes]),
      [
        [1, 'Aoife', 1],
        [2, 'Bran', 2],
        [3, 'Cara', 3],
        [4, 'Deirdre', 4],
      ],
    );
  });

  test("JSON records by path: positions, values of the enclosing records, the file's name, repaired text, missing values empty", async () => {
    await build();
    assert.deepEqual(
      rows(PEOPLE).map((r) => [r.Group, r.Position, r.Name, r.Age, r.File]),
      [
        ['1', 1, 'Ann O\u2019Neill', 30, 'people'],
        ['2', 1, 'Bob', 40, 'people'],
        ['2', 2, 'Cat', null, 'people'],
      ],
    );
  });

  test('derived resources: counts and candidates from running totals, with every file and its page recorded', async () => {
    await build();
    assert.deepEqual(
      rows(COUNTS).map((r) => [
        r['Constituency Name'],
        r['Candidate surname'],
        r['Count Number'],
        r.Transfers,
        r['Total Votes'],
        r.Result,
      ]),
      [
        // Count 2 excludes Ó Cuív, so Ní Bhriain's surplus waits, and no count is left for it.
        ['North', 'Ní Bhriain', 1, 0, 1200, 'Elected'],
        ['North', 'Ní Bhriain', 2, 0, 1200, 'Elected'],
        ['North', 'Byrne', 1, 0, 700, ''],
        ['North', 'Byrne', 2, 180, 880, ''],
        ['North', 'Ó Cuív', 1, 0, 100, ''],
        ['North', 'Ó Cuív', 2, -100, 0, 'Excluded'],
        ['South', 'Doyle', 1, 0, 900, 'Elected'],
        ['South', 'Egan', 1, 0, 400, ''],
      ],
    );
    assert.deepEqual(
      rows(CANDIDATES).map((r) => [
        r.Surname,
        r['Party Id'],
        r['Gender Id'],
        r['Constituency Ainm'],
        r['Constituency Number'],
      ]),
      [
        ['Ní Bhriain', 'Independent', '', '', 1],
        ['Byrne', 'Independent', '', '', 1],
        ['Ó Cuív', 'Independent', '', '', 1],
        ['Doyle', 'Independent', '', '', 2],
        ['Egan', 'Independent', '', '', 2],
      ],
    );
    const record = readMetaFromFile(db)!.resources.get(COUNTS)!;
    assert.deepEqual(
      record.inputs!.map((i) => [i.path, i.url ?? null, i.title ?? null]),
      [
        ['counts/north.json', 'https://en.wikipedia.org/wiki/north', 'north (constituency)'],
        ['counts/south.json', 'https://en.wikipedia.org/wiki/south', 'south (constituency)'],
        ['statistics.csv', null, null],
      ],
    );
    assert.match(record.sourceSha256, /^[0-9a-f]{64}$/);
    assert.equal(record.source, 'its inputs, by stv-count-details');
  });

  describe('reload detection covers every file a resource depends on', () => {
    const statuses = async (catalog?: object) => (await build(catalog)).outcomes.map((o) => o.status);

    test('nothing changed: nothing reloads', async () => {
      await build();
      assert.deepEqual(await statuses(), ['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    });
    test("one of a pattern's files changes: what derives from it reloads", async () => {
      await build();
      write('counts/south.json', SOUTH.replace('400', '401'));
      assert.deepEqual(await statuses(), ['unchanged', 'unchanged', 'loaded', 'loaded']);
    });
    test("a file is added to a pattern's matches", async () => {
      await build();
      write('parts/b-3.csv', 'Name,Votes\nEmer,5\n');
      assert.deepEqual(await statuses(), ['loaded', 'unchanged', 'unchanged', 'unchanged']);
      assert.equal(rows(ROWS).length, 5);
    });
    test('an input the derivation reads changes', async () => {
      await build();
      write('statistics.csv', 'slug,name,quota,seats\nnorth,North,1001,1\nsouth,South,652,1\n');
      assert.deepEqual(await statuses(), ['unchanged', 'unchanged', 'loaded', 'loaded']);
    });
    test('the corrections file changes', async () => {
      write(
        'corrections.csv',
        'file,location,published,corrected,evidence\ncounts/south.json,/candidates/1/counts/0,400,410,Checked.\n',
        repository,
      );
      await build(catalogJson({ corrections: true }));
      write(
        'corrections.csv',
        'file,location,published,corrected,evidence\ncounts/south.json,/candidates/1/counts/0,400,420,Checked again.\n',
        repository,
      );
      assert.deepEqual(await statuses(catalogJson({ corrections: true })), [
        'unchanged',
        'unchanged',
        'loaded',
        'loaded',
      ]);
      assert.equal(rows(CANDIDATES)[4]!.Votes, 420);
    });
  });

  describe('corrections', () => {
    const correct = async (lines: string, file = 'corrections.csv') => {
      write(file, `file,location,published,corrected,evidence\n${lines}\n`, repository);
      return build(catalogJson({ corrections: true }));
    };

    test('a reviewed correction replaces the published value where the source still holds it', async () => {
      const result = await correct('counts/north.json,/candidates/2/counts/0,100,150,The constituency adds up.');
      assert.deepEqual(
        result.outcomes.map((o) => o.status),
        ['loaded', 'loaded', 'loaded', 'loaded'],
      );
      assert.equal(rows(CANDIDATES)[2]!.Votes, 150);
      const inputs = readMetaFromFile(db)!
        .resources.get(COUNTS)!
        .inputs!.map((i) => i.path);
      assert.ok(inputs.includes('corrections.csv'), "the corrections file is one of the resource's inputs");
    });
    test('a source that no longer holds the published value stops the load', async () => {
      const result = await correct('counts/north.json,/candidates/2/counts/0,99,150,Old evidence.');
      assert.equal(result.outcomes[2]!.status, 'failed');
      assert.equal(
        result.outcomes[2]!.error,
        'corrections.csv, line 2: counts/north.json /candidates/2/counts/0 holds 100, not the published 99 the correction expects: review it',
      );
    });
    test('a correction for a file the source does not read, or a place that is not there', async () => {
      assert.equal(
        (await correct('counts/west.json,/candidates/0/counts/0,1,2,x')).outcomes[2]!.error,
        'corrections.csv, line 2: the correction is for counts/west.json, which this source does not read',
      );
      assert.equal(
        (await correct('counts/north.json,/candidates/9/counts/0,1,2,x')).outcomes[2]!.error,
        'corrections.csv, line 2: counts/north.json has no /candidates/9/counts/0',
      );
    });
    test('a correction without its evidence', async () => {
      assert.equal(
        (await correct('counts/north.json,/candidates/2/counts/0,100,150,')).outcomes[2]!.error,
        'corrections.csv, line 2: a correction needs its evidence',
      );
    });
    test('a CSV file is corrected by line and column', async () => {
      write(
        'corrections.csv',
        'file,location,published,corrected,evidence\nparts/a.csv,/2/Votes,4,40,Recounted.\n',
        repository,
      );
      const catalog = catalogJson();
      (catalog.datasets[0]!.resources[0]!.source as Record<string, unknown>).corrections = 'corrections.csv';
      await build(catalog);
      assert.equal(rows(ROWS)[3]!.Votes, 40);
    });
  });

  describe('failures name the file, line and JSON pointer, and keep the served data', () => {
    test('a JSON value of the wrong type', async () => {
      write('people.json', JSON.stringify({ groups: [{ people: [{ name: 'Ann', age: 'old' }] }] }, null, 2));
      const result = await build();
      assert.equal(result.outcomes[1]!.status, 'failed');
      assert.equal(
        result.outcomes[1]!.error,
        'people.json, line 7, /groups/0/people/0/age: field "Age" (int4): "old" is not a whole number',
      );
    });
    test("a running total that is not a whole number, as 2011's Galway West has", async () => {
      write('counts/north.json', NORTH.replace('880', '8.80'));
      const result = await build();
      assert.match(
        result.outcomes[2]!.error ?? '',
        /^counts\/north\.json, line \d+, \/candidates\/1\/counts\/1: field "running_total" \(int4\): "8\.8" is not a whole number$/,
      );
    });
    test('a JSON file that does not parse', async () => {
      write('counts/south.json', '{"candidates": [}');
      const result = await build();
      assert.match(
        result.outcomes[2]!.error ?? '',
        /^counts\/south\.json, line 1, column 17: not valid JSON: ValueExpected$/,
      );
    });
    test('a pattern that matches nothing', async () => {
      rmSync(path.join(sources, 'counts'), { recursive: true });
      const result = await build();
      assert.equal(result.outcomes[2]!.status, 'failed');
      assert.match(result.outcomes[2]!.error ?? '', /^counts\/\*\.json: no file matches/);
    });
    test('a second CSV file with another header', async () => {
      write('parts/a.csv', 'Name,Count\nDeirdre,4\n');
      await build();
      const result = await build(catalogJson(), true);
      assert.equal(
        result.outcomes[0]!.error,
        'parts/a.csv, line 1: header has no column "Votes" (for field "Votes"); found: "Name", "Count"',
      );
    });
    test("a spreadsheet's empty rows are left out and its unnamed empty columns passed over, until one holds a value", async () => {
      write('parts/b-1.csv', 'Name,Votes,,\r\nAoife,1,,\r\n,,,\r\nBran,2,,\r\n,,,\r\n');
      const result = await build();
      assert.deepEqual([result.outcomes[0]!.status, result.outcomes[0]!.rows], ['loaded', 4]);
      assert.deepEqual(
        rows(ROWS).map((r) => [r._id, r.Name, r.Votes]),
        [
          [1, 'Aoife', 1],
          [2, 'Bran', 2],
          [3, 'Cara', 3],
          [4, 'Deirdre', 4],
        ],
      );
      write('parts/b-1.csv', 'Name,Votes,,\r\nAoife,1,,\r\nBran,2,,x\r\n');
      const changed = await build();
      assert.equal(changed.outcomes[0]!.status, 'kept-previous');
      assert.equal(
        changed.outcomes[0]!.error,
        'parts/b-1.csv, line 3, column 4: the unnamed column 4, which no field reads, holds "x": name it in the header and add a field for it',
      );
    });
    test('a derived resource whose input stops loading keeps its previous data', async () => {
      await build();
      write('statistics.csv', 'slug,name,quota,seats\nnorth,North,lots,1\n');
      const result = await build();
      assert.equal(result.outcomes[2]!.status, 'kept-previous');
      assert.equal(
        result.outcomes[2]!.error,
        'statistics.csv, line 2, column 3: field "quota" (int4): "lots" is not a whole number',
      );
      assert.equal(rows(COUNTS).length, 8);
    });
  });
});
