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

const collator = new Intl.Collator('en-IE', { sensitivity: 'base', numeric: true });

export function compareSurnames(
  a: { surname: string; firstName: string },
  b: { surname: string; firstName: string },
): number {
  return (
    collator.compare(surnameSortKey(a.surname), surnameSortKey(b.surname)) ||
    collator.compare(foldText(a.firstName), foldText(b.firstName))
  );
}

/** Names in upper case in the source (`AYLWARD`, `BOBBY`) read as names (`Aylward`, `Bobby`); mixed case is kept. */
export function displayName(text: string): string {
  if (text !== text.toUpperCase() || !/[A-ZÁÉÍÓÚ]/.test(text)) return text;
  return (
    text
      .toLowerCase()
      .replace(/(^|[\s\-'’(".])(\p{L})/gu, (_m, before: string, letter: string) => before + letter.toUpperCase())
      // Mc names keep their capital after the prefix (McDonald); Mac is left alone (Macken is not MacKen).
      .replace(/\bMc(\p{Ll})/gu, (_m, letter: string) => `Mc${letter.toUpperCase()}`)
  );
}

export function compareText(a: string, b: string): number {
  return collator.compare(foldText(a), foldText(b));
}

/** Party labels vary between files ("The Labour Party", "Labour Party"); this is what must agree for a match. */
export function partyMatchKey(name: string): string {
  return foldText(name)
    .toLowerCase()
    .replace(/^the\s+/, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}
