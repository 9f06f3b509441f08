// .xlsx files for the reader's tests: whole workbooks written by ExcelJS (an independent writer: shared strings,
// styles, formulas with their results, merged cells, its streaming writer for large sheets), and small packages made
// here part by part, for what other writers do that ExcelJS does not (namespace prefixes, absolute part names as
// openpyxl writes them, cells without references, the 1904 date system, ISO date cells) and for damaged and foreign
// files.

import { writeFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { strToU8, zipSync } from 'fflate';

export type Cell =
  | string
  | number
  | boolean
  | Date
  | null
  | { formula: string; result: string | number | boolean }
  | { error: string }
  | { richText: string[] };

/** A workbook with ExcelJS: each sheet's rows from row 1, date cells formatted as given (a date format by default). */
export async function writeWithExcelJs(
  file: string,
  sheets: { name: string; rows: Cell[][]; dateFormat?: string; merges?: string[] }[],
): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  for (const sheet of sheets) {
    const worksheet = workbook.addWorksheet(sheet.name);
    sheet.rows.forEach((cells, r) => {
      cells.forEach((value, c) => {
        if (value === null) return;
        const cell = worksheet.getCell(r + 1, c + 1);
        if (typeof value === 'object' && 'richText' in value)
          cell.value = { richText: value.richText.map((text, i) => ({ text, font: { bold: i === 0 } })) };
        else cell.value = value as ExcelJS.CellValue;
        if (value instanceof Date) cell.numFmt = sheet.dateFormat ?? 'yyyy-mm-dd';
      });
    });
    for (const range of sheet.merges ?? []) worksheet.mergeCells(range);
  }
  await workbook.xlsx.writeFile(file);
}

/** A large sheet through ExcelJS's streaming writer (inline strings), one row at a time, as a large export is made. */
export async function writeLargeWithExcelJs(
  file: string,
  header: string[],
  rows: number,
  row: (k: number) => (string | number | boolean | Date | null)[],
): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: true });
  const worksheet = workbook.addWorksheet('Large');
  worksheet.addRow(header).commit();
  for (let k = 0; k < rows; k++) {
    const added = worksheet.addRow(row(k));
    added.eachCell((cell) => {
      if (cell.value instanceof Date) cell.numFmt = 'yyyy-mm-dd hh:mm:ss';
    });
    added.commit();
  }
  worksheet.commit();
  await workbook.commit();
}

/** Zips parts (name → XML text or bytes) into a package, deflated as Excel does. */
export function writeParts(file: string, parts: Record<string, string | Uint8Array>): void {
  const entries = Object.fromEntries(
    Object.entries(parts).map(([name, content]) => [name, typeof content === 'string' ? strToU8(content) : content]),
  );
  writeFileSync(file, zipSync(entries, { level: 6 }));
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The parts of a workbook whose sheets' XML (what goes inside <sheetData>) the test writes itself. Options: a namespace
 * prefix on every SpreadsheetML element (`x`), absolute relationship targets (openpyxl), the 1904 date system, number
 * formats as cell styles (style i + 1 is formats[i]: a format code, or the id of a built-in format), shared strings,
 * and sheets listed in another order than their part numbers.
 */
export function workbookParts(
  sheets: { name: string; sheetData: string; part?: number }[],
  options: {
    prefix?: string;
    absoluteTargets?: boolean;
    date1904?: boolean;
    /** Excel's extension list at the end of the workbook, with x14's own workbookPr (which has no date1904). */
    extensions?: boolean;
    formats?: (string | number)[];
    sharedStrings?: string[];
  } = {},
): Record<string, string> {
  const p = options.prefix ? `${options.prefix}:` : '';
  const ns = options.prefix ? `xmlns:${options.prefix}="${MAIN}"` : `xmlns="${MAIN}"`;
  const target = (part: string) => (options.absoluteTargets ? `/xl/${part}` : part);
  const numbered = sheets.map((sheet, i) => ({ ...sheet, part: sheet.part ?? i + 1 }));
  const formats = options.formats ?? [];
  const formatId = (format: string | number, i: number) => (typeof format === 'number' ? format : 164 + i);
  const parts: Record<string, string> = {
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>',
    '_rels/.rels':
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PACKAGE_REL}">` +
      `<Relationship Id="rId1" Type="${REL}/officeDocument" Target="${options.absoluteTargets ? '/xl/workbook.xml' : 'xl/workbook.xml'}"/></Relationships>`,
    'xl/workbook.xml':
      `<?xml version="1.0" encoding="UTF-8"?><${p}workbook ${ns} xmlns:r="${REL}">` +
      `<${p}workbookPr${options.date1904 ? ' date1904="1"' : ''}/><${p}sheets>` +
      numbered
        .map(
          (sheet) =>
            `<${p}sheet name="${escapeXml(sheet.name)}" sheetId="${sheet.part}" r:id="rIdSheet${sheet.part}"/>`,
        )
        .join('') +
      `</${p}sheets>` +
      (options.extensions
        ? `<${p}extLst><${p}ext uri="{140A7094-0E35-4892-8432-C4D2E57EDEB5}" xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main">` +
          `<x14:workbookPr defaultImageDpi="220000"/></${p}ext></${p}extLst>`
        : '') +
      `</${p}workbook>`,
    'xl/_rels/workbook.xml.rels':
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PACKAGE_REL}">` +
      numbered
        .map(
          (sheet) =>
            `<Relationship Id="rIdSheet${sheet.part}" Type="${REL}/worksheet" Target="${target(`worksheets/sheet${sheet.part}.xml`)}"/>`,
        )
        .join('') +
      `<Relationship Id="rIdStyles" Type="${REL}/styles" Target="${target('styles.xml')}"/>` +
      (options.sharedStrings
        ? `<Relationship Id="rIdStrings" Type="${REL}/sharedStrings" Target="${target('sharedStrings.xml')}"/>`
        : '') +
      '</Relationships>',
    'xl/styles.xml':
      `<?xml version="1.0" encoding="UTF-8"?><${p}styleSheet ${ns}>` +
      `<${p}numFmts>${formats.map((code, i) => (typeof code === 'number' ? '' : `<${p}numFmt numFmtId="${164 + i}" formatCode="${escapeXml(code)}"/>`)).join('')}</${p}numFmts>` +
      `<${p}cellStyleXfs count="1"><${p}xf numFmtId="14"/></${p}cellStyleXfs>` +
      `<${p}cellXfs count="${formats.length + 1}"><${p}xf numFmtId="0"/>${formats.map((format, i) => `<${p}xf numFmtId="${formatId(format, i)}" applyNumberFormat="1"/>`).join('')}</${p}cellXfs>` +
      `</${p}styleSheet>`,
  };
  if (options.sharedStrings) {
    parts['xl/sharedStrings.xml'] =
      `<?xml version="1.0" encoding="UTF-8"?><${p}sst ${ns} count="${options.sharedStrings.length}">` +
      options.sharedStrings
        .map((text) =>
          text.startsWith('<') ? `<${p}si>${text}</${p}si>` : `<${p}si><${p}t>${escapeXml(text)}</${p}t></${p}si>`,
        )
        .join('') +
      `</${p}sst>`;
  }
  for (const sheet of numbered) {
    parts[`xl/worksheets/sheet${sheet.part}.xml`] =
      `<?xml version="1.0" encoding="UTF-8"?><${p}worksheet ${ns}><${p}sheetData>${sheet.sheetData}</${p}sheetData></${p}worksheet>`;
  }
  return parts;
}

