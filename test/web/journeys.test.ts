// The journeys of the explorer issue in Debian's Chromium, on both stores, with and without JavaScript, at 1280 and
// 360 px: home to elections over time in one click; "micheal martin" from home to his page in two; 2020's national
// transfers and Dublin Bay South's count as a flow; compare on a phone; charts drawn for a phone with nothing
// clipped. axe-core's WCAG 2.1 A and AA rules on the new page types at 360 px (the 1280 px run is explorer.test.ts).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { BROWSER_BACKENDS } from '../helpers/service.js';
import {
  axeViolations,
  launchBrowser,
  openTab,
  scrollsSideways,
  serveExplorer,
  textOf,
  type ServedExplorer,
} from '../helpers/browser.js';

const MODES = [
  { javaScript: true, label: 'with JavaScript' },
  { javaScript: false, label: 'without JavaScript' },
];
const WIDTHS = [1280, 360];
const DBS = '/election/general-election-2020/constituencies/dublin-bay-south';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser?.close());

for (const backend of BROWSER_BACKENDS)
  describe(`the explorer's journeys in Chromium [${backend}]`, () => {
    let served: ServedExplorer;
    before(async () => {
      served = await serveExplorer({}, backend);
    });
    after(() => served.close());

    for (const width of WIDTHS)
      for (const mode of MODES) {
        const label = `${width} px, ${mode.label}`;

        test(`home → elections over time in one click: Fine Gael 76 / 50 / 35 / 38 (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            await page.goto(`${served.base}/`);
            await page.getByRole('main').getByRole('link', { name: 'Elections over time' }).click();
            await page.waitForURL('**/elections');
            const fineGael = page.locator('#seats-table tbody tr', {
              has: page.getByRole('link', { name: 'Fine Gael' }),
            });
            assert.deepEqual(
              (await fineGael.locator('td').allInnerTexts()).map((t) => t.trim()),
              ['76', '50*', '35', '38'],
            );
            // The table reads on a phone: every figure of the row within the screen, no sideways scroll of the page.
            const box = await fineGael.locator('td').last().boundingBox();
            assert.ok(box && box.x + box.width <= width, `the 2024 seats are within ${width} px`);
            assert.equal(await scrollsSideways(page), false);
            const chart = page.locator(`figure#seats-chart ${width < 640 ? '.chart-narrow' : '.chart-wide'} svg`);
            assert.ok(await chart.isVisible());
            const chartBox = await chart.boundingBox();
            assert.ok(chartBox && chartBox.x >= 0 && chartBox.x + chartBox.width <= width, 'the chart fits the screen');
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });

        test(`"micheal martin" from home to his page in two clicks, his first preferences in all four elections (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            await page.goto(`${served.base}/`);
            await page
              .getByRole('searchbox', { name: 'Search every election: people, constituencies, parties' })
              .fill('micheal martin');
            await page
              .getByRole('search', { name: 'Search every election' })
              .getByRole('button', { name: 'Search' })
              .click();
            await page.waitForURL(/\/search\?q=micheal\+martin/);
            await page.getByRole('link', { name: 'Micheál Martin' }).click();
            await page.waitForURL('**/people/micheal-martin');
            assert.equal(await textOf(page, 'h1'), 'Micheál Martin');
            const votes = await page.locator('table.person tbody tr td:nth-child(2)').allInnerTexts();
            assert.deepEqual(votes, ['10,715', '11,346', '11,023', '14,526']);
            // His 2020 seat was won on count 6: the link opens that count.
            await page.locator('table.person tbody tr').nth(2).getByRole('link', { name: 'count 6' }).click();
            await page.waitForURL(/cork-south-central\?count=6/);
            assert.equal(await textOf(page, '#elected-title'), 'Elected by the end of count 6');
            assert.equal(await scrollsSideways(page), false);
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });

        test(`the header's search finds "mich mart" from any page (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            await page.goto(`${served.base}${DBS}`);
            await page
              .getByRole('searchbox', { name: 'Search people, constituencies, parties and elections' })
              .fill('mich mart');
            await page
              .getByRole('search', { name: 'Search', exact: true })
              .getByRole('button', { name: 'Search' })
              .click();
            await page.waitForURL(/\/search\?q=mich\+mart/);
            assert.equal(await textOf(page, '#results-title'), '1 result for “mich mart”');
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });

        test(`2020's national party-to-party transfers, then Dublin Bay South's count as a flow (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            await page.goto(`${served.base}/election/general-election-2020`);
            await page.getByRole('link', { name: 'Transfers', exact: true }).click();
            await page.waitForURL('**/general-election-2020/transfers');
            assert.equal(await textOf(page, 'h1'), 'Transfers, General Election 2020');
            const fg = page.locator('#matrix tbody tr', { has: page.getByRole('link', { name: 'Fine Gael' }) });
            assert.equal((await fg.locator('td').first().innerText()).trim(), '175,539');
            await page.getByRole('link', { name: 'Dublin Bay South', exact: true }).click();
            await page.waitForURL('**/dublin-bay-south/transfers');
            assert.ok(await page.locator('figure#flow svg.flow').isVisible());
            assert.deepEqual(
              (await page.locator('.flow-data tbody tr').first().locator('td, th').allInnerTexts()).map((t) =>
                t.trim(),
              ),
              ['2', 'Surplus of Eamon Ryan', 'Kevin Humphreys (Labour Party)', '234'],
            );
            assert.equal(await scrollsSideways(page), false);
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });
      }

    test("at 1280 px Dublin Bay South's whole count is in view, its final count included", async () => {
      const tab = await openTab(browser, { javaScript: false, width: 1280 });
      const { page } = tab;
      try {
        await page.goto(`${served.base}${DBS}`);
        const region = await page.evaluate(() => {
          const box = document.querySelector('.count-table')!.closest('.scroll')!;
          const last = [...document.querySelectorAll('.count-table thead th')].at(-1)!;
          return {
            scrolls: box.scrollWidth > box.clientWidth + 1,
            last: last.textContent,
            right: last.getBoundingClientRect().right <= box.getBoundingClientRect().right,
          };
        });
        assert.deepEqual(region, { scrolls: false, last: 'Count 8Exclusion of Kevin Humphreys (4,971)', right: true });
        assert.deepEqual(tab.problems, []);
      } finally {
        await tab.close();
      }
    });

    test('on a phone: compare shows the figures beside the parties, and charts are drawn for its width, nothing clipped', async () => {
      const tab = await openTab(browser, { javaScript: false, width: 360, height: 780 });
      const { page } = tab;
      try {
        await page.goto(`${served.base}/compare`);
        for (const table of ['#shares-compared', '#seats-compared']) {
          const fits = await page.evaluate((selector) => {
            const region = document.querySelector(selector)!.closest('.scroll')!;
            return region.scrollWidth <= region.clientWidth + 1;
          }, table);
          assert.ok(fits, `${table} fits without scrolling`);
        }
        const ff = page.locator('#seats-compared tbody tr').first();
        assert.equal(await ff.locator('.party-short').innerText(), 'F.F.');
        assert.deepEqual(
          (await ff.locator('td').allInnerTexts()).map((t) => t.trim()),
          ['38*', '48*', '+10'],
        );

        await page.goto(`${served.base}${DBS}`);
        assert.equal(await page.locator('figure#first-preferences .chart-wide').isVisible(), false);
        const chart = page.locator('figure#first-preferences .chart-narrow svg');
        assert.ok(await chart.isVisible());
        const clipped = await page.evaluate(() => {
          const box = document.querySelector('figure#first-preferences .chart-narrow')!;
          const svg = box.querySelector('svg')!;
          return {
            overflow: box.scrollWidth > box.clientWidth + 1,
            quota: [...svg.querySelectorAll('text')].some((t) => t.textContent === 'quota'),
          };
        });
        assert.deepEqual(clipped, { overflow: false, quota: true });
        assert.deepEqual(tab.problems, []);
      } finally {
        await tab.close();
      }
    });

    test('axe-core at 360 px: no WCAG 2.1 A or AA violation on the new page types', async (t) => {
      const tab = await openTab(browser, { javaScript: true, width: 360, height: 780 });
      try {
        const found: Record<string, string[]> = {};
        for (const url of [
          '/',
          '/elections',
          '/search?q=mich+mart',
          '/people/micheal-martin',
          '/election/general-election-2020/transfers',
          `${DBS}/transfers`,
          DBS,
          '/compare',
          '/election/general-election-2011/parties',
        ]) {
          await tab.page.goto(`${served.base}${url}`);
          await tab.page.evaluate(() =>
            document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')),
          );
          const violations = await axeViolations(tab.page);
          t.diagnostic(`axe ${url}: ${violations.length} violations`);
          if (violations.length > 0)
            found[url] = violations.map((v) => `${v.id} (${v.help}): ${v.targets.slice(0, 3).join(', ')}`);
        }
        assert.deepEqual(found, {});
        assert.deepEqual(tab.problems, []);
      } finally {
        await tab.close();
      }
    });
  });
