// help_show: the documentation of an action, by name.

import { errors } from '../errors.js';
import { toText } from '../query/coerce.js';
import type { ParamSpec } from '../query/params.js';
import { renderHelp } from './help-text.js';
import type { Action } from './types.js';

const params: ParamSpec[] = [
  { name: 'name', type: 'string', required: true, coerce: toText, description: 'name of the action, e.g. datastore_search.' },
];

export function helpShowAction(actions: () => ReadonlyMap<string, Action>): Action {
  return {
    name: 'help_show',
    help: renderHelp({ summary: "Return the help string for a particular API action.", params, results: 'The action\'s documentation, as a string.' }),
    async run({ params: input }) {
      const raw = input.name;
      if (raw === undefined || raw === null || raw === '') throw errors.validation({ name: ['Missing value'] });
      const action = actions().get(toText(raw));
      if (!action) throw errors.notFound('Action function not found');
      return action.help;
    },
  };
}
