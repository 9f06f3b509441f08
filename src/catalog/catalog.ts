// The catalogue at run time: each served resource's definition joined with what the loader stored for it
// (record count, load time). A resource the catalogue declares but the store does not hold is not served.

import { createHash } from 'node:crypto';
import { indexKey, sortIndexKey } from './indexes.js';
import type { LoadedResource } from './stored.js';
import {
  TABLE_METADATA,
  type CatalogDefinition,
  type DatasetDefinition,
  type FieldInfo,
  type ResourceDefinition,
} from './types.js';

export interface CatalogResource {
  id: string;
  definition: ResourceDefinition;
  /** The dataset it belongs to; null for `_table_metadata`. */
  dataset: DatasetDefinition | null;
  /** `_id` first, then the declared fields, as datastore_search reports them. */
  fields: readonly FieldInfo[];
  fieldById: ReadonlyMap<string, FieldInfo>;
  total: number;
  /** Whether the records are numbered 1…total without gaps (a mirror keeps upstream `_id`s, which may have gaps). */
  denseIds: boolean;
  /** What the loader recorded: counts, sizes, source checksum. */
  stored: LoadedResource;
}

export const ID_FIELD: FieldInfo = { id: '_id', type: 'int', nullable: false };

export class Catalog {
  private readonly byId = new Map<string, CatalogResource>();

  constructor(
    readonly definition: CatalogDefinition,
    loaded: ReadonlyMap<string, LoadedResource>,
  ) {
    const entries: [ResourceDefinition, DatasetDefinition | null][] = [
      ...definition.datasets.flatMap((dataset) =>
        dataset.resources.map((r): [ResourceDefinition, DatasetDefinition] => [r, dataset]),
      ),
      [TABLE_METADATA, null],
    ];
    for (const [resource, dataset] of entries) {
      const stored = loaded.get(resource.id);
      if (!stored) continue;
      const nullable = new Set(stored.nullFields);
      const built = new Set(stored.builtIndexes ?? []);
      const quoted = stored.quotedFields ? new Set(stored.quotedFields) : null;
      const fields: FieldInfo[] = [
        ID_FIELD,
        ...resource.fields.map((f): FieldInfo => ({
          id: f.id,
          type: f.type,
          nullable: nullable.has(f.id),
          indexed: built.has(indexKey([f.id])),
          ...(built.has(sortIndexKey(f.id, false)) ? { sortIndexed: true } : {}),
          ...(built.has(sortIndexKey(f.id, true)) ? { sortIndexedDescending: true } : {}),
          ...(quoted && f.type === 'text' && !quoted.has(f.id) ? { quoted: false } : {}),
          ...(f.info ? { info: f.info } : {}),
        })),
      ];
      this.byId.set(resource.id, {
        id: resource.id,
        definition: resource,
        dataset,
        fields,
        fieldById: new Map(fields.map((f) => [f.id, f])),
        total: stored.total,
        denseIds: !stored.maxId || stored.maxId === stored.total,
        stored,
      });
    }
  }

  get(id: string): CatalogResource | undefined {
    return this.byId.get(id);
  }

  get resources(): CatalogResource[] {
    return [...this.byId.values()];
  }
}

/**
 * A stable UUID for a dataset, derived from its name (CKAN gives every dataset an id as well as a name; the
 * catalogue file only needs the name).
 */
export function datasetId(name: string): string {
  const hex = createHash('sha1').update(`count-centre dataset ${name}`).digest('hex');
  // Shaped as a version-5 (name-based) UUID.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}
