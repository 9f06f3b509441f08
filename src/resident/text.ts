// Full-text search over a resident table, with PostgreSQL's semantics (src/text-search/): which records a query
// matches and how each ranks. The whole-record index is each record's stored `_full_text`; a field's is made from
// its distinct values, each turned into a tsvector once, as PostgreSQL's to_tsvector(config, value::text) would.

import { searchableText } from '../catalog/values.js';
import type { TextQuery } from '../query/plan.js';
import {
  compareLexemes,
  parseTsvector,
  toTsvector,
  tsMatches,
  tsRank,
  tsRankText,
  type CandidateFilter,
  type TsVector,
} from '../text-search/index.js';
import { intersect, union, type RowSet } from './rows.js';
import { nextTurn, type ResidentColumn } from './table.js';

/**
 * Lexeme → the members (records, or a field's distinct values) whose vector holds it, ascending; `size` members in all.
 */
class Postings {
  private readonly lists = new Map<string, Int32Array>();
  /** Every lexeme, in PostgreSQL's lexeme order: those sharing a prefix are neighbours. */
  private readonly lexemes: string[];

  constructor(
    build: Map<string, number[]>,
    readonly size: number,
  ) {
    for (const [lexeme, members] of build) this.lists.set(lexeme, Int32Array.from(members));
    this.lexemes = [...build.keys()].sort(compareLexemes);
  }

  /** Members holding the lexeme, or (prefix) any lexeme that starts with it. */
  private term(lexeme: string, prefix: boolean): Int32Array {
    if (!prefix) return this.lists.get(lexeme) ?? EMPTY;
    let lo = 0;
    let hi = this.lexemes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareLexemes(this.lexemes[mid]!, lexeme) < 0) lo = mid + 1;
      else hi = mid;
    }
    const found: Int32Array[] = [];
    for (let i = lo; i < this.lexemes.length && this.lexemes[i]!.startsWith(lexeme); i++)
      found.push(this.lists.get(this.lexemes[i]!)!);
    return union(found, this.size);
  }

  /** The members a candidate filter admits (null: every member). */
  candidates(filter: CandidateFilter): RowSet {
    switch (filter.kind) {
      case 'all':
        return null;
      case 'none':
        return EMPTY;
      case 'term':
        return this.term(filter.lexeme, filter.prefix);
      case 'and':
        return intersect(filter.of.map((f) => this.candidates(f)));
      case 'or': {
        const parts = filter.of.map((f) => this.candidates(f));
        return parts.includes(null) ? null : union(parts as Int32Array[], this.size);
      }
    }
  }

  /**
   * The postings of each item's vector (item i is member i), made a few hundred items per turn of the event loop;
   * `kept` receives the vectors, for an index that needs them again.
   */
  static async build<T>(
    items: readonly T[],
    vector: (item: T) => TsVector,
    perTurn: number,
    kept?: TsVector[],
  ): Promise<Postings> {
    const build = new Map<string, number[]>();
    for (let member = 0; member < items.length; member++) {
      const made = vector(items[member]!);
      kept?.push(made);
      for (const entry of made.entries) {
        const list = build.get(entry.lexeme);
        if (list) list.push(member);
        else build.set(entry.lexeme, [member]);
      }
      if ((member + 1) % perTurn === 0) await nextTurn();
    }
    return new Postings(build, items.length);
  }
}

const EMPTY = new Int32Array(0);

/** Records made into vectors per turn of the event loop while an index is built (about a millisecond's work). */
const RECORDS_PER_TURN = 128;
/** The same for a field's values: to_tsvector costs more than reading a vector's text. */
const VALUES_PER_TURN = 16;

/** The whole-record index: each record's `_full_text`, and its lexemes' postings. */
export class RecordText {
  /** The parsed vector of the record read last: matching and ranking one record read it back to back. */
  private last: { row: number; vector: TsVector } | null = null;
  /** The texts, and about as much again for the postings of their lexemes. */
  readonly bytes: number;

  private constructor(
    private readonly texts: readonly string[],
    private readonly postings: Postings,
  ) {
    let chars = 0;
    for (const text of texts) chars += text.length + 24;
    this.bytes = chars * 2;
  }

  static async build(texts: readonly string[]): Promise<RecordText> {
    return new RecordText(texts, await Postings.build(texts, (text) => parseTsvector(text), RECORDS_PER_TURN));
  }

  private vector(row: number): TsVector {
    if (this.last?.row !== row) this.last = { row, vector: parseTsvector(this.texts[row]!) };
    return this.last.vector;
  }

  /** Records the query matches; `step` is called for each record tested one by one. */
  matches(query: TextQuery, step: () => void): RowSet {
    const candidates = this.postings.candidates(query.candidates);
    if (query.candidatesExact) return candidates;
    const kept: number[] = [];
    const test = (row: number) => {
      step();
      if (tsMatches(this.vector(row), query.query)) kept.push(row);
    };
    if (candidates === null) for (let row = 0; row < this.texts.length; row++) test(row);
    else for (const row of candidates) test(row);
    return Int32Array.from(kept);
  }

  /** ts_rank(_full_text, query, normalization), as the stores compute it. */
  rank(row: number, query: TextQuery, normalization: number): number {
    return tsRankText(this.texts[row]!, query.query, normalization, () => this.vector(row));
  }
}

/** One field's values as documents of one text search configuration: each distinct value's vector, made once. */
export class FieldText {
  private constructor(
    private readonly column: ResidentColumn,
    private readonly vectors: readonly TsVector[],
    private readonly postings: Postings,
  ) {}

  static async build(column: ResidentColumn, config: string): Promise<FieldText> {
    const { distinct } = column.index;
    const vectors: TsVector[] = [];
    // A distinct value is never null, nor is its text.
    const postings = await Postings.build(
      distinct,
      (value) => toTsvector(config, searchableText(value, column.field.type)!),
      VALUES_PER_TURN,
      vectors,
    );
    return new FieldText(column, vectors, postings);
  }

  get bytes(): number {
    return this.vectors.length * 96;
  }

  /** Records whose value matches: values are tested, not records (`step` for each), and their records gathered. */
  matches(query: TextQuery, step: () => void): RowSet {
    const candidates = this.postings.candidates(query.candidates);
    const { order, start } = this.column.index;
    const groups: Int32Array[] = [];
    const take = (member: number) => {
      step();
      if (query.candidatesExact || tsMatches(this.vectors[member]!, query.query))
        groups.push(order.subarray(start[member + 1]!, start[member + 2]!));
    };
    if (candidates === null) for (let member = 0; member < this.vectors.length; member++) take(member);
    else for (const member of candidates) take(member);
    return union(groups, this.column.values.length);
  }

  /** ts_rank of the record's value (0 for an empty cell, which matches nothing). */
  rank(row: number, query: TextQuery, normalization: number): number {
    const r = this.column.index.rank[row]!;
    return r === 0 ? 0 : tsRank(this.vectors[r - 1]!, query.query, normalization);
  }
}
