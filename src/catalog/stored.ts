// What a load recorded about each resource it stored, as the catalogue shows it (resource_show, datastore_info): the
// stores write and read these records; the catalogue only reads them, and so knows no store.

/** One file a resource was loaded from: its name, checksum and size, and what it says of its own origin. */
export interface InputRecord {
  path: string;
  sha256: string;
  bytes: number;
  /** Title and address of the page the file's content was taken from, when the file names them. */
  title?: string;
  url?: string;
  /** For a mirrored resource: what the last probe of the upstream saw, to tell a reload in progress from a change. */
  upstream?: {
    total: number;
    maxId: number;
    fieldsHash: string;
    modified: string | null;
    /** The table's oid in `_table_metadata`, where the portal lets it be read: a new one is a reload. */
    oid?: string | null;
    /** Hashes of the copy's blocks of `_id`s, for a refresh to find what changed (see src/portal/changes.ts). */
    blocks?: { method: 'sql' | 'rows'; size: number; blocks: [number, number, string][] };
  };
}

/** What the loader recorded about one loaded resource. */
export interface LoadedResource {
  id: string;
  total: number;
  loadedAt: string;
  sourceSha256: string;
  source: string;
  dataBytes: number;
  indexBytes: number;
  nullFields: readonly string[];
  /**
   * Text fields with a value that COPY quotes (empty, or holding a comma, tab, quote or line break); absent: unknown,
   * so any may. Lines of delimited text skip the test for the others.
   */
  quotedFields?: readonly string[];
  /** Numeric fields of which the embedded store keeps exact texts beside the doubles (see ResourceLoadRecord). */
  exactFields?: readonly string[];
  /** The files the records were read or derived from, with what each says of its origin. */
  inputs?: readonly InputRecord[];
  /** The largest `_id` (0 or absent: `total`, as for records numbered 1…total). */
  maxId?: number;
  /** The field and composite indexes built so far, by key (src/catalog/indexes.ts); the rest are still to come. */
  builtIndexes?: readonly string[];
}
