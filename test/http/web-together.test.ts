// The explorer's pages of every election at once and of transfers, through the app on both stores: elections over
// time, finding a candidate and a person's page, transfers nationally and per constituency with the count as a flow;
// the unofficial notice, each page's sources and licences in its footer, and totals that do not add up said so.
// Figures are checked against the sources: the official 2016 and 2020 files, Wikipedia's 2011 and 2024 tables.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseHTML } from 'linkedom';
import { RESOURCE_A, startService, TEST_BACKENDS, type TestService } from '../helpers/service.js';
import { twoElectionSettings } from '../helpers/two-elections.js';

interface Page {
  status: number;
  document: Document;
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
    .replace(/ ([,.:;])/g, '$1')
    .trim();
}

async function get(service: TestService, url: string): Promise<Page> {
  const response = await service.request({ method: 'GET', url });
  const { document } = parseHTML(response.body);
  return {
    status: response.statusCode,
    document: document as unknown as Document,
    text: (selector) => readable(document.querySelector(selector)),
    all: (selector) => [...document.querySelectorAll(selector)].map(readable),
  };
}

const rowsOf = (page: Page, selector: string) =>
  [...page.document.querySelectorAll(`${selector} tbody tr`)].map((tr) => [...tr.children].map(readable));

for (const backend of TEST_BACKENDS)
  describe(`explorer: every election at once, people, transfers [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    describe('elections over time', () => {
      test("one click from home and from every page's header", async () => {
        const home = await get(service, '/');
        assert.ok(home.document.querySelector('main a[href="/elections"]'), 'linked from the home page');
        for (const url of ['/', `/resource/${RESOURCE_A}`, '/election/general-election-2020/parties']) {
          assert.equal(
            (await get(service, url)).document.querySelector('header nav a[href="/elections"]')!.textContent,
            'Elections over time',
          );
        }
      });

      test("every party's seats as the Dáil had them, shares and candidates, 2011 to 2024", async () => {
        const page = await get(service, '/elections');
        assert.equal(page.status, 200);
        assert.deepEqual(page.all('#seats-table thead th'), ['Party', '2011', '2016', '2020', '2024']);
        const seats = new Map(
          rowsOf(page, '#seats-table').map((r) => [r[0]!.split(' ')[0] === 'The' ? r[0]! : r[0]!, r.slice(1)]),
        );
        const line = (name: string) => [...seats].find(([party]) => party.startsWith(name))![1];
        // The seats every report gives (the Ceann Comhairle counted for their party, marked).
        assert.deepEqual(line('Fine Gael'), ['76', '50 *', '35', '38']);
        assert.deepEqual(line('Fianna Fáil'), ['20 *', '44', '38 *', '48 *']);
        assert.deepEqual(line('Sinn Féin'), ['14', '23', '37', '39']);
        assert.deepEqual(line('The Labour Party'), ['37', '7', '6', '11']);
        // One line for a party renamed twice, from 2011's United Left Alliance (its People Before Profit Alliance and
        // Socialist Party among its members, counted as one grouping as the press counted it).
        assert.deepEqual(line('People Before Profit–Solidarity'), ['5', '6', '5', '3']);
        assert.deepEqual(line('Independents'), ['14', '19', '19', '16']);
        assert.deepEqual(rowsOf(page, '#seats-table').length, [...seats].length);
        assert.equal(readable(page.document.querySelector('#seats-table tfoot tr')), 'All parties 166 158 160 174');
        const shares = rowsOf(page, '#shares-table').find((r) => r[0]!.startsWith('Fine Gael'))!;
        assert.deepEqual(shares.slice(1), ['36.1%', '25.5%', '20.9%', '20.8%']);
        const candidates = rowsOf(page, '#candidates-table').find((r) => r[0]!.startsWith('Fine Gael'))!;
        assert.deepEqual(candidates.slice(1), ['104', '88', '82', '80']);
        // 2011's first preferences are 45 short of the official valid poll: said, with the checks.
        const note = [...page.document.querySelectorAll('p.note')]
          .map(readable)
          .find((t) => t.startsWith('General Election 2011'))!;
        assert.equal(
          note,
          "General Election 2011: the candidates' first preferences add up to 2,220,314, 45 fewer than the official valid poll of 2,220,359; shares are of the first preferences. The consistency checks say where.",
        );
        for (const id of ['seats-chart', 'shares-chart']) {
          assert.ok(page.document.querySelector(`figure#${id} .chart-wide svg[role="img"]`), `${id}, wide`);
          assert.ok(
            page.document.querySelector(`figure#${id} .chart-narrow svg.chart-small[role="img"]`),
            `${id}, for a phone`,
          );
        }
      });
    });

    describe('candidates across elections', () => {
      test('"micheal martin" and "mich mart" find Micheál Martin, each result naming year, constituency and party', async () => {
        for (const q of ['micheal martin', 'mich mart', 'MICHEÁL MARTIN']) {
          const page = await get(service, `/search?q=${encodeURIComponent(q)}`);
          assert.equal(page.status, 200);
          assert.equal(page.text('#results-title'), `1 result for “${q}”`);
          assert.equal(
            page.document.querySelector('#results-person ~ .search-results .result-title a')!.getAttribute('href'),
            '/people/micheal-martin',
          );
          assert.deepEqual(page.all('.search-results > li > ul > li'), [
            '2011, Cork South Central, Fianna Fáil: 10,715 first preferences; elected on count 1',
            '2016, Cork South Central, Fianna Fáil: 11,346 first preferences; elected on count 1',
            '2020, Cork South Central, Fianna Fáil: 11,023 first preferences; elected on count 6',
            '2024, Cork South Central, Fianna Fáil: 14,526 first preferences; elected on count 1',
          ]);
          assert.equal(
            page.document.querySelectorAll('.search-results > li > ul > li a[href$="?count=6"]').length,
            1,
            'the count elected on, linked',
          );
        }
        const mich = await get(service, '/search?q=mich');
        assert.ok(mich.all('.search-results .result-title').includes('Micheál Martin'));
        const none = await get(service, '/search?q=zzqqx');
        assert.equal(none.text('#results-title'), 'Nothing matches “zzqqx”');
        // Too long to be a name: a page that says so, not an error.
        const long = await get(service, `/search?q=${'a'.repeat(201)}`);
        assert.equal(long.status, 200);
        assert.match(long.text('main .query-note'), /^That search is 201 characters long/);
      });

      test("a person's page: each candidacy, its first preferences and the count elected on, linked", async () => {
        const page = await get(service, '/people/micheal-martin');
        assert.equal(page.text('h1'), 'Micheál Martin');
        assert.equal(
          page.text('main > .lead'),
          'At 4 general elections (2011, 2016, 2020, 2024): elected at all of them.',
        );
        // 2011 and 2024 from Wikipedia's tables, 2016 and 2020 from the official files: the same figures as the
        // sources.
        assert.deepEqual(rowsOf(page, 'table.person'), [
          ['2011 *', '10,715', '16.7%', '1.00', 'Elected on count 1', 'Cork South Central', 'Fianna Fáil', 'record'],
          ['2016', '11,346', '20.4%', '1.02', 'Elected on count 1', 'Cork South Central', 'Fianna Fáil', 'record'],
          ['2020', '11,023', '19.3%', '0.96', 'Elected on count 6', 'Cork South Central', 'Fianna Fáil', 'record'],
          ['2024 *', '14,526', '23.2%', '1.39', 'Elected on count 1', 'Cork South Central', 'Fianna Fáil', 'record'],
        ]);
        assert.equal(
          page.document.querySelector('table.person tbody tr:nth-child(3) td:nth-child(5) a')!.getAttribute('href'),
          '/election/general-election-2020/constituencies/cork-south-central?count=6',
        );
        assert.equal(
          page.document.querySelector('table.person tbody tr:nth-child(2) td:nth-child(5) a')!.getAttribute('href'),
          '/election/general-election-2016/constituencies/cork-south-central?count=1',
        );
        assert.equal((await get(service, '/people/no-such-person')).status, 404);
      });

      test('reviewed decisions: namesakes in one constituency kept apart, a party change in a redrawn one joined', async () => {
        const sf = await get(service, '/people/eoin-o-broin');
        assert.deepEqual(
          rowsOf(sf, 'table.person').map((r) => `${r[0]} ${r[6]}`),
          ['2011 * Sinn Féin', '2016 Sinn Féin', '2020 Sinn Féin', '2024 * Sinn Féin'],
        );
        assert.match(
          sf.text('#matched-title + p + p + ul'),
          /^Joined: Eoin Ó Broin \(General Election 2020, Dublin Mid West\) and Eoin Ó Broin \(General Election 2024, Dublin Mid West\)\. Two candidates named/,
        );
        const sd = await get(service, '/people/eoin-o-broin-dublin-mid-west');
        assert.deepEqual(
          rowsOf(sd, 'table.person').map((r) => `${r[0]} ${r[6]}`),
          ['2024 * Social Democrats'],
        );
        const andrews = await get(service, '/people/chris-andrews');
        assert.deepEqual(
          rowsOf(andrews, 'table.person').map((r) => `${r[0]} ${r[5]} ${r[6]}`),
          [
            '2011 * Dublin South East Fianna Fáil',
            '2016 Dublin Bay South Sinn Féin',
            '2020 Dublin Bay South Sinn Féin',
            '2024 * Dublin Bay South Sinn Féin',
          ],
        );
      });
    });

    describe('transfers', () => {
      test("2020 nationally: each party's transfers to each party and to non-transferable, from one-party counts", async () => {
        const page = await get(service, '/election/general-election-2020/transfers');
        assert.equal(page.status, 200);
        assert.equal(
          page.text('main > .lead'),
          "Where each party's transfers went, nationally: 857,739 votes distributed at 274 counts whose votes were one party's. Each row is a party's distributed votes; each column, the share that went to a party, or no further.",
        );
        const head = page.all('#matrix thead th');
        assert.deepEqual(head.slice(0, 4), ['From', 'Votes distributed', 'To Fine Gael F.G.', 'To Fianna Fáil F.F.']);
        // The parties that received least share a column, so that the matrix reads whole; non-transferable is last.
        assert.deepEqual(head.slice(-2), ['To Others', 'To Non-transferable']);
        const rows = new Map(rowsOf(page, '#matrix').map((r) => [r[0]!, r.slice(1)]));
        const ff = rows.get('Fianna Fáil')!;
        assert.equal(ff[0], '120,713');
        // Shares of each row add up to the whole of what the party distributed.
        for (const [party, row] of rows) {
          const sum = row
            .slice(1)
            .filter((c) => c !== '–')
            .reduce((s, c) => s + Number(c.replace('%', '')), 0);
          assert.ok(Math.abs(sum - 100) < 0.6, `${party}: ${sum}%`);
        }
        // The votes behind the shares, a party at a time.
        const green = [...page.document.querySelectorAll('.breakdown')].find(
          (b) => readable(b.querySelector('h3')) === 'From Green Party/ Comhaontas Glas',
        )!;
        assert.match(readable(green.querySelector('p')), /^85,229 votes distributed at \d+ counts\.$/);
        // The counts used are listed and linked; those left out say why.
        assert.ok(
          page.document.querySelector(
            '.counts-used a[href="/election/general-election-2020/constituencies/dublin-bay-south?count=2"]',
          ),
        );
        const dbs = page.all('.counts-by-constituency li').find((line) => line.startsWith('Dublin Bay South'));
        assert.equal(
          dbs,
          'Dublin Bay South: 2 S G.P., 3 E Ind., 5 E Ind., 6 E R.I., 8 E LAB.; left out: 4 (several parties), 7 (several parties)',
        );
        assert.equal(page.document.querySelectorAll('.constituency-links a').length, 39);
      });

      test("Dublin Bay South 2020: the count as a flow beside its figures, and its parties' transfers worked by hand", async () => {
        const page = await get(service, '/election/general-election-2020/constituencies/dublin-bay-south/transfers');
        assert.equal(page.status, 200);
        assert.ok(page.document.querySelector('figure#flow svg.flow[role="img"]'));
        assert.deepEqual(rowsOf(page, '.flow-data table')[0], [
          '2',
          'Surplus of Eamon Ryan',
          'Kevin Humphreys (Labour Party)',
          '234',
        ]);
        const breakdown = (party: string) => {
          const section = [...page.document.querySelectorAll('.breakdown')].find(
            (b) => readable(b.querySelector('h3')) === `From ${party}`,
          )!;
          return [
            readable(section.querySelector('p')),
            rowsOf({ document: section } as unknown as Page, 'table').map(
              (r) => `${r[0]!.split(' ')[0]} ${r[1]} ${r[2]}`,
            ),
          ];
        };
        // Count 2, Ryan's surplus: 969 votes, all transferred (Murphy 118 + O'Connell 161 to Fine Gael).
        assert.deepEqual(breakdown('Green Party/ Comhaontas Glas'), [
          '969 votes distributed at 1 count.',
          [
            'Fine 279 28.8%',
            'The 234 24.1%',
            'Social 187 19.3%',
            'Fianna 113 11.7%',
            'Sinn 51 5.3%',
            'Solidarity 47 4.9%',
            'Independents 46 4.7%',
            'Renua 9 0.9%',
            'Irish 3 0.3%',
            'Non-transferable 0 0.0%',
          ],
        ]);
        assert.deepEqual(breakdown('The Labour Party'), [
          '4,971 votes distributed at 1 count.',
          ['Fine 1,978 39.8%', 'Non-transferable 1,055 21.2%', 'Fianna 978 19.7%', 'Sinn 960 19.3%'],
        ]);
        assert.deepEqual(page.all('.counts-used > div:nth-of-type(1) tbody td:first-child'), ['2', '3', '5', '6', '8']);
      });
    });

    describe('labels and honesty', () => {
      test('2011 and 2024 pages say they are unofficial, with their checks; 2016 and 2020 pages do not', async () => {
        for (const url of [
          '/election/general-election-2011',
          '/election/general-election-2024/parties',
          '/resource/b092ff16-bc56-479a-af0b-b2c3aa2b90d2',
        ]) {
          const page = await get(service, url);
          assert.match(
            page.text('.notice.unofficial p'),
            /^Unofficial: derived from Wikipedia, checked against the official totals\. See the consistency checks: what was checked and what does not add up\.$/,
            url,
          );
        }
        for (const url of [
          '/election/general-election-2020',
          '/election/general-election-2016/parties',
          `/resource/${RESOURCE_A}`,
        ]) {
          assert.equal((await get(service, url)).document.querySelector('.notice.unofficial'), null, url);
        }
        assert.match(
          (await get(service, '/')).text('.notice.unofficial p'),
          /^Unofficial \(General Election 2024 and General Election 2011\):/,
        );
      });

      test("the footer gives the page's own dataset's source and licence; pages of several list each", async () => {
        const official = await get(service, '/election/general-election-2020/parties');
        assert.match(
          official.text('footer .sources'),
          /^General Election 2020\. Source: The Department of Housing, Local Government and Heritage's 2020 results files .* Licence: Creative Commons Attribution-ShareAlike 4\.0\.$/,
        );
        assert.equal(
          official.document.querySelector('footer .sources a[rel="license"]')!.getAttribute('href'),
          'https://creativecommons.org/licenses/by-sa/4.0/',
        );
        const wikipedia = await get(service, '/election/general-election-2024');
        assert.match(
          wikipedia.text('footer .sources'),
          /^General Election 2024\. Source: Count-by-count running totals from the English Wikipedia article/,
        );
        const person = await get(service, '/people/micheal-martin');
        assert.equal(person.document.querySelectorAll('footer details.sources li').length, 4);
      });

      test("2011's party totals say their first preferences fall 45 short of the valid poll, and link the checks", async () => {
        const page = await get(service, '/election/general-election-2011/parties');
        assert.equal(
          page.text('.shortfall'),
          "The candidates' first preferences of all parties add up to 2,220,314, 45 fewer than the official valid poll of 2,220,359: the source does not add up, and the consistency checks say where. Shares of the vote are of the first preferences.",
        );
        const checks = page.document.querySelector('.shortfall a')!.getAttribute('href')!;
        const listed = await get(service, checks);
        assert.equal(listed.text('#range'), 'Rows 1–2 of 2');
        assert.equal(
          (await get(service, '/election/general-election-2020/parties')).document.querySelector('.shortfall'),
          null,
        );
        const central = await get(service, '/election/general-election-2011/constituencies/dublin-central');
        assert.match(
          central.text('.shortfall'),
          /^The candidates' first preferences here add up to 34,567, 45 fewer than the official valid poll of 34,612/,
        );
      });

      test('one label per party, an abbreviation for every party, in every election', async () => {
        for (const year of [2011, 2016, 2020, 2024]) {
          const page = await get(service, `/election/general-election-${year}/parties`);
          const labels = [...page.document.querySelectorAll('main > .scroll tbody th')].map((th) => [
            readable(th.querySelector('.party-long')),
            readable(th.querySelector('.party-abbreviation')),
          ]);
          for (const [party, abbreviation] of labels) assert.ok(abbreviation, `${year}: ${party} has an abbreviation`);
          assert.equal(new Set(labels.map(([p]) => p)).size, labels.length);
          if (year === 2011) {
            // The United Left Alliance's members counted as one grouping, as the press counted them.
            assert.deepEqual(
              labels.filter(([p]) => /People Before Profit|Socialist|United Left/.test(p!)),
              [['United Left Alliance', 'U.L.A.']],
            );
            assert.ok(labels.some(([p, a]) => p === 'Independents' && a === 'Ind.'));
            assert.ok(!labels.some(([p]) => p === 'New Vision' || p === 'Non-Party'));
          }
          if (year === 2024) {
            assert.ok(labels.some(([p, a]) => p === 'Independent Ireland' && a === 'I.I.'));
            assert.ok(labels.some(([p, a]) => p === 'People Before Profit–Solidarity' && a === 'P.B.P.S.'));
          }
        }
      });

      test("no rank column on a searched page; dates as dates; a candidate's result from the count details", async () => {
        const searched = await get(service, `/resource/${RESOURCE_A}?q=micheal+martin`);
        assert.ok(!searched.all('table.data thead th').some((h) => /rank/.test(h)));
        const constituencies = await get(
          service,
          '/resource/f6a59fec-6f64-48bb-9f65-e6679aa23dba?fields=Constituency+Name,Date+Of+Election&limit=1',
        );
        assert.deepEqual(rowsOf(constituencies, 'table.data')[0], ['Carlow Kilkenny', '2020-02-08']);
        const record = await get(
          service,
          `/resource/${RESOURCE_A}/record/${(await service.getJson(`/api/3/action/datastore_search?resource_id=${RESOURCE_A}&q=micheal+martin&fields=_id&limit=1`)).body.result.records[0]._id}`,
        );
        assert.equal(record.text('.outcome strong'), 'Elected on count 6 of 8');
        // Its Count Number is the constituency's number of counts, which the resource's description now says.
        assert.match(
          record.text('.meta + dl') +
            (await service.getJson('/api/3/action/resource_show?id=' + RESOURCE_A)).body.result.description,
          /Count Number is the number of counts in the constituency/,
        );
      });
    });
  });

for (const backend of TEST_BACKENDS)
  describe(`explorer footers [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService(twoElectionSettings(), backend);
    });
    after(() => service.close());

    test('a dataset without a licence: "Licence not specified"', async () => {
      const page = await get(service, '/');
      assert.ok(
        page.all('footer .sources li').every((item) => item.endsWith('Licence not specified.')),
        page.all('footer .sources li').join(' | '),
      );
    });
  });
