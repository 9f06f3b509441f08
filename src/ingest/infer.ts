// Works out a table's schema from its rows, as `count-centre add` needs it: for each column the field type every one
// of its cells will load as (each decision checked with the loader's own rules: a column typed here always loads), or
// text with the reason it stayed text, and the line that decided it. One streaming pass; memory does not grow with
// the rows. Formats with a schema of their own (Parquet) keep their declared types.

import { fieldNameProblem } from '../catalog/load.js';
import type { FieldFormat, FieldType, NumberFormat } from '../catalog/types.js';
import { DAY_MONTH_DATE_TIME, fitsNumberFormat, namedOrYearFirstDate, plainNumberText } from '../catalog/values.js';
import { LoadError } from './csv.js';
import { unnamedColumn } from './readers/delimited.js';
import { widthOf, type RawCell, type TableReader } from './readers/types.js';

export interface InferredColumn {
  /** The column's name as the file has it (a header trimmed, a key, a schema's name). */
  header: string;
  /** The field id: the header, made a valid CKAN field name where it is not one. */
  id: string;
  type: FieldType;
  /** How its cells spell dates or numbers (ISO: as JSON and ISO 8601 write them). */
  format: FieldFormat;
  /** Cells with nothing in them. */
  empty: number;
  /** A value from the column, for people to check the type against. */
  example: string;
  /** Why the type, with the line that decided it; null when there is nothing to say. */
  note: string | null;
  /** The column's place in the file (1-based). */
  position: number;
  /** Whether no cell of it holds anything, not even a missing-value mark. */
  blank: boolean;
}

export interface InferOptions {
  /** What messages call the file. */
  name?: string;
  /** Settles slashed dates that read both ways (every day and month at most 12). */
  dateFormat?: 'DD/MM/YYYY' | 'MM/DD/YYYY';
  /** The decimal mark of numbers that read both ways ("1,234" is 1234 with a decimal point, 1.234 with a comma). */
  decimal?: ',' | '.';
  /** The file's delimiter, where it has one: a semicolon says the file came from a decimal-comma locale. */
  delimiter?: string;
}

export interface InferredSchema {
  columns: InferredColumn[];
  /**
   * The column holding each record's own `_id` (a DataStore dump's): named `_id`, every value a whole number above
   * the one before it. Its ids are kept, so that a dump published again has the same records. Null when none.
   */
  idColumn: string | null;
  /** Rows read (the header not included). */
  rows: number;
  /** Rows with fewer cells than there are columns (padded with empty cells when loaded). */
  shortRows: number;
  /** The first such row's place, for the report. */
  firstShortRow: number | null;
  /** What the reader calls a row's place. */
  unit: 'line' | 'row' | 'record';
  /** Whether only the first rows were read (the rest are checked as they load). */
  sampled: boolean;
  /** The missing-value markers (MISSING_MARKERS) that stood for empty cells in columns of another type than text. */
  missing: string[];
}

/**
 * What tools and statistical offices write for a missing value: R's NA, spreadsheets' #N/A, SQL tools' NULL, pandas'
 * NaN and None, the ".." and ":" of statistical tables, a dash. In a column whose other cells are all numbers, dates or
 * true/false, such a cell is empty; in a text column it is text.
 */
export const MISSING_MARKERS: ReadonlySet<string> = new Set([
  'NA',
  'N/A',
  'n/a',
  '#N/A',
  'NaN',
  'nan',
  'NULL',
  'null',
  'None',
  '..',
  ':',
  '-',
]);

const WHOLE = /^[+-]?\d+$/;
const BOOL_TEXT = /^(true|false|t|f)$/i;
const LEADING_ZERO = /^[+-]?0\d/;
const POINT_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;
const NUMBER_FORMATS: readonly NumberFormat[] = ['1,234.5', '1.234,5', '1 234,5'];
/** A number that two formats read as different numbers is no evidence for either ("1,234" and "1.234"). */
const AMBIGUOUS_GROUPING = /^[+-]?\d{1,3}[.,]\d{3}$/;

const INT4_MAX = 2147483647;
const INT4_MIN = -2147483648;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const validDay = (year: number, month: number, day: number) =>
  month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
const validTime = (hour: number, minute: number, second: number) => hour <= 23 && minute <= 59 && second <= 59;

