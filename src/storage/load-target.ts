// What the loader needs from a store, whichever it is: what the store holds now, and a load session that keeps,
// loads and finally publishes resources so that readers see either the old data or the new, never a mixture.

import type { ResourceDefinition } from '../catalog/types.js';
import type { IndexSpec } from '../catalog/indexes.js';
import type { InputRecord } from '../catalog/stored.js';
import type { StoredValue } from '../catalog/values.js';

export type { InputRecord };

export interface ResourceLoadRecord {
  id: string;
  /** The source file's SHA-256, or for several files one checksum of them all (see src/ingest/files.ts). */
  sourceSha256: string;
  /** Hash of the catalogue entry (fields, types, parsing) the data was loaded with. */
  specHash: string;
  total: number;
  loadedAt: string;
  source: string;
  /** Bytes of the table, and of its indexes (full-text index included), measured after the load. */
  dataBytes: number;
  indexBytes: number;
  /** Fields with at least one empty (null) cell; sorting on the others need not place nulls. */
  nullFields: string[];
  /** Text fields with a value that COPY would quote; absent when not known (see LoadedResource). */
  quotedFields?: string[];
  /**
   * The table that holds this version of the resource. The embedded store names it by the resource id (each version
   * is a file of its own); PostgreSQL gives each load's table a name of its own, so that requests still reading the
   * previous version find it until they are done.
   */
  table: string;
  /** Every file the resource's records were read or derived from (none recorded for the store's own tables). */
  inputs?: InputRecord[];
  /**
   * The largest `_id`. Records read from files are numbered 1…total, so it equals `total`; a mirrored resource keeps
   * its upstream `_id`s, which may have gaps (0: recorded before this was kept, read as `total`).
   */
  maxId: number;
  /**
   * Numeric fields holding a value whose text is more than its double's shortest digits ("12.50"): the embedded
   * store keeps their exact texts beside the doubles. PostgreSQL's numeric keeps every digit, and records none.
   */
  exactFields?: string[];
  /**
   * The field and composite indexes built on this version so far, by key (`"Field"`, `("A", "B")`: see
   * src/catalog/indexes.ts). A load builds only the key and the full-text index; the others are built after the
   * resource is published (src/ingest/indexes.ts), and a patch keeps those its version had.
   */
  builtIndexes: string[];
  /**
   * Indexes left out (by key), because PostgreSQL refused a value as too long for a B-tree key (about 2,700 bytes).
   * Searches on their fields stay right, only slower. Kept with the resource, so that they are not tried again.
   */
  unbuiltIndexes?: string[];
}

export interface StoreMeta {
  schemaVersion: number;
  datasetVersion: string;
  builtAt: string;
  fullTextLanguage: string;
  databaseBytes: number;
  resources: Map<string, ResourceLoadRecord>;
  /** The catalogue (JSON text) the data was loaded with: what serving processes describe the data by. */
  catalog: string;
}

/** What a load publishes besides its tables. */
export interface Publication {
  datasetVersion: string;
  /** The catalogue the published data was loaded with, as JSON text. */
  catalog: string;
}

/** `_id`s from `from` to `to`, both included. */
export interface IdRange {
  from: number;
  to: number;
}

export interface ResourceSink {
  /**
   * Appends one record. Its `_id` is `id` when given (a mirror keeps the upstream's), otherwise its position in the
   * source, from 1; either way `_id`s must increase. A promise asks the caller to wait (back-pressure).
   */
  insert(values: readonly StoredValue[], id?: number): void | Promise<void>;
  readonly count: number;
}

export type LoadBase = Pick<ResourceLoadRecord, 'id' | 'sourceSha256' | 'specHash' | 'source' | 'inputs'>;

export interface LoadSession {
  /** Keeps a resource as the store holds it (its source is unchanged, or its new source failed to load). */
  keep(resource: ResourceDefinition, record: ResourceLoadRecord): Promise<void>;
  /** Loads a resource through `fill`; if `fill` throws, nothing of the attempt remains and the error is rethrown. */
  load(
    resource: ResourceDefinition,
    base: LoadBase,
    fill: (sink: ResourceSink) => Promise<void>,
  ): Promise<ResourceLoadRecord>;
  /**
   * Makes a resource's next version from its published one (`previous`): the records with `_id`s in `ranges` are
   * removed, then `fill` adds their replacements (increasing `_id`s, inside the ranges). As `load`, all or nothing:
   * if `fill` throws, nothing of the attempt remains; readers see the patched table only once `commit` publishes it.
   */
  patch(
    resource: ResourceDefinition,
    base: LoadBase,
    previous: ResourceLoadRecord,
    ranges: readonly IdRange[],
    fill: (sink: ResourceSink) => Promise<void>,
  ): Promise<ResourceLoadRecord>;
  /**
   * Publishes everything kept or loaded, with the catalogue that describes it, at once; resources neither kept nor
   * loaded stop being served.
   */
  commit(publication: Publication): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Builds field and composite indexes on the published data, which stays as it is: readers see each resource's new
 * indexes when the session commits (the embedded store publishes a new file) or as each is built (PostgreSQL builds
 * them concurrently, in place).
 */
export interface IndexSession {
  /**
   * Builds `specs` on a published resource (`record`: as the store holds it); returns the record as it now stands:
   * the keys built, and those PostgreSQL refused (a value too long for a B-tree key), in `unbuiltIndexes`.
   */
  index(
    resource: ResourceDefinition,
    record: ResourceLoadRecord,
    specs: readonly IndexSpec[],
  ): Promise<ResourceLoadRecord>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export interface LoadTarget {
  /** What the store holds, or null when it holds nothing usable (missing, or written with another layout). */
  readMeta(): Promise<StoreMeta | null>;
  /**
   * The layout version a store records when it is another than this build's (a store written by an earlier or later
   * Count Centre, which readMeta does not read and a load rebuilds); null when there is no store, or it is this one's.
   */
  otherLayout(): Promise<{ found: number; current: number } | null>;
  begin(fullTextLanguage: string): Promise<LoadSession>;
  /** A session building indexes on what is published; null while a load or another index build holds the store. */
  beginIndexing(): Promise<IndexSession | null>;
  close(): Promise<void>;
}
