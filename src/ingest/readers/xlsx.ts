// Reads an Excel .xlsx workbook as a table: one worksheet, its header found below any title rows, and its rows streamed
// out of the zip (yauzl, which reads entries in place) through a streaming XML parser (saxes), never the sheet whole.

import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import type { RawCell, RawRow, TableReader } from './types.js';

/** Rows per batch: a few thousand, so that a consumer awaits once per batch, not per row. */
const BATCH_ROWS = 4096;
/** Rows with content looked at below a candidate header to see the shape of the table under it. */
const SHAPE_ROWS = 20;
/** Rows with content searched for the header; a sheet whose header is further down is read from its first row. */
const HEADER_SEARCH_ROWS = 200;
/** Note rows that statistics exports put below a table; the same as the delimited reader recognises. */
const NOTE_ROW = /^(This is|Source:|Sources:|Note:|Notes:)/;
/** Shared strings are held in memory (cells refer to them by number); past this a file is refused, not read. */
const MAX_SHARED_STRINGS_BYTES = 1 << 30;

const RELATIONSHIP = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';
const STRICT_RELATIONSHIP = 'http://purl.oclc.org/ooxml/officeDocument/relationships/';

/** A row of the sheet, its cells by column from A (null where empty), and its row number as Excel shows it. */
interface SheetRow {
  number: number;
  cells: RawCell[];
}

/**
 * Opens an .xlsx workbook: the first worksheet, or the one named `sheet`. Reads the workbook's parts and the top of the
 * sheet now (to find the header) and the sheet's rows as `batches` asks, each time from the start of the sheet.
 *
 * The header is found as a person reading the sheet would. It is the first row that (a) holds only labels (text, or
 * whole numbers that read as years, as statistics tables head their columns), all different, in adjacent cells, (b) is
 * followed directly by a row with content, (c) is at least as wide as most of the rows below it that have more than one
 * cell (a title is narrower), and (d) is not a heading over a header that fills the corner: the row below it is not
 * also labels that end where it ends and start further left. Title rows ("Table 1…", "Source: …"), notes and blank
 * lines above the table fail (b) or (c); a units row ("Thousands", "Thousands") fails (a), and a group row, whose
 * labels stand over merged cells, too. Most rows below may start left of the header, under an empty top-left corner
 * (row labels in a crosstab); the table then starts where they do, and the corner's column is named "". A sheet with
 * no such row among its first 200 rows with content takes the first row as wide as the widest of them (a header with
 * an unnamed column is not all labels). The table's columns run from its first column to the header's last; cells
 * left of them are left out.
 *
 * Cells: numbers as numbers, text as strings (shared or inline, rich text joined, phonetic guides left out), booleans,
 * dates as Dates in UTC (a number in a date-formatted cell, in the 1900 or 1904 date system; a date-only cell is at
 * midnight UTC; a time-only cell is on 1899-12-30), formulas by the value Excel last calculated (null where it never
 * was), error values (#N/A, #DIV/0!) and empty text as null. A merged range holds its value in its top-left cell, as
 * Excel stores it. Empty rows are skipped; trailing empty cells are left off, so rows may be shorter than the header.
 * A trailing block of note rows below the table (one cell: "Source: …", "Note: …", "This is …") is not data: it is left
 * out of the rows and reported in `notes` once the rows are read; if a data row follows, the block was data after all.
 *
 * Messages name the file by `displayName`, or by its base name: never by its path.
 */
export async function openXlsx(
  file: string,
  options: { sheet?: string; displayName?: string } = {},
): Promise<TableReader> {
  const name = options.displayName ?? path.basename(file);
  await checkContainer(file, name);
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(file, {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
      strictFileNames: false,
    });
  } catch (error) {
    throw new Error(`${name} is damaged: ${zipFailure(error)}.`, { cause: error });
  }
  try {
    const workbook = await Workbook.read(zip, name);
    const sheet = workbook.chooseSheet(options.sheet);
    const styles = await workbook.dateStyles();
    const sharedStrings = await workbook.sharedStrings();
    const reader = new XlsxReader(name, zip, workbook, sheet, { styles, sharedStrings, date1904: workbook.date1904 });
    await reader.findHeader();
    return reader;
  } catch (error) {
    zip.close();
    throw error;
  }
}

