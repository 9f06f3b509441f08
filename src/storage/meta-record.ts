// What both stores' catalogue tables (`_countcentre_meta`, `_countcentre_resources`) say, read into the load's
// records: one mapping from their rows, whichever store returned them (PostgreSQL's bigints come as text).

import type { InputRecord, ResourceLoadRecord, StoreMeta } from './load-target.js';

/** A row of `_countcentre_resources`, as either store returns it. */
export interface ResourceRow {
  id: string;
  source_sha256: string;
  spec_hash: string;
  total: number | string;
  loaded_at: string;
  source: string;
  data_bytes: number | string;
  index_bytes: number | string;
  null_fields: string;
  inputs: string;
  max_id: number | string;
  /** PostgreSQL's table of the load; the embedded store names a resource's table by its id. */
  table_name?: string;
  /** The embedded store's numeric fields that keep exact texts beside their doubles. */
  exact_fields?: string;
  /** The field and composite indexes built so far, and those PostgreSQL refused, by key (JSON lists). */
  built_indexes: string;
  unbuilt_indexes: string;
  /** Text fields with values COPY quotes (JSON); null when not known. */
  quoted_fields: string | null;
}

export function resourceRecord(row: ResourceRow): ResourceLoadRecord {
  return {
    id: row.id,
    sourceSha256: row.source_sha256,
    specHash: row.spec_hash,
    total: Number(row.total),
    loadedAt: row.loaded_at,
    source: row.source,
    dataBytes: Number(row.data_bytes),
    indexBytes: Number(row.index_bytes),
    nullFields: JSON.parse(row.null_fields) as string[],
    table: row.table_name ?? row.id,
    inputs: JSON.parse(row.inputs) as InputRecord[],
    maxId: Number(row.max_id),
    ...(row.exact_fields === undefined ? {} : { exactFields: JSON.parse(row.exact_fields) as string[] }),
    builtIndexes: JSON.parse(row.built_indexes) as string[],
    ...(row.quoted_fields === null ? {} : { quotedFields: JSON.parse(row.quoted_fields) as string[] }),
    ...(row.unbuilt_indexes === '[]' ? {} : { unbuiltIndexes: JSON.parse(row.unbuilt_indexes) as string[] }),
  };
}

/** The store's meta from its key/value rows and its resource rows. */
export function storeMeta(values: ReadonlyMap<string, string>, rows: Iterable<ResourceRow>): StoreMeta {
  const resources = new Map<string, ResourceLoadRecord>();
  for (const row of rows) resources.set(row.id, resourceRecord(row));
  return {
    schemaVersion: Number(values.get('schema_version') ?? 0),
    datasetVersion: values.get('dataset_version') ?? '',
    builtAt: values.get('built_at') ?? '',
    fullTextLanguage: values.get('full_text_language') ?? '',
    databaseBytes: Number(values.get('database_bytes') ?? 0),
    resources,
    catalog: values.get('catalog') ?? '',
  };
}
