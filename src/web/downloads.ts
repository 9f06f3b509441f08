// Tables and charts to take away: the figures a page shows as CSV (not the raw records: the API and the resource
// pages have those), each chart as a standalone SVG file, and each chart as a small page other sites may frame. Their
// addresses sit under the page they come from (`…/data/<table>.csv`, `…/charts/<chart>.svg`, `…/charts/<chart>/embed`),
// so a link keeps working as long as the page does; the headers that differ from a page's are decided here, from the
// address alone, so that a kept answer is sent with the same ones.

import type { PageResult } from './page-context.js';

export type Cell = string | number | null;

/** A table as it is downloaded: its columns, and its rows in the order shown. */
export interface CsvTable {
  columns: string[];
  rows: Cell[][];
}

const CSV_TYPE = 'text/csv; charset=utf-8';
const SVG_TYPE = 'image/svg+xml; charset=utf-8';

function csvCell(value: Cell): string {
  if (value === null) return '';
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 text (CRLF line ends, fields quoted where they must be); with a byte order mark for Excel, if asked. */
export function csvText(table: CsvTable, excel = false): string {
  const lines = [table.columns, ...table.rows].map((row) => row.map(csvCell).join(','));
  return `${excel ? '\uFEFF' : ''}${lines.join('\r\n')}\r\n`;
}

/** A number rounded as the page shows it: a share of 0.2453 as 24.5 (percent), a change to one decimal place. */
export function rounded(value: number | null | undefined, digits = 1): number | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  return Number(value.toFixed(digits));
}

/** A 0–1 share as the percentage a page shows, to one decimal place. */
export const percent = (share: number | null | undefined): number | null =>
  share === null || share === undefined ? null : rounded(share * 100);

/** The answer for `…/data/<table>.csv`: the named table, or why there is none. */
export function csvAnswer(tables: Record<string, CsvTable>, file: string, excel: boolean): PageResult | null {
  const match = /^([a-z0-9-]+)\.csv$/.exec(file);
  const table = match ? tables[match[1]!] : undefined;
  if (!table) return null;
  return { status: 200, body: csvText(table, excel), contentType: CSV_TYPE };
}

/** Whether the search asks for the byte order mark Excel needs to read the fadas. */
export const wantsExcel = (search: URLSearchParams) => search.get('bom') === 'true';

/**
 * A chart as a file of its own: the markup the page shows, given the namespace, a title, a white background and the
 * font the stylesheet gives it on the page, as attributes (a file has no stylesheet, and a style element would need
 * an exception to the Content-Security-Policy).
 */
export function standaloneSvg(svg: string, title: string): string {
  const open = /^<svg\b[^>]*>/.exec(svg);
  if (!open) throw new Error('not an SVG element');
  // The page's stylesheet sets the font and colour Plot's defaults leave: as a file, the attributes say them instead.
  let tag = open[0].replace(/\s(class|font-size|font-family|fill)="[^"]*"/g, '');
  if (!/\sxmlns=/.test(tag)) tag = tag.replace(/^<svg/, '<svg xmlns="http://www.w3.org/2000/svg"');
  tag = tag.replace(/>$/, ' font-family="system-ui, sans-serif" font-size="12" fill="#1b1b1b">');
  const escaped = title.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${tag}<title>${escaped}</title><rect width="100%" height="100%" fill="#fff"/>${svg.slice(open[0].length)}\n`;
}

/** The answer for `…/charts/<chart>.svg`: the named chart as a file, or null when there is none. */
export function svgAnswer(
  charts: Record<string, { title: string; svg: () => string }>,
  file: string,
): PageResult | null {
  const match = /^([a-z0-9-]+)\.svg$/.exec(file);
  const chart = match ? charts[match[1]!] : undefined;
  if (!chart) return null;
  return { status: 200, body: standaloneSvg(chart.svg(), chart.title), contentType: SVG_TYPE };
}

/** Addresses of a chart's embeddable page: the only pages other sites may frame. */
export const isEmbedPath = (path: string) => /\/charts\/[a-z0-9-]+\/embed$/.test(path);

/**
 * The pages' policy with framing allowed from anywhere: for the embeddable charts alone. Everything else they load
 * (the stylesheet) is still this site's own.
 */
export function framedPolicy(policy: string): string {
  return policy.replace("frame-ancestors 'none'", 'frame-ancestors *');
}

/** Headers an answer's address adds to a page's: a CSV is a file to save, under a name that says what it holds. */
export function downloadHeaders(path: string): Record<string, string> {
  const csv = /\/data\/([a-z0-9-]+)\.csv$/.exec(path);
  if (!csv) return {};
  const name = path
    .replace(/^\//, '')
    .replace(/\/data\/[a-z0-9-]+\.csv$/, '')
    .split('/')
    .filter((part) => !['election', 'constituencies', 'parties'].includes(part))
    .map((part) => decodeURIComponent(part).replace(/[^A-Za-z0-9-]+/g, '-'))
    .concat(csv[1]!)
    .join('-');
  return { 'content-disposition': `attachment; filename="${name}.csv"` };
}

/** The links to a table's figures, for a page. */
export interface TableDownload {
  csv: string;
  /** What the table is, for the links' accessible names. */
  label: string;
}

/** The links to a chart as a file and as an embeddable page, with its data. */
export interface ChartDownload extends TableDownload {
  svg: string;
  embed: string;
}

/**
 * Addresses of the tables and charts under `base` (the page, or for an election's own pages the election), with any
 * query that selects the state they show (`count=3`).
 */
export function downloadsUnder(base: string, query = '') {
  const q = query ? `?${query}` : '';
  return {
    table: (id: string, label: string): TableDownload => ({ csv: `${base}/data/${id}.csv${q}`, label }),
    chart: (id: string, label: string, table = id): ChartDownload => ({
      csv: `${base}/data/${table}.csv${q}`,
      svg: `${base}/charts/${id}.svg${q}`,
      embed: `${base}/charts/${id}/embed${q}`,
      label,
    }),
  };
}

/** The same CSV with the byte order mark Excel needs. */
export const excelHref = (csv: string) => `${csv}${csv.includes('?') ? '&' : '?'}bom=true`;
