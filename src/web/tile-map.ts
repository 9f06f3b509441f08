// A picture of the country: a tile per constituency, placed roughly as on a map by the reviewed layout in data/ (no
// boundary files are to hand), coloured by the party with the largest share of first preferences there, darker the
// larger its share. Drawn on the server as plain SVG, with every tile's name, party and share written on it, so that
// colour is never the only cue; the table beside it gives every figure.

import { partyMatchKey, type Constituency, type Election } from '../elections/index.js';
import { formatShare } from './format.js';
import { NEUTRAL_COLOUR, partyColour } from './party-colours.js';
import type { TilePlacement } from './places.js';

export interface MapTile {
  constituency: Constituency;
  column: number;
  row: number;
  area: string;
  /** The party with the largest share of first preferences, and that share (0–1). */
  party: string;
  abbreviation: string;
  share: number;
  seats: number;
}

/** The tiles of an election's constituencies that the layout places, and the constituencies it does not. */
export function mapTiles(
  election: Election,
  name: string,
  placements: readonly TilePlacement[],
): { tiles: MapTile[]; unplaced: Constituency[] } {
  const mine = placements.filter((p) => p.election === name);
  const key = (text: string) => partyMatchKey(text);
  const tiles: MapTile[] = [];
  const unplaced: Constituency[] = [];
  for (const constituency of election.constituencies) {
    const at = mine.find((p) => key(p.constituency) === key(constituency.name));
    if (!at) {
      unplaced.push(constituency);
      continue;
    }
    const byParty = new Map<string, { votes: number; abbreviation: string }>();
    let all = 0;
    for (const c of election.candidates(constituency.key)) {
      const row = byParty.get(c.party) ?? { votes: 0, abbreviation: c.partyAbbreviation };
      row.votes += c.firstPreferences;
      byParty.set(c.party, row);
      all += c.firstPreferences;
    }
    const [party, top] = [...byParty].sort((a, b) => b[1].votes - a[1].votes || a[0].localeCompare(b[0]))[0] ?? [
      '',
      { votes: 0, abbreviation: '' },
    ];
    tiles.push({
      constituency,
      column: at.column,
      row: at.row,
      area: at.area,
      party,
      abbreviation: top.abbreviation,
      share: all > 0 ? top.votes / all : 0,
      seats: constituency.seats + constituency.returnedAutomatically,
    });
  }
  return { tiles, unplaced };
}

/** The bands of share a tile's shade shows, lightest first. */
export const SHARE_BANDS = [
  { below: 0.25, label: 'under 25%', mix: 0.45 },
  { below: 0.35, label: '25% to 35%', mix: 0.7 },
  { below: Infinity, label: '35% or more', mix: 1 },
] as const;

const bandOf = (share: number) => SHARE_BANDS.find((b) => share < b.below)!;

