// A chart on its own, for other sites to frame: its title and caption, the image, and where it comes from, with links
// to the page it belongs to, its data and the file. No site header or navigation: a frame has no room for them.

import { renderToString } from 'preact-render-to-string';
import type { Assets } from '../assets.js';
import { excelHref, type ChartDownload } from '../downloads.js';

export interface EmbedProps {
  title: string;
  caption: string;
  svg: string;
  /** The page the chart belongs to, and its title. */
  page: { href: string; title: string };
  downloads: ChartDownload;
  /** The source of the figures, as the page's footer gives it. */
  source: string;
  /** What the chart's colours mean, where the image does not say. */
  legend: { colour: string; label: string }[];
}

export function renderEmbed(props: EmbedProps, assets: Assets): string {
  return `<!doctype html>${renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Count Centre`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={assets.css.url} />
      </head>
      <body class="embed">
        <main>
          <figure class="chart-figure embedded" aria-labelledby="embed-title">
            <figcaption>
              <span class="figure-title" id="embed-title">
                {props.title}
              </span>{' '}
              {props.caption}
            </figcaption>
            {props.legend.length > 0 && (
              <ul class="legend" aria-label="Legend">
                {props.legend.map((l) => (
                  <li>
                    <svg class="swatch" viewBox="0 0 10 10" width="10" height="10" aria-hidden="true" focusable="false">
                      <rect width="10" height="10" fill={l.colour} />
                    </svg>
                    {l.label}
                  </li>
                ))}
              </ul>
            )}
            <div
              class="chart-box"
              role="region"
              aria-label={`${props.title.replace(/\.$/, '')}: chart`}
              tabindex={0}
              dangerouslySetInnerHTML={{ __html: props.svg }}
            />
            <p class="embed-source">
              {props.source}{' '}
              <a href={props.page.href} target="_blank" rel="noopener">
                {props.page.title} on Count Centre
              </a>{' '}
              · <a href={props.downloads.csv}>The figures as CSV</a> ·{' '}
              <a href={excelHref(props.downloads.csv)}>CSV for Excel</a> · <a href={props.downloads.svg}>SVG</a>
            </p>
          </figure>
        </main>
      </body>
    </html>,
  )}`;
}
