// Every action the API serves, by name.

import type { Settings } from '../settings.js';
import { packageListAction, packageShowAction, resourceShowAction, siteReadAction, statusShowAction } from './catalog-actions.js';
import { datastoreInfoAction } from './datastore-info.js';
import { datastoreSearchSqlAction } from './datastore-search-sql.js';
import { datastoreSearchAction } from './datastore-search.js';
import { helpShowAction } from './help-show.js';
import type { Action } from './types.js';

export function createActions(settings: Settings): ReadonlyMap<string, Action> {
  const actions = new Map<string, Action>();
  const add = (action: Action) => actions.set(action.name, action);
  add(datastoreSearchAction(settings));
  add(datastoreSearchSqlAction);
  add(datastoreInfoAction);
  add(helpShowAction(() => actions));
  for (const action of [packageListAction, packageShowAction, resourceShowAction, statusShowAction, siteReadAction]) add(action);
  return actions;
}
