// The newsroom's journeys through what changed since the election before, in Debian's Chromium, with and without
// JavaScript, at 1280 and 360 px: home to 2020's headline and Fine Gael's −15 seats and −4.7 points; Dublin Bay South's
// gain and the same seat at other elections; a count whose source does not add up, said on its page; the name and the
// sorted or defining column of every table in view; chart text at 12 px or more; abbreviations never broken; a chart
// framed by another site while every other page refuses to be; a constituency printed on A4 with every count; and
// axe-core's WCAG 2.1 A and AA rules on each new page at both widths: 0 violations.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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
import { pdfText } from '../helpers/pdf-text.js';

const MODES = [
  { javaScript: true, label: 'with JavaScript' },
  { javaScript: false, label: 'without JavaScript' },
];
const WIDTHS = [1280, 360];
const E2020 = '/election/general-election-2020';
const DBS = `${E2020}/constituencies/dublin-bay-south`;
const CAVAN_MONAGHAN_2024 = '/election/general-election-2024/constituencies/cavan-monaghan';

/** Whether the element is on screen, within the scrolling box that holds it. */
async function inView(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return false;
    const box = el.getBoundingClientRect();
    const region = el.closest('.scroll')?.getBoundingClientRect() ?? { left: 0, right: window.innerWidth };
    return box.width > 0 && box.left >= region.left - 1 && box.right <= Math.min(region.right, window.innerWidth) + 1;
  }, selector);
}

/** The smallest size, in screen pixels, at which any chart's visible text is drawn on the page. */
async function smallestChartText(page: Page): Promise<number> {
  return page.evaluate(() => {
    const sizes = [...document.querySelectorAll('svg.chart text')]
      .filter((t) => (t as SVGGraphicsElement).getBoundingClientRect().width > 0)
      .map((t) => parseFloat(getComputedStyle(t).fontSize) * ((t as SVGGraphicsElement).getScreenCTM()?.a ?? 1));
    return sizes.length > 0 ? Math.min(...sizes) : Infinity;
  });
}

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser?.close());

