// How a stored row reads as text for the whole-row full-text index, and how its lexemes are keyed in the
// embedded store's candidate index. Mirrors CKAN's "_full_text" trigger: to_tsvector of every non-null value,
// in column order, joined by spaces; accents are folded first (foldText), as queries are, so names are found
// without their fadas.

import type { FieldType } from './types.js';
import { numberText, type StoredValue } from './values.js';
import { foldText, lexemeKey, lexizeText, toTsvector, TsvectorBuilder, type TsVector } from '../text-search/index.js';

/** What the row's text needs of a field: its type, which decides how a value prints. */
export interface RowTextField {
  type: FieldType;
}

export function rowDocument(fields: readonly RowTextField[], values: readonly StoredValue[]): string {
  const parts: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) continue;
    if (typeof value === 'number') parts.push(numberText(value, fields[i]!.type));
    else if (typeof value === 'boolean') parts.push(value ? 'true' : 'false');
    else parts.push(value);
  }
  return parts.join(' ');
}

interface ValueLexemes {
  lexemes: string[];
  positions: number[];
  /** Positions the value takes in a document. */
  width: number;
  /** Whether the value has a "<", which may open markup that spans the spaces between values. */
  markup: boolean;
  /** Its lexemes' keys in the candidate index, space-separated (made when a document first needs them). */
  keys?: string;
}

/**
 * Makes each row's whole-record tsvector, equal to to_tsvector(language, foldText(rowDocument(...))), from its values'
 * lexemes (folding works letter by letter, so folding each value folds the document).
 * Columns repeat their values (constituencies, parties, names) across a resource, so each value's lexemes are
 * worked out once and kept in a bounded cache: the parser and stemmer then run on a small share of the cells.
 * That is exact because PostgreSQL's parser ends every token at a space, so a space-joined document lexizes as its
 * parts do, positions running on — except for markup: a tag (`<a href="x y">`) or comment can span spaces, so a
 * row with a "<" in any value is lexized whole.
 */
export class RowVectorizer {
  /** Values longer than this are rarely repeated: lexized every time, not cached. */
  private static readonly MAX_CACHED_CHARS = 100;
  private static readonly MAX_CACHED_VALUES = 200_000;
  /**
   * A field whose values missed the cache this many times while hitting it less than a twentieth as often is seldom
   * repeated (ids, amounts, free text): its values are then lexized without the cache, which they would only churn.
   */
  private static readonly CACHE_TRIAL = 20_000;
  private readonly cache = new Map<string, ValueLexemes>();
  private readonly caching: { on: boolean; hits: number; misses: number }[];

  constructor(
    private readonly language: string,
    private readonly fields: readonly RowTextField[],
  ) {
    this.caching = fields.map(() => ({ on: true, hits: 0, misses: 0 }));
  }

  vector(values: readonly StoredValue[]): TsVector {
    const builder = new TsvectorBuilder();
    let offset = 0;
    for (let i = 0; i < this.fields.length; i++) {
      const value = values[i];
      if (value === null || value === undefined) continue;
      const text =
        typeof value === 'string'
          ? value
          : typeof value === 'number'
            ? numberText(value, this.fields[i]!.type)
            : value
              ? 'true'
              : 'false';
      if (typeof value === 'number' && NUMBER_TOKEN.test(text)) {
        // A number prints as one token ("uint", "int", "float" or "sfloat"), which every configuration passes through
        // the simple dictionary unchanged: no need to lexize it, or to cache values that may never repeat.
        offset += 1;
        builder.add(text, offset);
        continue;
      }
      const stamp = this.fields[i]!.type === 'timestamp' ? timestampTokens(text) : null;
      if (stamp) {
        // A timestamp prints as six tokens (see timestampTokens), each passed through unchanged: like a date's, they
        // seldom repeat, and this keeps them off the parser and the cache.
        for (let k = 0; k < stamp.length; k++) builder.add(stamp[k]!, offset + k + 1);
        offset += stamp.length;
        continue;
      }
      const date = this.fields[i]!.type === 'date' ? DATE_TOKENS.exec(text) : null;
      if (date) {
        // A date prints as three number tokens ("2019", "-04", "-14"), passed through unchanged like a number's: dates
        // seldom repeat in some tables (a day per row), and this keeps them off the parser and the cache.
        builder.add(date[1]!, offset + 1);
        builder.add(date[2]!, offset + 2);
        builder.add(date[3]!, offset + 3);
        offset += 3;
        continue;
      }
      const words = this.lexemesOf(text, i);
      if (words.markup) return toTsvector(this.language, foldText(rowDocument(this.fields, values)));
      for (let j = 0; j < words.lexemes.length; j++) builder.add(words.lexemes[j]!, offset + words.positions[j]!);
      offset += words.width;
    }
    return builder.build();
  }

