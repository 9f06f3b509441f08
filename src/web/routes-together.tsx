// The pages of all elections at once: elections over time, the search for everything, a page per person, and the
// pages an address's parent names (everyone who stood, every party, every election, every table).

import { compareSurnames, slugOf, surnameSortKey, type Person } from '../elections/index.js';
import { memoKey } from '../util/version-memos.js';
import { chartOf, loadCharts } from './charts.js';
import { datasets, electionLabel } from './catalog-view.js';
import { overTimeChart, plainPartyName } from './election-charts.js';
import { formatDate } from './format.js';
import { checksHref, notFound, ok, page, type PageContext, type PageResult } from './page-context.js';
import { OverTimePage } from './pages/over-time.js';
import { PeopleIndexPage, PersonPage } from './pages/people.js';
import {
  ElectionsIndexPage,
  pagingOf,
  PartiesIndexPage,
  ResourcesIndexPage,
  SearchPage,
  type QueryProblem,
  type SearchPageProps,
} from './pages/search.js';
import { partyColour } from './party-colours.js';
import {
  KIND_ORDER,
  MAX_QUERY_WORDS,
  personEntry,
  readQuery,
  search,
  wordsOf,
  type ConstituencyHit,
  type ElectionHit,
  type Match,
  type PartyHit,
  type SearchEntry,
  type SearchHit,
  type SearchKind,
} from './search.js';
import { electionsTogether, type ElectionsTogether } from './together.js';
import { apiSearchUrl, urls } from './urls.js';

export async function overTimePage(ctx: PageContext): Promise<PageResult> {
  await loadCharts();
  const together = await electionsTogether(ctx.client, ctx.reviewed);
  const { overTime, views } = together;
  if (views.length === 0) notFound('No election is loaded.');
  const years = overTime.elections.map((e) => e.label.replace(/^General Election /, ''));
  // Every party that won a seat, as the charts' titles say: none is left out.
  const shown = overTime.parties.filter((l) => l.totals.some((t) => t !== null && t.seats >= 1));
  const series = (value: (seats: number, share: number) => number) =>
    shown.map((l) => ({
      label: plainPartyName(l.party),
      short: l.abbreviation,
      colour: partyColour(l.party),
      values: l.totals.map((t) => (t ? value(t.seats, t.voteShare) : null)),
    }));
  const span = `${years[0]} to ${years.at(-1)}`;
  const draw = (measure: 'seats' | 'shares', narrow: boolean) =>
    chartOf(ctx.client, `over-time ${measure} ${narrow ? 'narrow' : 'wide'} ${ctx.reviewed.version}`, () =>
      measure === 'seats'
        ? overTimeChart(
            `Seats by party, ${span}, for every party that won a seat in an election.`,
            years,
            series((seats) => seats),
            'Seats',
            narrow,
          )
        : overTimeChart(
            `First-preference share by party, ${span}, in percent, for every party that won a seat in an election.`,
            years,
            series((_, share) => share * 100),
            'Share of first preferences (%)',
            narrow,
          ),
    );
  const shortfalls = overTime.elections.flatMap((e, i) => {
    const firstPreferences = e.parties.reduce((s, p) => s + p.firstPreferences, 0);
    return firstPreferences === e.totals.validPoll
      ? []
      : [
          {
            label: e.label,
            firstPreferences,
            validPoll: e.totals.validPoll,
            checks: checksHref(views[i]!, { Check: 'first-preferences', Status: 'failed' }),
          },
        ];
  });
  const latest = views.at(-1)!;
  const api = latest.roles.candidates
    ? apiSearchUrl('', latest.roles.candidates.id, new URLSearchParams({ limit: String(ctx.client.settings.rowsMax) }))
    : '/api/3/action/package_list';
  return ok(
    page(
      ctx,
      {
        title: 'Elections over time',
        crumbs: [{ label: 'Home', href: '/' }, { label: 'Elections over time' }],
        alternate: api,
      },
      <OverTimePage
        overTime={overTime}
        api={api}
        shortfalls={shortfalls}
        electionHref={views.map((v) => urls.election(v.definition.name))}
        partyHref={(i, key) => urls.party(views[i]!.definition.name, key)}
        charts={{
          seats: { wide: draw('seats', false), narrow: draw('seats', true) },
          shares: { wide: draw('shares', false), narrow: draw('shares', true) },
        }}
      />,
    ),
  );
}

/** Results on a page of search results. */
export const SEARCH_PAGE_SIZE = 25;
/** The longest search read: a name, a place or a party, not a paragraph. */
export const MAX_QUERY_LENGTH = 200;

const SEARCH_INDEX = memoKey<Map<string, Promise<SearchEntry[]>>>('web: search index');

