// A fast non-cryptographic hash of text, for telling requests apart (entity tags, the response cache's list of
// answers made once): FNV-1a over UTF-16 code units in two independent 32-bit lanes.

/** Two 32-bit lanes of FNV-1a (the second with another prime and a shift mixed in), as unsigned integers. */
function hashLanes(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0xcbf29ce4;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x0100019d) ^ (b >>> 15);
  }
  return [a >>> 0, b >>> 0];
}

/** 64 bits of the text's hash, as 14 base-36 digits. */
export function hashText(text: string): string {
  const [a, b] = hashLanes(text);
  return a.toString(36).padStart(7, '0') + b.toString(36).padStart(7, '0');
}

/** 52 bits of the text's hash as a number: a key a Set can hold without holding the text. */
export function hashNumber(text: string): number {
  const [a, b] = hashLanes(text);
  return a * 0x100000 + (b >>> 12);
}
