// The pure parts of publishing: schema inference, catalogue editing, readable logs, progress lines, the mirror's type
// mapping and verification; and the program's --help and --version.

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { renderCatalogJson, withResource } from '../../src/catalog/edit.js';
import { parseCell } from '../../src/catalog/values.js';
import { LoadProgressReporter, progressLine, summaryTable } from '../../src/cli/progress.js';
import {
  loaderVeto,
  looksMidReload,
  mappedType,
  probeDifference,
  verifyCopy,
  type Probe,
} from '../../src/portal/mirror.js';
import { inferTable, type InferOptions } from '../../src/ingest/infer.js';
import { detectEncoding, NotATableError, sniffDelimited, sniffFile } from '../../src/ingest/readers/sniff.js';
import { MIXED_UTF8, MixedUtf8Decoder } from '../../src/ingest/readers/mixed-utf8.js';
import { scanSource } from '../../src/ingest/encoding.js';
import fc from 'fast-check';
import type { RawCell, RawRow, TableReader } from '../../src/ingest/readers/types.js';
import { findRecords, openJson, openJsonColumns } from '../../src/ingest/readers/json.js';
import { readableLine } from '../../src/logging.js';
import { PROJECT_ROOT } from '../../src/settings.js';
import { COUNT_CENTRE_VERSION } from '../../src/version.js';
import { runCli } from '../helpers/processes.js';

/** A reader over rows held in the test, one column: how inference meets any format. */
function oneColumn(values: readonly RawCell[], unit: 'line' | 'record' = 'line'): TableReader {
  return {
    unit,
    columns: ['value'],
    declaredTypes: null,
    rowCount: null,
    async *batches() {
      yield values.map((v, i) => ({ cells: [v], line: i + 2 }));
    },
    async close() {},
  };
}

async function typeOf(values: readonly RawCell[], options: InferOptions = {}) {
  const {
    columns: [column],
  } = await inferTable(oneColumn(values), options);
  return { type: column!.type, format: column!.format, note: column!.note };
}

/** Folders tempFile made, removed when the file's tests are done. */
const tempDirs: string[] = [];
after(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function tempFile(name: string, content: string | Buffer): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'countcentre-sniff-'));
  tempDirs.push(dir);
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

/** Spools of JSON documents of columns in the system's temporary folder (see openJsonColumns). */
const spools = () => readdirSync(os.tmpdir()).filter((f) => f.startsWith('countcentre-columns-')).length;

