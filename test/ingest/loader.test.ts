// The loader on small sources written by the tests: encodings, CSV quoting, trailing notes, every failure mode
// (reported with file, line and column), keeping served data when a load fails, and the atomic swap.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { parseCatalog } from '../../src/catalog/load.js';
import { buildDatabase } from '../../src/ingest/build.js';
import { SqliteLoadTarget } from '../../src/storage/sqlite/load-target.js';
import { PROJECT_ROOT } from '../../src/settings.js';
import { openSqliteStore } from '../../src/stores.js';
import { silentLogger } from '../helpers/service.js';

const PEOPLE = '11111111-0000-4000-8000-000000000001';
const PLACES = '11111111-0000-4000-8000-000000000002';

function catalogJson(overrides: { peopleSource?: string; placesSource?: string } = {}) {
  return {
    datasets: [
      {
        name: 'fixture',
        resources: [
          {
            id: PEOPLE,
            name: 'People',
            source: { path: overrides.peopleSource ?? 'people.csv' },
            fields: [
              { id: 'Name', type: 'text' },
              { id: 'Votes', type: 'numeric' },
              { id: 'Born', type: 'date', column: 'Birth Date', format: 'DD/MM/YYYY' },
            ],
          },
          {
            id: PLACES,
            name: 'Places',
            source: { path: overrides.placesSource ?? 'places.csv' },
            fields: [
              { id: 'Place', type: 'text' },
              { id: 'Seats', type: 'int4' },
            ],
          },
        ],
      },
    ],
  };
}

const PEOPLE_CSV =
  'Name,Votes,Birth Date\r\n"O\'Neill, Mary",1200,01/02/1970\r\n"Say ""hi""",,31/12/1999\r\n"two\nlines",7.5,\r\n';
const PLACES_CSV = 'Place,Seats\nCork,5\nGalway,3\n';

