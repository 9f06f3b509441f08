// How a stored row reads as text for the whole-row full-text index, and how its lexemes are keyed in the
// embedded store's candidate index. Mirrors CKAN's "_full_text" trigger: to_tsvector of every non-null value,
// in column order, joined by spaces.

import type { FieldDefinition } from '../catalog/types.js';
import { numberText, type StoredValue } from '../catalog/values.js';
import type { TsVector } from '../text-search/index.js';

export function rowDocument(fields: readonly FieldDefinition[], values: readonly StoredValue[]): string {
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

/**
 * Lexemes are hex-encoded for the FTS5 candidate index so that no tokenizer rule or query syntax can split or
 * misread them, while a prefix of a lexeme's bytes stays a prefix of its key (for `:*` queries).
 */
export function lexemeKey(lexeme: string): string {
  return Buffer.from(lexeme, 'utf8').toString('hex');
}

export function ftsDocument(vector: TsVector): string {
  return vector.entries.map((entry) => lexemeKey(entry.lexeme)).join(' ');
}