/** A cell as the text the rules below read: numbers, dates and booleans of typed formats as they would be written. */
function textOf(cell: RawCell): string | null {
  if (cell === null) return null;
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : null;
  if (typeof cell === 'bigint') return String(cell);
  if (cell instanceof Date) {
    const iso = cell.toISOString();
    return iso.endsWith('T00:00:00.000Z')
      ? iso.slice(0, 10)
      : iso.slice(0, 19) + (iso.slice(19, 23) === '.000' ? '' : iso.slice(19, 23));
  }
  return null;
}

const describe = (value: string) => `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;

/** The first place a kind of value was seen, for the note that explains a decision. */
interface Seen {
  value: string;
  line: number;
}

/**
 * One column's evidence, gathered a cell at a time. Each candidate type stays alive until a cell rules it out; the
 * first cell that ruled each out is kept, so the decision can name it.
 */
class ColumnEvidence {
  /** For a column named `_id`: whether its values so far are whole numbers of 1 or more, each above the last. */
  increasing: boolean;
  /** Text written as true/false (any case), or t/f as PostgreSQL writes them; both t and f must appear. */
  boolTexts = 0;
  longBoolText = false;
  sawT = false;
  sawF = false;
  private lastId = 0;
  empty = 0;
  filled = 0;
  example = '';
  /** A cell that fits no typed reading: the column is text. */
  other: Seen | null = null;
  /** The first missing-value marker (MISSING_MARKERS) seen in a text cell, and the markers seen. */
  missing: Seen | null = null;
  missingCount = 0;
  readonly missingMarkers = new Set<string>();
  /** Non-text cells of a typed format (objects, arrays): text, as JSON. */
  structured: Seen | null = null;
  booleans = 0;
  nonBoolean: Seen | null = null;
  // Numbers.
  numberLike = 0;
  leadingZero: Seen | null = null;
  fraction: Seen | null = null;
  beyondInt4: Seen | null = null;
  beyondExact: Seen | null = null;
  /** Per number format (ISO first, then NUMBER_FORMATS): the first cell it cannot read. */
  numberMisfit: (Seen | null)[] = [null, null, null, null];
  /**
   * A cell that only formats with a decimal point read ("1.5", "1,234,567"), and one that only decimal-comma formats
   * read ("62,5").
   */
  pointOnly: Seen | null = null;
  commaOnly: Seen | null = null;
  /** A cell such as "1.234" or "1,234", which the two kinds of format read as different numbers. */
  ambiguous: Seen | null = null;
  // Dates.
  dateLike = 0;
  isoDates = 0;
  isoTimes: Seen | null = null;
  notIsoDate: Seen | null = null;
  invalidIso: Seen | null = null;
  slashed = 0;
  /** Of those, dates written with dots ("03.02.2024"), which are written day first. */
  dotted = 0;
  slashedTimes: Seen | null = null;
  notSlashed: Seen | null = null;
  dayFirstOnly: Seen | null = null;
  monthFirstOnly: Seen | null = null;
  invalidDayFirst: Seen | null = null;
  invalidMonthFirst: Seen | null = null;

  constructor(
    watchIds = false,
    private readonly stringsAreText = false,
  ) {
    this.increasing = watchIds;
  }

  see(cell: RawCell, line: number): void {
    if (this.increasing) {
      const id = typeof cell === 'number' ? cell : typeof cell === 'string' && /^\d+$/.test(cell) ? Number(cell) : NaN;
      if (Number.isSafeInteger(id) && id > this.lastId) this.lastId = id;
      else this.increasing = false;
    }
    if (cell === null || cell === undefined || cell === '') {
      this.empty += 1;
      return;
    }
    if (typeof cell === 'boolean') {
      this.filled += 1;
      this.booleans += 1;
      if (this.example === '') this.example = String(cell);
      return;
    }
    const raw = textOf(cell);
    if (raw === null) {
      this.filled += 1;
      const text = JSON.stringify(cell) ?? '';
      if (this.example === '') this.example = text;
      this.structured ??= { value: text, line };
      return;
    }
    const value = typeof cell === 'string' ? raw.trim() : raw;
    if (value === '') {
      this.empty += 1;
      return;
    }
    if (typeof cell === 'string' && !this.stringsAreText && MISSING_MARKERS.has(value)) {
      // Empty unless the column turns out to be text (see decide).
      this.missing ??= { value, line };
      this.missingMarkers.add(value);
      this.missingCount += 1;
      this.empty += 1;
      return;
    }
    this.filled += 1;
    if (this.example === '') this.example = raw;
    this.nonBoolean ??= { value, line };
    // Once a cell fits nothing, the column is text: only empties are still counted.
    if (this.other) return;
    const textCell = typeof cell === 'string';
    if (textCell && !this.stringsAreText && BOOL_TEXT.test(value)) {
      this.boolTexts += 1;
      if (value.length > 1) this.longBoolText = true;
      else if (value === 't' || value === 'T') this.sawT = true;
      else this.sawF = true;
      return;
    }
    if (this.boolTexts > 0) {
      this.other = { value, line };
      return;
    }
    const first = value.charCodeAt(0);
    const digitFirst = (first >= 48 && first <= 57) || first === 43 || first === 45 || first === 46;
    if (!digitFirst) {
      // Only a date that starts with its month's name ("March 1, 2024") starts with a letter.
      if (!this.seeDate(value, line)) this.other = { value, line };
      return;
    }
    // A typed format's string is text, even when it reads as a number: the file could have held a number.
    if (!(textCell && this.stringsAreText) && this.seeNumber(value, line)) return;
    if (this.seeDate(value, line)) return;
    this.other = { value, line };
  }

  private seeNumber(value: string, line: number): boolean {
    const fits = [
      POINT_NUMBER.test(value),
      fitsNumberFormat(value, '1,234.5'),
      fitsNumberFormat(value, '1.234,5'),
      fitsNumberFormat(value, '1 234,5'),
    ];
    if (!fits.some(Boolean)) return false;
    this.numberLike += 1;
    fits.forEach((fit, i) => {
      if (!fit) this.numberMisfit[i] ??= { value, line };
    });
    const whole = WHOLE.test(value);
    if (!whole) {
      const point = fits[0] || fits[1];
      const comma = fits[2] || fits[3];
      if (AMBIGUOUS_GROUPING.test(value)) this.ambiguous ??= { value, line };
      else if (point && !comma) this.pointOnly ??= { value, line };
      else if (comma && !point) this.commaOnly ??= { value, line };
    }
    if (LEADING_ZERO.test(value) && !/^[+-]?0[.,]/.test(value)) this.leadingZero ??= { value, line };
    const plain = fits[0] ? value : plainNumberText(value, NUMBER_FORMATS[fits.slice(1).indexOf(true)]!);
    if (WHOLE.test(plain)) {
      const n = Number(plain);
      if (n > INT4_MAX || n < INT4_MIN) this.beyondInt4 ??= { value, line };
      if (!Number.isSafeInteger(n)) this.beyondExact ??= { value, line };
    } else {
      this.fraction ??= { value, line };
    }
    return true;
  }

  private seeDate(value: string, line: number): boolean {
    let m = ISO_DATE.exec(value);
    if (m) {
      this.dateLike += 1;
      this.isoDates += 1;
      if (!validDay(+m[1]!, +m[2]!, +m[3]!)) this.invalidIso ??= { value, line };
      this.notSlashed ??= { value, line };
      return true;
    }
    m = ISO_DATE_TIME.exec(value);
    if (m) {
      this.dateLike += 1;
      this.isoTimes ??= { value, line };
      if (!validDay(+m[1]!, +m[2]!, +m[3]!) || !validTime(+m[4]!, +m[5]!, +(m[6] ?? 0)))
        this.invalidIso ??= { value, line };
      this.notSlashed ??= { value, line };
      return true;
    }
    const other = namedOrYearFirstDate(value);
    if (other) {
      this.dateLike += 1;
      const { time } = other;
      if (time) this.isoTimes ??= { value, line };
      else this.isoDates += 1;
      if (!validDay(other.year, other.month, other.day) || (time && !validTime(time.hour, time.minute, time.second)))
        this.invalidIso ??= { value, line };
      this.notSlashed ??= { value, line };
      return true;
    }
    m = DAY_MONTH_DATE_TIME.exec(value);
    if (m) {
      this.dateLike += 1;
      this.slashed += 1;
      if (m[2] === '.') this.dotted += 1;
      this.notIsoDate ??= { value, line };
      const [a, b, year] = [+m[1]!, +m[3]!, +m[4]!];
      if (m[5] !== undefined) this.slashedTimes ??= { value, line };
      const timeOk = m[5] === undefined || validTime(+m[5]!, +m[6]!, +(m[7] ?? 0));
      const dayFirst = validDay(year, b, a) && timeOk;
      const monthFirst = validDay(year, a, b) && timeOk;
      if (!dayFirst) this.invalidDayFirst ??= { value, line };
      if (!monthFirst) this.invalidMonthFirst ??= { value, line };
      if (dayFirst && !monthFirst) this.dayFirstOnly ??= { value, line };
      if (monthFirst && !dayFirst) this.monthFirstOnly ??= { value, line };
      return true;
    }
    return false;
  }
}

const at = (seen: Seen, unit: string) => `${unit} ${seen.line.toLocaleString('en-IE')} has ${describe(seen.value)}`;

interface Decision {
  type: FieldType;
  format: FieldFormat;
  note: string | null;
}

/** The file-wide evidence for number formats: a cell only one kind of format reads settles ambiguous columns too. */
interface NumberLocale {
  decimal: ',' | '.';
  why: string;
}

const FORMAT_INDEX: Record<FieldFormat, number> = {
  ISO: 0,
  '1,234.5': 1,
  '1.234,5': 2,
  '1 234,5': 3,
  'DD/MM/YYYY': -1,
  'MM/DD/YYYY': -1,
  'YYYY-MM-DD': -1,
};

function numberDecision(e: ColumnEvidence, unit: string, locale: NumberLocale, options: InferOptions): Decision | null {
  if (e.numberLike !== e.filled) return null;
  const text = (note: string): Decision => ({ type: 'text', format: 'ISO', note });
  if (e.leadingZero)
    return text(
      `whole numbers, but ${at(e.leadingZero, unit)}: its leading zero would be lost as a number (a code, not a quantity)`,
    );
  const fits = (format: FieldFormat) => e.numberMisfit[FORMAT_INDEX[format]] === null;
  const decimal = options.decimal ?? (e.commaOnly ? ',' : e.pointOnly ? '.' : locale.decimal);
  const why = options.decimal ? `--decimal ${options.decimal}` : locale.why;
  let format: FieldFormat;
  let how: string | null = null;
  if (fits('ISO') && !(decimal === ',' && e.ambiguous && !e.pointOnly && fits('1.234,5'))) {
    format = 'ISO';
  } else {
    const order: FieldFormat[] =
      decimal === ',' ? ['1.234,5', '1 234,5', '1,234.5'] : ['1,234.5', '1.234,5', '1 234,5'];
    const found = order.find(fits);
    if (!found)
      return text(
        `numbers written in more than one way: ${at(e.numberMisfit[1]!, unit)}; ${at(e.numberMisfit[2]!, unit)}`,
      );
    format = found;
    const evidence = format === '1,234.5' ? e.pointOnly : e.commaOnly;
    const kind =
      format === '1,234.5'
        ? 'thousands separators'
        : format === '1.234,5'
          ? 'a decimal comma'
          : 'spaces between thousands and a decimal comma';
    if (evidence) how = `written with ${kind}: ${at(evidence, unit)}`;
    else if (e.ambiguous)
      how = `written with ${kind}: ${describe(e.ambiguous.value)} (${unit} ${e.ambiguous.line.toLocaleString('en-IE')}) reads both ways, taken as ${format} (${why}); --decimal ${format === '1,234.5' ? ',' : '.'} reads it the other way`;
    else how = `written with ${kind}: ${at(e.numberMisfit[0] ?? e.fraction ?? { value: '', line: 0 }, unit)}`;
  }
  if (e.fraction) return { type: 'numeric', format, note: how ?? `decimals: ${at(e.fraction, unit)}` };
  if (e.beyondExact) return text(`whole numbers, but ${at(e.beyondExact, unit)}, beyond what is held exactly (2^53)`);
  if (e.beyondInt4)
    return { type: 'int8', format, note: how ?? `whole numbers beyond int4: ${at(e.beyondInt4, unit)}` };
  return { type: 'int4', format, note: how };
}

function dateDecision(e: ColumnEvidence, unit: string, options: InferOptions): Decision | null {
  if (e.dateLike !== e.filled) return null;
  const text = (note: string): Decision => ({ type: 'text', format: 'ISO', note });
  if (e.slashed === 0) {
    if (e.invalidIso) return text(`dates, but ${at(e.invalidIso, unit)}, which is not a valid date`);
    if (e.isoTimes) return { type: 'timestamp', format: 'ISO', note: `dates and times: ${at(e.isoTimes, unit)}` };
    return { type: 'date', format: 'ISO', note: null };
  }
  if (e.isoDates > 0 || e.isoTimes)
    return text(`dates written two ways: ${at(e.notSlashed!, unit)} and ${at(e.notIsoDate!, unit)}`);
  const type: FieldType = e.slashedTimes ? 'timestamp' : 'date';
  const timed = e.slashedTimes ? `; with times: ${at(e.slashedTimes, unit)}` : '';
  const dayFirst = !e.invalidDayFirst;
  const monthFirst = !e.invalidMonthFirst;
  if (dayFirst && monthFirst) {
    if (options.dateFormat)
      return {
        type,
        format: options.dateFormat,
        note: `every date reads both ways; ${options.dateFormat} as asked${timed}`,
      };
    if (e.dotted === e.slashed)
      return {
        type,
        format: 'DD/MM/YYYY',
        note: `day first, as dates written with dots are (--date-format MM/DD/YYYY reads them the other way)${timed}`,
      };
    return text(
      'dates that read both as DD/MM/YYYY and MM/DD/YYYY (no day above 12): give --date-format DD/MM/YYYY or MM/DD/YYYY',
    );
  }
  if (dayFirst)
    return {
      type,
      format: 'DD/MM/YYYY',
      note: `day first: ${at(e.dayFirstOnly ?? e.invalidMonthFirst!, unit)}${timed}`,
    };
  if (monthFirst)
    return {
      type,
      format: 'MM/DD/YYYY',
      note: `month first: ${at(e.monthFirstOnly ?? e.invalidDayFirst!, unit)}${timed}`,
    };
  return text(
    `dates, but neither day-first nor month-first reads them all (${at(e.invalidDayFirst!, unit)}, ${at(e.invalidMonthFirst!, unit)})`,
  );
}

/** The column's type, with the missing-value markers it held told in the note where they were read as empty. */
function decide(e: ColumnEvidence, unit: string, locale: NumberLocale, options: InferOptions): Decision {
  const decision = decideType(e, unit, locale, options);
  if (!e.missing || decision.type === 'text') return decision;
  const markers = [...e.missingMarkers].map(describe).join(', ');
  const told = `${markers} read as empty (${unit} ${e.missing.line.toLocaleString('en-IE')})`;
  return { ...decision, note: decision.note ? `${decision.note}; ${told}` : told };
}

function decideType(e: ColumnEvidence, unit: string, locale: NumberLocale, options: InferOptions): Decision {
  const text = (note: string | null): Decision => ({ type: 'text', format: 'ISO', note });
  if (e.filled === 0) return text(e.missing ? `no value but ${at(e.missing, unit)}` : 'every cell is empty');
  if (e.structured) return text(`objects or lists, kept as JSON text: ${at(e.structured, unit)}`);
  if (e.booleans > 0) {
    if (e.booleans === e.filled) return { type: 'bool', format: 'ISO', note: null };
    return text(`true/false mixed with other values: ${at(e.nonBoolean!, unit)}`);
  }
  if (e.boolTexts > 0 && !e.other && e.boolTexts === e.filled) {
    if (e.longBoolText || (e.sawT && e.sawF)) return { type: 'bool', format: 'ISO', note: null };
    return text('only "t" or only "f": a letter, not yet a true/false column');
  }
  if (e.other) {
    // Cells are no longer looked at once one fits nothing: what came before it is the evidence.
    const kind =
      e.numberLike > 0 && e.dateLike > 0
        ? 'numbers and dates'
        : e.numberLike > 0
          ? 'numbers'
          : e.dateLike > 0
            ? 'dates'
            : null;
    if (kind === null) return text(null);
    const before = e.numberLike + e.dateLike;
    return text(
      `${at(e.other, unit)}, after ${before.toLocaleString('en-IE')} ${before === 1 ? kind.replace(/s\b/g, '') : kind}`,
    );
  }
  return (
    numberDecision(e, unit, locale, options) ??
    dateDecision(e, unit, options) ??
    text(`numbers and dates mixed: ${at(e.other ?? e.notIsoDate ?? e.numberMisfit[0]!, unit)}`)
  );
}

/** Why a column's field id is not its header: unnamed, named as an earlier column, or not a valid field name. */
function whyRenamed(header: string, k: number, kept: readonly { header: string }[]): string {
  if (header.trim() === '') return 'the header leaves this column unnamed';
  if (kept.slice(0, k).some((c) => c.header === header)) return `"${header}" also names an earlier column`;
  return `the name "${header}" is not a valid field name`;
}

/** A header made a valid field id (CKAN's rules), and unique among the columns. */
export function fieldIds(headers: readonly string[]): string[] {
  const used = new Set<string>();
  return headers.map((header, i) => {
    let id = header
      .replace(/"/g, "'")
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
      .replace(/^_+/, '')
      .trim();
    if (id === '' || fieldNameProblem(id)) id = unnamedColumn(i + 1);
    let unique = id;
    for (let n = 2; used.has(unique); n++) unique = `${id} (${n})`;
    used.add(unique);
    return unique;
  });
}

/** The file-wide number locale: what unambiguous cells of number columns say, else what the delimiter says. */
function numberLocale(evidence: readonly ColumnEvidence[], options: InferOptions): NumberLocale {
  const numbers = evidence.filter((e) => !e.other && e.filled > 0 && e.numberLike === e.filled);
  const comma = numbers.find((e) => e.commaOnly);
  if (comma) return { decimal: ',', why: `the file writes ${describe(comma.commaOnly!.value)} elsewhere` };
  const point = numbers.find((e) => e.pointOnly);
  if (point) return { decimal: '.', why: `the file writes ${describe(point.pointOnly!.value)} elsewhere` };
  if (options.delimiter === ';')
    return { decimal: ',', why: 'semicolon-separated, as decimal-comma locales write CSV' };
  return { decimal: '.', why: 'no cell says otherwise' };
}

/**
 * The schema of a table: every row read once (or the batches holding the first `sampleRows`), each cell's evidence
 * kept per column (a few flags and first sightings, never the cells). Columns the file declares types for keep them.
 */
export async function inferTable(
  reader: TableReader,
  options: InferOptions = {},
  onRows?: (count: number) => void,
  sampleRows = Infinity,
): Promise<InferredSchema> {
  const typed = reader.typed === true;
  const evidence: ColumnEvidence[] = reader.columns.map((c) => new ColumnEvidence(c === '_id', typed));
  let rows = 0;
  let shortRows = 0;
  let firstShortRow: number | null = null;
  let sampled = false;
  for await (const batch of reader.batches()) {
    if (rows >= sampleRows) {
      sampled = true;
      break;
    }
    const width = reader.columns.length;
    while (evidence.length < width) {
      // A column first seen late (a JSON key): the rows before it had no value there.
      const late = new ColumnEvidence(reader.columns[evidence.length] === '_id' && rows === 0, typed);
      late.empty = rows;
      evidence.push(late);
    }
    const take = Math.min(batch.length, sampleRows - rows);
    if (take < batch.length) sampled = true;
    for (let r = 0; r < take; r++) {
      const { cells, line } = batch[r]!;
      const n = Math.min(cells.length, width);
      for (let i = 0; i < n; i++) evidence[i]!.see(cells[i]!, line);
      if (cells.length > width && reader.unit === 'line') {
        throw new LoadError(
          options.name ?? 'the file',
          line,
          width + 1,
          `row has ${cells.length} cells, ${widthOf(reader, width)}`,
        );
      }
      if (cells.length < width) {
        for (let i = cells.length; i < width; i++) evidence[i]!.empty += 1;
        if (reader.unit === 'line') {
          shortRows += 1;
          firstShortRow ??= line;
        }
      }
    }
    rows += take;
    onRows?.(rows);
    if (sampled) break;
  }
  const locale = numberLocale(evidence, options);
  const idIndex = reader.columns.findIndex((c, i) => c === '_id' && evidence[i]!.increasing && rows > 0);
  const kept = reader.columns.map((header, i) => ({ header, i })).filter(({ i }) => i !== idIndex);
  const ids = fieldIds(kept.map((k) => k.header));
  const missing = new Set<string>();
  const columns = kept.map(({ header, i }, k): InferredColumn => {
    const e = evidence[i]!;
    const declared = reader.declaredTypes?.[i] ?? null;
    const decision: Decision = declared
      ? { type: declared, format: 'ISO', note: `${declared}, as the file's schema declares` }
      : decide(e, reader.unit, locale, options);
    const renamed = ids[k] !== header ? `field id "${ids[k]}" (${whyRenamed(header, k, kept)})` : null;
    const markersAreText = decision.type === 'text';
    if (!markersAreText) for (const marker of e.missingMarkers) missing.add(marker);
    return {
      header,
      id: ids[k]!,
      type: decision.type,
      format: decision.format,
      empty: markersAreText ? e.empty - e.missingCount : e.empty,
      example: e.example,
      note: [decision.note, renamed].filter(Boolean).join('; ') || null,
      position: i + 1,
      blank: e.filled === 0 && e.missingCount === 0,
    };
  });
  return {
    columns,
    idColumn: idIndex === -1 ? null : reader.columns[idIndex]!,
    rows,
    shortRows,
    firstShortRow,
    unit: reader.unit,
    sampled,
    missing: [...MISSING_MARKERS].filter((marker) => missing.has(marker)),
  };
}