/** Names what a file is when it is not a zip archive: an encrypted workbook, an old .xls, or something else. */
async function checkContainer(file: string, name: string): Promise<void> {
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new Error(`${name} cannot be opened: ${openFailure(error)}.`, { cause: error });
  });
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new Error(`${name} cannot be opened: it is a folder, not a file.`);
    if (stats.size === 0) throw new Error(`${name} is empty: it has no bytes at all, so no workbook.`);
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, 512, 0);
    if (head.subarray(0, 2).toString('latin1') === 'PK') return;
    if (bytesRead >= 512 && head.readUInt32BE(0) === 0xd0cf11e0 && head.readUInt32BE(4) === 0xa1b11ae1) {
      throw new Error(await compoundFileKind(handle, head, name));
    }
    throw new Error(`${name} is not an .xlsx workbook: it is not a zip archive, as every .xlsx file is.`);
  } finally {
    await handle.close();
  }
}

/**
 * An OLE compound file (the container of legacy Office files) is either a password-protected workbook (Excel encrypts
 * an .xlsx into one, with streams named EncryptionInfo and EncryptedPackage) or an old binary .xls. The stream names
 * are in the compound file's directory, whose first sector the header points to.
 */
async function compoundFileKind(handle: FileHandle, header: Buffer, name: string): Promise<string> {
  const sectorSize = 1 << header.readUInt16LE(30);
  const directorySector = header.readUInt32LE(48);
  const directory = Buffer.alloc(Math.min(sectorSize, 4096));
  await handle.read(directory, 0, directory.length, (directorySector + 1) * sectorSize).catch(() => undefined);
  const names = new Set<string>();
  for (let at = 0; at + 128 <= directory.length; at += 128) {
    const length = directory.readUInt16LE(at + 64);
    if (length >= 2 && length <= 64) names.add(directory.toString('utf16le', at, at + length - 2));
  }
  if (names.has('EncryptedPackage') || names.has('EncryptionInfo')) {
    return `${name} is a password-protected workbook: remove the password in Excel (File › Info › Protect Workbook) and save it again.`;
  }
  if (names.has('Workbook') || names.has('Book'))
    return `${name} is an old Excel 97–2003 .xls workbook, not an .xlsx one: save it as .xlsx in Excel.`;
  return `${name} is not an .xlsx workbook: it is an Office compound file (an encrypted workbook or an old .xls or .doc).`;
}

function openFailure(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'there is no such file';
  if (error.code === 'EISDIR') return 'it is a folder, not a file';
  if (error.code === 'EACCES' || error.code === 'EPERM') return 'permission denied';
  return error.code ?? error.message;
}

function zipFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/end of central directory record signature not found|central directory|truncated|unexpected EOF/i.test(message)) {
    return 'its zip directory is missing or incomplete (was the file cut short?)';
  }
  if (/invalid|unexpected end|incorrect header|too many|bad/i.test(message))
    return 'its zip archive cannot be decompressed';
  return 'its zip archive cannot be read';
}

/** A sheet as the workbook lists it. */
interface SheetEntry {
  name: string;
  /** The sheet's part in the zip, or null where the workbook's relationships do not lead to one. */
  part: string | null;
  kind: 'worksheet' | 'chartsheet' | 'other';
}

/** The workbook's parts that the sheet's cells refer to: its sheets, styles, shared strings and date system. */
class Workbook {
  private constructor(
    private readonly zip: ZipFile,
    readonly name: string,
    private readonly entries: Map<string, Entry>,
    readonly sheets: readonly SheetEntry[],
    readonly date1904: boolean,
    private readonly parts: { styles: string | null; sharedStrings: string | null },
  ) {}

