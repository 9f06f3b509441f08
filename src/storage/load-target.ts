// What the loader needs from a store, whichever it is: what the store holds now, and a load session that keeps,
// loads and finally publishes resources so that readers see either the old data or the new, never a mixture.

import type { ResourceDefinition } from '../catalog/types.js';
import type { StoredValue } from '../catalog/values.js';

export interface ResourceLoadRecord {
  id: string;
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
}

export interface StoreMeta {
  schemaVersion: number;
  datasetVersion: string;
  builtAt: string;
  fullTextLanguage: string;
  databaseBytes: number;
  resources: Map<string, ResourceLoadRecord>;
}

export interface ResourceSink {
  /** Appends one record; `_id` is its position in the source, from 1. A promise asks the caller to wait (back-pressure). */
  insert(values: readonly StoredValue[]): void | Promise<void>;
  readonly count: number;
}

export type LoadBase = Pick<ResourceLoadRecord, 'id' | 'sourceSha256' | 'specHash' | 'source'>;

/** Notes which fields receive a null while records are loaded. */
export function nullTracker(fieldIds: readonly string[]): { see(values: readonly StoredValue[]): void; fields(): string[] } {
  const seen = new Array<boolean>(fieldIds.length).fill(false);
  return {
    see(values) {
      for (let i = 0; i < values.length; i++) if (values[i] === null) seen[i] = true;
    },
    fields: () => fieldIds.filter((_, i) => seen[i]),
  };
}

export interface LoadSession {
  /** Keeps a resource as the store holds it (its source is unchanged, or its new source failed to load). */
  keep(resource: ResourceDefinition, record: ResourceLoadRecord): Promise<void>;
  /** Loads a resource through `fill`; if `fill` throws, nothing of the attempt remains and the error is rethrown. */
  load(resource: ResourceDefinition, base: LoadBase, fill: (sink: ResourceSink) => Promise<void>): Promise<ResourceLoadRecord>;
  /** Publishes everything kept or loaded, at once; resources neither kept nor loaded stop being served. */
  commit(datasetVersion: string): Promise<void>;
  abort(): Promise<void>;
}

export interface LoadTarget {
  /** What the store holds, or null when it holds nothing usable (missing, or written with another layout). */
  readMeta(): Promise<StoreMeta | null>;
  begin(fullTextLanguage: string): Promise<LoadSession>;
  close(): Promise<void>;
}
