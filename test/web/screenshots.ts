// `npm run screenshots`: the README's pictures of the explorer, taken with the browser tests' tooling (Debian's
// Chromium through playwright-core) from the embedded store, written to docs/screenshots/.

import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/settings.js';
import { launchBrowser, openTab, serveExplorer } from '../helpers/browser.js';
import { RESOURCE_A } from '../helpers/service.js';

const OUT = path.join(PROJECT_ROOT, 'docs', 'screenshots');

const SHOTS: { file: string; url: string; width: number; height: number; fullPage: boolean }[] = [
  { file: 'home.png', url: '/', width: 1280, height: 800, fullPage: false },
  { file: 'election.png', url: '/election/general-election-2020', width: 1280, height: 1300, fullPage: false },
  {
    file: 'tile-map.png',
    url: '/election/general-election-2024#map-title',
    width: 1280,
    height: 1100,
    fullPage: false,
  },
  {
    file: 'resource.png',
    url: `/resource/${RESOURCE_A}?filters=${encodeURIComponent('{"Party Id":"Fianna Fáil"}')}&sort=${encodeURIComponent('"Votes" desc')}&limit=25#sorted`,
    width: 1280,
    height: 1100,
    fullPage: false,
  },
  {
    file: 'constituency.png',
    url: '/election/general-election-2020/constituencies/dublin-bay-south',
    width: 1280,
    height: 2400,
    fullPage: false,
  },
  {
    file: 'constituency-phone.png',
    url: '/election/general-election-2020/constituencies/dublin-bay-south?count=3',
    width: 360,
    height: 1400,
    fullPage: false,
  },
  { file: 'over-time.png', url: '/elections', width: 1280, height: 1500, fullPage: false },
  { file: 'over-time-phone.png', url: '/elections#seats-table', width: 360, height: 1100, fullPage: false },
  { file: 'person.png', url: '/people/micheal-martin', width: 1280, height: 800, fullPage: false },
  { file: 'search-phone.png', url: '/search?q=michael+martin', width: 360, height: 1000, fullPage: false },
  {
    file: 'transfers.png',
    url: '/election/general-election-2020/transfers#matrix',
    width: 1280,
    height: 900,
    fullPage: false,
  },
  {
    file: 'flow.png',
    url: '/election/general-election-2020/constituencies/dublin-bay-south/transfers#flow',
    width: 1280,
    height: 900,
    fullPage: false,
  },
];

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const browser = await launchBrowser();
  const served = await serveExplorer({}, 'sqlite');
  try {
    for (const shot of SHOTS) {
      const tab = await openTab(browser, { javaScript: true, width: shot.width, height: shot.height });
      try {
        await tab.page.goto(`${served.base}${shot.url}`);
        const file = path.join(OUT, shot.file);
        await tab.page.screenshot({ path: file, fullPage: shot.fullPage });
        console.log(`${path.relative(PROJECT_ROOT, file)} (${shot.width}×${shot.height}) ← ${shot.url}`);
      } finally {
        await tab.close();
      }
    }
  } finally {
    await served.close();
    await browser.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
