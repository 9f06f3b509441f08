// Hints for people in error answers, without moving anything a CKAN client reads: CKAN's keys and messages stay as
// they are, and a hint goes into an extra `info` entry (as CKAN's own SQL errors carry `info`) — the closest field,
// parameter, action or resource name ("did you mean …"), the resource ids for a resource's name, the actions for
// help_show. A hint is added only when something is close, so answers CKAN pins stay byte for byte CKAN's.

import type { Catalog } from '../catalog/catalog.js';
import { ApiError } from '../errors.js';

function normalised(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .trim();
}

/** Damerau–Levenshtein (optimal string alignment) distance, stopping early past `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    let best = Infinity;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
  }
  return rows[a.length]![b.length]!;
}

/**
 * The choices closest to `word` (a slip of case, accents, spacing, or a typing error or two), best first; none when
 * nothing is close.
 */
export function closest(word: string, choices: Iterable<string>): string[] {
  const target = normalised(word);
  if (target === '') return [];
  const limit = target.length <= 4 ? 1 : target.length <= 8 ? 2 : 3;
  const scored: [string, number][] = [];
  for (const choice of new Set(choices)) {
    if (choice === word) continue;
    const d = distance(target, normalised(choice), limit);
    if (d <= limit) scored.push([choice, d]);
  }
  scored.sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1));
  const best = scored[0]?.[1];
  return scored
    .filter(([, d]) => d === best)
    .slice(0, 3)
    .map(([c]) => c);
}

function didYouMean(candidates: readonly string[]): string {
  return `did you mean ${candidates.map((c) => `"${c}"`).join(' or ')}?`;
}

/** CKAN 2.10's `invalid value "…"`, and 2.12's filter grammar's `Unknown field: …`. */
const INVALID_VALUE = /^(?:invalid value "(.*)"|Unknown field: (.*))$/s;

/** The word an `invalid value "…"` message names; a sort clause's direction is left out. */
function invalidValue(message: unknown, key: string): string | null {
  const found = typeof message === 'string' ? INVALID_VALUE.exec(message) : null;
  const match = found ? [found[0], found[1] ?? found[2]] : null;
  if (!match) return null;
  return key === 'sort' ? match[1]!.replace(/\s+(asc|desc)$/i, '') : match[1]!;
}

export interface HintContext {
  action: string;
  params: Record<string, unknown>;
  catalog: Catalog;
  /** The action's parameter names. */
  paramNames: readonly string[];
  /** Every action's name. */
  actionNames: readonly string[];
}

/** Resources whose name is (or is close to) the text given where an id was expected. */
function resourcesNamed(catalog: Catalog, text: string): { id: string; name: string }[] {
  const served = catalog.resources.filter((r) => r.dataset !== null);
  const exact = served.filter((r) => normalised(r.definition.name) === normalised(text));
  if (exact.length > 0) return exact.map((r) => ({ id: r.id, name: r.definition.name }));
  const names = closest(
    text,
    served.map((r) => r.definition.name),
  );
  return served.filter((r) => names.includes(r.definition.name)).map((r) => ({ id: r.id, name: r.definition.name }));
}

function resourceHint(catalog: Catalog, text: string): string | null {
  const named = resourcesNamed(catalog, text);
  if (named.length > 0) return `resources are named by id: ${named.map((r) => `"${r.name}" is ${r.id}`).join(', ')}`;
  const ids = closest(
    text,
    catalog.resources.filter((r) => r.dataset !== null).map((r) => r.id),
  );
  return ids.length > 0 ? didYouMean(ids) : null;
}

function withInfo(error: ApiError, info: Record<string, unknown>): ApiError {
  if (error.validation) {
    const existing =
      error.validation.info && typeof error.validation.info === 'object'
        ? (error.validation.info as Record<string, unknown>)
        : {};
    return new ApiError(error.kind, error.message, { ...error.validation, info: { ...existing, ...info } });
  }
  return new ApiError(error.kind, error.message, null, { ...error.info, ...info });
}

/** The error with a hint for people where one helps; otherwise the error as it was. */
export function withHints(error: ApiError, context: HintContext): ApiError {
  const { catalog, params } = context;
  if (error.validation) {
    const detail = error.validation;
    const hints: string[] = [];
    const resourceId =
      typeof params.resource_id === 'string' ? params.resource_id : typeof params.id === 'string' ? params.id : null;
    const resource = resourceId ? catalog.get(resourceId) : undefined;
    for (const key of ['filters', 'sort', 'fields', 'q']) {
      const messages = Array.isArray(detail[key]) ? (detail[key] as unknown[]) : [];
      for (const message of messages) {
        const word = invalidValue(message, key);
        if (word === null || !resource) continue;
        const found = closest(
          word,
          resource.fields.map((f) => f.id),
        );
        if (found.length > 0) hints.push(`${key}: "${word}" is not a field; ${didYouMean(found)}`);
      }
    }
    for (const message of Array.isArray(detail.__extras) ? (detail.__extras as unknown[]) : []) {
      const word = invalidValue(message, '__extras');
      if (word === null) continue;
      const found = closest(word, context.paramNames);
      if (found.length > 0) hints.push(`"${word}" is not a parameter of ${context.action}; ${didYouMean(found)}`);
    }
    const query = Array.isArray(detail.query) ? detail.query : [];
    for (const message of [
      ...query,
      ...(Array.isArray((detail.info as { orig?: unknown })?.orig) ? (detail.info as { orig: unknown[] }).orig : []),
    ]) {
      const relation = typeof message === 'string' ? /relation "(.+)" does not exist/.exec(message)?.[1] : undefined;
      if (!relation) continue;
      const hint = resourceHint(catalog, relation.replace(/^[^.]*\./, ''));
      const ids = catalog.resources.filter((r) => r.dataset !== null).map((r) => r.id);
      hints.push(
        hint ??
          `the tables are the resources, named by id in double quotes, e.g. FROM "${ids[0] ?? '<resource id>'}" (package_show lists them)`,
      );
      break;
    }
    if (context.action === 'help_show' && Array.isArray(detail.name) && detail.name.includes('Missing value')) {
      return withInfo(error, { hint: 'name one of the actions', actions: [...context.actionNames].sort() });
    }
    return hints.length > 0 ? withInfo(error, { hint: hints.join('; ') }) : error;
  }
  if (error.kind === 'notFound') {
    const resource = /Resource(?:\/Alias)? "(.*)" was not found/s.exec(error.message)?.[1];
    if (resource !== undefined) {
      const hint = resourceHint(catalog, resource);
      return hint ? withInfo(error, { hint }) : error;
    }
    if (context.action === 'help_show' && typeof params.name === 'string') {
      const found = closest(params.name, context.actionNames);
      return found.length > 0 ? withInfo(error, { hint: didYouMean(found) }) : error;
    }
  }
  return error;
}

/** An unknown action's message, with the closest action's name when one is close (CKAN answers a bare string). */
export function unknownActionHint(name: string, actionNames: Iterable<string>): string | null {
  const found = closest(name, actionNames);
  return found.length > 0 ? didYouMean(found) : null;
}
