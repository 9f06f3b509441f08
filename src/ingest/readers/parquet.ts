// Reads a Parquet file as a table: the columns and types its schema declares, and its records row group by row group
// (hyparquet, with hyparquet-compressors for the codecs), read in slices through one file handle, never whole.

import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { parquetMetadataAsync, parquetRead, parquetSchema, readOffsetIndex } from 'hyparquet';
import type {
  AsyncBuffer,
  ColumnData,
  Compressors,
  DecodedArray,
  FileMetaData,
  ParquetParsers,
  RowGroup,
  SchemaElement,
  SchemaTree,
} from 'hyparquet';
import { compressors as offeredCompressors } from 'hyparquet-compressors';
import type { FieldType } from '../../catalog/types.js';
import type { RawCell, RawRow, TableReader } from './types.js';

/** Rows per batch: enough that a consumer awaits rarely, few enough that a batch stays small beside its row group. */
const BATCH_ROWS = 4096;
/** Rows decoded at a time from a row group whose pages can be found (offset index): bounds memory at any group size. */
const SLICE_ROWS = 65_536;
/** A slice spans at least this many of its group's largest pages, so that a page decoded twice is rare. */
const PAGES_PER_SLICE = 4;

const MAGIC = 'PAR1';
/** The footer magic of a file whose footer is encrypted (Parquet modular encryption). */
const ENCRYPTED_MAGIC = 'PARE';

// Node's own zlib is several times faster than the JavaScript inflaters, and its gunzip also reads the concatenated
// gzip members some writers produce; the other codecs (Snappy, ZSTD, LZ4) come from hyparquet-compressors.
const COMPRESSORS: Compressors = {
  ...offeredCompressors,
  GZIP: (input) => new Uint8Array(gunzipSync(input)),
  BROTLI: (input) => new Uint8Array(brotliDecompressSync(input)),
};

const utf8 = new TextDecoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

// hyparquet's own parsers truncate micro- and nanoseconds toward zero, a millisecond late before 1970; these floor.
const PARSERS: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (millis) => new Date(Number(millis)),
  timestampFromMicroseconds: (micros) => new Date(Number(floorDiv(BigInt(micros), 1000n))),
  timestampFromNanoseconds: (nanos) => new Date(Number(floorDiv(BigInt(nanos), 1_000_000n))),
  // A JSON column is text whose content is JSON: kept as the text it is, so nothing is lost or reordered.
  jsonFromBytes: (bytes) => (bytes ? utf8.decode(bytes) : bytes),
};

function floorDiv(value: bigint, divisor: bigint): bigint {
  const quotient = value / divisor;
  return value % divisor < 0n ? quotient - 1n : quotient;
}

/** Turns a value as hyparquet decodes it into the cell the column's declared type promises. */
type CellConverter = (value: unknown) => RawCell;

interface ColumnPlan {
  name: string;
  type: FieldType;
  /** Null where hyparquet's value is already the cell (after undefined becomes null). */
  convert: CellConverter | null;
}

/**
 * Opens a Parquet file: reads its footer (schema, row groups, row count) now and its records as `batches` asks.
 *
 * Cells by declared type: bool → boolean; int4 → number; int8 → bigint, always (INT64 and UINT_32), so that a
 * column's cells share one type and none loses digits; float8 → number (a FLOAT as the shortest decimal that is the
 * same single-precision value, 0.1 not 0.10000000149011612); numeric (DECIMAL, UINT_64) → a string of its exact
 * digits, in the scale the file stores ("1.50"); date → Date at midnight UTC; timestamp → Date (UTC, to the
 * millisecond: micro- and nanoseconds are floored); text → string (JSON columns as their JSON text, TIME as
 * "HH:MM:SS.fff", binary as UTF-8 where it is valid UTF-8 and as "\x" and hex where it is not), or for nested columns
 * (lists, maps, structs) and geometries a JSON-able array or object (bigints in them become numbers where exact, else
 * strings; dates ISO strings). Null is null.
 * Messages name the file by `displayName`, or by its base name: never by its path.
 */
