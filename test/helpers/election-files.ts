// The 2020 election's three files, read straight from data/sources into records as datastore_search
// returns them (field ids from the catalogue, typed values, `_id` in file order), for tests of the election
// arithmetic that need no store.

import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { loadCatalogFile } from '../../src/catalog/load.js';
import { parseCell } from '../../src/catalog/values.js';
import type { ElectionRecords, House, RecordObject, ResourceRecords } from '../../src/elections/index.js';
import { PROJECT_ROOT } from '../../src/settings.js';
import { DATA_DIR } from './service.js';

function datasetOf(datasetName: string) {
  return loadCatalogFile(path.join(PROJECT_ROOT, 'catalog.json')).datasets.find((d) => d.name === datasetName)!;
}

function readResource(role: 'candidates' | 'constituencies' | 'counts', datasetName: string): ResourceRecords {
  const dataset = datasetOf(datasetName);
  const resource = dataset.resources.find((r) => r.role === role)!;
  if (resource.source.kind !== 'layout') throw new Error(`${resource.name} is not read from a file`);
  const text = iconv.decode(fs.readFileSync(path.join(DATA_DIR, resource.source.path)), 'win1252');
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  const records = rows.map((row, i): RecordObject => {
    const record: RecordObject = { _id: i + 1 };
    for (const field of resource.fields) {
      const cell = row[field.column] ?? '';
      record[field.id] = cell === '' && field.type !== 'text' ? null : parseCell(cell, field.type, field.format);
    }
    return record;
  });
  return { fields: resource.fields.map((f) => f.id), records };
}

export function election2020Records(): ElectionRecords {
  return {
    candidates: readResource('candidates', 'general-election-2020'),
    constituencies: readResource('constituencies', 'general-election-2020'),
    counts: readResource('counts', 'general-election-2020'),
  };
}

/**
 * The 2020 house as the catalogue describes it: 160 seats, the Ceann Comhairle returned automatically in Kildare South.
 */
export function house2020(): House {
  const election = datasetOf('general-election-2020').election!;
  return { seats: election.seats, ceannComhairle: election.ceannComhairle };
}
