// The explorer's pages through the app, on both stores: what each page type shows in each state (default, filtered,
// sorted, empty, error, last page), the redirects that make form submissions canonical, headers (CSP, ETag, 304,
// immutable assets), escaping, and that the API beside them answers as before. Browser behaviour is in test/web/.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseHTML } from 'linkedom';
import { CONTENT_SECURITY_POLICY } from '../../src/web/index.js';
import { RESOURCE_A, RESOURCE_C, startService, type TestService, TEST_BACKENDS } from '../helpers/service.js';
import { TWO_ELECTIONS, twoElectionSettings } from '../helpers/two-elections.js';

const RESOURCE = `/resource/${RESOURCE_A}`;
const DBS = '/election/general-election-2020/constituencies/dublin-bay-south';

interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  document: Document;
  body: string;
  text: (selector: string) => string;
  all: (selector: string) => string[];
}

async function get(service: TestService, url: string, headers: Record<string, string> = {}): Promise<Page> {
  const response = await service.request({ method: 'GET', url, headers });
  const { document } = parseHTML(response.body);
  return {
    status: response.statusCode,
    headers: response.headers as Page['headers'],
    document: document as unknown as Document,
    body: response.body,
    text: (selector) => readable(document.querySelector(selector)),
    all: (selector) => [...document.querySelectorAll(selector)].map(readable),
  };
}

/** An element's text as a reader meets it: the texts of its parts, separated, with runs of space made one. */
function readable(
  node: { childNodes?: ArrayLike<unknown>; nodeType?: number; textContent?: string | null } | null,
): string {
  const parts: string[] = [];
  const walk = (n: any) => {
    if (n.nodeType === 3) parts.push(n.textContent ?? '');
    else for (const child of n.childNodes ?? []) walk(child);
  };
  if (node) walk(node);
  return parts
    .join(' ')
    .replace(/\s+/g, ' ')
    .replace(/ ([,.])/g, '$1')
    .trim();
}

function query(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) search.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  return `?${search.toString()}`;
}

