// Infers a CSV file's schema, as `count-centre add` needs it: a pure function from the file's bytes to its encoding,
// delimiter, quoting and, per column, the field type the loader will read every one of its cells as (each candidate is
// checked with the loader's own parsers, so an inferred schema always loads), or text with the reason it stayed text.

import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { fieldNameProblem } from '../catalog/load.js';
import type { DateFormat, FieldType } from '../catalog/types.js';
import { parseInteger, parseNumber, parseTimestamp, ValueError } from '../catalog/values.js';
import { LoadError } from './csv.js';

export type Delimiter = ',' | ';' | '\t';
export const DELIMITERS: readonly Delimiter[] = [',', ';', '\t'];

export interface InferredColumn {
  /** The header as the file has it (trimmed, as the loader reads headers). */
  header: string;
  /** The field id: the header, made a valid CKAN field name where it is not one. */
  id: string;
  type: FieldType;
  /** For a timestamp: how its dates are written. */
  format: DateFormat;
  /** Cells with nothing in them (null in a typed field, the empty string in a text field). */
  empty: number;
  /** A value from the column, for people to check the type against. */
  example: string;
  /** Why a column that looks typed stays text, or how a type was settled; null when there is nothing to say. */
  note: string | null;
}

export interface InferredSchema {
  /** `utf-8` or `windows-1252`. */
  encoding: 'utf-8' | 'windows-1252';
  hasBom: boolean;
  delimiter: Delimiter;
  /** Whether any field is quoted ("…"), as in CSV's rules. */
  quoted: boolean;
  columns: InferredColumn[];
  /** Data records (the header not included). */
  records: number;
}

export interface InferOptions {
  /** What messages call the file. */
  name: string;
  /** Settles slashed dates that read both ways (every day and month at most 12). */
  dateFormat?: 'DD/MM/YYYY' | 'MM/DD/YYYY';
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** The file's text and how it is encoded: UTF-8 (with or without BOM) when the bytes are valid UTF-8, else Windows-1252. */
export function decodeSource(bytes: Uint8Array): { text: string; encoding: 'utf-8' | 'windows-1252'; hasBom: boolean } {
  const hasBom = bytes.length >= 3 && UTF8_BOM.every((b, i) => bytes[i] === b);
  const body = hasBom ? bytes.subarray(3) : bytes;
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), encoding: 'utf-8', hasBom };
  } catch {
    return { text: iconv.decode(Buffer.from(body), 'windows-1252'), encoding: 'windows-1252', hasBom: false };
  }
}

/** The lines official exports append after the data ("This is a provisional…"), dropped as the loader drops them. */
function withoutTrailingNotes(text: string): string {
  const lines = text.split('\n');
  let end = lines.length;
  while (end > 0 && (lines[end - 1]!.trim() === '' || lines[end - 1]!.startsWith('This is'))) end -= 1;
  const dropped = lines.slice(end).some((l) => l.startsWith('This is'));
  return dropped ? lines.slice(0, end).join('\n') + '\n' : text;
}

/** How many times a delimiter occurs outside quotes on each of the first lines. */
function delimiterCounts(text: string, delimiter: string, maxLines = 50): number[] {
  const counts: number[] = [];
  let count = 0;
  let quoted = false;
  for (let i = 0; i < text.length && counts.length < maxLines; i++) {
    const ch = text[i]!;
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === delimiter) count += 1;
    else if (!quoted && ch === '\n') {
      if (text.slice(i + 1).trim() !== '' || count > 0) counts.push(count);
      count = 0;
    }
  }
  if (count > 0) counts.push(count);
  return counts;
}

/**
 * The delimiter: of comma, semicolon and tab, the one found on the header line that occurs as often on most of the
 * lines after it (a CSV's rows have as many cells as its header); the most frequent wins a tie. Comma when none is.
 */
export function detectDelimiter(text: string): Delimiter {
  let best: { delimiter: Delimiter; score: number; count: number } | null = null;
  for (const delimiter of DELIMITERS) {
    const counts = delimiterCounts(text, delimiter);
    const header = counts[0] ?? 0;
    if (header === 0) continue;
    const rest = counts.slice(1);
    const score = rest.length === 0 ? 1 : rest.filter((c) => c === header).length / rest.length;
    if (!best || score > best.score || (score === best.score && header > best.count)) best = { delimiter, score, count: header };
  }
  return best?.delimiter ?? ',';
}

