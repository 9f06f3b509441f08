// The resource page, the same for every resource: a server-rendered table of the current view with search, filters,
// facets, sortable headers, a column chooser, paging with exact totals, downloads of the view, and the API call
// behind it. Every control is a link or a GET form, so all of it works without JavaScript.

import type { CatalogResource } from '../../catalog/catalog.js';
import { displayName, FIELD_NAMES } from '../../elections/index.js';
import type { PageFailure, SearchResult } from '../data.js';
import type { Facet } from '../facets.js';
import { cellText, formatNumber, isIrishField, isNumericType, isTechnicalColumn, plural } from '../format.js';
import { apiSnippets } from '../snippets.js';
import {
  edited,
  FILTER_OPERATORS,
  filterClauses,
  foldClauses,
  readFields,
  readFilters,
  readSort,
  setFilters,
  setSort,
  type FilterClause,
  type SortClause,
} from '../table-query.js';
import { DataTable, SortHead } from './layout.js';

export const PAGE_SIZES = [25, 100, 500];

export interface ResourcePageProps {
  resource: CatalogResource;
  /** The page's canonical query: datastore_search's parameters and the explorer's `_facet`s. */
  search: URLSearchParams;
  result: SearchResult | null;
  failure: PageFailure | null;
  facets: Facet[];
  /** Fields that may be faceted (text fields). */
  facetChoices: string[];
  siteUrl: string;
  rowsDefault: number;
  pagePath: string;
  /** The API call of this view (absolute). */
  apiUrl: string;
  /** The view's downloads: [label, href, note]. */
  downloads: { label: string; href: string; note: string }[];
  dataset: { label: string; href: string } | null;
}

function describeValue(value: unknown): string {
  if (value === null) return 'empty (null)';
  if (value === '') return '(empty)';
  return String(value);
}

function sortDescription(sort: SortClause[]): string {
  return sort
    .map((s, i) => `${i === 0 ? 'sorted by' : 'then'} ${s.field} ${s.descending ? 'descending' : 'ascending'}`)
    .join(', ');
}

/** The parameters a form must carry along so that submitting it changes only what it is about. */
function Hidden({ search, except }: { search: URLSearchParams; except: string[] }) {
  return (
    <>
      {[...search]
        .filter(([k]) => !except.includes(k) && k !== 'offset')
        .map(([k, v]) => (
          <input type="hidden" name={k} value={v} />
        ))}
    </>
  );
}