for (const backend of BROWSER_BACKENDS)
  describe(`the newsroom's journeys through change and take-away, in Chromium [${backend}]`, () => {
    let served: ServedExplorer;
    before(async () => {
      served = await serveExplorer({}, backend);
    });
    after(() => served.close());

    for (const width of WIDTHS)
      for (const mode of MODES) {
        const label = `${width} px, ${mode.label}`;

        test(`home → 2020's result → Fine Gael: −15 seats, −4.7 points (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            await page.goto(`${served.base}/`);
            await page.getByRole('link', { name: 'General Election 2020', exact: true }).click();
            await page.waitForURL(`**${E2020}`);
            assert.match(await textOf(page, '.headline .lead'), /^Fianna Fáil won the most seats, 38 of 160/);
            const fineGael = page.locator('#seats-table tbody tr', {
              has: page.getByRole('link', { name: /Fine Gael/ }),
            });
            assert.deepEqual(
              (await fineGael.locator('td').allInnerTexts()).map((t) => t.trim()),
              ['35', '50', '−15', '20.9%', '25.5%', '−4.7 points'],
            );
            // The party's name and its seats are both in view, on a phone too.
            assert.ok(await inView(page, '#seats-table tbody tr:nth-child(3) th'));
            assert.ok(await inView(page, '#seats-table tbody tr:nth-child(3) td'));
            assert.equal(await scrollsSideways(page), false);
            await fineGael.getByRole('link', { name: /Fine Gael/ }).click();
            await page.waitForURL('**/parties/fine-gael');
            assert.equal(
              await textOf(page, '#since p'),
              'Seats 50 → 35 (−15); share of first preferences 25.5% → 20.9% (−4.7 points). Its page for General Election 2016',
            );
            assert.ok((await smallestChartText(page)) >= 12);
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });

        test(`Dublin Bay South: Sinn Féin gain from Fine Gael, then the same seat in 2011 (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            await page.goto(`${served.base}${DBS}`);
            assert.match(await textOf(page, '#since p'), /Sinn Féin gain from Fine Gael\./);
            assert.ok(await inView(page, '#change-table tbody tr:nth-child(3) th'));
            assert.ok(await inView(page, '#change-table tbody tr:nth-child(3) td:nth-of-type(2)'));
            assert.ok((await smallestChartText(page)) >= 12, 'chart text at 12 px or more');
            await page.locator('#other-elections').getByRole('link', { name: 'Dublin South East' }).click();
            await page.waitForURL('**/general-election-2011/constituencies/dublin-south-east');
            assert.equal(
              await textOf(page, '#since p'),
              'This is the first election loaded here: there is no earlier one to compare with.',
            );
            assert.equal(await scrollsSideways(page), false);
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });

        test(`Cavan–Monaghan 2024, count 4: the page says its figures do not add up, and opens the check (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            await page.goto(`${served.base}${CAVAN_MONAGHAN_2024}`);
            await page.getByRole('link', { name: /^Count 4:/ }).click();
            await page.waitForURL(/count=4/);
            const note = page.locator('#transfers-title ~ .note');
            assert.ok(await note.isVisible());
            assert.match(
              (await note.innerText()).replace(/\s+/g, ' '),
              /Count 4: 750 votes were distributed, but the candidates' gains add up to 759 \(101\.2% of them\)\./,
            );
            await note.getByRole('link', { name: 'see the consistency check' }).click();
            await page.waitForURL(/\/resource\//);
            assert.equal(await textOf(page, '#range'), 'Rows 1–1 of 1');
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });

        test(`the tile map, and its SVG and CSV to take away (${label})`, async () => {
          const tab = await openTab(browser, { ...mode, width });
          const { page } = tab;
          try {
            await page.goto(`${served.base}/election/general-election-2024`);
            const map = page.locator('figure#map svg.tile-map');
            assert.ok(await map.isVisible());
            assert.equal(await map.locator('g > g > rect').count(), 43);
            assert.ok((await smallestChartText(page)) >= 12, 'tile text at 12 px or more');
            assert.equal(await scrollsSideways(page), false, 'the map scrolls in its own box, the page does not');
            const [download] = await Promise.all([
              page.waitForEvent('download'),
              page
                .locator('figure#map .take-away')
                .getByRole('link', { name: /^CSV of/ })
                .click(),
            ]);
            assert.equal(download.suggestedFilename(), 'general-election-2024-map.csv');
            assert.deepEqual(tab.problems, []);
          } finally {
            await tab.close();
          }
        });
      }

    test('at 1280 px the transfer matrices and the party tables read whole, the non-transferable column too', async () => {
      const tab = await openTab(browser, { javaScript: false, width: 1280 });
      const { page } = tab;
      try {
        const whole: Record<string, boolean> = {};
        for (const url of [
          `${E2020}/transfers`,
          '/election/general-election-2024/transfers',
          '/election/general-election-2011/transfers',
          `${E2020}/parties`,
          '/election/general-election-2024/parties',
          '/election/general-election-2024',
          `${DBS}/transfers`,
        ]) {
          await page.goto(`${served.base}${url}`);
          whole[url] = await page.evaluate(() =>
            [...document.querySelectorAll('table.transfer-matrix, table.party-table')].every((table) => {
              const region = table.closest('.scroll')!;
              return region.scrollWidth <= region.clientWidth + 1;
            }),
          );
        }
        assert.ok(Object.values(whole).every(Boolean), JSON.stringify(whole));
        await page.goto(`${served.base}${E2020}/transfers`);
        assert.ok(await inView(page, '#matrix thead th:last-child'));
        assert.equal(await textOf(page, '#matrix thead th:last-child'), 'To Non-transferable');
        assert.deepEqual(tab.problems, []);
      } finally {
        await tab.close();
      }
    });

    test('at 360 px: abbreviations never break, the sorted column stays beside its name, a person shows first preferences', async () => {
      const tab = await openTab(browser, { javaScript: false, width: 360, height: 780 });
      const { page } = tab;
      try {
        for (const url of [`${E2020}/parties`, DBS, `${E2020}/transfers`, '/compare', E2020]) {
          await page.goto(`${served.base}${url}`);
          const broken = await page.evaluate(() =>
            [...document.querySelectorAll('.party-short, .row-party .party, .abbreviation')]
              .filter((el) => el.getBoundingClientRect().width > 0 && el.getClientRects().length > 1)
              .map((el) => el.textContent),
          );
          assert.deepEqual(broken, [], url);
          assert.ok((await smallestChartText(page)) >= 12, `${url}: chart text at 12 px or more`);
        }
        await page.goto(`${served.base}${E2020}/constituencies?sort=-turnout#list`);
        assert.equal(await textOf(page, 'thead th[aria-sort]'), 'Turnout ▼');
        assert.ok(await inView(page, 'thead th[aria-sort]'), 'the turnout is in view');
        assert.ok(await inView(page, 'tbody tr:first-child th'), 'and so is the constituency');
        await page.goto(`${served.base}/people/micheal-martin`);
        const column = await page.evaluate(
          () =>
            [...document.querySelectorAll('table.person thead th')].findIndex((th) =>
              /First preferences/.test(th.textContent!),
            ) + 1,
        );
        assert.ok(column > 1);
        assert.ok(
          await inView(page, `table.person tbody tr:last-child > :nth-child(${column})`),
          'his first preferences',
        );
        await page.goto(`${served.base}/resource/60728fc9-2896-41d8-a70c-9c01dd3d57ce?sort=%22Votes%22+desc#sorted`);
        assert.ok(await inView(page, '#sorted'));
        assert.equal(await textOf(page, 'tbody tr:first-child .row-label'), 'Denise Mitchell');
        assert.ok(await inView(page, 'tbody tr:first-child .row-label'), '21,344 votes, and whose');
        assert.deepEqual(tab.problems, []);
      } finally {
        await tab.close();
      }
    });

    test('a chart may be framed by another site; every other page refuses to be framed', async () => {
      // Another site: the same machine on another port, a different origin.
      let elsewhere: Server | undefined;
      const tab = await openTab(browser, { javaScript: true, width: 1280 });
      try {
        elsewhere = createServer((_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            `<!doctype html><title>A newspaper</title>` +
              `<iframe name="chart" src="${served.base}${E2020}/charts/map/embed" width="900" height="900"></iframe>` +
              `<iframe name="page" src="${served.base}${E2020}" width="900" height="600"></iframe>`,
          );
        });
        await new Promise<void>((resolve) => elsewhere!.listen(0, '127.0.0.1', resolve));
        const port = (elsewhere.address() as AddressInfo).port;
        const blocked = new Promise<string>((resolve) =>
          tab.page.on('console', (m) => {
            if (/frame-ancestors/.test(m.text())) resolve(m.text());
          }),
        );
        await tab.page.goto(`http://localhost:${port}/`);
        const chart = tab.page.frame({ name: 'chart' })!;
        await chart.waitForSelector('svg.tile-map');
        assert.equal(
          await chart.locator('.figure-title').innerText(),
          'The largest party in each constituency, General Election 2020.',
        );
        assert.match(
          await blocked,
          /violates the following Content Security Policy directive: "frame-ancestors 'none'"/,
        );
        const framedPage = tab.page.frame({ name: 'page' })!;
        // Chromium shows its own error in the frame instead of the page.
        assert.equal(await framedPage.getByRole('heading', { name: 'General Election 2020' }).count(), 0);
        assert.equal(await framedPage.locator('.headline').count(), 0, 'the page is not shown in the frame');
      } finally {
        await tab.close();
        await new Promise((resolve) => elsewhere?.close(resolve));
      }
    });

    test('a constituency prints on A4 with every count (counts 6–8 of Dublin Bay South, all 20 of Louth 2024), and transfer matrices and party tables whole', async () => {
      const tab = await openTab(browser, { javaScript: true, width: 1280 });
      const { page } = tab;
      try {
        for (const [url, counts, last] of [
          [DBS, 8, 'Count 8Exclusion of Kevin Humphreys (4,971)'],
          ['/election/general-election-2024/constituencies/louth', 20, 'Count 20'],
        ] as const) {
          await page.goto(`${served.base}${url}`);
          const text = pdfText(await page.pdf({ format: 'A4' }))
            .join('\n')
            .replace(/\s+/g, '');
          const table = text.slice(text.indexOf('Countbycountin'));
          for (let n = 1; n <= counts; n++) assert.match(table, new RegExp(`Count${n}(?!\\d)`), `${url}: count ${n}`);
          assert.ok(table.includes(last.replace(/\s+/g, '')), `${url}: ${last}`);
          // And every printed table fits the width of the A4 page: nothing is cut at its edge.
          await page.setViewportSize({ width: 794, height: 1123 });
          await page.emulateMedia({ media: 'print' });
          const widest = await page.evaluate(() =>
            Math.max(...[...document.querySelectorAll('table.data')].map((t) => t.getBoundingClientRect().right)),
          );
          assert.ok(widest <= 794, `${url}: the widest table ends at ${widest} px of 794`);
          await page.emulateMedia({ media: 'screen' });
          await page.setViewportSize({ width: 1280, height: 900 });
        }
        // Transfer matrices and party tables print whole too.
        await page.setViewportSize({ width: 794, height: 1123 });
        await page.emulateMedia({ media: 'print' });
        for (const url of [
          '/election/general-election-2024/transfers',
          '/election/general-election-2024/parties',
          '/election/general-election-2024',
          `${DBS}/transfers`,
        ]) {
          await page.goto(`${served.base}${url}`);
          const widest = await page.evaluate(() =>
            Math.max(...[...document.querySelectorAll('table.data')].map((t) => t.getBoundingClientRect().right)),
          );
          assert.ok(widest <= 794, `${url}: the widest table ends at ${widest} px of 794`);
        }
        assert.deepEqual(tab.problems, []);
      } finally {
        await tab.close();
      }
    });

    for (const width of WIDTHS)
      test(`axe-core at ${width} px: no WCAG 2.1 A or AA violation on the pages of change and take-away`, async (t) => {
        const tab = await openTab(browser, { javaScript: true, width, height: 800 });
        try {
          const found: Record<string, string[]> = {};
          for (const url of [
            E2020,
            '/election/general-election-2011',
            `${E2020}/elected`,
            `${E2020}/parties`,
            `${E2020}/parties/fine-gael`,
            DBS,
            '/election/general-election-2016/constituencies/dublin-bay-north',
            `${CAVAN_MONAGHAN_2024}?count=4`,
            `${E2020}/transfers`,
            `${CAVAN_MONAGHAN_2024}/transfers`,
            `${E2020}/charts/map/embed`,
            `${DBS}/charts/race/embed?count=3`,
            `${E2020}/constituencies?sort=-turnout`,
            '/resource/60728fc9-2896-41d8-a70c-9c01dd3d57ce?sort=%22Votes%22+desc',
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
