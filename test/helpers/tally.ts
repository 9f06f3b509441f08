// A one-resource catalogue, "tally" (Name, Votes), and its CSV of N candidates: the smallest published table, for the
// suites that load, reload or replicate one while it is being served.

import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** The CSV of `rows` candidates: Candidate i with 999 + i votes. */
export function tallyCsv(rows: number): string {
  return 'Name,Votes\r\n' + Array.from({ length: rows }, (_, i) => `Candidate ${i + 1},${1000 + i}\r\n`).join('');
}

/** Writes `catalog.json` into `dir`: the tally resource `id`, read from `tally.csv`, Votes indexed when asked. */
export function writeTallyCatalog(dir: string, id: string, options: { votesIndexed?: boolean } = {}): void {
  writeFileSync(
    path.join(dir, 'catalog.json'),
    JSON.stringify({
      datasets: [
        {
          name: 'tally',
          resources: [
            {
              id,
              name: 'Tally',
              source: { path: 'tally.csv' },
              fields: [
                { id: 'Name', type: 'text' },
                { id: 'Votes', type: 'numeric', ...(options.votesIndexed ? { index: true } : {}) },
              ],
            },
          ],
        },
      ],
    }),
  );
}