/** Everything a search can find, made once per version of the data. */
function searchIndex(ctx: PageContext): Promise<SearchEntry[]> {
  return ctx.client.memoPromise(SEARCH_INDEX, ctx.reviewed.version, async () =>
    indexOf(await electionsTogether(ctx.client, ctx.reviewed)),
  );
}

const yearOf = (date: string) => date.slice(0, 4);

function electionHits(together: ElectionsTogether): ElectionHit[] {
  return together.views.map((view, i) => ({
    kind: 'election' as const,
    name: view.definition.name,
    label: electionLabel(view),
    date: view.election.date,
    body: view.election.body,
    seats: together.models[i]!.totals.houseSeats,
    constituencies: together.models[i]!.constituencies.length,
  }));
}

function partyHits(together: ElectionsTogether): PartyHit[] {
  const { overTime } = together;
  return overTime.parties.map((line) => ({
    kind: 'party' as const,
    key: line.key,
    name: line.party,
    abbreviation: line.abbreviation,
    independents: line.totals.some((t) => t?.independents),
    elections: line.totals.flatMap((t, i) => {
      if (!t) return [];
      const election = overTime.elections[i]!;
      return [
        {
          election: election.name,
          year: yearOf(together.views[i]!.election.date),
          party: t.party,
          seats: t.seats,
          candidates: t.candidates,
          href: urls.party(election.name, t.key),
        },
      ];
    }),
  }));
}

function constituencyHits(together: ElectionsTogether): (ConstituencyHit & { names: Set<string> })[] {
  const byKey = new Map<string, ConstituencyHit & { names: Set<string> }>();
  together.views.forEach((view, i) => {
    for (const c of together.models[i]!.constituencies) {
      const key = slugOf(c.name);
      let hit = byKey.get(key);
      if (!hit) {
        hit = { kind: 'constituency', key, name: c.name, nameGa: c.nameGa, elections: [], names: new Set() };
        byKey.set(key, hit);
      }
      hit.names.add(c.name);
      if (c.nameGa) hit.names.add(c.nameGa);
      // Named as the latest election names it.
      hit.name = c.name;
      hit.nameGa = c.nameGa ?? hit.nameGa;
      hit.elections.push({
        election: view.definition.name,
        year: yearOf(view.election.date),
        seats: c.seats + c.returnedAutomatically,
        href: urls.constituency(view.definition.name, c.key),
      });
    }
  });
  return [...byKey.values()];
}

function indexOf(together: ElectionsTogether): SearchEntry[] {
  const entries: SearchEntry[] = [];
  for (const e of electionHits(together))
    entries.push({
      hit: e,
      title: e.label,
      words: wordsOf(e.label, e.body, `${e.name} ${formatDate(e.date)} general election dail`),
      weight: 0,
      latest: e.date,
    });
  const lines = new Map(together.overTime.parties.map((l) => [l.key, l]));
  for (const p of partyHits(together)) {
    const line = lines.get(p.key)!;
    const names = line.totals.flatMap((t) =>
      t ? [t.party, t.abbreviation, ...(t.labels ?? []).filter((l) => p.independents || l !== 'Non-Party')] : [],
    );
    if (p.independents) names.push('Independent', 'Non-Party', 'no party');
    // A name the party went by at one election leads to its page there ("united left" to 2011's).
    const byElection = p.elections.map((e, i) => {
      const t = line.totals.filter((x) => x !== null)[i]!;
      return { href: e.href, words: new Set(wordsOf(t.party, t.abbreviation, ...(t.labels ?? []))) };
    });
    entries.push({
      hit: p,
      title: p.name,
      words: wordsOf(...names),
      weight: p.elections.reduce((s, e) => s + e.seats, 0),
      latest: together.views.find((v) => v.definition.name === p.elections.at(-1)!.election)!.election.date,
      hrefFor: (matched) => byElection.findLast((e) => matched.every((w) => e.words.has(w)))?.href ?? null,
    });
  }
  for (const c of constituencyHits(together)) {
    const { names, ...hit } = c;
    entries.push({
      hit,
      title: hit.name,
      words: wordsOf(...names),
      weight: hit.elections.length,
      latest: together.views.find((v) => v.definition.name === hit.elections.at(-1)!.election)!.election.date,
    });
  }
  for (const person of together.people.people) entries.push(personEntry(person));
  return entries;
}

/** Where a match leads: the page of the election whose name it matched, else as `hitHref`. */
const matchHref = (m: Match) => m.entry.hrefFor?.(m.matched) ?? hitHref(m.entry.hit);

/** Where a result leads: its page, or for a party or a constituency its page at the latest election. */
function hitHref(hit: SearchHit): string {
  switch (hit.kind) {
    case 'election':
      return urls.election(hit.name);
    case 'party':
    case 'constituency':
      return hit.elections.at(-1)!.href;
    case 'person':
      return urls.person(hit.person.key);
  }
}