  /**
   * The row's document in the embedded store's candidate index (ftsDocument of its vector), made without the vector:
   * the index records only which lexemes a row holds, so each value's keys are joined as they come (a lexeme in two
   * values is simply named twice), and a value's keys are worked out once, with its lexemes.
   */
  document(values: readonly StoredValue[]): string {
    let document = '';
    for (let i = 0; i < this.fields.length; i++) {
      const value = values[i];
      if (value === null || value === undefined) continue;
      let keys: string;
      if (typeof value === 'number') {
        const text = numberText(value, this.fields[i]!.type);
        if (NUMBER_TOKEN.test(text)) keys = lexemeKey(text);
        else keys = this.keysOf(text, i);
      } else if (typeof value === 'boolean') keys = this.keysOf(value ? 'true' : 'false', i);
      else {
        const type = this.fields[i]!.type;
        const stamp = type === 'timestamp' ? timestampTokens(value) : null;
        const date = type === 'date' ? DATE_TOKENS.exec(value) : null;
        keys = stamp
          ? stamp.map(lexemeKey).join(' ')
          : date
            ? `${lexemeKey(date[1]!)} ${lexemeKey(date[2]!)} ${lexemeKey(date[3]!)}`
            : this.keysOf(value, i);
      }
      if (keys === MARKUP) return ftsDocument(toTsvector(this.language, foldText(rowDocument(this.fields, values))));
      if (keys !== '') document = document === '' ? keys : `${document} ${keys}`;
    }
    return document;
  }

  /** A text value's lexemes' keys; MARKUP when the row must be lexized whole (see `vector`). */
  private keysOf(text: string, field: number): string {
    const words = this.lexemesOf(text, field);
    if (words.markup) return MARKUP;
    if (words.keys === undefined) {
      let keys = '';
      for (const lexeme of words.lexemes) keys = keys === '' ? lexemeKey(lexeme) : `${keys} ${lexemeKey(lexeme)}`;
      words.keys = keys;
    }
    return words.keys;
  }

  private lexemesOf(text: string, field: number): ValueLexemes {
    const caching = this.caching[field]!;
    const cached = caching.on ? this.cache.get(text) : undefined;
    if (cached) {
      caching.hits += 1;
      return cached;
    }
    const lexemes: string[] = [];
    const positions: number[] = [];
    const width = lexizeText(this.language, foldText(text), (lexeme, pos) => {
      lexemes.push(lexeme);
      positions.push(pos);
    });
    const words = { lexemes, positions, width, markup: text.includes('<') };
    if (caching.on) {
      caching.misses += 1;
      if (caching.misses === RowVectorizer.CACHE_TRIAL && caching.hits < caching.misses / 20) caching.on = false;
    }
    if (caching.on && text.length <= RowVectorizer.MAX_CACHED_CHARS) {
      if (this.cache.size >= RowVectorizer.MAX_CACHED_VALUES) this.cache.clear();
      // Arrays grown by push keep room for 16 more elements: copies of their exact size make a full cache of
      // 200,000 three-word values 55 MB instead of 96 MB, which a load's peak memory carries.
      this.cache.set(text, { ...words, lexemes: words.lexemes.slice(), positions: words.positions.slice() });
    }
    return words;
  }
}

/** Said by keysOf for a value that may open markup: the whole row is then lexized at once. */
const MARKUP = '\u0000markup';

/** A timestamp's text as the stores write it, YYYY-MM-DDTHH:MM:SS with any fraction of a second. */
const TIMESTAMP_TOKENS = /^(\d{4})(-\d{2})(-\d{2})T(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)$/;

/**
 * The tokens PostgreSQL's parser reads in a timestamp's text, which every configuration passes through unchanged
 * (numbers, and the hour as a word of letters and digits): "2019", "-04", "-14", "t09", "30", "05.5"; null for another
 * form (see row-vectorizer tests).
 */
function timestampTokens(text: string): string[] | null {
  const m = TIMESTAMP_TOKENS.exec(text);
  return m ? [m[1]!, m[2]!, m[3]!, `t${m[4]!}`, m[5]!, m[6]!] : null;
}

/** A date's text as the stores write it: PostgreSQL's parser reads it as three tokens (see row-vectorizer tests). */
const DATE_TOKENS = /^(\d{4})(-\d{2})(-\d{2})$/;

/** A number's text as numberText writes it, which PostgreSQL's parser reads as one token (see row-vectorizer tests). */
const NUMBER_TOKEN = /^-?\d+(?:\.\d+)?(?:e[+-]\d+)?$/;

export function ftsDocument(vector: TsVector): string {
  return vector.entries.map((entry) => lexemeKey(entry.lexeme)).join(' ');
}
