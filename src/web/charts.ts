// Charts rendered on the server to static SVG with Observable Plot (and linkedom as its document), so nothing runs in
// the browser. Plot's output is adjusted for a strict Content-Security-Policy and for assistive technology: its
// inline <style> goes (the stylesheet styles `svg.chart`), and the chart is one image (`role="img"` and the label on
// the <svg>) instead of labelled groups, which axe-core rejects on <g>. Each chart sits in a <figure> with its data.

import type * as PlotModule from '@observablehq/plot';
import { BoundedCache } from '../util/bounded-cache.js';
import { memoKey } from '../util/version-memos.js';
import type { ActionClient } from './data.js';

/**
 * Plot and linkedom weigh some 40 MB in a process: they are loaded with the first page that draws a chart, not at
 * start, so that a process serving only the API (or pages without charts) never holds them.
 */
let engine: { Plot: typeof PlotModule; document: Document } | null = null;
let loading: Promise<void> | null = null;

/** Loads the chart engine, once; a page that draws charts awaits it first. */
export function loadCharts(): Promise<void> {
  loading ??= Promise.all([import('@observablehq/plot'), import('linkedom')]).then(([Plot, { parseHTML }]) => {
    const { document } = parseHTML('<!doctype html><html><head></head><body></body></html>');
    engine = { Plot, document: document as unknown as Document };
  });
  return loading;
}

function loaded(): NonNullable<typeof engine> {
  if (!engine) throw new Error('the chart engine is not loaded: await loadCharts() before drawing');
  return engine;
}

export interface ChartSvg {
  /** The SVG's markup, safe to insert as is. */
  svg: string;
}

/** Renders a Plot specification to SVG markup described by `label` (what a screen reader announces). */
export function renderChart(
  label: string,
  options: PlotModule.PlotOptions,
  { narrow = false }: { narrow?: boolean } = {},
): ChartSvg {
  const { Plot, document } = loaded();
  const node = Plot.plot({ ...options, document }) as unknown as Element;
  const svg = node.tagName.toLowerCase() === 'svg' ? node : node.querySelector('svg');
  if (!svg) throw new Error('chart rendered no svg');
  for (const style of [...svg.querySelectorAll('style')]) style.remove();
  for (const element of [...svg.querySelectorAll('[aria-label]')]) element.removeAttribute('aria-label');
  for (const element of [svg, ...svg.querySelectorAll('[style]')]) element.removeAttribute('style');
  for (const element of [...svg.querySelectorAll('[aria-description]')]) element.removeAttribute('aria-description');
  // A narrow chart is drawn for a phone's width: it scales to the screen instead of keeping a desktop width.
  svg.setAttribute('class', narrow ? 'chart chart-small' : 'chart');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.removeAttribute('aria-description');
  return { svg: svg.outerHTML };
}

/** Plot's marks (barX, ruleX, text, …), from the loaded engine. */
export const Marks = new Proxy({} as typeof PlotModule, {
  get: (_target, name) => (loaded().Plot as unknown as Record<string | symbol, unknown>)[name],
});

/**
 * Chart images, kept with the version of the data: a chart depends only on the data, and drawing one with Plot costs
 * several milliseconds, far more than the rest of a page. Bounded by count (the least recently used go first).
 */
const CHARTS = memoKey<BoundedCache<string, string>>('web: chart images');

/** The chart `key` names for this version of the data, drawn the first time it is asked for. */
export function chartOf(client: ActionClient, key: string, draw: () => string): string {
  return client.memo(CHARTS, () => new BoundedCache<string, string>(2000)).getOrCreate(key, draw);
}