const searchHref = (q: string, page = 1) => `${urls.search(q)}${page > 1 ? `&page=${page}` : ''}`;

/**
 * One box for everything. Odd input is answered with this page in words, never a bare error: a search too long is not
 * run, one without letters or digits says so, a page number that names no page shows the nearest.
 */
export async function searchPage(ctx: PageContext): Promise<PageResult> {
  const typed = (ctx.search.get('q') ?? '').trim();
  const q = typed.slice(0, MAX_QUERY_LENGTH);
  const together = await electionsTogether(ctx.client, ctx.reviewed);
  const links = linksOf(together);
  let problem: QueryProblem | null = null;
  let results: SearchPageProps['results'] = null;
  let paging = pagingOf(0, SEARCH_PAGE_SIZE, null, (n) => searchHref(q, n));
  if (typed.length > MAX_QUERY_LENGTH) problem = { kind: 'too long', length: typed.length, limit: MAX_QUERY_LENGTH };
  else if (typed && readQuery(typed).readings.length === 0) problem = { kind: 'nothing to read' };
  else if (typed) {
    const outcome = search(await searchIndex(ctx), typed);
    if (outcome.dropped > 0) problem = { kind: 'words dropped', dropped: outcome.dropped, limit: MAX_QUERY_WORDS };
    paging = pagingOf(outcome.matches.length, SEARCH_PAGE_SIZE, ctx.search.get('page'), (n) => searchHref(q, n));
    const counts = new Map<SearchKind, number>();
    for (const m of outcome.matches) counts.set(m.entry.hit.kind, (counts.get(m.entry.hit.kind) ?? 0) + 1);
    const top = outcome.matches[0];
    results = {
      hits: outcome.matches.slice(paging.first - 1, paging.last).map((m) => ({ hit: m.entry.hit, href: matchHref(m) })),
      total: outcome.matches.length,
      byKind: KIND_ORDER.filter((k) => counts.has(k)).map((kind) => ({ kind, count: counts.get(kind)! })),
      nearly: outcome.nearly,
      suggestion:
        outcome.nearly && top
          ? {
              title: top.entry.title,
              href: matchHref(top),
              query: top.matched.join(' '),
              queryHref: searchHref(top.matched.join(' ')),
            }
          : null,
    };
  } else if (ctx.search.has('page')) paging = pagingOf(0, SEARCH_PAGE_SIZE, ctx.search.get('page'), () => '/search');
  return ok(
    page(
      ctx,
      {
        title: q && !problem ? `Search: “${q}”` : 'Search',
        crumbs: [{ label: 'Home', href: '/' }, { label: 'Search' }],
        alternate: null,
      },
      <SearchPage q={q} problem={problem} results={results} paging={paging} links={links} />,
    ),
  );
}

export async function personPage(ctx: PageContext): Promise<PageResult> {
  const together = await electionsTogether(ctx.client, ctx.reviewed);
  const person = together.people.byKey.get(ctx.params.key ?? '');
  if (!person) notFound(`There is no candidate "${ctx.params.key}": search for a name instead.`);
  const drawn = [...new Set(person.candidacies.map((c) => c.election))];
  return ok(
    page(
      ctx,
      {
        title: person.name,
        crumbs: [{ label: 'Home', href: '/' }, { label: 'People', href: urls.people }, { label: person.name }],
        alternate: null,
        datasets: drawn,
      },
      <PersonPage person={person} links={linksOf(together)} />,
    ),
  );
}

/** People on a page of the list of everyone. */
const PEOPLE_PAGE_SIZE = 100;

/** The letter a surname is filed under, its prefix read with it as Irish directories do (Ó Ríordáin under O). */
function fileLetter(person: Person): string {
  const c = person.candidacies.at(-1)!;
  const key = surnameSortKey(c.surname || c.firstName);
  return /^[a-z]/.test(key) ? key[0]! : '#';
}

