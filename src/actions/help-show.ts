// help_show: the documentation of an action, by name.

import { errors } from '../errors.js';
import { requiredText } from '../query/params.js';
import { documented } from './help-text.js';
import type { Action } from './types.js';
import { paramValues } from './validation.js';

const params = [requiredText('name', 'datastore_search', 'name of the action, e.g. datastore_search.')];

export function helpShowAction(actions: () => ReadonlyMap<string, Action>): Action {
  return documented({
    name: 'help_show',
    params,
    summary: 'Return the help string for a particular API action.',
    results: "The action's documentation, as a string.",
    async run({ params: input }) {
      const name = paramValues(params, input.name === '' ? {} : input).get('name') as string;
      const action = actions().get(name);
      if (!action) throw errors.notFound('Action function not found');
      return action.help;
    },
  });
}
