// Browser tests' harness: Debian's Chromium driven by playwright-core (never a downloaded browser), the service
// listening on a free port, pages opened with or without JavaScript, axe-core run inside them, and every
// Content-Security-Policy violation or script error collected so a test can require none.

import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PROJECT_ROOT, type Settings } from '../../src/settings.js';
import { startService, type TestBackend, type TestService } from './service.js';

export const CHROMIUM = process.env.COUNTCENTRE_CHROMIUM ?? '/usr/bin/chromium';

const HEADLESS_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

export async function launchBrowser(executable = CHROMIUM): Promise<Browser> {
  if (!fs.existsSync(executable)) {
    throw new Error(
      `The browser tests need Chromium at ${executable}, which is missing. Install it with \`apt-get install -y chromium\` ` +
        "(the README's install command), or set COUNTCENTRE_CHROMIUM to another Chromium binary.",
    );
  }
  return chromium.launch({ executablePath: executable, args: HEADLESS_FLAGS });
}

export interface ServedExplorer {
  service: TestService;
  base: string;
  close(): Promise<void>;
}

/** The service, listening on a free port, for the browser. */
export async function serveExplorer(overrides: Partial<Settings>, backend: TestBackend): Promise<ServedExplorer> {
  const service = await startService(overrides, backend);
  return { service, base: service.address, close: () => service.close() };
}

export interface Tab {
  page: Page;
  context: BrowserContext;
  /** CSP violations, script errors and failed requests (other than expected error statuses) seen so far. */
  problems: string[];
  close(): Promise<void>;
}

export async function openTab(
  browser: Browser,
  options: { javaScript: boolean; width?: number; height?: number },
): Promise<Tab> {
  const context = await browser.newContext({
    javaScriptEnabled: options.javaScript,
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    // Error statuses the tests ask for (404, 409 pages) are reported by Chromium as failed loads; they are expected.
    if (/Failed to load resource: the server responded with a status of (404|409|400)/.test(text)) return;
    if (message.type() === 'error' || /Content Security Policy/i.test(text)) problems.push(text);
  });
  page.on('pageerror', (err) => problems.push(`script error: ${err.message}`));
  return { page, context, problems, close: () => context.close() };
}

const AXE_SOURCE = fs.readFileSync(path.join(PROJECT_ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  help: string;
  targets: string[];
}

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is now. axe is evaluated through the DevTools protocol, which
 * the page's Content-Security-Policy does not govern; it needs JavaScript on in the tab.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{ violations: { id: string; help: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    return axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    });
  });
  return result.violations.map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/** The page does not scroll sideways: it reflows (WCAG 1.4.10, 320 CSS pixels = 1280 at 400 % zoom). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
}

/** Visible text of the first element matching `selector`, spaces collapsed. */
export async function textOf(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().innerText()) ?? '').replace(/\s+/g, ' ').trim();
}
