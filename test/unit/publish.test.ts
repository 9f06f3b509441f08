// The pure parts of publishing: schema inference, catalogue editing, readable logs, progress lines, the mirror's type
// mapping and verification; and the program's --help and --version.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { renderCatalogJson, withResource } from '../../src/catalog/edit.js';
import { LoadProgressReporter, progressLine, summaryTable } from '../../src/cli/progress.js';
import { looksMidReload, mappedType, verifyCopy, type Probe } from '../../src/ingest/ckan/mirror.js';
import { decodeSource, detectDelimiter, inferColumnType, inferCsv } from '../../src/ingest/infer.js';
import { LoadError } from '../../src/ingest/csv.js';
import { readableLine } from '../../src/logging.js';
import { PROJECT_ROOT } from '../../src/settings.js';
import { COUNT_CENTRE_VERSION } from '../../src/version.js';
import { runCli } from '../helpers/processes.js';

const cells = (...values: string[]) => values.map((value, i) => ({ value, line: i + 2 }));

describe('schema inference', () => {
  test('encodings: UTF-8 with and without BOM, else Windows-1252', () => {
    assert.deepEqual(decodeSource(Buffer.from('\ufeffé,b', 'utf8')), { text: 'é,b', encoding: 'utf-8', hasBom: true });
    assert.deepEqual(decodeSource(Buffer.from('é,b', 'utf8')), { text: 'é,b', encoding: 'utf-8', hasBom: false });
    assert.deepEqual(decodeSource(iconv.encode('Dún’s,€', 'windows-1252')), { text: 'Dún’s,€', encoding: 'windows-1252', hasBom: false });
  });

  test('delimiters: comma, semicolon, tab, each ignoring the others inside quotes', () => {
    assert.equal(detectDelimiter('a,b,c\n1,2,3\n'), ',');
    assert.equal(detectDelimiter('a;b;c\n1,5;2;"x,y"\n'), ';');
    assert.equal(detectDelimiter('a\tb\n"1;2"\t3\n'), '\t');
    assert.equal(detectDelimiter('"a,b";c;d\n1;2;3\n'), ';');
    assert.equal(detectDelimiter('single\n1\n'), ',');
  });

  test('types, each checked with the loader\'s own parsers', () => {
    assert.equal(inferColumnType(cells('1', '-20', '300')).type, 'int4');
    assert.equal(inferColumnType(cells('1', '3000000000')).type, 'int8');
    assert.equal(inferColumnType(cells('1.5', '2', '-0.25', '1e3')).type, 'numeric');
    assert.deepEqual(inferColumnType(cells('2020-02-08', '2024-11-29T10:30:00')), { type: 'timestamp', format: 'ISO', note: null });
    assert.equal(inferColumnType(cells('08/02/2020', '29/11/2024 09:15')).format, 'DD/MM/YYYY');
    assert.equal(inferColumnType(cells('02/08/2020', '11/29/2024')).format, 'MM/DD/YYYY');
    assert.equal(inferColumnType(cells('x', 'y')).type, 'text');
  });

  test('an ambiguous column stays text, and says why', () => {
    const why = (...values: string[]) => inferColumnType(cells(...values)).note;
    assert.match(why('01/02/2020', '03/04/2021')!, /read both as DD\/MM\/YYYY and MM\/DD\/YYYY .*--date-format/);
    assert.equal(inferColumnType(cells('01/02/2020'), { dateFormat: 'DD/MM/YYYY' }).format, 'DD/MM/YYYY');
    assert.match(why('0123', '45')!, /line 2 has "0123": its leading zero would be lost/);
    assert.match(why('1', '2', 'n/a')!, /2 of 3 values are numbers, but line 4 has "n\/a"/);
    assert.match(why('1,234', '5')!, /thousands separators/);
    assert.match(why('3,5', '4')!, /decimal comma/);
    assert.match(why('99999999999999999999')!, /beyond what is held exactly/);
    assert.match(why('31/02/2020')!, /neither day-first nor month-first/);
    assert.equal(inferColumnType([]).note, 'every cell is empty');
  });

  test('a whole file: headers made field ids, empty cells counted, trailing notes dropped', () => {
    const schema = inferCsv(Buffer.from('\ufeff_id,Name ,Total\r\n1,"Ó Sé, Máire",5\r\n2,,\r\nThis is a provisional result.\r\n'), { name: 'f.csv' });
    assert.deepEqual(schema.columns.map((c) => [c.header, c.id, c.type, c.empty]), [['_id', 'id', 'int4', 0], ['Name', 'Name', 'text', 1], ['Total', 'Total', 'int4', 1]]);
    assert.deepEqual([schema.encoding, schema.hasBom, schema.delimiter, schema.quoted, schema.records], ['utf-8', true, ',', true, 2]);
  });

  test('what the loader cannot read is named by line and column', () => {
    assert.throws(() => inferCsv(Buffer.from('a,b\n1,2\n3\n'), { name: 'x.csv' }), (err: unknown) => err instanceof LoadError && err.message === 'x.csv, line 3, column 2: row has 1 cells, the header has 2 (is the delimiter "," right?)');
    assert.throws(() => inferCsv(Buffer.from('a,b\n1,"2\n'), { name: 'x.csv' }), /x\.csv.*a quoted field opens and is never closed/);
    assert.throws(() => inferCsv(Buffer.from('a,a\n1,2\n'), { name: 'x.csv' }), /x\.csv, line 1, column 2: the header names "a" twice/);
    assert.throws(() => inferCsv(Buffer.from(''), { name: 'x.csv' }), /the file is empty/);
  });
});

