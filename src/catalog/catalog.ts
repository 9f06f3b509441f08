// The catalogue at run time: each served resource's definition joined with what the loader stored for it
// (record count, load time). A resource the catalogue declares but the store does not hold is not served.

import type { LoadedResource } from '../storage/backend.js';
import type { CatalogDefinition, DatasetDefinition, FieldInfo, ResourceDefinition } from './types.js';

export interface CatalogResource {
  id: string;
  definition: ResourceDefinition;
  dataset: DatasetDefinition;
  /** `_id` first, then the declared fields, as datastore_search reports them. */
  fields: readonly FieldInfo[];
  fieldById: ReadonlyMap<string, FieldInfo>;
  total: number;
  /** What the loader recorded: counts, sizes, source checksum. */
  stored: LoadedResource;
}

export const ID_FIELD: FieldInfo = { id: '_id', type: 'int' };

export class Catalog {
  private readonly byId = new Map<string, CatalogResource>();

  constructor(readonly definition: CatalogDefinition, loaded: ReadonlyMap<string, LoadedResource>) {
    for (const dataset of definition.datasets) {
      for (const resource of dataset.resources) {
        const stored = loaded.get(resource.id);
        if (!stored) continue;
        const fields: FieldInfo[] = [ID_FIELD, ...resource.fields.map((f) => ({ id: f.id, type: f.type }))];
        this.byId.set(resource.id, {
          id: resource.id,
          definition: resource,
          dataset,
          fields,
          fieldById: new Map(fields.map((f) => [f.id, f])),
          total: stored.total,
          stored,
        });
      }
    }
  }

  get(id: string): CatalogResource | undefined {
    return this.byId.get(id);
  }

  get resources(): CatalogResource[] {
    return [...this.byId.values()];
  }
}
