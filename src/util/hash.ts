// A fast non-cryptographic hash of text, for telling requests apart in entity tags: FNV-1a over UTF-16 code units in
// two independent 32-bit lanes.

/**
 * 64 bits of the text's hash, as 14 base-36 digits: two lanes of FNV-1a, the second with another prime and a shift
 * mixed in.
 */
export function hashText(text: string): string {
  let a = 0x811c9dc5;
  let b = 0xcbf29ce4;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x0100019d) ^ (b >>> 15);
  }
  return (a >>> 0).toString(36).padStart(7, '0') + (b >>> 0).toString(36).padStart(7, '0');
}
