// datastore_info: a resource's fields with their storage schema, and its size and record count.

import { FIELD_TYPES, fieldIndexName } from '../catalog/types.js';
import { errors } from '../errors.js';
import { toText } from '../query/coerce.js';
import { ParamErrors, validateParams, type ParamSpec } from '../query/params.js';
import { renderHelp } from './help-text.js';
import type { Action } from './types.js';

const params: ParamSpec[] = [
  {
    name: 'id', alias: 'resource_id', type: 'string', required: true, coerce: toText,
    schema: { type: 'string', minLength: 1 }, example: 'f6a59fec-6f64-48bb-9f65-e6679aa23dba',
    description: 'id of the resource. `resource_id` is accepted as a synonym.',
  },
];

export const datastoreInfoAction: Action = {
  name: 'datastore_info',
  params,
  help: renderHelp({
    summary: 'Returns detailed metadata about a resource.',
    params,
    results: 'A dictionary with `meta` (id, count of records, table_type, size and idx_size of the resource in bytes, db_size of the whole store, aliases) and `fields` (each field\'s id, type and storage schema; _id is not listed).',
  }),
  async run({ params: input }, { catalog, backend }) {
    // CKAN accepts either name; an empty value is as good as none, and the error names resource_id.
    const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== ''));
    let id: string;
    try {
      id = validateParams(params, given).values.get('id') as string;
    } catch (err) {
      if (err instanceof ParamErrors) throw errors.validation({ resource_id: ['Missing value'] });
      throw err;
    }
    const resource = catalog.get(id);
    if (!resource) throw errors.notFound(`Resource/Alias "${id}" was not found.`);
    const { stored, definition } = resource;
    return {
      meta: {
        id: resource.id,
        count: stored.total,
        table_type: 'BASE TABLE',
        size: stored.dataBytes,
        db_size: backend.databaseBytes,
        idx_size: stored.indexBytes,
        aliases: [],
      },
      fields: definition.fields.map((field, i) => ({
        id: field.id,
        type: field.type,
        schema: {
          native_type: FIELD_TYPES[field.type].nativeType,
          notnull: false,
          index_name: field.index ? fieldIndexName(resource.id, i + 1) : null,
          is_index: field.index,
          uniquekey: false,
        },
      })),
    };
  },
};
