// `count-centre add FILE`, with no options, on the table files people actually have: files shaped like the ones that
// were refused or misread (short rows, mixed line endings, Excel's "Unicode text", title lines above the header,
// pipes and spaces, decimal commas and thousands separators, Windows-1252, leading zeros, JSON in its common shapes,
// NDJSON), an Excel workbook and Parquet files, and real files from Debian's and npm's packages. The catalogue `add`
// writes is then served by each store,
// and every table is checked through the API: totals, field types and values. Files nothing reads exit 3 in a sentence.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import iconv from 'iconv-lite';
import { PROJECT_ROOT } from '../../src/settings.js';
import * as arrow from 'apache-arrow';
import { sampleRow, writeArrowTable, writeSampleWithArrow } from '../helpers/parquet-files.js';
import { folderEnv, runCli } from '../helpers/processes.js';
import { writeWithExcelJs } from '../helpers/xlsx-files.js';
import { startService, TEST_BACKENDS, type TestService } from '../helpers/service.js';

/** A file of the corpus: its name and bytes, and the resource id `add` is given (so tests can find it). */
interface CorpusFile {
  name: string;
  bytes: Buffer | string;
  id: string;
}

const id = (n: number) => `0000f11e-0000-4000-8000-${String(n).padStart(12, '0')}`;

