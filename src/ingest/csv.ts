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
  ) {
    const where = [line !== null ? `line ${line}` : null, column !== null ? `column ${column}` : null].filter(Boolean).join(', ');
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

export async function* readCsvRecords(file: string, displayName: string, scan: SourceScan, delimiter: string): AsyncGenerator<CsvRecord> {
  const parser = parse({
    delimiter,
    info: true,
    skip_empty_lines: true,
    // Row width is checked by the loader, which can name the resource's fields in its message.
    relax_column_count: true,
  });
  const text = decodedStream(file, scan).pipe(new TrailingNoteFilter());
  text.on('error', (err) => parser.destroy(err));
  text.pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { cells: item.record, line: item.info.lines };
    }
  } catch (err) {
    const e = err as CsvParseError;
    if (e instanceof LoadError) throw e;
    const column = typeof e.index === 'number' ? e.index + 1 : null;
    throw new LoadError(displayName, e.lines ?? null, column, e.message.replace(/^Invalid [^:]*: /, ''));
  } finally {
    text.destroy();
    parser.destroy();
  }
}
