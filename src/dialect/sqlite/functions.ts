// The embedded store's SQL functions for text search, and the names of every function its SQL calls: one module, so
// that the compilers (which write the calls) and the connections (which register them) agree, and so that
// datastore_search's SQL and translated user SQL share one implementation of PostgreSQL's `@@` and `ts_rank`.

import { ftsDocument, RowVectorizer } from '../../catalog/row-text.js';
import { numberText, searchableText, type StoredValue } from '../../catalog/values.js';
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
  /**
   * (tsquery text, row spec, value…) → the row's `_full_text @@ query`: 1 or 0. The embedded store keeps no vector
   * per row; it is worked out from the row's values (see rowSpecSql), as the load worked it out for the index.
   */
  rowTsMatch: 'cc_row_ts_match',
  /** (tsquery text, normalization, row spec, value…) → ts_rank of the row's `_full_text`, as float4. */
  rowTsRank: 'cc_row_ts_rank',
  /** (row spec, value…) → the row's `_full_text`, as the vector's text (what user SQL reads as that column). */
  rowTsvector: 'cc_row_tsvector',
  /** (row spec, value…) → the row's document in the full-text candidate index (its lexemes' keys). */
  rowFtsDocument: 'cc_row_fts_document',
  /** (number, field type) → the number's text as PostgreSQL prints that type (numberText): records' lines. */
  numberText: 'cc_number_text',
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

/** One row in this many (by `_id`) calls the deadline in a statement whose rows each cost SQLite little. */
export const SPARSE_DEADLINE_ROWS = 64;

/**
 * The deadline test of a statement that calls no function of ours per row: SQLite steps over such rows in nanoseconds
 * (an OFFSET of 45,000 index entries in 0.35 ms), a call into JavaScript on each costs ten times that. Asked on one row
 * in SPARSE_DEADLINE_ROWS, it still stops a scan within about a thousand rows of its time (see Deadline). `id`: the
 * row's `_id`, qualified where the statement needs it.
 */
export function sparseDeadlineSql(id = '"_id"'): string {
  return `((${id} & ${SPARSE_DEADLINE_ROWS - 1}) <> 0 OR ${SQLITE_FUNCTIONS.deadline}(${id}))`;
}

/** The part of a connection this module needs: better-sqlite3's `function`. */
interface FunctionHost {
  function(
    name: string,
    options: { deterministic: boolean; varargs?: boolean },
    impl: (...args: never[]) => unknown,
  ): unknown;
}

/** The separator of a row spec's language and types: neither holds it. */
const SPEC_SEPARATOR = ':';

/**
 * A row's text as the row functions read it: the full-text language the store was loaded with, then each field's type,
 * in stored order. It travels as a constant of the statement, so a connection makes each row reader once.
 */
export function rowSpec(language: string, types: readonly FieldType[]): string {
  return `${language}${SPEC_SEPARATOR}${types.join(',')}`;
}

/** A row's values as SQLite returns them, made the values the load read: booleans are stored as 0 and 1. */
function rowValues(types: readonly FieldType[], args: readonly unknown[], from: number): StoredValue[] {
  const values = new Array<StoredValue>(types.length);
  for (let i = 0; i < types.length; i++) {
    const value = args[from + i];
    values[i] =
      value === null || value === undefined
        ? null
        : types[i] === 'bool'
          ? value === 1 || value === true
          : (value as StoredValue);
  }
  return values;
}

/** Reads rows of one spec into vectors, remembering the last: matching and ranking a row ask for it back to back. */
class RowReader {
  private readonly vectorizer: RowVectorizer;
  private lastArgs: unknown[] | null = null;
  private lastFrom = 0;
  private lastVector: TsVector | null = null;

  constructor(
    readonly types: readonly FieldType[],
    language: string,
  ) {
    this.vectorizer = new RowVectorizer(
      language,
      types.map((type) => ({ type })),
    );
  }

  vector(args: unknown[], from: number): TsVector {
    const last = this.lastArgs;
    if (last && this.lastVector && last.length - this.lastFrom === args.length - from) {
      let same = true;
      for (let i = 0; same && i < this.types.length; i++) same = last[this.lastFrom + i] === args[from + i];
      if (same) return this.lastVector;
    }
    this.lastVector = this.vectorizer.vector(rowValues(this.types, args, from));
    this.lastArgs = args;
    this.lastFrom = from;
    return this.lastVector;
  }
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
  const readers = new BoundedCache<string, RowReader>(100);
  const reader = (spec: unknown): RowReader =>
    readers.getOrCreate(String(spec), () => {
      const text = String(spec);
      const at = text.indexOf(SPEC_SEPARATOR);
      const types = text.slice(at + 1);
      return new RowReader(types === '' ? [] : (types.split(',') as FieldType[]), text.slice(0, at));
    });
  const varargs = { deterministic: true, varargs: true };
  db.function(F.numberText, options, (value: unknown, type: unknown) =>
    typeof value === 'number' ? numberText(value, String(type) as FieldType) : value === null ? null : String(value),
  );
  db.function(F.rowTsMatch, varargs, (...args: unknown[]) =>
    isNull(args[0]) ? null : tsMatches(reader(args[1]).vector(args, 2), query(String(args[0]))) ? 1 : 0,
  );
  db.function(F.rowTsRank, varargs, (...args: unknown[]) =>
    isNull(args[0])
      ? null
      : tsRank(reader(args[2]).vector(args, 3), query(String(args[0])), isNull(args[1]) ? 0 : Number(args[1])),
  );
  db.function(F.rowTsvector, varargs, (...args: unknown[]) => tsvectorToString(reader(args[0]).vector(args, 1)));
  db.function(F.rowFtsDocument, varargs, (...args: unknown[]) => ftsDocument(reader(args[0]).vector(args, 1)));
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