export async function openParquet(file: string, options: { displayName?: string } = {}): Promise<TableReader> {
  const name = options.displayName ?? path.basename(file);
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new Error(`${name} cannot be opened: ${openFailure(error)}.`, { cause: error });
  });
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new Error(`${name} cannot be opened: it is a folder, not a file.`);
    const size = stats.size;
    await checkEnvelope(handle, size, name);
    const buffer = fileHandleBuffer(handle, size);
    const fileMetadata = await parquetMetadataAsync(buffer, { parsers: PARSERS }).catch((error: unknown) => {
      throw new Error(`${name} is not a readable Parquet file: its footer (schema and row groups) is damaged.`, {
        cause: error,
      });
    });
    const { metadata, plans } = planColumns(fileMetadata);
    return new ParquetReader(name, handle, buffer, metadata, plans);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function openFailure(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'there is no such file';
  if (error.code === 'EISDIR') return 'it is a folder, not a file';
  if (error.code === 'EACCES' || error.code === 'EPERM') return 'permission denied';
  return error.code ?? error.message;
}

/** Tells a file that is not Parquet, a truncated one and an encrypted one apart before the footer is parsed. */
async function checkEnvelope(handle: FileHandle, size: number, name: string): Promise<void> {
  const head = Buffer.alloc(4);
  const tail = Buffer.alloc(4);
  if (size >= 4) await handle.read(head, 0, 4, 0);
  if (size >= 8) await handle.read(tail, 0, 4, size - 4);
  const starts = head.toString('latin1') === MAGIC;
  const ends = tail.toString('latin1');
  if (ends === ENCRYPTED_MAGIC)
    throw new Error(`${name} is an encrypted Parquet file, which cannot be read without its keys.`);
  if (!starts) throw new Error(`${name} is not a Parquet file: it does not start with Parquet's "PAR1" marker.`);
  if (ends !== MAGIC || size < 12) {
    throw new Error(
      `${name} is not a complete Parquet file: it does not end with Parquet's footer (was it cut short?).`,
    );
  }
}

/** hyparquet's AsyncBuffer over an open file handle: a slice is one positioned read; the file is never held whole. */
function fileHandleBuffer(handle: FileHandle, size: number): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end: number = size): Promise<ArrayBuffer> {
      const length = Math.max(0, Math.min(end, size) - start);
      const bytes = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(bytes, done, length - done, start + done);
        if (bytesRead === 0) throw new Error('the file ended before a part its footer points to');
        done += bytesRead;
      }
      return bytes.buffer;
    },
  };
}

class ParquetReader implements TableReader {
  readonly unit = 'record';
  readonly columns: readonly string[];
  readonly declaredTypes: readonly FieldType[];
  readonly rowCount: number;
  #closed = false;

  constructor(
    private readonly name: string,
    private readonly handle: FileHandle,
    private readonly buffer: AsyncBuffer,
    private readonly metadata: FileMetaData,
    private readonly plans: readonly ColumnPlan[],
  ) {
    this.columns = plans.map((plan) => plan.name);
    this.declaredTypes = plans.map((plan) => plan.type);
    // The row groups' counts, not the footer's total: they are what is read, and some writers leave the total at 0.
    this.rowCount = metadata.row_groups.reduce((sum, group) => sum + Number(group.num_rows), 0);
  }

  async *batches(): AsyncGenerator<RawRow[]> {
    let groupStart = 0;
    for (const [index, group] of this.metadata.row_groups.entries()) {
      const groupEnd = groupStart + Number(group.num_rows);
      const step = await this.sliceRows(group);
      for (let sliceStart = groupStart; sliceStart < groupEnd; sliceStart += step) {
        const sliceEnd = Math.min(sliceStart + step, groupEnd);
        const columns = await this.readRange(index, sliceStart, sliceEnd);
        for (let start = sliceStart; start < sliceEnd; start += BATCH_ROWS)
          yield this.rows(columns, start, Math.min(start + BATCH_ROWS, sliceEnd));
      }
      groupStart = groupEnd;
    }
  }

