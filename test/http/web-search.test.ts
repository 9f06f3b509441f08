// The newsroom's search, people and party rows through the app, on both stores: one search for people,
// constituencies, parties and elections (names spelt nearly alike offered where nothing matches, every result reached
// by paging, odd input answered with a page); the parent of every address a page; candidacies spelt two ways joined,
// and only by review; the Ceann Comhairle's automatic returns; names in the usual case with the records' own kept;
// parties counted and coloured as the press counts them; 2024's women candidates.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseHTML } from 'linkedom';
import { unreviewedNearNames } from '../../src/elections/index.js';
import { ActionClient } from '../../src/web/data.js';
import { reviewedData } from '../../src/web/reviewed.js';
import { electionsTogether } from '../../src/web/together.js';
import { RESOURCE_A, startService, TEST_BACKENDS, type TestService } from '../helpers/service.js';

interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  document: Document;
  body: string;
  text: (selector: string) => string;
  all: (selector: string) => string[];
}

function readable(node: { childNodes?: ArrayLike<unknown> } | null): string {
  const parts: string[] = [];
  const walk = (n: any) => {
    if (n.nodeType === 3) parts.push(n.textContent ?? '');
    else for (const child of n.childNodes ?? []) walk(child);
  };
  if (node) walk(node);
  return parts
    .join(' ')
    .replace(/\s+/g, ' ')
    .replace(/ ([,.:;)?])/g, '$1')
    .replace(/\( /g, '(')
    .trim();
}

async function get(service: TestService, url: string): Promise<Page> {
  const response = await service.request({ method: 'GET', url });
  const { document } = parseHTML(response.body);
  return {
    status: response.statusCode,
    headers: response.headers,
    body: response.body,
    document: document as unknown as Document,
    text: (selector) => readable(document.querySelector(selector)),
    all: (selector) => [...document.querySelectorAll(selector)].map(readable),
  };
}

const rowsOf = (page: Page, selector: string) =>
  [...page.document.querySelectorAll(`${selector} tbody tr`)].map((tr) => [...tr.children].map(readable));

/** Each result of a search page: its heading's link and text, and each line under it. */
const resultsOf = (page: Page) =>
  [...page.document.querySelectorAll('.search-results > li')].map((li) => ({
    title: readable(li.querySelector('.result-title')),
    href: li.querySelector('.result-title a')!.getAttribute('href'),
    lines: [...li.querySelectorAll(':scope > ul > li')].map(readable),
  }));