  static async read(zip: ZipFile, name: string): Promise<Workbook> {
    const entries = new Map<string, Entry>();
    try {
      for await (const entry of zip.eachEntry()) entries.set(entry.fileName.replace(/^\/+/, '').toLowerCase(), entry);
    } catch (error) {
      throw new Error(`${name} is damaged: its zip directory cannot be read.`, { cause: error });
    }
    const workbookPart = (await officeDocument(zip, entries, name)) ?? 'xl/workbook.xml';
    if (!entries.has(workbookPart.toLowerCase()))
      throw new Error(`${name} is not an Excel workbook: ${otherZipKind(entries)}.`);
    if (workbookPart.toLowerCase().endsWith('.bin'))
      throw new Error(`${name} is an Excel binary workbook (.xlsb): save it as .xlsx in Excel.`);

    const listed: { name: string; id: string | null }[] = [];
    let date1904 = false;
    // The workbook's own properties are a child of its root. Excel also writes an extension's workbookPr (x14's, with
    // no date1904) inside extLst at the end, which must not reset a 1904 workbook's dates to 1900's.
    let depth = 0;
    await parseXml(zip, entries.get(workbookPart.toLowerCase())!, name, {
      opentag(tag) {
        const local = localName(tag.name);
        if (local === 'sheet') listed.push({ name: tag.attributes.name ?? '', id: relationshipId(tag.attributes) });
        else if (local === 'workbookPr' && depth === 1) date1904 = isTrue(tag.attributes.date1904);
        depth++;
      },
      closetag() {
        depth--;
      },
    });
    const relationships = await readRelationships(zip, entries, name, workbookPart);
    const sheets = listed.map((sheet): SheetEntry => {
      const target = sheet.id ? relationships.get(sheet.id) : undefined;
      const type = target?.type ?? '';
      const kind = type.endsWith('/worksheet') ? 'worksheet' : type.endsWith('/chartsheet') ? 'chartsheet' : 'other';
      return { name: sheet.name, part: target ? target.part : null, kind };
    });
    const byType = (suffix: string) =>
      [...relationships.values()].find((target) => target.type.endsWith(suffix))?.part ?? null;
    return new Workbook(zip, name, entries, sheets, date1904, {
      styles: byType('/styles'),
      sharedStrings: byType('/sharedStrings'),
    });
  }

  chooseSheet(wanted: string | undefined): SheetEntry {
    const worksheets = this.sheets.filter((sheet) => sheet.kind === 'worksheet');
    if (wanted === undefined) {
      const first = worksheets[0];
      if (!first) throw new Error(`${this.name} has no worksheets.`);
      return this.checkPart(first);
    }
    const chosen =
      this.sheets.find((sheet) => sheet.name === wanted) ??
      this.sheets.filter((sheet) => sheet.name.toLowerCase() === wanted.toLowerCase()).at(0);
    if (!chosen)
      throw new Error(
        `${this.name} has no sheet named "${wanted}"; its sheets are ${listing(worksheets.map((sheet) => sheet.name))}.`,
      );
    if (chosen.kind !== 'worksheet')
      throw new Error(`The sheet "${chosen.name}" in ${this.name} is a chart, not a table of cells.`);
    return this.checkPart(chosen);
  }

  private checkPart(sheet: SheetEntry): SheetEntry {
    if (!sheet.part || !this.entries.has(sheet.part.toLowerCase())) {
      throw new Error(`${this.name} is damaged: the sheet "${sheet.name}" is listed but its cells are missing.`);
    }
    return sheet;
  }

  entry(part: string): Entry | undefined {
    return this.entries.get(part.toLowerCase());
  }

  /** Per cell style (the `s` of a cell), whether its number format shows a date or time. */
  async dateStyles(): Promise<boolean[]> {
    const entry = this.parts.styles ? this.entry(this.parts.styles) : undefined;
    if (!entry) return [];
    const formats = new Map<number, string>();
    const styles: boolean[] = [];
    let inCellXfs = false;
    await parseXml(this.zip, entry, this.name, {
      opentag(tag) {
        const local = localName(tag.name);
        if (local === 'numFmt') formats.set(Number(tag.attributes.numFmtId), tag.attributes.formatCode ?? '');
        else if (local === 'cellXfs') inCellXfs = true;
        else if (local === 'xf' && inCellXfs) {
          const id = Number(tag.attributes.numFmtId ?? 0);
          styles.push(formats.has(id) ? isDateFormat(formats.get(id)!) : BUILTIN_DATE_FORMATS.has(id));
        }
      },
      closetag(tag) {
        if (localName(tag.name) === 'cellXfs') inCellXfs = false;
      },
    });
    return styles;
  }

