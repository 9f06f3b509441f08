// Party colours for chips and charts, from the reviewed data/party-colours.csv: the press's colours for the large
// parties, and for every other party of an election a colour of its own, so that no two parties of an election look
// alike (a unit test measures it). Colour is never the only cue: every chip and bar is labelled with the party's name
// or abbreviation. Parties are recognised by name as the comparison matches them, exactly, never by a word they share.

import { partyMatchKey } from '../elections/index.js';
import { reviewedData } from './reviewed.js';

/** Independents and parties the file does not name: a neutral grey. */
export const NEUTRAL_COLOUR = '#8a8a8a';

let byKey: Map<string, string> | null = null;

export function partyColour(party: string): string {
  byKey ??= new Map(reviewedData().colours.map((row) => [partyMatchKey(row.party), row.colour]));
  return byKey.get(partyMatchKey(party)) ?? NEUTRAL_COLOUR;
}
