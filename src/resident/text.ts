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
  tsvectorToString,
  tsRankText,
  type CandidateFilter,
  type TsVector,
} from '../text-search/index.js';
import { intersect, union, type RowSet } from './rows.js';
import { nextTurn, type ResidentColumn } from './table.js';

/**
 * Lexeme → the members (records, or a field's distinct values) whose vector holds it, ascending; `size` members in all.
 * Held as three arrays: the lexemes in PostgreSQL's lexeme order (looked up by halving; those sharing a prefix are
 * neighbours), where each one's members start, and the members end to end. In a table of numbers, dates and names
 * most lexemes are one record's own (its amount, its day); a map of them to a typed array each took three times the
 * memory.
 */
class Postings {
  private readonly lexemes: string[];
  /** Lexeme i's members are members[starts[i]] up to members[starts[i + 1]]. */
  private readonly starts: Int32Array;
  private readonly members: Int32Array;
  /** What the postings hold in memory, roughly. */
  readonly bytes: number;

  constructor(
    build: Map<string, number | number[]>,
    readonly size: number,
  ) {
    this.lexemes = [...build.keys()].sort(compareLexemes);
    let total = 0;
    for (const held of build.values()) total += typeof held === 'number' ? 1 : held.length;
    this.starts = new Int32Array(this.lexemes.length + 1);
    this.members = new Int32Array(total);
    let at = 0;
    let chars = 0;
    this.lexemes.forEach((lexeme, i) => {
      this.starts[i] = at;
      chars += lexeme.length;
      const held = build.get(lexeme)!;
      if (typeof held === 'number') this.members[at++] = held;
      else {
        this.members.set(held, at);
        at += held.length;
      }
    });
    this.starts[this.lexemes.length] = at;
    this.bytes = bytesOfPostings(this.lexemes.length, chars, total);
  }