const CORPUS: CorpusFile[] = [
  {
    // Debian's distro-info layout: rows leave out their trailing empty cells.
    name: 'releases.csv',
    id: id(1),
    bytes:
      'version,codename,series,created,release,eol,eol-lts,eol-elts\n1.1,Buzz,buzz,1993-08-16,1996-06-17,1997-06-05\n' +
      '7,Wheezy,wheezy,2011-02-06,2013-05-04,2016-04-25,2018-05-31,2020-06-30\n14,Forky,forky,2025-08-09\n',
  },
  {
    // A DataStore dump's bytes: CRLF after the header, LF after each record, a quoted line break, its own _ids.
    name: 'dump.csv',
    id: id(2),
    bytes: '_id,Name,Votes\r\n5,"Ó Sé, Máire",1200\n9,"two\nlines",7\n12,Ann,\n',
  },
  {
    // Excel's "Unicode text": UTF-16 LE with a BOM, tab-separated, CRLF.
    name: 'unicode-text.txt',
    id: id(3),
    bytes: Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      iconv.encode(
        'Constituency\tSeats\tTurnout\r\nDún Laoghaire\t4\t62.5\r\nCork South-Central\t4\t59.25\r\n',
        'utf16le',
      ),
    ]),
  },
  {
    // A statistics office's export: title lines above the header, a note below the table.
    name: 'population.csv',
    id: id(4),
    bytes:
      'Table 1: Population by county, 2022\r\nSource: Census of Population\r\n\r\nCounty,Males,Females\r\nCork,288513,295515\r\nKerry,77143,78115\r\nNote: provisional figures\r\n',
  },
  { name: 'pipes.psv', id: id(5), bytes: 'id|name|city\n1|Ann Lee|Cork\n2|Bo|Tralee, Kerry\n' },
  { name: 'spaces.txt', id: id(6), bytes: 'station rain_mm days\nValentia 1557.6 231\nDublin 758.1 190\n' },
  {
    // European Excel: semicolons, decimal commas, thousands points, day-first dates, Windows-1252.
    name: 'european.csv',
    id: id(7),
    bytes: iconv.encode(
      'Région;Taux;Population;Date\r\nÎle-de-France;62,5;12.317.279;08/02/2020\r\nBretagne;59,25;3.402.932;13/02/2020\r\n',
      'windows-1252',
    ),
  },
  { name: 'thousands.csv', id: id(8), bytes: 'Item,Amount,Count\nA,"1,234,567.5","2,000"\nB,"12.25",7\n' },
  { name: 'zips.csv', id: id(9), bytes: 'zip,city\n00501,Holtsville\n90210,Beverly Hills\n' },
  {
    name: 'records.json',
    id: id(10),
    bytes: JSON.stringify(
      [
        { name: 'Ann', age: 41, member: true, address: { city: 'Cork' }, joined: '2020-02-08' },
        { name: 'Bo', age: null, member: false, address: null, joined: '2021-11-29' },
        {
          name: 'Cy',
          age: 7,
          member: true,
          address: { city: 'Sligo' },
          joined: '2024-01-31',
          note: 'a key first seen here',
        },
      ],
      null,
      2,
    ),
  },
  {
    name: 'wrapped.json',
    id: id(11),
    bytes: JSON.stringify({
      meta: { source: 'x', generated: '2026-11-25' },
      data: [
        { code: 'IE', value: 1.5 },
        { code: 'FR', value: 2 },
      ],
    }),
  },
  {
    // CKAN's own answer to datastore_search: records beside typed fields.
    name: 'ckan-answer.json',
    id: id(12),
    bytes: JSON.stringify({
      help: 'https://example.org/api/3/action/help_show?name=datastore_search',
      success: true,
      result: {
        records: [
          { _id: 1, Party: 'Fianna Fáil', Seats: 38 },
          { _id: 2, Party: 'Sinn Féin', Seats: 37 },
        ],
        fields: [
          { id: '_id', type: 'int' },
          { id: 'Party', type: 'text' },
          { id: 'Seats', type: 'numeric' },
        ],
        total: 2,
      },
    }),
  },
  {
    name: 'events.ndjson',
    id: id(13),
    bytes: '{"at":"2020-02-08T09:15:00","kind":"open","n":1}\n{"at":"2020-02-08T22:00:00","kind":"close","n":2}\n',
  },
  {
    name: 'latin.csv',
    id: id(14),
    bytes: iconv.encode('Name,Note\nMurnane O’Connor,Fáilte\nÓ Ríordáin,€5\n', 'windows-1252'),
  },
  {
    // A package index's TSV, which never quotes: a summary that is a quotation, one that starts with a quoted word,
    // and one cut short after its opening quote, which CSV's quoting would run on through the rows below it.
    name: 'packages.tsv',
    id: id(15),
    bytes:
      'name\tversion\tsummary\n' +
      'advlog\t1.0.8\t"Advanced logger (e.g. Java and Kotlin)."\n' +
      'agentk\t0.3.2\t"AGENT" K is a kubectl "doner"-wrap\n' +
      'scraper\t0.2.2\t"A simple library to help a developer who\n' +
      'url-tool\t0.1.4\tamazon_affiliate_url\n' +
      'argschema\t3.0.4\t"a wrapper"\n' +
      'zeta\t1.0\t12" pizza\n',
  },
  {
    // PostgreSQL's COPY … TO in its text format (MySQL's INTO OUTFILE writes the same): \N for NULL, backslash escapes,
    // quotes that are characters.
    name: 'pg-export.tsv',
    id: id(16),
    bytes:
      'oid\tname\tsize\tnote\n' +
      '16\tbool\t1\t\\N\n' +
      '17\tbytea\t\\N\ttab\\there, line\\nbreak\n' +
      '18\tchar\t-1\tC:\\\\temp "quoted\n' +
      '19\tname\t64\t\\101\\x42\n',
  },
  // pandas' to_csv: its index under an empty header; and a header that repeats a name.
  { name: 'pandas.csv', id: id(17), bytes: ',Name,Name,Score\n0,Ann,Lee,1.5\n1,Bo,Ng,2\n' },
  {
    // A spreadsheet's tab-separated export, which quotes a cell holding a line break and a tab: quoting, not a runaway.
    name: 'notes.tsv',
    id: id(18),
    bytes: 'id\tnote\tby\tyear\n1\t"first line\tindented\nsecond line"\tAnn\t2020\n2\tplain\tBo\t2021\n',
  },
  {
    // A CKAN 2.10 TSV dump's bytes (quoted as CSV is) of a table whose text holds a \N and a backslash: not the text
    // format.
    name: 'ckan-dump.tsv',
    id: id(19),
    bytes: '_id\tname\tzip\tnote\r\n2\t"say ""hi"""\t""\t\n5\t\\N\tback\\slash\tx\n',
  },
  {
    // MariaDB's SELECT … INTO OUTFILE (these bytes are what it wrote): no header, \N for NULL, and a tab, a line break
    // and a backslash in a value escaped by a backslash before the character itself.
    name: 'mysql-outfile.tsv',
    id: id(24),
    bytes:
      '1\tAnn\t1990-02-03\t12.50\t\\N\n' +
      '2\tBríd\t1985-11-30\t7.25\ttab\\\there\n' +
      '3\tConn\t2001-01-01\t\\N\tline\\\nbreak\n' +
      '4\tDáithí\t1979-06-15\t99.99\tback\\\\slash\n',
  },
  // An instrument's log, written with no header: a time, a reading, a count.
  {
    name: 'logger.csv',
    id: id(25),
    bytes: '2024-03-01T10:00:00Z,12.5,3\n2024-03-01T10:10:00Z,13.25,0\n2024-03-01T10:20:00Z,-1.5,12\n',
  },
  {
    // mysql --batch (mysql -B -e "select …" > file), these bytes as MariaDB 10.11 wrote them: a header, NULL as the word
    // NULL (a NULL text and the text 'NULL' alike), backslash escapes.
    name: 'mysql-batch.tsv',
    id: id(27),
    bytes:
      'id\tname\tborn\tscore\tnote\n' +
      '1\tAnn\t1990-02-03\t12.50\tNULL\n' +
      '2\tBríd\t1985-11-30\tNULL\ttab\\there\n' +
      '3\tConn\tNULL\t3.00\tline\\nbreak\n' +
      '4\tDáithí\t1979-06-15\t99.99\tback\\\\slash\n' +
      '5\tNULL\tNULL\tNULL\t\n',
  },
  {
    // psql's unaligned output (psql -A -F $'\t' -c "select …"), as psql 15 wrote it: a row count below the rows.
    name: 'psql-unaligned.txt',
    id: id(28),
    bytes: 'oid\ttypname\ttyplen\ttypdefault\n16\tbool\t1\t\n17\tbytea\t-1\t\n18\tchar\t1\t\n(3 rows)\n',
  },
  // R's write.csv: row names under an empty header, strings quoted, NA for a missing value (unquoted), and a text
  // column where "NA" is Namibia's code.
  {
    name: 'r-write.csv',
    id: id(29),
    bytes:
      '"","county","population","change","census_date","code"\n' +
      '"1","Cork",584156,3.5,2022-04-03,"NA"\n' +
      '"2","Kerry",NA,NA,NA,"IE"\n' +
      '"3","Offaly",83150,-1.25,2022-04-03,"NA"\n',
  },
  // A statistical office's table: ".." and ":" for not available, "-" for nil.
  { name: 'stat.csv', id: id(30), bytes: 'Region;2016;2022\nBorder;..;412\nWest;453;-\nMid-West;:;498\n' },
  // Years as column names over counts: a header, whose names are numbers.
  { name: 'by-year.csv', id: id(26), bytes: '2019,2020,2021\n120,135,150\n98,101,99\n' },
  // pandas' DataFrame.to_json in its other layouts, as pandas 2 writes them: orient="table" (a Table Schema beside
  // "data", its index a column), orient="split" (lists named by "columns"), orient="index" (records keyed by row).
  {
    name: 'pandas-table.json',
    id: id(34),
    bytes: JSON.stringify({
      schema: {
        fields: [
          { name: 'index', type: 'integer' },
          { name: 'county', type: 'string' },
          { name: 'population', type: 'integer' },
          { name: 'share', type: 'number' },
          { name: 'counted', type: 'datetime' },
        ],
        primaryKey: ['index'],
        pandas_version: '1.4.0',
      },
      data: [
        { index: 0, county: 'Cork', population: 584156, share: 11.3, counted: '2022-04-03T00:00:00.000' },
        { index: 1, county: 'Kerry', population: 156458, share: 3, counted: '2022-04-03T00:00:00.000' },
      ],
    }),
  },
  {
    name: 'pandas-split.json',
    id: id(35),
    bytes: '{"columns":["county","population"],"index":[0,1],"data":[["Cork",584156],["Kerry",156458]]}',
  },
  {
    name: 'pandas-index.json',
    id: id(36),
    bytes: '{"0":{"county":"Cork","population":584156},"1":{"county":"Kerry","population":null}}',
  },
  // And its default, orient="columns": each column an object keyed by row (here a float column pandas wrote as 3.0).
  {
    name: 'pandas-columns.json',
    id: id(45),
    bytes: '{"county":{"0":"Cork","1":"Kerry"},"population":{"0":584156,"1":null},"share":{"0":11.3,"1":3.0}}',
  },
  // GeoJSON as GIS tools export it (ogr2ogr, QGIS): a FeatureCollection with a crs, features with ids, a property
  // named "id" too, one feature lacking a property and one with a null geometry.
  {
    name: 'stations.geojson',
    id: id(37),
    bytes: JSON.stringify({
      type: 'FeatureCollection',
      name: 'stations',
      crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } },
      features: [
        {
          type: 'Feature',
          id: 1,
          properties: { id: 'VAL', name: 'Valentia', height: 24, opened: '1892-01-01' },
          geometry: { type: 'Point', coordinates: [-10.24, 51.94] },
        },
        {
          type: 'Feature',
          id: 2,
          properties: { id: 'MAL', name: 'Malin Head', opened: '1955-03-01' },
          geometry: null,
        },
      ],
    }),
  },
  // Excel's CSV of a sheet once formatted beyond its table: empty columns with no name, rows of nothing but commas
  // (between the rows, and below them).
  {
    name: 'excel-ghosts.csv',
    id: id(38),
    bytes: 'Name,Votes,Party,,,\r\nAnn,12,FF,,,\r\n,,,,,\r\nBo,7,FG,,,\r\n,,,,,\r\n,,,,,\r\n',
  },
  // A UTF-8 file with rows pasted in from a Windows-1252 one, below the first 256 KB that the first look reads, then
  // UTF-8 again: each kind of row reads right.
  {
    name: 'pasted.csv',
    id: id(39),
    bytes: Buffer.concat([
      Buffer.from(`name,place\n${Array.from({ length: 20000 }, (_, i) => `Ní ${i},Dublin\n`).join('')}`, 'utf8'),
      iconv.encode('José,Málaga\n', 'windows-1252'),
      Buffer.from('Zoë,Kraków\n', 'utf8'),
    ]),
  },
  // Tables shipped gzip-compressed: a CSV and an NDJSON file (the format is the content's, the name's before ".gz").
  { name: 'releases.csv.gz', id: id(40), bytes: gzipSync('version,codename\n12,Bookworm\n13,Trixie\n') },
  { name: 'events.ndjson.gz', id: id(41), bytes: gzipSync('{"n":1,"what":"a"}\n{"n":2,"what":"b"}\n') },
  // A portal's ZIP download: one table beside a read-me, in a folder, with macOS's resource fork.
  {
    name: 'download.zip',
    id: id(42),
    bytes: Buffer.from(
      zipSync({
        'data/README.txt': strToU8('Read me first.\n'),
        'data/counties.csv': strToU8('county;seats\r\nCork;18\r\nKerry;5\r\n'),
        '__MACOSX/data/._counties.csv': strToU8('\u0000\u0005\u0016\u0007'),
      }),
    ),
  },
  // The same as GeoJSONSeq (RFC 8142, as ogr2ogr writes it): a feature a line, each after a record separator.
  {
    name: 'stations.geojsons',
    id: id(43),
    bytes:
      '\u001e{"type":"Feature","id":1,"properties":{"name":"Valentia","height":24},"geometry":{"type":"Point","coordinates":[-10.24,51.94]}}\n' +
      '\u001e{"type":"Feature","id":2,"properties":{"name":"Malin Head","height":null},"geometry":null}\n',
  },
  // numpy's savetxt with a header (its default comment mark, space-separated, 18 digits in e-notation): the header's
  // "#" is a cell of its own over rows a cell narrower, and names no column.
  {
    name: 'savetxt.txt',
    id: id(44),
    bytes:
      '# id value square\n' +
      '1.000000000000000000e+00 0.000000000000000000e+00 0.000000000000000000e+00\n' +
      '2.000000000000000000e+00 2.500000000000000000e-01 1.000000000000000000e+00\n' +
      '3.000000000000000000e+00 5.000000000000000000e-01 4.000000000000000000e+00\n',
  },
  // Dates as exports write them: Oracle's DD-MON-YYYY, a German export's dots (day first, reading both ways here), year
  // first with slashes (East Asian locales), and written out.
  {
    name: 'dates-export.csv',
    id: id(33),
    bytes:
      'HIRED,Stichtag,登録日,Signed\n' +
      '01-MAR-2024,03.02.2024,2024/03/01,"March 1, 2024"\n' +
      '15-APR-2024,04.02.2024,2024/04/15,"April 15, 2024"\n',
  },
  // Excel's "sep=;" line above a European export, which names the delimiter and is no part of the table.
  { name: 'excel-sep.csv', id: id(32), bytes: 'sep=;\r\nName;Amount\r\nÁine;1,5\r\nBo;2,25\r\n' },
  // Separated by ", ", as people type them and as numpy's savetxt(delimiter=", ") and Python's ", ".join write them: a
  // quoted cell after the space, an empty cell.
  {
    name: 'spaced.csv',
    id: id(31),
    bytes:
      'station, reading, taken, note\n' +
      'Valentia, 12.5, 2024-03-01, "Kerry, south-west"\n' +
      'Malin Head, 9, 2024-03-02, north\n' +
      'Dublin Airport, , 2024-03-03, \n',
  },
  {
    // tzdata's zone1970.tab, cut short: a preamble of comment lines, the header written as one, tabs, commas inside
    // cells, and comment lines among the rows.
    name: 'zones.tab',
    id: id(46),
    bytes:
      '# tzdb timezone descriptions\n#\n# Columns are separated by a single tab, and codes by commas.\n#country-\n' +
      '#codes\tcoordinates\tTZ\tcomments\nAD\t+4230+00131\tEurope/Andorra\n' +
      'AE,OM,RE,SC,TF\t+2518+05518\tAsia/Dubai\tCrozet\n# Mention RU and UA alphabetically.\n#@AQ\tAntarctica/\n' +
      'AQ\t-6617+11031\tAntarctica/Casey\tCasey\n',
  },
  {
    // A sheet saved as CSV by a spreadsheet: its title and the blank line below it padded with empty cells.
    name: 'murders-title.csv',
    id: id(47),
    bytes:
      'Table 1: Murders by state,,,,\r\n,,,,\r\nstate,abb,region,population,total\r\n' +
      'Alabama,AL,South,4779736,135\r\nAlaska,AK,West,710231,19\r\n',
  },
];