  /**
   * How many rows of a row group to decode at a time. A row group can hold millions of rows (a million is a common
   * writer default). Where its columns have offset indexes (page locations), hyparquet reads just the pages a slice of
   * rows needs, so a large group is read a slice at a time and memory stays flat. But a page is decoded whole: a slice
   * smaller than a page decodes that page again for each slice (a writer that puts a whole column chunk in one page
   * made 3,000,000 rows cost four decodings each), so a slice spans at least a few of the largest pages; without
   * offset indexes, the group is read whole.
   */
  private async sliceRows(group: RowGroup): Promise<number> {
    const rows = Number(group.num_rows);
    if (this.#closed) throw new Error(`${this.name} was closed before its records were read.`);
    if (!group.columns.every((chunk) => chunk.offset_index_offset !== undefined && chunk.offset_index_length))
      return Math.max(rows, 1);
    let largestPage = 0;
    for (const chunk of group.columns) {
      const start = Number(chunk.offset_index_offset);
      const bytes = await this.buffer.slice(start, start + Number(chunk.offset_index_length));
      const { page_locations: pages } = readOffsetIndex({ view: new DataView(bytes), offset: 0 });
      for (const [i, page] of pages.entries()) {
        const end = i + 1 < pages.length ? Number(pages[i + 1]!.first_row_index) : rows;
        largestPage = Math.max(largestPage, end - Number(page.first_row_index));
      }
    }
    return Math.max(1, Math.min(rows, Math.max(SLICE_ROWS, PAGES_PER_SLICE * largestPage)));
  }

  /** Records [rowStart, rowEnd) of one row group, decoded: per column, its values in the runs hyparquet hands on. */
  private async readRange(group: number, rowStart: number, rowEnd: number): Promise<ColumnRuns[]> {
    if (this.#closed) throw new Error(`${this.name} was closed before its records were read.`);
    const runs: ColumnRuns[] = this.plans.map(() => new ColumnRuns());
    const position = new Map(this.plans.map((plan, i) => [plan.name, i]));
    try {
      await parquetRead({
        file: this.buffer,
        metadata: this.metadata,
        rowStart,
        rowEnd,
        useOffsetIndex: true,
        compressors: COMPRESSORS,
        parsers: PARSERS,
        // Bytes without a string annotation stay bytes, so that a DECIMAL stored as BYTE_ARRAY keeps its digits (see
        // planColumns) and binary that is not UTF-8 is not mangled; annotated strings are still decoded by hyparquet.
        utf8: false,
        onChunk: (chunk: ColumnData) => {
          const at = position.get(chunk.columnName);
          if (at !== undefined) runs[at]!.add(chunk);
        },
      });
    } catch (error) {
      throw new Error(
        `${this.name} could not be read: ${decodeFailure(error)} (row group ${group + 1}, records ${rowStart + 1}–${rowEnd}).`,
        {
          cause: error,
        },
      );
    }
    return runs;
  }

  /** Rows [start, end), counted from the file's first record, as RawRows. */
  private rows(columns: readonly ColumnRuns[], start: number, end: number): RawRow[] {
    const rows: RawRow[] = new Array(end - start);
    const width = this.plans.length;
    for (let r = start; r < end; r++) rows[r - start] = { cells: new Array<RawCell>(width), line: r + 1 };
    for (let c = 0; c < width; c++) {
      const convert = this.plans[c]!.convert;
      const column = columns[c]!;
      for (let r = start; r < end; r++) {
        const value = column.at(r);
        rows[r - start]!.cells[c] =
          value === undefined || value === null ? null : convert ? convert(value) : (value as RawCell);
      }
    }
    return rows;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.handle.close();
  }
}

/** A column's decoded values for one row group, in the runs hyparquet hands on; read in increasing row order. */
class ColumnRuns {
  private readonly runs: { start: number; data: DecodedArray }[] = [];
  private current = 0;

  add(chunk: ColumnData): void {
    this.runs.push({ start: chunk.rowStart, data: chunk.columnData });
    this.runs.sort((a, b) => a.start - b.start);
  }

  at(row: number): unknown {
    let run = this.runs[this.current];
    while (run && row >= run.start + run.data.length && this.current < this.runs.length - 1)
      run = this.runs[++this.current];
    if (!run || row < run.start || row >= run.start + run.data.length) return undefined;
    return run.data[row - run.start];
  }
}

function decodeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const codec = /unsupported compression codec:? *(\w+)|no decompressor for (\w+)|compressor for codec (\w+)/i.exec(
    message,
  );
  if (codec) return `it is compressed with ${codec[1] ?? codec[2] ?? codec[3]}, which this reader does not support`;
  if (/string longer than|invalid string length|allocation failed|invalid array length/i.test(message)) {
    return 'a value in it is too large to hold in memory';
  }
  // A file whose footer is plain but whose columns are encrypted has pages hyparquet cannot even classify.
  if (/unsupported page type: undefined/i.test(message)) return 'its data pages are encrypted or damaged';
  if (/unsupported|not supported/i.test(message))
    return `it uses a Parquet feature this reader does not support (${message.replace(/^parquet /, '')})`;
  return 'its data is damaged and cannot be decoded';
}

/**
 * Decides each top-level column's declared type and how its values become cells, and returns the footer to read with:
 * the same but for DECIMAL columns, whose annotation is removed so that hyparquet (which turns decimals into floating
 * point) hands on the stored integers and bytes, made into exact digits here; and BSON and INTERVAL, which hyparquet
 * refuses to decode, so that they arrive as bytes.
 */
function planColumns(metadata: FileMetaData): { metadata: FileMetaData; plans: ColumnPlan[] } {
  const tree = parquetSchema(metadata);
  const replaced = new Map<SchemaElement, SchemaElement>();
  const plans = tree.children.map((node) => {
    const plan = columnPlan(node);
    const element = node.element;
    const annotation = element.logical_type?.type ?? element.converted_type;
    if (
      node.children.length === 0 &&
      (annotation === 'DECIMAL' || annotation === 'BSON' || annotation === 'INTERVAL')
    ) {
      replaced.set(element, { ...element, converted_type: undefined, logical_type: undefined });
    }
    return plan;
  });
  if (replaced.size === 0) return { metadata, plans };
  return {
    metadata: { ...metadata, schema: metadata.schema.map((element) => replaced.get(element) ?? element) },
    plans,
  };
}

function columnPlan(node: SchemaTree): ColumnPlan {
  const element = node.element;
  const name = element.name;
  const logical = element.logical_type;
  const converted = element.converted_type;
  if (node.children.length > 0 || element.repetition_type === 'REPEATED')
    return { name, type: 'text', convert: jsonable };
  if (logical?.type === 'DECIMAL' || converted === 'DECIMAL') {
    const scale = logical?.type === 'DECIMAL' ? logical.scale : (element.scale ?? 0);
    return { name, type: 'numeric', convert: (value) => decimalDigits(unscaled(value), scale) };
  }
  if (logical?.type === 'DATE' || converted === 'DATE')
    return {
      name,
      type: 'date',
      convert: (value) => (value instanceof Date ? value : new Date(Number(value) * 86_400_000)),
    };
  if (
    logical?.type === 'TIMESTAMP' ||
    converted === 'TIMESTAMP_MILLIS' ||
    converted === 'TIMESTAMP_MICROS' ||
    (element.type === 'INT96' && !logical && !converted)
  ) {
    const unit = logical?.type === 'TIMESTAMP' ? logical.unit : converted === 'TIMESTAMP_MICROS' ? 'MICROS' : 'MILLIS';
    return {
      name,
      type: 'timestamp',
      convert: (value) => (value instanceof Date ? value : timestampFrom(value, unit)),
    };
  }
  if (logical?.type === 'TIME' || converted === 'TIME_MILLIS' || converted === 'TIME_MICROS') {
    const unit = logical?.type === 'TIME' ? logical.unit : converted === 'TIME_MICROS' ? 'MICROS' : 'MILLIS';
    return { name, type: 'text', convert: (value) => timeOfDay(value, unit) };
  }
  if (logical?.type === 'INTEGER') {
    if (logical.bitWidth === 64) return { name, ...(logical.isSigned ? INT8 : UINT64) };
    return { name, ...(logical.bitWidth === 32 && !logical.isSigned ? INT8 : INT4) };
  }
  const byConvertedType = converted && BY_CONVERTED_TYPE[converted];
  if (byConvertedType) return { name, ...byConvertedType };
  if (logical?.type === 'FLOAT16') return { name, type: 'float8', convert: null };
  if (logical?.type === 'STRING' || logical?.type === 'UUID') return { name, ...TEXT };
  if (logical?.type === 'GEOMETRY' || logical?.type === 'GEOGRAPHY' || logical?.type === 'VARIANT')
    return { name, type: 'text', convert: jsonable };
  return { name, ...((element.type && BY_PHYSICAL_TYPE[element.type]) ?? { type: 'text', convert: textOf }) };
}

/** A column's declared type and how its values become cells. */
type Reading = Omit<ColumnPlan, 'name'>;

const INT4: Reading = { type: 'int4', convert: null };
const INT8: Reading = { type: 'int8', convert: toBigInt };
/** An unsigned 64-bit integer may be beyond int8: exact digits. */
const UINT64: Reading = { type: 'numeric', convert: toDigits };
const TEXT: Reading = { type: 'text', convert: null };

/** The legacy converted types that say only an integer's width, or text. */
const BY_CONVERTED_TYPE: Partial<Record<NonNullable<SchemaElement['converted_type']>, Reading>> = {
  INT_8: INT4,
  INT_16: INT4,
  INT_32: INT4,
  UINT_8: INT4,
  UINT_16: INT4,
  INT_64: INT8,
  UINT_32: INT8,
  UINT_64: UINT64,
  UTF8: TEXT,
};

/** The physical types, read so where no annotation says more (any other is text). */
const BY_PHYSICAL_TYPE: Partial<Record<NonNullable<SchemaElement['type']>, Reading>> = {
  BOOLEAN: { type: 'bool', convert: null },
  INT32: INT4,
  INT64: INT8,
  FLOAT: { type: 'float8', convert: (value) => shortestSingle(value as number) },
  DOUBLE: { type: 'float8', convert: null },
};

function toBigInt(value: unknown): bigint {
  return typeof value === 'bigint' ? value : BigInt(value as number);
}

function toDigits(value: unknown): string {
  return toBigInt(value).toString();
}

/** A DECIMAL's stored integer: a number (INT32), a bigint (INT64), or big-endian two's complement bytes. */
function unscaled(value: unknown): bigint {
  if (!(value instanceof Uint8Array)) return toBigInt(value);
  if (value.length === 0) return 0n;
  let result = 0n;
  for (const byte of value) result = (result << 8n) | BigInt(byte);
  return value[0]! & 0x80 ? result - (1n << BigInt(value.length * 8)) : result;
}

function decimalDigits(value: bigint, scale: number): string {
  const negative = value < 0n;
  let digits = (negative ? -value : value).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  } else if (scale < 0) {
    digits += '0'.repeat(-scale);
  }
  return negative ? `-${digits}` : digits;
}