describe('what a file is', () => {
  test('encodings: a BOM says UTF-8 or UTF-16; zero bytes say UTF-16; valid UTF-8 is UTF-8; anything else Windows-1252', () => {
    assert.deepEqual(detectEncoding(Buffer.from('\ufeffé,b', 'utf8'), true), { encoding: 'utf-8', bomLength: 3 });
    assert.deepEqual(detectEncoding(Buffer.from('é,b', 'utf8'), true), { encoding: 'utf-8', bomLength: 0 });
    assert.deepEqual(detectEncoding(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\tb', 'utf16le')]), true), {
      encoding: 'utf-16le',
      bomLength: 2,
    });
    assert.deepEqual(detectEncoding(Buffer.from('a,b\n1,2\n', 'utf16le'), true), {
      encoding: 'utf-16le',
      bomLength: 0,
    });
    assert.deepEqual(detectEncoding(iconv.encode('Dún’s,€', 'windows-1252'), true), {
      encoding: 'windows-1252',
      bomLength: 0,
    });
    // A character cut at the end of a sample is still UTF-8.
    assert.deepEqual(detectEncoding(Buffer.from('ab é', 'utf8').subarray(0, 4), false), {
      encoding: 'utf-8',
      bomLength: 0,
    });
    assert.equal(detectEncoding(Buffer.from([0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x7f, 0x00, 0x10]), true), null);
  });

  test('UTF-8 with rows pasted from Windows-1252: each byte that is not UTF-8 reads as its Windows-1252 letter', () => {
    const utf8 = Buffer.from('name\nZoë,Kraków\n€5\n', 'utf8');
    const cp1252 = iconv.encode('José,Málaga,“quoted”\n', 'windows-1252');
    const decoder = new MixedUtf8Decoder();
    // Fed a byte at a time: characters split across chunks are carried over.
    const bytes = Buffer.concat([utf8, cp1252, utf8]);
    let text = '';
    for (let i = 0; i < bytes.length; i++) text += decoder.write(bytes.subarray(i, i + 1));
    text += decoder.end();
    assert.equal(text, 'name\nZoë,Kraków\n€5\nJosé,Málaga,“quoted”\nname\nZoë,Kraków\n€5\n');
    assert.deepEqual([decoder.invalidBytes, decoder.firstInvalidLine, decoder.sawMultibyte], [4, 4, true]);
    // A character cut short at the very end is a Windows-1252 byte too.
    const cut = new MixedUtf8Decoder();
    assert.equal(cut.write(Buffer.from([0x61, 0xc3])) + cut.end(), 'aÃ');
    // The sample tells: UTF-8 and Windows-1252 together, or Windows-1252 alone.
    assert.deepEqual(detectEncoding(Buffer.concat([utf8, cp1252]), true), { encoding: MIXED_UTF8, bomLength: 0 });
    assert.deepEqual(detectEncoding(cp1252, true), { encoding: 'windows-1252', bomLength: 0 });
  });

  test('property: valid UTF-8 decodes as itself, however it is cut into chunks', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.array(fc.nat(400), { maxLength: 8 }), (s, cuts) => {
        const bytes = Buffer.from(s, 'utf8');
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const decoder = new MixedUtf8Decoder();
        let text = '';
        let from = 0;
        for (const at of [...points, bytes.length]) {
          text += decoder.write(bytes.subarray(from, at));
          from = at;
        }
        text += decoder.end();
        assert.equal(text, s);
        assert.equal(decoder.invalidBytes, 0);
      }),
    );
  });

  test("a file's scan: UTF-8 in part is mixed; Windows-1252 throughout is Windows-1252; a UTF-8 BOM is UTF-8's", async () => {
    const utf8 = Buffer.from('a,b\nZoë,1\n'.repeat(20000), 'utf8');
    const cp1252 = iconv.encode('José,2\n', 'windows-1252');
    const scanOf = async (bytes: Buffer) => {
      const { encoding, bomLength } = await scanSource(tempFile('scan.csv', bytes), 'auto');
      return [encoding, bomLength];
    };
    assert.deepEqual(await scanOf(Buffer.concat([utf8, cp1252])), [MIXED_UTF8, 0]);
    assert.deepEqual(await scanOf(Buffer.concat([Buffer.from('a,b\n'), cp1252])), ['windows-1252', 0]);
    assert.deepEqual(await scanOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a,b\n'), cp1252])), [
      MIXED_UTF8,
      3,
    ]);
    assert.deepEqual(await scanOf(utf8), ['utf-8', 0]);
  });

  test('delimiters: comma, semicolon, tab, pipe and space, each ignoring the others inside quotes', () => {
    const delimiter = (text: string) => sniffDelimited(text).delimiter;
    assert.equal(delimiter('a,b,c\n1,2,3\n'), ',');
    assert.equal(delimiter('a;b;c\n1,5;2;"x,y"\n'), ';');
    assert.equal(delimiter('a\tb\n"1;2"\t3\n'), '\t');
    assert.equal(delimiter('"a,b";c;d\n1;2;3\n'), ';');
    assert.equal(delimiter('id|name|city\n1|Ann Lee|Cork\n2|Bo|Tralee, Kerry\n'), '|');
    assert.equal(delimiter('id name score\n1 ann 3.5\n2 bo 4\n'), ' ');
    assert.equal(delimiter('name,note\nann,a long note with spaces\nbo,another one here\n'), ',');
    assert.equal(delimiter('single\n1\n'), ',');
  });

  test('a space after each delimiter (", ") is the separator\'s: a quote after it quotes; prose and tabs keep theirs', () => {
    const shape = (text: string) => {
      const s = sniffDelimited(text);
      return [s.delimiter, s.leadingSpaces, s.quoted, s.headerRow];
    };
    // Without the spaces counted as the separator's, the quoted comma split the row and the space-separated reading won.
    assert.deepEqual(shape('id, name, score\n1, "Smith, J", 2.5\n2, Ann, 3\n'), [',', true, true, 1]);
    assert.deepEqual(shape('seed, 0xdeadbeaf\n0, 0x60d24054e17a0698\n1, 0xd5e79d89856e4f12\n'), [',', true, false, 1]);
    assert.deepEqual(shape('a; b; c\n1,5; 2; x\n'), [';', true, false, 1]);
    // Most commas without a space: a plain CSV whose prose has ", " in it.
    assert.deepEqual(shape('name,note\nann,"well, yes"\nbo,no\n'), [',', false, true, 1]);
    assert.deepEqual(shape('a\t b\n1\t 2\n'), ['\t', false, false, 1]);
    // A first line of data is still told from a header, and a NULL after the space is still found.
    assert.deepEqual(sniffDelimited('1, 2.5, Ann\n2, 3.5, Bo\n').headerless, {
      column: 1,
      value: '1',
      kind: 'whole numbers',
    });
    assert.equal(sniffDelimited('id, name\n1, NULL\n').nullWordLine, 2);
  });

  test('a header that starts with a comment mark in a cell of its own, over rows a cell narrower, names no column by it', () => {
    const shape = (text: string) => {
      const s = sniffDelimited(text);
      return [s.delimiter, s.headerRow, s.headerPrefix];
    };
    // numpy's savetxt, space-separated and with a delimiter.
    assert.deepEqual(shape('# x y z\n1.0e+00 2.0e+00 3.0e+00\n4.0e+00 5.0e+00 6.0e+00\n'), [' ', 1, '#']);
    assert.deepEqual(shape('#,x,y\n1,2\n3,4\n'), [',', 1, '#']);
    assert.deepEqual(shape('#\tx\ty\n1\t2\n3\t4\n'), ['\t', 1, '#']);
    // A first column named "#" over row numbers is a column; so is one named "# id" (the mark is the name's).
    assert.deepEqual(shape('#,Name\n1,Ann\n2,Bo\n'), [',', 1, null]);
    assert.deepEqual(shape('# id,value\n1,2\n3,4\n'), [',', 1, null]);
    // Rows a cell narrower under a header that does not start with the mark are short rows, padded as ever.
    assert.deepEqual(shape('a,b,c\n1,2\n3,4\n'), [',', 1, null]);
  });

  test('a first line "sep=;" names the delimiter, as Excel writes it; the header is below it', () => {
    const shape = (text: string) => {
      const s = sniffDelimited(text);
      return [s.delimiter, s.separatorLine, s.headerRow, s.titleLines, s.nullWordLine];
    };
    assert.deepEqual(shape('sep=;\nName;Amount\nAnn;1,5\nBo;NULL\n'), [';', true, 2, ['sep=;'], 4]);
    // Quoted, with CRLF, and a title below it; a delimiter the table would not have been sniffed by.
    assert.deepEqual(shape('"sep=,"\r\nTable 1\r\n\r\nName,Amount\r\nAnn,1.5\r\n'), [
      ',',
      true,
      4,
      ['"sep=,"', 'Table 1', ''],
      null,
    ]);
    assert.deepEqual(shape('sep=|\na|b c|d\n1|2 3|4\n'), ['|', true, 2, ['sep=|'], null]);
    // Not a separator line: a column named so, or more after it.
    assert.deepEqual(shape('sep=;x,y\n1,2\n'), [',', false, 1, [], null]);
  });

  test('title lines above the header are found; rows shorter or longer than the header do not move it', () => {
    const shape = sniffDelimited(
      'Table 1: Population by county, 2022\nSource: CSO\n\nCounty,Males,Females\nCork,1,2\nKerry,3,4\n',
    );
    assert.deepEqual(
      [shape.delimiter, shape.headerRow, shape.titleLines],
      [',', 4, ['Table 1: Population by county, 2022', 'Source: CSO', '']],
    );
    assert.equal(sniffDelimited('a,b,c,d\n1,2\n3,4,5\n6,7\n').headerRow, 1);
    assert.equal(sniffDelimited('a,b,c\n1,2,3\n4,5,6,7\n8,9,10\n').headerRow, 1);
    // A title and a blank line as a spreadsheet saves them, padded with empty cells to the table's width.
    const padded = sniffDelimited(
      'Table 1: Murders by state,,,,\n,,,,\nstate,abb,region,population,total\nAlabama,AL,South,4779736,135\n',
    );
    assert.deepEqual([padded.headerRow, padded.titleLines], [3, ['Table 1: Murders by state,,,,', ',,,,']]);
    assert.equal(sniffDelimited('"Table 2, 2022";;\nRegion;2019;2020\nCork;1;2\n').headerRow, 2);
    // A delimiter a "sep=" line names is any character, a regular expression's own too.
    assert.equal(sniffDelimited('sep=.\nTable 3..\nRegion.Name\nCork.Kerry\nMayo.Sligo\n').headerRow, 3);
    // A header naming only its first column over data, and a sparse row, are not titles.
    assert.equal(sniffDelimited('a,,\nb,1,2\nc,3,4\n').headerRow, 1);
    assert.equal(sniffDelimited('x,,\n12,,\nid,name,votes\n1,Ann,3\n').headerRow, 1);
    // A preamble of comment lines longer than the 30 lines a header is looked for in (tzdata's zone1970.tab: 37).
    const preamble = Array.from({ length: 37 }, (_, i) =>
      i % 5 === 0 ? '#' : i % 9 === 0 ? `# note ${i}, with a comma` : `# note ${i}`,
    );
    const tab = sniffDelimited(
      [
        ...preamble,
        '#codes\tcoordinates\tTZ\tcomments',
        'AD\t+4230+00131\tEurope/Andorra',
        'AE,OM\t+2518+05518\tAsia/Dubai\tCrozet',
        '',
      ].join('\n'),
    );
    assert.deepEqual([tab.delimiter, tab.headerRow, tab.commentMark], ['\t', 38, '#']);
    // Comment lines are told by what is above the header: comments, or a header written as one (numpy's savetxt).
    assert.equal(sniffDelimited('# made by hand\na,b\n1,2\n#3,4\n').commentMark, '#');
    assert.equal(sniffDelimited('# x y\n1 2\n3 4\n').commentMark, '#');
    assert.equal(sniffDelimited('Table 1\na,b\n1,2\n').commentMark, null);
    assert.equal(sniffDelimited('a,b\n#1,2\n').commentMark, null);
  });

  test('a first line that reads as the values below it is data: no header; names, years and column numbers are a header', () => {
    const headerOf = (text: string) => {
      const shape = sniffDelimited(text);
      return [shape.headerRow, shape.headerless];
    };
    assert.deepEqual(headerOf('16\tbool\t1\n17\tbytea\t-1\n18\tchar\t1\n'), [
      0,
      { column: 1, value: '16', kind: 'whole numbers' },
    ]);
    assert.deepEqual(headerOf('Ann,12.5,2020-01-02\nBo,7,2021-03-04\n'), [
      0,
      { column: 2, value: '12.5', kind: 'numbers' },
    ]);
    assert.deepEqual(headerOf('x,03/02/2020\ny,04/02/2020\n'), [0, { column: 2, value: '03/02/2020', kind: 'dates' }]);
    // A name over values of a kind: a header, whatever else the line holds.
    assert.deepEqual(headerOf('id,1,2020-01-02\n1,7,2021-03-04\n2,8,2021-03-05\n'), [1, null]);
    // Text over text, or an empty cell over numbers: nothing tells, and a header is assumed.
    assert.deepEqual(headerOf('name,city\nAnn,Cork\nBo,Tralee\n'), [1, null]);
    assert.deepEqual(headerOf('a,,\nb,1,2\nc,3,4\n'), [1, null]);
    // Years over counts, and numbered columns (pandas' default names), are names.
    assert.deepEqual(headerOf('2019,2020\n120,135\n98,101\n'), [1, null]);
    assert.deepEqual(headerOf(',0,1,2\n0,5,6,7\n1,8,9,10\n'), [1, null]);
    assert.deepEqual(headerOf('1,2,3\n5,6,7\n8,9,10\n'), [1, null]);
    // Years over years are data.
    assert.deepEqual(headerOf('1990,Ann\n1991,Bo\n'), [0, { column: 1, value: '1990', kind: 'whole numbers' }]);
    // Title lines above a header: the header found stays.
    assert.equal(sniffDelimited('Table 1\n\nCounty,Males\nCork,1\nKerry,3\n').headerRow, 3);
  });

  test('formats by their content first: Parquet, Excel, JSON, NDJSON; binaries and folders refused in a sentence', async () => {
    assert.equal((await sniffFile(tempFile('x.bin', Buffer.from('PAR1\u0000\u0000PAR1')))).format, 'parquet');
    assert.equal(
      (
        await sniffFile(
          tempFile('t.csv', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.from('xl/workbook.xml')])),
        )
      ).format,
      'xlsx',
    );
    assert.equal((await sniffFile(tempFile('t.txt', '[{"a": 1}, {"a": 2}]'))).format, 'json');
    assert.equal((await sniffFile(tempFile('t.json', '{"a": 1}\n{"a": 2}\n'))).format, 'ndjson');
    assert.equal((await sniffFile(tempFile('t.json', '{\n  "data": [{"a": 1}]\n}\n'))).format, 'json');
    const refused = async (file: string, pattern: RegExp) =>
      assert.rejects(
        sniffFile(file, path.basename(file)),
        (err: unknown) => err instanceof NotATableError && pattern.test(err.message),
      );
    await refused(tempFile('empty.csv', ''), /^empty\.csv: the file is empty$/);
    await refused(tempFile('blank.csv', '\n\n  \n'), /only blank lines/);
    await refused(tempFile('x.gz', Buffer.from([0x1f, 0x8b, 0x08, 0x00])), /gzip-compressed: decompress it/);
    await refused(
      tempFile('old.xls', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1])),
      /Excel 97–2003 workbook \(\.xls\): save it as \.xlsx or CSV/,
    );
    await refused(
      tempFile('a.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d])),
      /binary content, not a table file/,
    );
    await refused(os.tmpdir(), /is a folder, not a file/);
  });

  test("pandas' default JSON, columns keyed by row: found past the sample, read across in the first column's order, its spool removed", async () => {
    // A first column larger than the 4 MB the layout is found from.
    const rows = 300_000;
    const column = (value: (i: number) => unknown) =>
      `{${Array.from({ length: rows }, (_, i) => `"${i}":${JSON.stringify(value(i))}`).join(',')}}`;
    const file = tempFile(
      'frame.json',
      `{"name":${column((i) => `name ${i}`)},"votes":${column((i) => (i % 7 === 0 ? null : i * 2))},"ok":${column((i) => i % 2 === 0)}}`,
    );
    assert.ok(readFileSync(file).length > 4 << 20);
    assert.equal((rows - 1) % 7, 0, 'the last row has a null');
    const found = await findRecords(file, 'frame.json', { encoding: 'utf-8', bomLength: 0 });
    assert.equal(found.shape, 'columns');
    const before = spools();
    const reader = await openJsonColumns(file, 'frame.json', { encoding: 'utf-8', bomLength: 0 });
    assert.deepEqual([reader.columns, reader.rowCount, reader.unit], [['name', 'votes', 'ok'], rows, 'record']);
    let read = 0;
    const seen: RawRow[] = [];
    for await (const batch of reader.batches()) {
      for (const row of batch) if (row.line <= 2 || row.line === rows) seen.push(row);
      read += batch.length;
    }
    await reader.close();
    assert.equal(read, rows);
    assert.deepEqual(seen, [
      { cells: ['name 0', null, true], line: 1 },
      { cells: ['name 1', 2, false], line: 2 },
      { cells: [`name ${rows - 1}`, null, false], line: rows },
    ]);
    assert.equal(spools(), before, 'the spool of columns is removed on close');
  });

  test('records under a key of digits, as iso-codes names its lists ({"4217": […]}), found and read; lists inside records are not records', async () => {
    const options = { encoding: 'utf-8' as const, bomLength: 0 };
    const file = tempFile('iso.json', '{"4217":[{"code":"EUR","numeric":"978"},{"code":"USD","numeric":"840"}]}');
    const found = await findRecords(file, 'iso.json', options);
    assert.deepEqual(found, { recordsAt: ['4217'], fields: null, lists: false, shape: 'records' });
    const reader = await openJson(file, 'iso.json', { ...options, lines: false, recordsAt: found.recordsAt });
    const rows: RawRow[] = [];
    for await (const batch of reader.batches()) rows.push(...batch);
    await reader.close();
    assert.deepEqual(reader.columns, ['code', 'numeric']);
    assert.deepEqual(
      rows.map((row) => row.cells),
      [
        ['EUR', '978'],
        ['USD', '840'],
      ],
    );
    // The longer list of objects is inside a record: its items are a value of that record, not records.
    const nested = tempFile('nested.json', '{"data":[{"a":1,"parts":[{"z":1},{"z":2},{"z":3}]}]}');
    assert.deepEqual((await findRecords(nested, 'nested.json', options)).recordsAt, ['data']);
  });

  test('a JSON document cut short is refused, not published up to where it stops', async () => {
    const rows = async (text: string) => {
      const reader = await openJson(tempFile('cut.json', text), 'cut.json', {
        encoding: 'utf-8',
        bomLength: 0,
        lines: false,
        recordsAt: [],
      });
      let read = 0;
      for await (const batch of reader.batches()) read += batch.length;
      await reader.close();
      return read;
    };
    assert.equal(await rows('[{"a":1},{"a":2}]'), 2);
    await assert.rejects(
      rows('[{"a":1},{"a":2'),
      /: cut\.json: the JSON ends before it is complete \(after record 1\)/,
    );
    await assert.rejects(rows('[{"a":1},'), /: cut\.json: the JSON ends before it is complete \(after record 1\)/);
  });

  test('columns keyed by different rows are refused, naming the column; nothing is left behind', async () => {
    const before = spools();
    for (const [text, pattern] of [
      ['{"a":{"0":1,"1":2},"b":{"1":3,"0":4}}', /column "b" does not hold the rows of column "a" in the same order/],
      ['{"a":{"0":1,"1":2},"b":{"0":3}}', /column "b" does not hold the rows of column "a" .*\(1 rows against 2\)/],
      ['{"a":{"0":1,"1":2},"b":{"0":3,', /: bad\.json: not valid JSON: the document ends before it is complete$/],
    ] as const)
      await assert.rejects(
        openJsonColumns(tempFile('bad.json', text), 'bad.json', { encoding: 'utf-8', bomLength: 0 }),
        pattern,
      );
    assert.equal(spools(), before);
  });
});

