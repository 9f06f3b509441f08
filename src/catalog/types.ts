// The vocabulary of the catalogue: field types and the shapes of datasets and resources.
// Field type names are PostgreSQL type names, because CKAN reports those in `fields[].type`.

export const FIELD_TYPES = {
  text: { kind: 'text', nativeType: 'text', description: 'Unicode text. An empty cell is the empty string.' },
  numeric: { kind: 'number', nativeType: 'numeric', description: 'A decimal number, sent as a JSON number.' },
  int4: { kind: 'number', nativeType: 'integer', description: 'A 32-bit whole number.' },
  int8: { kind: 'number', nativeType: 'bigint', description: 'A 64-bit whole number.' },
  float8: { kind: 'number', nativeType: 'double precision', description: 'A double-precision floating-point number.' },
  bool: { kind: 'bool', nativeType: 'boolean', description: 'true or false.' },
  date: { kind: 'date', nativeType: 'date', description: 'A calendar date, sent as YYYY-MM-DD.' },
  timestamp: { kind: 'timestamp', nativeType: 'timestamp without time zone', description: 'A date and time without time zone, sent as YYYY-MM-DDTHH:MM:SS.' },
} as const;

export type FieldType = keyof typeof FIELD_TYPES;
export type ValueKind = (typeof FIELD_TYPES)[FieldType]['kind'];

export function isFieldType(name: string): name is FieldType {
  return Object.hasOwn(FIELD_TYPES, name);
}

/** How a source cell spells a date: the catalogue's `format`. */
export const DATE_FORMATS = ['ISO', 'DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

export interface FieldDefinition {
  id: string;
  type: FieldType;
  /** Header of the source column; defaults to `id`. */
  column: string;
  format: DateFormat;
  /** Whether the stores keep an index on it (for filtering and sorting). */
  index: boolean;
}

export interface SourceDefinition {
  /** Relative to the sources setting (a folder or a base URL), or an absolute http(s) URL. */
  path: string;
  /** `auto` detects UTF-8 (with or without BOM) and otherwise reads Windows-1252. */
  encoding: string;
  delimiter: string;
}

export interface ResourceDefinition {
  id: string;
  name: string;
  description: string;
  datasetName: string;
  source: SourceDefinition;
  fields: FieldDefinition[];
  /** Indexes on several fields, for the combinations people filter and sort by (e.g. a party, by votes). */
  indexes: string[][];
}

export interface DatasetDefinition {
  name: string;
  title: string;
  notes: string;
  licenseId: string;
  licenseTitle: string;
  licenseUrl: string;
  attribution: string;
  organization: string;
  resources: ResourceDefinition[];
}

export interface CatalogDefinition {
  /** Text search configuration of each record's whole-row index (CKAN uses the database default, english). */
  fullTextLanguage: string;
  datasets: DatasetDefinition[];
  resources: ResourceDefinition[];
}

/** A field as the API reports it. `_id` is one too, of type `int`. */
export interface FieldInfo {
  id: string;
  type: FieldType | 'int';
  /** Whether any record has no value (null) in it; unknown counts as yes. */
  nullable?: boolean;
}

/** Name of a composite index (1-based, in catalogue order), the same in every store. */
export function compositeIndexName(resourceId: string, position: number): string {
  return `${resourceId}__c${position}`;
}

/** Name of the index a store keeps on a resource's field (1-based position), the same in every store. */
export function fieldIndexName(resourceId: string, position: number): string {
  return `${resourceId}__${position}`;
}

/**
 * CKAN's `_table_metadata`: the list of the store's tables, which clients (ckan.js) search to discover resources.
 * The loader writes it from what it loaded; it belongs to no dataset.
 */
export const TABLE_METADATA: ResourceDefinition = {
  id: '_table_metadata',
  name: 'DataStore tables',
  description: 'One record per resource held in the DataStore: its id (name), a stable number (oid), and alias_of (always null: there are no aliases).',
  datasetName: '',
  source: { path: '', encoding: 'utf-8', delimiter: ',' },
  indexes: [],
  fields: [
    { id: 'name', type: 'text', column: 'name', format: 'ISO', index: true },
    { id: 'oid', type: 'int8', column: 'oid', format: 'ISO', index: true },
    { id: 'alias_of', type: 'text', column: 'alias_of', format: 'ISO', index: false },
  ],
};
