// The explorer in Debian's Chromium, on both stores, with and without JavaScript: the journeys a reader makes
// (one party's candidates by votes, downloaded for Excel; Dublin Bay South's count; party totals; filters, paging,
// page sizes and columns; a name typed without fadas), keyboard only, reflow at 320 px, and axe-core's WCAG 2.1 A and
// AA rules on every page type and state, with no Content-Security-Policy violation anywhere.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { RESOURCE_A, BROWSER_BACKENDS } from '../helpers/service.js';
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
const DBS = '/election/general-election-2020/constituencies/dublin-bay-south';
const RESOURCE = `/resource/${RESOURCE_A}`;

/** Every page type, in each state that changes what is on it. */
const PAGES: [string, string][] = [
  ['home', '/'],
  ['resource', RESOURCE],
  [
    'resource, filtered and sorted',
    `${RESOURCE}?filters=${encodeURIComponent('{"Party Abbreviation":"F.F."}')}&sort=${encodeURIComponent('"Votes" desc')}`,
  ],
  ['resource, searched', `${RESOURCE}?q=sinn+fein`],
  ['resource, empty', `${RESOURCE}?q=zzzqqq`],
  ['resource, error', `${RESOURCE}?sort=Turnout`],
  ['resource, last page', `${RESOURCE}?offset=500`],
  ['resource, past the last page', `${RESOURCE}?offset=900`],
  ['record', `${RESOURCE}/record/140`],
  ['election', '/election/general-election-2020'],
  ['constituencies, sorted', '/election/general-election-2020/constituencies?sort=-turnout'],
  ['constituency', DBS],
  ['constituency after a count', `${DBS}?count=3`],
  ['party totals', '/election/general-election-2020/parties'],
  ['party', '/election/general-election-2020/parties/sinn-fein'],
  ['compare', '/compare'],
  ['not found', '/resource/no-such-resource'],
  ['elections over time', '/elections'],
  ['find a candidate', '/search?q=mich+mart'],
  ['find a candidate, nobody found', '/search?q=zzqqx'],
  ['person', '/people/micheal-martin'],
  ['transfers, nationally', '/election/general-election-2020/transfers'],
  ['transfers in a constituency, as a flow', `${DBS}/transfers`],
  ['unofficial election, party totals', '/election/general-election-2011/parties'],
  ['record of a candidate', `${RESOURCE}/record/90`],
];

/** The 2020 election's card on the home page. */
const election2020 = (page: Page) =>
  page.locator('.card', { has: page.getByRole('heading', { name: 'General Election 2020' }) });

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser?.close());

test('without Chromium the browser tests fail, saying how to install it', async () => {
  await assert.rejects(
    launchBrowser('/no/such/chromium'),
    /need Chromium at \/no\/such\/chromium, which is missing\. Install it with `apt-get install -y chromium`/,
  );
});