export function ResourcePage(props: ResourcePageProps) {
  const { resource, search, result, failure, pagePath } = props;
  const { filters, complex } = readFilters(search);
  const clauses = filterClauses(filters);
  const sort = readSort(search);
  const fieldIds = resource.fields.filter((f) => f.id !== '_id').map((f) => f.id);
  const q = search.get('q') ?? '';
  const href = (edit: (s: URLSearchParams) => void, keepOffset = false) =>
    `${pagePath}${edited(search, edit, keepOffset)}`;
  const removeClause = (clause: FilterClause) =>
    href((s) => setFilters(s, foldClauses(clauses.filter((c) => c !== clause))));
  const snippets = apiSnippets(`${props.siteUrl}/api/3/action/datastore_search`, new URL(props.apiUrl).searchParams);

  return (
    <>
      <h1>{resource.definition.name}</h1>
      {resource.definition.description && <p class="lead">{resource.definition.description}</p>}
      <p class="meta">
        {plural(resource.total, 'record')} in all
        {props.dataset && (
          <>
            {' '}
            · part of <a href={props.dataset.href}>{props.dataset.label}</a>
          </>
        )}
        {' · '}resource id <code>{resource.id}</code>
      </p>

      <form class="search" role="search" method="get" action={pagePath}>
        <label for="q">Search every field</label>
        <div class="inline">
          <input type="search" id="q" name="q" value={q} aria-describedby="q-hint" />
          <Hidden search={search} except={['q']} />
          <button type="submit">Search</button>
        </div>
        <p id="q-hint" class="hint">
          Whole words, any case, with or without fadas: <q>sinn fein</q> finds Sinn Féin.
        </p>
      </form>

      {(clauses.length > 0 || q || complex) && (
        <section class="active-filters" aria-labelledby="active-title">
          <h2 id="active-title" class="h-small">
            This view
          </h2>
          <ul>
            {q && (
              <li>
                Search: <q>{q}</q>{' '}
                <a href={href((s) => s.delete('q'))} aria-label={`Remove the search for ${q}`}>
                  remove
                </a>
              </li>
            )}
            {clauses.map((c) => (
              <li>
                {c.field} is <strong>{describeValue(c.value)}</strong>{' '}
                <a href={removeClause(c)} aria-label={`Remove the filter ${c.field} is ${describeValue(c.value)}`}>
                  remove
                </a>
              </li>
            ))}
            {complex && (
              <li>
                Filters: <code>{search.get('filters')}</code> <a href={href((s) => s.delete('filters'))}>remove</a>
              </li>
            )}
          </ul>
          <p>
            <a
              href={href((s) => {
                s.delete('q');
                s.delete('filters');
              })}
            >
              Clear search and filters
            </a>
          </p>
        </section>
      )}

      <div class="table-layout">
        <aside class="facets" aria-labelledby="facets-title">
          <h2 id="facets-title" class="h-small">
            Narrow down
          </h2>
          {props.facets.map((facet) => (
            <section class="facet" aria-labelledby={`facet-${facet.field}`}>
              <h3 id={`facet-${facet.field}`}>{facet.field}</h3>
              {facet.note && <p class="hint">{facet.note}</p>}
              <FacetValues facet={facet} clauses={clauses} href={href} />
              <p class="facet-hide">
                <a
                  href={href((s) => {
                    const rest = s.getAll('_facet').length > 0 ? s.getAll('_facet') : props.facets.map((f) => f.field);
                    s.delete('_facet');
                    const left = rest.filter((f) => f !== facet.field);
                    for (const f of left.length > 0 ? left : ['']) s.append('_facet', f);
                  }, true)}
                  aria-label={`Hide the ${facet.field} facet`}
                >
                  Hide
                </a>
              </p>
            </section>
          ))}
          {props.facetChoices.length > 0 && (
            <form method="get" action={pagePath} class="facet-add">
              <label for="facet-add">Count records by</label>
              <select id="facet-add" name="_facet_add" data-autosubmit="">
                {props.facetChoices.map((f) => (
                  <option value={f}>{f}</option>
                ))}
              </select>
              <Hidden search={search} except={['_facet']} />
              {(search.getAll('_facet').length > 0 ? search.getAll('_facet') : props.facets.map((f) => f.field)).map(
                (f) => (
                  <input type="hidden" name="_facet" value={f} />
                ),
              )}
              <button type="submit">Show counts</button>
            </form>
          )}
        </aside>

        <div class="results" id="results" tabindex={-1}>
          <FilterForm fieldIds={fieldIds} clauses={clauses} search={search} pagePath={pagePath} />
          {failure ? (
            <FailureNotice failure={failure} />
          ) : (
            result && <ResultTable {...props} result={result} sort={sort} href={href} />
          )}
          <ViewOptions fieldIds={fieldIds} search={search} pagePath={pagePath} sort={sort ?? []} />
        </div>
      </div>

      <section aria-labelledby="downloads-title">
        <h2 id="downloads-title">Download this view</h2>
        <p>
          Every record of the current search, filters, sort and columns
          {result?.total !== null && result?.total !== undefined ? ` (${plural(result.total, 'record')})` : ''}, not
          just this page.
        </p>
        <ul class="downloads">
          {props.downloads.map((d) => (
            <li>
              <a href={d.href} rel="nofollow" download="">
                {d.label}
              </a>{' '}
              <span class="hint">{d.note}</span>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="api-title">
        <h2 id="api-title">Use this in code</h2>
        <p>The API call that returns exactly this view (the page and the API share their parameters):</p>
        <pre class="code">
          <code id="api-url">{props.apiUrl}</code>
        </pre>
        <p>
          <a href={props.apiUrl} rel="nofollow">
            Open this view as JSON
          </a>{' '}
          ·{' '}
          <a href={`/api/3/action/help_show?name=datastore_search`} rel="nofollow">
            What each parameter means
          </a>
        </p>
        {snippets.map((s) => (
          <details class="snippet">
            <summary>{s.label}</summary>
            <pre class="code">
              <code>{s.code}</code>
            </pre>
          </details>
        ))}
      </section>
    </>
  );
}

function FacetValues({
  facet,
  clauses,
  href,
}: {
  facet: Facet;
  clauses: FilterClause[];
  href: (edit: (s: URLSearchParams) => void) => string;
}) {
  const SHOWN = 10;
  const item = (v: Facet['values'][number]) => {
    const toggle = href((s) => {
      const others = clauses.filter((c) => !(c.field === facet.field && c.op === 'eq' && c.value === v.value));
      const next = v.selected ? others : [...clauses, { field: facet.field, op: 'eq' as const, value: v.value }];
      setFilters(s, foldClauses(next));
    });
    const label = describeValue(v.value);
    return (
      <li class={v.selected ? 'selected' : undefined}>
        <a
          href={toggle}
          aria-label={`${v.selected ? 'Remove the filter' : 'Filter to'} ${facet.field} ${label} (${formatNumber(v.count)} records)`}
        >
          {v.selected && <span aria-hidden="true">✓ </span>}
          <span>{label}</span>
        </a>
        <span class="count" aria-hidden="true">
          {formatNumber(v.count)}
        </span>
      </li>
    );
  };
  if (facet.values.length === 0) return <p class="hint">No values in this view.</p>;
  return (
    <>
      <ul>{facet.values.slice(0, SHOWN).map(item)}</ul>
      {facet.values.length > SHOWN && (
        <details>
          <summary>{facet.values.length - SHOWN} more values</summary>
          <ul>{facet.values.slice(SHOWN).map(item)}</ul>
        </details>
      )}
    </>
  );
}

function FilterForm({
  fieldIds,
  clauses,
  search,
  pagePath,
}: {
  fieldIds: string[];
  clauses: FilterClause[];
  search: URLSearchParams;
  pagePath: string;
}) {
  const rows: (FilterClause | null)[] = [...clauses, null];
  return (
    <details class="filters" open={clauses.length > 0 ? true : undefined}>
      <summary>Filter by field</summary>
      <form method="get" action={pagePath}>
        <p class="hint">
          Records whose field holds the value ("is"), or compares with it ("at least", "less than"…: numbers by value,
          dates by time, text alphabetically). Several values for one field match any of them; several comparisons on
          one field must all hold; filters on different fields must all match. Empty a value to remove its filter.
        </p>
        {rows.map((clause, i) => (
          <fieldset class="filter-row">
            <legend class="visually-hidden">{clause ? `Filter ${i + 1}` : 'New filter'}</legend>
            <label for={`ff${i}`}>Field</label>
            <select id={`ff${i}`} name="_ff">
              {clause === null && <option value="">Choose a field</option>}
              {fieldIds.map((f) => (
                <option value={f} selected={clause?.field === f}>
                  {f}
                </option>
              ))}
            </select>
            <label for={`fo${i}`}>Condition</label>
            <select id={`fo${i}`} name="_fo">
              {FILTER_OPERATORS.map((o) => (
                <option value={o.id} selected={clause?.op === o.id}>
                  {o.label}
                </option>
              ))}
            </select>
            <label for={`fv${i}`}>Value</label>
            <input
              id={`fv${i}`}
              name="_fv"
              value={clause === null ? '' : clause.value === null ? '' : String(clause.value)}
            />
          </fieldset>
        ))}
        <Hidden search={search} except={['filters']} />
        <button type="submit">Apply filters</button>
      </form>
    </details>
  );
}

function FailureNotice({ failure }: { failure: PageFailure }) {
  const detail = failure.detail ? Object.entries(failure.detail).filter(([k]) => k !== '__type') : [];
  return (
    <div class="notice error" role="alert">
      <h2 class="h-small">This view cannot be shown</h2>
      <p>{detail.length > 0 ? 'Some parameters do not fit this resource:' : failure.message}</p>
      {detail.length > 0 && (
        <ul>
          {detail.map(([k, v]) => (
            <li>
              <code>{k}</code>: {Array.isArray(v) ? v.join('; ') : typeof v === 'string' ? v : JSON.stringify(v)}
            </li>
          ))}
        </ul>
      )}
      <p>
        Change the search, filters or sort above, or <a href="?">start again with every record</a>.
      </p>
    </div>
  );
}

interface ResultTableProps extends ResourcePageProps {
  result: SearchResult;
  sort: SortClause[] | null;
  href: (edit: (s: URLSearchParams) => void, keepOffset?: boolean) => string;
}

/**
 * The fields that name a row, for the label the record's link carries: a candidate's first name and surname, a
 * constituency's name, else the first text field. Shown beside the link in the column that stays in view, so that a
 * sorted column scrolled into view still says whose figure it is.
 */
function labelFields(fields: readonly { id: string; type: string }[]): string[] {
  const has = (spellings: readonly string[]) => spellings.find((s) => fields.some((f) => f.id === s));
  const first = has([...FIELD_NAMES.candidates.firstName, 'Candidate First Name']);
  const surname = has([...FIELD_NAMES.candidates.surname]);
  if (first && surname) return [first, surname];
  if (surname) return [surname];
  const constituency = has([...FIELD_NAMES.constituencies.name]);
  if (constituency) return [constituency];
  const text = fields.find((f) => f.type === 'text' && f.id !== '_id');
  return text ? [text.id] : [];
}

function ResultTable({ resource, result, sort, href, search, rowsDefault, pagePath }: ResultTableProps) {
  const total = result.total ?? 0;
  const { offset, limit } = result;
  const first = offset + 1;
  const last = offset + result.records.length;
  const range =
    result.records.length > 0
      ? `Rows ${formatNumber(first)}–${formatNumber(last)} of ${formatNumber(total)}`
      : `No rows${total > 0 ? ` here: the view has ${plural(total, 'row')}` : ''}`;
  const primary = sort?.[0];
  const fieldIds = result.fields.map((f) => f.id);
  // A search's rank orders the rows; it is not data, so the table leaves it out (the API call keeps it).
  const shown = result.fields.filter((f) => !isTechnicalColumn(f));
  const caption = `${resource.definition.name}: ${range.toLowerCase()}${sort && sort.length > 0 ? `, ${sortDescription(sort)}` : ''}`;
  const recordHref = (id: unknown) => `${pagePath}/record/${encodeURIComponent(String(id))}`;
  const labelled = labelFields(result.fields);
  const labelOf = (record: Record<string, unknown>) =>
    labelled
      .map((f) => record[f])
      .filter((v) => v !== null && v !== undefined && v !== '')
      .map((v) => displayName(String(v)))
      .join(' ');
  const lastOffset = total > 0 && limit > 0 ? Math.floor((total - 1) / limit) * limit : 0;
  // A page of a sorted view opens on the sorted column, as the sort itself did.
  const pageLink = (to: number) =>
    `${href((s) => {
      if (to > 0) s.set('offset', String(to));
      else s.delete('offset');
    }, false)}${primary ? '#sorted' : ''}`;

  return (
    <>
      <p class="range" id="range">
        {range}
        {sort && sort.length > 0 ? ` · ${sortDescription(sort)}` : ''}
      </p>
      {result.records.length === 0 ? (
        <div class="notice">
          <p>{total > 0 ? 'This page is past the last row.' : 'No records match this view.'}</p>
          {total > 0 && (
            <p>
              <a href={pageLink(lastOffset)}>Go to the last page</a>
            </p>
          )}
          {total === 0 && (search.has('q') || search.has('filters')) && <p>Try fewer words, or remove a filter.</p>}
        </div>
      ) : (
        <DataTable
          scroll={`${resource.definition.name}, table`}
          class="data resource-table"
          caption={caption}
          head={
            <>
              {shown.map((f) => {
                const sorted = sort?.find((s) => s.field === f.id);
                const isPrimary = primary?.field === f.id;
                const numeric = isNumericType(f.type);
                // Numbers are most often wanted largest first; names A to Z.
                const next = sorted ? (sorted.descending ? null : true) : numeric;
                const link = href((s) => setSort(s, next === null ? [] : [{ field: f.id, descending: next }]));
                const state = sorted ? (sorted.descending ? 'descending' : 'ascending') : null;
                const action = next === null ? 'remove the sort' : `sort ${next ? 'descending' : 'ascending'}`;
                return (
                  <SortHead
                    label={f.id}
                    numeric={numeric}
                    state={state}
                    href={`${link}${next === null ? '#results' : '#sorted'}`}
                    action={action}
                    marked={isPrimary}
                    id={isPrimary ? 'sorted' : undefined}
                  />
                );
              })}
            </>
          }
        >
          {result.records.map((record) => (
            <tr>
              {shown.map((f) => {
                const value = record[f.id];
                if (f.id === '_id') {
                  const label = labelOf(record);
                  return (
                    <td class="num record-cell">
                      <a href={recordHref(value)} aria-label={`Record ${String(value)}`}>
                        {String(value)}
                      </a>
                      {label && (
                        <span class="row-label" lang={labelled.some(isIrishField) ? 'ga' : undefined}>
                          {label}
                        </span>
                      )}
                    </td>
                  );
                }
                return (
                  <td
                    class={isNumericType(f.type) ? 'num' : value === null ? 'null' : undefined}
                    lang={isIrishField(f.id) ? 'ga' : undefined}
                  >
                    {cellText(value, f.type, f.id)}
                  </td>
                );
              })}
            </tr>
          ))}
        </DataTable>
      )}
      {!fieldIds.includes('_id') && result.records.length > 0 && (
        <p class="hint">
          Show the <code>_id</code> column to link each row to its record page.
        </p>
      )}
      <nav class="pager" aria-label="Pages">
        <ul>
          <li>{offset > 0 ? <a href={pageLink(0)}>First</a> : <span aria-disabled="true">First</span>}</li>
          <li>
            {offset > 0 ? (
              <a href={pageLink(Math.max(0, offset - limit))} rel="prev">
                Previous
              </a>
            ) : (
              <span aria-disabled="true">Previous</span>
            )}
          </li>
          <li>
            {offset + limit < total && limit > 0 ? (
              <a href={pageLink(offset + limit)} rel="next">
                Next
              </a>
            ) : (
              <span aria-disabled="true">Next</span>
            )}
          </li>
          <li>
            {offset < lastOffset ? <a href={pageLink(lastOffset)}>Last</a> : <span aria-disabled="true">Last</span>}
          </li>
        </ul>
        <p class="page-sizes">
          Rows per page:{' '}
          {PAGE_SIZES.map((size, i) => (
            <>
              {i > 0 && ' '}
              {size === limit ? (
                <strong aria-current="true">{size}</strong>
              ) : (
                <a
                  href={href((s) => {
                    if (size === rowsDefault) s.delete('limit');
                    else s.set('limit', String(size));
                  })}
                  aria-label={`${size} rows per page`}
                >
                  {size}
                </a>
              )}
            </>
          ))}
        </p>
      </nav>
    </>
  );
}

function ViewOptions({
  fieldIds,
  search,
  pagePath,
  sort,
}: {
  fieldIds: string[];
  search: URLSearchParams;
  pagePath: string;
  sort: SortClause[];
}) {
  const shown = readFields(search);
  const levels = [0, 1, 2];
  return (
    <div class="view-options">
      <details>
        <summary>Choose columns</summary>
        <form method="get" action={pagePath}>
          <fieldset>
            <legend>Columns to show</legend>
            <ul class="columns">
              {['_id', ...fieldIds].map((f, i) => (
                <li>
                  <input type="checkbox" id={`col${i}`} name="_col" value={f} checked={!shown || shown.includes(f)} />
                  <label for={`col${i}`}>{f}</label>
                </li>
              ))}
            </ul>
          </fieldset>
          <input type="hidden" name="_cols" value="1" />
          <Hidden search={search} except={['fields']} />
          <button type="submit">Show these columns</button>
        </form>
      </details>
      <details>
        <summary>Sort by several columns</summary>
        <form method="get" action={pagePath}>
          {levels.map((level) => (
            <fieldset class="sort-level">
              <legend>{level === 0 ? 'Sort by' : 'Then by'}</legend>
              <label for={`s${level}`}>Column</label>
              <select id={`s${level}`} name={`_s${level + 1}`}>
                <option value="">(none)</option>
                {['_id', ...fieldIds].map((f) => (
                  <option value={f} selected={sort[level]?.field === f}>
                    {f}
                  </option>
                ))}
              </select>
              <label for={`d${level}`}>Order</label>
              <select id={`d${level}`} name={`_d${level + 1}`}>
                <option value="asc" selected={sort[level] ? !sort[level]!.descending : undefined}>
                  ascending
                </option>
                <option value="desc" selected={sort[level]?.descending ? true : undefined}>
                  descending
                </option>
              </select>
            </fieldset>
          ))}
          <input type="hidden" name="_sorting" value="1" />
          <Hidden search={search} except={['sort']} />
          <button type="submit">Sort</button>
        </form>
      </details>
    </div>
  );
}