  /** The shared strings, in order: each the text of its runs joined, without phonetic guides. */
  async sharedStrings(): Promise<string[]> {
    const entry = this.parts.sharedStrings ? this.entry(this.parts.sharedStrings) : this.entry('xl/sharedStrings.xml');
    if (!entry) return [];
    if (entry.uncompressedSize > MAX_SHARED_STRINGS_BYTES) {
      throw new Error(
        `${this.name} has more shared text than this reader holds in memory (${Math.round(entry.uncompressedSize / 2 ** 20)} MB).`,
      );
    }
    const strings: string[] = [];
    const text = new RunText();
    await parseXml(this.zip, entry, this.name, {
      opentag(tag) {
        const local = localName(tag.name);
        if (local === 'si') text.reset();
        else text.open(local);
      },
      text: (value) => text.add(value),
      closetag(tag) {
        const local = localName(tag.name);
        if (local === 'si') strings.push(text.value());
        else text.close(local);
      },
    });
    return strings;
  }

  openSheet(sheet: SheetEntry): Promise<Readable> {
    return openEntry(this.zip, this.entry(sheet.part!)!, this.name);
  }
}

/** Collects the text of a string item (<si> or <is>): its <t> elements, directly or in runs, but not phonetic ones. */
class RunText {
  private parts: string[] = [];
  private inText = false;
  private inPhonetic = 0;

  reset(): void {
    this.parts = [];
    this.inText = false;
    this.inPhonetic = 0;
  }

  open(local: string): void {
    if (local === 't') this.inText = true;
    else if (local === 'rPh') this.inPhonetic++;
  }

  close(local: string): void {
    if (local === 't') this.inText = false;
    else if (local === 'rPh') this.inPhonetic--;
  }

  add(value: string): void {
    if (this.inText && this.inPhonetic === 0) this.parts.push(value);
  }

  value(): string {
    return unescapeXString(this.parts.join(''));
  }
}

class XlsxReader implements TableReader {
  readonly unit = 'row';
  readonly declaredTypes = null;
  readonly rowCount = null;
  #columns: readonly string[] = [];
  #notes: readonly { line: number; text: string }[] = [];
  /** The header's row number (rows at or above it are not data) and the table's first column (0-based). */
  private headerRow = 0;
  private firstColumn = 0;
  #closed = false;

  constructor(
    private readonly name: string,
    private readonly zip: ZipFile,
    private readonly workbook: Workbook,
    private readonly sheet: SheetEntry,
    private readonly context: CellContext,
  ) {}

  get columns(): readonly string[] {
    return this.#columns;
  }

  get notes(): readonly { line: number; text: string }[] {
    return this.#notes;
  }

