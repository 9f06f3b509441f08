// The .xlsx reader on workbooks the tests write: ExcelJS's (shared strings, styles, formulas, merged cells, two sheets,
// title rows, 100,000 rows read in a child process to measure its memory), packages laid out as other writers lay them
// out, the header found under titles, units and corners, and files that are not what they claim.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { openXlsx } from '../../src/ingest/readers/xlsx.js';
import type { RawRow, TableReader } from '../../src/ingest/readers/types.js';
import {
  compoundFile,
  rowsXml,
  workbookParts,
  writeLargeWithExcelJs,
  writeParts,
  writeWithExcelJs,
} from '../helpers/xlsx-files.js';

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'readers-xlsx-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(reader: TableReader): Promise<RawRow[]> {
  const rows: RawRow[] = [];
  for await (const batch of reader.batches()) rows.push(...batch);
  return rows;
}

async function read(
  file: string,
  sheet?: string,
): Promise<{ columns: readonly string[]; rows: RawRow[]; reader: TableReader }> {
  const reader = await openXlsx(file, sheet === undefined ? {} : { sheet });
  try {
    return { columns: reader.columns, rows: await readAll(reader), reader };
  } finally {
    await reader.close();
  }
}

/** `notes` (note rows left out below the table) as the interface carries it on the branch this is merged into. */
type WithNotes = TableReader & { readonly notes?: readonly { line: number; text: string }[] };

const utc = (iso: string) => new Date(iso.endsWith('Z') ? iso : `${iso}T00:00:00Z`);

describe('xlsx: a workbook written by ExcelJS', () => {
  let file: string;
  before(async () => {
    file = path.join(dir, 'results.xlsx');
    await writeWithExcelJs(file, [
      { name: 'Notes', rows: [['About this workbook'], ['Written by the tests']] },
      {
        name: 'Results',
        rows: [
          ['Table 1: Count results by candidate'],
          ['Source: the tests, 2024'],
          [],
          [
            'Constituency',
            'Candidate',
            'Votes',
            'Share',
            'Elected',
            'Declared',
            'Counted at',
            'Double',
            'Over 10,000',
            'Note',
            'Label',
          ],
          [
            'Dublin Bay North',
            'Áine Ní Bhriain',
            12000,
            0.25,
            true,
            utc('2024-11-30'),
            utc('2024-11-30T18:45:30Z'),
            { formula: 'C5*2', result: 24000 },
            { formula: 'C5>10000', result: true },
            { richText: ['Bold', ' and plain'] },
            { formula: 'A5&"!"', result: 'Dublin Bay North!' },
          ],
          [
            'Dublin Bay North',
            'Brian Byrne',
            8000.5,
            null,
            false,
            utc('2024-11-30'),
            null,
            { formula: 'C6*2', result: 16001 },
            { formula: 'C6>10000', result: false },
            'Line 1\nLine 2',
          ],
          ['Cork East', 'Colm Ó Cuív', 0, -0.125, null, null, null, { error: '#N/A' }],
          [],
          ['Merged note', null, null],
        ],
        merges: ['A9:C9'],
      },
    ]);
  });

  test('the first sheet by default', async () => {
    const { columns, rows, reader } = await read(file);
    assert.deepEqual([reader.unit, reader.declaredTypes, reader.rowCount], ['row', null, null]);
    assert.deepEqual(columns, ['About this workbook']);
    assert.deepEqual(rows, [{ line: 2, cells: ['Written by the tests'] }]);
  });

  test('a sheet by name: title rows skipped, every kind of cell, short rows, merged cells', async () => {
    const { columns, rows } = await read(file, 'Results');
    assert.deepEqual(columns, [
      'Constituency',
      'Candidate',
      'Votes',
      'Share',
      'Elected',
      'Declared',
      'Counted at',
      'Double',
      'Over 10,000',
      'Note',
      'Label',
    ]);
    assert.deepEqual(rows, [
      {
        line: 5,
        cells: [
          'Dublin Bay North',
          'Áine Ní Bhriain',
          12000,
          0.25,
          true,
          utc('2024-11-30'),
          utc('2024-11-30T18:45:30Z'),
          24000,
          true,
          'Bold and plain',
          'Dublin Bay North!',
        ],
      },
      {
        line: 6,
        cells: [
          'Dublin Bay North',
          'Brian Byrne',
          8000.5,
          null,
          false,
          utc('2024-11-30'),
          null,
          16001,
          false,
          'Line 1\nLine 2',
        ],
      },
      { line: 7, cells: ['Cork East', 'Colm Ó Cuív', 0, -0.125] },
      { line: 9, cells: ['Merged note'] },
    ]);
  });

  test('a sheet named in another case; an unknown name lists the sheets there are', async () => {
    assert.deepEqual((await read(file, 'results')).columns.slice(0, 2), ['Constituency', 'Candidate']);
    await assert.rejects(openXlsx(file, { sheet: 'Summary' }), {
      message: 'results.xlsx has no sheet named "Summary"; its sheets are "Notes" and "Results".',
    });
  });

  test('batches can be read again, and close is safe twice', async () => {
    const reader = await openXlsx(file, { sheet: 'Results' });
    const first = await readAll(reader);
    const second = await readAll(reader);
    await reader.close();
    await reader.close();
    assert.deepEqual(second, first);
    assert.equal(first.length, 4);
    await assert.rejects(readAll(reader), { message: 'results.xlsx was closed before its rows were read.' });
  });
});

