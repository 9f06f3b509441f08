// How a source that cannot be read is reported: a LoadError naming the file and the place in it (its line, column,
// sheet row, record number or JSON pointer); and where a CSV quote left open at the end of a file was opened.

export class LoadError extends Error {
  constructor(
    readonly source: string,
    /** The line of a text file, the row of a sheet, or the number of a record (see `unit`). */
    readonly line: number | null,
    readonly column: number | null,
    readonly problem: string,
    /** For a JSON source: the RFC 6901 pointer of the value. */
    readonly pointer: string | null = null,
    readonly unit: 'line' | 'row' | 'record' = 'line',
  ) {
    const where = [line !== null ? `${unit} ${line}` : null, column !== null ? `column ${column}` : null, pointer]
      .filter(Boolean)
      .join(', ');
    super(`${source}${where ? `, ${where}` : ''}: ${problem}`);
    this.name = 'LoadError';
  }
}

/**
 * Where the quote that is still open at the end of the text was opened: its line (1-based) and the number of the field
 * it begins (1-based), read with CSV's own quoting rules (a quote opens a field only at its start; "" inside a quoted
 * field is a quote). Null when every quote closes.
 */
export async function findUnclosedQuote(
  text: AsyncIterable<string | Buffer>,
  delimiter: string,
): Promise<{ line: number; field: number } | null> {
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