describe('loader', () => {
  let dir: string;
  let sources: string;
  let db: string;

  const build = (catalog = catalogJson(), force = false) =>
    buildDatabase({
      catalog: parseCatalog(catalog),
      sources,
      target: new SqliteLoadTarget(db),
      logger: silentLogger,
      force,
    });

  const rows = (resourceId: string, file = db) => {
    const handle = new Database(file, { readonly: true });
    try {
      return handle.prepare(`SELECT * FROM "${resourceId}" ORDER BY _id`).all() as Record<string, unknown>[];
    } finally {
      handle.close();
    }
  };

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-loader-'));
    sources = path.join(dir, 'sources');
    mkdirSync(sources);
    db = path.join(dir, 'db', 'store.sqlite');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const writeSources = (people: string | Buffer = PEOPLE_CSV, places: string | Buffer = PLACES_CSV) => {
    writeFileSync(path.join(sources, 'people.csv'), people);
    writeFileSync(path.join(sources, 'places.csv'), places);
  };

  test('loads quoted fields, doubled quotes, embedded commas and line breaks, empty cells; _id in file order', async () => {
    writeSources();
    const result = await build();
    assert.equal(result.rebuilt, true);
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows]),
      [
        ['loaded', 3],
        ['loaded', 2],
      ],
    );
    const people = rows(PEOPLE);
    assert.deepEqual(
      people.map((r) => [r._id, r.Name, r.Votes, r.Born]),
      [
        [1, "O'Neill, Mary", 1200, '1970-02-01'],
        [2, 'Say "hi"', null, '1999-12-31'],
        [3, 'two\nlines', 7.5, null],
      ],
    );
    // No vector is stored: the row's _full_text is made from its values where it is read.
    assert.equal(people[0]!._full_text, undefined);
    // The full-text index was merged once its rows were in, and merges as it goes again for patches.
    const handle = new Database(db, { readonly: true });
    try {
      assert.deepEqual(handle.prepare(`SELECT k, v FROM "${PEOPLE}__fts_config" WHERE k = 'automerge'`).raw().all(), [
        ['automerge', 4],
      ]);
      assert.equal(
        handle
          .prepare(`SELECT count(*) FROM "${PEOPLE}__fts" WHERE "${PEOPLE}__fts" MATCH ?`)
          .pluck()
          .get(Buffer.from('mari').toString('hex')),
        1,
      );
    } finally {
      handle.close();
    }
  });

  test('an unchanged catalogue and unchanged sources do not rebuild', async () => {
    writeSources();
    await build();
    const again = await build();
    assert.equal(again.rebuilt, false);
    assert.deepEqual(
      again.outcomes.map((o) => o.status),
      ['unchanged', 'unchanged'],
    );
  });

  test('a store written in another layout is never read as this one: every resource is loaded again, and the log says why', async () => {
    writeSources();
    await build();
    const handle = new Database(db);
    const current = Number(
      handle.prepare(`SELECT "value" FROM "_countcentre_meta" WHERE "key" = 'schema_version'`).pluck().get(),
    );
    handle
      .prepare(`UPDATE "_countcentre_meta" SET "value" = ? WHERE "key" = 'schema_version'`)
      .run(String(current - 1));
    handle.close();
    assert.equal(await new SqliteLoadTarget(db).readMeta(), null);
    assert.deepEqual(await new SqliteLoadTarget(db).otherLayout(), { found: current - 1, current });
    const warnings: { msg: string; layout: number; current: number }[] = [];
    const result = await buildDatabase({
      catalog: parseCatalog(catalogJson()),
      sources,
      target: new SqliteLoadTarget(db),
      logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) }),
    });
    assert.equal(result.rebuilt, true);
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows]),
      [
        ['loaded', 3],
        ['loaded', 2],
      ],
    );
    assert.deepEqual(
      warnings.map(({ msg, layout, current: now }) => ({ msg, layout, current: now })),
      [
        {
          msg: `the store was written in layout ${current - 1} by an earlier Count Centre (this one writes layout ${current}): every resource is loaded again into a new store`,
          layout: current - 1,
          current,
        },
      ],
    );
    assert.equal((await new SqliteLoadTarget(db).readMeta())?.schemaVersion, current);
    assert.equal(await new SqliteLoadTarget(db).otherLayout(), null);
    assert.equal(rows(PEOPLE).length, 3);
  });

  test('a changed source rebuilds; unchanged resources are carried over', async () => {
    writeSources();
    await build();
    writeSources(PEOPLE_CSV, 'Place,Seats\nCork,5\nGalway,3\nKerry,5\n');
    const result = await build();
    assert.equal(result.rebuilt, true);
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows]),
      [
        ['unchanged', 3],
        ['loaded', 3],
      ],
    );
    assert.equal(rows(PEOPLE).length, 3);
    const store = await openSqliteStore(db);
    const backend = store.current;
    try {
      const search = await backend.rows({
        sql: `SELECT count(*) FROM "${PEOPLE}__fts" WHERE "${PEOPLE}__fts" MATCH ?`,
        params: [Buffer.from('mari').toString('hex')],
      });
      assert.deepEqual(search, [[1]], 'the carried-over full-text index still finds records');
    } finally {
      await store.close();
    }
  });

  test('encodings: UTF-8 with BOM, UTF-8, and Windows-1252 (’ and accented letters) are detected', async () => {
    const text = 'Name,Votes,Birth Date\r\nMURNANE O\u2019CONNOR,1,\r\nFianna Fáil,2,\r\n';
    const cases: [string, Buffer][] = [
      ['utf-8 with BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])],
      ['utf-8', Buffer.from(text, 'utf8')],
      ['windows-1252', Buffer.from(text.replace('\u2019', '\u0092'), 'latin1')],
    ];
    for (const [label, bytes] of cases) {
      writeSources(bytes);
      await build();
      assert.deepEqual(
        rows(PEOPLE).map((r) => r.Name),
        ['MURNANE O\u2019CONNOR', 'Fianna Fáil'],
        label,
      );
    }
  });

  test('trailing note lines beginning "This is" are dropped; the same text before data is data', async () => {
    writeSources(
      `${PEOPLE_CSV}This is a provisional result, subject to change.\r\n\r\nThis is the second note, with "quotes", commas.\r\n`,
    );
    const result = await build();
    assert.equal(result.outcomes[0]!.rows, 3);
    writeSources('Name,Votes,Birth Date\r\nThis is a name,1,\r\nMary,2,\r\n');
    await build();
    assert.deepEqual(
      rows(PEOPLE).map((r) => r.Name),
      ['This is a name', 'Mary'],
    );
  });

  describe('failures name file, line and column and keep the served data', () => {
    const failure = async (people: string, message: RegExp) => {
      writeSources();
      await build(catalogJson(), true);
      writeSources(people);
      const result = await build();
      const outcome = result.outcomes[0]!;
      assert.equal(outcome.status, 'kept-previous');
      assert.match(outcome.error ?? '', message);
      assert.equal(rows(PEOPLE).length, 3, 'the previous records are still served');
      assert.equal(result.outcomes[1]!.status, 'unchanged');
    };

    test('wrong header', () =>
      failure(
        'Name,Votes,Born\r\nA,1,\r\n',
        /^people\.csv, line 1: header has no column "Birth Date" \(for field "Born"\)/,
      ));
    test('unexpected column', () =>
      failure(
        'Name,Votes,Birth Date,Extra\r\nA,1,,x\r\n',
        /^people\.csv, line 1, column 4: header has column "Extra"/,
      ));
    test('a non-number in a numeric column', () =>
      failure(
        'Name,Votes,Birth Date\r\nA,1,\r\nB,lots,\r\n',
        /^people\.csv, line 3, column 2: field "Votes" \(numeric\): "lots" is not a number$/,
      ));
    test('a row with the wrong number of cells', () =>
      failure(
        'Name,Votes,Birth Date\r\nA,1\r\n',
        /^people\.csv, line 2, column 3: row has 2 cells, the header has 3 \(the source's short_rows: "pad" fills the rest with empty cells\)$/,
      ));
    test('an impossible date', () =>
      failure(
        'Name,Votes,Birth Date\r\nA,1,31/02/2000\r\n',
        /^people\.csv, line 2, column 3: field "Born" \(date\): "31\/02\/2000" is not a valid date$/,
      ));
    test('an unterminated quote is reported where it opens, not at the end of the file', () =>
      failure(
        'Name,Votes,Birth Date\r\n"Ann ""Nan"" Byrne",1,\r\n"multi\r\nline",2,\r\nC,3,\r\nD,"4,\r\nE,5,\r\nF,6,\r\n',
        /^people\.csv, line 6, column 2: a quoted field opens here and is never closed$/,
      ));
    test('a missing file', async () => {
      writeSources();
      await build(catalogJson(), true);
      const result = await build(catalogJson({ peopleSource: 'missing.csv' }));
      assert.equal(result.outcomes[0]!.status, 'kept-previous');
      assert.match(result.outcomes[0]!.error ?? '', /missing\.csv: file not found/);
    });
  });

  test('a header without records loads an empty resource, with a warning', async () => {
    writeSources('Name,Votes,Birth Date\r\n');
    const result = await build(catalogJson(), true);
    assert.deepEqual(
      result.outcomes.map((o) => [o.status, o.rows, o.warning]),
      [
        ['loaded', 0, 'people.csv has a header but no records: the resource is served empty'],
        ['loaded', 2, undefined],
      ],
    );
  });

  test('a resource that never loaded is not served; the others are', async () => {
    rmSync(path.dirname(db), { recursive: true, force: true });
    writeSources('Name,Votes\r\n');
    const result = await build();
    assert.deepEqual(
      result.outcomes.map((o) => o.status),
      ['failed', 'loaded'],
    );
    const store = await openSqliteStore(db);
    const backend = store.current;
    try {
      assert.deepEqual([...backend.resources.keys()].sort(), [PLACES, '_table_metadata'].sort());
      const tables = await backend.rows({ sql: 'SELECT "name" FROM "_table_metadata"', params: [] });
      assert.deepEqual(tables, [[PLACES]], '_table_metadata lists what is served');
    } finally {
      await store.close();
    }
  });

  test('the new database is swapped in atomically: an open reader keeps its snapshot', async () => {
    writeSources();
    await build(catalogJson(), true);
    const store = await openSqliteStore(db);
    const reader = store.current;
    try {
      writeSources(PEOPLE_CSV, 'Place,Seats\nCork,5\n');
      await build();
      assert.deepEqual(await reader.rows({ sql: `SELECT count(*) FROM "${PLACES}"`, params: [] }), [[2]]);
      assert.equal(rows(PLACES).length, 1);
    } finally {
      await store.close();
    }
  });

  test('sources can be read from a URL', async () => {
    const server: Server = createServer((request, response) => {
      const body =
        request.url === '/data/people.csv' ? PEOPLE_CSV : request.url === '/data/places.csv' ? PLACES_CSV : null;
      response.writeHead(body ? 200 : 404).end(body ?? 'not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const result = await buildDatabase({
        catalog: parseCatalog(catalogJson()),
        sources: `http://127.0.0.1:${port}/data`,
        target: new SqliteLoadTarget(db),
        logger: silentLogger,
        force: true,
      });
      assert.deepEqual(
        result.outcomes.map((o) => o.status),
        ['loaded', 'loaded'],
      );
      assert.equal(rows(PEOPLE).length, 3);
    } finally {
      server.close();
    }
  });

  test('the CLI reports each resource and exits 1 when one fails', async () => {
    const run = promisify(execFile);
    writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify(catalogJson()));
    writeSources();
    const cli = path.join(PROJECT_ROOT, 'dist', 'src', 'cli', 'count-centre-load.js');
    const ok = await run(process.execPath, [
      cli,
      '--catalog',
      path.join(dir, 'catalog.json'),
      '--sources',
      sources,
      '--db',
      db,
      '--force',
    ]);
    assert.match(ok.stdout, /store updated/);
    assert.match(ok.stdout, /loaded\s+11111111-0000-4000-8000-000000000001\s+People\s+3 /);
    writeSources('Name,Votes,Birth Date\r\nA,x,\r\n');
    await assert.rejects(
      run(process.execPath, [cli, '--catalog', path.join(dir, 'catalog.json'), '--sources', sources, '--db', db]),
      (err: { code: number; stdout: string }) =>
        err.code === 1 &&
        /kept-previous\s+11111111-0000-4000-8000-000000000001[\s\S]*\n {2}11111111-0000-4000-8000-000000000001: people\.csv, line 2, column 2/.test(
          err.stdout,
        ),
    );
  });
});
