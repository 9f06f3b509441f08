// Reviewed geography kept in data/ beside the other reviewed inputs: where each constituency came from at the election
// before (constituency-lineage.csv, each link with its evidence in the Acts and reviews that redrew them), and where
// each constituency's tile sits on the tile map of the country, per set of boundaries (constituency-tiles.csv). Read
// once when the explorer starts, checked as it is read: a bad row stops the start with its line, not a page.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { LINK_RELATIONS, type ConstituencyLink } from '../elections/index.js';
import { PROJECT_ROOT } from '../settings.js';

/** A constituency's tile: its column and row (0 = west, 0 = north) on its election's map, and the area it covers. */
export interface TilePlacement {
  election: string;
  constituency: string;
  column: number;
  row: number;
  area: string;
}

export interface Places {
  lineage: ConstituencyLink[];
  tiles: TilePlacement[];
  /** A hash of both files, for the keys and tags of the pages that show them. */
  version: string;
}

const DATA = path.join(PROJECT_ROOT, 'data');

function rowsOf(file: string, columns: readonly string[]): { rows: Record<string, string>[]; text: string } {
  const text = readFileSync(path.join(DATA, file), 'utf8');
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  rows.forEach((row, i) => {
    for (const column of columns)
      if (!row[column]?.trim()) throw new Error(`${file}, line ${i + 2}: ${column} is empty; every row needs it`);
  });
  return { rows, text };
}

export function loadPlaces(): Places {
  const lineage = rowsOf('constituency-lineage.csv', [
    'election',
    'constituency',
    'predecessor_election',
    'predecessor',
    'relation',
    'evidence',
  ]);
  const links = lineage.rows.map((r, i): ConstituencyLink => {
    if (!(LINK_RELATIONS as readonly string[]).includes(r.relation!))
      throw new Error(
        `constituency-lineage.csv, line ${i + 2}: relation "${r.relation}" is none of ${LINK_RELATIONS.join(', ')}`,
      );
    return {
      election: r.election!,
      constituency: r.constituency!,
      predecessorElection: r.predecessor_election!,
      predecessor: r.predecessor!,
      relation: r.relation as ConstituencyLink['relation'],
      evidence: r.evidence!,
    };
  });
  const tileRows = rowsOf('constituency-tiles.csv', ['election', 'constituency', 'column', 'row', 'area']);
  const taken = new Map<string, string>();
  const tiles = tileRows.rows.map((r, i): TilePlacement => {
    const column = Number(r.column);
    const row = Number(r.row);
    if (!Number.isInteger(column) || !Number.isInteger(row) || column < 0 || row < 0 || column > 20 || row > 20)
      throw new Error(`constituency-tiles.csv, line ${i + 2}: column and row are whole numbers from 0 to 20`);
    const cell = `${r.election} ${column} ${row}`;
    if (taken.has(cell))
      throw new Error(`constituency-tiles.csv, line ${i + 2}: ${r.constituency} is on ${taken.get(cell)}'s tile`);
    taken.set(cell, r.constituency!);
    return { election: r.election!, constituency: r.constituency!, column, row, area: r.area! };
  });
  return {
    lineage: links,
    tiles,
    version: createHash('sha256').update(lineage.text).update(tileRows.text).digest('hex').slice(0, 12),
  };
}
