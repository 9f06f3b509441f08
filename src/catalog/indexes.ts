// Which indexes a resource's fields may have, named the same way in every store and in every report: a field's
// index, or a composite one the catalogue declares. A load builds none of them (only the key and the full-text index);
// they are built once the resource is published, because the catalogue declares them or a query asks for one.

import { compositeIndexName, fieldIndexName, sortIndexName } from './types.js';

/** One index of a resource's fields. */
export interface IndexSpec {
  /** How people name it, in reports and in the store's record of what is built: `"Field"`, or `("A", "B")`. */
  key: string;
  /** Its fields, in order (one for a field's index). */
  fields: string[];
  /** What the stores name it (the embedded store as it is; PostgreSQL from it and the table's name). */
  name: string;
  /** A sort index whose field is descending (then `_id` ascending), as a page sorted by the field descending is. */
  descending?: true;
}

/** What an index is asked for: finding records by a field's values, or sorting by them (ascending, descending). */
export type IndexUse = 'filter' | 'sort' | 'sort descending';

/** Which directions of sort a store builds a field's sort index for (see StorageChoice.sortIndexes). */
export interface SortIndexDirections {
  ascending: boolean;
  descending: boolean;
}

/** What a resource's indexes are worked out from. */
export interface IndexedResource {
  id: string;
  fields: readonly { id: string; index?: boolean }[];
  indexes: readonly (readonly string[])[];
}

/** The key of a field's index, or of a composite one. */
export function indexKey(fields: readonly string[]): string {
  return fields.length === 1 ? `"${fields[0]}"` : `(${fields.map((f) => `"${f}"`).join(', ')})`;
}

/** The key of a field's sort index: `("Field", "_id")`, or `("Field" DESC, "_id")`. */
export function sortIndexKey(fieldId: string, descending: boolean): string {
  return `("${fieldId}"${descending ? ' DESC' : ''}, "_id")`;
}

/** A field's 1-based position, which names its indexes; null for a field the resource does not have. */
function positionOf(resource: IndexedResource, fieldId: string): number | null {
  const index = resource.fields.findIndex((f) => f.id === fieldId);
  return index === -1 ? null : index + 1;
}

/** The index of one of the resource's fields; null for a field it does not have (`_id` is the tables' own key). */
export function fieldIndex(resource: IndexedResource, fieldId: string): IndexSpec | null {
  const position = positionOf(resource, fieldId);
  if (position === null) return null;
  return { key: indexKey([fieldId]), fields: [fieldId], name: fieldIndexName(resource.id, position) };
}

/**
 * A field's sort index, the field (ascending or descending) then `_id`, so that a page sorted by the field, or the next
 * one after a record, is a stretch of it in the page's order (see sortIndexName). Null for a field the resource does
 * not have.
 */
export function sortIndex(resource: IndexedResource, fieldId: string, descending: boolean): IndexSpec | null {
  const position = positionOf(resource, fieldId);
  if (position === null) return null;
  return {
    key: sortIndexKey(fieldId, descending),
    fields: [fieldId, '_id'],
    name: sortIndexName(resource.id, position, descending),
    ...(descending ? { descending: true as const } : {}),
  };
}

/** The indexes the catalogue declares for a resource: its marked fields', then its composite ones, in order. */
export function declaredIndexes(resource: IndexedResource): IndexSpec[] {
  const fields = resource.fields.flatMap((f) => (f.index ? [fieldIndex(resource, f.id)!] : []));
  const composite = resource.indexes.map((ids, n): IndexSpec => ({
    key: indexKey(ids),
    fields: [...ids],
    name: compositeIndexName(resource.id, n + 1),
  }));
  return [...fields, ...composite];
}

/**
 * The resource's indexes with these keys (those a version has built, or those it is to have): a field's, whether the
 * catalogue declares it or a query asked for it, a field's sort index, or a declared composite one. Keys it
 * no longer has are left out.
 */
export function indexesByKey(resource: IndexedResource, keys: Iterable<string>): IndexSpec[] {
  const declared = new Map(declaredIndexes(resource).map((spec) => [spec.key, spec]));
  const specs: IndexSpec[] = [];
  for (const key of keys) {
    const known = declared.get(key);
    const field = /^"(.*)"$/s.exec(key);
    const sorted = /^\("(.*)"( DESC)?, "_id"\)$/s.exec(key);
    const spec =
      known ??
      (field ? fieldIndex(resource, field[1]!) : null) ??
      (sorted ? sortIndex(resource, sorted[1]!, sorted[2] !== undefined) : null);
    if (spec) specs.push(spec);
  }
  return specs;
}