function timestampFrom(value: unknown, unit: 'MILLIS' | 'MICROS' | 'NANOS'): Date {
  const ticks = toBigInt(value);
  if (unit === 'MILLIS') return new Date(Number(ticks));
  return new Date(Number(floorDiv(ticks, unit === 'MICROS' ? 1000n : 1_000_000n)));
}

/** A TIME as the clock reads it, to the precision the file stores. */
function timeOfDay(value: unknown, unit: 'MILLIS' | 'MICROS' | 'NANOS'): string {
  const digits = unit === 'MILLIS' ? 3 : unit === 'MICROS' ? 6 : 9;
  const perSecond = 10n ** BigInt(digits);
  const ticks = toBigInt(value);
  const seconds = Number(ticks / perSecond);
  const fraction = (ticks % perSecond).toString().padStart(digits, '0');
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}.${fraction}`;
}

/** The shortest decimal that reads back as the same single-precision float: what the writer of the file wrote. */
function shortestSingle(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  for (let precision = 1; precision < 10; precision++) {
    const candidate = Number(value.toPrecision(precision));
    if (Math.fround(candidate) === value) return candidate;
  }
  return value;
}

function textOf(value: unknown): RawCell {
  if (value instanceof Uint8Array) return bytesText(value);
  if (typeof value === 'string') return value;
  return jsonable(value);
}

/**
 * Binary as text: as UTF-8 where it is UTF-8 text (old writers leave strings unannotated), else in PostgreSQL's hex
 * form ("\x00ff"), which also keeps control characters (a NUL, which no text column can hold) out of text.
 */
function bytesText(bytes: Uint8Array): string {
  let text: string | null = null;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    // not UTF-8: hex below
  }
  if (text !== null && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) return text;
  return `\\x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

/** A nested value as JSON can hold it: no bigints, bytes or dates left inside. */
function jsonable(value: unknown): RawCell {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return bytesText(value);
  if (Array.isArray(value)) return value.map(jsonable);
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number | bigint>, jsonable) as RawCell;
  if (value instanceof Map)
    return Object.fromEntries(Array.from(value, ([key, entry]) => [String(key), jsonable(entry)]));
  if (typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) if (entry !== undefined) result[key] = jsonable(entry);
    return result;
  }
  return value as RawCell;
}
