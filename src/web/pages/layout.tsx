// The page shell and the small components every page shares: breadcrumbs, party chips, figures with their data
// and API link, scrollable table regions. Markup only; text and attributes are escaped by preact as they render.

import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Assets } from '../assets.js';
import { partyColour } from '../party-colours.js';

export interface Crumb {
  label: string;
  href?: string;
}

export interface PageShell {
  title: string;
  crumbs: Crumb[];
  /** The same data as JSON: an API URL. */
  alternate: string | null;
  /** Extra links for the header's navigation: shown when more than one election is loaded. */
  compare: boolean;
  attribution: string[];
}

export function renderPage(shell: PageShell, assets: Assets, body: VNode): string {
  return `<!doctype html>${renderToString(<Layout shell={shell} assets={assets}>{body}</Layout>)}`;
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
        <a class="skip" href="#main">Skip to content</a>
        <header class="site">
          <a class="brand" href="/">Count Centre</a>
          <nav aria-label="Site">
            <ul>
              <li><a href="/">Elections and data</a></li>
              {shell.compare && <li><a href="/compare">Compare elections</a></li>}
              <li><a href="/api/3/openapi.json" rel="nofollow">API</a></li>
            </ul>
          </nav>
        </header>
        {shell.crumbs.length > 0 && (
          <nav class="crumbs" aria-label="Breadcrumb">
            <ol>
              {shell.crumbs.map((c, i) => (
                <li>{c.href && i < shell.crumbs.length - 1 ? <a href={c.href}>{c.label}</a> : <span aria-current="page">{c.label}</span>}</li>
              ))}
            </ol>
          </nav>
        )}
        <main id="main" tabindex={-1}>{children}</main>
        <footer class="site">
          {shell.attribution.map((a) => <p>{a}</p>)}
          <p>Every page's data comes from the <a href="/api/3/openapi.json" rel="nofollow">CKAN-compatible API</a> it is served beside.</p>
        </footer>
      </body>
    </html>
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

/** A wide table's scrolling box: focusable and named, so keyboard users can scroll it and hear what it is. */
export function ScrollRegion({ label, children }: { label: string; children: ComponentChildren }) {
  return <div class="scroll" role="region" aria-label={label} tabindex={0}>{children}</div>;
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
}

/** A chart as an accessible figure: caption, the image, its data as a table, and the API link behind it. */
export function Figure({ id, title, caption, svg, data, api, legend }: FigureProps) {
  return (
    <figure id={id} class="chart-figure" aria-labelledby={`${id}-title`}>
      <figcaption>
        <span class="figure-title" id={`${id}-title`}>{title}</span> {caption}
      </figcaption>
      {legend && (
        <ul class="legend" aria-label="Legend">
          {legend.map((l) => (
            <li>
              <svg class="swatch" viewBox="0 0 10 10" width="10" height="10" aria-hidden="true" focusable="false"><rect width="10" height="10" fill={l.colour} /></svg>
              {l.label}
            </li>
          ))}
        </ul>
      )}
      {/* On a narrow screen the chart keeps a readable size and scrolls sideways in its own focusable box. */}
      <div class="chart-box" role="region" aria-label={`${title.replace(/\.$/, '')}: chart`} tabindex={0} dangerouslySetInnerHTML={{ __html: svg }} />
      <details class="figure-data">
        <summary>Show the data</summary>
        <ScrollRegion label={`${title.replace(/\.$/, '')}: the data`}>{data}</ScrollRegion>
      </details>
      <p class="api-link"><a href={api} rel="nofollow">The records behind this chart (JSON, from the API)</a></p>
    </figure>
  );
}

export function Num({ value, children }: { value?: number | null; children?: ComponentChildren }) {
  return <td class="num">{children ?? value}</td>;
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
