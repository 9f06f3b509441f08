// The OpenAPI 3.1 description of the API, generated from the parameter tables the validator uses and from the
// error catalogue, so it cannot say anything the service does not do.

import type { Action } from '../actions/types.js';
import { ERROR_KINDS } from '../errors.js';
import type { JsonSchema, ParamSpec } from '../query/params.js';

export interface OpenApiOptions {
  siteUrl: string;
  version: string;
  actions: ReadonlyMap<string, Action>;
  dumpParams: readonly ParamSpec[];
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function describe(spec: ParamSpec): string {
  const qualifier = spec.defaultText !== undefined ? ` Default: ${spec.defaultText}.` : '';
  return spec.description + qualifier;
}

/** A query-string parameter: JSON-valued ones are described as JSON text, as clients must send them. */
function queryParameter(spec: ParamSpec): Record<string, unknown> {
  const base = { name: spec.name, in: 'query', required: spec.required ?? false, description: describe(spec) };
  if (spec.jsonInQuery)
    return {
      ...base,
      content: {
        'application/json': { schema: spec.schema, ...(spec.example !== undefined ? { example: spec.example } : {}) },
      },
    };
  return { ...base, schema: spec.schema, ...(spec.example !== undefined ? { example: spec.example } : {}) };
}

function bodySchema(specs: readonly ParamSpec[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const spec of specs) properties[spec.name] = { ...spec.schema, description: describe(spec) };
  const required = specs.filter((s) => s.required).map((s) => s.name);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

const errorResponses = {
  '400': {
    description: ERROR_KINDS.badRequest.description,
    content: {
      'application/json': { schema: { type: 'string', examples: ['Bad request - Action name not known: foo'] } },
    },
  },
  '404': {
    description: ERROR_KINDS.notFound.description,
    content: { 'application/json': { schema: ref('ErrorEnvelope') } },
  },
  '409': {
    description: ERROR_KINDS.validation.description,
    content: { 'application/json': { schema: ref('ValidationErrorEnvelope') } },
  },
  '413': {
    description: ERROR_KINDS.payloadTooLarge.description,
    content: { 'application/json': { schema: ref('ErrorEnvelope') } },
  },
};

function actionPath(action: Action): Record<string, unknown> {
  const summary = action.help.split('\n')[0];
  const success = {
    '200': { description: 'Success.', content: { 'application/json': { schema: ref('SuccessEnvelope') } } },
    '304': { description: 'Not modified: the If-None-Match tag still names this answer.' },
    ...errorResponses,
  };
  return {
    get: {
      operationId: `${action.name}_get`,
      summary,
      description: action.help,
      parameters: [
        ...action.params.map(queryParameter),
        {
          name: 'callback',
          in: 'query',
          required: false,
          description: 'JSONP: wrap a successful answer as callback(…);',
          schema: { type: 'string' },
        },
      ],
      responses: success,
    },
    post: {
      operationId: action.name,
      summary,
      description: action.help,
      requestBody: {
        content: {
          'application/json': { schema: bodySchema(action.params) },
          'application/x-www-form-urlencoded': { schema: bodySchema(action.params) },
        },
      },
      responses: success,
    },
  };
}

export function openApiDocument({ siteUrl, version, actions, dumpParams }: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const action of actions.values()) paths[`/api/3/action/${action.name}`] = actionPath(action);
  paths['/datastore/dump/{resource_id}'] = {
    get: {
      operationId: 'datastore_dump',
      summary: "Download a resource's records as a file.",
      description:
        'The records a datastore_search with the same parameters would select (all of them by default), streamed.',
      parameters: [
        {
          name: 'resource_id',
          in: 'path',
          required: true,
          schema: { type: 'string' },
          example: '60728fc9-2896-41d8-a70c-9c01dd3d57ce',
        },
        ...dumpParams.map(queryParameter),
      ],
      responses: {
        '200': {
          description: 'The file, as an attachment named <resource id>.<format>.',
          content: {
            'text/csv': { schema: { type: 'string' } },
            'text/tab-separated-values': { schema: { type: 'string' } },
            'application/json': { schema: { type: 'object' } },
            'text/xml': { schema: { type: 'string' } },
            'application/x-ndjson': { schema: { type: 'string' } },
          },
        },
        '404': errorResponses['404'],
        '409': errorResponses['409'],
      },
    },
  };
  paths['/api/3'] = {
    get: {
      operationId: 'api_version',
      summary: 'The API version.',
      responses: {
        '200': {
          description: 'The version',
          content: { 'application/json': { schema: { type: 'object', properties: { version: { const: 3 } } } } },
        },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Count Centre',
      version,
      description:
        "A read-only DataStore query service that answers as CKAN's action API does. Every action answers GET (parameters in the query string) and POST (a JSON or form body).",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: siteUrl }],
    paths,
    components: {
      schemas: {
        SuccessEnvelope: {
          type: 'object',
          required: ['help', 'success', 'result'],
          properties: { help: { type: 'string', format: 'uri' }, success: { const: true }, result: {} },
        },
        ErrorEnvelope: errorEnvelope({
          type: 'object',
          required: ['__type'],
          properties: {
            __type: {
              enum: Object.values(ERROR_KINDS)
                .map((k) => k.type)
                .filter((t) => t !== null),
            },
            message: { type: 'string' },
          },
        }),
        ValidationErrorEnvelope: errorEnvelope({
          type: 'object',
          description: 'Each failing parameter with its messages, and __type.',
          properties: { __type: { const: ERROR_KINDS.validation.type } },
          additionalProperties: { type: 'array', items: { type: 'string' } },
        }),
      },
    },
  };
}

/** CKAN's failure envelope around an `error` of the given schema. */
function errorEnvelope(error: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['help', 'error', 'success'],
    properties: { help: { type: 'string', format: 'uri' }, success: { const: false }, error },
  };
}

/**
 * The document as served, rendered once per site URL (the links in it depend on it); a few site URLs are kept, since
 * without SITE_URL each host a client names is one.
 */
export function servedOpenApi(options: Omit<OpenApiOptions, 'siteUrl'>): (siteUrl: string) => string {
  const bySite = new Map<string, string>();
  return (siteUrl) => {
    let document = bySite.get(siteUrl);
    if (document === undefined) {
      document = JSON.stringify(openApiDocument({ ...options, siteUrl }));
      if (bySite.size < 16) bySite.set(siteUrl, document);
    }
    return document;
  };
}