  /** Position of the first lexeme not before `lexeme`. */
  private lowerBound(lexeme: string): number {
    let lo = 0;
    let hi = this.lexemes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareLexemes(this.lexemes[mid]!, lexeme) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The members of the lexeme at position i (a view: never written to). */
  private list(i: number): Int32Array {
    return this.members.subarray(this.starts[i]!, this.starts[i + 1]!);
  }

  /** Members holding the lexeme, or (prefix) any lexeme that starts with it. */
  private term(lexeme: string, prefix: boolean): Int32Array {
    const first = this.lowerBound(lexeme);
    if (!prefix) return this.lexemes[first] === lexeme ? this.list(first) : EMPTY;
    const found: Int32Array[] = [];
    for (let i = first; i < this.lexemes.length && this.lexemes[i]!.startsWith(lexeme); i++) found.push(this.list(i));
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
   * The postings of each item's vector (item i is member i), made a few hundred items per turn of the event loop.
   */
  static async build<T>(items: readonly T[], vector: (item: T) => TsVector, perTurn: number): Promise<Postings> {
    // A lexeme of one member is held as the number while building: most are, and an array each would double the
    // memory the build needs at its peak.
    const build = new Map<string, number | number[]>();
    for (let member = 0; member < items.length; member++) {
      const made = vector(items[member]!);
      // A vector holds each lexeme once, so a member is added to a lexeme's list at most once, in ascending order.
      for (const { lexeme } of made.entries) {
        const held = build.get(lexeme);
        if (held === undefined) build.set(lexeme, member);
        else if (typeof held === 'number') build.set(lexeme, [held, member]);
        else held.push(member);
      }
      if ((member + 1) % perTurn === 0) await nextTurn();
    }
    return new Postings(build, items.length);
  }
}

/**
 * Heap bytes of postings as V8 holds them: per lexeme its string (a header of about 24 bytes, and its characters), its
 * slot in the sorted list and its start; 4 bytes per member.
 */
function bytesOfPostings(lexemes: number, lexemeChars: number, members: number): number {
  return lexemes * (24 + 8 + 4) + lexemeChars + members * 4;
}

const EMPTY = new Int32Array(0);

/** Text whose characters all fit in one byte each. */
const LATIN1 = /^[\u0000-\u00ff]*$/;

/**
 * The vectors of an index's members (records, or a field's distinct values) held as their texts, with about the bytes
 * V8 takes for them: one byte a character where every character fits in one. V8 keeps a string built from two-byte
 * pieces (a stemmer's output, an accented name's) two bytes a character even when none needs two, and these texts are
 * most of a resident table's full-text memory. A member's vector is parsed when it is tested; the one parsed last is
 * kept, as matching and ranking one member read it back to back.
 */
class VectorTexts {
  private readonly texts: string[] = [];
  private last: { member: number; vector: TsVector } | null = null;
  bytes = 0;

  get length(): number {
    return this.texts.length;
  }

  add(text: string): void {
    const oneByte = LATIN1.test(text);
    this.texts.push(oneByte ? Buffer.from(text, 'latin1').toString('latin1') : text);
    this.bytes += 24 + text.length * (oneByte ? 1 : 2);
  }

  vector(member: number): TsVector {
    if (this.last?.member !== member) this.last = { member, vector: parseTsvector(this.texts[member]!) };
    return this.last.vector;
  }

  /** ts_rank of the member's vector, read from its text where that is enough. */
  rank(member: number, query: TextQuery, normalization: number): number {
    return tsRankText(this.texts[member]!, query.query, normalization, () => this.vector(member));
  }
}

/** Records made into vectors per turn of the event loop while an index is built (about a millisecond's work). */
const RECORDS_PER_TURN = 128;
/** The same for a field's values: to_tsvector costs more than reading a vector's text. */
const VALUES_PER_TURN = 16;

/** The whole-record index: each record's `_full_text`, and its lexemes' postings. */
export class RecordText {
  /** The texts and the postings of their lexemes, roughly as V8 holds them. */
  readonly bytes: number;

  private constructor(
    private readonly texts: VectorTexts,
    private readonly postings: Postings,
  ) {
    this.bytes = texts.bytes + postings.bytes;
  }

  static async build(made: readonly string[]): Promise<RecordText> {
    const texts = new VectorTexts();
    for (const text of made) texts.add(text);
    const postings = await Postings.build(made, (text) => parseTsvector(text), RECORDS_PER_TURN);
    return new RecordText(texts, postings);
  }

  /** Records the query matches; `step` is called for each record tested one by one. */
  matches(query: TextQuery, step: () => void): RowSet {
    const candidates = this.postings.candidates(query.candidates);
    if (query.candidatesExact) return candidates;
    const kept: number[] = [];
    const test = (row: number) => {
      step();
      if (tsMatches(this.texts.vector(row), query.query)) kept.push(row);
    };
    if (candidates === null) for (let row = 0; row < this.texts.length; row++) test(row);
    else for (const row of candidates) test(row);
    return Int32Array.from(kept);
  }

  /** ts_rank(_full_text, query, normalization), as the stores compute it. */
  rank(row: number, query: TextQuery, normalization: number): number {
    return this.texts.rank(row, query, normalization);
  }
}

/**
 * One field's values as documents of one text search configuration: each distinct value's vector, made once and held
 * as its text (parsed again when a value is tested one by one; a word's rank is read from the text).
 */
export class FieldText {
  private constructor(
    private readonly column: ResidentColumn,
    private readonly texts: VectorTexts,
    private readonly postings: Postings,
  ) {}

  static async build(column: ResidentColumn, config: string): Promise<FieldText> {
    const texts = new VectorTexts();
    // A distinct value is never null, nor is its text.
    const postings = await Postings.build(
      column.index.distinct,
      (value) => {
        const vector = toTsvector(config, searchableText(value, column.field.type)!);
        texts.add(tsvectorToString(vector));
        return vector;
      },
      VALUES_PER_TURN,
    );
    return new FieldText(column, texts, postings);
  }

  /** The texts and postings, roughly as V8 holds them. */
  get bytes(): number {
    return this.texts.bytes + this.postings.bytes;
  }

  /** Records whose value matches: values are tested, not records (`step` for each), and their records gathered. */
  matches(query: TextQuery, step: () => void): RowSet {
    const candidates = this.postings.candidates(query.candidates);
    const { order, start } = this.column.index;
    const groups: Int32Array[] = [];
    const take = (member: number) => {
      step();
      if (query.candidatesExact || tsMatches(this.texts.vector(member), query.query))
        groups.push(order.subarray(start[member + 1]!, start[member + 2]!));
    };
    if (candidates === null) for (let member = 0; member < this.texts.length; member++) take(member);
    else for (const member of candidates) take(member);
    return union(groups, this.column.values.length);
  }

  /** ts_rank of the record's value (0 for an empty cell, which matches nothing). */
  rank(row: number, query: TextQuery, normalization: number): number {
    const r = this.column.index.rank[row]!;
    return r === 0 ? 0 : this.texts.rank(r - 1, query, normalization);
  }
}