for (const backend of TEST_BACKENDS)
  describe(`explorer pages [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    describe('every page', () => {
      test('is HTML with a strict policy, an entity tag, and answers a matching If-None-Match with 304', async () => {
        const page = await get(service, '/');
        assert.equal(page.status, 200);
        assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
        assert.equal(page.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
        assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval/);
        assert.equal(page.headers['x-content-type-options'], 'nosniff');
        const tag = String(page.headers.etag);
        assert.match(tag, /^W\/"[0-9a-f]+-/);
        const again = await service.request({ method: 'GET', url: '/', headers: { 'if-none-match': tag } });
        assert.equal(again.statusCode, 304);
        assert.equal(again.body, '');
        assert.match(page.body, /^<!doctype html><html lang="en">/);
      });

      test('has no inline script or style, names its assets by hash, and serves them immutable', async () => {
        const page = await get(service, DBS);
        assert.equal(page.document.querySelectorAll('style, [style]').length, 0);
        const scripts = [...page.document.querySelectorAll('script')];
        assert.ok(scripts.every((s) => s.getAttribute('src') && s.textContent === ''));
        const css = page.document.querySelector('link[rel="stylesheet"]')!.getAttribute('href')!;
        const js = scripts[0]!.getAttribute('src')!;
        for (const [url, type] of [
          [css, 'text/css; charset=utf-8'],
          [js, 'text/javascript; charset=utf-8'],
        ] as const) {
          assert.match(url, /^\/static\/explorer\.[0-9a-f]{12}\.(css|js)$/);
          const asset = await service.request(url);
          assert.equal(asset.statusCode, 200);
          assert.equal(asset.headers['content-type'], type);
          assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
          // If-None-Match compares weakly (RFC 9110): the tag as sent, or marked weak by a proxy, both revalidate.
          const tag = asset.headers.etag as string;
          assert.match(tag, /^"[0-9a-f]{12}"$/);
          for (const held of [tag, `W/${tag}`, `"other", ${tag}`]) {
            const again = await service.request({ method: 'GET', url, headers: { 'if-none-match': held } });
            assert.deepEqual([again.statusCode, again.headers.etag, again.body], [304, tag, ''], held);
          }
        }
        assert.equal((await service.request('/static/explorer.000000000000.css')).statusCode, 404);
      });

      test('links the same data as JSON', async () => {
        const page = await get(service, `${RESOURCE}${query({ q: 'Dublin', limit: '5' })}`);
        const alternate = page.document
          .querySelector('link[rel="alternate"][type="application/json"]')!
          .getAttribute('href')!;
        assert.equal(alternate, `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&q=Dublin&limit=5`);
        const api = await service.getJson(alternate);
        assert.equal(api.body.result.total, 139);
      });

      test('a HEAD is answered without a body', async () => {
        const head = await service.request({ method: 'HEAD', url: '/' });
        assert.equal(head.statusCode, 200);
        assert.equal(head.body, '');
      });
    });

    describe('home', () => {
      test('a card per election, latest first, with exact figures and where to go next', async () => {
        const page = await get(service, '/');
        assert.deepEqual(page.all('.card h3'), [
          'General Election 2024',
          'General Election 2020',
          'General Election 2016',
          'General Election 2011',
        ]);
        const card = [...page.document.querySelectorAll('.card')].find(
          (c) => readable(c.querySelector('h3')) === 'General Election 2020',
        )!;
        assert.deepEqual([...card.querySelectorAll('.mini-facts div')].map(readable), [
          'Seats 160',
          'Constituencies 39',
          'Candidates 531',
          'Turnout 62.7%',
        ]);
        assert.deepEqual([...card.querySelectorAll('.card-links a')].map(readable), [
          'Constituencies and counts',
          'Party totals',
          'Transfers',
        ]);
        assert.deepEqual([...card.querySelectorAll('details li')].map(readable), [
          'Candidate results 2020 (531 records)',
          'Constituency results 2020 (39 records)',
          'Count details 2020 (5,015 records)',
          'Consistency checks 2020 (432 records)',
        ]);
        assert.ok(page.document.querySelector('a[href="/compare"]'), 'the comparison is offered');
      });

      test("an election's page counts the Ceann Comhairle's seat as the catalogue says", async () => {
        const page = await get(service, '/election/general-election-2020');
        assert.equal(
          page.text('.facts div:first-child dd'),
          '160 (159 contested; the Ceann Comhairle, Seán Ó Fearghaíl, returned automatically in Kildare South)',
        );
        const kildare = await get(service, '/election/general-election-2020/constituencies/kildare-south');
        assert.match(
          kildare.text('main'),
          /The outgoing Ceann Comhairle, Seán Ó Fearghaíl, was returned automatically here, in a seat beside the 3 seats contested\./,
        );
      });
    });

    describe('resource page', () => {
      test('the first page: 100 rows of 531, facets with exact counts, downloads and the API call', async () => {
        const page = await get(service, RESOURCE);
        assert.equal(page.status, 200);
        assert.equal(page.text('h1'), 'Candidate results 2020');
        assert.equal(page.text('#range'), 'Rows 1–100 of 531');
        assert.equal(page.text('table.data caption'), 'Candidate results 2020: rows 1–100 of 531');
        assert.equal(page.document.querySelectorAll('table.data tbody tr').length, 100);
        assert.deepEqual(page.all('.facet h3'), ['Gender Id', 'Result', 'Party Id']);
        assert.deepEqual(page.all('.facet:first-of-type li'), ['M 370', 'F 161']);
        assert.deepEqual(page.all('.pager li'), ['First', 'Previous', 'Next', 'Last']);
        assert.equal(
          page.document.querySelector('.pager a[rel="next"]')!.getAttribute('href'),
          `${RESOURCE}?offset=100`,
        );
        assert.equal(
          page.text('#api-url'),
          `http://localhost:80/api/3/action/datastore_search?resource_id=${RESOURCE_A}`,
        );
        assert.deepEqual(page.all('.snippet summary'), ['curl', 'Python', 'R', 'JavaScript']);
        // Numbers right-aligned, Irish text marked as Irish.
        assert.ok(page.document.querySelector('th.num a[href*="Votes"]'));
        assert.equal(page.document.querySelector('tbody tr td[lang="ga"]')!.textContent, 'Ceatharlach-Cill Chainnigh');
      });

      test("a filter form is folded into datastore_search's filters and redirected to the canonical URL", async () => {
        const response = await service.request(
          `${RESOURCE}?_ff=Party+Abbreviation&_fo=eq&_fv=F.F.&_ff=&_fo=eq&_fv=&sort=%22Votes%22+desc&offset=200`,
        );
        assert.equal(response.statusCode, 303);
        assert.equal(
          response.headers.location,
          `${RESOURCE}${query({ filters: { 'Party Abbreviation': 'F.F.' }, sort: '"Votes" desc' })}`,
        );
        const columns = await service.request(`${RESOURCE}?_cols=1&_col=Surname&_col=Votes&_col=Nope`);
        assert.equal(columns.headers.location, `${RESOURCE}?fields=Surname%2CVotes`);
        const sorting = await service.request(
          `${RESOURCE}?_sorting=1&_s1=Constituency&_d1=asc&_s2=Votes&_d2=desc&_s3=&_d3=asc`,
        );
        assert.equal(sorting.headers.location, `${RESOURCE}${query({ sort: '"Constituency", "Votes" desc' })}`);
      });

      test('filtered and sorted: one party by votes, the sort announced on its header and in the caption', async () => {
        const page = await get(
          service,
          `${RESOURCE}${query({ filters: { 'Party Abbreviation': 'F.F.' }, sort: '"Votes" desc' })}`,
        );
        assert.equal(page.text('#range'), 'Rows 1–84 of 84 · sorted by Votes descending');
        assert.equal(page.document.querySelector('th[aria-sort]')!.getAttribute('aria-sort'), 'descending');
        assert.match(page.text('th[aria-sort]'), /^Votes/);
        const first = [...page.document.querySelectorAll('tbody tr:first-child td')].map((td) => td.textContent);
        assert.deepEqual([first[2], first[3], first[10]], ['Martin', 'Micheál', '11,023']);
        assert.deepEqual(page.all('.active-filters li'), ['Party Abbreviation is F.F. remove']);
        const excel = [...page.document.querySelectorAll('.downloads a')]
          .find((a) => a.textContent === 'CSV for Excel')!
          .getAttribute('href')!;
        assert.equal(
          excel,
          `/datastore/dump/${RESOURCE_A}${query({ filters: { 'Party Abbreviation': 'F.F.' }, sort: '"Votes" desc', bom: 'true' })}`,
        );
        const file = await service.request(excel);
        assert.equal(file.statusCode, 200);
        assert.ok(file.body.startsWith('\uFEFF_id,Constituency,Surname'));
        assert.equal(file.body.trim().split('\n').length, 85);
        assert.match(file.body.split('\n')[1]!, /^\d+,Cork South Central,Martin,Micheál,/);
      });

      test('a facet value adds its filter; a selected one removes it', async () => {
        const page = await get(service, `${RESOURCE}${query({ filters: { 'Gender Id': 'F' } })}`);
        const female = [...page.document.querySelectorAll('.facet li.selected a')][0]!;
        assert.equal(female.getAttribute('aria-label'), 'Remove the filter Gender Id F (161 records)');
        assert.equal(female.getAttribute('href'), RESOURCE);
        const elected = [...page.document.querySelectorAll('.facet a')].find((a) =>
          a.getAttribute('aria-label')?.startsWith('Filter to Result Elected'),
        )!;
        assert.equal(elected.getAttribute('aria-label'), 'Filter to Result Elected (36 records)');
        assert.equal(
          elected.getAttribute('href'),
          `${RESOURCE}${query({ filters: { 'Gender Id': 'F', Result: 'Elected' } })}`,
        );
      });

      test('search ignores fadas and case', async () => {
        const page = await get(service, `${RESOURCE}${query({ q: 'micheal martin' })}`);
        assert.equal(page.text('#range'), 'Rows 1–1 of 1');
        assert.match(page.text('tbody tr'), /Martin Micheál/);
      });

      test('the last page, and past it', async () => {
        const last = await get(service, `${RESOURCE}?offset=500`);
        assert.equal(last.text('#range'), 'Rows 501–531 of 531');
        assert.deepEqual(last.all('.pager [aria-disabled="true"]'), ['Next', 'Last']);
        const past = await get(service, `${RESOURCE}?offset=600`);
        assert.equal(past.status, 200);
        assert.equal(past.text('#range'), 'No rows here: the view has 531 rows');
        assert.equal(past.document.querySelector('.notice a')!.getAttribute('href'), `${RESOURCE}?offset=500`);
      });

      test('a page holds at most 1,000 rows: a larger limit is redirected to it', async () => {
        const response = await service.request(`${RESOURCE}?limit=32000&q=dublin`);
        assert.equal(response.statusCode, 303);
        assert.equal(response.headers.location, `${RESOURCE}?q=dublin&limit=1000`);
      });

      test('an empty result says so and suggests what to change', async () => {
        const page = await get(service, `${RESOURCE}${query({ q: 'zzzqqq' })}`);
        assert.equal(page.status, 200);
        assert.equal(page.text('#range'), 'No rows');
        assert.equal(page.text('.results .notice'), 'No records match this view. Try fewer words, or remove a filter.');
      });

      test('an invalid view is a 409 page that says what is wrong, with the form still there', async () => {
        const page = await get(service, `${RESOURCE}?sort=Turnout`);
        assert.equal(page.status, 409);
        assert.equal(page.headers['cache-control'], 'no-store');
        assert.equal(page.document.querySelector('[role="alert"] li')!.textContent, 'sort: invalid value "Turnout"');
        assert.match(
          page.text('[role="alert"]'),
          /^This view cannot be shown Some parameters do not fit this resource:/,
        );
        assert.ok(page.document.querySelector('form.search'));
      });

      test('text is escaped, never markup', async () => {
        const page = await get(service, `${RESOURCE}${query({ q: '<script>alert(1)</script>' })}`);
        assert.ok(!page.body.includes('<script>alert'));
        assert.ok(page.body.includes('&lt;script>alert(1)&lt;/script>'));
      });

      test('an unknown resource is a 404 page', async () => {
        const page = await get(service, '/resource/no-such-resource');
        assert.equal(page.status, 404);
        assert.equal(page.text('h1'), 'Not found');
      });
    });

    describe('record page', () => {
      test('the fields, and links to the election pages and records it relates to', async () => {
        const page = await get(service, `${RESOURCE}/record/1`);
        // The title in the usual case; the record's own fields as the official file spells them.
        assert.equal(page.text('h1'), 'Bobby Aylward, Carlow-Kilkenny');
        assert.equal(page.text('dl.record div:nth-child(2)'), 'Surname AYLWARD');
        const related = [...page.document.querySelectorAll('#related-title + ul a')].map((a) => [
          a.textContent,
          a.getAttribute('href'),
        ]);
        // The result from the count details, which the record's Count Number (Carlow-Kilkenny's 10 counts) is not.
        assert.equal(
          page.text('.outcome'),
          'Not elected: in the count to its end (count 10), from the count details: the count as it stood then.',
        );
        assert.deepEqual(related, [
          ['Bobby Aylward in every election', '/people/bobby-aylward'],
          [
            'Carlow Kilkenny: the count, transfer by transfer',
            '/election/general-election-2020/constituencies/carlow-kilkenny',
          ],
          ['Fianna Fáil: party totals and candidates', '/election/general-election-2020/parties/fianna-fail'],
          [
            'This candidate at every count (count details)',
            `/resource/${RESOURCE_C}${query({ filters: { 'Constituency Number': 1, 'Candidate Id': 161 }, sort: '"Count Number"' })}`,
          ],
        ]);
        assert.equal((await get(service, `${RESOURCE}/record/99999`)).status, 404);
        assert.equal((await get(service, `${RESOURCE}/record/x`)).status, 404);
      });
    });

    describe('constituency page', () => {
      test('facts, who was elected on which count, and the count laid out as printed', async () => {
        const page = await get(service, DBS);
        assert.equal(page.status, 200);
        assert.equal(page.text('h1'), 'Dublin Bay South · Cuan Bhaile Átha Cliath Theas');
        assert.equal(page.document.querySelector('h1 [lang="ga"]')!.textContent, 'Cuan Bhaile Átha Cliath Theas');
        assert.match(page.text('.facts'), /Quota 7,919 .*Quarter quota \(deposit and expenses\) 1,980 Counts 8/);
        assert.deepEqual(
          page.all('ol.elected li').map((t) => t.replace(/,.*? — /, ' — ')),
          [
            'Eamon Ryan — elected on count 1 with 8,888 votes',
            'Chris Andrews — elected on count 8 with 8,797 votes',
            'Eoghan Murphy — elected on count 8 with 7,602 votes, without reaching the quota',
            "Jim O'Callaghan — elected on count 8 with 7,158 votes, without reaching the quota",
          ],
        );
        assert.deepEqual(page.all('.count-table thead .count-what'), [
          'First preferences',
          'Surplus of Eamon Ryan (969)',
          "Exclusion of Norma Burke, John Dominic Keigher and Sean O'Leary (178)",
          'Exclusion of Peter Dooley and Ben Scallan (572)',
          'Exclusion of Mannix Flynn (753)',
          'Exclusion of Jacqui Gilbourne (847)',
          'Exclusion of Sarah Durcan and Annette Mooney (3,492)',
          'Exclusion of Kevin Humphreys (4,971)',
        ]);
        assert.equal(
          page.text('.count-table tbody tr:first-child'),
          'Eamon Ryan G.P. total 8,888 Elected transfer −969 total 7,919 total 7,919 total 7,919 total 7,919 total 7,919 total 7,919 total 7,919',
        );
        assert.equal(page.text('.count-table tr.nontransferable td:last-child'), 'this count +1,055 in all 1,845');
      });

      test('every chart is a figure with a caption, an image with a label, its data as a table and its API link', async () => {
        const page = await get(service, DBS);
        const figures = [...page.document.querySelectorAll('figure')];
        assert.deepEqual(
          figures.map((f) => f.id),
          ['first-preferences', 'race', 'transfers'],
        );
        for (const figure of figures) {
          assert.ok(figure.querySelector('figcaption')!.textContent!.length > 20);
          const svg = figure.querySelector('svg.chart')!;
          assert.equal(svg.getAttribute('role'), 'img');
          assert.ok(svg.getAttribute('aria-label')!.includes('Dublin Bay South'));
          assert.equal(svg.querySelectorAll('[aria-label]').length, 0, 'no labelled groups inside the image');
          assert.ok(figure.querySelector('details table caption'));
          const api = figure.querySelector('.api-link a')!;
          assert.equal(api.getAttribute('rel'), 'nofollow');
          const answer = await service.getJson(api.getAttribute('href')!);
          assert.equal(answer.status, 200);
          assert.ok(answer.body.result.total >= 15);
        }
      });

      test('?count=N shows the count as it stood after count N', async () => {
        const page = await get(service, `${DBS}?count=3`);
        assert.equal(page.text('#elected-title'), 'Elected by the end of count 3');
        assert.deepEqual(page.all('ol.elected li strong'), ['Eamon Ryan']);
        assert.equal(page.document.querySelectorAll('.count-table thead th').length, 4);
        assert.equal(page.document.querySelector('.stepper a[aria-current="page"]')!.textContent, '3');
        assert.equal(
          page.text('#transfers-title + figure .figure-title'),
          "Count 3: Exclusion of Norma Burke, John Dominic Keigher and Sean O'Leary.",
        );
        assert.equal((await get(service, `${DBS}?count=9`)).status, 404);
        assert.equal((await get(service, `${DBS}?count=x`)).status, 404);
        assert.equal((await get(service, '/election/general-election-2020/constituencies/atlantis')).status, 404);
      });
    });

    describe('election pages', () => {
      test('party totals: seats, votes and shares, women, quarter-quota passes', async () => {
        const page = await get(service, '/election/general-election-2020/parties');
        const rows = [...page.document.querySelectorAll('main > .scroll table.data tbody tr')].map((tr) =>
          [...tr.children].map((c) => readable(c)),
        );
        // Seat shares are of the Dáil's 160 seats: the Ceann Comhairle, returned automatically, counts for Fianna Fáil.
        // The abbreviation twice: beside the name, and in its place on a phone. Seats and swing since 2016 beside them.
        assert.deepEqual(rows[0], [
          'Sinn Féin S.F. S.F.',
          '37',
          '+14',
          '535,573',
          '24.5%',
          '+10.7 pts',
          '23.1%',
          '−1.4 pts',
          '42',
          '14',
          '13',
          '42',
        ]);
        assert.deepEqual(rows[1], [
          'Fianna Fáil F.F. F.F.',
          '38 *',
          '−6',
          '484,315',
          '22.2%',
          '−2.2 pts',
          '23.8%',
          '+1.6 pts',
          '84',
          '26',
          '5',
          '77',
        ]);
        assert.equal(rows.length, 16);
        assert.deepEqual([...page.document.querySelectorAll('table.data tfoot tr > *')].slice(0, 4).map(readable), [
          'All',
          '160 *',
          '–',
          '2,183,489',
        ]);
        assert.equal(
          page.text('main > .lead'),
          '160 seats: 159 filled at the count from 531 candidates, and the Ceann Comhairle returned automatically; 2,183,489 valid first-preference votes.',
        );
        assert.equal(
          page.document.querySelector('tbody tr:nth-child(2) .footnote-mark')!.getAttribute('aria-label'),
          ': 37 at the count and the Ceann Comhairle (see the note)',
        );
        assert.equal(
          page.text('#ceann-comhairle-note'),
          '* Fianna Fáil: 38 (37 + the Ceann Comhairle). The outgoing Ceann Comhairle, Seán Ó Fearghaíl, was returned automatically in Kildare South, without a contest. ' +
            'Their seat is counted for Fianna Fáil, the party they were elected for, as the Dáil and the media count it. ' +
            'Seat shares are of all 160 seats. The official results count only the 159 seats filled at the count; the candidate records stay as published.',
        );
        assert.ok(page.document.querySelector('figure#shares svg[role="img"]'));
      });

      test("every election's seats as the Dáil had them: the Ceann Comhairle counted for their party", async () => {
        const seatsOf = async (year: number) => {
          const page = await get(service, `/election/general-election-${year}/parties`);
          const rows = [...page.document.querySelectorAll('main > .scroll table.data tbody tr')].map((tr) => [
            readable(tr.querySelector('th .party-long')!),
            readable(tr.children[1]!),
          ]);
          const note = page.text('#ceann-comhairle-note').split('. ')[0];
          return [
            Object.fromEntries(
              rows.filter(([party]) => ['Fianna Fáil', 'Fine Gael', 'Sinn Féin', 'The Labour Party'].includes(party!)),
            ),
            note,
          ];
        };
        // The figures every report of these elections gives (the Oireachtas's, and the media's).
        assert.deepEqual(await seatsOf(2011), [
          { 'Fine Gael': '76', 'The Labour Party': '37', 'Fianna Fáil': '20 *', 'Sinn Féin': '14' },
          '* Fianna Fáil: 20 (19 + the Ceann Comhairle)',
        ]);
        assert.deepEqual(await seatsOf(2016), [
          { 'Fine Gael': '50 *', 'Fianna Fáil': '44', 'Sinn Féin': '23', 'The Labour Party': '7' },
          '* Fine Gael: 50 (49 + the Ceann Comhairle)',
        ]);
        assert.deepEqual(await seatsOf(2020), [
          { 'Sinn Féin': '37', 'Fianna Fáil': '38 *', 'Fine Gael': '35', 'The Labour Party': '6' },
          '* Fianna Fáil: 38 (37 + the Ceann Comhairle)',
        ]);
        assert.deepEqual(await seatsOf(2024), [
          { 'Fianna Fáil': '48 *', 'Sinn Féin': '39', 'Fine Gael': '38', 'The Labour Party': '11' },
          '* Fianna Fáil: 48 (47 + the Ceann Comhairle)',
        ]);
        // The official records stay as published: 37 of Fianna Fáil's 2020 candidates elected.
        const api = await service.getJson(
          `/api/3/action/datastore_search?resource_id=${RESOURCE_A}&filters=${encodeURIComponent(JSON.stringify({ 'Party Id': 'Fianna Fáil', Result: 'Elected' }))}&limit=0`,
        );
        assert.equal(api.body.result.total, 37);
      });

      test("a party's page lists its candidates", async () => {
        const page = await get(service, '/election/general-election-2020/parties/sinn-fein');
        assert.equal(page.document.querySelectorAll('#candidates tbody tr').length, 42);
        assert.match(page.text('.facts'), /^Seats 37 First preferences 535,573/);
        assert.equal(page.document.querySelector('#ceann-comhairle-note'), null);
        const ff = await get(service, '/election/general-election-2020/parties/fianna-fail');
        assert.match(
          ff.text('.facts'),
          /^Seats 38 \(37 \+ the Ceann Comhairle\) First preferences 484,315 Vote share 22\.2% Seat share 23\.8%/,
        );
        assert.equal(
          ff.text('main > .lead'),
          'General Election 2020: 84 candidates, 38 seats (37 won at the count and the Ceann Comhairle returned automatically), 22.2% of first preferences.',
        );
        assert.match(
          ff.text('#ceann-comhairle-note'),
          /^\* Fianna Fáil: 38 \(37 \+ the Ceann Comhairle\)\. The outgoing Ceann Comhairle, Seán Ó Fearghaíl, was returned automatically in Kildare South/,
        );
        assert.equal((await get(service, '/election/general-election-2020/parties/no-such-party')).status, 404);
      });

      test('the constituency list sorts by any column, the sort announced', async () => {
        const byName = await get(service, '/election/general-election-2020/constituencies');
        assert.equal(byName.document.querySelectorAll('tbody tr').length, 39);
        assert.equal(byName.text('tbody tr th'), 'Carlow Kilkenny');
        const byTurnout = await get(service, '/election/general-election-2020/constituencies?sort=-turnout');
        assert.equal(byTurnout.text('tbody tr th'), 'Wicklow');
        assert.equal(byTurnout.text('th[aria-sort="descending"]'), 'Turnout ▼');
        assert.equal((await get(service, '/election/general-election-2020/constituencies?sort=nope')).status, 400);
      });

      test('the elections compared: 2020 against 2024 by default, parties matched across spellings, redrawn constituencies flagged', async () => {
        const page = await get(service, '/compare');
        assert.equal(page.status, 200);
        assert.equal(
          page.document.querySelector('#earlier option[selected]')!.getAttribute('value'),
          'general-election-2020',
        );
        assert.equal(
          page.document.querySelector('#later option[selected]')!.getAttribute('value'),
          'general-election-2024',
        );
        const rowsOf = (table: string) =>
          [...page.document.querySelectorAll(`${table} tbody tr`)].map((tr) => [
            readable(tr.querySelector('.party-long')),
            ...[...tr.children].slice(1).map(readable),
          ]);
        const shares = rowsOf('#shares-compared');
        const seats = rowsOf('#seats-compared');
        assert.deepEqual(page.all('#shares-compared thead th'), ['Party', '2020', '2024', 'Change']);
        // "Solidarity - People Before Profit" in 2020, "People Before Profit–Solidarity" in 2024: one party.
        assert.deepEqual(
          shares.find((p) => p[0] === 'People Before Profit–Solidarity'),
          ['People Before Profit–Solidarity', '2.6%', '2.8%', '+0.2'],
        );
        assert.deepEqual(
          seats.find((p) => p[0] === 'People Before Profit–Solidarity'),
          ['People Before Profit–Solidarity', '5', '3', '−2'],
        );
        // Seats as the Dáil had them, the Ceann Comhairle counted for Fianna Fáil in both, marked and explained.
        assert.deepEqual(seats.find((p) => p[0] === 'Fianna Fáil')!.slice(1), ['38 *', '48 *', '+10']);
        assert.deepEqual(seats.find((p) => p[0] === 'Fine Gael')!.slice(1), ['35', '38', '+3']);
        // Parties without a seat in either election are in the shares only.
        assert.equal(seats.length, 12);
        assert.equal(shares.length, 25);
        assert.equal(page.text('#overall-title + .scroll tbody tr:first-child'), 'Seats 160 174');
        assert.equal(
          page.text('#ceann-comhairle-note'),
          '* Seats as the Dáil had them: the outgoing Ceann Comhairle, returned automatically without a contest, is counted for the party they were elected for ' +
            '(General Election 2020: Seán Ó Fearghaíl, Fianna Fáil; General Election 2024: Seán Ó Fearghaíl, Fianna Fáil). The official results count only the seats filled at the count.',
        );
        const constituencies = new Map(
          [...page.document.querySelectorAll('#constituencies-title ~ .scroll tbody tr')].map((tr) => [
            readable(tr.children[0]!),
            readable(tr.children[5]!),
          ]),
        );
        assert.equal(constituencies.get('Dublin Fingal'), 'Only in the earlier election (abolished or redrawn)');
        assert.equal(constituencies.get('Wicklow Wexford'), 'Only in the later election (new or redrawn)');
        assert.equal(constituencies.get('Wicklow'), 'Seats changed');
        assert.equal(constituencies.get('Dublin Bay South'), 'Same name and seats');
        // 2024's candidates' sources give no gender; the official statistics count 246 women candidates.
        assert.equal(page.text('#overall-title + .scroll tbody tr:nth-child(4)'), 'Women candidates 161 246');
        assert.equal((await get(service, '/election/no-such-election')).status, 404);
      });
    });

    describe('the API beside the pages', () => {
      test('answers as before', async () => {
        const api = await service.getJson(`/api/3/action/datastore_search?resource_id=${RESOURCE_A}&limit=1`);
        assert.equal(api.status, 200);
        assert.equal(api.raw.headers['content-type'], 'application/json;charset=utf-8');
        assert.equal(api.raw.headers['content-security-policy'], undefined);
        const missing = await service.getJson('/api/3/action/no_such_action');
        assert.equal(missing.status, 400);
        const unknownPath = await service.getJson('/no/such/page');
        assert.equal(unknownPath.status, 404);
        assert.equal(unknownPath.body.success, false);
      });
    });
  });