/** Real files from packages the install command brings: Debian's distro-info-data, and an npm package's example. */
const DEBIAN_RELEASES = '/usr/share/distro-info/debian.csv';
const NPM_BOND_PRICES = path.join(PROJECT_ROOT, 'node_modules', 'ckan', 'examples', 'bond-prices.csv');

const UNUSUAL_READINGS: readonly (readonly [string | null, number])[] = [
  ['Roches Point', -0],
  ['Mace Head', 1e15],
  ['Shannon', 0.00001],
  ['Casement', 0.1],
  // A text column's null and its empty string are two values in Parquet, as in JSON: both kept.
  [null, 2.5],
  ['', 3.5],
];

describe('count-centre add on the files people have', () => {
  let dir: string;
  let env: Record<string, string>;
  const runs = new Map<string, { code: number | null; stdout: string; stderr: string }>();

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-publish-'));
    writeFileSync(path.join(dir, 'catalog.json'), '{\n  "datasets": []\n}\n');
    env = folderEnv(dir);
    for (const file of CORPUS) {
      writeFileSync(path.join(dir, file.name), file.bytes);
      runs.set(file.name, await runCli(['add', path.join(dir, file.name), '--id', file.id], env));
    }
    // A workbook as statistics offices send them: a title above the header, dates, true/false, a formula, two sheets.
    await writeWithExcelJs(path.join(dir, 'census.xlsx'), [
      {
        name: 'Counties',
        rows: [
          ['Census 2022: population by county'],
          [],
          ['County', 'Population', 'Counted on', 'Coastal', 'Per cent'],
          ['Cork', 584156, new Date('2022-04-03T00:00:00Z'), true, { formula: 'B4/5149139*100', result: 11.34 }],
          ['Offaly', 83150, new Date('2022-04-03T00:00:00Z'), false, { formula: 'B5/5149139*100', result: 1.61 }],
        ],
      },
      { name: 'Notes', rows: [['Note'], ['Provisional']] },
    ]);
    runs.set('census.xlsx', await runCli(['add', path.join(dir, 'census.xlsx'), '--id', id(20)], env));
    // Parquet as pyarrow and Spark write it, compressed with ZSTD and with GZIP.
    writeSampleWithArrow(path.join(dir, 'sample-zstd.parquet'), 1000, 'ZSTD', 300);
    writeSampleWithArrow(path.join(dir, 'sample-gzip.parquet'), 1000, 'GZIP');
    runs.set('sample-zstd.parquet', await runCli(['add', path.join(dir, 'sample-zstd.parquet'), '--id', id(21)], env));
    runs.set('sample-gzip.parquet', await runCli(['add', path.join(dir, 'sample-gzip.parquet'), '--id', id(22)], env));
    // Doubles as instruments write them: a negative zero, a large whole one, a small one (NaN and the infinities are
    // refused: the embedded store cannot keep them).
    writeArrowTable(
      path.join(dir, 'readings.parquet'),
      new arrow.Table({
        station: arrow.vectorFromArray(
          UNUSUAL_READINGS.map(([station]) => station),
          new arrow.Utf8(),
        ),
        reading: arrow.makeVector(Float64Array.from(UNUSUAL_READINGS.map(([, reading]) => reading))),
      }),
    );
    runs.set('readings.parquet', await runCli(['add', path.join(dir, 'readings.parquet'), '--id', id(23)], env));
    for (const [name, file] of [
      ['debian.csv', DEBIAN_RELEASES],
      ['bond-prices.csv', NPM_BOND_PRICES],
    ] as const) {
      runs.set(name, await runCli(['add', file, '--id', name === 'debian.csv' ? id(90) : id(91)], env));
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('every file publishes with no options, and says how it was read', async () => {
    for (const [name, run] of runs) assert.equal(run.code, 0, `${name}: ${run.stdout}${run.stderr}`);
    const said = (name: string) => runs.get(name)!.stdout.split('\n\n')[0];
    assert.equal(
      said('releases.csv'),
      '3 records; UTF-8; comma-separated; no quoted fields\n2 rows have fewer cells than the header (the first on line 2): padded with empty cells',
    );
    assert.equal(
      said('dump.csv'),
      '3 records; UTF-8; comma-separated; quoted fields\nthe column "_id" holds the records\' own ids, increasing: kept as their _id; read as a DataStore dump: an unquoted empty cell is null, "" the empty string',
    );
    assert.equal(said('unicode-text.txt'), '2 records; UTF-16 LE with BOM; tab-separated; no quoted fields');
    assert.equal(
      said('population.csv'),
      '2 records; UTF-8; comma-separated; no quoted fields\n' +
        'header on line 4; above it, left out: "Table 1: Population by county, 2022", "Source: Census of Population" (--header-row N to choose another)\n' +
        'below the table, left out as notes: line 7 "Note: provisional figures"',
    );
    assert.equal(said('pipes.psv'), '2 records; UTF-8; pipe-separated; no quoted fields');
    assert.equal(said('spaces.txt'), '2 records; UTF-8; space-separated; no quoted fields');
    assert.match(
      readFileSync(path.join(dir, 'catalog.json'), 'utf8'),
      /"source": \{"path": "packages\.tsv", "delimiter": "\\t", "quotes": "literal"\}/,
    );
    assert.match(
      runs.get('pandas.csv')!.stdout,
      /\nColumn 1 +int4 +0 +0 +field id "Column 1" \(the header leaves this column unnamed\)\nName +text +0 +Ann\nName \(2\) +text +0 +Lee +field id "Name \(2\)" \("Name" also names an earlier column\)\n/,
    );
    assert.equal(said('notes.tsv'), '2 records; UTF-8; tab-separated; quoted fields');
    assert.equal(
      said('mysql-outfile.tsv'),
      "4 records; UTF-8; tab-separated; PostgreSQL's or MySQL's text format: line 1 has a cell \\N, read as an empty cell; backslashes escape, quotes are characters (--escapes none to read them as they are)\n" +
        'no header: line 1 is data (its cell "1" in column 1 reads as the whole numbers below it do); columns named Column 1, Column 2, … (--header-row 1 if line 1 is the header)',
    );
    assert.equal(
      said('logger.csv'),
      '3 records; UTF-8; comma-separated; no quoted fields\n' +
        'no header: line 1 is data (its cell "2024-03-01T10:00:00Z" in column 1 reads as the dates below it do); columns named Column 1, Column 2, … (--header-row 1 if line 1 is the header)',
    );
    assert.equal(said('by-year.csv'), '2 records; UTF-8; comma-separated; no quoted fields');
    assert.equal(
      said('pandas-table.json'),
      '2 records; JSON, UTF-8; records at data, typed by the document\'s Table Schema ("schema", as pandas\' orient="table" writes it)',
    );
    assert.equal(
      said('pandas-split.json'),
      '2 records; JSON, UTF-8; records at data, lists named by the document\'s "columns" (pandas\' orient="split")',
    );
    assert.equal(
      said('pandas-index.json'),
      '2 records; JSON, UTF-8; records as the members of the top-level object, keyed by row (pandas\' orient="index")',
    );
    assert.equal(
      said('pandas-columns.json'),
      '2 records; JSON, UTF-8; columns as the members of the top-level object, each keyed by row (pandas\' DataFrame.to_json() by default, orient="columns"): each record read across them',
    );
    assert.match(
      readFileSync(path.join(dir, 'catalog.json'), 'utf8'),
      /"source": \{"path": "pandas-columns\.json", "layout": "json", "records": "\/\*", "orient": "columns"\}/,
    );
    assert.equal(
      said('stations.geojson'),
      "2 records; JSON, UTF-8; GeoJSON features: each property a column, the geometry as GeoJSON text (a property named as a feature's member, id or geometry, is properties.<name>)",
    );
    assert.equal(
      said('excel-ghosts.csv'),
      '2 records; UTF-8; comma-separated; no quoted fields\n3 rows with every cell empty left out (the first on line 3)\n3 unnamed columns with every cell empty left out (columns 4, 5, 6)',
    );
    assert.match(
      readFileSync(path.join(dir, 'catalog.json'), 'utf8'),
      /"source": \{"path": "excel-ghosts\.csv"\},\n\s+"fields": \[\{"id": "Name", "type": "text"\}, \{"id": "Votes", "type": "int4"\}, \{"id": "Party", "type": "text"\}\]/,
    );
    assert.equal(
      said('pasted.csv'),
      '20,002 records; UTF-8 with some Windows-1252 (each byte that is not UTF-8 read as its Windows-1252 letter: line 20,002 is the first that is not UTF-8); comma-separated; no quoted fields',
    );
    assert.doesNotMatch(readFileSync(path.join(dir, 'catalog.json'), 'utf8'), /"path": "pasted\.csv", "encoding"/);
    assert.equal(said('releases.csv.gz'), '2 records; UTF-8; comma-separated; no quoted fields');
    assert.equal(said('events.ndjson.gz'), '2 records; NDJSON (a JSON record per line), UTF-8');
    assert.match(readFileSync(path.join(dir, 'catalog.json'), 'utf8'), /"name": "releases",/);
    assert.equal(said('download.zip'), '2 records; UTF-8; semicolon-separated; no quoted fields');
    assert.equal(
      said('stations.geojsons'),
      '2 records; GeoJSON features, one a line (GeoJSONSeq), UTF-8: each property a column, the geometry as GeoJSON text',
    );
    assert.equal(
      said('excel-sep.csv'),
      '2 records; UTF-8; semicolon-separated, as line 1 "sep=;" says (Excel\'s way of naming it); no quoted fields',
    );
    assert.match(
      readFileSync(path.join(dir, 'catalog.json'), 'utf8'),
      /"source": \{"path": "excel-sep\.csv", "delimiter": ";", "header_row": 2\}/,
    );
    assert.equal(
      said('savetxt.txt'),
      '3 records; UTF-8; space-separated; no quoted fields\nthe header, line 1, starts with "#", a comment mark that names no column: the rows below it are a cell narrower (numpy\'s savetxt writes its header so)',
    );
    assert.match(
      readFileSync(path.join(dir, 'catalog.json'), 'utf8'),
      /"source": \{"path": "savetxt\.txt", "delimiter": " ", "header_prefix": "#", "comments": "#"\}/,
    );
    assert.equal(
      said('zones.tab'),
      '3 records; UTF-8; tab-separated; no quoted fields\n' +
        'header on line 5; above it, left out: "# tzdb timezone descriptions", "#", "# Columns are separated by a single tab, and codes…", "#country-" (--header-row N to choose another)\n' +
        '1 row has fewer cells than the header (the first on line 6): padded with empty cells\n' +
        '2 comment lines below the header left out, as the lines starting with "#" above it are (the first on line 8; --comments none to read them as rows)',
    );
    assert.match(
      readFileSync(path.join(dir, 'catalog.json'), 'utf8'),
      /"source": \{"path": "zones\.tab", "delimiter": "\\t", "header_row": 5, "short_rows": "pad", "comments": "#"\}/,
    );
    // Told otherwise, every line below the header is a row.
    const asRows = await runCli(['add', path.join(dir, 'zones.tab'), '--comments', 'none', '--dry-run'], env);
    assert.match(asRows.stdout, /^5 records; /);
    assert.doesNotMatch(asRows.stdout, /comment lines?|"comments": "#"/);
    const wrong = await runCli(['add', path.join(dir, 'zones.tab'), '--comments', '', '--dry-run'], env);
    assert.deepEqual(
      [wrong.code, wrong.stderr.split('\n')[0]],
      [2, 'count-centre: --comments must be the mark comment lines start with, such as "#", or none'],
    );
    assert.equal(
      said('murders-title.csv'),
      '2 records; UTF-8; comma-separated; no quoted fields\n' +
        'header on line 3; above it, left out: "Table 1: Murders by state,,,," (--header-row N to choose another)',
    );
    assert.equal(
      said('spaced.csv'),
      "3 records; UTF-8; comma-separated; quoted fields\na space after each comma is the separator's, not the cell's (--leading-spaces keep to keep it)",
    );
    assert.match(
      readFileSync(path.join(dir, 'catalog.json'), 'utf8'),
      /"source": \{"path": "spaced\.csv", "leading_spaces": "skip"\}/,
    );
    assert.match(
      runs.get('r-write.csv')!.stdout,
      /\npopulation +int4 +1 +584156 +"NA" read as empty \(line 3\)\nchange +numeric +1 +3\.5 +decimals: line 2 has "3\.5"; "NA" read as empty \(line 3\)\n/,
    );
    assert.match(runs.get('stat.csv')!.stdout, /\n2016 +int4 +2 +453 +"\.\.", ":" read as empty \(line 2\)\n/);
    assert.match(
      readFileSync(path.join(dir, 'catalog.json'), 'utf8'),
      /"source": \{"path": "stat\.csv", "delimiter": ";", "missing": \["\.\.", ":", "-"\]\}/,
    );
    assert.equal(
      said('mysql-batch.tsv'),
      "5 records; UTF-8; tab-separated; MySQL's batch format (mysql --batch): backslashes escape, as a doubled backslash in the first lines shows; quotes are characters (--escapes none to read them as they are)\n" +
        'a cell NULL is an empty cell, as SQL tools write one: line 2 has one (--nulls empty to read it as the word)',
    );
    assert.equal(
      said('psql-unaligned.txt'),
      '3 records; UTF-8; tab-separated; no quoted fields\nbelow the table, left out as notes: line 5 "(3 rows)"',
    );
    assert.equal(
      said('ckan-dump.tsv'),
      '2 records; UTF-8; tab-separated; quoted fields\nthe column "_id" holds the records\' own ids, increasing: kept as their _id; read as a DataStore dump: an unquoted empty cell is null, "" the empty string',
    );
    assert.equal(
      said('pg-export.tsv'),
      "4 records; UTF-8; tab-separated; PostgreSQL's or MySQL's text format: line 2 has a cell \\N, read as an empty cell; backslashes escape, quotes are characters (--escapes none to read them as they are)",
    );
    assert.equal(
      said('packages.tsv'),
      '6 records; UTF-8; tab-separated; quotes read as characters: read as quoting, the quote on line 4 would run on over 3 lines, taking in whole rows (--quotes csv to read them as quoting)',
    );
    assert.equal(said('european.csv'), '2 records; Windows-1252; semicolon-separated; no quoted fields');
    assert.equal(said('records.json'), '3 records; JSON, UTF-8; records in the top-level array');
    assert.equal(said('wrapped.json'), '2 records; JSON, UTF-8; records at data');
    assert.equal(
      said('ckan-answer.json'),
      '2 records; JSON, UTF-8; records at result.records, typed by the document\'s "fields"\nthe column "_id" holds the records\' own ids, increasing: kept as their _id',
    );
    assert.equal(said('events.ndjson'), '2 records; NDJSON (a JSON record per line), UTF-8');
    assert.equal(said('census.xlsx'), '2 records; Excel workbook, first sheet');
    assert.equal(said('sample-zstd.parquet'), '1,000 records; Parquet');
    assert.match(
      runs.get('sample-gzip.parquet')!.stdout,
      /amount\s+float8\s+0\s+0\s+float8, as the file's schema declares/,
    );
    assert.match(
      runs.get('european.csv')!.stdout,
      /Taux\s+numeric\s+1\.234,5\s+0\s+62,5\s+written with a decimal comma: line 2 has "62,5"/,
    );
    assert.match(
      runs.get('zips.csv')!.stdout,
      /zip\s+text\s+0\s+00501\s+whole numbers, but line 2 has "00501": its leading zero would be lost as a number/,
    );
  });

  test('--header-row 0 reads a first line of names as data, --header-row 1 data as the header; --nulls empty keeps NULL; --leading-spaces keep', async () => {
    const reading = async (name: string, headerRow: string, ...more: string[]) => {
      const run = await runCli(['add', path.join(dir, name), '--header-row', headerRow, ...more, '--dry-run'], env);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      return run.stdout;
    };
    const years = await reading('by-year.csv', '0');
    assert.match(
      years,
      /^3 records; UTF-8; comma-separated; no quoted fields\nno header: every line is data; columns named Column 1, Column 2, … \(--header-row 1 if line 1 is the header\)\n/,
    );
    assert.match(years, /"header_row": 0/);
    assert.match(years, /\nColumn 1 +int4 +0 +2019\n/);
    const logger = await reading('logger.csv', '1');
    assert.match(logger, /^2 records; UTF-8; comma-separated; no quoted fields\n\n/);
    assert.doesNotMatch(logger, /header_row/);
    const words = await reading('mysql-batch.tsv', '1', '--nulls', 'empty');
    // NULL is then a word: text in a text field, a missing value in a date's.
    assert.match(words, /\nborn +date +2 +1990-02-03 +"NULL" read as empty \(line 4\)\n/);
    assert.match(words, /"missing": \["NULL"\]/);
    assert.doesNotMatch(words, /"nulls"/);
    const nullsUsage = await runCli(['add', path.join(dir, 'mysql-batch.tsv'), '--nulls', 'null'], env);
    assert.deepEqual(
      [nullsUsage.code, nullsUsage.stderr.trim().split('\n')[0]],
      [2, 'count-centre: --nulls must be NULL or empty'],
    );
    // Kept, the space before the quote makes it a character, and the comma inside splits the row.
    const kept = await runCli(['add', path.join(dir, 'spaced.csv'), '--leading-spaces', 'keep', '--dry-run'], env);
    assert.deepEqual(
      [kept.code, kept.stderr.trim()],
      [3, 'count-centre: spaced.csv, line 2, column 5: row has 5 cells, the header has 4'],
    );
    const spacesUsage = await runCli(['add', path.join(dir, 'spaced.csv'), '--leading-spaces', 'trim'], env);
    assert.deepEqual(
      [spacesUsage.code, spacesUsage.stderr.trim().split('\n')[0]],
      [2, 'count-centre: --leading-spaces must be skip or keep'],
    );
    const usage = await runCli(['add', path.join(dir, 'logger.csv'), '--header-row=-1'], env);
    assert.deepEqual(
      [usage.code, usage.stderr.trim().split('\n')[0]],
      [2, 'count-centre: --header-row must be a line number, 1 or more (0: the file has no header)'],
    );
  });

  test("no path of the publisher's machine is in what the catalogue describes to readers, nor in the messages", () => {
    for (const [name, run] of runs)
      assert.doesNotMatch(run.stdout + run.stderr, new RegExp(dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), name);
  });

  for (const backend of TEST_BACKENDS)
    describe(`served [${backend}]`, () => {
      let service: TestService;
      before(async () => {
        service = await startService(
          { catalog: path.join(dir, 'catalog.json'), sources: dir, databasePath: path.join(dir, `${backend}.sqlite`) },
          backend,
        );
      });
      after(() => service?.close());

      const search = async (resource: string, extra = '') => {
        const answer = await service.getJson(`/api/3/action/datastore_search?resource_id=${resource}${extra}`);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        const { result } = answer.body;
        return {
          total: result.total,
          fields: result.fields.map((f: { id: string; type: string }) => `${f.id}:${f.type}`),
          records: result.records,
        };
      };

      test('short rows padded; dates are dates', async () => {
        assert.deepEqual(await search(id(1)), {
          total: 3,
          fields: [
            '_id:int',
            'version:numeric',
            'codename:text',
            'series:text',
            'created:date',
            'release:date',
            'eol:date',
            'eol-lts:date',
            'eol-elts:date',
          ],
          records: [
            {
              _id: 1,
              version: 1.1,
              codename: 'Buzz',
              series: 'buzz',
              created: '1993-08-16',
              release: '1996-06-17',
              eol: '1997-06-05',
              'eol-lts': null,
              'eol-elts': null,
            },
            {
              _id: 2,
              version: 7,
              codename: 'Wheezy',
              series: 'wheezy',
              created: '2011-02-06',
              release: '2013-05-04',
              eol: '2016-04-25',
              'eol-lts': '2018-05-31',
              'eol-elts': '2020-06-30',
            },
            {
              _id: 3,
              version: 14,
              codename: 'Forky',
              series: 'forky',
              created: '2025-08-09',
              release: null,
              eol: null,
              'eol-lts': null,
              'eol-elts': null,
            },
          ],
        });
      });

      test("a dump re-published: mixed line endings, a quoted line break, the records' own _ids", async () => {
        assert.deepEqual(await search(id(2)), {
          total: 3,
          fields: ['_id:int', 'Name:text', 'Votes:int4'],
          records: [
            { _id: 5, Name: 'Ó Sé, Máire', Votes: 1200 },
            { _id: 9, Name: 'two\nlines', Votes: 7 },
            { _id: 12, Name: 'Ann', Votes: null },
          ],
        });
        assert.deepEqual((await search(id(2), '&filters={"_id":9}')).records, [
          { _id: 9, Name: 'two\nlines', Votes: 7 },
        ]);
      });

      test('UTF-16 "Unicode text" from Excel', async () => {
        assert.deepEqual(await search(id(3)), {
          total: 2,
          fields: ['_id:int', 'Constituency:text', 'Seats:int4', 'Turnout:numeric'],
          records: [
            { _id: 1, Constituency: 'Dún Laoghaire', Seats: 4, Turnout: 62.5 },
            { _id: 2, Constituency: 'Cork South-Central', Seats: 4, Turnout: 59.25 },
          ],
        });
      });

      test("comment lines left out, above the header and among the rows (tzdata's tables)", async () => {
        assert.deepEqual(await search(id(46)), {
          total: 3,
          fields: ['_id:int', '#codes:text', 'coordinates:text', 'TZ:text', 'comments:text'],
          records: [
            { _id: 1, '#codes': 'AD', coordinates: '+4230+00131', TZ: 'Europe/Andorra', comments: '' },
            { _id: 2, '#codes': 'AE,OM,RE,SC,TF', coordinates: '+2518+05518', TZ: 'Asia/Dubai', comments: 'Crozet' },
            { _id: 3, '#codes': 'AQ', coordinates: '-6617+11031', TZ: 'Antarctica/Casey', comments: 'Casey' },
          ],
        });
      });

      test("a spreadsheet's padded title lines left out", async () => {
        assert.deepEqual(await search(id(47)), {
          total: 2,
          fields: ['_id:int', 'state:text', 'abb:text', 'region:text', 'population:int4', 'total:int4'],
          records: [
            { _id: 1, state: 'Alabama', abb: 'AL', region: 'South', population: 4779736, total: 135 },
            { _id: 2, state: 'Alaska', abb: 'AK', region: 'West', population: 710231, total: 19 },
          ],
        });
      });

      test('title lines and notes left out', async () => {
        assert.deepEqual(await search(id(4)), {
          total: 2,
          fields: ['_id:int', 'County:text', 'Males:int4', 'Females:int4'],
          records: [
            { _id: 1, County: 'Cork', Males: 288513, Females: 295515 },
            { _id: 2, County: 'Kerry', Males: 77143, Females: 78115 },
          ],
        });
      });

      test("a TSV's quotes that do not quote are characters: a quote left open takes in no rows", async () => {
        assert.deepEqual(await search(id(15)), {
          total: 6,
          fields: ['_id:int', 'name:text', 'version:text', 'summary:text'],
          records: [
            { _id: 1, name: 'advlog', version: '1.0.8', summary: '"Advanced logger (e.g. Java and Kotlin)."' },
            { _id: 2, name: 'agentk', version: '0.3.2', summary: '"AGENT" K is a kubectl "doner"-wrap' },
            { _id: 3, name: 'scraper', version: '0.2.2', summary: '"A simple library to help a developer who' },
            { _id: 4, name: 'url-tool', version: '0.1.4', summary: 'amazon_affiliate_url' },
            { _id: 5, name: 'argschema', version: '3.0.4', summary: '"a wrapper"' },
            { _id: 6, name: 'zeta', version: '1.0', summary: '12" pizza' },
          ],
        });
      });

      test("PostgreSQL's text format: \\N is null, backslashes escape, so numbers with nulls are numbers", async () => {
        assert.deepEqual(await search(id(16)), {
          total: 4,
          fields: ['_id:int', 'oid:int4', 'name:text', 'size:int4', 'note:text'],
          records: [
            { _id: 1, oid: 16, name: 'bool', size: 1, note: null },
            { _id: 2, oid: 17, name: 'bytea', size: null, note: 'tab\there, line\nbreak' },
            { _id: 3, oid: 18, name: 'char', size: -1, note: 'C:\\temp "quoted' },
            { _id: 4, oid: 19, name: 'name', size: 64, note: 'AB' },
          ],
        });
      });

      test("files written with no header (MySQL's INTO OUTFILE, a logger): every line is data, columns named by place", async () => {
        assert.deepEqual(await search(id(24)), {
          total: 4,
          fields: ['_id:int', 'Column 1:int4', 'Column 2:text', 'Column 3:date', 'Column 4:numeric', 'Column 5:text'],
          records: [
            { _id: 1, 'Column 1': 1, 'Column 2': 'Ann', 'Column 3': '1990-02-03', 'Column 4': 12.5, 'Column 5': null },
            {
              _id: 2,
              'Column 1': 2,
              'Column 2': 'Bríd',
              'Column 3': '1985-11-30',
              'Column 4': 7.25,
              'Column 5': 'tab\there',
            },
            {
              _id: 3,
              'Column 1': 3,
              'Column 2': 'Conn',
              'Column 3': '2001-01-01',
              'Column 4': null,
              'Column 5': 'line\nbreak',
            },
            {
              _id: 4,
              'Column 1': 4,
              'Column 2': 'Dáithí',
              'Column 3': '1979-06-15',
              'Column 4': 99.99,
              'Column 5': 'back\\slash',
            },
          ],
        });
        assert.deepEqual(await search(id(25)), {
          total: 3,
          fields: ['_id:int', 'Column 1:timestamp', 'Column 2:numeric', 'Column 3:int4'],
          records: [
            { _id: 1, 'Column 1': '2024-03-01T10:00:00', 'Column 2': 12.5, 'Column 3': 3 },
            { _id: 2, 'Column 1': '2024-03-01T10:10:00', 'Column 2': 13.25, 'Column 3': 0 },
            { _id: 3, 'Column 1': '2024-03-01T10:20:00', 'Column 2': -1.5, 'Column 3': 12 },
          ],
        });
        // Years over counts are names: the first line stays the header.
        assert.deepEqual(await search(id(29)), {
          total: 3,
          fields: [
            '_id:int',
            'Column 1:int4',
            'county:text',
            'population:int4',
            'change:numeric',
            'census_date:date',
            'code:text',
          ],
          records: [
            {
              _id: 1,
              'Column 1': 1,
              county: 'Cork',
              population: 584156,
              change: 3.5,
              census_date: '2022-04-03',
              code: 'NA',
            },
            { _id: 2, 'Column 1': 2, county: 'Kerry', population: null, change: null, census_date: null, code: 'IE' },
            {
              _id: 3,
              'Column 1': 3,
              county: 'Offaly',
              population: 83150,
              change: -1.25,
              census_date: '2022-04-03',
              code: 'NA',
            },
          ],
        });
        assert.deepEqual(await search(id(30)), {
          total: 3,
          fields: ['_id:int', 'Region:text', '2016:int4', '2022:int4'],
          records: [
            { _id: 1, Region: 'Border', '2016': null, '2022': 412 },
            { _id: 2, Region: 'West', '2016': 453, '2022': null },
            { _id: 3, Region: 'Mid-West', '2016': null, '2022': 498 },
          ],
        });
        assert.deepEqual((await search(id(30), '&sort=2016 asc')).records[0], {
          _id: 2,
          Region: 'West',
          '2016': 453,
          '2022': null,
        });
        assert.deepEqual(await search(id(28)), {
          total: 3,
          fields: ['_id:int', 'oid:int4', 'typname:text', 'typlen:int4', 'typdefault:text'],
          records: [
            { _id: 1, oid: 16, typname: 'bool', typlen: 1, typdefault: '' },
            { _id: 2, oid: 17, typname: 'bytea', typlen: -1, typdefault: '' },
            { _id: 3, oid: 18, typname: 'char', typlen: 1, typdefault: '' },
          ],
        });
        const pasted = await search(id(39), '&sort=_id desc&limit=3');
        assert.equal(pasted.total, 20002);
        assert.deepEqual(pasted.records, [
          { _id: 20002, name: 'Zoë', place: 'Kraków' },
          { _id: 20001, name: 'José', place: 'Málaga' },
          { _id: 20000, name: 'Ní 19999', place: 'Dublin' },
        ]);
        assert.deepEqual(await search(id(40)), {
          total: 2,
          fields: ['_id:int', 'version:int4', 'codename:text'],
          records: [
            { _id: 1, version: 12, codename: 'Bookworm' },
            { _id: 2, version: 13, codename: 'Trixie' },
          ],
        });
        assert.deepEqual(await search(id(42)), {
          total: 2,
          fields: ['_id:int', 'county:text', 'seats:int4'],
          records: [
            { _id: 1, county: 'Cork', seats: 18 },
            { _id: 2, county: 'Kerry', seats: 5 },
          ],
        });
        assert.deepEqual((await search(id(41))).records, [
          { _id: 1, n: 1, what: 'a' },
          { _id: 2, n: 2, what: 'b' },
        ]);
        assert.deepEqual(await search(id(38)), {
          total: 2,
          fields: ['_id:int', 'Name:text', 'Votes:int4', 'Party:text'],
          records: [
            { _id: 1, Name: 'Ann', Votes: 12, Party: 'FF' },
            { _id: 2, Name: 'Bo', Votes: 7, Party: 'FG' },
          ],
        });
        assert.deepEqual(await search(id(37)), {
          total: 2,
          fields: [
            '_id:int',
            'properties.id:text',
            'name:text',
            'height:int4',
            'opened:date',
            'id:int4',
            'geometry:text',
          ],
          records: [
            {
              _id: 1,
              'properties.id': 'VAL',
              name: 'Valentia',
              height: 24,
              opened: '1892-01-01',
              id: 1,
              geometry: '{"type":"Point","coordinates":[-10.24,51.94]}',
            },
            {
              _id: 2,
              'properties.id': 'MAL',
              name: 'Malin Head',
              height: null,
              opened: '1955-03-01',
              id: 2,
              geometry: null,
            },
          ],
        });
        assert.deepEqual(await search(id(43)), {
          total: 2,
          fields: ['_id:int', 'name:text', 'height:int4', 'id:int4', 'geometry:text'],
          records: [
            { _id: 1, name: 'Valentia', height: 24, id: 1, geometry: '{"type":"Point","coordinates":[-10.24,51.94]}' },
            { _id: 2, name: 'Malin Head', height: null, id: 2, geometry: null },
          ],
        });
        assert.deepEqual(await search(id(34)), {
          total: 2,
          fields: ['_id:int', 'index:int8', 'county:text', 'population:int8', 'share:float8', 'counted:timestamp'],
          records: [
            { _id: 1, index: 0, county: 'Cork', population: 584156, share: 11.3, counted: '2022-04-03T00:00:00' },
            { _id: 2, index: 1, county: 'Kerry', population: 156458, share: 3, counted: '2022-04-03T00:00:00' },
          ],
        });
        for (const resource of [id(35), id(36)])
          assert.deepEqual(await search(resource), {
            total: 2,
            fields: ['_id:int', 'county:text', 'population:int4'],
            records: [
              { _id: 1, county: 'Cork', population: 584156 },
              { _id: 2, county: 'Kerry', population: resource === id(36) ? null : 156458 },
            ],
          });
        assert.deepEqual(await search(id(45)), {
          total: 2,
          fields: ['_id:int', 'county:text', 'population:int4', 'share:numeric'],
          records: [
            { _id: 1, county: 'Cork', population: 584156, share: 11.3 },
            { _id: 2, county: 'Kerry', population: null, share: 3 },
          ],
        });
        assert.deepEqual(await search(id(33)), {
          total: 2,
          fields: ['_id:int', 'HIRED:date', 'Stichtag:date', '登録日:date', 'Signed:date'],
          records: [
            { _id: 1, HIRED: '2024-03-01', Stichtag: '2024-02-03', 登録日: '2024-03-01', Signed: '2024-03-01' },
            { _id: 2, HIRED: '2024-04-15', Stichtag: '2024-02-04', 登録日: '2024-04-15', Signed: '2024-04-15' },
          ],
        });
        assert.deepEqual(
          (await search(id(33), '&filters={"HIRED":"2024-04-15"}')).records.map((r: { _id: number }) => r._id),
          [2],
        );
        assert.deepEqual(await search(id(32)), {
          total: 2,
          fields: ['_id:int', 'Name:text', 'Amount:numeric'],
          records: [
            { _id: 1, Name: 'Áine', Amount: 1.5 },
            { _id: 2, Name: 'Bo', Amount: 2.25 },
          ],
        });
        assert.deepEqual(await search(id(31)), {
          total: 3,
          fields: ['_id:int', 'station:text', 'reading:numeric', 'taken:date', 'note:text'],
          records: [
            { _id: 1, station: 'Valentia', reading: 12.5, taken: '2024-03-01', note: 'Kerry, south-west' },
            { _id: 2, station: 'Malin Head', reading: 9, taken: '2024-03-02', note: 'north' },
            { _id: 3, station: 'Dublin Airport', reading: null, taken: '2024-03-03', note: '' },
          ],
        });
        assert.deepEqual(
          (await search(id(31), '&q=kerry')).records.map((r: { station: string }) => r.station),
          ['Valentia'],
        );
        assert.deepEqual(await search(id(26)), {
          total: 2,
          fields: ['_id:int', '2019:int4', '2020:int4', '2021:int4'],
          records: [
            { _id: 1, '2019': 120, '2020': 135, '2021': 150 },
            { _id: 2, '2019': 98, '2020': 101, '2021': 99 },
          ],
        });
      });

      test("SQL tools' NULL: mysql --batch's NULL word is null in every field, its escapes decoded", async () => {
        assert.deepEqual(await search(id(27)), {
          total: 5,
          fields: ['_id:int', 'id:int4', 'name:text', 'born:date', 'score:numeric', 'note:text'],
          records: [
            { _id: 1, id: 1, name: 'Ann', born: '1990-02-03', score: 12.5, note: null },
            { _id: 2, id: 2, name: 'Bríd', born: '1985-11-30', score: null, note: 'tab\there' },
            { _id: 3, id: 3, name: 'Conn', born: null, score: 3, note: 'line\nbreak' },
            { _id: 4, id: 4, name: 'Dáithí', born: '1979-06-15', score: 99.99, note: 'back\\slash' },
            { _id: 5, id: 5, name: null, born: null, score: null, note: '' },
          ],
        });
        assert.equal((await search(id(27), '&filters={"score":null}')).total, 2);
      });

      test("a spreadsheet's TSV quoting a cell with a line break and a tab is read as quoting", async () => {
        assert.deepEqual((await search(id(18))).records, [
          { _id: 1, id: 1, note: 'first line\tindented\nsecond line', by: 'Ann', year: 2020 },
          { _id: 2, id: 2, note: 'plain', by: 'Bo', year: 2021 },
        ]);
      });

      test('a CKAN TSV dump with a text \\N and a null: quoting as CSV, the \\N and the backslash kept, the null null', async () => {
        assert.deepEqual((await search(id(19))).records, [
          // As CKAN wrote them: "" the empty string, an unquoted empty cell a null.
          { _id: 2, name: 'say "hi"', zip: '', note: null },
          { _id: 5, name: '\\N', zip: 'back\\slash', note: 'x' },
        ]);
      });

      test("an unnamed column (pandas' index) and a repeated name are read, each by its place", async () => {
        assert.deepEqual(await search(id(17)), {
          total: 2,
          fields: ['_id:int', 'Column 1:int4', 'Name:text', 'Name (2):text', 'Score:numeric'],
          records: [
            { _id: 1, 'Column 1': 0, Name: 'Ann', 'Name (2)': 'Lee', Score: 1.5 },
            { _id: 2, 'Column 1': 1, Name: 'Bo', 'Name (2)': 'Ng', Score: 2 },
          ],
        });
      });

      test('pipes and spaces as delimiters', async () => {
        assert.deepEqual((await search(id(5))).records, [
          { _id: 1, id: 1, name: 'Ann Lee', city: 'Cork' },
          { _id: 2, id: 2, name: 'Bo', city: 'Tralee, Kerry' },
        ]);
        assert.deepEqual(await search(id(6)), {
          total: 2,
          fields: ['_id:int', 'station:text', 'rain_mm:numeric', 'days:int4'],
          records: [
            { _id: 1, station: 'Valentia', rain_mm: 1557.6, days: 231 },
            { _id: 2, station: 'Dublin', rain_mm: 758.1, days: 190 },
          ],
        });
        // numpy's savetxt: the header's comment mark names no column, so each value is under its own name.
        assert.deepEqual(await search(id(44)), {
          total: 3,
          fields: ['_id:int', 'id:numeric', 'value:numeric', 'square:numeric'],
          records: [
            { _id: 1, id: 1, value: 0, square: 0 },
            { _id: 2, id: 2, value: 0.25, square: 1 },
            { _id: 3, id: 3, value: 0.5, square: 4 },
          ],
        });
      });

      test('decimal commas, thousands points and separators are numbers that filter and sort as numbers', async () => {
        assert.deepEqual(await search(id(7)), {
          total: 2,
          fields: ['_id:int', 'Région:text', 'Taux:numeric', 'Population:int4', 'Date:date'],
          records: [
            { _id: 1, Région: 'Île-de-France', Taux: 62.5, Population: 12317279, Date: '2020-02-08' },
            { _id: 2, Région: 'Bretagne', Taux: 59.25, Population: 3402932, Date: '2020-02-13' },
          ],
        });
        assert.deepEqual(
          (await search(id(7), '&sort=Population%20asc')).records.map((r: { Région: string }) => r.Région),
          ['Bretagne', 'Île-de-France'],
        );
        assert.deepEqual(await search(id(8)), {
          total: 2,
          fields: ['_id:int', 'Item:text', 'Amount:numeric', 'Count:int4'],
          records: [
            { _id: 1, Item: 'A', Amount: 1234567.5, Count: 2000 },
            { _id: 2, Item: 'B', Amount: 12.25, Count: 7 },
          ],
        });
      });

      test('leading zeros kept; Windows-1252 read as it was written', async () => {
        assert.deepEqual((await search(id(9))).records, [
          { _id: 1, zip: '00501', city: 'Holtsville' },
          { _id: 2, zip: '90210', city: 'Beverly Hills' },
        ]);
        assert.deepEqual((await search(id(14))).records, [
          { _id: 1, Name: 'Murnane O’Connor', Note: 'Fáilte' },
          { _id: 2, Name: 'Ó Ríordáin', Note: '€5' },
        ]);
      });

      test("JSON: an array of objects (nested values as JSON text, a key first seen late, null kept), one inside an object, CKAN's own answer", async () => {
        assert.deepEqual(await search(id(10)), {
          total: 3,
          fields: ['_id:int', 'name:text', 'age:int4', 'member:bool', 'address:text', 'joined:date', 'note:text'],
          records: [
            // A text that is null, or a key a record lacks, is null (as CKAN's DataStore keeps it), not "".
            {
              _id: 1,
              name: 'Ann',
              age: 41,
              member: true,
              address: '{"city":"Cork"}',
              joined: '2020-02-08',
              note: null,
            },
            { _id: 2, name: 'Bo', age: null, member: false, address: null, joined: '2021-11-29', note: null },
            {
              _id: 3,
              name: 'Cy',
              age: 7,
              member: true,
              address: '{"city":"Sligo"}',
              joined: '2024-01-31',
              note: 'a key first seen here',
            },
          ],
        });
        assert.deepEqual((await search(id(11))).records, [
          { _id: 1, code: 'IE', value: 1.5 },
          { _id: 2, code: 'FR', value: 2 },
        ]);
        assert.deepEqual(await search(id(12)), {
          total: 2,
          fields: ['_id:int', 'Party:text', 'Seats:numeric'],
          records: [
            { _id: 1, Party: 'Fianna Fáil', Seats: 38 },
            { _id: 2, Party: 'Sinn Féin', Seats: 37 },
          ],
        });
      });

      test('NDJSON, with timestamps', async () => {
        assert.deepEqual(await search(id(13)), {
          total: 2,
          fields: ['_id:int', 'at:timestamp', 'kind:text', 'n:int4'],
          records: [
            { _id: 1, at: '2020-02-08T09:15:00', kind: 'open', n: 1 },
            { _id: 2, at: '2020-02-08T22:00:00', kind: 'close', n: 2 },
          ],
        });
      });

      test('an Excel workbook: the header under its title, dates, booleans, formulas by their values', async () => {
        assert.deepEqual(await search(id(20)), {
          total: 2,
          fields: ['_id:int', 'County:text', 'Population:int4', 'Counted on:date', 'Coastal:bool', 'Per cent:numeric'],
          records: [
            {
              _id: 1,
              County: 'Cork',
              Population: 584156,
              'Counted on': '2022-04-03',
              Coastal: true,
              'Per cent': 11.34,
            },
            {
              _id: 2,
              County: 'Offaly',
              Population: 83150,
              'Counted on': '2022-04-03',
              Coastal: false,
              'Per cent': 1.61,
            },
          ],
        });
      });

      test("Parquet, ZSTD and GZIP: the schema's types, every row", async () => {
        for (const resource of [id(21), id(22)]) {
          const table = await search(resource, '&limit=1000');
          assert.deepEqual(
            [table.total, table.fields],
            [1000, ['_id:int', 'id:int4', 'name:text', 'amount:float8', 'day:date', 'flag:bool']],
          );
          table.records.forEach((record: Record<string, unknown>, k: number) => {
            const [rowId, name, amount, day, flag] = sampleRow(k);
            assert.deepEqual(record, {
              _id: k + 1,
              id: rowId,
              name,
              amount,
              day: day.toISOString().slice(0, 10),
              flag,
            });
          });
        }
      });

      test('Parquet doubles (a negative zero, a large whole one): written, and found, as PostgreSQL writes them', async () => {
        const csv = await service.request(`/datastore/dump/${id(23)}`);
        assert.equal(csv.statusCode, 200);
        assert.equal(
          csv.body,
          '_id,station,reading\r\n1,Roches Point,-0\n2,Mace Head,1e+15\n3,Shannon,1e-05\n4,Casement,0.1\n5,,2.5\n6,"",3.5\n',
        );
        assert.deepEqual((await search(id(23), '&filters={"_id":[5,6]}&fields=_id,station')).records, [
          { _id: 5, station: null },
          { _id: 6, station: '' },
        ]);
        const found = async (q: string) =>
          (await search(id(23), `&q=${encodeURIComponent(q)}&fields=_id`)).records.map((r: { _id: number }) => r._id);
        assert.deepEqual(
          [
            await found('-0'),
            await found('1e+15'),
            await found('1e-05'),
            await found('0.1'),
            await found('1000000000000000'),
          ],
          [[1], [2], [3], [4], []],
        );
      });

      test('package_show names a file outside the sources by its file name alone, and says the licence is not specified', async () => {
        const shown = await service.getJson('/api/3/action/package_show?id=debian');
        assert.equal(shown.status, 200);
        const extras = Object.fromEntries(
          shown.body.result.extras.map((e: { key: string; value: string }) => [e.key, e.value]),
        );
        assert.deepEqual(
          JSON.parse(extras.source_files).map((f: { path: string }) => f.path),
          ['debian.csv'],
        );
        assert.doesNotMatch(JSON.stringify(shown.body), /distro-info|\/usr\/share/);
        assert.deepEqual(
          [shown.body.result.license_id, shown.body.result.license_title],
          ['notspecified', 'License not specified'],
        );
      });

      test("real files from packages: Debian's releases and an npm package's example", async () => {
        const debian = readFileSync(DEBIAN_RELEASES, 'utf8').trim().split('\n');
        const releases = await search(id(90), '&limit=1000');
        assert.equal(releases.total, debian.length - 1);
        assert.deepEqual(releases.fields, [
          '_id:int',
          'version:numeric',
          'codename:text',
          'series:text',
          'created:date',
          'release:date',
          'eol:date',
          'eol-lts:date',
          'eol-elts:date',
        ]);
        const buzz = debian[1]!.split(',');
        assert.deepEqual(releases.records[0], {
          _id: 1,
          version: Number(buzz[0]),
          codename: buzz[1],
          series: buzz[2],
          created: buzz[3],
          release: buzz[4] || null,
          eol: buzz[5] || null,
          'eol-lts': null,
          'eol-elts': null,
        });
        const bonds = readFileSync(NPM_BOND_PRICES, 'utf8').trim().split(/\r?\n/);
        const prices = await search(id(91), '&limit=1000');
        assert.deepEqual([prices.total, prices.fields], [bonds.length - 1, ['_id:int', 'Year:int4', 'Rate:numeric']]);
        assert.deepEqual(
          prices.records.map((r: { Year: number; Rate: number }) => `${r.Year},${r.Rate}`),
          bonds.slice(1).map((l) =>
            l
              .trim()
              .replace(/(\.\d*?)0+$/, '$1')
              .replace(/\.$/, ''),
          ),
        );
      });
    });
});

describe('count-centre add on what is not a table', () => {
  let dir: string;
  let env: Record<string, string>;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-refuse-'));
    writeFileSync(path.join(dir, 'catalog.json'), '{\n  "datasets": []\n}\n');
    env = folderEnv(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const refused = async (name: string, bytes: Buffer | string | null, message: RegExp) => {
    const file = path.join(dir, name);
    if (bytes === null) mkdirSync(file, { recursive: true });
    else writeFileSync(file, bytes);
    const run = await runCli(['add', file], env);
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.match(run.stderr, message);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(readFileSync(env.COUNTCENTRE_CATALOG!, 'utf8'), '{\n  "datasets": []\n}\n', 'nothing written');
  };

  test('quotes read as CSV quoting when the publisher says so: the runaway quote is named, with the option', async () => {
    const file = path.join(dir, 'cut-short.tsv');
    writeFileSync(file, 'name\tsummary\na\t"cut short\nb\tnext\nc\t"closed" later\n');
    const run = await runCli(['add', file, '--quotes', 'csv'], env);
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.equal(
      run.stderr,
      'count-centre: cut-short.tsv, line 2: a quote opens a field here that runs on over 3 lines, taking in what look like whole rows; if the file\'s quotes are characters rather than quoting, read it with --quotes literal (in the catalogue: "quotes": "literal")\n',
    );
    assert.equal(readFileSync(env.COUNTCENTRE_CATALOG!, 'utf8'), '{\n  "datasets": []\n}\n', 'nothing written');
    const usage = await runCli(['add', file, '--quotes', 'none'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--quotes must be csv or literal/);
  });

  test("wider than the embedded store's table can be: said in a sentence, with what to do, nothing written", async () => {
    // 1,001 numeric fields take 2,006 columns: each keeps its exact digits in a second one.
    const header = Array.from({ length: 1001 }, (_, i) => `m${i + 1}`).join(',');
    const row = Array.from({ length: 1001 }, (_, i) => `${i}.5`).join(',');
    const file = path.join(dir, 'wide.csv');
    writeFileSync(file, `${header}\n${row}\n`);
    // A store of its own: the load runs (and leaves a store with nothing in it), which the refusals below never do.
    const run = await runCli(['add', file], { ...env, COUNTCENTRE_DB: path.join(dir, 'wide', 'store.sqlite') });
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /: 1,001 fields need 2,003 columns in the embedded store \(one a field, a second for each numeric field's exact digits, and one for _id\): more than SQLite's 2,000; split the table, or serve it from PostgreSQL \(up to 1,598 fields\)\nThe new resource could not be loaded; the catalogue is as it was\.\n$/,
    );
    assert.doesNotMatch(run.stdout + run.stderr, /too many columns|\n\s+at /);
    assert.equal(readFileSync(env.COUNTCENTRE_CATALOG!, 'utf8'), '{\n  "datasets": []\n}\n', 'nothing written');
  });

  test('a folder, an empty file, a binary, a broken compressed file, an archive of several tables', async () => {
    await refused('a-folder', null, /^count-centre: a-folder: is a folder, not a file\n$/);
    await refused('empty.csv', '', /^count-centre: empty\.csv: the file is empty\n$/);
    await refused(
      'picture.png',
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]),
      /^count-centre: picture\.png: binary content, not a table file Count Centre reads/,
    );
    await refused(
      'table.csv.gz',
      Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00]),
      /^count-centre: table\.csv\.gz: gzip-compressed, but it does not decompress \(unexpected end of file\)\n$/,
    );
    await refused(
      'tables.zip',
      Buffer.from(zipSync({ 'a.csv': strToU8('x\n1\n'), 'b.csv': strToU8('y\n2\n'), LICENSE: strToU8('CC BY') })),
      /^count-centre: tables\.zip: a ZIP archive of 2 files \(a\.csv, b\.csv\): unzip it and publish each table on its own\n$/,
    );
    assert.equal(existsSync(path.join(dir, 'store.sqlite')), false);
  });

  test('a row longer than the header is named by line and column', async () => {
    await refused(
      'long-row.csv',
      'a,b\n1,2\n3,4,5\n',
      /^count-centre: long-row\.csv, line 3, column 3: row has 3 cells, the header has 2\n$/,
    );
    // With no header, the columns are as many as the widest of the rows read first (a chunk of the file).
    const rows = Array.from({ length: 60_000 }, (_, i) => `${i},${i * 2}\n`).join('');
    await refused(
      'no-header.csv',
      `${rows}60000,1,2\n`,
      /^count-centre: no-header\.csv, line 60001, column 3: row has 3 cells, the first rows have at most 2\n$/,
    );
  });
});

