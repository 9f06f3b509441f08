// The text of a PDF that Chromium printed, for tests of what a printed page holds: each page's content streams
// (Flate-compressed) decoded, and the glyphs of every text operator mapped back to characters through the font's
// ToUnicode map. Enough for Chromium's own output (Type 0 fonts, Identity-H, hex strings); not a general PDF reader.

import { inflateSync } from 'node:zlib';

interface PdfObject {
  dict: string;
  stream: Buffer | null;
}

function objectsOf(pdf: Buffer): Map<number, PdfObject> {
  const text = pdf.toString('latin1');
  const objects = new Map<number, PdfObject>();
  const pattern = /(\d+) 0 obj\b/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const start = match.index + match[0].length;
    const end = text.indexOf('endobj', start);
    const body = text.slice(start, end);
    const at = body.indexOf('stream');
    let stream: Buffer | null = null;
    let dict = body;
    if (at !== -1 && /\/Length/.test(body.slice(0, at))) {
      dict = body.slice(0, at);
      let from = start + at + 'stream'.length;
      if (text[from] === '\r') from++;
      if (text[from] === '\n') from++;
      const to = text.indexOf('endstream', from);
      const raw = pdf.subarray(from, to);
      stream = /\/FlateDecode/.test(dict) ? inflateSync(raw) : raw;
    }
    objects.set(Number(match[1]), { dict, stream });
  }
  return objects;
}

/** A font's ToUnicode map: glyph code (as hex) to text. */
function cmapOf(cmap: string): Map<string, string> {
  const map = new Map<string, string>();
  const utf16 = (hex: string) => String.fromCharCode(...(hex.match(/.{4}/g) ?? []).map((h) => parseInt(h, 16)));
  for (const block of cmap.match(/beginbfchar([\s\S]*?)endbfchar/g) ?? [])
    for (const [, code, value] of block.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g))
      map.set(code!.toUpperCase(), utf16(value!));
  for (const block of cmap.match(/beginbfrange([\s\S]*?)endbfrange/g) ?? [])
    for (const [, from, to, value] of block.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) {
      const width = from!.length;
      const base = parseInt(value!, 16);
      for (let code = parseInt(from!, 16), i = 0; code <= parseInt(to!, 16); code++, i++)
        map.set(code.toString(16).toUpperCase().padStart(width, '0'), utf16((base + i).toString(16).padStart(4, '0')));
    }
  return map;
}

/** Every page's text, pages in the order of the document, runs of text separated by spaces. */
export function pdfText(pdf: Buffer): string[] {
  const objects = objectsOf(pdf);
  const ref = (text: string) => Number(/(\d+) 0 R/.exec(text)?.[1]);
  // Font resource names (/F5) to their ToUnicode maps, from every resource dictionary in the file.
  const fonts = new Map<string, Map<string, string>>();
  for (const { dict } of objects.values()) {
    const fontDict = /\/Font\s*<<([^>]*)>>/.exec(dict)?.[1];
    if (!fontDict) continue;
    for (const [, name, id] of fontDict.matchAll(/\/(\w+)\s+(\d+) 0 R/g)) {
      const font = objects.get(Number(id));
      const toUnicode = font && /\/ToUnicode\s+\d+ 0 R/.exec(font.dict);
      const cmap = toUnicode ? objects.get(ref(toUnicode[0]))?.stream : null;
      if (cmap) fonts.set(name!, cmapOf(cmap.toString('latin1')));
    }
  }
  const pages = [...objects.values()].filter((o) => /\/Type\s*\/Page\b/.test(o.dict));
  return pages.map((page) => {
    const contents = /\/Contents\s*(\[[^\]]*\]|\d+ 0 R)/.exec(page.dict)?.[1] ?? '';
    const streams = [...contents.matchAll(/(\d+) 0 R/g)].map((m) => objects.get(Number(m[1]))?.stream);
    const runs: string[] = [];
    for (const stream of streams) {
      if (!stream) continue;
      let cmap: Map<string, string> | undefined;
      const ops = stream
        .toString('latin1')
        .matchAll(/\/(\w+)\s+[\d.]+\s+Tf|<([0-9A-Fa-f]*)>\s*Tj|\[((?:[^\]])*)\]\s*TJ/g);
      for (const [, font, hex, array] of ops) {
        if (font) cmap = fonts.get(font);
        const strings = hex !== undefined ? [hex] : [...(array ?? '').matchAll(/<([0-9A-Fa-f]*)>/g)].map((m) => m[1]!);
        if (!cmap || strings.length === 0) continue;
        runs.push(
          strings
            .map((s) => (s.match(/.{4}/g) ?? []).map((code) => cmap!.get(code.toUpperCase()) ?? '').join(''))
            .join(''),
        );
      }
    }
    return runs.join('').replace(/\s+/g, ' ').trim();
  });
}
