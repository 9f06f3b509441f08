// help_show: the documentation of an action, by name.

import { errors } from '../errors.js';
import { toText } from '../query/coerce.js';
import { ParamErrors, validateParams, type ParamSpec } from '../query/params.js';
import { renderHelp } from './help-text.js';
import type { Action } from './types.js';

const params: ParamSpec[] = [
  {
    name: 'name',
    type: 'string',
    required: true,
    coerce: toText,
    schema: { type: 'string', minLength: 1 },
    example: 'datastore_search',
    description: 'name of the action, e.g. datastore_search.',
  },
];

export function helpShowAction(actions: () => ReadonlyMap<string, Action>): Action {
  return {
    name: 'help_show',
    params,
    help: renderHelp({
      summary: 'Return the help string for a particular API action.',
      params,
      results: "The action's documentation, as a string.",
    }),
    async run({ params: input }) {
      let name: string;
      try {
        name = validateParams(params, input.name === '' ? {} : input).values.get('name') as string;
      } catch (err) {
        if (err instanceof ParamErrors) throw errors.validation(err.detail);
        throw err;
      }
      const action = actions().get(name);
      if (!action) throw errors.notFound('Action function not found');
      return action.help;
    },
  };
}
