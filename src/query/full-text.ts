// `q` and `full_text` → full-text matches and rank columns, as CKAN builds them: a string searches the
// whole-row index into a `rank` column; a dictionary searches each named field into `rank <field>` columns.
// Query text is accent-folded as the stores fold what they index, so "sinn fein" finds "Sinn Féin".

import {
  candidateFilter,
  candidatesAreExact,
  foldText,
  isTextSearchConfig,
  plainToTsquery,
  toTsquery,
  tsqueryToString,
  TsQuerySyntaxError,
} from '../text-search/index.js';
import { BoundedCache } from '../util/bounded-cache.js';
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

/**
 * Parsed queries by configuration, syntax and text: a query typed again (paging, a shared link) is not parsed again.
 * A syntax error is kept as its message. The parsed query is never changed after it is made, so it may be shared.
 */
const parsed = new BoundedCache<string, TextQuery | { syntaxError: string }>(2000);

function parseTextQuery(config: string, text: string, plain: boolean, problems: PlanProblems): TextQuery | null {
  if (text.length > QUERY_LIMITS.maxTextQueryLength) {
    problems.invalidQuery(`full-text query longer than ${QUERY_LIMITS.maxTextQueryLength} characters`);
    return null;
  }
  const result = parsed.getOrCreate(`${config}\u0000${plain ? 'plain' : 'tsquery'}\u0000${text}`, () => {
    try {
      const folded = foldText(text);
      const query = plain ? plainToTsquery(config, folded) : toTsquery(config, folded);
      return {
        config,
        query,
        text: tsqueryToString(query),
        candidates: candidateFilter(query),
        candidatesExact: candidatesAreExact(query),
      };
    } catch (err) {
      if (err instanceof TsQuerySyntaxError) return { syntaxError: err.message };
      throw err;
    }
  });
  if ('syntaxError' in result) {
    problems.invalidQuery(result.syntaxError);
    return null;
  }
  return result;
}

/** The matches a request asks for, in CKAN's rank-column order; problems are recorded, not thrown. */
export function planFullText(
  request: FullTextRequest,
  fields: ReadonlyMap<string, PlanField>,
  problems: PlanProblems,
  /** The resource's fields in stored order, without `_id`: what the whole row's text is made of. */
  rowFields: readonly PlanField[] = [...fields.values()].filter((f) => f.id !== '_id'),
): RankedMatch[] {
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
    if (query) matches.push({ rankId: 'rank', match: { target: { kind: 'row', fields: rowFields }, query } });
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
