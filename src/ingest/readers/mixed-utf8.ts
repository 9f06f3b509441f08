// Text that is UTF-8 except where it is not: files put together from parts saved by different programs (a UTF-8 export
// with rows pasted from a Windows-1252 one). Each byte that is no part of a valid UTF-8 sequence reads as its
// Windows-1252 letter, as a person fixing the file by hand would read it, instead of every such byte becoming U+FFFD
// (or every letter of the file Windows-1252's).

import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';

/** The decoding's name, where an iconv-lite encoding name would be. */
export const MIXED_UTF8 = 'utf-8+windows-1252';

/** Windows-1252's letters for the bytes 0x80–0xFF, in order (U+FFFD for the five it leaves undefined). */
export const WINDOWS_1252_HIGH = iconv.decode(
  Buffer.from(Array.from({ length: 128 }, (_, i) => 0x80 + i)),
  'windows-1252',
);

/** The length of the valid UTF-8 sequence at `at`, 0 where there is none, -1 where the bytes end before it does. */
function sequenceAt(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0;
    if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    if (lead === 0xf4) high = 0x8f;
  } else return 0;
  for (let k = 1; k < length; k++) {
    if (at + k >= bytes.length) return -1;
    const b = bytes[at + k]!;
    if (b < (k === 1 ? low : 0x80) || b > (k === 1 ? high : 0xbf)) return 0;
  }
  return length;
}

/** A streaming decoder: UTF-8, with a byte that is not part of valid UTF-8 read as Windows-1252. */
export class MixedUtf8Decoder {
  private carry: Buffer = Buffer.alloc(0);
  /** Bytes read as Windows-1252 so far, and the line (1-based) of the first. */
  invalidBytes = 0;
  firstInvalidLine: number | null = null;
  /** Whether a multi-byte UTF-8 character was read: the text is UTF-8 at least in part. */
  sawMultibyte = false;
  private lines = 1;

  write(chunk: Buffer): string {
    return this.decode(this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk, false);
  }

  end(): string {
    return this.decode(this.carry, true);
  }

  private decode(bytes: Buffer, final: boolean): string {
    this.carry = Buffer.alloc(0);
    // Most chunks are valid throughout: decoded natively.
    if (isUtf8(bytes)) {
      const text = bytes.toString('utf8');
      if (text.length !== bytes.length) this.sawMultibyte = true;
      if (this.firstInvalidLine === null) this.countLines(bytes);
      return text;
    }
    let text = '';
    let runStart = 0;
    for (let i = 0; i < bytes.length;) {
      const b = bytes[i]!;
      if (b < 0x80) {
        if (b === 0x0a && this.firstInvalidLine === null) this.lines += 1;
        i += 1;
        continue;
      }
      const length = sequenceAt(bytes, i);
      if (length > 0) {
        this.sawMultibyte = true;
        i += length;
        continue;
      }
      if (length === -1 && !final) {
        this.carry = Buffer.from(bytes.subarray(i));
        return text + bytes.toString('utf8', runStart, i);
      }
      text += bytes.toString('utf8', runStart, i) + WINDOWS_1252_HIGH[b - 0x80];
      this.invalidBytes += 1;
      this.firstInvalidLine ??= this.lines;
      i += 1;
      runStart = i;
    }
    return text + bytes.toString('utf8', runStart);
  }

  private countLines(bytes: Buffer): void {
    for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) this.lines += 1;
  }
}

/** A decoder of `encoding` (an iconv-lite name, or MIXED_UTF8) with iconv-lite's write and end. */
export function textDecoder(encoding: string): { write(chunk: Buffer): string; end(): string | undefined } {
  return encoding === MIXED_UTF8 ? new MixedUtf8Decoder() : iconv.getDecoder(encoding);
}

/** A whole buffer's text in `encoding` (an iconv-lite name, or MIXED_UTF8). */
export function decodeText(bytes: Buffer, encoding: string): string {
  if (encoding !== MIXED_UTF8) return iconv.decode(bytes, encoding);
  const decoder = new MixedUtf8Decoder();
  return decoder.write(bytes) + decoder.end();
}
