// What an action is: a named operation with its documentation, run on decoded parameters against the
// services (catalogue, storage, settings). Actions return result values; the HTTP layer wraps them.

import type { Catalog } from '../catalog/catalog.js';
import type { ParamSpec } from '../query/params.js';
import type { Settings } from '../settings.js';
import type { StorageBackend } from '../storage/backend.js';

export interface Services {
  catalog: Catalog;
  backend: StorageBackend;
  settings: Settings;
}

export interface ActionCall {
  /** Decoded parameters: GET query, form or JSON body, by CKAN's precedence. */
  params: Record<string, unknown>;
  /** Request path without any locale prefix, e.g. `/api/3/action/datastore_search`. */
  path: string;
  /** The query string the parameters came from; empty when they came from a body. */
  linkQuery: string;
  /** Public base URL (SITE_URL, or the request's scheme and host), for absolute links such as resource URLs. */
  siteUrl: string;
}

export interface Action {
  name: string;
  /** Its parameters: what it validates, and what help_show and the OpenAPI description document. */
  params: readonly ParamSpec[];
  /** help_show's answer: the action's documentation. */
  help: string;
  run(call: ActionCall, services: Services): Promise<unknown>;
}