describe('xlsx: packages as other writers lay them out', () => {
  test('namespace prefixes, absolute part names, sheets listed out of part order, the 1904 date system, references left out', async () => {
    const file = path.join(dir, 'layout.xlsx');
    const days1904 = (iso: string) => (Date.parse(`${iso}T00:00:00Z`) - Date.UTC(1904, 0, 1)) / 86_400_000;
    const x = (xml: string) => xml.replace(/<(\/?)(?!\/)/g, '<$1x:');
    writeParts(
      file,
      workbookParts(
        [
          { name: 'Notes', part: 1, sheetData: x(rowsXml([['not this one']])) },
          {
            name: 'Counts',
            part: 2,
            sheetData: x(
              '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c>' +
                '<c r="D1" t="inlineStr"><is><t>Duration</t></is></c><c r="E1" t="inlineStr"><is><t>Week</t></is></c><c r="F1" t="inlineStr"><is><t>Price</t></is></c>' +
                '<c r="G1" t="inlineStr"><is><t>Remark</t></is></c></row>' +
                `<row><c t="s"><v>4</v></c><c><v>5</v></c><c s="1"><v>${days1904('2020-02-08')}</v></c><c s="2"><v>1.5</v></c><c s="3"><v>7</v></c>` +
                '<c s="4"><v>12.5</v></c><c t="s"><v>3</v></c></row>' +
                '<row r="4"><c r="A4" t="d"><v>2024-02-29T12:00:00</v></c><c r="B4" t="e"><v>#DIV/0!</v></c><c r="C4" t="str"><f>"a"&amp;CHAR(13)</f><v>a_x000D_b</v></c>' +
                '<c r="D4" t="b"><f>TRUE()</f><v>1</v></c><c r="E4" s="1"/><c r="F4" t="inlineStr"><is><r><t>in</t></r><r><t xml:space="preserve">line </t></r><rPh sb="0" eb="1"><t>ルビ</t></rPh></is></c>' +
                '<c r="G4" t="inlineStr"><is><t/></is></c></row>' +
                `<row r="5"><c r="A5" t="inlineStr"><is><t>South</t></is></c><c r="B5"><v>-1.25E-3</v></c><c r="C5" s="1"><v>0</v></c></row>`,
            ),
          },
        ].reverse(),
        {
          prefix: 'x',
          absoluteTargets: true,
          date1904: true,
          formats: ['dd/mm/yyyy;@', '[h]:mm:ss', '"Week "0', '#,##0.00 "€"'],
          sharedStrings: [
            'Region',
            'Count',
            'When',
            '<x:r><x:t>Rich</x:t></x:r><x:r><x:t xml:space="preserve"> text</x:t></x:r><x:rPh sb="0" eb="1"><x:t>フリ</x:t></x:rPh>',
            'North',
          ],
        },
      ),
    );
    const { columns, rows } = await read(file);
    assert.deepEqual(columns, ['Region', 'Count', 'When', 'Duration', 'Week', 'Price', 'Remark']);
    assert.deepEqual(rows, [
      { line: 2, cells: ['North', 5, utc('2020-02-08'), 1.5, 7, 12.5, 'Rich text'] },
      { line: 4, cells: [utc('2024-02-29T12:00:00Z'), null, 'a\rb', true, null, 'inline '] },
      { line: 5, cells: ['South', -0.00125, utc('1904-01-01')] },
    ]);
    assert.deepEqual((await read(file, 'Notes')).columns, ['not this one']);
  });

  test("dates in the 1900 system: built-in and custom formats, times of day, and Lotus 1-2-3's 29 February 1900", async () => {
    const file = path.join(dir, 'dates.xlsx');
    const cell = (column: string, row: number, style: number, serial: number) =>
      `<c r="${column}${row}" s="${style}"><v>${serial}</v></c>`;
    writeParts(
      file,
      workbookParts(
        [
          {
            name: 'Dates',
            sheetData: rowsXml([['Built-in', 'Custom', 'Time', 'Number']]).concat(
              `<row r="2">${cell('A', 2, 1, 45000)}${cell('B', 2, 2, 45000.5)}${cell('C', 2, 3, 0.75)}${cell('D', 2, 4, 45000)}</row>`,
              `<row r="3">${cell('A', 3, 1, 1)}${cell('B', 3, 2, 59)}${cell('C', 3, 3, 0.999988425925926)}${cell('D', 3, 0, 61)}</row>`,
              `<row r="4">${cell('A', 4, 1, 61)}${cell('B', 4, 5, 44927.25)}</row>`,
            ),
          },
        ],
        { formats: [14, 'dd/mm/yyyy hh:mm', 'h:mm AM/PM', '0.00E+00', '[$-1809]d mmmm yyyy;@'] },
      ),
    );
    const { rows } = await read(file);
    assert.deepEqual(rows, [
      { line: 2, cells: [utc('2023-03-15'), utc('2023-03-15T12:00:00Z'), utc('1899-12-30T18:00:00Z'), 45000] },
      { line: 3, cells: [utc('1900-01-01'), utc('1900-02-28'), utc('1899-12-30T23:59:59Z'), 61] },
      { line: 4, cells: [utc('1900-03-01'), utc('2023-01-01T06:00:00Z')] },
    ]);
  });

  test("a 1904 workbook as Excel for Mac saves it: x14's own workbookPr at the end leaves the dates in 1904's system", async () => {
    // Excel writes <extLst><ext><x14:workbookPr defaultImageDpi=…/></ext></extLst> after the sheets; read as the
    // workbook's properties, it turned date1904 off and every date came out 4 years and a day early.
    for (const prefix of [undefined, 'x']) {
      const file = path.join(dir, `mac-${prefix ?? 'plain'}.xlsx`);
      writeParts(
        file,
        workbookParts(
          [
            {
              name: 'Dates',
              sheetData: rowsXml([['When']]).concat(`<row r="2"><c r="A2" s="1"><v>41051</v></c></row>`),
            },
          ],
          { ...(prefix ? { prefix } : {}), date1904: true, extensions: true, formats: [14] },
        ),
      );
      const { rows } = await read(file);
      // 41,051 days after 1 January 1904 (2016-05-23; in the 1900 system the same serial is 2012-05-22).
      assert.deepEqual(rows, [{ line: 2, cells: [utc('2016-05-23')] }]);
    }
  });
});