/** <sheetData> rows from values, from row 1 and column A: inline strings, numbers, booleans; null leaves a cell out. */
export function rowsXml(rows: (string | number | boolean | null)[][]): string {
  return rows
    .map(
      (cells, r) =>
        `<row r="${r + 1}">${cells
          .map((value, c) => {
            const ref = `${columnName(c)}${r + 1}`;
            if (value === null) return '';
            if (typeof value === 'string')
              return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${escapeXml(value)}</t></is></c>`;
            if (typeof value === 'boolean') return `<c r="${ref}" t="b"><v>${value ? 1 : 0}</v></c>`;
            return `<c r="${ref}"><v>${value}</v></c>`;
          })
          .join('')}</row>`,
    )
    .join('');
}

export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/**
 * A minimal OLE compound file holding streams of the names given (and no data): the container Excel writes a
 * password-protected workbook into (EncryptionInfo, EncryptedPackage), and Excel 97–2003 an .xls (Workbook).
 */
export function compoundFile(streamNames: string[]): Buffer {
  const sector = 512;
  const entries = ['Root Entry', ...streamNames];
  const directorySectors = Math.ceil(entries.length / 4);
  const header = Buffer.alloc(sector, 0xff);
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(header, 0);
  header.fill(0, 8, 76);
  header.writeUInt16LE(0x3e, 24);
  header.writeUInt16LE(3, 26);
  header.writeUInt16LE(0xfffe, 28);
  header.writeUInt16LE(9, 30);
  header.writeUInt16LE(6, 32);
  header.writeUInt32LE(1, 44);
  header.writeUInt32LE(0, 48);
  header.writeUInt32LE(4096, 56);
  header.writeUInt32LE(0xfffffffe, 60);
  header.writeUInt32LE(0xfffffffe, 68);
  header.writeUInt32LE(directorySectors, 76);
  const directory = Buffer.alloc(sector * directorySectors);
  entries.forEach((name, i) => {
    const at = i * 128;
    directory.write(name, at, 'utf16le');
    directory.writeUInt16LE((name.length + 1) * 2, at + 64);
    directory[at + 66] = i === 0 ? 5 : 2;
    directory.writeUInt32LE(0xffffffff, at + 68);
    directory.writeUInt32LE(i > 0 && i < entries.length - 1 ? i + 1 : 0xffffffff, at + 72);
    directory.writeUInt32LE(i === 0 && entries.length > 1 ? 1 : 0xffffffff, at + 76);
  });
  const fat = Buffer.alloc(sector, 0xff);
  for (let i = 0; i < directorySectors; i++) fat.writeUInt32LE(i === directorySectors - 1 ? 0xfffffffe : i + 1, i * 4);
  fat.writeUInt32LE(0xfffffffd, directorySectors * 4);
  return Buffer.concat([header, directory, fat]);
}
