// The Parquet reader on files the tests write with two independent writers: every declared type and what its cells
// become, every codec, row groups larger than a slice, Spark's INT96 timestamps, and files not what they claim.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as arrow from 'apache-arrow';
import { openParquet } from '../../src/ingest/readers/parquet.js';
import type { RawRow, TableReader } from '../../src/ingest/readers/types.js';
import {
  ARROW_CODECS,
  HYPARQUET_WRITER_CODECS,
  SAMPLE_COLUMNS,
  SAMPLE_TYPES,
  sampleRow,
  writeArrowTable,
  writeInt96,
  writeSampleWithArrow,
  writeWithSchema,
} from '../helpers/parquet-files.js';

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'readers-parquet-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(reader: TableReader): Promise<{ rows: RawRow[]; batchSizes: number[] }> {
  const rows: RawRow[] = [];
  const batchSizes: number[] = [];
  for await (const batch of reader.batches()) {
    batchSizes.push(batch.length);
    rows.push(...batch);
  }
  return { rows, batchSizes };
}

async function readFile(file: string): Promise<{ reader: TableReader; rows: RawRow[] }> {
  const reader = await openParquet(file);
  try {
    return { reader, rows: (await readAll(reader)).rows };
  } finally {
    await reader.close();
  }
}

const utf8 = new TextEncoder();
const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

