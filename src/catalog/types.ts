// The vocabulary of the catalogue: field types and the shapes of datasets and resources.
// Field type names are PostgreSQL type names, because CKAN reports those in `fields[].type`.

import type { ElectionDefinition, ResourceRole } from '../elections/definition.js';

export const FIELD_TYPES = {
  text: { kind: 'text', nativeType: 'text', description: 'Unicode text. An empty cell is the empty string.' },
  numeric: { kind: 'number', nativeType: 'numeric', description: 'A decimal number, sent as a JSON number.' },
  int4: { kind: 'number', nativeType: 'integer', description: 'A 32-bit whole number.' },
  int8: { kind: 'number', nativeType: 'bigint', description: 'A 64-bit whole number.' },
  float8: { kind: 'number', nativeType: 'double precision', description: 'A double-precision floating-point number.' },
  bool: { kind: 'bool', nativeType: 'boolean', description: 'true or false.' },
  date: { kind: 'date', nativeType: 'date', description: 'A calendar date, sent as YYYY-MM-DD.' },
  timestamp: {
    kind: 'timestamp',
    nativeType: 'timestamp without time zone',
    description: 'A date and time without time zone, sent as YYYY-MM-DDTHH:MM:SS.',
  },
} as const;

export type FieldType = keyof typeof FIELD_TYPES;

export function isFieldType(name: string): name is FieldType {
  return Object.hasOwn(FIELD_TYPES, name);
}

