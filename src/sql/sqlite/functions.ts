// Names and signatures of the SQL functions the embedded store registers on its connections, so that the
// compiler (which writes calls) and the store (which implements them) agree.

export const SQLITE_FUNCTIONS = {
  /** (tsvector text, tsquery text) → 1 when the vector matches: PostgreSQL's `@@`. */
  tsMatch: 'cc_ts_match',
  /** (tsvector text, tsquery text, normalization) → PostgreSQL's ts_rank as float4. */
  tsRank: 'cc_ts_rank',
  /** (config, value, field type, tsquery text) → `to_tsvector(config, value::text) @@ query`. */
  tsMatchValue: 'cc_ts_match_value',
  /**
   * (config, value, field type, tsquery text, normalization) → `ts_rank(to_tsvector(config, value::text), query, n)`.
   */
  tsRankValue: 'cc_ts_rank_value',
  /**
   * (any column of the row) → 1, or an error once the running statement's deadline has passed. User SQL reads each
   * table through a filter `cc_deadline("_id")`: taking a column ties the call to every row a scan visits (without
   * one SQLite hoists it out of inner loops), and not being deterministic keeps SQLite from caching it.
   */
  deadline: 'cc_deadline',
} as const;
