// `count-centre add` as a publisher runs it: a server is running (its own process), and the CLI, in another process,
// publishes a Windows-1252, semicolon-separated CSV with day-first dates, decimals, empty cells and accents. The
// server answers for the new resource within seconds, with the inferred types and the right values; --dry-run
// changes nothing. On both stores.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import iconv from 'iconv-lite';
import { createTestDatabase, httpCall, TEST_BACKENDS } from '../helpers/service.js';
import { folderEnv, indexesBuilt, runCli, startServerProcess, type ServerProcess } from '../helpers/processes.js';

const RESOURCE = '3c0ffee0-1111-4222-8333-444455556666';

const CSV =
  [
    'Constituency;Polling day;Turnout %;Votes;Seats;Note',
    'Dún Laoghaire;08/02/2020;62,5;;4;Fáilte',
    'Cork South-Central;13/02/2020;59.25;12345;4;"quoted; with a semicolon"',
    'Galway West;;61.0;9876;5;',
    'Kerry;29/11/2024;;10001;5;Ciarraí',
  ]
    .join('\r\n')
    .replace('62,5', '62.5') + '\r\n';

for (const backend of TEST_BACKENDS)
  describe(`count-centre add, beside a running server [${backend}]`, () => {
    let dir: string;
    let server: ServerProcess;
    let env: Record<string, string>;
    let database: { url: string; drop(): Promise<void> } | null = null;

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-add-'));
      writeFileSync(path.join(dir, 'seed.csv'), 'Name,Value\nA,1\n');
      writeFileSync(
        path.join(dir, 'catalog.json'),
        '{\n  "datasets": [\n    {\n      "name": "seed",\n      "resources": [\n        {"id": "seed-1", "name": "Seed", "source": {"path": "seed.csv"}, "fields": [{"id": "Name", "type": "text"}, {"id": "Value", "type": "int4"}]}\n      ]\n    }\n  ]\n}\n',
      );
      writeFileSync(path.join(dir, 'turnout.csv'), iconv.encode(CSV, 'windows-1252'));
      if (backend === 'postgres') database = await createTestDatabase();
      env = folderEnv(dir, { databaseUrl: database?.url });
      server = await startServerProcess(env);
      await indexesBuilt(server);
    });
    after(async () => {
      await server?.stop();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('--dry-run prints the schema and the entry, and writes nothing', async () => {
      const catalogBefore = readFileSync(env.COUNTCENTRE_CATALOG!, 'utf8');
      const storeBefore = backend === 'sqlite' ? statSync(env.COUNTCENTRE_DB!).mtimeMs : 0;
      const run = await runCli(
        ['add', path.join(dir, 'turnout.csv'), '--id', RESOURCE, '--dataset', 'turnout', '--dry-run'],
        env,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /4 records; Windows-1252; semicolon-separated; quoted fields/);
      assert.match(
        run.stdout,
        /Polling day\s+date\s+DD\/MM\/YYYY\s+1\s+08\/02\/2020\s+day first: line 3 has "13\/02\/2020"/,
      );
      assert.match(run.stdout, /not written \(--dry-run\)/);
      assert.equal(readFileSync(env.COUNTCENTRE_CATALOG!, 'utf8'), catalogBefore);
      if (backend === 'sqlite') assert.equal(statSync(env.COUNTCENTRE_DB!).mtimeMs, storeBefore);
      assert.equal(
        (await httpCall(server.port, `/api/3/action/datastore_search?resource_id=${RESOURCE}`)).statusCode,
        404,
      );
    });

    test('the file is published, typed, and served by the running server within seconds', async () => {
      const started = Date.now();
      const run = await runCli(
        [
          'add',
          path.join(dir, 'turnout.csv'),
          '--id',
          RESOURCE,
          '--dataset',
          'turnout',
          '--title',
          'Turnout by constituency',
        ],
        env,
      );
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const table = run.stdout.split('\n');
      const row = (field: string) =>
        table
          .find((l) => l.startsWith(field))
          ?.split(/\s{2,}/)
          .slice(0, 2);
      assert.deepEqual(
        [row('Constituency'), row('Polling day'), row('Turnout %'), row('Votes'), row('Seats'), row('Note')],
        [
          ['Constituency', 'text'],
          ['Polling day', 'date'],
          ['Turnout %', 'numeric'],
          ['Votes', 'int4'],
          ['Seats', 'int4'],
          ['Note', 'text'],
        ],
      );
      let answer;
      for (;;) {
        answer = await httpCall(server.port, `/api/3/action/datastore_search?resource_id=${RESOURCE}`);
        if (answer.statusCode === 200 || Date.now() - started > 15_000) break;
        await delay(50);
      }
      assert.equal(answer.statusCode, 200, 'served without a restart');
      const { result } = JSON.parse(answer.body);
      assert.deepEqual(result.fields, [
        { id: '_id', type: 'int' },
        { id: 'Constituency', type: 'text' },
        { id: 'Polling day', type: 'date' },
        { id: 'Turnout %', type: 'numeric' },
        { id: 'Votes', type: 'int4' },
        { id: 'Seats', type: 'int4' },
        { id: 'Note', type: 'text' },
      ]);
      assert.deepEqual(result.records, [
        {
          _id: 1,
          Constituency: 'Dún Laoghaire',
          'Polling day': '2020-02-08',
          'Turnout %': 62.5,
          Votes: null,
          Seats: 4,
          Note: 'Fáilte',
        },
        {
          _id: 2,
          Constituency: 'Cork South-Central',
          'Polling day': '2020-02-13',
          'Turnout %': 59.25,
          Votes: 12345,
          Seats: 4,
          Note: 'quoted; with a semicolon',
        },
        { _id: 3, Constituency: 'Galway West', 'Polling day': null, 'Turnout %': 61, Votes: 9876, Seats: 5, Note: '' },
        {
          _id: 4,
          Constituency: 'Kerry',
          'Polling day': '2024-11-29',
          'Turnout %': null,
          Votes: 10001,
          Seats: 5,
          Note: 'Ciarraí',
        },
      ]);
      // A numeric keeps the digits the file gave it: "61.0" is served as 61.0, in JSON and in CSV.
      assert.match(
        answer.body,
        /"records": \[\{"_id":1,.*"Turnout %":62\.5,.*\{"_id":3,"Constituency":"Galway West","Polling day":null,"Turnout %":61\.0,/,
      );
      const csvRecords = JSON.parse(
        (
          await httpCall(
            server.port,
            `/api/3/action/datastore_search?resource_id=${RESOURCE}&fields=${encodeURIComponent('Turnout %')}&records_format=csv`,
          )
        ).body,
      );
      assert.equal(csvRecords.result.records, '62.5\n59.25\n61.0\n\n');
      const filtered = JSON.parse(
        (
          await httpCall(
            server.port,
            `/api/3/action/datastore_search?resource_id=${RESOURCE}&filters=${encodeURIComponent('{"Seats": 5}')}&sort=Votes%20desc`,
          )
        ).body,
      );
      assert.deepEqual(
        filtered.result.records.map((r: { Constituency: string }) => r.Constituency),
        ['Kerry', 'Galway West'],
      );
      const catalogue = readFileSync(env.COUNTCENTRE_CATALOG!, 'utf8');
      assert.ok(
        catalogue.startsWith(
          '{\n  "datasets": [\n    {\n      "name": "seed",\n      "resources": [\n        {"id": "seed-1"',
        ),
        'the entries already there are as they were',
      );
      assert.match(catalogue, /"source": \{"path": "turnout.csv", "encoding": "windows-1252", "delimiter": ";"\},\n/);
      assert.match(catalogue, /\{"id": "Polling day", "type": "date", "format": "DD\/MM\/YYYY"\},\n/);
    });

    test('a row past the first 100,000 that does not fit their types: read again whole, explained once, no ERROR line', async () => {
      // Types come from the first 100,000 records and every later one is checked as it loads; this one is past them.
      const longName = 'Amount in cent (the column that people sum up by office and year)';
      const lines = [`Code,${longName}`];
      for (let i = 1; i <= 100_000; i++) lines.push(`C${i},${i % 997}`);
      lines.push('C100001,3000000000');
      writeFileSync(path.join(dir, 'amounts.csv'), lines.join('\n') + '\n');
      const id = '3c0ffee0-2222-4222-8333-444455556666';
      const run = await runCli(['add', path.join(dir, 'amounts.csv'), '--id', id, '--dataset', 'amounts'], env);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(
        run.stdout,
        /A record beyond the first 100,000 did not fit what they showed: amounts\.csv, line 100002, column 2: field "Amount in cent \(the column that people sum up by office and year\)" \(int4\): "3000000000" is out of range for int4\nReading the whole file to decide again\.\n/,
      );
      assert.equal(run.stdout.match(/did not fit/g)?.length, 1);
      assert.doesNotMatch(run.stderr, /ERROR|load failed/, 'the failure it recovered from is not logged as an error');
      // Names past 40 characters are cut in the table, and said to be.
      const cut = 'Amount in cent (the column that people …';
      assert.match(
        run.stdout,
        new RegExp(
          `^${cut.replace(/[()]/g, '\\$&')}\\s+int8\\s+0\\s+1\\s+whole numbers beyond int4: line 100,002 has "3000000000"$`,
          'm',
        ),
      );
      assert.match(
        run.stdout,
        /Long field names are cut short above; the catalogue entry \(--dry-run prints it\) has them whole\./,
      );
      assert.match(run.stdout, /^loaded +3c0ffee0-2222-4222-8333-444455556666 +Amounts +100,001 /m);
      const answer = await httpCall(
        server.port,
        `/api/3/action/datastore_search?resource_id=${id}&filters=${encodeURIComponent(JSON.stringify({ [longName]: 3000000000 }))}`,
      );
      assert.equal(answer.statusCode, 200, answer.body);
      const { result } = JSON.parse(answer.body);
      assert.deepEqual(result.fields, [
        { id: '_id', type: 'int' },
        { id: 'Code', type: 'text' },
        { id: longName, type: 'int8' },
      ]);
      assert.deepEqual(result.records, [{ _id: 100_001, Code: 'C100001', [longName]: 3000000000 }]);
      assert.equal(result.total, 1);
    });

    test('a TSV whose quote past the first 100,000 rows never closes: read again with quotes as characters', async () => {
      const lines = ['name\tversion\tsummary'];
      for (let i = 1; i <= 100_500; i++) lines.push(`pkg${i}\tv${i}\tsummary ${i}`);
      lines[100_200] = 'cut\tv0\t"A summary cut short';
      writeFileSync(path.join(dir, 'late-quote.tsv'), lines.join('\n') + '\n');
      const id = '3c0ffee0-3333-4222-8333-444455556666';
      const run = await runCli(['add', path.join(dir, 'late-quote.tsv'), '--id', id, '--dataset', 'late'], env);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(
        run.stdout,
        /A record beyond the first 100,000 did not fit what they showed: late-quote\.tsv, line 100201: a quote opens a field here that runs on over 301 lines, taking in what look like whole rows; if the file's quotes are characters rather than quoting, read it with --quotes literal \(in the catalogue: "quotes": "literal"\)\nReading the whole file to decide again\.\n100,500 records; UTF-8; tab-separated; quotes read as characters: read as quoting, the quote on line 100,201 would run on over 301 lines, taking in whole rows \(--quotes csv to read them as quoting\)\n/,
      );
      assert.doesNotMatch(run.stderr, /ERROR/);
      const answer = await httpCall(
        server.port,
        `/api/3/action/datastore_search?resource_id=${id}&filters=${encodeURIComponent('{"name": ["cut", "pkg100199"]}')}&sort=_id`,
      );
      assert.equal(answer.statusCode, 200, answer.body);
      const { result } = JSON.parse(answer.body);
      assert.deepEqual(result.records, [
        { _id: 100_199, name: 'pkg100199', version: 'v100199', summary: 'summary 100199' },
        { _id: 100_200, name: 'cut', version: 'v0', summary: '"A summary cut short' },
      ]);
      assert.equal(
        JSON.parse((await httpCall(server.port, `/api/3/action/datastore_search?resource_id=${id}&limit=0`)).body)
          .result.total,
        100_500,
      );
    });

    test('a file the loader cannot read: the line and column are named, exit code 3, nothing written', async () => {
      writeFileSync(path.join(dir, 'broken.csv'), 'a,b\n1,2\n3,4,5\n');
      const catalogBefore = readFileSync(env.COUNTCENTRE_CATALOG!, 'utf8');
      const run = await runCli(['add', path.join(dir, 'broken.csv')], env);
      assert.equal(run.code, 3);
      assert.match(run.stderr, /broken\.csv, line 3, column 3: row has 3 cells, the header has 2/);
      assert.equal(readFileSync(env.COUNTCENTRE_CATALOG!, 'utf8'), catalogBefore);
    });

    test("usage mistakes exit 2, with the command's help pointed to", async () => {
      const run = await runCli(['add'], env);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /add takes one FILE or URL\nRun count-centre add --help/);
      const unknown = await runCli(['publish'], env);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown command "publish"/);
    });
  });