describe('xlsx: the header, as a person would find it', () => {
  let file: string;
  before(() => {
    file = path.join(dir, 'headers.xlsx');
    const sheets: Record<string, (string | number | boolean | null)[][]> = {
      titles: [
        ['Table 1: Population by county, 2022'],
        ['Source: Census of Population'],
        [],
        ['County', 'Population', 'Area'],
        ['Dublin', 1458154, 921],
        ['Cork', 584156, 7500],
        [],
        ['Note: provisional'],
        ['Source: Census of Population'],
      ],
      'notes-then-data': [['Item', 'Count'], ['Note: counted twice', null], ['Apples', 3], ['Source: the tests']],
      crosstab: [
        ['Persons by county and year'],
        [],
        [null, 'Thousands', 'Thousands', 'Thousands'],
        [null, 2011, 2016, 2022],
        ['Dublin', 1273.1, 1347.4, 1458.2],
        ['Cork', 519, 542.9, 584.2],
      ],
      indented: [[], [], [null, null, 'Code', 'Name'], [null, null, 'A1', 'Alpha'], [null, 'ignored', 'B2', 'Beta']],
      unnamed: [['Table 2'], [], ['Region', null, 'Total'], ['North', 'x', 10], ['South', 'y', 20]],
      notes: [
        ['Name', 'Score'],
        ['Ann', 1, null, 'checked by Bob'],
        ['Ben', 2],
        ['Cy', 3],
      ],
      text: [
        ['Name', 'Town'],
        ['Alice', 'Cork'],
        ['Bob', 'Galway'],
      ],
      pairs: [
        ['name', 'value'],
        ['Name', 'Clippy'],
        ['Species', 'paperclip'],
        ['Weight in grams', 0.9],
      ],
    };
    writeParts(file, workbookParts(Object.entries(sheets).map(([name, rows]) => ({ name, sheetData: rowsXml(rows) }))));
  });

  const expected: [string, string[], RawRow[]][] = [
    [
      'titles',
      ['County', 'Population', 'Area'],
      [
        { line: 5, cells: ['Dublin', 1458154, 921] },
        { line: 6, cells: ['Cork', 584156, 7500] },
      ],
    ],
    [
      'crosstab',
      ['', '2011', '2016', '2022'],
      [
        { line: 5, cells: ['Dublin', 1273.1, 1347.4, 1458.2] },
        { line: 6, cells: ['Cork', 519, 542.9, 584.2] },
      ],
    ],
    [
      'indented',
      ['Code', 'Name'],
      [
        { line: 4, cells: ['A1', 'Alpha'] },
        { line: 5, cells: ['B2', 'Beta'] },
      ],
    ],
    [
      'unnamed',
      ['Region', '', 'Total'],
      [
        { line: 4, cells: ['North', 'x', 10] },
        { line: 5, cells: ['South', 'y', 20] },
      ],
    ],
    [
      'notes',
      ['Name', 'Score'],
      [
        { line: 2, cells: ['Ann', 1, null, 'checked by Bob'] },
        { line: 3, cells: ['Ben', 2] },
        { line: 4, cells: ['Cy', 3] },
      ],
    ],
    [
      'text',
      ['Name', 'Town'],
      [
        { line: 2, cells: ['Alice', 'Cork'] },
        { line: 3, cells: ['Bob', 'Galway'] },
      ],
    ],
    [
      'pairs',
      ['name', 'value'],
      [
        { line: 2, cells: ['Name', 'Clippy'] },
        { line: 3, cells: ['Species', 'paperclip'] },
        { line: 4, cells: ['Weight in grams', 0.9] },
      ],
    ],
  ];
  for (const [sheet, columns, rows] of expected) {
    test(sheet, async () => {
      assert.deepEqual(await read(file, sheet).then(({ columns: c, rows: r }) => ({ columns: c, rows: r })), {
        columns,
        rows,
      });
    });
  }

  test('note rows below the table are reported, not read as data; a note row followed by data is data', async () => {
    const titles = await read(file, 'titles');
    assert.deepEqual((titles.reader as WithNotes).notes, [
      { line: 8, text: 'Note: provisional' },
      { line: 9, text: 'Source: Census of Population' },
    ]);
    const mixed = await read(file, 'notes-then-data');
    assert.deepEqual(
      [mixed.rows, (mixed.reader as WithNotes).notes],
      [
        [
          { line: 2, cells: ['Note: counted twice'] },
          { line: 3, cells: ['Apples', 3] },
        ],
        [{ line: 4, text: 'Source: the tests' }],
      ],
    );
  });

  test('messages name the file as the caller shows it', async () => {
    await assert.rejects(openXlsx(file, { sheet: 'absent', displayName: 'upload 7' }), {
      message:
        'upload 7 has no sheet named "absent"; its sheets are "titles", "notes-then-data", "crosstab", "indented", "unnamed", "notes", "text" and "pairs".',
    });
  });
});