  /** Reads the top of the sheet, up to the header and the rows that show the table's shape, and settles the columns. */
  async findHeader(): Promise<void> {
    const top: SheetRow[] = [];
    for await (const rows of this.sheetRows()) {
      for (const row of rows) if (row.cells.some((cell) => cell !== null)) top.push(row);
      if (top.length >= HEADER_SEARCH_ROWS + SHAPE_ROWS) break;
    }
    if (top.length === 0) throw new Error(`The sheet "${this.sheet.name}" in ${this.name} is empty.`);
    let header: SheetRow | undefined;
    let start: number | null = null;
    for (let i = 0; i < Math.min(top.length, HEADER_SEARCH_ROWS) && start === null; i++) {
      header = top[i]!;
      start = headerStart(header, top.slice(i + 1, i + 1 + SHAPE_ROWS));
    }
    if (start === null) {
      const widest = Math.max(...top.map((row) => row.cells.length));
      const at = top.findIndex((row) => row.cells.length === widest);
      header = top[at]!;
      start = tableStart(filledColumns(header.cells)[0]!, top.slice(at + 1, at + 1 + SHAPE_ROWS));
    }
    this.headerRow = header!.number;
    this.firstColumn = start;
    this.#columns = Array.from({ length: header!.cells.length - start }, (_, i) =>
      label(header!.cells[start! + i] ?? null),
    );
  }

  async *batches(): AsyncGenerator<RawRow[]> {
    let batch: RawRow[] = [];
    let held: RawRow[] = [];
    for await (const rows of this.sheetRows()) {
      for (const row of rows) {
        if (row.number <= this.headerRow) continue;
        const cells = row.cells.slice(this.firstColumn);
        while (cells.length > 0 && cells[cells.length - 1] === null) cells.pop();
        if (cells.length === 0) continue;
        if (cells.length === 1 && typeof cells[0] === 'string' && NOTE_ROW.test(cells[0])) {
          held.push({ cells, line: row.number });
          continue;
        }
        for (const data of [...held, { cells, line: row.number }]) {
          batch.push(data);
          if (batch.length === BATCH_ROWS) {
            yield batch;
            batch = [];
          }
        }
        held = [];
      }
    }
    if (batch.length > 0) yield batch;
    this.#notes = held.map((row) => ({ line: row.line, text: row.cells[0] as string }));
  }

  /** The sheet's rows as the XML parser hands them on, a chunk of the inflated sheet at a time. */
  private async *sheetRows(): AsyncGenerator<SheetRow[]> {
    if (this.#closed) throw new Error(`${this.name} was closed before its rows were read.`);
    const stream = await this.workbook.openSheet(this.sheet);
    const rows = new SheetParser(this.context, `the sheet "${this.sheet.name}"`);
    try {
      stream.setEncoding('utf8');
      for await (const chunk of stream as AsyncIterable<string>) {
        rows.write(chunk);
        const done = rows.take();
        if (done.length > 0) yield done;
      }
      rows.close();
      const rest = rows.take();
      if (rest.length > 0) yield rest;
    } catch (error) {
      throw readFailure(error, this.name, `the sheet "${this.sheet.name}"`);
    } finally {
      stream.destroy();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.zip.close();
  }
}

/**
 * Where the table starts (its first column, 0-based) if the row reads as its header given the rows with content below
 * it, or null if it does not (see openXlsx).
 */
function headerStart(row: SheetRow, below: readonly SheetRow[]): number | null {
  const filled = filledColumns(row.cells);
  const first = filled[0]!;
  const last = filled.at(-1)!;
  if (last - first + 1 !== filled.length || !filled.every((c) => isLabel(row.cells[c]!))) return null;
  if (new Set(filled.map((c) => label(row.cells[c]!))).size !== filled.length) return null;
  const next = below[0];
  if (next?.number !== row.number + 1) return null;
  // The table's shape is in the rows below with more than one cell (titles, notes and sources have one), and in most
  // of them, not all: a note or a second table to the right of a few rows does not unseat the header.
  const shaped = below.filter((other) => filledColumns(other.cells).length > 1);
  const judged = shaped.length > 0 ? shaped : below;
  if (judged.filter((other) => other.cells.length - 1 <= last).length * 2 < judged.length) return null;
  const nextFilled = filledColumns(next.cells);
  if (
    nextFilled[0]! < first &&
    next.cells.length - 1 === last &&
    nextFilled.length === last - nextFilled[0]! + 1 &&
    nextFilled.every((c) => isLabel(next.cells[c]!))
  ) {
    return null;
  }
  return tableStart(first, below);
}

/** The table's first column: the header's, or under an empty corner left of it, the first that most rows below fill. */
function tableStart(first: number, below: readonly SheetRow[]): number {
  for (let column = 0; column < first; column++) {
    if (below.filter((other) => (other.cells[column] ?? null) !== null).length * 2 > below.length) return column;
  }
  return first;
}

function isLabel(cell: RawCell): boolean {
  return (
    typeof cell === 'string' || (typeof cell === 'number' && Number.isInteger(cell) && cell >= 1800 && cell <= 2100)
  );
}

function label(cell: RawCell): string {
  if (cell === null) return '';
  if (cell instanceof Date) return cell.toISOString();
  return String(cell);
}

function filledColumns(cells: readonly RawCell[]): number[] {
  const filled: number[] = [];
  cells.forEach((cell, i) => {
    if (cell !== null) filled.push(i);
  });
  return filled;
}

/** What a sheet's cells need from the rest of the workbook. */
interface CellContext {
  styles: readonly boolean[];
  sharedStrings: readonly string[];
  date1904: boolean;
}

/**
 * Turns the sheet's XML, written to it in chunks, into rows. Element names are matched without their namespace prefix,
 * since writers differ (x:row). Cells and rows may leave out their reference (r); they then follow the previous one.
 */
class SheetParser {
  private readonly parser = new SaxesParser({ xmlns: false });
  private rows: SheetRow[] = [];
  private row: SheetRow | null = null;
  private lastRow = 0;
  private nextColumn = 0;
  private cell: { column: number; type: string; style: number; value: string | null } | null = null;
  private inValue = false;
  private inInline = false;
  private readonly inline = new RunText();

  constructor(
    private readonly context: CellContext,
    where: string,
  ) {
    this.parser.on('opentag', (tag) => this.open(tag));
    this.parser.on('closetag', (tag) => this.closeTag(tag));
    this.parser.on('text', (text) => this.text(text));
    this.parser.on('cdata', (text) => this.text(text));
    this.parser.on('error', (error) => {
      throw new Error(`${where} is not well-formed XML (${error.message})`);
    });
  }

  write(chunk: string): void {
    this.parser.write(chunk);
  }

  close(): void {
    this.parser.close();
  }

  take(): SheetRow[] {
    const rows = this.rows;
    this.rows = [];
    return rows;
  }

  private open(tag: SaxesTagPlain): void {
    switch (localName(tag.name)) {
      case 'row': {
        const number = Number(tag.attributes.r);
        this.lastRow = Number.isInteger(number) && number > 0 ? number : this.lastRow + 1;
        this.row = { number: this.lastRow, cells: [] };
        this.nextColumn = 0;
        break;
      }
      case 'c': {
        const reference = tag.attributes.r;
        const column = reference ? columnIndex(reference) : this.nextColumn;
        this.cell = { column, type: tag.attributes.t ?? 'n', style: Number(tag.attributes.s ?? 0), value: null };
        this.nextColumn = column + 1;
        break;
      }
      case 'v':
        if (this.cell) {
          this.inValue = true;
          this.cell.value = '';
        }
        break;
      case 'is':
        if (this.cell) {
          this.inInline = true;
          this.inline.reset();
        }
        break;
      default:
        if (this.inInline) this.inline.open(localName(tag.name));
    }
  }

  private text(text: string): void {
    if (this.inValue) this.cell!.value += text;
    else if (this.inInline) this.inline.add(text);
  }

  private closeTag(tag: SaxesTagPlain): void {
    switch (localName(tag.name)) {
      case 'v':
        this.inValue = false;
        break;
      case 'is':
        if (this.cell) this.cell.value = this.inline.value();
        this.inInline = false;
        break;
      case 'c':
        if (this.row && this.cell) {
          const value = cellValue(this.cell.type, this.cell.value, this.cell.style, this.context);
          if (value !== null) {
            const cells = this.row.cells;
            while (cells.length < this.cell.column) cells.push(null);
            cells[this.cell.column] = value;
          }
        }
        this.cell = null;
        break;
      case 'row':
        if (this.row) this.rows.push(this.row);
        this.row = null;
        break;
      default:
        if (this.inInline) this.inline.close(localName(tag.name));
    }
  }
}

/** A cell's value from its type (t), its stored text (the <v>, or an inline string's text) and its style (s). */
function cellValue(type: string, stored: string | null, style: number, context: CellContext): RawCell {
  if (stored === null) return null;
  switch (type) {
    case 's': {
      const text = context.sharedStrings[Number(stored)];
      return text === undefined || text === '' ? null : text;
    }
    case 'inlineStr':
      return stored === '' ? null : stored;
    case 'str':
      return stored === '' ? null : unescapeXString(stored);
    case 'b':
      return stored === '' ? null : stored.trim() === '1' || stored.trim().toLowerCase() === 'true';
    case 'e':
      return null;
    case 'd':
      return isoDate(stored);
    default: {
      if (stored.trim() === '') return null;
      const number = Number(stored);
      if (!Number.isFinite(number)) return null;
      return context.styles[style] ? serialDate(number, context.date1904) : number;
    }
  }
}

const DAY = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/**
 * An Excel date serial as a moment in UTC. The 1900 system counts from 1899-12-30 but keeps Lotus 1-2-3's 29 February
 * 1900, so serials below 60 are a day later than that count; serials below 1 are times of day, on 1899-12-30.
 */
function serialDate(serial: number, date1904: boolean): Date {
  const epoch = date1904 ? EPOCH_1904 : serial >= 1 && serial < 60 ? EPOCH_1900 + DAY : EPOCH_1900;
  return new Date(epoch + Math.round(serial * DAY));
}

/** A `t="d"` cell: ISO 8601 text, a date-time without a zone read as UTC. */
function isoDate(text: string): RawCell {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const zoned = /(?:Z|[+-]\d\d:?\d\d)$/.test(trimmed) || !trimmed.includes('T') ? trimmed : `${trimmed}Z`;
  const date = new Date(/^\d{4}-\d\d-\d\d$/.test(zoned) ? `${zoned}T00:00:00Z` : zoned);
  return Number.isNaN(date.getTime()) ? trimmed : date;
}

/** Built-in number formats that show dates or times (14–22, 45–47, and the East Asian date formats 27–36 and 50–58). */
const BUILTIN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 47, 50, 51, 52, 53, 54, 55, 56, 57,
  58,
]);

