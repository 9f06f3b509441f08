// The page shell and the small components every page shares: breadcrumbs, party chips, figures with their data
// and API link, scrollable table regions. Markup only; text and attributes are escaped by preact as they render.

import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Assets } from '../assets.js';
import { excelHref, type ChartDownload, type TableDownload } from '../downloads.js';
import { partyColour } from '../party-colours.js';

export interface Crumb {
  label: string;
  href?: string;
}

/** Where a dataset a page draws on comes from, and under what terms, as its catalogue entry says. */
export interface SourceNote {
  title: string;
  /** Null when the catalogue gives none: the footer then says the licence is not specified. */
  licence: { title: string; url: string | null } | null;
  attribution: string;
  source: string;
  href: string | null;
}

/** A dataset whose figures are not official, said at the top of every page that shows them. */
export interface UnofficialNote {
  label: string;
  /** What the catalogue says is unofficial in it. */
  detail: string;
  /** Its consistency checks, where it has them. */
  checksHref: string | null;
  wikipedia: boolean;
}

export interface PageShell {
  title: string;
  crumbs: Crumb[];
  /** The same data as JSON: an API URL. */
  alternate: string | null;
  /** Extra links for the header's navigation: shown when more than one election is loaded. */
  compare: boolean;
  /** The datasets the page draws on: their sources and licences in the footer. */
  sources: SourceNote[];
  unofficial: UnofficialNote[];
}

export function renderPage(shell: PageShell, assets: Assets, body: VNode): string {
  return `<!doctype html>${renderToString(
    <Layout shell={shell} assets={assets}>
      {body}
    </Layout>,
  )}`;
}