/** How a source cell spells a date: the catalogue's `format`. */
export const DATE_FORMATS = ['ISO', 'DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/**
 * How a source cell spells a number, named by how it writes one thousand two hundred and thirty-four and a half:
 * thousands grouped by commas with a decimal point (English), by points with a decimal comma (most of Europe), or by
 * spaces with a decimal comma (French, Nordic). Digits need not be grouped; a group is always three digits.
 */
export const NUMBER_FORMATS = ['1,234.5', '1.234,5', '1 234,5'] as const;
export type NumberFormat = (typeof NUMBER_FORMATS)[number];

/** A field's `format`: `ISO` (a date as YYYY-MM-DD, a number as JSON writes it), or a date or number format above. */
export type FieldFormat = DateFormat | NumberFormat;

/**
 * CKAN's data dictionary entry for a field (`info`), reported by datastore_info and datastore_search when set: what
 * the field means and, here, where its values come from or why they are empty.
 */
export interface FieldDictionary {
  label: string;
  notes: string;
  type_override: string;
}

export interface FieldDefinition {
  id: string;
  type: FieldType;
  /** Where the value is in the source: a CSV header, a JSON path, or a transform's output column; defaults to `id`. */
  column: string;
  format: FieldFormat;
  /** Whether the stores keep an index on it (for filtering and sorting). */
  index: boolean;
  /** The data dictionary entry; a field without one is reported without `info`, as CKAN does. */
  info?: FieldDictionary | null;
}

/**
 * Files a source reads: paths or patterns (`*` and `?` within a file or folder name), in the order given, each
 * pattern's matches sorted.
 */
export interface FileSetDefinition {
  patterns: string[];
  /**
   * `sources`: under the sources setting (a folder or a base URL); `catalog`: beside the catalogue file, in the
   * repository.
   */
  base: 'sources' | 'catalog';
}

/** Rows read from files by a layout: `csv`, `json`, or a named preset of one of them (e.g. `stv-running-totals`). */
export interface LayoutSourceDefinition {
  kind: 'layout';
  layout: string;
  files: FileSetDefinition;
  /** The single file of a one-file source as the catalogue names it (messages, `_countcentre_resources.source`). */
  path: string;
  /** `auto` detects UTF-8 (with or without BOM) and otherwise reads Windows-1252. */
  encoding: string;
  delimiter: string;
  /**
   * `windows-1252-c1`: C1 control characters left by a wrong conversion are read as the Windows-1252 letters they were.
   */
  repair: 'windows-1252-c1' | null;
  /**
   * For the json layout: the path of the records, `*` standing for every element of an array or member of an object.
   */
  records: string | null;
  /** A reviewed file of corrections applied to the files before they are read (see docs/configuration.md). */
  corrections: FileSetDefinition | null;
  /** For the csv layout: whether a column no field takes stops the load (`error`, the default) or is left unread. */
  extraColumns: 'error' | 'ignore';
  /** For the csv layout: the header's line (1-based); lines above it (a title, a source note) are not read. */
  headerRow: number;
  /**
   * For the csv layout: whether a row with fewer cells than the header stops the load (`error`) or is padded with empty
   * cells (`pad`).
   */
  shortRows: 'error' | 'pad';
  /**
   * For the csv layout: `csv`, quoting as RFC 4180 says; `literal`, quotes are characters (tab-separated files that
   * never quote).
   */
  quotes: 'csv' | 'literal';
  /**
   * For the csv layout: `backslash`, PostgreSQL's and MySQL's text format (`\N` is NULL, backslashes escape, quotes are
   * characters); `none`, backslashes are characters.
   */
  escapes: 'none' | 'backslash';
  /**
   * For the csv layout: `unquoted-empty`, PostgreSQL's CSV as DataStore dumps write it (an unquoted empty cell is NULL,
   * kept in text fields too; `""` the empty string); `NULL`, a cell that is exactly NULL is NULL (SQL tools' exports);
   * `empty`, none of these.
   */
  nulls: 'empty' | 'unquoted-empty' | 'NULL';
  /**
   * For the csv layout: cells that stand for a missing value ("NA", "..", "-"): empty in a field of any type but text,
   * where they are text.
   */
  missing: string[];
  /**
   * For the csv layout: `skip`, the spaces after each delimiter are the separator's, not the cells' (a file separated by
   * ", "), and a quote after them opens a quoted cell; `keep`, they are the cells'.
   */
  leadingSpaces: 'keep' | 'skip';
  /**
   * For the csv layout: a comment mark the header line starts with, as a cell of its own ("# x y z", numpy's savetxt):
   * it names no column. Null: the header has none.
   */
  headerPrefix: string | null;
  /**
   * For the csv layout: the mark comment lines start with ("#"): a line below the header that starts with it is a
   * comment, not a row. Null: every line below the header is a row.
   */
  comments: string | null;
  /**
   * For the json layout: `records`, each record is an element of the document (at `records`); `columns`, the root's
   * members are columns, each an object keyed by row (pandas' orient="columns"), and a record runs across them.
   */
  orient: 'records' | 'columns';
  /** For the xlsx layout: the worksheet to read (null: the first). */
  sheet: string | null;
  /**
   * The column that holds each record's `_id` (as the layout names columns: a header, or a JSON path), so that a table
   * with ids of its own (a DataStore dump) keeps them; null: records are numbered from 1 in file order.
   */
  idColumn: string | null;
}

/** Where a transform's input comes from: an input of the dataset, or another resource of the same dataset. */
export type InputReference = { kind: 'input'; name: string } | { kind: 'resource'; id: string };

/** Rows computed by a named transform, a pure function, from other sources of the same dataset. */
export interface DerivedSourceDefinition {
  kind: 'derived';
  transform: string;
  /** Each of the transform's inputs: one or more tables, read one after the other. */
  inputs: Record<string, InputReference[]>;
  options: Record<string, unknown>;
}

/**
 * Rows copied from a CKAN portal's DataStore through its public API (`count-centre mirror` writes these entries):
 * the resource keeps its upstream id, `_id`s, field types and data dictionary.
 */
export interface CkanSourceDefinition {
  kind: 'ckan';
  /** The portal's base URL (its API is under `api/3/action/`). */
  portal: string;
  /** The upstream resource id. */
  resource: string;
  /**
   * Name of the environment variable holding an API token for the portal (the token itself is never in the catalogue).
   */
  tokenEnv: string | null;
}

export type SourceDefinition = LayoutSourceDefinition | DerivedSourceDefinition | CkanSourceDefinition;

/** A one-file CSV source, as `{"path": …}` in the catalogue declares it. */
export function csvSource(path: string, encoding = 'auto'): LayoutSourceDefinition {
  return {
    kind: 'layout',
    layout: 'csv',
    files: { patterns: path ? [path] : [], base: 'sources' },
    path,
    encoding,
    delimiter: ',',
    repair: null,
    records: null,
    corrections: null,
    extraColumns: 'error',
    headerRow: 1,
    shortRows: 'error',
    quotes: 'csv',
    escapes: 'none',
    nulls: 'empty',
    missing: [],
    leadingSpaces: 'keep',
    headerPrefix: null,
    comments: null,
    orient: 'records',
    sheet: null,
    idColumn: null,
  };
}

/** A named table a dataset's transforms read: a layout source and the typed fields taken from it. */
export interface InputDefinition {
  name: string;
  source: LayoutSourceDefinition;
  fields: FieldDefinition[];
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
  /** In an election dataset, which of its tables this is; null otherwise. */
  role: ResourceRole | null;
}

/** A CKAN `extras` pair of a dataset. */
export interface ExtraDefinition {
  key: string;
  value: string;
}

export interface DatasetDefinition {
  name: string;
  title: string;
  notes: string;
  /** Where the data comes from (CKAN's "Source" field); empty when not given. */
  url: string;
  licenseId: string;
  licenseTitle: string;
  licenseUrl: string;
  attribution: string;
  organization: string;
  /** Set when the dataset holds one election's results. */
  election: ElectionDefinition | null;
  /** Key/value statements package_show lists in `extras` (source, what is unofficial, …), besides `attribution`. */
  extras: ExtraDefinition[];
  /** Named tables the dataset's derived resources read. */
  inputs: Record<string, InputDefinition>;
  resources: ResourceDefinition[];
}

/** A whole portal mirrored: where it is, which organisations' datasets are copied, and the largest table copied. */
export interface PortalDefinition {
  url: string;
  /** Only these organisations' datasets (all when empty). */
  organizations: string[];
  excludeOrganizations: string[];
  /** Resources with more records than this are left to the portal (answered by passing requests through). */
  maxRows: number | null;
  /** Environment variable holding an API token, when one is used. */
  tokenEnv: string | null;
}

export interface CatalogDefinition {
  /** The JSON document it was read from: what a load records with the data, for serving processes to read back. */
  document: unknown;
  /** Text search configuration of each record's whole-row index (CKAN uses the database default, english). */
  fullTextLanguage: string;
  /** The portal this catalogue mirrors whole, when it was written by `count-centre mirror PORTAL --all`. */
  portal: PortalDefinition | null;
  /** Folder of the catalogue file: where files with `base: catalog` (reviewed corrections, lookups) are read from. */
  baseDir: string;
  datasets: DatasetDefinition[];
  resources: ResourceDefinition[];
}

/** A field as the API reports it. `_id` is one too, of type `int`. */
export interface FieldInfo {
  id: string;
  type: FieldType | 'int';
  /** Whether any record has no value (null) in it; unknown counts as yes. */
  nullable?: boolean;
  /** Whether the store has built an index on it so far (`_id` is the tables' own key). */
  indexed?: boolean;
  /** Whether the store has built its ascending sort index (the field, then `_id`: see sortIndexName). */
  sortIndexed?: boolean;
  /** The same, descending (the field descending, then `_id` ascending). */
  sortIndexedDescending?: boolean;
  /** False when no value of this text field needs COPY's quotes (known from loading); unknown counts as yes. */
  quoted?: boolean;
  /** The data dictionary entry, when the field has one. */
  info?: FieldDictionary;
}

/** Name of a composite index (1-based, in catalogue order), the same in every store. */
export function compositeIndexName(resourceId: string, position: number): string {
  return `${resourceId}__c${position}`;
}

/**
 * Name of a field's sort index (1-based position): the field ascending or descending, then `_id` ascending, the order
 * of a page sorted by the field. Built where the field's own index does not give that order: walked backwards, no
 * store's gives a value's records in ascending `_id` order; and PostgreSQL's keeps them in no order a query can use.
 */
export function sortIndexName(resourceId: string, position: number, descending: boolean): string {
  return `${resourceId}__${descending ? 'd' : 's'}${position}`;
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
  description:
    'One record per resource held in the DataStore: its id (name), a stable number (oid), and alias_of (always null: there are no aliases).',
  datasetName: '',
  source: csvSource('', 'utf-8'),
  indexes: [],
  role: null,
  fields: [
    { id: 'name', type: 'text', column: 'name', format: 'ISO', index: true, info: null },
    { id: 'oid', type: 'int8', column: 'oid', format: 'ISO', index: true, info: null },
    { id: 'alias_of', type: 'text', column: 'alias_of', format: 'ISO', index: false, info: null },
  ],
};