describe('schema inference', () => {
  test("types, each checked with the loader's own rules", async () => {
    assert.equal((await typeOf(['1', '-20', '300'])).type, 'int4');
    assert.deepEqual(await typeOf(['1', '3000000000']), {
      type: 'int8',
      format: 'ISO',
      note: 'whole numbers beyond int4: line 3 has "3000000000"',
    });
    assert.deepEqual(await typeOf(['1.5', '2', '-0.25', '1e3']), {
      type: 'numeric',
      format: 'ISO',
      note: 'decimals: line 2 has "1.5"',
    });
    assert.deepEqual(await typeOf(['2020-02-08', '2024-11-29']), { type: 'date', format: 'ISO', note: null });
    assert.deepEqual(await typeOf(['2020-02-08', '2024-11-29T10:30:00']), {
      type: 'timestamp',
      format: 'ISO',
      note: 'dates and times: line 3 has "2024-11-29T10:30:00"',
    });
    assert.deepEqual(await typeOf(['08/02/2020', '29/11/2024']), {
      type: 'date',
      format: 'DD/MM/YYYY',
      note: 'day first: line 3 has "29/11/2024"',
    });
    assert.equal((await typeOf(['08/02/2020', '29/11/2024 09:15'])).type, 'timestamp');
    assert.equal((await typeOf(['02/08/2020', '11/29/2024'])).format, 'MM/DD/YYYY');
    assert.equal((await typeOf(['x', 'y'])).type, 'text');
  });

  test("typed formats' cells: numbers, booleans, dates, bigints and objects", async () => {
    assert.equal((await typeOf([1, 2, null, 3])).type, 'int4');
    assert.equal((await typeOf([1, 2.5])).type, 'numeric');
    assert.equal((await typeOf([true, false, null])).type, 'bool');
    assert.deepEqual((await typeOf([true, 'x'])).note, 'true/false mixed with other values: line 3 has "x"');
    assert.equal((await typeOf([new Date('2020-02-08T00:00:00Z'), new Date('2021-01-01T00:00:00Z')])).type, 'date');
    assert.equal((await typeOf([new Date('2020-02-08T10:00:00Z')])).type, 'timestamp');
    assert.equal((await typeOf([10n ** 12n])).type, 'int8');
    assert.match(
      (await typeOf([{ a: 1 }, [1, 2]])).note!,
      /^objects or lists, kept as JSON text: line 2 has "\{"a":1\}"/,
    );
  });

  test('true/false as text is a boolean; t and f only when both appear (a column of F is a letter)', async () => {
    assert.equal((await typeOf(['true', 'FALSE', ''])).type, 'bool');
    assert.equal((await typeOf(['t', 'f', 't'])).type, 'bool');
    assert.deepEqual(await typeOf(['F', 'F']), {
      type: 'text',
      format: 'ISO',
      note: 'only "t" or only "f": a letter, not yet a true/false column',
    });
    assert.equal((await typeOf(['true', 'maybe'])).type, 'text');
  });

  test("a typed format's strings stay text even when they read as numbers; its date strings are dates", async () => {
    const typed = async (values: RawCell[]) => {
      const reader = { ...oneColumn(values, 'record'), typed: true };
      return (await inferTable(reader)).columns[0]!.type;
    };
    assert.equal(await typed(['00501', '123']), 'text');
    assert.equal(await typed([501, 123]), 'int4');
    assert.equal(await typed(['2020-02-08', null]), 'date');
    assert.equal(await typed(['true']), 'text');
  });

  test('numbers with thousands separators and decimal commas are numbers, with the cell that showed it', async () => {
    assert.deepEqual(await typeOf(['1,234,567', '12', '2,000']), {
      type: 'int4',
      format: '1,234.5',
      note: 'written with thousands separators: line 2 has "1,234,567"',
    });
    assert.deepEqual(await typeOf(['62,5', '7', '1.234,5']), {
      type: 'numeric',
      format: '1.234,5',
      note: 'written with a decimal comma: line 2 has "62,5"',
    });
    assert.deepEqual(await typeOf(['1 234,5', '3,25']), {
      type: 'numeric',
      format: '1 234,5',
      note: 'written with spaces between thousands and a decimal comma: line 2 has "1 234,5"',
    });
    // "1,234" reads both ways: a semicolon-separated file is from a decimal-comma locale; --decimal overrides.
    assert.equal((await typeOf(['1,234', '5,678'])).format, '1,234.5');
    assert.equal((await typeOf(['1,234', '5,678'], { delimiter: ';' })).format, '1.234,5');
    assert.equal((await typeOf(['1,234', '5,678'], { delimiter: ';', decimal: '.' })).format, '1,234.5');
    assert.match(
      (await typeOf(['1,234', '5,678'])).note!,
      /"1,234" \(line 2\) reads both ways, taken as 1,234\.5 .*--decimal , reads it the other way/,
    );
  });

  test("dates as exports write them: year first with slashes or dots, month names (Oracle's, written out), dots day first", async () => {
    for (const values of [
      ['2024/03/01', '2024/04/15'],
      ['2024.03.01', '2024.04.15'],
      ['01-Mar-2024', '15-APR-2024'],
      ['1 March 2024', '15 April 2024'],
      ['March 1, 2024', 'April 15, 2024'],
      ['2024-03-01', '1 Mar 2024'],
    ])
      assert.deepEqual(await typeOf(values), { type: 'date', format: 'ISO', note: null }, values[0]);
    assert.deepEqual(await typeOf(['13.02.2024', '14.02.2024']), {
      type: 'date',
      format: 'DD/MM/YYYY',
      note: 'day first: line 2 has "13.02.2024"',
    });
    // Dots are written day first: a column that reads both ways is not left as text.
    assert.deepEqual(await typeOf(['03.02.2024', '04.02.2024']), {
      type: 'date',
      format: 'DD/MM/YYYY',
      note: 'day first, as dates written with dots are (--date-format MM/DD/YYYY reads them the other way)',
    });
    assert.equal((await typeOf(['03.02.2024'], { dateFormat: 'MM/DD/YYYY' })).format, 'MM/DD/YYYY');
    assert.equal((await typeOf(['13-02-2024', '01-03-2024'])).format, 'DD/MM/YYYY');
    assert.deepEqual(await typeOf(['30-Feb-2024', '01-Mar-2024']), {
      type: 'text',
      format: 'ISO',
      note: 'dates, but line 2 has "30-Feb-2024", which is not a valid date',
    });
    // A month's name alone, or with a day and no year, is text.
    assert.equal((await typeOf(['March', 'May 5'])).type, 'text');
    assert.equal((await typeOf(['01-Mar-2024', 'soon'])).type, 'text');
    // Year first with slashes and a time of day (vega's flights, loggers): timestamps, as the same dates alone are dates.
    assert.deepEqual(await typeOf(['2015/01/01 01:00:00', '2015/01/02 13:05', '2015/01/03']), {
      type: 'timestamp',
      format: 'ISO',
      note: 'dates and times: line 2 has "2015/01/01 01:00:00"',
    });
    assert.deepEqual(
      ['2015/01/01 01:00:00', '2015.01.02T13:05:30.25', '2015/01/03'].map((v) => parseCell(v, 'timestamp', 'ISO')),
      ['2015-01-01T01:00:00', '2015-01-02T13:05:30.25', '2015-01-03T00:00:00'],
    );
    assert.throws(() => parseCell('2015/01/01 13:05', 'date', 'ISO'), /is a date and time, not a date/);
    assert.equal((await typeOf(['2015/01/01 25:00:00'])).type, 'text');
  });

  test('an ambiguous column stays text, and says why', async () => {
    const why = async (...values: string[]) => (await typeOf(values)).note;
    assert.match(
      (await why('01/02/2020', '03/04/2021'))!,
      /read both as DD\/MM\/YYYY and MM\/DD\/YYYY .*--date-format/,
    );
    assert.equal((await typeOf(['01/02/2020'], { dateFormat: 'DD/MM/YYYY' })).format, 'DD/MM/YYYY');
    assert.match((await why('0123', '45'))!, /line 2 has "0123": its leading zero would be lost/);
    assert.match((await why('00501', '90210'))!, /leading zero would be lost/);
    assert.equal(await why('1', '2', 'unknown'), 'line 4 has "unknown", after 2 numbers');
    // A missing-value mark is no evidence against a type: empty in numbers, text among words.
    assert.deepEqual(await typeOf(['1', 'n/a', '2', 'NA']), {
      type: 'int4',
      format: 'ISO',
      note: '"n/a", "NA" read as empty (line 3)',
    });
    assert.equal((await typeOf(['NA', 'IE', 'FR'])).type, 'text');
    assert.equal(await why('-', '..'), 'no value but line 2 has "-"');
    assert.equal(await why('2020-01-01', 'soon'), 'line 3 has "soon", after 1 date');
    assert.match((await why('99999999999999999999'))!, /beyond what is held exactly/);
    assert.match((await why('31/02/2020'))!, /neither day-first nor month-first/);
    assert.match((await why('2020-02-30'))!, /not a valid date/);
    assert.equal((await typeOf([])).note, 'every cell is empty');
  });

  test('headers are made field ids; empty cells, short rows and late JSON keys are counted', async () => {
    const reader: TableReader = {
      unit: 'line',
      columns: ['_id', 'Name ', 'Total'],
      declaredTypes: null,
      rowCount: null,
      async *batches() {
        yield [
          { cells: ['7', 'Ó Sé, Máire', '5'], line: 2 },
          { cells: ['3', ''], line: 3 },
        ];
      },
      async close() {},
    };
    const schema = await inferTable(reader);
    // "_id" is not a field name CKAN allows; values that do not increase are no record ids, so it is a field "id".
    assert.deepEqual(
      schema.columns.map((c) => [c.header, c.id, c.type, c.empty]),
      [
        ['_id', 'id', 'int4', 0],
        ['Name ', 'Name', 'text', 1],
        ['Total', 'Total', 'int4', 1],
      ],
    );
    assert.deepEqual([schema.idColumn, schema.rows, schema.shortRows, schema.firstShortRow], [null, 2, 1, 3]);
  });

  test("a dump's _id column, increasing from 1 or more, is the records' ids, not a field", async () => {
    const reader: TableReader = {
      unit: 'line',
      columns: ['_id', 'Name'],
      declaredTypes: null,
      rowCount: null,
      async *batches() {
        yield [
          { cells: ['1', 'a'], line: 2 },
          { cells: ['2', 'b'], line: 3 },
          { cells: ['10', 'c'], line: 4 },
        ];
      },
      async close() {},
    };
    const schema = await inferTable(reader);
    assert.deepEqual([schema.idColumn, schema.columns.map((c) => c.id)], ['_id', ['Name']]);
  });
});