for (const backend of BROWSER_BACKENDS)
  describe(`explorer in Chromium [${backend}]`, () => {
    let served: ServedExplorer;
    before(async () => {
      served = await serveExplorer({}, backend);
    });
    after(() => served.close());

    for (const mode of MODES) {
      test(`one party's candidates by votes, downloaded as CSV for Excel (${mode.label})`, async () => {
        const tab = await openTab(browser, mode);
        const { page } = tab;
        try {
          await page.goto(`${served.base}/`);
          const card = election2020(page);
          await card.getByText('The data (4 tables)').click();
          await card.getByRole('link', { name: 'Candidate results 2020' }).click();
          await page.waitForURL(`**${RESOURCE}`);
          assert.equal(await textOf(page, '#range'), 'Rows 1–100 of 531');

          await page.getByRole('link', { name: /^Filter to Party Id Fianna Fáil/ }).click();
          await page.waitForURL(/filters=/);
          assert.equal(await textOf(page, '#range'), 'Rows 1–84 of 84');

          await page.getByRole('link', { name: /^Votes: sort descending/ }).click();
          await page.waitForURL(/sort=/);
          assert.equal(await textOf(page, '#range'), 'Rows 1–84 of 84 · sorted by Votes descending');
          assert.equal(await page.locator('th[aria-sort="descending"]').innerText(), 'Votes ▼');
          const first = await page.locator('table.data tbody tr').first().locator('td').allInnerTexts();
          assert.deepEqual([first[2], first[3], first[10]], ['Martin', 'Micheál', '11,023']);
          // At 1280 px the sorted column is in view: the table's box scrolled to it, with or without JavaScript.
          const inView = await page.evaluate(() => {
            const th = document.getElementById('sorted')!.getBoundingClientRect();
            const box = document.getElementById('sorted')!.closest('.scroll')!.getBoundingClientRect();
            return (
              th.left >= box.left &&
              th.right <= box.right &&
              th.right <= window.innerWidth &&
              th.top >= 0 &&
              th.bottom <= window.innerHeight
            );
          });
          assert.ok(inView, 'the Votes column is in view');
          if (mode.javaScript) {
            // The sort is announced: the table's new state is read out from a live region.
            await page.waitForFunction(() =>
              document.getElementById('cc-live')?.textContent?.includes('sorted by Votes descending'),
            );
          }

          const [download] = await Promise.all([
            page.waitForEvent('download'),
            page.getByRole('link', { name: 'CSV for Excel' }).click(),
          ]);
          const file = fs.readFileSync((await download.path())!, 'utf8');
          assert.ok(file.startsWith('\uFEFF_id,Constituency,Surname,Firstname'), 'a byte order mark, then the header');
          const lines = file.trim().split('\n');
          assert.equal(lines.length, 85);
          assert.match(lines[1]!, /,Martin,Micheál,M,Fianna Fáil,F\.F\.,8,0,0,11023,Elected,/);
          assert.deepEqual(tab.problems, []);
        } finally {
          await tab.close();
        }
      });

      test(`Dublin Bay South: who was elected, the count table, the charts, a count at a time (${mode.label})`, async () => {
        const tab = await openTab(browser, mode);
        const { page } = tab;
        try {
          await page.goto(`${served.base}/`);
          await election2020(page).getByRole('link', { name: 'Constituencies and counts' }).click();
          await page.getByRole('link', { name: 'Dublin Bay South' }).click();
          await page.waitForURL(`**${DBS}`);
          assert.equal(await textOf(page, 'h1'), 'Dublin Bay South · Cuan Bhaile Átha Cliath Theas');
          const elected = await page.locator('ol.elected li strong').allInnerTexts();
          assert.deepEqual(elected, ['Eamon Ryan', 'Chris Andrews', 'Eoghan Murphy', "Jim O'Callaghan"]);
          assert.ok(await page.locator('.count-table').isVisible());
          assert.equal(await page.locator('.count-table thead th').count(), 9);
          for (const id of ['first-preferences', 'race', 'transfers']) {
            assert.ok(await page.locator(`figure#${id} .chart-wide svg[role="img"]`).isVisible(), id);
          }
          await page.locator('figure#first-preferences summary').click();
          assert.ok(await page.locator('figure#first-preferences details table').isVisible());

          await page.getByRole('link', { name: /^Count 3:/ }).click();
          await page.waitForURL(/count=3/);
          assert.equal(await textOf(page, '#elected-title'), 'Elected by the end of count 3');
          assert.equal(await page.locator('.count-table thead th').count(), 4);
          assert.deepEqual(tab.problems, []);
        } finally {
          await tab.close();
        }
      });

      test(`party totals for 2020 (${mode.label})`, async () => {
        const tab = await openTab(browser, mode);
        const { page } = tab;
        try {
          await page.goto(`${served.base}/`);
          await election2020(page).getByRole('link', { name: 'Party totals' }).click();
          await page.waitForURL('**/parties');
          const row = await page.locator('.scroll table.data tbody tr').first().locator('th, td').allInnerTexts();
          assert.deepEqual(row.slice(1, 8), ['37', '+14', '535,573', '24.5%', '+10.7 pts', '23.1%', '−1.4 pts']);
          assert.match(row[0]!, /Sinn Féin/);
          const ff = await page.locator('.scroll table.data tbody tr').nth(1).locator('th, td').allInnerTexts();
          assert.deepEqual(ff.slice(1, 8), ['38*', '−6', '484,315', '22.2%', '−2.2 pts', '23.8%', '+1.6 pts']);
          assert.match(
            await page.locator('#ceann-comhairle-note').innerText(),
            /^\* Fianna Fáil: 38 \(37 \+ the Ceann Comhairle\)\. .* counted for Fianna Fáil, the party they were elected for/,
          );
          await page.getByRole('link', { name: 'Sinn Féin', exact: true }).click();
          await page.waitForURL('**/parties/sinn-fein');
          assert.equal(await page.locator('#candidates tbody tr').count(), 42);
          assert.deepEqual(tab.problems, []);
        } finally {
          await tab.close();
        }
      });

      test(`filters by form, paging, page sizes and columns (${mode.label})`, async () => {
        const tab = await openTab(browser, mode);
        const { page } = tab;
        try {
          await page.goto(`${served.base}${RESOURCE}`);
          await page.getByText('Filter by field').click();
          const row = page.getByRole('group', { name: 'New filter' });
          await row.getByLabel('Field').selectOption('Constituency');
          await row.getByLabel('Value').fill('Wicklow');
          await page.getByRole('button', { name: 'Apply filters' }).click();
          await page.waitForURL(/filters=/);
          assert.equal(
            new URL(page.url()).search,
            `?filters=${encodeURIComponent('{"Constituency":"Wicklow"}').replace(/%20/g, '+')}`,
          );
          assert.equal(await textOf(page, '#range'), 'Rows 1–20 of 20');
          await page.getByRole('link', { name: 'Remove the filter Constituency is Wicklow' }).click();
          await page.waitForURL(`**${RESOURCE}`);

          await page.getByRole('link', { name: 'Next' }).click();
          await page.waitForURL(/offset=100/);
          assert.equal(await textOf(page, '#range'), 'Rows 101–200 of 531');
          await page.getByRole('link', { name: 'Last' }).click();
          await page.waitForURL(/offset=500/);
          assert.equal(await textOf(page, '#range'), 'Rows 501–531 of 531');
          await page.getByRole('link', { name: '25 rows per page' }).click();
          await page.waitForURL(/limit=25/);
          assert.equal(await textOf(page, '#range'), 'Rows 1–25 of 531');

          await page.getByText('Choose columns').click();
          for (const column of [
            '_id',
            'Constituency',
            'Gender Id',
            'Party Id',
            'Count Number',
            'Required To Reach Quota',
            'Required To Save Deposit',
            'Result',
            'Candidate Id',
            'Constituency Number',
            'Constituency Ainm',
          ]) {
            await page.getByRole('checkbox', { name: column, exact: true }).uncheck();
          }
          await page.getByRole('button', { name: 'Show these columns' }).click();
          await page.waitForURL(/fields=/);
          assert.deepEqual(await page.locator('table.data thead th').allInnerTexts(), [
            'Surname ⇅',
            'Firstname ⇅',
            'Party Abbreviation ⇅',
            'Votes ⇅',
          ]);
          assert.deepEqual(tab.problems, []);
        } finally {
          await tab.close();
        }
      });

      test(`a range of votes, by the form's comparisons (${mode.label})`, async () => {
        const tab = await openTab(browser, mode);
        const { page } = tab;
        try {
          await page.goto(`${served.base}${RESOURCE}`);
          await page.getByText('Filter by field').click();
          let row = page.getByRole('group', { name: 'New filter' });
          await row.getByLabel('Field').selectOption('Votes');
          await row.getByLabel('Condition').selectOption('gte');
          await row.getByLabel('Value').fill('15000');
          await page.getByRole('button', { name: 'Apply filters' }).click();
          await page.waitForURL(/filters=/);
          assert.deepEqual(JSON.parse(new URL(page.url()).searchParams.get('filters')!), { Votes: { gte: '15000' } });
          // The same comparison through the API, the page's own query string.
          const apiAnswer = JSON.parse(
            await fetch(
              `${served.base}/api/3/action/datastore_search?resource_id=${RESOURCE_A}&${new URL(page.url()).searchParams}&limit=0`,
            ).then((r) => r.text()),
          );
          assert.equal(apiAnswer.success, true, JSON.stringify(apiAnswer));
          const api = apiAnswer.result;
          assert.ok(api.total > 0 && api.total < 531);
          assert.equal(await textOf(page, '#range'), `Rows 1–${api.total} of ${api.total}`);

          // The filters' details stay open while there are filters: a second comparison on the same field narrows it.
          row = page.getByRole('group', { name: 'New filter' });
          await row.getByLabel('Field').selectOption('Votes');
          await row.getByLabel('Condition').selectOption('lt');
          await row.getByLabel('Value').fill('16000');
          await page.getByRole('button', { name: 'Apply filters' }).click();
          await page.waitForURL(/16000/);
          assert.deepEqual(JSON.parse(new URL(page.url()).searchParams.get('filters')!), {
            Votes: { gte: '15000', lt: '16000' },
          });
          const votesColumn = (await page.locator('table.data thead th').allInnerTexts()).findIndex((h) =>
            h.startsWith('Votes'),
          );
          const votes = (
            await page.locator(`table.data tbody tr td:nth-child(${votesColumn + 1})`).allInnerTexts()
          ).map((v) => Number(v.replace(/,/g, '')));
          assert.ok(votes.length > 0);
          for (const v of votes) assert.ok(v >= 15000 && v < 16000, `${v} within the range`);
          assert.deepEqual(tab.problems, []);
        } finally {
          await tab.close();
        }
      });

      test(`a name typed without fadas, in a resource's search (${mode.label})`, async () => {
        const tab = await openTab(browser, mode);
        const { page } = tab;
        try {
          await page.goto(`${served.base}${RESOURCE}`);
          await page.getByRole('searchbox', { name: 'Search every field' }).fill('o riordain');
          await page.getByRole('main').getByRole('button', { name: 'Search', exact: true }).click();
          await page.waitForURL(/q=o\+riordain/);
          assert.equal(await textOf(page, '#range'), 'Rows 1–1 of 1');
          assert.match(await textOf(page, 'table.data tbody tr'), /Ó'Ríordáin Aodhán/);
          assert.deepEqual(tab.problems, []);
        } finally {
          await tab.close();
        }
      });
    }

    test('keyboard only: the skip link, sorting, and stepping through the counts', async () => {
      const tab = await openTab(browser, { javaScript: false });
      const { page } = tab;
      try {
        await page.goto(`${served.base}${RESOURCE}`);
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
        assert.equal(
          await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle),
          'solid',
          'focus is visible',
        );
        await page.keyboard.press('Enter');
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
        // From the search box, tabbing reaches every control in order; a sortable header is a link, sorted with Enter.
        await page.getByRole('link', { name: /^Surname: sort ascending/ }).focus();
        await page.keyboard.press('Enter');
        await page.waitForURL(/sort=/);
        assert.equal(await page.locator('th[aria-sort="ascending"]').innerText(), 'Surname ▲');

        await page.goto(`${served.base}${DBS}`);
        await page.getByRole('link', { name: /^Count 2:/ }).focus();
        await page.keyboard.press('Enter');
        await page.waitForURL(/count=2/);
        assert.equal(await textOf(page, '#elected-title'), 'Elected by the end of count 2');
        // The wide count table scrolls inside a region keyboard users can reach.
        const region = page.getByRole('region', { name: 'Count by count in Dublin Bay South' });
        assert.equal(await region.getAttribute('tabindex'), '0');
        assert.deepEqual(tab.problems, []);
      } finally {
        await tab.close();
      }
    });

    for (const javaScript of [true, false])
      test(`a table wider than a phone keeps its caption in view and its gains readable (JavaScript ${javaScript ? 'on' : 'off'})`, async () => {
        const tab = await openTab(browser, { javaScript, width: 360, height: 800 });
        try {
          await tab.page.goto(`${served.base}${DBS}`);
          const region = tab.page.getByRole('region', { name: 'Dublin Bay South since 2016' });
          const caption = region.locator('caption');
          const within = async () => {
            const [box, text] = [await region.boundingBox(), await caption.boundingBox()];
            return !!box && !!text && text.x >= box.x - 0.5 && text.x + text.width <= box.x + box.width + 0.5;
          };
          const { scrollWidth, clientWidth } = await region.evaluate((e) => ({
            scrollWidth: e.scrollWidth,
            clientWidth: e.clientWidth,
          }));
          assert.ok(
            scrollWidth > clientWidth + 100,
            `the table (${scrollWidth} px) is wider than its box (${clientWidth} px)`,
          );
          assert.ok(await within(), 'the caption is within the box before scrolling');
          await region.evaluate((e) => {
            e.scrollLeft = e.scrollWidth;
          });
          assert.ok(await within(), 'the caption is within the box scrolled to the end');
          assert.match(
            await caption.innerText(),
            /^Dublin Bay South: seats and share of first preferences by party, 2016 and 2020$/,
          );
          // Fine Gael's loss is read in at most two lines, not a word a line.
          const loss = region
            .locator('tbody tr', { has: tab.page.getByRole('link', { name: 'Fine Gael' }) })
            .locator('td')
            .last();
          assert.equal((await loss.innerText()).trim(), 'loss to Sinn Féin');
          const lossBox = await loss.boundingBox();
          assert.ok(lossBox && lossBox.width >= 128, `the gains column is ${lossBox?.width} px wide`);
          assert.deepEqual(tab.problems, []);
        } finally {
          await tab.close();
        }
      });

    test('every page reflows at 320 px wide (400 % zoom): no sideways scrolling of the page', async () => {
      const tab = await openTab(browser, { javaScript: true, width: 320, height: 640 });
      try {
        const scrolling: string[] = [];
        for (const [name, url] of PAGES) {
          await tab.page.goto(`${served.base}${url}`);
          if (await scrollsSideways(tab.page)) scrolling.push(name);
        }
        assert.deepEqual(scrolling, []);
        assert.deepEqual(tab.problems, []);
      } finally {
        await tab.close();
      }
    });

    test('axe-core: no WCAG 2.1 A or AA violation on any page type or state', async (t) => {
      const tab = await openTab(browser, { javaScript: true });
      try {
        const found: Record<string, string[]> = {};
        for (const [name, url] of PAGES) {
          await tab.page.goto(`${served.base}${url}`);
          // Disclosures open, so that what they hide is checked too.
          await tab.page.evaluate(() =>
            document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')),
          );
          const violations = await axeViolations(tab.page);
          t.diagnostic(`axe ${name}: ${violations.length} violations`);
          if (violations.length > 0)
            found[name] = violations.map((v) => `${v.id} (${v.help}): ${v.targets.slice(0, 3).join(', ')}`);
        }
        assert.deepEqual(found, {});
        assert.deepEqual(tab.problems, []);
      } finally {
        await tab.close();
      }
    });
  });