function rgbOf(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** The party's colour mixed with white: `mix` 1 is the colour itself. */
export function shade(hex: string, mix: number): string {
  const rgb = rgbOf(hex).map((c) => Math.round(255 + (c - 255) * mix));
  return `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

function luminance(hex: string): number {
  const [r, g, b] = rgbOf(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** Black or white, whichever reads better on the fill (at least 4.5 : 1 on any fill). */
export function inkOn(fill: string): string {
  const l = luminance(fill);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#111111' : '#ffffff';
}

/** A party's name short enough for a tile: without a leading "The" or a second name after a slash or dash. */
export function tilePartyName(party: string, abbreviation: string): string {
  const short = party
    .replace(/^the\s+/i, '')
    .split(/\s*[/–]\s*|\s+-\s+/)[0]!
    .trim();
  return short.length <= 13 ? short : abbreviation || short;
}

/** A name broken into lines of at most `width` characters, at spaces and hyphens. */
export function wrap(text: string, width: number): string[] {
  const words = text.replace(/-/g, '- ').split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  for (const word of words) {
    const last = lines.at(-1);
    if (last !== undefined && `${last}${last.endsWith('-') ? '' : ' '}${word}`.length <= width)
      lines[lines.length - 1] = `${last}${last.endsWith('-') ? '' : ' '}${word}`;
    else lines.push(word);
  }
  return lines;
}

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const TILE_W = 94;
const TILE_H = 82;
const GAP = 4;
const LINE = 14;

/** The tile map as SVG: `label` is what a screen reader announces (the table beside it has every figure). */
export function tileMapChart(tiles: readonly MapTile[], label: string): string {
  const columns = Math.max(1, ...tiles.map((t) => t.column + 1));
  const rows = Math.max(1, ...tiles.map((t) => t.row + 1));
  const parties = [...new Map(tiles.map((t) => [t.party, t])).values()].sort(
    (a, b) => tiles.filter((t) => t.party === b.party).length - tiles.filter((t) => t.party === a.party).length,
  );
  const mapWidth = columns * (TILE_W + GAP);
  const legendTop = rows * (TILE_H + GAP) + 16;
  const legendRows = Math.ceil(parties.length / 2) + SHARE_BANDS.length + 2;
  const height = legendTop + legendRows * 20 + 8;
  const cells = tiles.map((t) => {
    const colour = t.party ? partyColour(t.party) : NEUTRAL_COLOUR;
    const fill = shade(colour, bandOf(t.share).mix);
    const ink = inkOn(fill);
    const x = t.column * (TILE_W + GAP);
    const y = t.row * (TILE_H + GAP);
    const name = wrap(t.constituency.name, 13).slice(0, 3);
    const lines = [...name, tilePartyName(t.party, t.abbreviation), formatShare(t.share)];
    const top = y + (TILE_H - lines.length * LINE) / 2 + 11;
    const text = lines
      .map(
        (line, i) =>
          `<text x="${x + TILE_W / 2}" y="${top + i * LINE}" text-anchor="middle"${i < name.length ? ' font-weight="600"' : ''}>${escape(line)}</text>`,
      )
      .join('');
    const title = `${t.constituency.name}: ${t.party || 'no candidates'}, ${formatShare(t.share)} of first preferences`;
    return `<g fill="${ink}"><title>${escape(title)}</title><rect x="${x}" y="${y}" width="${TILE_W}" height="${TILE_H}" rx="3" fill="${fill}" stroke="#1b1b1b" stroke-width="0.75"/>${text}</g>`;
  });
  const legend: string[] = [`<text x="0" y="${legendTop}" font-weight="600">Largest party by first preferences</text>`];
  parties.forEach((t, i) => {
    const x = (i % 2) * (mapWidth / 2);
    const y = legendTop + 8 + Math.floor(i / 2) * 20;
    legend.push(
      `<rect x="${x}" y="${y}" width="14" height="14" fill="${partyColour(t.party)}" stroke="#1b1b1b" stroke-width="0.75"/><text x="${x + 20}" y="${y + 12}">${escape(t.party)}</text>`,
    );
  });
  const bandsTop = legendTop + 8 + Math.ceil(parties.length / 2) * 20 + 14;
  legend.push(`<text x="0" y="${bandsTop}" font-weight="600">Its share: the darker, the larger</text>`);
  SHARE_BANDS.forEach((band, i) => {
    const y = bandsTop + 8 + i * 20;
    legend.push(
      `<rect x="0" y="${y}" width="14" height="14" fill="${shade('#555555', band.mix)}" stroke="#1b1b1b" stroke-width="0.75"/><text x="20" y="${y + 12}">${band.label}</text>`,
    );
  });
  return (
    `<svg class="chart tile-map" role="img" aria-label="${escape(label)}" viewBox="0 0 ${mapWidth} ${height}" width="${mapWidth}" height="${height}" xmlns="http://www.w3.org/2000/svg">` +
    `<g font-size="12">${cells.join('')}</g><g font-size="12" fill="#1b1b1b">${legend.join('')}</g></svg>`
  );
}