export async function peopleIndexPage(ctx: PageContext): Promise<PageResult> {
  const together = await electionsTogether(ctx.client, ctx.reviewed);
  const sorted = together.people.people
    .map((person) => ({ person, letter: fileLetter(person) }))
    .sort((a, b) => {
      const x = a.person.candidacies.at(-1)!;
      const y = b.person.candidacies.at(-1)!;
      return a.letter.localeCompare(b.letter) || compareSurnames(x, y) || a.person.key.localeCompare(b.person.key);
    });
  const href = (n: number) => (n > 1 ? `${urls.people}?page=${n}` : urls.people);
  const paging = pagingOf(sorted.length, PEOPLE_PAGE_SIZE, ctx.search.get('page'), href);
  const letters: { letter: string; href: string }[] = [];
  sorted.forEach((e, i) => {
    if (i === 0 || sorted[i - 1]!.letter !== e.letter)
      letters.push({ letter: e.letter, href: `${href(Math.floor(i / PEOPLE_PAGE_SIZE) + 1)}#letter-${e.letter}` });
  });
  return ok(
    page(
      ctx,
      {
        title: paging.page > 1 ? `Everyone who stood, page ${paging.page}` : 'Everyone who stood',
        crumbs: [{ label: 'Home', href: '/' }, { label: 'People' }],
        alternate: null,
      },
      <PeopleIndexPage
        entries={sorted.slice(paging.first - 1, paging.last)}
        total={sorted.length}
        paging={paging}
        letters={letters}
        links={linksOf(together)}
      />,
    ),
  );
}

export async function partiesIndexPage(ctx: PageContext): Promise<PageResult> {
  const together = await electionsTogether(ctx.client, ctx.reviewed);
  if (together.views.length === 0) notFound('No election is loaded.');
  return ok(
    page(
      ctx,
      { title: 'Parties', crumbs: [{ label: 'Home', href: '/' }, { label: 'Parties' }], alternate: null },
      <PartiesIndexPage parties={partyHits(together)} years={together.views.map((v) => yearOf(v.election.date))} />,
    ),
  );
}

export async function electionsIndexPage(ctx: PageContext): Promise<PageResult> {
  const together = await electionsTogether(ctx.client, ctx.reviewed);
  const hits = electionHits(together)
    .map((e) => ({ ...e, href: urls.election(e.name) }))
    .reverse();
  return ok(
    page(
      ctx,
      { title: 'Elections', crumbs: [{ label: 'Home', href: '/' }, { label: 'Elections' }], alternate: null },
      <ElectionsIndexPage elections={hits} />,
    ),
  );
}

export async function resourcesIndexPage(ctx: PageContext): Promise<PageResult> {
  return ok(
    page(
      ctx,
      {
        title: 'Every table',
        crumbs: [{ label: 'Home', href: '/' }, { label: 'Every table' }],
        alternate: '/api/3/action/package_list',
      },
      <ResourcesIndexPage
        datasets={datasets(ctx.client).map((d) => ({ title: d.definition.title, resources: d.resources }))}
        resourceHref={urls.resource}
      />,
    ),
  );
}

/** A record's address cut back to `/resource/<id>/record`: the records are the table's rows. */
async function recordsParent(ctx: PageContext): Promise<PageResult> {
  const id = ctx.params.id ?? '';
  if (!ctx.client.catalog.get(id)) notFound(`There is no resource with the id "${id}".`);
  return { redirect: urls.resource(id) };
}

/** The stylesheet's and script's folder: nothing to read there but the pages they serve. */
async function assetsParent(): Promise<PageResult> {
  return { redirect: urls.home };
}

export interface CandidacyLinks {
  person: (key: string) => string;
  election: (name: string) => string;
  constituency: (election: string, key: string) => string;
  /** The constituency's count as it stood after the count a candidate was elected or excluded on. */
  count: (election: string, key: string, count: number | null, counts: number) => string;
  party: (election: string, party: string) => string | null;
  record: (election: string, recordId: number) => string | null;
  label: (election: string) => string;
  /** The line a party of an election belongs to, as the over-time page names it. */
  partyLine: (election: string, party: string) => string;
}

function linksOf(together: Awaited<ReturnType<typeof electionsTogether>>): CandidacyLinks {
  const byName = new Map(together.views.map((v, i) => [v.definition.name, { view: v, model: together.models[i]! }]));
  return {
    person: urls.person,
    election: urls.election,
    constituency: urls.constituency,
    count: (election, key, count, counts) =>
      count === null || count >= counts
        ? urls.constituency(election, key)
        : `${urls.constituency(election, key)}?count=${count}`,
    party: (election, party) => {
      const key = byName.get(election)?.model.parties.find((p) => p.party === (party || 'No party given'))?.key;
      return key ? urls.party(election, key) : null;
    },
    record: (election, recordId) => {
      const candidates = byName.get(election)?.view.roles.candidates;
      return candidates && recordId > 0 ? urls.record(candidates.id, recordId) : null;
    },
    label: (election) => {
      const view = byName.get(election)?.view;
      return view ? electionLabel(view) : election;
    },
    partyLine: together.partyLine,
  };
}

export const togetherHandlers = {
  '/elections': overTimePage,
  '/search': searchPage,
  '/people': peopleIndexPage,
  '/people/:key': personPage,
  '/parties': partiesIndexPage,
  '/election': electionsIndexPage,
  '/resource': resourcesIndexPage,
  '/resource/:id/record': recordsParent,
  '/static': assetsParent,
};
