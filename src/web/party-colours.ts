// Party colours for chips and charts. Colour is never the only cue: every chip and bar is labelled with the party's
// name or abbreviation. Parties are recognised by name, so any election's labels get the same colours.

import { partyMatchKey } from '../elections/index.js';

/** The colours Irish results usually print, keyed by what party names contain. */
const COLOURS: [RegExp, string][] = [
  [/sinn fein/, '#326760'],
  [/fianna fail/, '#3a9a3a'],
  [/fine gael/, '#2f5fb3'],
  [/labour/, '#cc0000'],
  [/green/, '#6a9a1f'],
  [/social democrats/, '#752f8b'],
  [/people before profit|solidarity|anti austerity/, '#8e2420'],
  [/aontu/, '#44532a'],
  [/independent ireland/, '#1d7f8c'],
  [/renua/, '#ff8c00'],
  [/progressive democrats/, '#1d3e6e'],
  [/workers party/, '#a31c1c'],
  [/national party/, '#4b4b4b'],
  [/irish freedom/, '#0a7a5a'],
];

/** Independents and unknown parties: a neutral grey. */
export const NEUTRAL_COLOUR = '#8a8a8a';

export function partyColour(party: string): string {
  const key = partyMatchKey(party);
  for (const [pattern, colour] of COLOURS) if (pattern.test(key)) return colour;
  return NEUTRAL_COLOUR;
}