describe("count-centre add with a publisher's statements", () => {
  test('licence, attribution, source and description reach package_show; an unknown licence id is a usage error', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-licence-'));
    try {
      writeFileSync(path.join(dir, 'catalog.json'), '{\n  "datasets": []\n}\n');
      writeFileSync(path.join(dir, 'rain.csv'), 'station,mm\nValentia,1557.6\n');
      const env = {
        COUNTCENTRE_CATALOG: path.join(dir, 'catalog.json'),
        COUNTCENTRE_SOURCES: dir,
        COUNTCENTRE_DB: path.join(dir, 'store.sqlite'),
      };
      const wrong = await runCli(['add', path.join(dir, 'rain.csv'), '--license', 'cc-by-5.0'], env);
      assert.equal(wrong.code, 2);
      assert.match(
        wrong.stderr,
        /^count-centre: unknown licence id "cc-by-5\.0" \(for example cc-by, CC-BY-4\.0, CC0-1\.0, odc-odbl; see docs\/configuration\.md\)\n/,
      );
      const run = await runCli(
        [
          'add',
          path.join(dir, 'rain.csv'),
          '--id',
          'rain-1',
          '--dataset',
          'rain',
          '--license',
          'cc-by-4.0',
          '--attribution',
          'Source: Met Éireann',
          '--source-url',
          'https://www.met.ie/climate',
          '--description',
          'Yearly rainfall by station',
        ],
        env,
      );
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const service = await startService({
        catalog: env.COUNTCENTRE_CATALOG,
        sources: dir,
        databasePath: path.join(dir, 'served.sqlite'),
      });
      try {
        const { body } = await service.getJson('/api/3/action/package_show?id=rain');
        const { result } = body;
        assert.deepEqual(
          [result.license_id, result.license_title, result.license_url, result.isopen, result.url, result.notes],
          [
            'CC-BY-4.0',
            'Creative Commons Attribution 4.0',
            'https://creativecommons.org/licenses/by/4.0/',
            true,
            'https://www.met.ie/climate',
            'Yearly rainfall by station',
          ],
        );
        assert.deepEqual(
          result.extras.find((e: { key: string }) => e.key === 'attribution'),
          { key: 'attribution', value: 'Source: Met Éireann' },
        );
        assert.equal(result.resources[0].description, 'Yearly rainfall by station');
      } finally {
        await service.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
