// The pages of all elections at once: elections over time, finding a candidate, and a page per person.

import { findPeople } from '../elections/index.js';
import { chartOf, loadCharts } from './charts.js';
import { electionLabel } from './catalog-view.js';
import { PageFailure } from './data.js';
import { overTimeChart } from './election-charts.js';
import { checksHref, notFound, ok, page, type PageContext, type PageResult } from './page-context.js';
import { OverTimePage } from './pages/over-time.js';
import { PersonPage, SearchPage } from './pages/people.js';
import { partyColour } from './party-colours.js';
import { electionsTogether } from './together.js';
import { apiSearchUrl, urls } from './urls.js';

export async function overTimePage(ctx: PageContext): Promise<PageResult> {
  await loadCharts();
  const together = await electionsTogether(ctx.client, ctx.reviewed);
  const { overTime, views } = together;
  if (views.length === 0) notFound('No election is loaded.');
  const years = overTime.elections.map((e) => e.label.replace(/^General Election /, ''));
  const shown = overTime.parties.filter((l) => l.totals.some((t) => t !== null && t.seats >= 5));
  const series = (value: (seats: number, share: number) => number) =>
    shown.map((l) => ({
      label: l.abbreviation,
      colour: partyColour(l.party),
      values: l.totals.map((t) => (t ? value(t.seats, t.voteShare) : null)),
    }));
  const span = `${years[0]} to ${years.at(-1)}`;
  const draw = (measure: 'seats' | 'shares', narrow: boolean) =>
    chartOf(ctx.client, `over-time ${measure} ${narrow ? 'narrow' : 'wide'} ${ctx.reviewed.version}`, () =>
      measure === 'seats'
        ? overTimeChart(
            `Seats by party, ${span}, for the parties that won five seats or more in an election.`,
            years,
            series((seats) => seats),
            'Seats',
            narrow,
          )
        : overTimeChart(
            `First-preference share by party, ${span}, in percent, for the parties that won five seats or more in an election.`,
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

/** The most people a search lists. */
const SEARCH_LIMIT = 50;

export async function searchPage(ctx: PageContext): Promise<PageResult> {
  const q = (ctx.search.get('q') ?? '').trim();
  if (q.length > 200) throw new PageFailure(400, 'A search is at most 200 characters: a name or the start of one.');
  const together = await electionsTogether(ctx.client, ctx.reviewed);
  const found = q ? findPeople(together.people.people, q, SEARCH_LIMIT) : { matches: [], total: 0 };
  return ok(
    page(
      ctx,
      {
        title: q ? `Candidates matching “${q}”` : 'Find a candidate',
        crumbs: [{ label: 'Home', href: '/' }, { label: 'Find a candidate' }],
        alternate: null,
      },
      <SearchPage q={q} matches={found.matches} total={found.total} limit={SEARCH_LIMIT} links={linksOf(together)} />,
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
        crumbs: [{ label: 'Home', href: '/' }, { label: 'Candidates', href: '/search' }, { label: person.name }],
        alternate: null,
        datasets: drawn,
      },
      <PersonPage person={person} links={linksOf(together)} />,
    ),
  );
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
  '/people/:key': personPage,
};
