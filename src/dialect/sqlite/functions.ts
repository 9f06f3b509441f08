// The embedded store's SQL functions for text search, and the names of every function its SQL calls: one module, so
// that the compilers (which write the calls) and the connections (which register them) agree, and so that
// datastore_search's SQL and translated user SQL share one implementation of PostgreSQL's `@@` and `ts_rank`.

import { searchableText } from '../../catalog/values.js';
import type { FieldType } from '../../catalog/types.js';
import {
  parseTsquery,
  parseTsvector,
  plainToTsquery,
  toTsquery,
  toTsvector,
  tsMatches,
  tsqueryToString,
  tsRank,
  tsRankText,
  tsvectorToString,
  type TsQuery,
  type TsVector,
} from '../../text-search/index.js';
import { BoundedCache } from '../../util/bounded-cache.js';

export const SQLITE_FUNCTIONS = {
  /** (tsvector text, tsquery text) → PostgreSQL's `@@`: 1 or 0, NULL when either side is. */
  tsMatch: 'cc_ts_match',
  /** (tsvector text, tsquery text, normalization) → PostgreSQL's ts_rank as float4, NULL when either text is. */
  tsRank: 'cc_ts_rank',
  /** (config, value, field type, tsquery text) → `to_tsvector(config, value::text) @@ query`; 0 for a NULL value. */
  tsMatchValue: 'cc_ts_match_value',
  /**
   * (config, value, field type, tsquery text, normalization) → `ts_rank(to_tsvector(config, value::text), query, n)`;
   * 0 for a NULL value.
   */
  tsRankValue: 'cc_ts_rank_value',
  /** (config, text) → PostgreSQL's to_tsvector, as the vector's text. */
  toTsvector: 'cc_to_tsvector',
  /** (config, text) → PostgreSQL's to_tsquery, as the query's text. */
  toTsquery: 'cc_to_tsquery',
  /** (config, text) → PostgreSQL's plainto_tsquery, as the query's text. */
  plainToTsquery: 'cc_plainto_tsquery',
  /**
   * (any column of the row) → 1, or an error once the running statement's deadline has passed. User SQL reads each
   * table through a filter `cc_deadline("_id")`: taking a column ties the call to every row a scan visits (without
   * one SQLite hoists it out of inner loops), and not being deterministic keeps SQLite from caching it.
   */
  deadline: 'cc_deadline',
} as const;

/** The part of a connection this module needs: better-sqlite3's `function`. */
interface FunctionHost {
  function(name: string, options: { deterministic: boolean }, impl: (...args: never[]) => unknown): unknown;
}

const isNull = (v: unknown): v is null | undefined => v === null || v === undefined;

/** Registers the text-search functions (all of SQLITE_FUNCTIONS but the deadline) on a connection. */
export function registerTextSearch(db: FunctionHost): void {
  const queries = new BoundedCache<string, TsQuery>(1000);
  const query = (text: string) => queries.getOrCreate(text, () => parseTsquery(text));
  // Matching and ranking one row call this back to back with the same value; remembering one saves a parse.
  let lastVectorText: string | null = null;
  let lastVector: TsVector | null = null;
  const vector = (text: string): TsVector => {
    if (text !== lastVectorText) {
      lastVector = parseTsvector(text);
      lastVectorText = text;
    }
    return lastVector!;
  };
  const F = SQLITE_FUNCTIONS;
  const options = { deterministic: true };
  db.function(F.tsMatch, options, (v: unknown, q: unknown) =>
    isNull(v) || isNull(q) ? null : tsMatches(vector(String(v)), query(String(q))) ? 1 : 0,
  );
  db.function(F.tsRank, options, (v: unknown, q: unknown, n: unknown) =>
    isNull(v) || isNull(q) ? null : tsRankText(String(v), query(String(q)), isNull(n) ? 0 : Number(n), vector),
  );
  db.function(F.tsMatchValue, options, (config: unknown, value: unknown, type: unknown, q: unknown) => {
    const text = searchableText(value, String(type) as FieldType);
    return text !== null && tsMatches(toTsvector(String(config), text), query(String(q))) ? 1 : 0;
  });
  db.function(
    F.tsRankValue,
    options,
    (config: unknown, value: unknown, type: unknown, q: unknown, normalization: unknown) => {
      const text = searchableText(value, String(type) as FieldType);
      return text === null ? 0 : tsRank(toTsvector(String(config), text), query(String(q)), Number(normalization));
    },
  );
  db.function(F.toTsvector, options, (config: unknown, text: unknown) =>
    isNull(config) || isNull(text) ? null : tsvectorToString(toTsvector(String(config), String(text))),
  );
  db.function(F.toTsquery, options, (config: unknown, text: unknown) =>
    isNull(config) || isNull(text) ? null : tsqueryToString(toTsquery(String(config), String(text))),
  );
  db.function(F.plainToTsquery, options, (config: unknown, text: unknown) =>
    isNull(config) || isNull(text) ? null : tsqueryToString(plainToTsquery(String(config), String(text))),
  );
}
