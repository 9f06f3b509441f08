// `q` and `full_text` → full-text matches and rank columns, as CKAN builds them: a string searches the
// whole-row index into a `rank` column; a dictionary searches each named field into `rank <field>` columns.

import {
  candidateFilter, candidatesAreExact, isTextSearchConfig, plainToTsquery, toTsquery, tsqueryToString, TsQuerySyntaxError,
} from '../text-search/index.js';
import type { PlanField, TextMatch, TextQuery } from './plan.js';
import { QUERY_LIMITS, type PlanProblems } from './problems.js';

export interface FullTextRequest {
  q: string | Record<string, unknown> | undefined;
  fullText: string | undefined;
  plain: boolean;
  language: string;
}

export interface RankedMatch {
  /** Output column name: `rank` or `rank <field>`. */
  rankId: string;
  match: TextMatch;
}

function parseTextQuery(config: string, text: string, plain: boolean, problems: PlanProblems): TextQuery | null {
  if (text.length > QUERY_LIMITS.maxTextQueryLength) {
    problems.invalidQuery(`full-text query longer than ${QUERY_LIMITS.maxTextQueryLength} characters`);
    return null;
  }
  try {
    const query = plain ? plainToTsquery(config, text) : toTsquery(config, text);
    return { config, query, text: tsqueryToString(query), candidates: candidateFilter(query), candidatesExact: candidatesAreExact(query) };
  } catch (err) {
    if (err instanceof TsQuerySyntaxError) {
      problems.invalidQuery(err.message);
      return null;
    }
    throw err;
  }
}

/** The matches a request asks for, in CKAN's rank-column order; problems are recorded, not thrown. */
export function planFullText(request: FullTextRequest, fields: ReadonlyMap<string, PlanField>, problems: PlanProblems): RankedMatch[] {
  const { q, fullText, plain, language } = request;
  const hasQ = typeof q === 'string' ? q !== '' : q !== undefined && Object.keys(q).length > 0;
  if (!hasQ && !fullText) return [];
  if (!isTextSearchConfig(language)) {
    problems.invalidQuery(`text search configuration "${language}" does not exist`);
    return [];
  }
  const matches: RankedMatch[] = [];
  const rowMatch = (text: string) => {
    const query = parseTextQuery(language, text, plain, problems);
    if (query) matches.push({ rankId: 'rank', match: { target: { kind: 'row' }, query } });
  };
  // CKAN: full_text takes the place of a string q; it is searched alongside a dictionary q.
  if (fullText) rowMatch(fullText);
  else if (typeof q === 'string') rowMatch(q);
  if (q !== undefined && typeof q !== 'string') {
    for (const [name, term] of Object.entries(q)) {
      const field = fields.get(name);
      if (!field || typeof term !== 'string') {
        problems.invalidValue('q', name);
        continue;
      }
      const query = parseTextQuery(language, term, plain, problems);
      if (query) matches.push({ rankId: `rank ${name}`, match: { target: { kind: 'field', field }, query } });
    }
  }
  return matches;
}
