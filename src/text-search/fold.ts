// Accent folding for full-text search: letters with diacritics become their base letters ("Ó Ríordáin" → "O Riordain",
// "Sinn Féin" → "Sinn Fein"), on the indexed text and on the query text alike, so names are found without their fadas.
// The rule is one both stores run at full speed on a million records: decompose (NFD), drop the combining marks that
// follow an ASCII letter, recompose (NFC), then fold the few Latin letters that have no decomposition (Æ, ß, Ø…). The
// embedded store folds with foldText, PostgreSQL with a function built from the same pieces (foldSqlBody).

/** Combining diacritical marks (U+0300–U+036F): dropped where they accent an ASCII letter. */
const MARKS_AFTER_ASCII = /([\u0001-\u007f])[\u0300-\u036f]+/g;
/** The same in PostgreSQL's regular expressions (ARE), whose \uXXXX escapes name the same characters. */
const MARKS_AFTER_ASCII_SQL = '([\\u0001-\\u007f])[\\u0300-\\u036f]+';

/**
 * Letters that have no decomposition but are read as plain letters in names: the Windows-1252 ones (Æ Œ Ø ß Ð Þ ƒ, as
 * the election files are encoded) and a few of Latin Extended-A's.
 */
const EXTRA_FOLDS: Readonly<Record<string, string>> = {
  Æ: 'AE',
  æ: 'ae',
  Œ: 'OE',
  œ: 'oe',
  ß: 'ss',
  ẞ: 'SS',
  Ø: 'O',
  ø: 'o',
  Ð: 'D',
  ð: 'd',
  Þ: 'TH',
  þ: 'th',
  ƒ: 'f',
  Đ: 'D',
  đ: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  Ł: 'L',
  ł: 'l',
  Ŧ: 'T',
  ŧ: 't',
  Ŀ: 'L',
  ŀ: 'l',
};
const EXTRA = new RegExp(`[${Object.keys(EXTRA_FOLDS).join('')}]`, 'g');

/** ASCII text, the common case, is returned as it is without any work. */
const NON_ASCII = /[^\x00-\x7f]/;

/** The text with its accented Latin letters folded to their base letters; ASCII text is returned unchanged. */
export function foldText(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text
    .normalize('NFD')
    .replace(MARKS_AFTER_ASCII, '$1')
    .normalize('NFC')
    .replace(EXTRA, (c) => EXTRA_FOLDS[c]!);
}

/**
 * Characters that folding changes, for tests and for samples: the accented letters of the Latin blocks (Latin-1
 * Supplement, Latin Extended-A and -B, Latin Extended Additional, with the Irish dotted consonants ḃ ċ ḋ ḟ ġ ṁ ṗ ṡ ṫ)
 * and the letters folded without a decomposition.
 */
export const FOLDED_LETTERS: readonly string[] = (() => {
  const letters: string[] = [];
  for (const [from, to] of [
    [0x00c0, 0x024f],
    [0x1e00, 0x1eff],
  ] as const) {
    for (let code = from; code <= to; code++) {
      const letter = String.fromCodePoint(code);
      if (foldText(letter) !== letter) letters.push(letter);
    }
  }
  return letters;
})();

/**
 * An SQL expression that folds the text `value` (an expression PostgreSQL may evaluate more than once, such as a column)
 * exactly as foldText does, with PostgreSQL's own normalize() and regexp_replace(), then replace() for the letters that
 * fold to two and one translate() for the rest. `quote` makes a string literal.
 */
export function foldSqlExpression(quote: (text: string) => string, value: string): string {
  const marks = `normalize(regexp_replace(normalize(${value}, NFD), ${quote(MARKS_AFTER_ASCII_SQL)}, '\\1', 'g'), NFC)`;
  const single = Object.entries(EXTRA_FOLDS).filter(([, to]) => to.length === 1);
  let extras = marks;
  for (const [from, to] of Object.entries(EXTRA_FOLDS).filter(([, t]) => t.length > 1))
    extras = `replace(${extras}, ${quote(from)}, ${quote(to)})`;
  extras = `translate(${extras}, ${quote(single.map(([f]) => f).join(''))}, ${quote(single.map(([, t]) => t).join(''))})`;
  // The letters without a decomposition are rare: their replacements run only on text that holds one.
  const hasExtra = `${value} ~ ${quote(`[${Object.keys(EXTRA_FOLDS).join('')}]`)}`;
  return `CASE WHEN octet_length(${value}) = char_length(${value}) THEN ${value} WHEN ${hasExtra} THEN ${extras} ELSE ${marks} END`;
}

/** The body of an SQL function of one text argument ($1) that folds exactly as foldText does (foldSqlExpression). */
export function foldSqlBody(quote: (text: string) => string): string {
  return `SELECT ${foldSqlExpression(quote, '$1')}`;
}
