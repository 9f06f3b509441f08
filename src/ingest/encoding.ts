// Finds out how a source file is encoded (UTF-8 with or without BOM, else Windows-1252) and decodes it as a stream.
// Windows-1252 goes through iconv-lite: Node's TextDecoder treats "windows-1252" as Latin-1 and would turn ’ into U+0092.

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform } from 'node:stream';
import iconv from 'iconv-lite';

export interface SourceScan {
  sha256: string;
  bytes: number;
  /** The encoding to decode with: `utf-8` (BOM stripped when present) or another iconv-lite name. */
  encoding: string;
  hasBom: boolean;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * One pass over the file: its checksum, whether it begins with a UTF-8 BOM, and whether every byte sequence
 * is valid UTF-8. `declared` is the catalogue's encoding; `auto` picks UTF-8 when valid and Windows-1252 otherwise.
 */
export async function scanSource(file: string, declared: string): Promise<SourceScan> {
  const hash = createHash('sha256');
  const validator = new TextDecoder('utf-8', { fatal: true });
  let validUtf8 = true;
  let bytes = 0;
  let head = Buffer.alloc(0);
  for await (const chunk of createReadStream(file)) {
    const buffer = chunk as Buffer;
    hash.update(buffer);
    if (head.length < 3) head = Buffer.concat([head, buffer.subarray(0, 3 - head.length)]);
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
  const hasBom = head.equals(UTF8_BOM);
  const normalised = declared.toLowerCase().replace(/_/g, '-');
  let encoding: string;
  if (normalised === 'auto') {
    encoding = hasBom || validUtf8 ? 'utf-8' : 'windows-1252';
  } else {
    if (!iconv.encodingExists(normalised)) throw new Error(`unknown encoding "${declared}"`);
    encoding = normalised === 'utf8' ? 'utf-8' : normalised;
    if (encoding === 'utf-8' && !validUtf8) throw new Error('is declared UTF-8 but contains bytes that are not valid UTF-8');
  }
  return { sha256: hash.digest('hex'), bytes, encoding, hasBom: hasBom && encoding === 'utf-8' };
}

/**
 * Windows-1252's letters for the C1 control characters U+0080–U+009F: what a Windows-1252 file's bytes 0x80–0x9F
 * become when the file was once decoded as Latin-1 and saved as UTF-8 (’ then reads as U+0092).
 */
const C1_AS_WINDOWS_1252 = iconv.decode(Buffer.from(Array.from({ length: 32 }, (_, i) => 0x80 + i)), 'windows-1252');

export function repairC1(text: string): string {
  return text.replace(/[\u0080-\u009f]/g, (c) => {
    const letter = C1_AS_WINDOWS_1252[c.charCodeAt(0) - 0x80];
    // Five bytes have no Windows-1252 letter; those controls are left as they are.
    return letter === undefined || letter === '\uFFFD' ? c : letter;
  });
}

/** The file's text as a stream of strings, BOM removed; with `repair`, C1 controls read as Windows-1252 letters. */
export function decodedStream(file: string, scan: SourceScan, repair: 'windows-1252-c1' | null = null): NodeJS.ReadableStream {
  const raw = createReadStream(file, { start: scan.hasBom ? 3 : 0 });
  const decoded = raw.pipe(iconv.decodeStream(scan.encoding));
  if (!repair) return decoded;
  return decoded.pipe(new Transform({
    decodeStrings: false,
    encoding: 'utf8',
    transform(chunk: string | Buffer, _enc, done) {
      done(null, repairC1(chunk.toString()));
    },
  }));
}

/** The whole file's text (BOM removed), for layouts that read a document at once. */
export async function decodedText(file: string, scan: SourceScan, repair: 'windows-1252-c1' | null = null): Promise<string> {
  let text = '';
  for await (const chunk of decodedStream(file, scan, repair)) text += chunk.toString();
  return text;
}

/**
 * Drops the note lines that official exports append after the data ("This is a provisional…").
 * Lines beginning "This is" are held back; if a data line follows them they were data after all and are
 * released, so only a trailing block is ever dropped. Blank lines inside the held block stay held.
 */
export class TrailingNoteFilter extends Transform {
  private partial = '';
  private held: string[] = [];
  private heldChars = 0;
  dropped = 0;

  // Past this size the block cannot be a footer; release it to keep memory bounded.
  private static readonly MAX_HELD_CHARS = 1 << 20;

  constructor(private readonly prefix = 'This is') {
    super({ readableObjectMode: false, writableObjectMode: false, decodeStrings: false, encoding: 'utf8' });
  }

  override _transform(chunk: string | Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    const text = this.partial + chunk.toString();
    let start = 0;
    let out = '';
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline === -1) break;
      out += this.line(text.slice(start, newline + 1));
      start = newline + 1;
    }
    this.partial = text.slice(start);
    if (out) this.push(out);
    done();
  }

  override _flush(done: (err?: Error | null) => void): void {
    let out = '';
    if (this.partial) out += this.line(this.partial);
    this.dropped = this.held.filter((l) => l.trim() !== '').length;
    this.held = [];
    if (out) this.push(out);
    done();
  }

  private line(line: string): string {
    const isNote = line.startsWith(this.prefix);
    const isBlank = line.trim() === '';
    if (isNote || (isBlank && this.held.length > 0)) {
      this.held.push(line);
      this.heldChars += line.length;
      if (this.heldChars > TrailingNoteFilter.MAX_HELD_CHARS) return this.release('');
      return '';
    }
    return this.release(line);
  }

  private release(line: string): string {
    const out = this.held.join('') + line;
    this.held = [];
    this.heldChars = 0;
    return out;
  }
}