describe('xlsx: 100,000 rows, streamed', () => {
  test('every row read once, in order, with a flat memory footprint', async () => {
    const file = path.join(dir, 'large.xlsx');
    const rows = 100_000;
    await writeLargeWithExcelJs(file, ['id', 'name', 'amount', 'when', 'flag'], rows, largeRow);
    // A fresh process, so that the writer's memory does not count: it reads the file, checks each row, samples RSS.
    const reader = new URL('../../src/ingest/readers/xlsx.js', import.meta.url).href;
    const script = `
      const { openXlsx } = await import(${JSON.stringify(reader)});
      const expected = ${largeRow.toString()};
      let peak = 0;
      const sample = () => { peak = Math.max(peak, process.memoryUsage().rss); };
      const timer = setInterval(sample, 10);
      const started = performance.now();
      const table = await openXlsx(${JSON.stringify(file)}, {});
      let count = 0, mismatches = 0, largest = 0, first, last;
      for await (const batch of table.batches()) {
        largest = Math.max(largest, batch.length);
        for (const row of batch) {
          const want = expected(count);
          const same = row.line === count + 2 && row.cells.length === want.length
            && row.cells.every((cell, i) => cell instanceof Date ? cell.getTime() === want[i].getTime() : cell === want[i]);
          if (!same) mismatches++;
          first ??= row; last = row; count++;
        }
        sample();
      }
      await table.close();
      clearInterval(timer);
      console.log(JSON.stringify({ columns: table.columns, count, mismatches, largest, first, last, peakMB: Math.round(peak / 2 ** 20), seconds: (performance.now() - started) / 1000 }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      maxBuffer: 1 << 20,
    });
    const result = JSON.parse(stdout) as { peakMB: number; seconds: number };
    const { peakMB, seconds, ...read } = result;
    assert.deepEqual(read, {
      columns: ['id', 'name', 'amount', 'when', 'flag'],
      count: rows,
      mismatches: 0,
      largest: 4096,
      first: { cells: [1, 'name 0', 0, '2020-01-01T00:00:00.000Z', true], line: 2 },
      last: { cells: [100000, 'name 4999', 124.875, '2020-03-10T10:39:00.000Z', false], line: 100001 },
    });
    // Reading holds a batch and a chunk of the sheet, not the sheet, whose 100,000 rows would take several times this.
    assert.ok(peakMB < 160, `peak RSS ${peakMB} MB over ${seconds.toFixed(1)} s`);
  });
});

function largeRow(k: number): (string | number | boolean | Date | null)[] {
  return [k + 1, `name ${k % 5000}`, (k % 1000) / 8, new Date(Date.UTC(2020, 0, 1) + k * 60_000), k % 2 === 0];
}

describe('xlsx: files that are not what they claim', () => {
  let good: Buffer;
  before(async () => {
    const file = path.join(dir, 'good.xlsx');
    await writeLargeWithExcelJs(file, ['id', 'name', 'amount', 'when', 'flag'], 3000, largeRow);
    good = readFileSync(file);
  });

  /** The good file with bytes in the middle of the sheet's compressed data overwritten. */
  function damagedSheet(): Buffer {
    const copy = Buffer.from(good);
    const at = copy.indexOf('xl/worksheets/sheet1.xml');
    const header = copy.lastIndexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]), at);
    const start = header + 30 + copy.readUInt16LE(header + 26) + copy.readUInt16LE(header + 28);
    copy.fill(0xff, start + 200, start + 600);
    return copy;
  }

  const cases: [string, () => Buffer, string][] = [
    [
      'a CSV file',
      () => Buffer.from('id,name\n1,a\n'),
      'notes.xlsx is not an .xlsx workbook: it is not a zip archive, as every .xlsx file is.',
    ],
    ['an empty file', () => Buffer.alloc(0), 'notes.xlsx is empty: it has no bytes at all, so no workbook.'],
    [
      'a file cut short',
      () => good.subarray(0, Math.floor(good.length / 2)),
      'notes.xlsx is damaged: its zip directory is missing or incomplete (was the file cut short?).',
    ],
    [
      'a password-protected workbook',
      () => compoundFile(['\u0006DataSpaces', 'EncryptionInfo', 'EncryptedPackage']),
      'notes.xlsx is a password-protected workbook: remove the password in Excel (File › Info › Protect Workbook) and save it again.',
    ],
    [
      'an Excel 97–2003 workbook',
      () => compoundFile(['Workbook', '\u0005SummaryInformation']),
      'notes.xlsx is an old Excel 97–2003 .xls workbook, not an .xlsx one: save it as .xlsx in Excel.',
    ],
    [
      'an OpenDocument spreadsheet',
      () =>
        Buffer.from(
          zipSync({
            mimetype: strToU8('application/vnd.oasis.opendocument.spreadsheet'),
            'content.xml': strToU8('<office:document-content/>'),
          }),
        ),
      'notes.xlsx is not an Excel workbook: it is an OpenDocument file (.ods): save it as .xlsx.',
    ],
    [
      'a sheet whose compressed data is damaged',
      damagedSheet,
      'notes.xlsx is damaged: the sheet "Large" cannot be decompressed.',
    ],
    [
      'a sheet that is not well-formed XML',
      () =>
        Buffer.from(
          zipSync(
            Object.fromEntries(
              Object.entries(workbookParts([{ name: 'Data', sheetData: '<row r="1"><c r="A1"><v>1</v></row>' }])).map(
                ([name, xml]) => [name, strToU8(xml)],
              ),
            ),
          ),
        ),
      'notes.xlsx is damaged: the sheet "Data" is not well-formed XML.',
    ],
    [
      'a sheet with no cells',
      () =>
        Buffer.from(
          zipSync(
            Object.fromEntries(
              Object.entries(workbookParts([{ name: 'Data', sheetData: '<row r="1"/>' }])).map(([name, xml]) => [
                name,
                strToU8(xml),
              ]),
            ),
          ),
        ),
      'The sheet "Data" in notes.xlsx is empty.',
    ],
  ];
  for (const [what, bytes, message] of cases) {
    test(what, async () => {
      const folder = path.join(dir, what.replace(/\W+/g, '-'));
      mkdirSync(folder);
      const file = path.join(folder, 'notes.xlsx');
      writeFileSync(file, bytes());
      await assert.rejects(
        async () => {
          const reader = await openXlsx(file, {});
          try {
            await readAll(reader);
          } finally {
            await reader.close();
          }
        },
        (error: Error) => {
          assert.equal(error.message, message);
          return true;
        },
      );
    });
  }

  test('a missing file and a folder', async () => {
    await assert.rejects(openXlsx(path.join(dir, 'absent.xlsx'), {}), {
      message: 'absent.xlsx cannot be opened: there is no such file.',
    });
    const folder = path.join(dir, 'folder.xlsx');
    mkdirSync(folder);
    await assert.rejects(openXlsx(folder, {}), {
      message: 'folder.xlsx cannot be opened: it is a folder, not a file.',
    });
  });
});
