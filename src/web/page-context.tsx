// What every page handler shares: the request's context (its version of the data, the URL), rendering a page in the
// shell with the sources, licences and notices of the datasets it draws on, errors as pages, and the election a URL
// names.

import type { VNode } from 'preact';
import type { CatalogResource } from '../catalog/catalog.js';
import { FIELD_NAMES, type Election } from '../elections/index.js';
import type { Assets } from './assets.js';
import {
  datasets,
  electionByName,
  electionLabel,
  electionModel,
  type DatasetView,
  type ElectionView,
} from './catalog-view.js';
import { PageFailure, type ActionClient } from './data.js';
import type { ElectionPageBase } from './pages/election.js';
import { ErrorPage } from './pages/error.js';
import { renderPage, type Crumb, type PageShell, type SourceNote, type UnofficialNote } from './pages/layout.js';
import type { Reviewed } from './reviewed.js';
import { filteredQuery, urls } from './urls.js';

export interface PageContext {
  client: ActionClient;
  assets: Assets;
  reviewed: Reviewed;
  siteUrl: string;
  params: Record<string, string>;
  path: string;
  search: URLSearchParams;
  shell: Pick<PageShell, 'compare'>;
}

export type PageResult =
  | { status: number; html: string }
  | { redirect: string }
  /** A file a page offers (a table as CSV, a chart as SVG), with its type. */
  | { status: number; body: string; contentType: string };

export interface PageOptions extends Omit<PageShell, 'compare' | 'sources' | 'unofficial'> {
  /**
   * Names of the datasets the page draws on: all of them when not given (home, comparisons, people); none for errors.
   */
  datasets?: string[];
}

const extra = (view: DatasetView, key: string) => view.definition.extras.find((e) => e.key === key)?.value ?? '';

function sourceOf(view: DatasetView): SourceNote {
  const d = view.definition;
  const election = d.election ? urls.election(d.name) : null;
  return {
    title: d.title.split(':')[0]!.trim(),
    // CKAN's 'notspecified' licence (the catalogue's default) is no licence: the footer says so.
    licence:
      d.licenseId && d.licenseId !== 'notspecified'
        ? { title: d.licenseTitle || d.licenseId, url: d.licenseUrl || null }
        : null,
    attribution: d.attribution,
    source: extra(view, 'source'),
    href: election ?? (view.resources[0] ? urls.resource(view.resources[0].id) : null),
  };
}

/** The consistency checks of a dataset, where failed or corrected checks are listed. */
export function checksHref(
  view: DatasetView,
  filters: Record<string, unknown> = { Status: ['failed', 'corrected'] },
): string | null {
  const checks = view.resources.find((r) => r.definition.role === 'checks');
  return checks ? `${urls.resource(checks.id)}${filteredQuery(filters)}` : null;
}

function unofficialOf(view: DatasetView): UnofficialNote | null {
  const detail = extra(view, 'unofficial');
  if (!detail) return null;
  return {
    label: view.definition.title.split(':')[0]!.trim(),
    detail,
    checksHref: checksHref(view),
    wikipedia: /wikipedia/i.test(detail),
  };
}

export function page(ctx: Pick<PageContext, 'assets' | 'shell' | 'client'>, options: PageOptions, body: VNode): string {
  const drawn = datasets(ctx.client).filter(
    (d) => options.datasets === undefined || options.datasets.includes(d.definition.name),
  );
  const { datasets: _, ...shell } = options;
  return renderPage(
    {
      ...ctx.shell,
      ...shell,
      sources: drawn.map(sourceOf),
      unofficial: drawn.map(unofficialOf).filter((n): n is UnofficialNote => n !== null),
    },
    ctx.assets,
    body,
  );
}

export function errorPage(
  ctx: Pick<PageContext, 'assets' | 'shell' | 'client'>,
  status: number,
  message: string,
): PageResult {
  const title = status === 404 ? 'Not found' : 'Cannot be shown';
  return {
    status,
    html: page(
      ctx,
      { title, crumbs: [{ label: 'Home', href: '/' }, { label: title }], alternate: null, datasets: [] },
      <ErrorPage status={status} message={message} />,
    ),
  };
}

export const ok = (html: string): PageResult => ({ status: 200, html });

export function notFound(what: string): never {
  throw new PageFailure(404, what);
}

/** The election a URL names, with its model, and how to answer with one of its pages. */
export async function electionOf(ctx: PageContext): Promise<{
  view: ElectionView;
  election: Election;
  base: ElectionPageBase;
  crumbs: Crumb[];
  /** A page of the election: it draws on the election's dataset alone. */
  answer: (options: Omit<PageOptions, 'datasets'>, body: VNode) => PageResult;
}> {
  const view = electionByName(ctx.client, ctx.params.name ?? '');
  if (!view) notFound(`There is no election called "${ctx.params.name}".`);
  const election = await electionModel(ctx.client, view);
  const name = view.definition.name;
  const label = electionLabel(view);
  const base: ElectionPageBase = {
    label,
    date: view.election.date,
    body: view.election.body,
    election,
    resources: view.resources,
    house: election.house,
    checks: checksHref(view, { Check: 'first-preferences', Status: 'failed' }),
    links: {
      overview: urls.election(name),
      constituencies: urls.constituencies(name),
      parties: urls.parties(name),
      transfers: urls.transfers(name),
      constituency: (key) => urls.constituency(name, key),
      party: (key) => urls.party(name, key),
      resource: urls.resource,
    },
  };
  return {
    view,
    election,
    base,
    crumbs: [
      { label: 'Home', href: '/' },
      { label, href: urls.election(name) },
    ],
    answer: (options, body) => ok(page(ctx, { ...options, datasets: [name] }, body)),
  };
}

/** The first field a resource has of the spellings a value goes by. */
export function fieldOf(resource: CatalogResource | undefined, spellings: readonly string[]): string | undefined {
  return resource ? spellings.find((s) => resource.fieldById.has(s)) : undefined;
}

/** Filters that select one constituency's records in a resource of the election: by number where it has one. */
export function constituencyFilters(
  view: ElectionView,
  role: 'candidates' | 'counts' | 'constituencies',
  constituency: { number: number | null; name: string },
): Record<string, unknown> | null {
  const resource = view.roles[role];
  if (!resource) return null;
  const names = FIELD_NAMES[role] as Record<string, readonly string[]>;
  const numberField = fieldOf(resource, names.number!);
  if (numberField && constituency.number !== null) return { [numberField]: constituency.number };
  const nameField = fieldOf(
    resource,
    role === 'candidates' ? names.constituency! : role === 'counts' ? names.constituency! : names.name!,
  );
  return nameField ? { [nameField]: constituency.name } : null;
}