describe('catalogue editing', () => {
  const original =
    '{\n  "full_text_language": "english",\n  "datasets": [\n    {\n      "name": "a",   "title": "Kept  as is",\n      "resources": [\n        {"id": "r1", "name": "R1", "source": {"path": "a.csv"}, "fields": [{"id": "x", "type": "text"}]}\n      ]\n    }\n  ]\n}\n';
  const entry = {
    id: 'r2',
    name: 'R2',
    source: { path: 'b.csv', delimiter: ';' },
    fields: [
      { id: 'Constituency name', type: 'text' },
      { id: 'Polling day', type: 'timestamp', format: 'DD/MM/YYYY' },
      { id: 'Votes', type: 'int4' },
    ],
  };

  test('a resource is appended to its dataset; everything else stays byte for byte', () => {
    const text = withResource(original, { name: 'a' }, entry);
    assert.ok(
      text.startsWith(original.slice(0, original.indexOf('\n      ]'))),
      'the text before the insertion is unchanged',
    );
    assert.ok(text.endsWith('\n      ]\n    }\n  ]\n}\n'));
    assert.match(
      text,
      /\n {8}\{\n {10}"id": "r2",\n {10}"name": "R2",\n {10}"source": \{"path": "b.csv", "delimiter": ";"\},\n {10}"fields": \[\n {12}\{"id": "Constituency name", "type": "text"\},/,
    );
    assert.deepEqual(JSON.parse(text).datasets[0].resources[1], entry);
  });

  test('a new dataset is appended; the same id again is replaced in place', () => {
    const added = withResource(original, { name: 'b', title: 'B' }, entry);
    assert.deepEqual(
      JSON.parse(added).datasets.map((d: { name: string }) => d.name),
      ['a', 'b'],
    );
    const replaced = withResource(added, { name: 'b' }, { ...entry, name: 'Renamed' });
    assert.equal(JSON.parse(replaced).datasets[1].resources.length, 1);
    assert.equal(JSON.parse(replaced).datasets[1].resources[0].name, 'Renamed');
    assert.equal(replaced.replace('"Renamed"', '"R2"'), added);
  });

  test('short values on one line, long ones broken', () => {
    assert.equal(renderCatalogJson({ a: [1, 2], b: { c: 'd' } }), '{"a": [1, 2], "b": {"c": "d"}}');
    assert.equal(
      renderCatalogJson({ list: ['x'.repeat(60), 'y'.repeat(60)] }),
      `{\n  "list": [\n    "${'x'.repeat(60)}",\n    "${'y'.repeat(60)}"\n  ]\n}`,
    );
  });
});

describe('logs and progress', () => {
  test('a readable line: local time, level, message, facts', () => {
    const time = new Date(2026, 10, 23, 9, 5, 7, 42).getTime();
    assert.equal(
      readableLine(
        JSON.stringify({ level: 30, time, pid: 1, resource: 'r1', rows: 531, msg: 'loaded Candidates' }),
        false,
      ),
      '09:05:07.042 INFO  loaded Candidates resource=r1 rows=531',
    );
    assert.equal(
      readableLine(
        JSON.stringify({
          level: 30,
          time,
          method: 'GET',
          url: '/api/3/action/x',
          status: 409,
          ms: 1.5,
          bytes: 90,
          action: 'x',
          msg: 'request',
        }),
        false,
      ),
      '09:05:07.042 INFO  GET /api/3/action/x 409 1.5 ms bytes=90 action=x',
    );
    assert.equal(
      readableLine(JSON.stringify({ level: 50, time, msg: 'failed', err: { message: 'boom', stack: '…' } }), false),
      '09:05:07.042 ERROR failed err=boom',
    );
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
    assert.equal(
      progressLine('Counts', 250_000, 1_000_000, 2500),
      'Counts: 250,000 of 1,000,000 records, 100,000/s, 7.5 s left',
    );
    assert.equal(progressLine('Counts', 5000, null, 1000), 'Counts: 5,000 records, 5,000/s');
    const table = summaryTable([
      { id: 'r1', name: 'One', status: 'loaded', rows: 1000, error: null, ms: 500 },
      { id: 'r2', name: 'Two', status: 'kept-previous', rows: 3, error: 'upstream gone', ms: 10 },
    ]);
    assert.equal(
      table,
      [
        'status         resource  name  records    time     rate',
        '-------------  --------  ----  -------  ------  -------',
        'loaded         r1        One     1,000  500 ms  2,000/s',
        'kept-previous  r2        Two         3',
        '',
        '  r2: upstream gone',
      ].join('\n'),
    );
  });
});

describe("the mirror's rules", () => {
  const probe = (over: Partial<Probe> = {}): Probe => ({
    total: 10,
    maxId: 12,
    fields: [],
    fieldsHash: 'f',
    modified: 'm',
    oid: '1',
    tailHash: 't',
    tail: [],
    fingerprint: 'x',
    at: 0,
    ...over,
  });

  test("types: the DataStore's own kept, the rest said", () => {
    assert.deepEqual(mappedType('int8'), { type: 'int8', note: null });
    assert.deepEqual(mappedType('int2'), { type: 'int4', note: 'upstream int2, served as int4' });
    assert.deepEqual(mappedType('_text'), { type: 'text', note: 'upstream _text, served as its text' });
  });

  test('a copy is verified against the probes before and after', () => {
    verifyCopy(probe(), probe(), { count: 10, lastId: 12 });
    assert.throws(
      () => verifyCopy(probe(), probe({ total: 11, maxId: 13 }), { count: 10, lastId: 12 }),
      /changed during the copy/,
    );
    assert.throws(() => verifyCopy(probe(), probe({ fieldsHash: 'g' }), { count: 10, lastId: 12 }), /fields changed/);
    assert.throws(
      () => verifyCopy(probe(), probe(), { count: 9, lastId: 12 }),
      /9 records were copied, but the portal counts 10/,
    );
    assert.throws(
      () => verifyCopy(probe(), probe({ tailHash: 'u', fingerprint: 'y' }), { count: 10, lastId: 12 }),
      /^MirrorMismatch: the upstream changed during the copy \(its last records changed\)$/,
    );
  });

  test('two probes that disagree say how; a loader that is not done says so', () => {
    assert.equal(probeDifference(probe(), probe()), null);
    assert.equal(
      probeDifference(probe(), probe({ total: 11, maxId: 13, fingerprint: 'y' })),
      '10 records up to _id 12, then 11 up to _id 13',
    );
    assert.equal(
      probeDifference(probe(), probe({ tailHash: 'u', oid: '2', fingerprint: 'y' })),
      'its last records changed; its table was re-created',
    );
    assert.equal(
      probeDifference(probe(), probe({ modified: 'n', fingerprint: 'y' })),
      'its last_modified moved from m to n',
    );
    assert.equal(loaderVeto(null), null);
    assert.equal(loaderVeto({ loader: 'xloader', status: 'complete', lastUpdated: null }), null);
    assert.equal(
      loaderVeto({ loader: 'xloader', status: 'pending', lastUpdated: null }),
      "the portal's xloader is loading the table (status pending)",
    );
    assert.equal(
      loaderVeto({ loader: 'datapusher', status: 'error', lastUpdated: '2026-11-25T10:00:00' }),
      "the portal's datapusher reports that its last load of the table failed (status error, updated 2026-11-25T10:00:00): the table may hold part of it",
    );
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
  test("--version is the package's", async () => {
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      version: string;
      bin: Record<string, string>;
    };
    assert.equal(COUNT_CENTRE_VERSION, pkg.version);
    assert.deepEqual(pkg.bin, {
      'count-centre': 'dist/src/cli/count-centre.js',
      'count-centre-load': 'dist/src/cli/count-centre-load.js',
    });
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
