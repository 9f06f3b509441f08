// How names are keyed and ordered where people read them: URL keys for constituencies and parties, and an
// Irish-aware sort key for surnames (fadas ignored, Ó / Mac / Ní prefixes read as one word with the name).

import { foldText } from '../text-search/index.js';

/** `Dún Laoghaire` → `dun-laoghaire`; `Carlow Kilkenny` and `Carlow-Kilkenny` give the same key. */
export function slugOf(name: string): string {
  return (
    foldText(name)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'unnamed'
  );
}

/**
 * Irish surname prefixes, followed by a space or an apostrophe, read as part of the name (`Ó Ríordáin` = `O'Riordain`).
 */
const PREFIX = /^(o|ni|nic|mac|mc|ui|ua|de|di|du|van|von)['’\s]+/;

/**
 * Sort key of a surname: fadas and case ignored, a prefix joined to the name and `Mc` read as `Mac`, so that
 * O'Brien, Ó Briain and Ó'Brien sort together and McDonald sits with MacDonald, as Irish directories order them.
 */
export function surnameSortKey(surname: string): string {
  let key = foldText(surname).toLowerCase().trim();
  key = key.replace(PREFIX, (_m, prefix: string) => prefix);
  if (key.startsWith('mc')) key = `mac${key.slice(2)}`;
  return key.replace(/[^a-z0-9]+/g, ' ').trim();
}

// Made when first compared: a collator loads the locale's data, which a process serving only the API never needs.
let collator: Intl.Collator | undefined;
const textCollator = () => (collator ??= new Intl.Collator('en-IE', { sensitivity: 'base', numeric: true }));

export function compareSurnames(
  a: { surname: string; firstName: string },
  b: { surname: string; firstName: string },
): number {
  const collate = textCollator();
  return (
    collate.compare(surnameSortKey(a.surname), surnameSortKey(b.surname)) ||
    collate.compare(foldText(a.firstName), foldText(b.firstName))
  );
}

const LOWER = /\p{Ll}/u;

/** Written in capitals: two capitals or more and no small letter (`AYLWARD`, `GUINNESS` of `McGUINNESS`). */
const shouted = (word: string) => !LOWER.test(word) && (word.match(/\p{Lu}/gu)?.length ?? 0) >= 2;

const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

/**
 * A name as Irish readers write it, from any of the ways the records do: capitals read as a name (`AYLWARD` →
 * `Aylward`, `McGUINNESS` → `McGuinness`, `O'DONNELL` → `O'Donnell`), the Irish Ó never followed by an apostrophe
 * (`Ó'Ríordáin` → `Ó Ríordáin`), an O' or D' prefix joined to a capital (`O’ Donnell`, `O'leary` → `O’Donnell`,
 * `O'Leary`), `Mc` joined to its name, initials in capitals (`D.j.` → `D.J.`) and one space between words. Names in
 * mixed case keep their case (`de Valera`, `Ó hAlmhain`, `MacNeill`): only what the records shout is changed, and a
 * lone pair of capitals (`AJ`) is read as initials.
 */
export function displayName(text: string): string {
  const name = text.replace(/\s+/g, ' ').trim();
  const chunks = name.split(/(?<=[\s\-"(])/);
  const wholeShouted = chunks.some((chunk) => shouted(chunk.replace(/[^\p{L}]+/gu, '')) && /\p{L}{3}/u.test(chunk));
  return chunks
    .map((chunk) => {
      const [, prefix = '', rest = ''] = /^(Mc|Mac|O['’]|D['’])?(.*)$/su.exec(chunk)!;
      const word = rest.replace(/[^\p{L}]+$/u, '');
      if (word.includes('.') || !shouted(word) || (!prefix && word.length < 3 && !wholeShouted)) return chunk;
      return (prefix ? capitalised(prefix) : '') + capitalised(word) + rest.slice(word.length);
    })
    .join('')
    .replace(/(?<!\p{L})Ó['’]\s*(?=\p{L})/gu, 'Ó ')
    .replace(
      /(?<!\p{L})([OD])(['’])\s*(\p{L})/gu,
      (_m, prefix: string, mark: string, letter: string) => `${prefix}${mark}${letter.toUpperCase()}`,
    )
    .replace(/(?<!\p{L})Mc\s+(?=\p{Lu})/gu, 'Mc')
    .replace(/(?<!\p{L})Mc(\p{Ll})(?=\p{Ll})/gu, (_m, letter: string) => `Mc${letter.toUpperCase()}`)
    .replace(/(?<![\p{L}])(\p{Ll})(?=\.)/gu, (letter: string) => letter.toUpperCase())
    .replace(/[\s,;]+$/u, '');
}

export function compareText(a: string, b: string): number {
  return textCollator().compare(foldText(a), foldText(b));
}

/** Party labels vary between files ("The Labour Party", "Labour Party"); this is what must agree for a match. */
export function partyMatchKey(name: string): string {
  return foldText(name)
    .toLowerCase()
    .replace(/^the\s+/, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}