function lab(hex: string): [number, number, number] {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const x = f((0.4124 * r! + 0.3576 * g! + 0.1805 * b!) / 0.95047);
  const y = f(0.2126 * r! + 0.7152 * g! + 0.0722 * b!);
  const z = f((0.0193 * r! + 0.1192 * g! + 0.9505 * b!) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}

for (const backend of TEST_BACKENDS)
  describe(`explorer: search for everything, people and party rows [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    describe('search', () => {
      test('one box on every page, from home to the header of a constituency page', async () => {
        for (const url of [
          '/',
          '/election/general-election-2020/constituencies/dublin-bay-south',
          '/people/micheal-martin',
        ]) {
          const page = await get(service, url);
          const form = page.document.querySelector('header form[role="search"]')!;
          assert.equal(form.getAttribute('action'), '/search');
          assert.equal(form.getAttribute('aria-label'), 'Search');
          assert.equal(readable(form.querySelector('label')), 'Search people, constituencies, parties and elections');
        }
        const home = await get(service, '/');
        assert.equal(
          home.text('main form[role="search"] label'),
          'Search every election: people, constituencies, parties',
        );
      });

      test('"dublin bay south": the constituency, with each election it existed at', async () => {
        const page = await get(service, '/search?q=dublin+bay+south');
        assert.equal(page.status, 200);
        assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
        assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
        assert.equal(page.text('title'), 'Search: “dublin bay south” · Count Centre');
        assert.equal(page.text('#results-title'), '1 result for “dublin bay south”');
        assert.deepEqual(resultsOf(page), [
          {
            title: 'Dublin Bay South (Cuan Bhaile Átha Cliath Theas)',
            href: '/election/general-election-2024/constituencies/dublin-bay-south',
            lines: ['2016: 4 seats', '2020: 4 seats', '2024: 4 seats'],
          },
        ]);
        assert.deepEqual(
          [...page.document.querySelectorAll('.search-results > li > ul a')].map((a) => a.getAttribute('href')),
          [2016, 2020, 2024].map((y) => `/election/general-election-${y}/constituencies/dublin-bay-south`),
        );
      });

      test('"sinn fein": the party, its seats at each election and its page at each', async () => {
        const page = await get(service, '/search?q=sinn+fein');
        assert.equal(page.text('#results-title'), '1 result for “sinn fein”');
        assert.deepEqual(resultsOf(page), [
          {
            title: 'Sinn Féin',
            href: '/election/general-election-2024/parties/sinn-fein',
            lines: [
              '2011: 14 seats of 41 candidates',
              '2016: 23 seats of 50 candidates',
              '2020: 37 seats of 42 candidates',
              '2024: 39 seats of 71 candidates',
            ],
          },
        ]);
      });

      test('a name a party went by at one election leads to its page there', async () => {
        const lead = async (q: string) => resultsOf(await get(service, `/search?q=${q}`)).map((r) => [r.title, r.href]);
        assert.deepEqual(await lead('united+left'), [
          ['People Before Profit–Solidarity', '/election/general-election-2011/parties/united-left-alliance'],
        ]);
        assert.deepEqual(await lead('anti+austerity'), [
          [
            'People Before Profit–Solidarity',
            '/election/general-election-2016/parties/anti-austerity-alliance-people-before-profit',
          ],
        ]);
        assert.deepEqual(await lead('new+vision'), [
          [
            'Independents (candidates without a party, counted together; not a party)',
            '/election/general-election-2011/parties/independents',
          ],
        ]);
        assert.deepEqual(await lead('2020'), [['General Election 2020', '/election/general-election-2020']]);
      });

      test('"kerry": the Kerry constituencies as well as candidates, and the party with Kerry in its name', async () => {
        const page = await get(service, '/search?q=kerry');
        assert.equal(page.text('#results-title'), '5 results for “kerry”');
        assert.equal(page.text('#results-title ~ .hint'), '1 party, 3 constituencies, 1 person.');
        assert.deepEqual(page.all('.results-group h3'), ['Parties', 'Constituencies', 'People']);
        assert.deepEqual(
          resultsOf(page).map((r) => [r.title, r.href]),
          [
            [
              'South Kerry Independent Alliance',
              '/election/general-election-2011/parties/south-kerry-independent-alliance',
            ],
            ['Kerry (Ciarraí)', '/election/general-election-2024/constituencies/kerry'],
            ['Kerry North West Limerick', '/election/general-election-2011/constituencies/kerry-north-west-limerick'],
            ['Kerry South', '/election/general-election-2011/constituencies/kerry-south'],
            ['Kerry Guinan', '/people/kerry-guinan'],
          ],
        );
      });

      test('"michael martin" and "varadker": nothing exactly, so the names meant, and a link straight to each', async () => {
        const martin = await get(service, '/search?q=michael+martin');
        assert.equal(martin.status, 200);
        assert.equal(
          martin.text('#results-title'),
          'Nothing matches “michael martin” exactly: 1 name spelt nearly like it',
        );
        assert.equal(martin.text('.did-you-mean'), 'Did you mean Micheál Martin? Or search for “micheal martin”.');
        assert.deepEqual(
          [...martin.document.querySelectorAll('.did-you-mean a')].map((a) => a.getAttribute('href')),
          ['/people/micheal-martin', '/search?q=micheal+martin'],
        );
        assert.deepEqual(resultsOf(martin), [
          {
            title: 'Micheál Martin',
            href: '/people/micheal-martin',
            lines: [
              '2011, Cork South Central, Fianna Fáil: 10,715 first preferences; elected on count 1',
              '2016, Cork South Central, Fianna Fáil: 11,346 first preferences; elected on count 1',
              '2020, Cork South Central, Fianna Fáil: 11,023 first preferences; elected on count 6',
              '2024, Cork South Central, Fianna Fáil: 14,526 first preferences; elected on count 1',
            ],
          },
        ]);
        const varadker = await get(service, '/search?q=varadker');
        assert.equal(varadker.text('.did-you-mean'), 'Did you mean Leo Varadkar? Or search for “varadkar”.');
        assert.equal(varadker.document.querySelector('.did-you-mean a')!.getAttribute('href'), '/people/leo-varadkar');
        assert.deepEqual(
          resultsOf(varadker).map((r) => [r.title, r.lines.length]),
          [['Leo Varadkar', 3]],
        );
        // Spelt right, the same name is an exact match: no guessing.
        const right = await get(service, '/search?q=varadkar');
        assert.equal(right.text('#results-title'), '1 result for “varadkar”');
        assert.equal(right.document.querySelector('.did-you-mean'), null);
      });

      test('every result reachable by paging: "a" a page at a time, each once, to the last', async () => {
        const first = await get(service, '/search?q=a');
        const total = Number(/^(\d+) results/.exec(first.text('#results-title'))![1]);
        assert.ok(total > 127, `${total} results`);
        const pages = Math.ceil(total / 25);
        assert.equal(first.text('nav.pager p'), `Page 1 of ${pages}`);
        const seen: string[] = [];
        for (let n = 1; n <= pages; n++) {
          const page = await get(service, `/search?q=a&page=${n}`);
          assert.equal(page.status, 200);
          const results = resultsOf(page);
          assert.equal(results.length, n < pages ? 25 : total - 25 * (pages - 1));
          seen.push(...results.map((r) => `${r.title} ${r.href}`));
          const next = page.document.querySelector('nav.pager a[rel="next"]');
          assert.equal(next?.getAttribute('href') ?? null, n < pages ? `/search?q=a&page=${n + 1}` : null);
        }
        assert.equal(seen.length, total);
        assert.equal(new Set(seen).size, total, 'no result twice');
        const beyond = await get(service, '/search?q=a&page=999');
        assert.equal(beyond.status, 200);
        assert.equal(beyond.text('main .query-note'), `There are only ${pages} pages: this is the last.`);
        const odd = await get(service, '/search?q=a&page=abc');
        assert.equal(odd.text('main .query-note'), '“abc” is not a page number: this is the first page.');
        assert.equal(odd.text('nav.pager p'), `Page 1 of ${pages}`);
      });

      test('odd input gets a page that says what happened, never an error', async () => {
        const long = await get(service, `/search?q=${'dublin '.repeat(40)}`);
        assert.equal(long.status, 200);
        assert.equal(
          long.text('main .query-note'),
          'That search is 279 characters long, and a search reads at most 200: a name, a place or a party, or the start of one. Nothing was searched; the box holds its first 200 characters to shorten.',
        );
        assert.equal(long.document.querySelector('#q')!.getAttribute('value')!.length, 200);
        assert.equal(long.document.querySelector('#results-title'), null);
        const empty = await get(service, '/search?q=%21%21%21');
        assert.equal(
          empty.text('main .query-note'),
          'That search has no letters or digits to look for: names, places and parties are found by their words.',
        );
        const many = await get(service, '/search?q=mich+mart+a+b+c+d+e+f+g+h');
        assert.equal(
          many.text('main .query-note'),
          'A search reads at most 8 words: the 2 words after them were left out.',
        );
        const hostile = await get(service, `/search?q=${encodeURIComponent('<script>alert(1)</script>')}`);
        assert.equal(hostile.status, 200);
        assert.ok(!hostile.body.includes('<script>alert'));
        assert.equal(
          hostile.document.querySelector('#results-title')!.textContent,
          'Nothing matches “<script>alert(1)</script>”',
        );
        const blank = await get(service, '/search?q=');
        assert.equal(blank.status, 200);
        assert.equal(blank.text('h1'), 'Search');
        assert.equal(blank.document.querySelector('#results-title'), null);
      });
    });

    describe('the parent of every address is a page', () => {
      test('cutting back every route, segment by segment, reaches pages (or a redirect to one)', async () => {
        const home = await get(service, '/');
        const css = home.document.querySelector('link[rel="stylesheet"]')!.getAttribute('href')!;
        const addresses = [
          '/election/general-election-2020/constituencies/dublin-bay-south/transfers',
          '/election/general-election-2020/parties/fine-gael',
          '/election/general-election-2020/transfers',
          `/resource/${RESOURCE_A}/record/1`,
          '/people/micheal-martin',
          css,
        ];
        const checked: [string, number, string][] = [];
        for (const address of addresses) {
          const parts = address.split('/').filter(Boolean);
          for (let n = parts.length - 1; n >= 1; n--) {
            const parent = `/${parts.slice(0, n).join('/')}`;
            const response = await service.request(parent);
            let status = response.statusCode;
            let type = String(response.headers['content-type']);
            if (status === 303) {
              const landed = await service.request(String(response.headers.location));
              [status, type] = [landed.statusCode, String(landed.headers['content-type'])];
            }
            checked.push([parent, status, type]);
          }
        }
        assert.deepEqual(
          checked.filter(([, status, type]) => status !== 200 || type !== 'text/html; charset=utf-8'),
          [],
        );
        assert.ok(checked.some(([p]) => p === '/election') && checked.some(([p]) => p === '/people'));
      });

      test('/people: everyone who stood, by surname, a hundred at a time, with a letter index', async () => {
        const page = await get(service, '/people');
        assert.equal(page.status, 200);
        assert.equal(page.text('h1'), 'Everyone who stood');
        const total = Number(/^([\d,]+) people/.exec(page.text('main .lead'))![1]!.replace(/,/g, ''));
        assert.equal(page.all('ol.people-index > li').length, 100);
        assert.equal(page.all('ol.people-index > li')[0], 'Gerry Adams: Louth, 2011, 2016 (returned twice)');
        const pages = Math.ceil(total / 100);
        const last = await get(service, `/people?page=${pages}`);
        assert.equal(last.all('ol.people-index > li').length, total - 100 * (pages - 1));
        const letters = page.all('nav.letters a');
        assert.equal(letters[0], 'A');
        const o = page.document.querySelector('nav.letters a[href$="#letter-o"]')!.getAttribute('href')!;
        const onO = await get(service, o.replace(/#.*/, ''));
        assert.ok(onO.document.querySelector('#letter-o'), 'the letter index leads to its page');
      });

      test('/parties, /election and /resource list what they hold', async () => {
        const parties = await get(service, '/parties');
        assert.equal(parties.text('h1'), 'Parties');
        const titles = parties.all('.search-results .result-title');
        assert.deepEqual(titles.slice(0, 4), [
          'Fianna Fáil',
          'Fine Gael',
          'Sinn Féin',
          'Independents (candidates without a party, counted together; not a party)',
        ]);
        assert.ok(!titles.some((t) => /Non-Party|New Vision/.test(t)));
        const elections = await get(service, '/election');
        assert.deepEqual(elections.all('.result-title'), [
          'General Election 2024',
          'General Election 2020',
          'General Election 2016',
          'General Election 2011',
        ]);
        const resources = await get(service, '/resource');
        assert.equal(resources.document.querySelectorAll('main li a[href^="/resource/"]').length, 16);
        const record = await service.request(`/resource/${RESOURCE_A}/record`);
        assert.equal(record.statusCode, 303);
        assert.equal(record.headers.location, `/resource/${RESOURCE_A}`);
      });
    });

    describe('people', () => {
      test('candidacies the records spell two ways are one person, with each spelling and the review', async () => {
        const expected: Record<string, string[][]> = {
          'eamon-ryan': [
            [
              '2011 *',
              '4,929',
              '6.8%',
              '0.41',
              'Excluded on count 8',
              'Dublin South',
              'Green Party/ Comhaontas Glas',
              'record',
            ],
            [
              '2016',
              '4,529',
              '11.4%',
              '0.57',
              'Elected on count 7',
              'Dublin Bay South',
              'Green Party/Comhaontas Glas',
              'record',
            ],
            [
              '2020',
              '8,888',
              '22.4%',
              '1.12',
              'Elected on count 1',
              'Dublin Bay South',
              'Green Party/ Comhaontas Glas',
              'record',
            ],
          ],
          'eamon-o-cuiv': [
            ['2011 *', '7,441', '12.3%', '0.74', 'Elected on count 8', 'Galway West', 'Fianna Fáil', 'record'],
            ['2016', '9,539', '14.8%', '0.89', 'Elected on count 9', 'Galway West', 'Fianna Fáil', 'record'],
            ['2020', '8,522', '14.1%', '0.85', 'Elected on count 8', 'Galway West', 'Fianna Fáil', 'record'],
          ],
          'catherine-connolly': [
            [
              '2011 *',
              '4,766',
              '7.9%',
              '0.47',
              'Not elected (in the count to its end, count 13)',
              'Galway West',
              'Independent',
              'record',
            ],
            ['2016', '4,877', '7.6%', '0.46', 'Elected on count 14', 'Galway West', 'Independent', 'record'],
            ['2020', '5,439', '9.0%', '0.54', 'Elected on count 12', 'Galway West', 'Independent', 'record'],
            ['2024 *', '6,747', '11.2%', '0.67', 'Elected on count 11', 'Galway West', 'Independent', 'record'],
          ],
          'donnchadh-o-laoghaire': [
            ['2016', '6,986', '12.5%', '0.63', 'Elected on count 11', 'Cork South Central', 'Sinn Féin', 'record'],
            ['2020', '14,057', '24.6%', '1.23', 'Elected on count 1', 'Cork South Central', 'Sinn Féin', 'record'],
            ['2024 *', '6,947', '11.1%', '0.66', 'Elected on count 16', 'Cork South Central', 'Sinn Féin', 'record'],
          ],
        };
        for (const [key, rows] of Object.entries(expected)) {
          const page = await get(service, `/people/${key}`);
          assert.equal(page.status, 200, key);
          assert.deepEqual(rowsOf(page, 'table.person'), rows, key);
        }
        const ryan = await get(service, '/people/eamon-ryan');
        assert.equal(ryan.text('h1'), 'Eamon Ryan');
        assert.equal(ryan.text('main > .lead'), 'At 3 general elections (2011, 2016, 2020): elected in 2016 and 2020.');
        assert.equal(
          ryan.text('main > p.hint'),
          "The name is shown as the latest record spells it, in the usual case; the General Election 2020 record spells it “Eamonn Ryan”. Each record page shows the record's own spelling.",
        );
        assert.match(
          ryan.text('#matched-title ~ ul li'),
          /^Joined: Eamon Ryan \(General Election 2016, Dublin Bay South\) and Eamonn Ryan \(General Election 2020, Dublin Bay South\)\. One letter apart/,
        );
        // No page of its own for the other spellings.
        for (const key of [
          'eamonn-ryan',
          'eamon-cuiv-o',
          'catherine-martina-ann-connolly',
          'donnchadh-uinseann-o-laoghaire',
        ])
          assert.equal((await get(service, `/people/${key}`)).status, 404, key);
      });

      test('the matching rules join no one the reviews did not: every near spelling is decided, namesakes stay apart', async () => {
        const together = await electionsTogether(new ActionClient(service.prepared.services), reviewedData());
        assert.deepEqual(
          unreviewedNearNames(together.people.people, reviewedData().matches).map((n) => [
            n.earlier.key,
            n.later.key,
            n.kind,
          ]),
          [],
        );
        const years = (key: string) => together.people.byKey.get(key)?.candidacies.map((c) => c.date.slice(0, 4));
        assert.deepEqual(years('christy-o-sullivan'), ['2011']);
        assert.deepEqual(years('christopher-o-sullivan'), ['2020', '2024']);
        assert.deepEqual(years('jack-wall'), ['2011']);
        assert.deepEqual(years('mark-wall'), ['2016', '2020', '2024']);
        assert.deepEqual(years('robert-o-donnell'), ['2020']);
        assert.deepEqual(years('joan-collins'), ['2011', '2016', '2020', '2024']);
        assert.equal(together.people.people.length, 1583);
      });

      test("the Ceann Comhairle's automatic returns are candidacies, marked: Seán Ó Fearghaíl 2011–2024, Séamus Kirk 2011", async () => {
        const page = await get(service, '/people/sean-o-fearghail');
        assert.equal(
          page.text('main > .lead'),
          'At 4 general elections (2011, 2016, 2020, 2024): elected in 2011 and 2016; returned automatically as Ceann Comhairle in 2020 and 2024.',
        );
        assert.deepEqual(rowsOf(page, 'table.person'), [
          ['2011 *', '4,514', '11.8%', '0.47', 'Elected on count 7', 'Kildare South', 'Fianna Fáil', 'record'],
          ['2016', '6,469', '17.6%', '0.70', 'Elected on count 6', 'Kildare South', 'Fianna Fáil', 'record'],
          [
            '2020 †',
            '–',
            '–',
            '–',
            'Returned automatically as Ceann Comhairle, without a contest',
            'Kildare South',
            'Fianna Fáil',
            '–',
          ],
          [
            '2024 †',
            '–',
            '–',
            '–',
            'Returned automatically as Ceann Comhairle, without a contest',
            'Kildare South',
            'Fianna Fáil',
            '–',
          ],
        ]);
        assert.match(
          page.text('#automatic-rows'),
          /^† The outgoing Ceann Comhairle \(the Dáil's chair\) is returned automatically/,
        );
        const kirk = await get(service, '/people/seamus-kirk');
        assert.equal(
          kirk.text('main > .lead'),
          'At the General Election 2011: returned automatically as Ceann Comhairle.',
        );
        const barrett = await get(service, '/people/sean-barrett');
        assert.deepEqual(
          rowsOf(barrett, 'table.person').map((r) => [r[0], r[5], r[4]]),
          [
            ['2011 *', 'Dún Laoghaire', 'Elected on count 8'],
            ['2016 †', 'Dún Laoghaire', 'Returned automatically as Ceann Comhairle, without a contest'],
          ],
        );
      });

      test('names in the usual case on the pages; the record keeps its own spelling', async () => {
        const carlow = await get(service, '/election/general-election-2020/constituencies/carlow-kilkenny');
        assert.ok(carlow.all('ol.elected li strong').includes('John McGuinness'));
        assert.ok(!carlow.body.includes('McGUINNESS'));
        const bayNorth = await get(service, '/election/general-election-2020/constituencies/dublin-bay-north');
        assert.ok(bayNorth.all('ol.elected li strong').includes('Aodhán Ó Ríordáin'));
        const waterford = await get(service, '/election/general-election-2020/constituencies/waterford');
        assert.ok(waterford.body.includes('<span lang="ga">Port Láirge</span>'));
        assert.ok(waterford.all('ol.elected li strong').includes('Marc Ó Cathasaigh'));
        const found = await service.getJson(
          `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&filters=${encodeURIComponent('{"Surname":"McGUINNESS"}')}`,
        );
        const id = found.body.result.records[0]._id;
        const record = await get(service, `/resource/${RESOURCE_A}/record/${id}`);
        assert.equal(record.text('h1'), 'John McGuinness, Carlow-Kilkenny');
        assert.equal(record.text('dl.record div:nth-child(2)'), 'Surname McGUINNESS');
        assert.equal(record.text('dl.record div:nth-child(3)'), 'Firstname JOHN');
      });
    });

    describe('party rows as the press counts them', () => {
      test("2011: 14 Independents (New Vision's one among them), the United Left Alliance as one grouping of 5", async () => {
        const page = await get(service, '/election/general-election-2011/parties');
        const rows = rowsOf(page, 'main > .scroll').map((r) => [r[0]!.replace(/ \S+ \S+$/, ''), r[1]]);
        assert.deepEqual(rows.slice(0, 6), [
          ['Fine Gael', '76'],
          ['The Labour Party', '37'],
          ['Fianna Fáil', '20 *'],
          ['Independents', '14'],
          ['Sinn Féin', '14'],
          ['United Left Alliance', '5'],
        ]);
        assert.ok(!page.body.includes('New Vision') && !page.body.includes('NON-P.'));
        const ula = await get(service, '/election/general-election-2011/parties/united-left-alliance');
        assert.equal(
          ula.text('main > .lead'),
          'General Election 2011: 20 candidates, 5 seats won, 2.7% of first preferences.',
        );
        assert.match(
          ula.text('#how-counted'),
          /^How this row is counted: The United Left Alliance was the electoral alliance/,
        );
        // Its candidates in the candidates table: its 20 records, one of them an independent's (Declan Bree).
        const table = ula.document.querySelector('main a[href*="_id"]')!.getAttribute('href')!;
        const listed = await get(service, table);
        assert.equal(listed.text('#range'), 'Rows 1–20 of 20');
        const independents = await get(service, '/election/general-election-2011/parties/independents');
        assert.equal(
          independents.text('main > .lead'),
          'General Election 2011: 194 candidates, 14 seats won, 12.0% of first preferences.',
        );
        assert.match(independents.text('#how-counted'), /The records' own labels it counts: New Vision, Non-Party\.$/);
      });

      test('Independents are not a party: no loyalty row in the transfers, no "NON-P." anywhere', async () => {
        const page = await get(service, '/election/general-election-2020/transfers');
        assert.ok(!readable(page.document.querySelector('main')).includes('NON-P.'));
        assert.ok(!readable(page.document.querySelector('main')).includes('Non-Party'));
        const row = [...page.document.querySelectorAll('#matrix tbody tr')].find(
          (tr) => readable(tr.querySelector('th')) === 'Independents',
        )!;
        assert.equal(row.querySelectorAll('td.own').length, 0, 'not shaded as loyalty');
        const fineGael = [...page.document.querySelectorAll('#matrix tbody tr')].find(
          (tr) => readable(tr.querySelector('th')) === 'Fine Gael',
        )!;
        assert.equal(fineGael.querySelectorAll('td.own').length, 1);
        assert.ok(page.all('.breakdown tbody th').every((t) => t !== 'Independents (own party)'));
      });

      test('every party of an election has a colour of its own, told apart from every other (ΔE ≥ 20)', async () => {
        for (const year of [2011, 2016, 2020, 2024]) {
          const page = await get(service, `/election/general-election-${year}/parties`);
          const colours = [...page.document.querySelectorAll('main > .scroll tbody tr')].map((tr) => [
            readable(tr.querySelector('.party-long')),
            tr.querySelector('th rect')!.getAttribute('fill')!,
          ]);
          const close: string[] = [];
          for (let i = 0; i < colours.length; i++)
            for (let j = i + 1; j < colours.length; j++) {
              const [a, b] = [lab(colours[i]![1]!), lab(colours[j]![1]!)];
              if (Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) < 20)
                close.push(`${colours[i]![0]} / ${colours[j]![0]}`);
            }
          assert.deepEqual(close, [], `${year}`);
        }
        const y2011 = await get(service, '/election/general-election-2011/parties');
        const fill = (party: string) =>
          [...y2011.document.querySelectorAll('main > .scroll tbody tr')]
            .find((tr) => readable(tr.querySelector('.party-long')) === party)!
            .querySelector('rect')!
            .getAttribute('fill');
        assert.notEqual(fill('Christian Solidarity Party'), '#8e2420');
        const y2020 = await get(service, '/election/general-election-2020/parties');
        const green = [...y2020.document.querySelectorAll('main > .scroll tbody tr')].map((tr) =>
          tr.querySelector('rect')!.getAttribute('fill'),
        );
        assert.equal(new Set(green).size, green.length);
      });

      test("2024's women candidates: 246, from the official statistics, said so", async () => {
        const page = await get(service, '/election/general-election-2024');
        const women = [...page.document.querySelectorAll('dl.facts > div')]
          .map(readable)
          .find((t) => t.startsWith('Women candidates'));
        assert.equal(women, "Women candidates 246 (the official statistics; the candidates' records give no gender)");
        const parties = await get(service, '/election/general-election-2024/parties');
        const foot = [...parties.document.querySelectorAll('main > .scroll tfoot td')].map(readable);
        assert.ok(foot.includes('246'), foot.join(' | '));
      });
    });
  });
