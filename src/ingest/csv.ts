// Streams a source file's CSV records with their line numbers: decoding, trailing note lines, quoting and
// line endings handled; a malformed source is reported as a LoadError naming file, line and column.

import { parse } from 'csv-parse';
import { decodedStream, TrailingNoteFilter, type SourceScan } from './encoding.js';

export class LoadError extends Error {
  constructor(
    readonly source: string,
    readonly line: number | null,
    readonly column: number | null,
    readonly problem: string,
    /** For a JSON source: the RFC 6901 pointer of the value. */
    readonly pointer: string | null = null,
  ) {
    const where = [line !== null ? `line ${line}` : null, column !== null ? `column ${column}` : null, pointer].filter(Boolean).join(', ');
    super(`${source}${where ? `, ${where}` : ''}: ${problem}`);
    this.name = 'LoadError';
  }
}

export interface CsvRecord {
  cells: string[];
  /** Line of the file on which the record ends (1-based, header included). */
  line: number;
}

interface CsvParseError extends Error {
  code?: string;
  lines?: number;
  column?: number | string;
  index?: number;
}

export async function* readCsvRecords(
  file: string, displayName: string, scan: SourceScan, delimiter: string, repair: 'windows-1252-c1' | null = null,
): AsyncGenerator<CsvRecord> {
  const parser = parse({
    delimiter,
    info: true,
    skip_empty_lines: true,
    // Row width is checked by the loader, which can name the resource's fields in its message.
    relax_column_count: true,
  });
  const text = decodedStream(file, scan, repair).pipe(new TrailingNoteFilter());
  text.on('error', (err) => parser.destroy(err));
  text.pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { cells: item.record, line: item.info.lines };
    }
  } catch (err) {
    const e = err as CsvParseError;
    if (e instanceof LoadError) throw e;
    if (e.code === 'CSV_QUOTE_NOT_CLOSED') {
      // The parser only notices at the end of the file; the reader needs the line where the quote opened.
      const opened = await findUnclosedQuote(decodedStream(file, scan).pipe(new TrailingNoteFilter()), delimiter);
      if (opened) throw new LoadError(displayName, opened.line, opened.field, 'a quoted field opens here and is never closed');
    }
    const column = typeof e.index === 'number' ? e.index + 1 : null;
    throw new LoadError(displayName, e.lines ?? null, column, e.message.replace(/^Invalid [^:]*: /, ''));
  } finally {
    text.destroy();
    parser.destroy();
  }
}

/**
 * Where the quote that is still open at the end of the text was opened: its line (1-based) and the number of the field
 * it begins (1-based), read with CSV's own quoting rules (a quote opens a field only at its start; "" inside a quoted
 * field is a quote). Null when every quote closes.
 */
export async function findUnclosedQuote(text: AsyncIterable<string | Buffer>, delimiter: string): Promise<{ line: number; field: number } | null> {
  let line = 1;
  let field = 1;
  let atFieldStart = true;
  let opened: { line: number; field: number } | null = null;
  let pendingQuote = false;
  for await (const chunk of text) {
    for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
      if (opened) {
        if (pendingQuote) {
          pendingQuote = false;
          // "" is an escaped quote; anything else after a quote closes the field.
          if (ch === '"') continue;
          opened = null;
        } else if (ch === '"') {
          pendingQuote = true;
          continue;
        } else {
          if (ch === '\n') line += 1;
          continue;
        }
      }
      if (ch === '"' && atFieldStart) {
        opened = { line, field };
        atFieldStart = false;
      } else if (ch === delimiter) {
        field += 1;
        atFieldStart = true;
      } else if (ch === '\n') {
        line += 1;
        field = 1;
        atFieldStart = true;
      } else if (ch !== '\r') {
        atFieldStart = false;
      }
    }
  }
  return opened && !pendingQuote ? opened : null;
}