for (const backend of TEST_BACKENDS)
  describe(`explorer with two elections [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService(twoElectionSettings(), backend);
    });
    after(() => service.close());

    test('home lists both, latest first, and offers the comparison', async () => {
      const page = await get(service, '/');
      assert.deepEqual(page.all('.card h3'), ['Test Election 2020', 'Test Election 2016']);
      assert.ok(page.document.querySelector('a[href="/compare"]'));
    });

    test('the comparison: turnout, parties matched across elections, constituencies matched by name', async () => {
      const page = await get(service, '/compare');
      assert.equal(page.status, 200);
      assert.equal(
        page.document.querySelector('#earlier option[selected]')!.getAttribute('value'),
        TWO_ELECTIONS.earlier.name,
      );
      assert.equal(
        page.document.querySelector('#later option[selected]')!.getAttribute('value'),
        TWO_ELECTIONS.later.name,
      );
      assert.equal(page.text('#overall-title + .scroll table tbody tr:nth-child(5)'), 'Turnout 59.3% 73.1%');
      const row = (tr: Element) => [
        tr.querySelector('.party-long')!.textContent!.trim(),
        ...[...tr.children].slice(1).map((c) => c.textContent!.trim()),
      ];
      const shares = [...page.document.querySelectorAll('#shares-compared tbody tr')].map(row);
      const seats = new Map(
        [...page.document.querySelectorAll('#seats-compared tbody tr')].map(row).map((r) => [r[0], r[3]]),
      );
      assert.deepEqual(
        shares.map((p) => [p[0], p[3], seats.get(p[0]!) ?? '–']),
        [
          ['Sinn Féin', '−11.0', '0'],
          ['Fianna Fáil', '−12.1', '0'],
          ['Fine Gael', '+3.4', '+1'],
          ['Green Party', '–', '–'],
          ['Non-Party', '–', '–'],
          ['Social Democrats', '–', '–'],
          ['The Labour Party', '–', '–'],
        ],
      );
      const constituencies = [...page.document.querySelectorAll('#constituencies-title ~ .scroll tbody tr')].map(
        (tr) => [tr.children[0]!.textContent!.trim(), tr.children[5]!.textContent!.trim()],
      );
      assert.deepEqual(constituencies, [
        ['Northtown', 'Seats changed'],
        ['Old Bay', 'Only in the earlier election (abolished or redrawn)'],
        ['Riverside', 'Only in the later election (new or redrawn)'],
      ]);
      assert.ok(page.document.querySelector('figure#share-change svg[role="img"]'));
    });

    test('with one election loaded, comparing says it needs two', async () => {
      const single = await startService(twoElectionSettings('later'), backend);
      try {
        const page = await get(single, '/compare');
        assert.equal(page.status, 404);
        assert.match(page.text('[role="alert"]'), /needs two elections/);
        assert.equal((await get(single, '/')).document.querySelector('a[href="/compare"]'), null);
      } finally {
        await single.close();
      }
    });

    test('the same election on both sides asks for two', async () => {
      const page = await get(service, `/compare?earlier=${TWO_ELECTIONS.later.name}&later=${TWO_ELECTIONS.later.name}`);
      assert.equal(page.text('main p:last-child'), 'Choose two different elections.');
      assert.equal((await get(service, '/compare?earlier=nope')).status, 404);
    });

    test("each election's views come from its own resources, found by role", async () => {
      const earlier = await get(service, `/election/${TWO_ELECTIONS.earlier.name}/constituencies/northtown`);
      assert.deepEqual(earlier.all('ol.elected li strong'), ['Áine Ó Ríordáin', 'Seán Murphy']);
      assert.deepEqual(earlier.all('.count-table thead .count-what'), [
        'First preferences',
        'Surplus of Áine Ó Ríordáin (49)',
      ]);
      const later = await get(service, `/election/${TWO_ELECTIONS.later.name}/constituencies/northtown?count=3`);
      assert.deepEqual(later.all('ol.elected li strong'), ['Áine Ó Ríordáin', 'Seán Murphy', 'Pat Kelly']);
      assert.equal(later.text('.count-table tr.nontransferable td:last-child'), 'this count +8 in all 10');
    });
  });
