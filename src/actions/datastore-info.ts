// datastore_info: a resource's fields with their storage schema, and its size and record count.

import { FIELD_TYPES, fieldIndexName } from '../catalog/types.js';
import { errors } from '../errors.js';
import { toBoolean } from '../query/coerce.js';
import { ParamErrors, requiredText, validateParams, type ParamSpec } from '../query/params.js';
import { documented } from './help-text.js';

const defaultTrue = (value: unknown) => (value === '' ? true : toBoolean(value));

/** A part of the answer that is there unless the parameter is false. */
function switchedOff(name: string, description: string): ParamSpec {
  return {
    name,
    type: 'bool',
    defaultText: 'true',
    coerce: defaultTrue,
    whenMissing: () => true,
    schema: { type: 'boolean', default: true },
    example: false,
    description,
  };
}

const params: ParamSpec[] = [
  {
    ...requiredText(
      'resource_id',
      'f6a59fec-6f64-48bb-9f65-e6679aa23dba',
      'id of the resource. `id` is accepted as a synonym (CKAN 2.10 knew only `id`).',
    ),
    alias: 'id',
  },
  switchedOff('include_meta', 'false to leave out `meta` (record count, sizes, aliases), as CKAN 2.12 allows.'),
  switchedOff(
    'include_fields_schema',
    "false to leave out each field's `schema` (native type, index, unique and not-null status), as CKAN 2.12 allows.",
  ),
];

export const datastoreInfoAction = documented({
  name: 'datastore_info',
  params,
  summary: 'Returns detailed metadata about a resource.',
  results:
    "A dictionary with `meta` (id, count of records, table_type, size and idx_size of the resource in bytes, db_size of the whole store, aliases; unless include_meta is false) and `fields` (each field's id, type and, unless include_fields_schema is false, its storage schema; _id is not listed).",
  async run({ params: input }, { catalog, backend }) {
    // CKAN accepts either name; an empty value is as good as none, and the error names resource_id.
    const given = Object.fromEntries(
      Object.entries(input).filter(([key, v]) => v !== '' || (key !== 'id' && key !== 'resource_id')),
    );
    let values: Map<string, unknown>;
    try {
      values = validateParams(params, given).values;
    } catch (err) {
      if (!(err instanceof ParamErrors)) throw err;
      throw errors.validation(err.detail.resource_id ? { resource_id: ['Missing value'] } : err.detail);
    }
    const id = values.get('resource_id') as string;
    const resource = catalog.get(id);
    if (!resource) throw errors.notFound(`Resource/Alias "${id}" was not found.`);
    const { stored, definition } = resource;
    const withSchema = values.get('include_fields_schema') as boolean;
    const fields = definition.fields.map((field, i) => ({
      id: field.id,
      type: field.type,
      // CKAN's data dictionary entry, between type and schema as CKAN 2.10 orders them; absent when not set.
      ...(field.info ? { info: field.info } : {}),
      ...(withSchema
        ? {
            schema: {
              native_type: FIELD_TYPES[field.type].nativeType,
              notnull: false,
              index_name: field.index ? fieldIndexName(resource.id, i + 1) : null,
              is_index: field.index,
              uniquekey: false,
            },
          }
        : {}),
    }));
    if (!values.get('include_meta')) return { fields };
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
      fields,
    };
  },
});
