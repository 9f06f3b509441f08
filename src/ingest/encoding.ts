// Finds out how a source file is encoded (UTF-16 by its BOM or its zero bytes, UTF-8 with or without BOM, else
// Windows-1252) and decodes it as a stream. Windows-1252 goes through iconv-lite: Node's TextDecoder treats
// "windows-1252" as Latin-1 and would turn ’ into U+0092.

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform } from 'node:stream';
import iconv from 'iconv-lite';
import { MIXED_UTF8, MixedUtf8Decoder, textDecoder, WINDOWS_1252_HIGH } from './readers/mixed-utf8.js';
import { detectEncoding } from './readers/sniff.js';

export interface SourceScan {
  sha256: string;
  bytes: number;
  /**
   * The encoding to decode with: `utf-8`, `utf-16le`, `utf-16be` or another iconv-lite name, or MIXED_UTF8 (UTF-8 in
   * part, Windows-1252 where a byte is not UTF-8).
   */
  encoding: string;
  /** Bytes of byte-order mark at the start, skipped when the text is read. */
  bomLength: number;
}

/**
 * One pass over the file: its checksum, its byte-order mark, and whether every byte sequence is valid UTF-8.
 * `declared` is the catalogue's encoding; `auto` picks UTF-16 by its BOM (or its zero bytes), else UTF-8 when valid,
 * UTF-8 and Windows-1252 mixed where it has a BOM or UTF-8's multi-byte characters as well as bytes that are not UTF-8
 * (a second pass tells), and Windows-1252 otherwise.
 */
export async function scanSource(file: string, declared: string): Promise<SourceScan> {
  const hash = createHash('sha256');
  const validator = new TextDecoder('utf-8', { fatal: true });
  let validUtf8 = true;
  let bytes = 0;
  let head = Buffer.alloc(0);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const buffer = chunk as Buffer;
    hash.update(buffer);
    if (head.length < 4096) head = Buffer.concat([head, buffer.subarray(0, 4096 - head.length)]);
    bytes += buffer.length;
    if (validUtf8) {
      try {
        validator.decode(buffer, { stream: true });
      } catch {
        validUtf8 = false;
      }
    }
  }
  if (validUtf8) {
    try {
      validator.decode();
    } catch {
      validUtf8 = false;
    }
  }
  const sniffed = detectEncoding(head, head.length === bytes);
  const normalised = declared.toLowerCase().replace(/_/g, '-');
  let encoding: string;
  let bomLength = sniffed?.bomLength ?? 0;
  if (normalised === 'auto') {
    if (sniffed && sniffed.encoding.startsWith('utf-16')) encoding = sniffed.encoding;
    else if (validUtf8) encoding = 'utf-8';
    // A NUL byte is in no text file of an 8-bit encoding (UTF-16 has its BOM, found above): this is a binary file, a
    // Parquet file or a workbook, whose reader has no use for a text encoding, so it is not read again for one.
    else if (head.includes(0)) encoding = 'windows-1252';
    else {
      encoding = encodingNotUtf8(bomLength, (await utf8Mixture(file, bomLength)).partlyUtf8);
      if (encoding !== MIXED_UTF8) bomLength = 0;
    }
  } else {
    if (!iconv.encodingExists(normalised)) throw new Error(`unknown encoding "${declared}"`);
    encoding = normalised === 'utf8' ? 'utf-8' : normalised;
    if (encoding === 'utf-8' && !validUtf8)
      throw new Error(
        'is declared UTF-8 but contains bytes that are not valid UTF-8 (without "encoding", each such byte reads as its Windows-1252 letter)',
      );
    // A BOM is skipped only when it is the declared encoding's own.
    if (!(sniffed && sniffed.bomLength > 0 && sniffed.encoding === encoding)) bomLength = 0;
  }
  return { sha256: hash.digest('hex'), bytes, encoding, bomLength };
}

/**
 * How `auto` reads a file that is not valid UTF-8 throughout: UTF-8 and Windows-1252 mixed where it is UTF-8 in part (a
 * UTF-8 BOM, or UTF-8's multi-byte characters), Windows-1252 otherwise.
 */
function encodingNotUtf8(bomLength: number, partlyUtf8: boolean): string {
  return bomLength === 3 || partlyUtf8 ? MIXED_UTF8 : 'windows-1252';
}

/**
 * A file not valid UTF-8 throughout, from `start`: the line of its first byte that is not, and whether it has UTF-8's
 * multi-byte characters too.
 */
async function utf8Mixture(file: string, start: number): Promise<{ firstLine: number; partlyUtf8: boolean }> {
  const decoder = new MixedUtf8Decoder();
  for await (const chunk of createReadStream(file, { start, highWaterMark: 1 << 20 })) decoder.write(chunk as Buffer);
  decoder.end();
  return { firstLine: decoder.firstInvalidLine ?? 1, partlyUtf8: decoder.sawMultibyte };
}

/**
 * For a file whose first bytes read as UTF-8 (past a BOM of `bomLength`): null when the whole of it is valid UTF-8;
 * otherwise the encoding `auto` reads it with (as scanSource decides) and the line of its first byte that is not UTF-8.
 */
export async function notUtf8(
  file: string,
  bomLength: number,
): Promise<{ encoding: string; firstLine: number } | null> {
  const validator = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of createReadStream(file, { start: bomLength, highWaterMark: 1 << 20 }))
      validator.decode(chunk as Buffer, { stream: true });
    validator.decode();
    return null;
  } catch {
    const { firstLine, partlyUtf8 } = await utf8Mixture(file, bomLength);
    return { encoding: encodingNotUtf8(bomLength, partlyUtf8), firstLine };
  }
}

/**
 * Windows-1252's letters for the C1 control characters U+0080–U+009F: what a Windows-1252 file's bytes 0x80–0x9F
 * become when the file was once decoded as Latin-1 and saved as UTF-8 (’ then reads as U+0092).
 */
const C1_AS_WINDOWS_1252 = WINDOWS_1252_HIGH.slice(0, 32);

export function repairC1(text: string): string {
  return text.replace(/[\u0080-\u009f]/g, (c) => {
    const letter = C1_AS_WINDOWS_1252[c.charCodeAt(0) - 0x80];
    // Five bytes have no Windows-1252 letter; those controls are left as they are.
    return letter === undefined || letter === '\uFFFD' ? c : letter;
  });
}

/** The file's text as a stream of strings, BOM removed; with `repair`, C1 controls read as Windows-1252 letters. */
export function decodedStream(
  file: string,
  scan: SourceScan,
  repair: 'windows-1252-c1' | null = null,
): NodeJS.ReadableStream {
  const raw = createReadStream(file, { start: scan.bomLength });
  const decoder = textDecoder(scan.encoding);
  const decoded = raw.pipe(
    new Transform({
      encoding: 'utf8',
      transform(chunk: Buffer, _enc, done) {
        done(null, decoder.write(chunk));
      },
      flush(done) {
        done(null, decoder.end() ?? '');
      },
    }),
  );
  if (!repair) return decoded;
  return decoded.pipe(
    new Transform({
      decodeStrings: false,
      encoding: 'utf8',
      transform(chunk: string | Buffer, _enc, done) {
        done(null, repairC1(chunk.toString()));
      },
    }),
  );
}

/** The whole file's text (BOM removed), for layouts that read a document at once. */
export async function decodedText(
  file: string,
  scan: SourceScan,
  repair: 'windows-1252-c1' | null = null,
): Promise<string> {
  let text = '';
  for await (const chunk of decodedStream(file, scan, repair)) text += chunk.toString();
  return text;
}
