// The election resources' records as the service should give them, computed straight from the source CSV files with
// a reader of their own (deliberately separate from the loader's csv-parse), so that tests can check answers against
// an expectation the service had no hand in.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { DATA_DIR, RESOURCE_A, RESOURCE_B, RESOURCE_C } from './service.js';

/** A minimal RFC 4180 reader (quotes, doubled quotes, CRLF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** A Windows-1252 source file's header and rows. */
export function sourceRows(file: string): { header: string[]; rows: string[][] } {
  const [header, ...rows] = parseCsv(iconv.decode(readFileSync(path.join(DATA_DIR, file)), 'windows-1252'));
  return { header: header!, rows };
}

export type SourceRecord = Record<string, string | number | null>;

interface SourceSpec {
  file: string;
  /** Field ids in the resource's order, each with its type and (when it differs) its source column. */
  fields: { id: string; type: 'text' | 'numeric' | 'timestamp'; column?: string }[];
}

const text = (id: string) => ({ id, type: 'text' as const });
const numeric = (id: string) => ({ id, type: 'numeric' as const });

export const SOURCES: Record<string, SourceSpec> = {
  [RESOURCE_A]: {
    file: '2020/candidates_info.csv',
    fields: [
      text('Constituency'),
      text('Surname'),
      text('Firstname'),
      text('Gender Id'),
      text('Party Id'),
      text('Party Abbreviation'),
      numeric('Count Number'),
      numeric('Required To Reach Quota'),
      numeric('Required To Save Deposit'),
      numeric('Votes'),
      text('Result'),
      numeric('Candidate Id'),
      numeric('Constituency Number'),
      text('Constituency Ainm'),
    ],
  },
  [RESOURCE_B]: {
    file: '2020/constituencies.csv',
    fields: [
      text('Constituency Name'),
      text('Constituency Ainm'),
      numeric('Count Number'),
      { id: 'Date Of Election', type: 'timestamp' },
      numeric('Number Of Candidates'),
      numeric('Number of Seats'),
      numeric('Quota'),
      numeric('Required Save Deposit'),
      numeric('Seats Filled'),
      { id: 'Seats in Constituency', type: 'numeric', column: 'SeatsinConstit' },
      numeric('Spoiled'),
      numeric('Total Electorate'),
      numeric('Total Poll'),
      numeric('Valid Poll'),
      numeric('Constituency Number'),
    ],
  },
  [RESOURCE_C]: {
    file: '2020/elections2.csv',
    fields: [
      text('Constituency Name'),
      text('Candidate surname'),
      text('Candidate First Name'),
      text('Result'),
      numeric('Count Number'),
      numeric('Non-Transferable'),
      numeric('Occurred On Count'),
      numeric('Required To Reach Quota'),
      numeric('Required To Save Deposit'),
      numeric('Transfers'),
      numeric('Votes'),
      numeric('Total Votes'),
      numeric('Constituency Number'),
      numeric('Candidate Id'),
    ],
  },
};

const cache = new Map<string, SourceRecord[]>();

/**
 * Every record of a resource, `_id` 1…N in file order, each value as the API gives it: text as is (an empty cell is
 * ""), numbers as numbers (an empty cell is null), DD/MM/YYYY dates as ISO timestamps.
 */
export function sourceRecords(resourceId: string): SourceRecord[] {
  const known = cache.get(resourceId);
  if (known) return known;
  const spec = SOURCES[resourceId]!;
  const { header, rows } = sourceRows(spec.file);
  const records = rows.map((row, i) => {
    const record: SourceRecord = { _id: i + 1 };
    for (const field of spec.fields) {
      const cell = row[header.indexOf(field.column ?? field.id)]!;
      record[field.id] =
        field.type === 'text'
          ? cell
          : cell.trim() === ''
            ? null
            : field.type === 'numeric'
              ? Number(cell)
              : cell.replace(/^(\d\d)\/(\d\d)\/(\d{4})$/, '$3-$2-$1T00:00:00');
    }
    return record;
  });
  cache.set(resourceId, records);
  return records;
}
