// Parameter vocabularies as data: each action's parameters with their coercion, default, echo rule and
// documentation. Validation, help_show text and API documentation are all generated from these tables.

import { messages, type ValidationDetail } from '../errors.js';
import { isMissing, ParamProblem, toText } from './coerce.js';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it) describing a parameter's accepted JSON values. */
export type JsonSchema = Record<string, unknown>;

export interface ParamSpec {
  name: string;
  /** Shown in documentation, e.g. "string", "int", "bool", "dictionary or list of dictionaries". */
  type: string;
  /** The values a JSON body may give; the OpenAPI description is generated from it. */
  schema: JsonSchema;
  /** A value the validator accepts, shown in the API description (and checked by a test). */
  example?: unknown;
  /** In a query string the value is JSON text (filters), rather than plain text. */
  jsonInQuery?: boolean;
  description: string;
  required?: boolean;
  /** Documentation of the default; the coercion applies it. */
  defaultText?: string;
  /**
   * Turns a given (non-null) value into its typed form; throws ParamProblem.
   * Not called for missing values: `whenMissing` supplies those.
   */
  coerce(value: unknown): unknown;
  /** The value used when the parameter is absent or null; undefined leaves it absent. */
  whenMissing?: () => unknown;
  /** Another name accepted for this parameter (CKAN's `id` for `resource_id`); it wins when both are given. */
  alias?: string;
}

export interface ValidatedParams {
  /** Typed values by parameter name, including defaults. */
  values: Map<string, unknown>;
  /** Names the request actually gave (with a non-null value), in the table's order. */
  given: Set<string>;
  /** Names the table does not know, in request order. */
  unknown: string[];
}

/** A parameter that must be given as text that is not empty: an id, a name, a statement. */
export function requiredText(name: string, example: string, description: string): ParamSpec {
  return {
    name,
    type: 'string',
    required: true,
    coerce: toText,
    schema: { type: 'string', minLength: 1 },
    example,
    description,
  };
}

/**
 * Applies a parameter table to decoded request parameters. All type errors are collected (CKAN reports every
 * failing parameter at once); unknown names are returned for the action to judge.
 */
export function validateParams(specs: readonly ParamSpec[], input: Record<string, unknown>): ValidatedParams {
  const values = new Map<string, unknown>();
  const given = new Set<string>();
  const errors: ValidationDetail = {};
  for (const spec of specs) {
    let raw = Object.hasOwn(input, spec.name) ? input[spec.name] : undefined;
    if (spec.alias && Object.hasOwn(input, spec.alias)) {
      const aliased = input[spec.alias];
      // CKAN's rename('id', 'resource_id') copies a truthy `id` over `resource_id`.
      if (aliased !== undefined && aliased !== null && aliased !== '' && aliased !== false) raw = aliased;
    }
    if (isMissing(raw)) {
      if (spec.required) errors[spec.name] = [messages.missingValue];
      else if (spec.whenMissing) values.set(spec.name, spec.whenMissing());
      continue;
    }
    try {
      values.set(spec.name, spec.coerce(raw));
      given.add(spec.name);
    } catch (err) {
      if (!(err instanceof ParamProblem)) throw err;
      errors[spec.name] = err.messages;
    }
  }
  if (Object.keys(errors).length > 0) throw new ParamErrors(errors);
  const known = knownNames(specs);
  const unknown = Object.keys(input).filter((name) => !known.has(name));
  return { values, given, unknown };
}

/** The names (and aliases) of each parameter table, gathered once. */
const namesOfTable = new WeakMap<readonly ParamSpec[], ReadonlySet<string>>();

function knownNames(specs: readonly ParamSpec[]): ReadonlySet<string> {
  let names = namesOfTable.get(specs);
  if (!names) {
    names = new Set(specs.flatMap((spec) => (spec.alias ? [spec.name, spec.alias] : [spec.name])));
    namesOfTable.set(specs, names);
  }
  return names;
}

/** Thrown by validateParams; carries every failing parameter's messages. */
export class ParamErrors extends Error {
  constructor(readonly detail: ValidationDetail) {
    super('invalid parameters');
  }
}
