// Parquet files for the reader's tests, written by two independent writers: hyparquet-writer (JavaScript, where the
// test spells out the schema) and parquet-wasm, Apache Arrow's Rust writer (arrow-rs) compiled to WebAssembly, which
// writes every codec Parquet names and lays files out as pyarrow and Spark-era tools do (row groups of a million rows,
// dictionary pages, offset indexes).

import { writeFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import * as arrow from 'apache-arrow';
import { ByteWriter, ParquetWriter, parquetWriteFile } from 'hyparquet-writer';
import type { ColumnSource, ParquetWriteOptions, SchemaElement } from 'hyparquet-writer';
import * as wasm from 'parquet-wasm';

/** The codecs hyparquet-writer can write: Snappy built in, GZIP and Brotli through Node's zlib. */
export const HYPARQUET_WRITER_CODECS = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI'] as const;
export const ZLIB_COMPRESSORS: ParquetWriteOptions['compressors'] = {
  GZIP: (input) => new Uint8Array(gzipSync(input)),
  BROTLI: (input) => new Uint8Array(brotliCompressSync(input)),
};

/** Every codec arrow-rs writes (LZ4 is the deprecated Hadoop-framed one, LZ4_RAW its replacement). */
export const ARROW_CODECS = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'LZ4', 'ZSTD', 'LZ4_RAW'] as const;
export type ArrowCodec = (typeof ARROW_CODECS)[number];

/** Writes columns with an explicit schema (the root element first), as hyparquet-writer takes them. */
export function writeWithSchema(
  file: string,
  schema: SchemaElement[],
  columnData: ColumnSource[],
  options: { codec?: (typeof HYPARQUET_WRITER_CODECS)[number]; rowGroupSize?: number } = {},
): void {
  parquetWriteFile({
    filename: file,
    schema,
    columnData,
    codec: options.codec ?? 'SNAPPY',
    compressors: ZLIB_COMPRESSORS,
    rowGroupSize: options.rowGroupSize,
  });
}

/**
 * The "sample" table, row k (0-based) of any length: id k+1, a name from 50,000 (so dictionary-encoded), an amount in
 * eighths, a date, and a flag that is null every seventh row. Tests check any row against `sampleRow`.
 */
export function sampleRow(k: number): [number, string, number, Date, boolean | null] {
  return [
    k + 1,
    `name ${k % 50_000}`,
    (k % 1000) / 8,
    new Date((18_000 + (k % 3650)) * 86_400_000),
    k % 7 === 6 ? null : k % 3 === 0,
  ];
}

export const SAMPLE_COLUMNS = ['id', 'name', 'amount', 'day', 'flag'];
export const SAMPLE_TYPES = ['int4', 'text', 'float8', 'date', 'bool'];

/** The sample table written by arrow-rs with the codec given. */
export function writeSampleWithArrow(file: string, rows: number, codec: ArrowCodec, maxRowGroupSize?: number): void {
  const id = new Int32Array(rows);
  const amount = new Float64Array(rows);
  const day = new Int32Array(rows);
  const name: string[] = new Array(rows);
  const flag: (boolean | null)[] = new Array(rows);
  for (let k = 0; k < rows; k++) {
    const row = sampleRow(k);
    id[k] = row[0];
    name[k] = row[1];
    amount[k] = row[2];
    day[k] = row[3].getTime() / 86_400_000;
    flag[k] = row[4];
  }
  const table = new arrow.Table({
    id: arrow.makeVector(id),
    name: arrow.vectorFromArray(name, new arrow.Utf8()),
    amount: arrow.makeVector(amount),
    day: arrow.makeVector({ type: new arrow.DateDay(), data: day }),
    flag: arrow.vectorFromArray(flag, new arrow.Bool()),
  });
  writeArrowTable(file, table, codec, maxRowGroupSize);
}

export function writeArrowTable(
  file: string,
  table: arrow.Table,
  codec: ArrowCodec = 'SNAPPY',
  maxRowGroupSize?: number,
): void {
  let builder = new wasm.WriterPropertiesBuilder().setCompression(wasm.Compression[codec]);
  if (maxRowGroupSize) builder = builder.setMaxRowGroupSize(maxRowGroupSize);
  const bytes = wasm.writeParquet(wasm.Table.fromIPCStream(arrow.tableToIPC(table, 'stream')), builder.build());
  writeFileSync(file, bytes);
}

/**
 * Writes Spark's legacy INT96 timestamps, which no JavaScript writer offers: the 12 bytes (nanoseconds of the day, then
 * the Julian day, little-endian) are written as FIXED_LEN_BYTE_ARRAY(12), whose plain encoding is the same, and the
 * column is labelled INT96 before the footer is written.
 */
export function writeInt96(file: string, moments: (Date | null)[]): void {
  const values = moments.map((moment) => {
    if (!moment) return null;
    const millis = moment.getTime();
    const days = Math.floor(millis / 86_400_000);
    const bytes = new Uint8Array(12);
    const view = new DataView(bytes.buffer);
    view.setBigUint64(0, BigInt(millis - days * 86_400_000) * 1_000_000n, true);
    view.setUint32(8, days + 2_440_588, true);
    return bytes;
  });
  const schema: SchemaElement[] = [
    { name: 'root', num_children: 1 },
    { name: 'at', type: 'FIXED_LEN_BYTE_ARRAY', type_length: 12, repetition_type: 'OPTIONAL' },
  ];
  const output = new ByteWriter();
  const writer = new ParquetWriter({ writer: output, schema, statistics: false });
  writer.write({ columnData: [{ name: 'at', data: values, encoding: 'PLAIN' }] });
  schema[1] = { name: 'at', type: 'INT96', repetition_type: 'OPTIONAL' };
  for (const group of writer.row_groups)
    for (const chunk of group.columns) if (chunk.meta_data) chunk.meta_data.type = 'INT96';
  writer.finish();
  writeFileSync(file, new Uint8Array(output.getBuffer()));
}
