// The backend-neutral query plan: what a validated datastore_search asks for, in terms of fields and values,
// never SQL. Dialect compilers turn it into SQL; nothing here knows which store will answer.

import type { FieldType } from '../catalog/types.js';
import type { StoredValue } from '../catalog/values.js';
import type { CandidateFilter, TsQuery } from '../text-search/index.js';
import type { KeysetKey } from './keyset.js';

export interface PlanField {
  id: string;
  type: FieldType | 'int';
  /** False when no record lacks a value in it (known from loading); null placement then does not matter. */
  nullable?: boolean;
  /** The stores keep an index on it, from which a range's records can be found. */
  indexed?: boolean;
  /** The store keeps the field's ascending sort index too (the field, then `_id`), where its own index is not that. */
  sortIndexed?: boolean;
  /** The store keeps the field's descending sort index too (the field descending, then `_id`). */
  sortIndexedDescending?: boolean;
  /** False when no value needs COPY's quotes in a line of delimited text (known from loading). */
  quoted?: boolean;
}

/** CKAN ranks with ts_rank(…, 32): rank / (rank + 1). */
export const RANK_NORMALIZATION = 32;

/** A parsed full-text query: its tsquery, the text form both stores accept, and a pre-filter on lexemes. */
export interface TextQuery {
  config: string;
  query: TsQuery;
  /** tsquery text (`'dub':*`); what PostgreSQL's `::tsquery` and the embedded store's matcher both read. */
  text: string;
  candidates: CandidateFilter;
  /** The candidates are exactly the matches (lexemes joined by & and |): no row needs checking one by one. */
  candidatesExact: boolean;
}

/**
 * What a full-text query is matched against: the whole row (its `_full_text`: every field's value, in stored order,
 * which `fields` lists for stores that work the row's vector out from its values), or one field's text.
 */
export type TextTarget = { kind: 'row'; fields: readonly PlanField[] } | { kind: 'field'; field: PlanField };

export interface TextMatch {
  target: TextTarget;
  query: TextQuery;
}

/** CKAN 2.12's range operators. */
export const COMPARISON_OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

export type Condition =
  | { kind: 'equals'; field: PlanField; value: Exclude<StoredValue, null> }
  /** A field beyond a bound (text by code point, as equality and sorting compare it); NULL never satisfies it. */
  | { kind: 'compare'; field: PlanField; operator: ComparisonOperator; value: Exclude<StoredValue, null> }
  /** `_id` beyond a bound: how a page deep into a resource is found without stepping over the records before it. */
  | { kind: 'id-range'; after?: number; atMost?: number }
  | { kind: 'is-null'; field: PlanField }
  | { kind: 'not-null'; field: PlanField }
  | { kind: 'in'; field: PlanField; values: Exclude<StoredValue, null>[] }
  | { kind: 'text-match'; match: TextMatch }
  | { kind: 'and'; of: Condition[] }
  | { kind: 'or'; of: Condition[] }
  | { kind: 'never' };

export type OutputColumn =
  { kind: 'field'; id: string; field: PlanField } | { kind: 'rank'; id: string; match: TextMatch };

export type SortTarget = { kind: 'field'; field: PlanField } | { kind: 'rank'; match: TextMatch };

export interface SortKey {
  target: SortTarget;
  descending: boolean;
  /** Always explicit: PostgreSQL's default (NULLS LAST ascending, NULLS FIRST descending) is resolved here. */
  nullsFirst: boolean;
}

export type CountPlan =
  | { mode: 'none' }
  | { mode: 'exact' }
  /**
   * No condition: the total kept in the catalogue at load time. With CKAN's `total_estimation_threshold`, the store's
   * own estimate is used instead when it reaches the threshold (CKAN's estimation path).
   */
  | { mode: 'stored'; total: number; estimationThreshold: number | null };

export interface SearchPlan {
  resourceId: string;
  /** How many records the resource holds: what a scan of it costs, for compilers that choose how to run it. */
  resourceRows: number;
  columns: OutputColumn[];
  where: Condition | null;
  /** User sort, or rank order for full-text queries; ties are always broken by `_id` (record order). */
  orderBy: SortKey[];
  distinct: boolean;
  limit: number;
  /**
   * Whether filters or a full-text query select among the records (a keyset page's start, or a seek to a page, does
   * not): a store may then find the candidates first rather than walk an index in the sort's order.
   */
  narrowed: boolean;
  /** Records the store skips (0 when the page is found through an `id-range` condition instead). */
  offset: number;
  count: CountPlan;
  /**
   * The records are wanted whole (`_id` and every field, in stored order, no ranks) as lines of delimited text, as
   * COPY writes them (records_format csv, CSV and TSV dumps): a dialect that can render the line in the database does
   * (one value per row to read, not one per field), and each row then starts with its line. Null: the values.
   */
  delimitedLines: { delimiter: ',' | '\t'; timestampMilliseconds: boolean } | null;
  /**
   * The records are wanted as compact JSON texts (records_format objects or lists, fields only, no ranks, not
   * distinct), rendered in the database as the writers render them: each row then starts with its record's JSON.
   * Planned only when the store's compiler says it renders them (SqlCompiler's `rendersJsonRecords`). Null: the values.
   */
  jsonRecords: { lists: boolean; timestampMilliseconds: boolean } | null;
  /**
   * The keys of the keyset order, when the next page's start is wanted: each row carries their values after its output
   * columns, so that the page's last row says where the next begins.
   */
  keyset: KeysetKey[] | null;
  /**
   * A page after a record (`count_centre_after`): the records `where` selects, as disjoint stretches of an index in the
   * sort's order (see afterSeeks in keyset.ts). A store that keeps that index may read the page from the starts of all
   * of them. Null for any other page.
   */
  afterSeeks: AfterSeek[] | null;
}

/** One stretch of a page after a record: its records, and the order they have in it. */
export interface AfterSeek {
  where: Condition;
  /**
   * The sort's order within the stretch: without the keys it holds equal (or empty), and without an empty-cell
   * placement for the key it ranges over (it holds none), so that a store walks its index in that order.
   */
  orderBy: SortKey[];
}

/**
 * How many records of a view hold each value of one field (a facet): the view's search plan, whose conditions select
 * the records, read as groups of that field's values, the most frequent first.
 */
export interface ValueCountPlan {
  /** The view, selecting the one field counted (its conditions are the view's filters and full-text query). */
  view: SearchPlan;
  field: PlanField;
  /** The most values answered. */
  limit: number;
}
