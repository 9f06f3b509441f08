// Every action the API serves, by name.

import type { Settings } from '../settings.js';
import {
  packageListAction,
  packageShowAction,
  resourceShowAction,
  siteReadAction,
  statusShowAction,
} from './catalog-actions.js';
import { datastoreInfoAction } from './datastore-info.js';
import { datastoreSearchSqlAction } from './datastore-search-sql.js';
import { datastoreSearchAction } from './datastore-search.js';
import { helpShowAction } from './help-show.js';
import { ApiError } from '../errors.js';
import { withHints } from './hints.js';
import type { Action } from './types.js';

/** The action, its errors given hints for people where one helps (src/actions/hints.ts). */
function hinted(action: Action, names: () => string[]): Action {
  return {
    ...action,
    run: async (call, services) => {
      try {
        return await action.run(call, services);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        throw withHints(err, {
          action: action.name,
          params: call.params,
          catalog: services.catalog,
          paramNames: action.params.map((p) => p.name),
          actionNames: names(),
        });
      }
    },
  };
}

export function createActions(settings: Settings): ReadonlyMap<string, Action> {
  const actions = new Map<string, Action>();
  const add = (action: Action) =>
    actions.set(
      action.name,
      hinted(action, () => [...actions.keys()]),
    );
  add(datastoreSearchAction(settings));
  add(datastoreSearchSqlAction);
  add(datastoreInfoAction);
  add(helpShowAction(() => actions));
  for (const action of [packageListAction, packageShowAction, resourceShowAction, statusShowAction, siteReadAction])
    add(action);
  return actions;
}
