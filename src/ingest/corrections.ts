// Reviewed corrections of source values, kept in the repository beside the catalogue: each names a file, a place
// in it, the value published there and the value to load instead, with its evidence. A correction is applied only
// where the source still holds the published value; any correction that does not apply stops the load, so a
// changed source is reviewed again rather than silently corrected twice or not at all.

import { readCsvRecords } from './readers/delimited.js';
import type { ResolvedFile } from './files.js';
import { loadError, origin, type Origin } from './table.js';

export interface Correction {
  /** The corrected file, as the source's files are named (relative to the sources). */
  file: string;
  /** A JSON pointer (`/candidates/2/counts/6`) in a JSON file; `/<line>/<column header>` in a CSV file. */
  location: string;
  /** As text: JSON text for a JSON file (`9.035`, `"Name"`), the cell's text for a CSV file. */
  published: string;
  corrected: string;
  evidence: string;
  /** The line of the corrections file that says it. */
  origin: Origin;
  used: boolean;
}

const REQUIRED = ['file', 'location', 'published', 'corrected', 'evidence'] as const;

/** Reads corrections files (CSV with a header naming at least file, location, published, corrected and evidence). */
export async function readCorrections(files: readonly ResolvedFile[]): Promise<Correction[]> {
  const corrections: Correction[] = [];
  for (const file of files) {
    let positions: Record<(typeof REQUIRED)[number], number> | null = null;
    for await (const { cells, line } of readCsvRecords(file.located.file, file.name, {
      encoding: file.scan.encoding,
      bomLength: file.scan.bomLength,
      delimiter: ',',
      headerRow: 1,
    })) {
      if (!positions) {
        const header = cells.map((c) => c.trim());
        positions = Object.fromEntries(
          REQUIRED.map((name) => {
            const at = header.indexOf(name);
            if (at === -1)
              throw loadError(
                origin(file.name, { line }),
                `a corrections file needs the columns ${REQUIRED.join(', ')}; "${name}" is missing`,
              );
            return [name, at];
          }),
        ) as Record<(typeof REQUIRED)[number], number>;
        continue;
      }
      const cell = (name: (typeof REQUIRED)[number]) => cells[positions![name]] ?? '';
      const at = origin(file.name, { line });
      if (!cell('file') || !cell('location').startsWith('/'))
        throw loadError(at, 'a correction needs a file and a location beginning with "/"');
      if (!cell('evidence').trim()) throw loadError(at, 'a correction needs its evidence');
      corrections.push({
        file: cell('file'),
        location: cell('location'),
        published: cell('published'),
        corrected: cell('corrected'),
        evidence: cell('evidence'),
        origin: at,
        used: false,
      });
    }
  }
  return corrections;
}

/** The corrections of one file. */
export function correctionsFor(corrections: readonly Correction[], file: string): Correction[] {
  return corrections.filter((c) => c.file === file);
}

/** Fails the load on a correction that names a file the source does not read, or that found nothing to correct. */
export function checkAllUsed(corrections: readonly Correction[], files: readonly string[]): void {
  for (const c of corrections) {
    if (!files.includes(c.file))
      throw loadError(c.origin, `the correction is for ${c.file}, which this source does not read`);
    if (!c.used) throw loadError(c.origin, `the correction found no ${c.location} in ${c.file}`);
  }
}

/** Parses a JSON correction's value, or fails naming the corrections file's line. */
export function correctionJson(c: Correction, which: 'published' | 'corrected'): unknown {
  try {
    return JSON.parse(c[which]);
  } catch {
    throw loadError(
      c.origin,
      `the ${which} value ${c[which]} is not JSON text (a JSON file's corrections give values as JSON: 9035, "text", null)`,
    );
  }
}
