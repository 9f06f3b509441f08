// Comparing elections in Chromium, on both stores, with and without JavaScript, as soon as two elections are loaded
// (a small catalogue of two made-up ones): choosing the pair by form, what the comparison shows, axe-core's WCAG 2.1
// A and AA rules, and reflow at 320 px.

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
import { TWO_ELECTIONS, twoElectionSettings } from '../helpers/two-elections.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser?.close());

for (const backend of BROWSER_BACKENDS)
  describe(`comparing two elections in Chromium [${backend}]`, () => {
    let served: ServedExplorer;
    before(async () => {
      served = await serveExplorer(twoElectionSettings(), backend);
    });
    after(() => served.close());

    for (const javaScript of [true, false]) {
      test(`from the home page to the comparison, and back to a constituency (${javaScript ? 'with' : 'without'} JavaScript)`, async () => {
        const tab = await openTab(browser, { javaScript });
        const { page } = tab;
        try {
          await page.goto(`${served.base}/`);
          await page.getByRole('link', { name: 'Compare two elections' }).click();
          await page.waitForURL('**/compare');
          assert.equal(await textOf(page, 'h1'), 'Compare elections');
          assert.deepEqual(
            await page.locator('#constituencies-title ~ .scroll tbody tr td:last-child').allInnerTexts(),
            [
              'Seats changed',
              'Only in the earlier election (abolished or redrawn)',
              'Only in the later election (new or redrawn)',
            ],
          );
          // Swap the pair with the form.
          await page.getByLabel('Earlier election').selectOption(TWO_ELECTIONS.later.name);
          await page.getByLabel('Later election').selectOption(TWO_ELECTIONS.earlier.name);
          await page.getByRole('button', { name: 'Compare' }).click();
          await page.waitForURL(/earlier=test-election-2020/);
          assert.match(
            await textOf(page, '#overall-title + .scroll caption'),
            /^Test Election 2020 to Test Election 2016/,
          );
          await page.getByRole('link', { name: 'Northtown' }).click();
          await page.waitForURL(`**/election/${TWO_ELECTIONS.earlier.name}/constituencies/northtown`);
          assert.deepEqual(await page.locator('ol.elected li strong').allInnerTexts(), [
            'Áine Ó Ríordáin',
            'Seán Murphy',
          ]);
          assert.deepEqual(tab.problems, []);
        } finally {
          await tab.close();
        }
      });
    }

    test('axe-core finds no WCAG 2.1 A or AA violation, and the pages reflow at 320 px', async (t) => {
      const tab = await openTab(browser, { javaScript: true });
      const narrow = await openTab(browser, { javaScript: true, width: 320, height: 640 });
      try {
        const pages = [
          '/',
          '/compare',
          `/compare?earlier=${TWO_ELECTIONS.later.name}&later=${TWO_ELECTIONS.later.name}`,
          `/election/${TWO_ELECTIONS.later.name}/constituencies/northtown?count=2`,
        ];
        for (const url of pages) {
          await tab.page.goto(`${served.base}${url}`);
          await tab.page.evaluate(() =>
            document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')),
          );
          const violations = await axeViolations(tab.page);
          t.diagnostic(`axe ${url}: ${violations.length} violations`);
          assert.deepEqual(violations, [], url);
          await narrow.page.goto(`${served.base}${url}`);
          assert.equal(await scrollsSideways(narrow.page), false, url);
        }
        assert.deepEqual([...tab.problems, ...narrow.problems], []);
      } finally {
        await tab.close();
        await narrow.close();
      }
    });
  });
