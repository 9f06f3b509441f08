// The newsroom's search and people journeys in Debian's Chromium, with and without JavaScript, at 1280 and 360 px:
// "michael martin", "varadker", "dublin bay south" and "sinn fein" each reach the right page from home in two clicks
// (submitting the box is one, following a result the second); "a" read to its last result by paging; a search too
// long answered with a page; Eamon Ryan one person, Seán Ó Fearghaíl's automatic returns, the year and first
// preferences of each candidacy in view on a phone; every page type of this work with axe-core at 0 violations.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  axeViolations,
  launchBrowser,
  openTab,
  scrollsSideways,
  serveExplorer,
  textOf,
  type ServedExplorer,
} from '../helpers/browser.js';
import { BROWSER_BACKENDS } from '../helpers/service.js';

const MODES = [
  { javaScript: true, label: 'with JavaScript' },
  { javaScript: false, label: 'without JavaScript' },
];
const WIDTHS = [1280, 360];

/** Each journey of the issue: what is typed in the home page's box, the link followed, where it lands. */
const JOURNEYS = [
  { q: 'michael martin', follow: 'Micheál Martin', lands: '/people/micheal-martin', h1: 'Micheál Martin' },
  { q: 'varadker', follow: 'Leo Varadkar', lands: '/people/leo-varadkar', h1: 'Leo Varadkar' },
  {
    q: 'dublin bay south',
    follow: 'Dublin Bay South',
    lands: '/election/general-election-2024/constituencies/dublin-bay-south',
    h1: 'Dublin Bay South · Cuan Bhaile Átha Cliath Theas',
  },
  { q: 'sinn fein', follow: 'Sinn Féin', lands: '/election/general-election-2024/parties/sinn-fein', h1: 'Sinn Féin' },
];

/** The page's clicks, counted: every navigation that a person's click or submit started. */
async function clicksTo(page: Page, base: string, journey: (typeof JOURNEYS)[number]): Promise<number> {
  let clicks = 0;
  await page.goto(`${base}/`);
  await page.getByRole('searchbox', { name: 'Search every election: people, constituencies, parties' }).fill(journey.q);
  await page.getByRole('search', { name: 'Search every election' }).getByRole('button', { name: 'Search' }).click();
  clicks++;
  await page.waitForURL(/\/search\?q=/);
  // The first link to the page meant: "did you mean" where nothing matched exactly, else the first result.
  await page.getByRole('main').getByRole('link', { name: journey.follow, exact: true }).first().click();
  clicks++;
  await page.waitForURL(`**${journey.lands}`);
  return clicks;
}

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser?.close());

for (const backend of BROWSER_BACKENDS)
  describe(`the newsroom's search and people in Chromium [${backend}]`, () => {
    let served: ServedExplorer;
    before(async () => {
      served = await serveExplorer({}, backend);
    });
    after(() => served.close());

    for (const width of WIDTHS)
      for (const mode of MODES) {
        const label = `${width} px, ${mode.label}`;

        test(`from home in two clicks: michael martin, varadker, dublin bay south, sinn fein (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            for (const journey of JOURNEYS) {
              assert.equal(await clicksTo(page, served.base, journey), 2, journey.q);
              assert.equal(await textOf(page, 'h1'), journey.h1, journey.q);
              assert.equal(await scrollsSideways(page), false, `${journey.q}: no sideways scroll`);
            }
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });

        test(`"a" read to its last result a page at a time; a search too long answered with a page (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            await page.goto(`${served.base}/search?q=a`);
            const total = Number(/^(\d+) results/.exec(await textOf(page, '#results-title'))![1]);
            const seen = new Set<string>();
            for (;;) {
              for (const href of await page
                .locator('.search-results .result-title a')
                .evaluateAll((links) => links.map((a) => a.getAttribute('href')!)))
                seen.add(href);
              const next = page.getByRole('navigation', { name: 'Pages of results', exact: true }).getByRole('link', {
                name: 'Next',
              });
              if ((await next.count()) === 0) break;
              await next.click();
              await page.waitForURL(/page=\d+/);
            }
            assert.equal(seen.size, total, 'every result once');
            assert.match(await textOf(page, 'nav.pager p'), /^Page (\d+) of \1$/);

            await page.goto(`${served.base}/search?q=${'kerry '.repeat(50)}`);
            assert.match(await textOf(page, '.query-note'), /^That search is 299 characters long/);
            assert.equal((await page.locator('#q').inputValue()).length, 200);
            assert.equal(await scrollsSideways(page), false);
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });

        test(`Eamon Ryan is one person; Seán Ó Fearghaíl's automatic returns; the year and first preferences in view (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            await page.goto(`${served.base}/people/eamon-ryan`);
            assert.deepEqual(
              (await page.locator('table.person tbody th').allInnerTexts()).map((t) => t.trim()),
              ['2011*', '2016', '2020'],
            );
            await page.goto(`${served.base}/people/sean-o-fearghail`);
            const rows = page.locator('table.person tbody tr');
            assert.deepEqual(
              (await rows.locator('th').allInnerTexts()).map((t) => t.trim()),
              ['2011*', '2016', '2020†', '2024†'],
            );
            assert.equal(
              (await rows.nth(3).locator('td').nth(3).innerText()).trim(),
              'Returned automatically as Ceann Comhairle, without a contest',
            );
            // The row's label and its defining figure side by side, on a phone too.
            for (let i = 0; i < 2; i++) {
              const box = await rows.nth(i).locator('td').first().boundingBox();
              assert.ok(box && box.x >= 0 && box.x + box.width <= width, `row ${i + 1}'s first preferences in view`);
            }
            assert.equal(await scrollsSideways(page), false);
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });
      }

    for (const width of WIDTHS)
      test(`axe-core at ${width} px: no WCAG 2.1 A or AA violation on the search, people and party pages`, async (t) => {
        const tab = await openTab(browser, { javaScript: true, width, height: 900 });
        try {
          const found: Record<string, string[]> = {};
          for (const url of [
            '/search',
            '/search?q=kerry',
            '/search?q=michael+martin',
            '/search?q=a&page=3',
            '/search?q=a&page=abc',
            '/search?q=zzqqx',
            `/search?q=${'x'.repeat(201)}`,
            '/people',
            '/people?page=2',
            '/people/sean-o-fearghail',
            '/people/eamon-ryan',
            '/parties',
            '/election',
            '/resource',
            '/election/general-election-2011/parties',
            '/election/general-election-2011/parties/united-left-alliance',
            '/election/general-election-2024',
          ]) {
            await tab.page.goto(`${served.base}${url}`);
            await tab.page.evaluate(() =>
              document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')),
            );
            const violations = await axeViolations(tab.page);
            t.diagnostic(`axe ${url}: ${violations.length} violations`);
            if (violations.length > 0)
              found[url] = violations.map((v) => `${v.id} (${v.help}): ${v.targets.slice(0, 3).join(', ')}`);
            if (await scrollsSideways(tab.page)) (found[url] ??= []).push('the page scrolls sideways');
          }
          assert.deepEqual(found, {});
          assert.deepEqual(tab.problems, []);
        } finally {
          await tab.close();
        }
      });
  });
