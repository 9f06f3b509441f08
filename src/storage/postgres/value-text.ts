// A stored value as PostgreSQL reads it in text form: what the loader's COPY lines and a patch's parameters both send.

import type { FieldType } from '../../catalog/types.js';
import { numberText, type StoredValue } from '../../catalog/values.js';

/** The value's text for a column of `type`; null for SQL NULL. */
export function valueText(value: StoredValue, type: FieldType): string | null {
  if (value === null) return null;
  if (typeof value === 'number') return numberText(value, type);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return value;
}
