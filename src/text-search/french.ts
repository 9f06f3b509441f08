// The French Snowball stemmer of the release PostgreSQL 15 ships (2.x), written from the algorithm's published
// description (snowballstem.org): that release marks 'ë' and 'ï' in its prelude, which the older stemmer in
// `snowball-stemmers` does not. test/unit/text-search-differential.test.ts compares it with PostgreSQL.

const VOWELS = new Set('aeiouyâàëéêèïîôûù');
const KEEP_WITH_S = new Set('aiouès');
const isVowel = (ch: string | undefined) => ch !== undefined && VOWELS.has(ch);

/** The longest of `suffixes` that `word` ends with, starting at `limit` or after; null for none. */
function longestSuffix(word: string, suffixes: readonly string[], limit = 0): string | null {
  let best: string | null = null;
  for (const suffix of suffixes)
    if ((best === null || suffix.length > best.length) && word.length - suffix.length >= limit && word.endsWith(suffix))
      best = suffix;
  return best;
}

/**
 * Marks vowels used as consonants (U, I, Y), 'qu' (qU), and 'ë', 'ï' (He, Hi). Snowball's `repeat goto` leaves the
 * cursor where each change was made, so the letters a change brings in (the 'e' of 'He', the vowel after a 'U') are
 * looked at again.
 */
function prelude(word: string): string {
  let w = word;
  let at = 0;
  const put = (from: number, length: number, by: string) => {
    w = w.slice(0, from) + by + w.slice(from + length);
  };
  while (at < w.length) {
    const ch = w[at]!;
    const next = w[at + 1];
    if (isVowel(ch) && (next === 'u' || next === 'i') && isVowel(w[at + 2])) put(at + 1, 1, next.toUpperCase());
    else if (isVowel(ch) && next === 'y') put(at + 1, 1, 'Y');
    else if (ch === 'ë' || ch === 'ï') put(at, 1, ch === 'ë' ? 'He' : 'Hi');
    else if (ch === 'y' && isVowel(next)) put(at, 1, 'Y');
    else if (ch === 'q' && next === 'u') put(at + 1, 1, 'U');
    else at += 1;
  }
  return w;
}

/** pV, p1 and p2: where RV, R1 and R2 start. */
function regions(w: string): { pV: number; p1: number; p2: number } {
  const n = w.length;
  let pV = n;
  if (n >= 3 && isVowel(w[0]) && isVowel(w[1])) pV = 3;
  else if (/^(par|col|tap)/.test(w)) pV = 3;
  else {
    for (let i = 1; i < n; i++)
      if (isVowel(w[i])) {
        pV = i + 1;
        break;
      }
  }
  // After a vowel, the position after the next non-vowel; n when there is none.
  const pastVowelThenConsonant = (from: number) => {
    let i = from;
    while (i < n && !isVowel(w[i])) i++;
    if (i >= n) return n;
    i++;
    while (i < n && isVowel(w[i])) i++;
    return i >= n ? n : i + 1;
  };
  const p1 = pastVowelThenConsonant(0);
  const p2 = p1 >= n ? n : pastVowelThenConsonant(p1);
  return { pV, p1, p2 };
}

const STANDARD = {
  plain: ['ance', 'iqUe', 'isme', 'able', 'iste', 'eux', 'ances', 'iqUes', 'ismes', 'ables', 'istes'],
  ation: ['atrice', 'ateur', 'ation', 'atrices', 'ateurs', 'ations'],
  logie: ['logie', 'logies'],
  usion: ['usion', 'ution', 'usions', 'utions'],
  ence: ['ence', 'ences'],
  ement: ['ement', 'ements'],
  ite: ['ité', 'ités'],
  ive: ['if', 'ive', 'ifs', 'ives'],
  eaux: ['eaux'],
  aux: ['aux'],
  euse: ['euse', 'euses'],
  issement: ['issement', 'issements'],
  amment: ['amment'],
  emment: ['emment'],
  ment: ['ment', 'ments'],
} as const;
type StandardKind = keyof typeof STANDARD;
/** Each standard suffix's rule, by the suffix. */
const STANDARD_KIND = new Map<string, StandardKind>(
  (Object.keys(STANDARD) as StandardKind[]).flatMap((kind) => STANDARD[kind].map((suffix) => [suffix, kind] as const)),
);
const STANDARD_SUFFIXES = [...STANDARD_KIND.keys()];

const I_VERB = [
  'îmes', 'ît', 'îtes', 'i', 'ie', 'ies', 'ir', 'ira', 'irai', 'iraIent', 'irais', 'irait', 'iras', 'irent', 'irez',
  'iriez', 'irions', 'irons', 'iront', 'is', 'issaIent', 'issais', 'issait', 'issant', 'issante', 'issantes', 'issants',
  'isse', 'issent', 'isses', 'issez', 'issiez', 'issions', 'issons', 'it',
]; // prettier-ignore
const VERB_DELETE = [
  'é', 'ée', 'ées', 'és', 'èrent', 'er', 'era', 'erai', 'eraIent', 'erais', 'erait', 'eras', 'erez', 'eriez', 'erions',
  'erons', 'eront', 'ez', 'iez',
]; // prettier-ignore
const VERB_A = [
  'âmes', 'ât', 'âtes', 'a', 'ai', 'aIent', 'ais', 'ait', 'ant', 'ante', 'antes', 'ants', 'as', 'asse', 'assent',
  'asses', 'assiez', 'assions',
]; // prettier-ignore
const VERB_SUFFIXES = ['ions', ...VERB_DELETE, ...VERB_A];