/**
 * Whether a custom number format shows a date or time: a d, m, y, h or s outside quoted text, escapes, padding and
 * bracketed colours or locales. An elapsed-time format ([h]:mm) is a duration, not a moment, and stays a number.
 */
export function isDateFormat(code: string): boolean {
  const first = code.split(';')[0] ?? '';
  if (/\[(h+|m+|s+)\]/i.test(first)) return false;
  const bare = first.replace(/"[^"]*"|\\.|[_*].|\[[^\]]*\]/g, '');
  return /[dmyhs]/i.test(bare) && !/^general$/i.test(bare.trim());
}

/** 0-based column of a cell reference ("AB12" → 27). */
function columnIndex(reference: string): number {
  let column = 0;
  for (let i = 0; i < reference.length; i++) {
    const code = reference.charCodeAt(i) | 0x20;
    if (code < 0x61 || code > 0x7a) break;
    column = column * 26 + (code - 0x60);
  }
  return column - 1;
}

/** Excel escapes characters XML cannot hold as _xHHHH_ (a carriage return is _x000D_; a literal "_x" is _x005F_x). */
function unescapeXString(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

function relationshipId(attributes: Record<string, string>): string | null {
  for (const [key, value] of Object.entries(attributes)) if (localName(key) === 'id' && key.includes(':')) return value;
  return attributes.id ?? null;
}

function isTrue(value: string | undefined): boolean {
  return value === '1' || value?.toLowerCase() === 'true';
}

function listing(names: readonly string[]): string {
  const quoted = names.map((sheet) => `"${sheet}"`);
  if (quoted.length <= 1) return quoted.join('') || 'none';
  return `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
}

/** What a zip archive is when it has no Excel workbook in it. */
function otherZipKind(entries: Map<string, Entry>): string {
  if (entries.has('content.xml') && entries.has('mimetype'))
    return 'it is an OpenDocument file (.ods): save it as .xlsx';
  if (entries.has('word/document.xml')) return 'it is a Word document';
  if (entries.has('ppt/presentation.xml')) return 'it is a PowerPoint presentation';
  return 'it is a zip archive without a workbook in it';
}

/** The package's main document, from its relationships (_rels/.rels); null where the package does not say. */
async function officeDocument(zip: ZipFile, entries: Map<string, Entry>, name: string): Promise<string | null> {
  const rels = entries.get('_rels/.rels');
  if (!rels) return null;
  let target: string | null = null;
  await parseXml(zip, rels, name, {
    opentag(tag) {
      if (
        localName(tag.name) === 'Relationship' &&
        isRelationshipType(tag.attributes.Type, 'officeDocument') &&
        target === null
      ) {
        target = resolvePart('', tag.attributes.Target ?? '');
      }
    },
  });
  return target;
}

function isRelationshipType(type: string | undefined, kind: string): boolean {
  return type === `${RELATIONSHIP}${kind}` || type === `${STRICT_RELATIONSHIP}${kind}`;
}

/** A part's relationships, by id: where each leads (a part in the zip) and what it is. */
async function readRelationships(
  zip: ZipFile,
  entries: Map<string, Entry>,
  name: string,
  part: string,
): Promise<Map<string, { part: string; type: string }>> {
  const relationships = new Map<string, { part: string; type: string }>();
  const folder = path.posix.dirname(part);
  const rels = entries.get(path.posix.join(folder, '_rels', `${path.posix.basename(part)}.rels`).toLowerCase());
  if (!rels) return relationships;
  await parseXml(zip, rels, name, {
    opentag(tag) {
      if (localName(tag.name) !== 'Relationship' || tag.attributes.TargetMode === 'External') return;
      const { Id: id, Target: target, Type: type } = tag.attributes;
      if (id && target) relationships.set(id, { part: resolvePart(folder, target), type: type ?? '' });
    },
  });
  return relationships;
}

/** A relationship's target as a part name: absolute ("/xl/worksheets/sheet1.xml", as openpyxl writes) or relative. */
function resolvePart(folder: string, target: string): string {
  const decoded = decodeURIComponent(target.replace(/\\/g, '/'));
  const joined = decoded.startsWith('/') ? decoded.slice(1) : path.posix.join(folder, decoded);
  return path.posix.normalize(joined).replace(/^(\.\.\/)+/, '');
}

async function openEntry(zip: ZipFile, entry: Entry, name: string): Promise<Readable> {
  if (entry.isEncrypted())
    throw new Error(`${name} is protected with a zip password, which Excel does not use: it cannot be read.`);
  try {
    return await zip.openReadStreamPromise(entry);
  } catch (error) {
    throw readFailure(error, name, entry.fileName);
  }
}

/** Parses a small part (workbook, relationships, styles, shared strings) with the handlers given, streaming it. */
async function parseXml(
  zip: ZipFile,
  entry: Entry,
  name: string,
  handlers: {
    opentag?: (tag: SaxesTagPlain) => void;
    closetag?: (tag: SaxesTagPlain) => void;
    text?: (text: string) => void;
  },
): Promise<void> {
  const parser = new SaxesParser({ xmlns: false });
  if (handlers.opentag) parser.on('opentag', handlers.opentag);
  if (handlers.closetag) parser.on('closetag', handlers.closetag);
  if (handlers.text) {
    parser.on('text', handlers.text);
    parser.on('cdata', handlers.text);
  }
  parser.on('error', (error) => {
    throw new Error(`${entry.fileName} is not well-formed XML: ${error.message}`);
  });
  const stream = await openEntry(zip, entry, name);
  try {
    stream.setEncoding('utf8');
    for await (const chunk of stream as AsyncIterable<string>) parser.write(chunk);
    parser.close();
  } catch (error) {
    throw readFailure(error, name, entry.fileName);
  } finally {
    stream.destroy();
  }
}

/** One sentence for a failure while a part is inflated or parsed. */
function readFailure(error: unknown, name: string, part: string): Error {
  if (error instanceof Error && error.message.startsWith(name)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/well-formed/.test(message))
    return new Error(`${name} is damaged: ${part} is not well-formed XML.`, { cause: error });
  if (/invalid|incorrect|unexpected end|too (many|few) bytes|crc|header check|stored block/i.test(message)) {
    return new Error(`${name} is damaged: ${part} cannot be decompressed.`, { cause: error });
  }
  return new Error(`${name} could not be read: ${part} failed (${message}).`, { cause: error });
}
