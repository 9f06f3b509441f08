// Reviewed inputs the explorer reads beside the data, from the repository's data/ folder, with their evidence: which
// party a renamed party continues (party-lineage.csv) and decisions on candidates the matching rules cannot make
// (candidate-matches.csv; a side's party is given only where two namesakes stood in one constituency). Read once when
// the explorer starts; their hash is part of every page's key and tag.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { CandidateMatch, PartyLineage } from '../elections/index.js';
import { PROJECT_ROOT } from '../settings.js';

export const REVIEWED_DIR = path.join(PROJECT_ROOT, 'data');

export interface Reviewed {
  lineage: PartyLineage[];
  matches: CandidateMatch[];
  version: string;
}

function rowsOf(file: string, columns: readonly string[]): { rows: Record<string, string>[]; text: string } {
  const text = readFileSync(path.join(REVIEWED_DIR, file), 'utf8');
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  rows.forEach((row, i) => {
    for (const column of columns) {
      if (!row[column]?.trim())
        throw new Error(
          `${file}, row ${i + 2}: ${column} is empty; every reviewed row needs it, its evidence included`,
        );
    }
  });
  return { rows, text };
}

export function loadReviewed(): Reviewed {
  const lineage = rowsOf('party-lineage.csv', ['election', 'party', 'line', 'evidence']);
  const matches = rowsOf('candidate-matches.csv', [
    'decision',
    'earlier_election',
    'earlier_constituency',
    'earlier_name',
    'later_election',
    'later_constituency',
    'later_name',
    'evidence',
  ]);
  for (const row of matches.rows) {
    if (row.decision !== 'same' && row.decision !== 'different')
      throw new Error(`candidate-matches.csv: decision "${row.decision}" is neither same nor different`);
  }
  return {
    lineage: lineage.rows.map((r) => ({
      election: r.election!,
      party: r.party!,
      line: r.line!,
      evidence: r.evidence!,
    })),
    matches: matches.rows.map((r) => ({
      decision: r.decision as 'same' | 'different',
      earlier: {
        election: r.earlier_election!,
        constituency: r.earlier_constituency!,
        name: r.earlier_name!,
        ...(r.earlier_party ? { party: r.earlier_party } : {}),
      },
      later: {
        election: r.later_election!,
        constituency: r.later_constituency!,
        name: r.later_name!,
        ...(r.later_party ? { party: r.later_party } : {}),
      },
      evidence: r.evidence!,
    })),
    version: createHash('sha256').update(lineage.text).update(matches.text).digest('hex').slice(0, 12),
  };
}
