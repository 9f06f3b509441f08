// CKAN's parameter validators, as pure functions: how a value that arrived as a query-string string, a form
// field or a JSON value becomes the typed value an action uses. Each throws ParamProblem with CKAN's wording.

import { messages } from '../errors.js';
import { pythonStr } from '../serialize/python-json.js';
import { parseJsonText } from './json-text.js';

export class ParamProblem extends Error {
  constructor(readonly messages: string[]) {
    super(messages.join('; '));
  }
}

/** A value CKAN's `ignore_missing` / `default` treat as not given. */
export function isMissing(value: unknown): boolean {
  return value === undefined || value === null;
}

/** unicode_safe: text stays text; anything else becomes its Python str(). */
export function toText(value: unknown): string {
  return typeof value === 'string' ? value : pythonStr(value);
}

const TRUE_WORDS = new Set(['true', 'yes', 't', 'y', '1']);

/** boolean_validator: a recognised "true" word is true, and any other string is false (CKAN's rule). */
export function toBoolean(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return TRUE_WORDS.has(value.trim().toLowerCase());
  return false;
}

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

/**
 * int_validator. Whole numbers, whole floats (10.0) and integer strings (" 10 ") pass; anything else is
 * "Invalid integer", and strings also get CKAN's second message, as its limit validator adds one.
 */
export function toInteger(value: unknown, { withEnterMessage = false } = {}): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) return Number(value.trim());
  const problems: string[] = [messages.invalidInteger];
  if (withEnterMessage && typeof value !== 'number') problems.push(messages.enterInteger);
  throw new ParamProblem(problems);
}

/** json_validator: objects and lists pass; text is parsed as JSON. */
export function toJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return parseJsonText(value);
  } catch {
    throw new ParamProblem([messages.cannotParseJson]);
  }
}

/** unicode_or_json_validator: text holding a JSON object becomes that object; any other value becomes text. */
export function toTextOrObject(value: unknown): string | Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  // Only text that opens an object can become one: other text (most searches) is not given to the parser, whose
  // refusal would cost an exception.
  if (typeof value === 'string' && /^\s*\{/.test(value)) {
    try {
      const parsed: unknown = parseJsonText(value);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {
      // Not JSON: a plain search string.
    }
    return value;
  }
  if (typeof value === 'string') return value;
  return toText(value);
}

/** list_of_strings_or_string: a string or a list of strings. */
export function toStringOrList(value: unknown): string | unknown[] {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw new ParamProblem([messages.notAList]);
  for (const item of value) {
    if (typeof item !== 'string' && !Array.isArray(item)) throw new ParamProblem([messages.neitherStringNorList(item)]);
  }
  return value;
}

/**
 * CKAN's get_list: a comma-separated string becomes trimmed pieces (empty pieces kept, so "a,,b" names an
 * empty field); a list is taken as is, each element one item.
 */
export function splitList(value: string | unknown[], { stripQuotes }: { stripQuotes: boolean }): unknown[] {
  if (Array.isArray(value)) return value;
  if (value === '') return [];
  return value.split(',').map((piece) => {
    const trimmed = piece.trim();
    return stripQuotes && trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')
      ? trimmed.slice(1, -1)
      : trimmed;
  });
}