describe('Parquet: declared types and cells', () => {
  test('every physical and logical type a table file uses', async () => {
    const file = path.join(dir, 'types.parquet');
    writeWithSchema(
      file,
      [
        { name: 'root', num_children: 24 },
        { name: 'flag', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
        { name: 'tiny', type: 'INT32', converted_type: 'INT_8', repetition_type: 'OPTIONAL' },
        { name: 'count', type: 'INT32', repetition_type: 'OPTIONAL' },
        { name: 'u16', type: 'INT32', converted_type: 'UINT_16', repetition_type: 'OPTIONAL' },
        { name: 'u32', type: 'INT32', converted_type: 'UINT_32', repetition_type: 'OPTIONAL' },
        { name: 'big', type: 'INT64', repetition_type: 'OPTIONAL' },
        { name: 'u64', type: 'INT64', converted_type: 'UINT_64', repetition_type: 'OPTIONAL' },
        {
          name: 'price',
          type: 'INT32',
          converted_type: 'DECIMAL',
          precision: 9,
          scale: 2,
          repetition_type: 'OPTIONAL',
        },
        {
          name: 'total',
          type: 'INT64',
          converted_type: 'DECIMAL',
          precision: 18,
          scale: 4,
          repetition_type: 'OPTIONAL',
        },
        {
          name: 'exact',
          type: 'FIXED_LEN_BYTE_ARRAY',
          type_length: 16,
          converted_type: 'DECIMAL',
          precision: 38,
          scale: 10,
          repetition_type: 'OPTIONAL',
        },
        {
          name: 'loose',
          type: 'BYTE_ARRAY',
          converted_type: 'DECIMAL',
          precision: 30,
          scale: 0,
          repetition_type: 'OPTIONAL',
        },
        { name: 'ratio', type: 'FLOAT', repetition_type: 'OPTIONAL' },
        { name: 'mean', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
        { name: 'name', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        { name: 'kind', type: 'BYTE_ARRAY', converted_type: 'ENUM', repetition_type: 'OPTIONAL' },
        { name: 'doc', type: 'BYTE_ARRAY', converted_type: 'JSON', repetition_type: 'OPTIONAL' },
        { name: 'raw', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
        { name: 'day', type: 'INT32', converted_type: 'DATE', repetition_type: 'OPTIONAL' },
        { name: 'at_ms', type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', repetition_type: 'OPTIONAL' },
        {
          name: 'at_us',
          type: 'INT64',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' },
          repetition_type: 'OPTIONAL',
        },
        {
          name: 'at_ns',
          type: 'INT64',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' },
          repetition_type: 'OPTIONAL',
        },
        { name: 'clock', type: 'INT32', converted_type: 'TIME_MILLIS', repetition_type: 'OPTIONAL' },
        {
          name: 'clock_us',
          type: 'INT64',
          logical_type: { type: 'TIME', isAdjustedToUTC: false, unit: 'MICROS' },
          repetition_type: 'OPTIONAL',
        },
        { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
      ],
      [
        { name: 'flag', data: [true, false, null] },
        { name: 'tiny', data: [-128, 127, null] },
        { name: 'count', data: [2_147_483_647, -2, null] },
        { name: 'u16', data: [65_535, 0, null] },
        { name: 'u32', data: [4_294_967_295, 1, null] },
        { name: 'big', data: [2n ** 60n + 1n, -9_223_372_036_854_775_808n, null] },
        { name: 'u64', data: [2n ** 64n - 1n, 0n, null] },
        { name: 'price', data: [12_345n, -5n, null] },
        { name: 'total', data: [123_456_789_012_345_678n, 10_000n, null] },
        { name: 'exact', data: [12_345_678_901_234_567_890_123_456_789n, -1n, null] },
        { name: 'loose', data: [-(10n ** 29n) + 1n, 255n, null] },
        { name: 'ratio', data: [0.1, -1.5, null] },
        { name: 'mean', data: [0.1, -2.5e300, null] },
        { name: 'name', data: ['Áine Ní Bhriain', '', null] },
        { name: 'kind', data: [utf8.encode('elected'), utf8.encode('excluded'), null] },
        { name: 'doc', data: [{ b: 1, a: [true, null] }, 'text', null] },
        { name: 'raw', data: [utf8.encode('plain words'), new Uint8Array([0, 255, 16]), null] },
        { name: 'day', data: [day('2020-02-08'), day('1969-12-31'), null] },
        { name: 'at_ms', data: [new Date('2024-11-29T18:30:00.250Z'), new Date('1900-01-01T00:00:00Z'), null] },
        { name: 'at_us', data: [1_732_905_000_123_456n, -1n, null] },
        { name: 'at_ns', data: [1_732_905_000_123_456_789n, 0n, null] },
        { name: 'clock', data: [3_723_004, 0, null] },
        { name: 'clock_us', data: [86_399_999_999n, 1n, null] },
        { name: 'id', data: [1, 2, 3] },
      ],
    );
    const { reader, rows } = await readFile(file);
    assert.equal(reader.unit, 'record');
    assert.equal(reader.rowCount, 3);
    assert.deepEqual(reader.columns, [
      'flag',
      'tiny',
      'count',
      'u16',
      'u32',
      'big',
      'u64',
      'price',
      'total',
      'exact',
      'loose',
      'ratio',
      'mean',
      'name',
      'kind',
      'doc',
      'raw',
      'day',
      'at_ms',
      'at_us',
      'at_ns',
      'clock',
      'clock_us',
      'id',
    ]);
    assert.deepEqual(reader.declaredTypes, [
      'bool',
      'int4',
      'int4',
      'int4',
      'int8',
      'int8',
      'numeric',
      'numeric',
      'numeric',
      'numeric',
      'numeric',
      'float8',
      'float8',
      'text',
      'text',
      'text',
      'text',
      'date',
      'timestamp',
      'timestamp',
      'timestamp',
      'text',
      'text',
      'int4',
    ]);
    assert.deepEqual(rows, [
      {
        line: 1,
        cells: [
          true,
          -128,
          2_147_483_647,
          65_535,
          4_294_967_295n,
          1_152_921_504_606_846_977n,
          '18446744073709551615',
          '123.45',
          '12345678901234.5678',
          '1234567890123456789.0123456789',
          '-99999999999999999999999999999',
          0.1,
          0.1,
          'Áine Ní Bhriain',
          'elected',
          '{"b":1,"a":[true,null]}',
          'plain words',
          day('2020-02-08'),
          new Date('2024-11-29T18:30:00.250Z'),
          new Date('2024-11-29T18:30:00.123Z'),
          new Date('2024-11-29T18:30:00.123Z'),
          '01:02:03.004',
          '23:59:59.999999',
          1,
        ],
      },
      {
        line: 2,
        cells: [
          false,
          127,
          -2,
          0,
          1n,
          -9_223_372_036_854_775_808n,
          '0',
          '-0.05',
          '1.0000',
          '-0.0000000001',
          '255',
          -1.5,
          -2.5e300,
          '',
          'excluded',
          '"text"',
          '\\x00ff10',
          day('1969-12-31'),
          new Date('1900-01-01T00:00:00Z'),
          new Date('1969-12-31T23:59:59.999Z'),
          new Date(0),
          '00:00:00.000',
          '00:00:00.000001',
          2,
        ],
      },
      { line: 3, cells: [...new Array<null>(23).fill(null), 3] },
    ]);
  });

  test('nested columns are text whose cells are JSON-able lists, structs and maps', async () => {
    const file = path.join(dir, 'nested.parquet');
    const table = new arrow.Table({
      tags: arrow.vectorFromArray(
        [['a', 'b'], [], null],
        new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)),
      ),
      point: arrow.vectorFromArray(
        [{ x: 1n, y: 2.5 }, { x: 2n ** 62n, y: null }, null],
        new arrow.Struct([
          new arrow.Field('x', new arrow.Int64(), true),
          new arrow.Field('y', new arrow.Float64(), true),
        ]),
      ),
      seen: arrow.vectorFromArray(
        [new Date('2020-01-01T00:00:00Z'), null, new Date('2021-06-30T12:00:00Z')],
        new arrow.TimestampMillisecond(),
      ),
    });
    writeArrowTable(file, table);
    const { reader, rows } = await readFile(file);
    assert.deepEqual(reader.columns, ['tags', 'point', 'seen']);
    assert.deepEqual(reader.declaredTypes, ['text', 'text', 'timestamp']);
    assert.deepEqual(rows, [
      { line: 1, cells: [['a', 'b'], { x: 1, y: 2.5 }, new Date('2020-01-01T00:00:00Z')] },
      { line: 2, cells: [[], { x: '4611686018427387904', y: null }, null] },
      { line: 3, cells: [null, null, new Date('2021-06-30T12:00:00Z')] },
    ]);
  });

  test("Spark's INT96 timestamps are timestamps", async () => {
    const file = path.join(dir, 'int96.parquet');
    const moments = [
      new Date('2024-01-01T20:34:56.123Z'),
      null,
      new Date('1969-07-20T20:17:40Z'),
      new Date('1899-12-31T23:59:59.999Z'),
    ];
    writeInt96(file, moments);
    const { reader, rows } = await readFile(file);
    assert.deepEqual(reader.declaredTypes, ['timestamp']);
    assert.deepEqual(
      rows.map((row) => row.cells),
      moments.map((moment) => [moment]),
    );
  });

  test('a file with no records has its columns and no batches', async () => {
    const file = path.join(dir, 'empty.parquet');
    writeWithSchema(
      file,
      [
        { name: 'root', num_children: 2 },
        { name: 'a', type: 'INT32', repetition_type: 'OPTIONAL' },
        { name: 'b', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      ],
      [
        { name: 'a', data: [] },
        { name: 'b', data: [] },
      ],
    );
    const reader = await openParquet(file);
    assert.deepEqual([reader.columns, reader.declaredTypes, reader.rowCount], [['a', 'b'], ['int4', 'text'], 0]);
    assert.deepEqual((await readAll(reader)).batchSizes, []);
    await reader.close();
  });
});

describe('Parquet: codecs and layout', () => {
  for (const codec of HYPARQUET_WRITER_CODECS) {
    test(`hyparquet-writer, ${codec}`, async () => {
      const file = path.join(dir, `hw-${codec}.parquet`);
      const rows = 5000;
      const sample = Array.from({ length: rows }, (_, k) => sampleRow(k));
      writeWithSchema(
        file,
        [
          { name: 'root', num_children: 5 },
          { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
          { name: 'name', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
          { name: 'amount', type: 'DOUBLE', repetition_type: 'REQUIRED' },
          { name: 'day', type: 'INT32', converted_type: 'DATE', repetition_type: 'REQUIRED' },
          { name: 'flag', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
        ],
        SAMPLE_COLUMNS.map((name, c) => ({ name, data: sample.map((row) => row[c]!) })),
        { codec, rowGroupSize: 2000 },
      );
      const { reader, rows: read } = await readFile(file);
      assert.deepEqual(
        [reader.columns, reader.declaredTypes, reader.rowCount, read.length],
        [SAMPLE_COLUMNS, SAMPLE_TYPES, rows, rows],
      );
      assert.deepEqual(
        read,
        sample.map((cells, k) => ({ line: k + 1, cells })),
      );
    });
  }

  for (const codec of ARROW_CODECS) {
    test(`arrow-rs (parquet-wasm), ${codec}`, async () => {
      const file = path.join(dir, `arrow-${codec}.parquet`);
      writeSampleWithArrow(file, 10_000, codec);
      const { reader, rows } = await readFile(file);
      assert.deepEqual(
        [reader.columns, reader.declaredTypes, reader.rowCount, rows.length],
        [SAMPLE_COLUMNS, SAMPLE_TYPES, 10_000, 10_000],
      );
      assert.deepEqual(
        rows,
        Array.from({ length: 10_000 }, (_, k) => ({ line: k + 1, cells: sampleRow(k) })),
      );
    });
  }

  test('row groups larger than a slice are read in batches of a few thousand, every record once and in order', async () => {
    const file = path.join(dir, 'groups.parquet');
    const total = 300_000;
    writeSampleWithArrow(file, total, 'ZSTD', 140_000);
    const reader = await openParquet(file);
    const seen = { count: 0, mismatches: 0, largest: 0, batches: 0 };
    for await (const batch of reader.batches()) {
      seen.batches++;
      seen.largest = Math.max(seen.largest, batch.length);
      for (const row of batch) {
        if (row.line !== seen.count + 1 || !sameCells(row.cells, sampleRow(seen.count))) seen.mismatches++;
        seen.count++;
      }
    }
    await reader.close();
    assert.deepEqual(
      { rowCount: reader.rowCount, count: seen.count, mismatches: seen.mismatches, largest: seen.largest },
      {
        rowCount: total,
        count: total,
        mismatches: 0,
        largest: 4096,
      },
    );
    assert.ok(seen.batches >= total / 4096, `${seen.batches} batches`);
  });

  test('batches can be read again, and close is safe twice', async () => {
    const file = path.join(dir, 'again.parquet');
    writeSampleWithArrow(file, 3, 'SNAPPY');
    const reader = await openParquet(file);
    const first = await readAll(reader);
    const second = await readAll(reader);
    await reader.close();
    await reader.close();
    assert.deepEqual(second, first);
    assert.deepEqual(first.rows.at(-1), { line: 3, cells: sampleRow(2) });
    await assert.rejects(readAll(reader), { message: 'again.parquet was closed before its records were read.' });
  });
});

function sameCells(cells: unknown[], expected: unknown[]): boolean {
  return (
    cells.length === expected.length &&
    cells.every((cell, i) => {
      const want = expected[i];
      return cell instanceof Date && want instanceof Date ? cell.getTime() === want.getTime() : cell === want;
    })
  );
}

describe('Parquet: files that are not what they claim', () => {
  let good: Buffer;
  before(() => {
    const file = path.join(dir, 'good.parquet');
    writeSampleWithArrow(file, 2000, 'SNAPPY');
    good = readFileSync(file);
  });

  const cases: [string, () => Buffer, string][] = [
    [
      'a CSV file',
      () => Buffer.from('id,name\n1,a\n'),
      'notes.parquet is not a Parquet file: it does not start with Parquet\'s "PAR1" marker.',
    ],
    [
      'an empty file',
      () => Buffer.alloc(0),
      'notes.parquet is not a Parquet file: it does not start with Parquet\'s "PAR1" marker.',
    ],
    [
      'a file cut short',
      () => good.subarray(0, Math.floor(good.length / 2)),
      "notes.parquet is not a complete Parquet file: it does not end with Parquet's footer (was it cut short?).",
    ],
    [
      'a footer overwritten',
      () => {
        const copy = Buffer.from(good);
        const footerLength = copy.readUInt32LE(copy.length - 8);
        copy.fill(0xff, copy.length - 8 - footerLength, copy.length - 8);
        return copy;
      },
      'notes.parquet is not a readable Parquet file: its footer (schema and row groups) is damaged.',
    ],
    [
      'data pages overwritten',
      () => {
        const copy = Buffer.from(good);
        copy.fill(0x5a, 4, Math.floor(copy.length / 2));
        return copy;
      },
      'notes.parquet could not be read: its data is damaged and cannot be decoded (row group 1, records 1–2000).',
    ],
    [
      'an encrypted footer',
      () => Buffer.concat([good.subarray(0, good.length - 4), Buffer.from('PARE')]),
      'notes.parquet is an encrypted Parquet file, which cannot be read without its keys.',
    ],
  ];
  for (const [what, bytes, message] of cases) {
    test(what, async () => {
      const folder = path.join(dir, what.replaceAll(' ', '-'));
      mkdirSync(folder);
      const file = path.join(folder, 'notes.parquet');
      writeFileSync(file, bytes());
      await assert.rejects(
        async () => {
          const reader = await openParquet(file);
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

  test('a missing file and a folder; messages name the file as the caller shows it', async () => {
    await assert.rejects(openParquet(path.join(dir, 'absent.parquet')), {
      message: 'absent.parquet cannot be opened: there is no such file.',
    });
    await assert.rejects(openParquet(path.join(dir, 'absent.parquet'), { displayName: 'upload 7' }), {
      message: 'upload 7 cannot be opened: there is no such file.',
    });
    const folder = path.join(dir, 'folder.parquet');
    mkdirSync(folder);
    await assert.rejects(openParquet(folder), {
      message: 'folder.parquet cannot be opened: it is a folder, not a file.',
    });
  });
});
