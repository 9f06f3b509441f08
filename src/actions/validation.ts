// How an action reads its parameters: problems the parameter tables find are answered as the API's validation error.

import { errors } from '../errors.js';
import { ParamErrors, validateParams, type ParamSpec } from '../query/params.js';

/** Runs a reading of parameters; the problems it finds are thrown as the API's validation error. */
export function validating<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ParamErrors) throw errors.validation(err.detail);
    throw err;
  }
}

/** The typed values of the parameters a table takes from a request (see validateParams). */
export function paramValues(specs: readonly ParamSpec[], input: Record<string, unknown>): Map<string, unknown> {
  return validating(() => validateParams(specs, input).values);
}