/** Stems a lower-case French word as Snowball 2's French stemmer does. */
export function stemFrench(word: string): string {
  let w = prelude(word);
  const { pV, p1, p2 } = regions(w);
  const cut = (length: number, by = '') => {
    w = w.slice(0, w.length - length) + by;
  };
  const start = (suffix: string) => w.length - suffix.length;

  /** Snowball's standard_suffix: true when it succeeds; its changes stay either way. */
  const standardSuffix = (): boolean => {
    const suffix = longestSuffix(w, STANDARD_SUFFIXES);
    if (suffix === null) return false;
    const at = start(suffix);
    switch (STANDARD_KIND.get(suffix)!) {
      case 'plain':
        if (at < p2) return false;
        cut(suffix.length);
        return true;
      case 'ation':
        if (at < p2) return false;
        cut(suffix.length);
        if (w.endsWith('ic')) cut(2, start('ic') >= p2 ? '' : 'iqU');
        return true;
      case 'logie':
        if (at < p2) return false;
        cut(suffix.length, 'log');
        return true;
      case 'usion':
        if (at < p2) return false;
        cut(suffix.length, 'u');
        return true;
      case 'ence':
        if (at < p2) return false;
        cut(suffix.length, 'ent');
        return true;
      case 'ement': {
        if (at < pV) return false;
        cut(suffix.length);
        const inner = longestSuffix(w, ['iv', 'eus', 'abl', 'iqU', 'ièr', 'Ièr']);
        if (inner === null) return true;
        const innerAt = start(inner);
        if (inner === 'iv') {
          if (innerAt >= p2) {
            cut(2);
            if (w.endsWith('at') && start('at') >= p2) cut(2);
          }
        } else if (inner === 'eus') {
          if (innerAt >= p2) cut(3);
          else if (innerAt >= p1) cut(3, 'eux');
        } else if (inner === 'abl' || inner === 'iqU') {
          if (innerAt >= p2) cut(3);
        } else if (innerAt >= pV) cut(3, 'i');
        return true;
      }
      case 'ite': {
        if (at < p2) return false;
        cut(suffix.length);
        const inner = longestSuffix(w, ['abil', 'ic', 'iv']);
        if (inner === 'abil') cut(4, start('abil') >= p2 ? '' : 'abl');
        else if (inner === 'ic') cut(2, start('ic') >= p2 ? '' : 'iqU');
        else if (inner === 'iv' && start('iv') >= p2) cut(2);
        return true;
      }
      case 'ive':
        if (at < p2) return false;
        cut(suffix.length);
        if (w.endsWith('at') && start('at') >= p2) {
          cut(2);
          if (w.endsWith('ic')) cut(2, start('ic') >= p2 ? '' : 'iqU');
        }
        return true;
      case 'eaux':
        cut(4, 'eau');
        return true;
      case 'aux':
        if (at < p1) return false;
        cut(3, 'al');
        return true;
      case 'euse':
        if (at >= p2) cut(suffix.length);
        else if (at >= p1) cut(suffix.length, 'eux');
        else return false;
        return true;
      case 'issement':
        if (at < p1 || at === 0 || isVowel(w[at - 1])) return false;
        cut(suffix.length);
        return true;
      case 'amment':
        if (at >= pV) cut(6, 'ant');
        return false;
      case 'emment':
        if (at >= pV) cut(6, 'ent');
        return false;
      case 'ment':
        if (at >= 1 && isVowel(w[at - 1]) && at - 1 >= pV) cut(suffix.length);
        return false;
    }
  };

  const iVerbSuffix = (): boolean => {
    const suffix = longestSuffix(w, I_VERB, pV);
    if (suffix === null) return false;
    const at = start(suffix);
    if (at - 1 < pV || w[at - 1] === 'H' || isVowel(w[at - 1])) return false;
    cut(suffix.length);
    return true;
  };

  const verbSuffix = (): boolean => {
    const suffix = longestSuffix(w, VERB_SUFFIXES, pV);
    if (suffix === null) return false;
    const at = start(suffix);
    if (suffix === 'ions') {
      if (at < p2) return false;
      cut(4);
    } else {
      cut(suffix.length);
      if (VERB_A.includes(suffix) && w.endsWith('e') && w.length - 1 >= pV) cut(1);
    }
    return true;
  };

  const residualSuffix = () => {
    if (w.endsWith('s') && w.length >= 2) {
      const before = w.slice(0, -1);
      if (before.endsWith('Hi') || !KEEP_WITH_S.has(before.at(-1)!)) cut(1);
    }
    const suffix = longestSuffix(w, ['ion', 'ier', 'ière', 'Ier', 'Ière', 'e'], pV);
    if (suffix === null) return;
    const at = start(suffix);
    if (suffix === 'ion') {
      if (at >= p2 && at - 1 >= pV && (w[at - 1] === 's' || w[at - 1] === 't')) cut(3);
    } else if (suffix === 'e') cut(1);
    else cut(suffix.length, 'i');
  };

  if (standardSuffix() || iVerbSuffix() || verbSuffix()) {
    if (w.endsWith('Y')) cut(1, 'i');
    else if (w.endsWith('ç')) cut(1, 'c');
  } else residualSuffix();

  // un_double
  if (['enn', 'onn', 'ett', 'ell', 'eill'].some((d) => w.endsWith(d))) cut(1);
  // un_accent
  let consonants = 0;
  while (consonants < w.length && !isVowel(w[w.length - 1 - consonants])) consonants++;
  const accented = w.length - 1 - consonants;
  if (consonants >= 1 && accented >= 0 && (w[accented] === 'é' || w[accented] === 'è'))
    w = `${w.slice(0, accented)}e${w.slice(accented + 1)}`;

  return w.replace(/He|Hi|H|I|U|Y/g, (mark) =>
    mark === 'He' ? 'ë' : mark === 'Hi' ? 'ï' : mark === 'H' ? '' : mark.toLowerCase(),
  );
}
