// Character classification and lower-casing as PostgreSQL's text search sees them under a
// glibc UTF-8 locale; non-ASCII answers come from the measured tables in ctype-data.ts.

import { ALPHA_RANGES, LOWER_EXCEPTIONS, SPACE_RANGES, SPECIAL_RANGES } from './ctype-data.js';

export const C_ASCLET = 1;
export const C_ALPHA = 2;
export const C_DIGIT = 4;
export const C_SPACE = 8;
export const C_SPECIAL = 16;
export const C_URLCHAR = 32;
export const C_XDIGIT = 64;

const asciiFlags = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  let f = 0;
  const ch = String.fromCharCode(c);
  if (/[A-Za-z]/.test(ch)) f |= C_ASCLET | C_ALPHA;
  if (/[0-9]/.test(ch)) f |= C_DIGIT;
  if (/[0-9A-Fa-f]/.test(ch)) f |= C_XDIGIT;
  if (c === 32 || (c >= 9 && c <= 13)) f |= C_SPACE;
  // RFC 3986 minus what it forbids; space and control characters end a URL path.
  if (c > 32 && c < 127 && !'"<>\\^`{|}'.includes(ch)) f |= C_URLCHAR;
  asciiFlags[c] = f;
}

function inRanges(r: readonly number[], cp: number): boolean {
  let lo = 0;
  let hi = (r.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < r[mid * 2]!) hi = mid - 1;
    else if (cp > r[mid * 2 + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

// The BMP is where realistic text lives; a flat table makes its lookups a single load.
const bmpFlags = new Uint8Array(0x10000);
bmpFlags.set(asciiFlags);
for (let cp = 128; cp < 0x10000; cp++) bmpFlags[cp] = nonAsciiFlags(cp);

function nonAsciiFlags(cp: number): number {
  if (inRanges(ALPHA_RANGES, cp)) return C_ALPHA;
  if (inRanges(SPECIAL_RANGES, cp)) return C_SPECIAL;
  if (inRanges(SPACE_RANGES, cp)) return C_SPACE;
  return 0;
}

export function charFlags(cp: number): number {
  return cp < 0x10000 ? bmpFlags[cp]! : nonAsciiFlags(cp);
}

const lowerExceptions = new Map<number, number>();
for (let i = 0; i < LOWER_EXCEPTIONS.length; i += 2)
  lowerExceptions.set(LOWER_EXCEPTIONS[i]!, LOWER_EXCEPTIONS[i + 1]!);

const lowerCache = new Map<number, string>();

/** towlower() applied code point by code point (no context rules such as a final sigma). */
export function lowerText(s: string): string {
  let ascii = true;
  let upper = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) {
      ascii = false;
      break;
    }
    if (c >= 65 && c <= 90) upper = true;
  }
  if (ascii) return upper ? s.toLowerCase() : s;
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 128) {
      out += cp >= 65 && cp <= 90 ? String.fromCharCode(cp + 32) : ch;
      continue;
    }
    let low = lowerCache.get(cp);
    if (low === undefined) {
      const ex = lowerExceptions.get(cp);
      low = ex !== undefined ? String.fromCodePoint(ex) : ch.toLowerCase();
      lowerCache.set(cp, low);
    }
    out += low;
  }
  return out;
}
