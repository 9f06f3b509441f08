// Text-search configurations: which dictionary normalises each token type (as `\dF+ <config>`
// shows), and the two dictionary kinds PostgreSQL uses for them: `simple` and Snowball stemmers.

import { createRequire } from 'node:module';
import { lowerText } from './chars.js';
import { Tok } from './parser.js';
import { stemFrench } from './french.js';
import { STOP_WORDS } from './stopwords.js';

/** Result of a dictionary: the lexemes (empty for a stop word). */
export type Lexize = (token: string) => readonly string[];

interface SnowballStemmer {
  stem(word: string): string;
}
interface SnowballModule {
  newStemmer(language: string): SnowballStemmer;
  algorithms(): string[];
}

const require = createRequire(import.meta.url);
let snowball: SnowballModule | undefined;
function snowballModule(): SnowballModule {
  snowball ??= require('snowball-stemmers') as SnowballModule;
  return snowball;
}

// Bounded so that a load of millions of rows with unbounded vocabulary cannot grow memory
// without limit; clearing wholesale is cheap and keeps the hot vocabulary after a warm-up.
const STEM_CACHE_LIMIT = 50_000;

/** PostgreSQL does not stem words longer than this many bytes (it keeps them, lower-cased). */
const MAX_STEM_BYTES = 1000;

export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 2;
      i++;
    } // surrogate pair: 4 bytes for 2 units
    else n += 2;
  }
  return n;
}

function simpleDictionary(): Lexize {
  return (token) => [lowerText(token)];
}

function snowballDictionary(language: string, stopWords: string | undefined): Lexize {
  // PostgreSQL's Snowball release marks French 'ë' and 'ï', which the older stemmer does not: French is our own.
  const stemmer: SnowballStemmer = language === 'french' ? { stem: stemFrench } : snowballModule().newStemmer(language);
  const stops = new Set(stopWords ? stopWords.split(' ') : []);
  const cache = new Map<string, readonly string[]>();
  const none: readonly string[] = [];
  return (token) => {
    let hit = cache.get(token);
    if (hit !== undefined) return hit;
    const word = lowerText(token);
    if (stops.has(word)) hit = none;
    else if (word.length * 3 > MAX_STEM_BYTES && utf8Length(word) > MAX_STEM_BYTES) hit = [word];
    else hit = [stemmer.stem(word)];
    if (cache.size >= STEM_CACHE_LIMIT) cache.clear();
    cache.set(token, hit);
    return hit;
  };
}

/** A configuration: dictionary per token type id (undefined = the token type is not indexed). */
export interface TextSearchConfig {
  readonly name: string;
  readonly dictionaryFor: ReadonlyArray<Lexize | undefined>;
}

const WORD_TYPES = [Tok.AsciiWord, Tok.Word, Tok.AsciiHWord, Tok.HWord, Tok.HWordAsciiPart, Tok.HWordPart];
const SIMPLE_TYPES = [
  Tok.NumWord,
  Tok.NumHWord,
  Tok.HWordNumPart,
  Tok.Email,
  Tok.Url,
  Tok.Host,
  Tok.UrlPath,
  Tok.File,
  Tok.SFloat,
  Tok.Float,
  Tok.Int,
  Tok.UInt,
  Tok.Version,
];

/**
 * Snowball languages whose stemmer in `snowball-stemmers` agrees with PostgreSQL 15's (checked by
 * test/unit/text-search-differential.test.ts); French is src/text-search/french.ts's, as PostgreSQL's newer Snowball
 * release stems it. Russian is left out: that release also treats 'ё' differently.
 */
const SNOWBALL_LANGUAGES = [
  'arabic',
  'armenian',
  'basque',
  'catalan',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'hungarian',
  'irish',
  'italian',
  'norwegian',
  'portuguese',
  'romanian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
];

const configs = new Map<string, TextSearchConfig>();

function buildConfig(name: string): TextSearchConfig | undefined {
  let words: Lexize;
  const simple = simpleDictionary();
  if (name === 'simple') words = simple;
  else if (SNOWBALL_LANGUAGES.includes(name)) words = snowballDictionary(name, STOP_WORDS[name]);
  else return undefined;
  const map: Array<Lexize | undefined> = new Array<Lexize | undefined>(Tok.Blank + 1).fill(undefined);
  for (const t of WORD_TYPES) map[t] = words;
  for (const t of SIMPLE_TYPES) map[t] = simple;
  return { name, dictionaryFor: map };
}

function normaliseName(name: string): string {
  const n = name.trim().toLowerCase();
  return n.startsWith('pg_catalog.') ? n.slice('pg_catalog.'.length) : n;
}

export function supportedConfigNames(): string[] {
  return ['simple', ...SNOWBALL_LANGUAGES];
}

export function findConfig(name: string): TextSearchConfig | undefined {
  const key = normaliseName(name);
  let cfg = configs.get(key);
  if (!cfg) {
    cfg = buildConfig(key);
    if (cfg) configs.set(key, cfg);
  }
  return cfg;
}

export class UnknownTextSearchConfigError extends Error {
  constructor(name: string) {
    super(`text search configuration "${name}" does not exist`);
    this.name = 'UnknownTextSearchConfigError';
  }
}

export function getConfig(name: string): TextSearchConfig {
  const cfg = findConfig(name);
  if (!cfg) throw new UnknownTextSearchConfigError(name);
  return cfg;
}