const WHOLE = /^[+-]?\d+$/;
const LEADING_ZERO = /^[+-]?0\d/;
const THOUSANDS = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/;
const DECIMAL_COMMA = /^[+-]?\d+,\d+$/;
const SLASHED = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/;
const ISO_LIKE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;

function describeCell(value: string, line: number): string {
  return `line ${line} has "${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
}

/** Whether every value parses with `parse`; the first that does not, with its line, otherwise. */
function firstFailure(values: readonly { value: string; line: number }[], parse: (v: string) => unknown): { value: string; line: number } | null {
  for (const cell of values) {
    try {
      parse(cell.value);
    } catch (err) {
      if (err instanceof ValueError) return cell;
      throw err;
    }
  }
  return null;
}

/** The type of one column from its non-empty cells, or text with the reason. */
export function inferColumnType(values: readonly { value: string; line: number }[], options: Pick<InferOptions, 'dateFormat'> = {}): { type: FieldType; format: DateFormat; note: string | null } {
  const text = (note: string | null) => ({ type: 'text' as const, format: 'ISO' as const, note });
  if (values.length === 0) return text('every cell is empty');
  const trimmed = values.map((v) => ({ value: v.value.trim(), line: v.line }));

  const whole = trimmed.filter((v) => WHOLE.test(v.value));
  if (whole.length === trimmed.length) {
    const padded = trimmed.find((v) => LEADING_ZERO.test(v.value));
    if (padded) return text(`whole numbers, but ${describeCell(padded.value, padded.line)}: its leading zero would be lost as a number (a code, not a quantity?)`);
    if (!firstFailure(trimmed, (v) => parseInteger(v, 'int4'))) return { type: 'int4', format: 'ISO', note: null };
    const big = firstFailure(trimmed, (v) => parseInteger(v, 'int8'));
    if (!big) return { type: 'int8', format: 'ISO', note: null };
    return text(`whole numbers, but ${describeCell(big.value, big.line)}, beyond what is held exactly (2^53)`);
  }
  const numbers = trimmed.filter((v) => { try { parseNumber(v.value); return true; } catch { return false; } });
  if (numbers.length === trimmed.length) {
    const padded = trimmed.find((v) => LEADING_ZERO.test(v.value) && !v.value.includes('.'));
    if (padded) return text(`numbers, but ${describeCell(padded.value, padded.line)}: its leading zero would be lost as a number`);
    return { type: 'numeric', format: 'ISO', note: null };
  }
  if (trimmed.every((v) => THOUSANDS.test(v.value) || WHOLE.test(v.value)) && trimmed.some((v) => THOUSANDS.test(v.value))) {
    return text('numbers with thousands separators ("1,234"), which are not read as numbers: remove the separators to have them typed');
  }
  if (trimmed.every((v) => DECIMAL_COMMA.test(v.value) || WHOLE.test(v.value)) && trimmed.some((v) => DECIMAL_COMMA.test(v.value))) {
    return text('numbers with a decimal comma ("3,5"), which are not read as numbers: write them with a point to have them typed');
  }
  if (numbers.length > 0 && numbers.length >= trimmed.length * 0.5) {
    const odd = trimmed.find((v) => !numbers.includes(v))!;
    return text(`${numbers.length} of ${trimmed.length} values are numbers, but ${describeCell(odd.value, odd.line)}`);
  }

  if (trimmed.every((v) => ISO_LIKE.test(v.value))) {
    const bad = firstFailure(trimmed, (v) => parseTimestamp(v, 'ISO'));
    if (!bad) return { type: 'timestamp', format: 'ISO', note: null };
    return text(`dates, but ${describeCell(bad.value, bad.line)}, which is not a valid date`);
  }
  const slashed = trimmed.filter((v) => SLASHED.test(v.value));
  if (slashed.length === trimmed.length) {
    const dayFirst = firstFailure(trimmed, (v) => parseTimestamp(v, 'DD/MM/YYYY'));
    const monthFirst = firstFailure(trimmed, (v) => parseTimestamp(v, 'MM/DD/YYYY'));
    if (!dayFirst && !monthFirst) {
      if (options.dateFormat) return { type: 'timestamp', format: options.dateFormat, note: `every date reads both ways; ${options.dateFormat} as asked` };
      return text('dates that read both as DD/MM/YYYY and MM/DD/YYYY (no day above 12): give --date-format DD/MM/YYYY or MM/DD/YYYY');
    }
    if (!dayFirst) return { type: 'timestamp', format: 'DD/MM/YYYY', note: monthFirst ? `day first: ${describeCell(monthFirst.value, monthFirst.line)}` : null };
    if (!monthFirst) return { type: 'timestamp', format: 'MM/DD/YYYY', note: `month first: ${describeCell(dayFirst.value, dayFirst.line)}` };
    return text(`dates, but neither day-first nor month-first reads them all (${describeCell(dayFirst.value, dayFirst.line)}, ${describeCell(monthFirst.value, monthFirst.line)})`);
  }
  if (slashed.length > 0 && slashed.length >= trimmed.length * 0.5) {
    const odd = trimmed.find((v) => !SLASHED.test(v.value))!;
    return text(`${slashed.length} of ${trimmed.length} values are dates, but ${describeCell(odd.value, odd.line)}`);
  }
  return text(null);
}

/** A header made a valid field id (CKAN's rules), and unique among the columns. */
function fieldIds(headers: readonly string[]): string[] {
  const used = new Set<string>();
  return headers.map((header, i) => {
    let id = header.replace(/"/g, "'").replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/^_+/, '').trim();
    if (id === '' || fieldNameProblem(id)) id = `Column ${i + 1}`;
    let unique = id;
    for (let n = 2; used.has(unique); n++) unique = `${id} (${n})`;
    used.add(unique);
    return unique;
  });
}

/**
 * Infers the schema of a CSV file's bytes. Throws a LoadError naming the line (and column) when the file is not a CSV
 * the loader can read: no header, rows of another width than the header's, a quote that never closes.
 */
export function inferCsv(bytes: Uint8Array, options: InferOptions): InferredSchema {
  const { text: decoded, encoding, hasBom } = decodeSource(bytes);
  const text = withoutTrailingNotes(decoded);
  const delimiter = detectDelimiter(text);
  let parsed: { record: string[]; info: { lines: number } }[];
  try {
    parsed = parse(text, { delimiter, info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    const e = err as { code?: string; lines?: number; message: string };
    const problem = e.code === 'CSV_QUOTE_NOT_CLOSED' ? 'a quoted field opens and is never closed' : e.message.replace(/^Invalid [^:]*: /, '');
    throw new LoadError(options.name, e.lines ?? null, null, problem);
  }
  const [head, ...rows] = parsed;
  if (!head) throw new LoadError(options.name, null, null, 'the file is empty (no header row)');
  const headers = head.record.map((h) => h.trim());
  const seen = new Map<string, number>();
  headers.forEach((h, i) => {
    if (seen.has(h)) throw new LoadError(options.name, head.info.lines, i + 1, `the header names "${h}" twice (columns ${seen.get(h)! + 1} and ${i + 1})`);
    seen.set(h, i);
  });
  for (const row of rows) {
    if (row.record.length !== headers.length) {
      throw new LoadError(options.name, row.info.lines, Math.min(row.record.length, headers.length) + 1,
        `row has ${row.record.length} cells, the header has ${headers.length} (is the delimiter "${delimiter === '\t' ? '\\t' : delimiter}" right?)`);
    }
  }
  const ids = fieldIds(headers);
  const columns = headers.map((header, i): InferredColumn => {
    const cells = rows.map((r) => ({ value: r.record[i]!, line: r.info.lines }));
    const filled = cells.filter((c) => c.value.trim() !== '');
    const inferred = inferColumnType(filled, options);
    return {
      header, id: ids[i]!, type: inferred.type, format: inferred.format, empty: cells.length - filled.length,
      example: filled[0]?.value ?? '', note: inferred.note ?? (ids[i] !== header ? `field id "${ids[i]}" (the header "${header}" is not a valid field name)` : null),
    };
  });
  const quoted = new RegExp(`(^|[${delimiter === '\t' ? '\\t' : delimiter}\\n])"`).test(text);
  return { encoding, hasBom, delimiter, quoted, columns, records: rows.length };
}