describe('catalogue editing', () => {
  const original = '{\n  "full_text_language": "english",\n  "datasets": [\n    {\n      "name": "a",   "title": "Kept  as is",\n      "resources": [\n        {"id": "r1", "name": "R1", "source": {"path": "a.csv"}, "fields": [{"id": "x", "type": "text"}]}\n      ]\n    }\n  ]\n}\n';
  const entry = { id: 'r2', name: 'R2', source: { path: 'b.csv', delimiter: ';' }, fields: [{ id: 'Constituency name', type: 'text' }, { id: 'Polling day', type: 'timestamp', format: 'DD/MM/YYYY' }, { id: 'Votes', type: 'int4' }] };

  test('a resource is appended to its dataset; everything else stays byte for byte', () => {
    const text = withResource(original, { name: 'a' }, entry);
    assert.ok(text.startsWith(original.slice(0, original.indexOf('\n      ]'))), 'the text before the insertion is unchanged');
    assert.ok(text.endsWith('\n      ]\n    }\n  ]\n}\n'));
    assert.match(text, /\n {8}\{\n {10}"id": "r2",\n {10}"name": "R2",\n {10}"source": \{"path": "b.csv", "delimiter": ";"\},\n {10}"fields": \[\n {12}\{"id": "Constituency name", "type": "text"\},/);
    assert.deepEqual(JSON.parse(text).datasets[0].resources[1], entry);
  });

  test('a new dataset is appended; the same id again is replaced in place', () => {
    const added = withResource(original, { name: 'b', title: 'B' }, entry);
    assert.deepEqual(JSON.parse(added).datasets.map((d: { name: string }) => d.name), ['a', 'b']);
    const replaced = withResource(added, { name: 'b' }, { ...entry, name: 'Renamed' });
    assert.equal(JSON.parse(replaced).datasets[1].resources.length, 1);
    assert.equal(JSON.parse(replaced).datasets[1].resources[0].name, 'Renamed');
    assert.equal(replaced.replace('"Renamed"', '"R2"'), added);
  });

  test('short values on one line, long ones broken', () => {
    assert.equal(renderCatalogJson({ a: [1, 2], b: { c: 'd' } }), '{"a": [1, 2], "b": {"c": "d"}}');
    assert.equal(renderCatalogJson({ list: ['x'.repeat(60), 'y'.repeat(60)] }), `{\n  "list": [\n    "${'x'.repeat(60)}",\n    "${'y'.repeat(60)}"\n  ]\n}`);
  });
});

describe('logs and progress', () => {
  test('a readable line: local time, level, message, facts', () => {
    const time = new Date(2026, 10, 23, 9, 5, 7, 42).getTime();
    assert.equal(readableLine(JSON.stringify({ level: 30, time, pid: 1, resource: 'r1', rows: 531, msg: 'loaded Candidates' }), false), '09:05:07.042 INFO  loaded Candidates resource=r1 rows=531');
    assert.equal(readableLine(JSON.stringify({ level: 30, time, method: 'GET', url: '/api/3/action/x', status: 409, ms: 1.5, bytes: 90, action: 'x', msg: 'request' }), false),
      '09:05:07.042 INFO  GET /api/3/action/x 409 1.5 ms bytes=90 action=x');
    assert.equal(readableLine(JSON.stringify({ level: 50, time, msg: 'failed', err: { message: 'boom', stack: '…' } }), false), '09:05:07.042 ERROR failed err=boom');
  });

  test('on a terminal, a live line once a load has taken a second; elsewhere a log line every few seconds', () => {
    let now = 0;
    const written: string[] = [];
    const terminal = { write: (s: string) => void written.push(s) } as unknown as NodeJS.WriteStream;
    const logged: string[] = [];
    const logger = { info: (_o: unknown, m: string) => void logged.push(m) } as unknown as import('pino').Logger;
    const resource = { id: 'r1', name: 'Counts' } as import('../../src/catalog/types.js').ResourceDefinition;
    const live = new LoadProgressReporter({ terminal, logger, now: () => now });
    live.start(resource, 1000);
    now = 500;
    live.rows(100);
    assert.deepEqual(written, [], 'nothing within the first second');
    now = 2000;
    live.rows(500);
    assert.deepEqual(written, ['\r\x1b[K' + 'Counts: 500 of 1,000 records, 250/s, 2.0 s left']);
    live.end({ id: 'r1', name: 'Counts', status: 'loaded', rows: 1000, error: null, ms: 4000 });
    assert.equal(written.at(-1), '\r\x1b[K', 'the line is cleared for the summary');
    const plain = new LoadProgressReporter({ terminal: null, logger, now: () => now });
    now = 0;
    plain.start(resource, null);
    for (now = 1000; now <= 11_000; now += 1000) plain.rows(now);
    assert.deepEqual(logged, ['Counts: 5,000 records, 1,000/s', 'Counts: 10,000 records, 1,000/s']);
  });

  test('a progress line: records, rate, time left', () => {
    assert.equal(progressLine('Counts', 250_000, 1_000_000, 2500), 'Counts: 250,000 of 1,000,000 records, 100,000/s, 7.5 s left');
    assert.equal(progressLine('Counts', 5000, null, 1000), 'Counts: 5,000 records, 5,000/s');
    const table = summaryTable([{ id: 'r1', name: 'One', status: 'loaded', rows: 1000, error: null, ms: 500 }, { id: 'r2', name: 'Two', status: 'kept-previous', rows: 3, error: 'upstream gone', ms: 10 }]);
    assert.equal(table, [
      'status         resource  name  records    time     rate',
      '-------------  --------  ----  -------  ------  -------',
      'loaded         r1        One     1,000  500 ms  2,000/s',
      'kept-previous  r2        Two         3',
      '',
      '  r2: upstream gone',
    ].join('\n'));
  });
});

describe('the mirror\'s rules', () => {
  const probe = (over: Partial<Probe> = {}): Probe => ({ total: 10, maxId: 12, fields: [], fieldsHash: 'f', modified: 'm', oid: '1', tailHash: 't', fingerprint: 'x', ...over });

  test('types: the DataStore\'s own kept, the rest said', () => {
    assert.deepEqual(mappedType('int8'), { type: 'int8', note: null });
    assert.deepEqual(mappedType('int2'), { type: 'int4', note: 'upstream int2, served as int4' });
    assert.deepEqual(mappedType('_text'), { type: 'text', note: 'upstream _text, served as its text' });
  });

  test('a copy is verified against the probes before and after', () => {
    verifyCopy(probe(), probe(), { count: 10, lastId: 12 });
    assert.throws(() => verifyCopy(probe(), probe({ total: 11, maxId: 13 }), { count: 10, lastId: 12 }), /changed during the copy/);
    assert.throws(() => verifyCopy(probe(), probe({ fieldsHash: 'g' }), { count: 10, lastId: 12 }), /fields changed/);
    assert.throws(() => verifyCopy(probe(), probe(), { count: 9, lastId: 12 }), /9 records were copied, but the portal counts 10/);
  });

  test('a sudden drop with unchanged metadata is a reload in progress; a drop with new metadata is a change', () => {
    const previous = { total: 100, fieldsHash: 'f', modified: 'm' };
    assert.match(looksMidReload(probe({ total: 0 }), previous)!, /no records where 100 were copied/);
    assert.match(looksMidReload(probe({ total: 40 }), previous)!, /shows 40 records where 100/);
    assert.equal(looksMidReload(probe({ total: 60 }), previous), null);
    assert.equal(looksMidReload(probe({ total: 0, modified: 'n' }), previous), null);
    assert.equal(looksMidReload(probe({ total: 0 }), null), null);
  });
});

describe('the program', () => {
  test('--version is the package\'s', async () => {
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
    assert.equal(COUNT_CENTRE_VERSION, pkg.version);
    assert.deepEqual(pkg.bin, { 'count-centre': 'dist/src/cli/count-centre.js', 'count-centre-load': 'dist/src/ingest/cli.js' });
    const run = await runCli(['--version']);
    assert.deepEqual([run.code, run.stdout], [0, `${pkg.version}\n`]);
  });

  test('--help on every command', async () => {
    for (const command of ['serve', 'load', 'add', 'mirror']) {
      const run = await runCli([command, '--help']);
      assert.equal(run.code, 0, command);
      assert.match(run.stdout, new RegExp(`^Usage: count-centre ${command}`), command);
    }
    const all = await runCli(['--help']);
    assert.match(all.stdout, /Commands:\n {2}serve[\s\S]*Exit codes: 0 done; 1/);
  });
});
