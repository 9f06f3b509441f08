// Public entry point: a pure-TypeScript reimplementation of the part of PostgreSQL 15 full-text
// search that CKAN's DataStore uses (to_tsvector, to_tsquery, plainto_tsquery, @@, ts_rank).

import { findConfig, getConfig, supportedConfigNames } from './dictionaries.js';
import { formatFloat4 as formatFloat4Impl } from './float4.js';
import {
  candidateFilter as candidateFilterImpl,
  candidatesAreExact as candidatesAreExactImpl,
  matches,
} from './match.js';
import type { CandidateFilter } from './match.js';
import { rank } from './rank.js';
import { formatTsquery, parseTsqueryText, plainToTsqueryWith, toTsqueryWith } from './tsquery.js';
import type { TsQuery } from './tsquery.js';
import { buildTsvector, entriesInText, formatTsvector, lexize, parseTsvectorText } from './tsvector.js';
import type { TsVector } from './tsvector.js';

export type { TsVector, TsVectorEntry } from './tsvector.js';
export type { TsQuery, TsQueryNode, TsQueryLexeme, TsQueryNot, TsQueryBinary, TsQueryPhrase } from './tsquery.js';
export type { CandidateFilter } from './match.js';
export { lexemeKey } from './match.js';
export { TsQuerySyntaxError } from './tsquery.js';
export { TsVectorSyntaxError, TsvectorBuilder, compareLexemes } from './tsvector.js';
export { UnknownTextSearchConfigError } from './dictionaries.js';
export { debugTokens, TOKEN_TYPE_NAMES } from './parser.js';
export { foldText, foldSqlBody, foldSqlExpression, FOLDED_LETTERS } from './fold.js';

/** Configurations that are implemented exactly: 'simple', 'english', and other Snowball languages. */
export function supportedTextSearchConfigs(): string[] {
  return supportedConfigNames();
}

/** Accepts PostgreSQL's names, case-insensitively and with or without the 'pg_catalog.' schema. */
export function isTextSearchConfig(name: string): boolean {
  return findConfig(name) !== undefined;
}

/** to_tsvector(config, text); throws UnknownTextSearchConfigError for an unsupported config. */
export function toTsvector(config: string, text: string): TsVector {
  return buildTsvector(getConfig(config), text);
}

/**
 * The lexemes to_tsvector(config, text) would make, each with its position, in position order; returns the number of
 * positions the text takes (stop words count). Texts joined by spaces take the sum of their positions, so a
 * document's tsvector can be assembled from its parts' lexemes (see TsvectorBuilder).
 */
export function lexizeText(config: string, text: string, emit: (lexeme: string, pos: number) => void): number {
  return lexize(getConfig(config), text, emit);
}

/** tsvector::text, e.g. `'0':12 'carlow-kilkenni':1`. */
export function tsvectorToString(v: TsVector): string {
  return formatTsvector(v);
}

/** tsvector input syntax (inverse of tsvectorToString); throws TsVectorSyntaxError. */
export function parseTsvector(text: string): TsVector {
  return parseTsvectorText(text);
}

/** plainto_tsquery(config, text). */
export function plainToTsquery(config: string, text: string): TsQuery {
  return plainToTsqueryWith(getConfig(config), text);
}

/** to_tsquery(config, text); throws TsQuerySyntaxError with PostgreSQL's message. */
export function toTsquery(config: string, text: string): TsQuery {
  return toTsqueryWith(getConfig(config), text);
}

/** tsquery::text: `'dub':*`, `'a' & 'b'`, `'x' <-> 'y'`, '' for the empty query. */
export function tsqueryToString(q: TsQuery): string {
  return formatTsquery(q);
}

/** tsquery type input (operands taken literally, no normalisation); inverse of tsqueryToString. */
export function parseTsquery(text: string): TsQuery {
  return parseTsqueryText(text);
}

/** v @@ q */
export function tsMatches(v: TsVector, q: TsQuery): boolean {
  return matches(v, q);
}

/** ts_rank(v, q, normalization) with weights {0.1, 0.2, 0.4, 1.0}; a float4 value. */
export function tsRank(v: TsVector, q: TsQuery, normalization = 0): number {
  return rank(v, q, normalization);
}

/** The lexemes a query's rank reads, when each names exactly one vector entry (no prefixes, no weights); else null. */
const rankLexemes = new WeakMap<TsQuery, readonly string[] | null>();

function exactOperands(q: TsQuery): readonly string[] | null {
  let known = rankLexemes.get(q);
  if (known !== undefined) return known;
  const found = new Set<string>();
  const walk = (n: TsQuery): boolean => {
    switch (n.type) {
      case 'empty':
        return true;
      case 'lexeme':
        found.add(n.lexeme);
        return !n.prefix && !n.weights;
      case 'not':
        return walk(n.arg);
      default:
        return walk(n.left) && walk(n.right);
    }
  };
  known = walk(q) ? [...found] : null;
  rankLexemes.set(q, known);
  return known;
}

/**
 * ts_rank(vector, q, normalization) from the vector's text as tsvectorToString writes it. ts_rank reads only the
 * entries of the query's lexemes (normalisations 0 and 32 need nothing else), so when each lexeme names exactly one
 * entry only those are read from the text; otherwise it is parsed whole, with `parse` (which may cache).
 */
export function tsRankText(
  text: string,
  q: TsQuery,
  normalization: number,
  parse: (text: string) => TsVector = parseTsvectorText,
): number {
  const lexemes = (normalization & ~32) === 0 ? exactOperands(q) : null;
  const some = lexemes ? entriesInText(text, lexemes) : null;
  return rank(some && some.entries.length > 0 ? some : parse(text), q, normalization);
}

/** float4 text output, as PostgreSQL (and to_json(real)) prints it. */
export function formatFloat4(x: number): string {
  return formatFloat4Impl(x);
}

/** A necessary condition on a matching row's lexemes, for pre-selection through an inverted index. */
export function candidateFilter(q: TsQuery): CandidateFilter {
  return candidateFilterImpl(q);
}

/** Whether candidateFilter(q) is also sufficient, so that an inverted index of lexemes answers `@@` by itself. */
export function candidatesAreExact(q: TsQuery): boolean {
  return candidatesAreExactImpl(q);
}