function Layout({ shell, assets, children }: { shell: PageShell; assets: Assets; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${shell.title} · Count Centre`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={assets.css.url} />
        {shell.alternate && <link rel="alternate" type="application/json" href={shell.alternate} />}
        <script src={assets.js.url} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          <a class="brand" href="/">
            Count Centre
          </a>
          <nav aria-label="Site">
            <ul>
              <li>
                <a href="/">Elections and data</a>
              </li>
              {shell.compare && (
                <li>
                  <a href="/elections">Elections over time</a>
                </li>
              )}
              {shell.compare && (
                <li>
                  <a href="/compare">Compare elections</a>
                </li>
              )}
              <li>
                <a href="/api/3/openapi.json" rel="nofollow">
                  API
                </a>
              </li>
            </ul>
          </nav>
          <form class="site-search" role="search" method="get" action="/search" aria-label="Search">
            <label for="site-q" class="visually-hidden">
              Search people, constituencies, parties and elections
            </label>
            <input
              type="search"
              id="site-q"
              name="q"
              placeholder="Search: a name, a place, a party"
              autocomplete="off"
              maxLength={200}
            />
            <button type="submit">Search</button>
          </form>
        </header>
        {shell.crumbs.length > 0 && (
          <nav class="crumbs" aria-label="Breadcrumb">
            <ol>
              {shell.crumbs.map((c, i) => (
                <li>
                  {c.href && i < shell.crumbs.length - 1 ? (
                    <a href={c.href}>{c.label}</a>
                  ) : (
                    <span aria-current="page">{c.label}</span>
                  )}
                </li>
              ))}
            </ol>
          </nav>
        )}
        <main id="main" tabindex={-1}>
          {shell.unofficial.length > 0 && <UnofficialNotice notes={shell.unofficial} />}
          {children}
        </main>
        <footer class="site">
          <Sources sources={shell.sources} />
          <p>
            Every page's data comes from the{' '}
            <a href="/api/3/openapi.json" rel="nofollow">
              CKAN-compatible API
            </a>{' '}
            it is served beside.
          </p>
        </footer>
      </body>
    </html>
  );
}

function listed(labels: string[]): string {
  return labels.length <= 1 ? labels.join('') : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}`;
}

/**
 * "Unofficial: derived from Wikipedia, checked against the official totals", with what exactly and the checks behind
 * it.
 */
function UnofficialNotice({ notes }: { notes: UnofficialNote[] }) {
  const how = notes.every((n) => n.wikipedia)
    ? 'derived from Wikipedia, checked against the official totals'
    : 'not the official files, checked against the official totals';
  const checked = notes.filter((n) => n.checksHref);
  return (
    <div class="notice unofficial" role="note">
      <p>
        <strong>
          Unofficial
          {notes.length > 1 || checked.length !== notes.length ? ` (${listed(notes.map((n) => n.label))})` : ''}:
        </strong>{' '}
        {how}.
        {checked.length > 0 && (
          <>
            {' '}
            See the consistency checks{checked.length > 1 ? ' of ' : ''}
            {checked.length > 1 ? (
              checked.map((n, i) => (
                <>
                  {i > 0 ? (i === checked.length - 1 ? ' and ' : ', ') : ''}
                  <a href={n.checksHref!}>{n.label}</a>
                </>
              ))
            ) : (
              <>
                : <a href={checked[0]!.checksHref!}>what was checked and what does not add up</a>
              </>
            )}
            .
          </>
        )}
      </p>
      <details>
        <summary>What is not official</summary>
        <ul>
          {notes.map((n) => (
            <li>
              {n.label}: {n.detail}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

/** Each dataset's source and licence, as its catalogue entry gives them. */
function Sources({ sources }: { sources: SourceNote[] }) {
  if (sources.length === 0) return null;
  const one = (s: SourceNote) => (
    <>
      {s.source && <>Source: {s.source} </>}
      {s.attribution && <>{s.attribution} </>}
      {s.licence ? (
        <>
          Licence:{' '}
          {s.licence.url ? (
            <a href={s.licence.url} rel="license">
              {s.licence.title}
            </a>
          ) : (
            s.licence.title
          )}
          .
        </>
      ) : (
        'Licence not specified.'
      )}
    </>
  );
  if (sources.length === 1)
    return (
      <p class="sources">
        <strong>{sources[0]!.title}.</strong> {one(sources[0]!)}
      </p>
    );
  return (
    <details class="sources">
      <summary>This page draws on {sources.length} datasets: their sources and licences</summary>
      <ul>
        {sources.map((s) => (
          <li>
            <strong>{s.href ? <a href={s.href}>{s.title}</a> : s.title}.</strong> {one(s)}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** A party's colour as a small square beside its name: colour is never the only cue. */
export function PartyChip({ party, label }: { party: string; label?: string }) {
  return (
    <span class="party">
      <svg class="swatch" viewBox="0 0 10 10" width="10" height="10" aria-hidden="true" focusable="false">
        <rect width="10" height="10" fill={partyColour(party)} />
      </svg>
      {label ?? party}
    </span>
  );
}

/**
 * A party's name in a table's first column: the name, with its abbreviation beside it; on a phone the abbreviation
 * alone is shown, so that the figures fit beside it (the name is still what a screen reader reads).
 */
export function PartyName({ party, abbreviation, href }: { party: string; abbreviation: string; href: string | null }) {
  const name = (
    <span class="party">
      <svg class="swatch" viewBox="0 0 10 10" width="10" height="10" aria-hidden="true" focusable="false">
        <rect width="10" height="10" fill={partyColour(party)} />
      </svg>
      <span class="party-long">{party}</span>
      {abbreviation && abbreviation !== party && (
        <span class="party-short" aria-hidden="true">
          {abbreviation}
        </span>
      )}
    </span>
  );
  return (
    <>
      {href ? <a href={href}>{name}</a> : name}
      {abbreviation && abbreviation !== party && (
        <>
          {' '}
          <span class="hint party-abbreviation">{abbreviation}</span>
        </>
      )}
    </>
  );
}

/** A wide table's scrolling box: focusable and named, so keyboard users can scroll it and hear what it is. */
export function ScrollRegion({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="scroll" role="region" aria-label={label} tabindex={0}>
      {children}
    </div>
  );
}

export interface FigureProps {
  id: string;
  title: string;
  caption: ComponentChildren;
  svg: string;
  /** The chart's data, as a table. */
  data: VNode;
  /** The API call the data comes from. */
  api: string;
  legend?: { colour: string; label: string }[];
  /** The same chart drawn for a phone's width, shown there instead (text stays readable, nothing is clipped). */
  narrowSvg?: string;
  /** The chart as an SVG file and as a page to embed, and its figures as CSV. */
  downloads?: ChartDownload;
}

/** A chart as an accessible figure: caption, the image, its data as a table, and the API link behind it. */
export function Figure({ id, title, caption, svg, data, api, legend, narrowSvg, downloads }: FigureProps) {
  return (
    <figure id={id} class="chart-figure" aria-labelledby={`${id}-title`}>
      <figcaption>
        <span class="figure-title" id={`${id}-title`}>
          {title}
        </span>{' '}
        {caption}
      </figcaption>
      {legend && (
        <ul class="legend" aria-label="Legend">
          {legend.map((l) => (
            <li>
              <svg class="swatch" viewBox="0 0 10 10" width="10" height="10" aria-hidden="true" focusable="false">
                <rect width="10" height="10" fill={l.colour} />
              </svg>
              {l.label}
            </li>
          ))}
        </ul>
      )}
      {/* On a narrow screen the chart keeps a readable size and scrolls sideways in its own focusable box. */}
      <div
        class={`chart-box${narrowSvg ? ' chart-wide' : ''}`}
        role="region"
        aria-label={`${title.replace(/\.$/, '')}: chart`}
        tabindex={0}
        dangerouslySetInnerHTML={{ __html: svg }}
      />
      {narrowSvg && (
        <div
          class="chart-box chart-narrow"
          role="region"
          aria-label={`${title.replace(/\.$/, '')}: chart`}
          tabindex={0}
          dangerouslySetInnerHTML={{ __html: narrowSvg }}
        />
      )}
      <details class="figure-data">
        <summary>Show the data</summary>
        <ScrollRegion label={`${title.replace(/\.$/, '')}: the data`}>{data}</ScrollRegion>
      </details>
      {downloads && <ChartLinks downloads={downloads} />}
      <p class="api-link">
        <a href={api} rel="nofollow">
          The records behind this chart (JSON, from the API)
        </a>
      </p>
    </figure>
  );
}

/** A chart's links: the image as an SVG file, a version other sites may embed, and the figures as CSV. */
export function ChartLinks({ downloads }: { downloads: ChartDownload }) {
  const what = <span class="visually-hidden"> of {downloads.label}</span>;
  return (
    <p class="take-away">
      Take it away: <a href={downloads.svg}>SVG{what}</a> · <a href={downloads.embed}>To embed{what}</a> ·{' '}
      <a href={downloads.csv}>CSV{what}</a> · <a href={excelHref(downloads.csv)}>CSV for Excel{what}</a>
    </p>
  );
}

/** A table's figures as CSV, and as CSV with the byte order mark Excel needs to keep the fadas. */
export function TableLinks({ download }: { download: TableDownload }) {
  const what = <span class="visually-hidden"> of {download.label}</span>;
  return (
    <p class="take-away">
      This table: <a href={download.csv}>CSV{what}</a> · <a href={excelHref(download.csv)}>CSV for Excel{what}</a>
    </p>
  );
}

export function Num({ value, children }: { value?: number | null; children?: ComponentChildren }) {
  return <td class="num">{children ?? value}</td>;
}

/** The heads of numeric columns, right-aligned like their cells (Num). */
export function NumHeads({ labels }: { labels: readonly string[] }) {
  return (
    <>
      {labels.map((label) => (
        <th scope="col" class="num">
          {label}
        </th>
      ))}
    </>
  );
}

export interface TableHeadProps {
  text: readonly string[];
  numeric?: readonly string[];
  after?: readonly string[];
}

/**
 * A data table: its caption, a head row (of text and numeric columns, or `head`'s own cells), its rows (the children)
 * and, where given, a foot row of `foot`'s cells. With `scroll`, it scrolls sideways in a region of that name.
 */
export function DataTable(
  props: (TableHeadProps | { head: ComponentChildren }) & {
    class: string;
    id?: string;
    scroll?: string;
    caption: ComponentChildren;
    foot?: ComponentChildren;
    children: ComponentChildren;
    /** The table's figures as CSV, linked below it. */
    download?: TableDownload;
  },
) {
  const { class: className, id, scroll, caption, foot, children, download } = props;
  const table = (
    <table class={className} id={id}>
      <caption>{caption}</caption>
      {'head' in props ? (
        <thead>
          <tr>{props.head}</tr>
        </thead>
      ) : (
        <TableHead text={props.text} numeric={props.numeric} after={props.after} />
      )}
      <tbody>{children}</tbody>
      {foot && (
        <tfoot>
          <tr>{foot}</tr>
        </tfoot>
      )}
    </table>
  );
  const shown = scroll === undefined ? table : <ScrollRegion label={scroll}>{table}</ScrollRegion>;
  return download ? (
    <>
      {shown}
      <TableLinks download={download} />
    </>
  ) : (
    shown
  );
}

/** A table's head row: its text columns, then its numeric ones, then any text columns after those. */
export function TableHead({ text, numeric = [], after = [] }: TableHeadProps) {
  return (
    <thead>
      <tr>
        <TextHeads labels={text} />
        <NumHeads labels={numeric} />
        <TextHeads labels={after} />
      </tr>
    </thead>
  );
}

function TextHeads({ labels }: { labels: readonly string[] }) {
  return (
    <>
      {labels.map((label) => (
        <th scope="col">{label}</th>
      ))}
    </>
  );
}

/** The head of a column that sorts the table: a link to sort by it, saying how it is sorted now. */
export function SortHead({
  label,
  numeric,
  state,
  href,
  action,
  marked = true,
  id,
}: {
  label: string;
  numeric: boolean;
  state: 'ascending' | 'descending' | null;
  href: string;
  /** What following the link does ("sort descending"). */
  action: string;
  /** Whether the table says (aria-sort) it is sorted by this column: only by its first sort, when it has several. */
  marked?: boolean;
  id?: string;
}) {
  return (
    <th scope="col" class={numeric ? 'num' : undefined} aria-sort={marked ? (state ?? undefined) : undefined} id={id}>
      <a href={href} aria-label={`${label}${state ? `, sorted ${state}` : ''}: ${action}`}>
        {label}
        <span class="sort-mark" aria-hidden="true">
          {state === 'ascending' ? ' ▲' : state === 'descending' ? ' ▼' : ' ⇅'}
        </span>
      </a>
    </th>
  );
}

/** A list of links. */
export function LinkList({
  links,
  class: className,
}: {
  links: readonly { label: string; href: string }[];
  class?: string;
}) {
  return (
    <ul class={className}>
      {links.map((l) => (
        <li>
          <a href={l.href}>{l.label}</a>
        </li>
      ))}
    </ul>
  );
}

/** A fact box's entry. */
export function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Text in Irish, marked so that screen readers pronounce it as Irish. */
export function Ga({ children }: { children: ComponentChildren }) {
  return <span lang="ga">{children}</span>;
}
