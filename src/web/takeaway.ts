// What an election's pages offer to take away, and the figures behind them, worked out once for the page and for its
// downloads alike: the tables (as CSV), the charts (as SVG, and as pages to embed), each by a short id under the page
// or election it belongs to. A page links them; `…/data/<id>.csv`, `…/charts/<id>.svg` and `…/charts/<id>/embed`
// answer them.

import {
  candidacyId,
  compareSurnames,
  compareText,
  nameWords,
  sheetAfterCount,
  type Candidate,
  type CountSheet,
  type Election,
} from '../elections/index.js';
import type { ElectionView } from './catalog-view.js';
import { electionChange, type ElectionChange } from './change-view.js';
import { chartOf, loadCharts } from './charts.js';
import { checksOf, failedChecks, type FailedCheck } from './checks-view.js';
import { PageFailure } from './data.js';
import { csvAnswer, downloadsUnder, svgAnswer, wantsExcel, type CsvTable } from './downloads.js';
import {
  countColours,
  firstPreferencesChart,
  firstPreferencesNarrowChart,
  majorityChart,
  majorityNarrowChart,
  raceToQuotaChart,
  raceToQuotaNarrowChart,
  sharesChart,
  sharesNarrowChart,
  transfersChart,
  transfersNarrowChart,
} from './election-charts.js';
import { electionOf, notFound, type PageContext, type PageResult } from './page-context.js';
import { seatedSwings, type ElectedRow } from './pages/change.js';
import { renderEmbed } from './pages/embed.js';
import {
  allTransfersTable,
  constituencySinceTable,
  countByCountTable,
  electedTable,
  firstPreferencesTable,
  majorityTable,
  mapTable,
  partiesTable,
  partyCandidatesTable,
  partySinceTable,
  raceTable,
  seatsTable,
  sharesTable,
  stepTable,
} from './tables.js';
import { mapTiles, tileMapChart, type MapTile } from './tile-map.js';
import { electionsTogether } from './together.js';
import { urls } from './urls.js';

/** A chart to take away: what it shows, how to draw it, and the table of its figures. */
export interface ChartEntry {
  title: string;
  caption: string;
  /** The page it belongs to. */
  page: { href: string; title: string };
  svg: () => string;
  table: string;
  /** What its colours mean, where the image does not say. */
  legend?: { colour: string; label: string }[];
}

export interface Takeaway {
  tables: Record<string, () => CsvTable>;
  charts: Record<string, ChartEntry>;
  /** The source of the figures, as the footer of the page says it. */
  source: string;
}

/** Answers a download of the takeaway: `file` is the last part of the address (`seats.csv`, `seats.svg`). */
export function takeawayAnswer(
  ctx: PageContext,
  takeaway: Takeaway,
  kind: 'data' | 'charts' | 'embed',
  file: string,
): PageResult {
  if (kind === 'data') {
    const id = /^([a-z0-9-]+)\.csv$/.exec(file)?.[1];
    const table = id ? takeaway.tables[id] : undefined;
    const answer = table ? csvAnswer({ [id!]: table() }, file, wantsExcel(ctx.search)) : null;
    if (!answer) notFound(`There is no table "${file}" here; the page links every table it has.`);
    return answer;
  }
  if (kind === 'charts') {
    const answer = svgAnswer(
      Object.fromEntries(Object.entries(takeaway.charts).map(([id, c]) => [id, { title: c.title, svg: c.svg }])),
      file,
    );
    if (!answer) notFound(`There is no chart "${file}" here; the page links every chart it has.`);
    return answer;
  }
  const chart = takeaway.charts[file];
  if (!chart) notFound(`There is no chart "${file}" to embed here; the page links every chart it has.`);
  const query = ctx.search.toString();
  const base = ctx.path.replace(/\/charts\/[a-z0-9-]+\/embed$/, '');
  return {
    status: 200,
    html: renderEmbed(
      {
        title: chart.title,
        caption: chart.caption,
        svg: chart.svg(),
        page: chart.page,
        downloads: downloadsUnder(base, query).chart(file, chart.title, chart.table),
        source: takeaway.source,
        legend: chart.legend ?? [],
      },
      ctx.assets,
    ),
  };
}

/** The source line a chart carries when it is shown on another site. */
export function sourceOf(view: ElectionView): string {
  const source = view.definition.extras.find((e) => e.key === 'source')?.value ?? '';
  const unofficial = view.definition.extras.some((e) => e.key === 'unofficial');
  return `${view.definition.title.split(':')[0]!.trim()}${unofficial ? ' (unofficial: derived from Wikipedia, checked against the official totals)' : ''}. ${source ? `Source: ${source}` : ''}`.trim();
}

/** An election's headline, tile map, party totals and TDs: their figures, tables and charts. */
export interface ElectionParts {
  view: ElectionView;
  election: Election;
  change: ElectionChange;
  label: string;
  tiles: MapTile[];
  /** Constituencies the tile layout does not place: reported on the page. */
  unplaced: string[];
  elected: ElectedRow[];
  failed: FailedCheck[];
  takeaway: Takeaway;
}

export async function electionParts(ctx: PageContext): Promise<ElectionParts & Awaited<ReturnType<typeof electionOf>>> {
  await loadCharts();
  const of = await electionOf(ctx);
  const { view, election, base } = of;
  const name = view.definition.name;
  const change = (await electionChange(ctx.client, ctx.reviewed, name))!;
  const together = await electionsTogether(ctx.client, ctx.reviewed);
  const { tiles, unplaced } = mapTiles(election, name, ctx.reviewed.places.tiles);
  const elected = electedRows(election, name, together);
  const failed = await failedChecks(ctx.client, view);
  const m = change.majority;
  const swings = seatedSwings(change, election);
  const landing = { href: urls.election(name), title: base.label };
  const chartKey = `${name} ${ctx.reviewed.version}`;
  const takeaway: Takeaway = {
    source: sourceOf(view),
    tables: {
      seats: () => seatsTable(swings, change.previous?.label ?? null),
      majority: () => majorityTable(m.parties, m.majority),
      map: () => mapTable(tiles),
      parties: () =>
        partiesTable(election.parties, change.parties, change.previous ? yearOf(change.previous.label) : null),
      shares: () => sharesTable(election.parties),
      elected: () => electedTable(elected),
    },
    charts: {
      majority: {
        title: `Seats against the majority line, ${base.label}.`,
        caption: `Each party's seats; the line is a majority, ${m.majority} of ${m.houseSeats} seats.`,
        page: landing,
        svg: () =>
          chartOf(ctx.client, `majority ${chartKey}`, () =>
            majorityChart(m.parties, m.majority, m.houseSeats, base.label),
          ),
        table: 'majority',
      },
      map: {
        title: `The largest party in each constituency, ${base.label}.`,
        caption:
          'A tile per constituency, placed roughly as on a map, coloured by the party with the largest share of first preferences there; the darker, the larger its share.',
        page: landing,
        svg: () =>
          chartOf(ctx.client, `map ${chartKey}`, () =>
            tileMapChart(
              tiles,
              `The constituencies of the ${base.label} as tiles placed roughly as on a map, each coloured by the party with the largest share of first preferences there, with its name, the party and the share written on it.`,
            ),
          ),
        table: 'map',
      },
      shares: {
        title: `Vote share and seat share, ${base.label}.`,
        caption:
          "Each party's share of first-preference votes (circle) and of the seats (diamond), in percent. Parties to the right of their circle won more seats than their votes alone would give.",
        page: { href: urls.parties(name), title: `Party totals, ${base.label}` },
        svg: () => chartOf(ctx.client, `shares ${name}`, () => sharesChart(election.parties, base.label)),
        table: 'shares',
      },
    },
  };
  return {
    ...of,
    change,
    label: base.label,
    tiles,
    unplaced: unplaced.map((c) => c.name),
    elected,
    failed,
    takeaway,
  };
}

/** The narrow drawings of an election's charts, for the pages. */
export function electionNarrowCharts(ctx: PageContext, parts: ElectionParts) {
  const m = parts.change.majority;
  const name = parts.view.definition.name;
  return {
    majority: chartOf(ctx.client, `majority narrow ${name} ${ctx.reviewed.version}`, () =>
      majorityNarrowChart(m.parties, m.majority, m.houseSeats, parts.label),
    ),
    shares: chartOf(ctx.client, `shares narrow ${name}`, () => sharesNarrowChart(parts.election.parties, parts.label)),
  };
}

const yearOf = (label: string) => /\b(\d{4})$/.exec(label)?.[1] ?? label;

/** Every TD elected, by constituency in the order of election, and the Ceann Comhairle returned automatically. */
function electedRows(
  election: Election,
  name: string,
  together: Awaited<ReturnType<typeof electionsTogether>>,
): ElectedRow[] {
  const rows: ElectedRow[] = [];
  const partyHref = (party: string) => {
    const key = election.parties.find((p) => p.party === (party || 'No party given'))?.key;
    return key ? urls.party(name, key) : null;
  };
  const cc = election.house.ceannComhairle;
  const constituencies = [...election.constituencies].sort((a, b) => a.name.localeCompare(b.name, 'en-IE'));
  for (const constituency of constituencies) {
    const href = urls.constituency(name, constituency.key);
    const winners: { candidate: Candidate; count: number | null; order: number }[] = [];
    if (election.hasCounts) {
      const sheet = election.sheet(constituency.key)!;
      for (const s of sheet.elected)
        winners.push({ candidate: s.candidate, count: s.elected!.count, order: s.elected!.order });
    } else {
      election
        .candidates(constituency.key)
        .filter((c) => /^elected$/i.test(c.result))
        .forEach((candidate, i) => winners.push({ candidate, count: null, order: i + 1 }));
    }
    const last = election.hasCounts ? election.sheet(constituency.key)!.steps.length : 0;
    for (const w of winners) {
      const person = together.people.byCandidacy.get(candidacyId({ election: name, candidateKey: w.candidate.key }));
      rows.push({
        name: person?.name ?? `${w.candidate.firstName} ${w.candidate.surname}`.trim(),
        personHref: person ? urls.person(person.key) : null,
        party: w.candidate.party || 'No party given',
        partyHref: partyHref(w.candidate.party),
        constituency: constituency.name,
        constituencyHref: href,
        count: w.count,
        countHref: w.count === null ? null : w.count >= last ? href : `${href}?count=${w.count}`,
        order: w.order,
      });
    }
    if (cc && constituency.returnedAutomatically) {
      const party = election.parties.find((p) => p.returnedAutomatically > 0);
      const person = together.people.people.find((p) => nameWords(p.name).join(' ') === nameWords(cc.name).join(' '));
      rows.push({
        name: cc.name,
        personHref: person ? urls.person(person.key) : null,
        party: party?.party ?? 'Ceann Comhairle',
        partyHref: party ? urls.party(name, party.key) : null,
        constituency: constituency.name,
        constituencyHref: href,
        count: null,
        countHref: null,
        order: null,
      });
    }
  }
  return rows;
}

/** The count a constituency page shows (`?count=N`, else the last), or a 404 saying which counts there are. */
export function countShown(ctx: PageContext, sheet: CountSheet, name: string): number {
  const last = sheet.steps.length;
  const raw = ctx.search.get('count');
  if (raw === null) return last;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1 || count > last)
    throw new PageFailure(404, `${name} had ${last} counts; there is no count "${raw.slice(0, 40)}".`);
  return count;
}

/** A constituency's figures, tables and charts for the count shown. */
export async function constituencyParts(ctx: PageContext) {
  await loadCharts();
  const of = await electionOf(ctx);
  const { view, election, base } = of;
  const constituency = election.constituency(ctx.params.key ?? '');
  if (!constituency) notFound(`There is no constituency "${ctx.params.key}" in the ${base.label}.`);
  const sheet = election.sheet(constituency.key)!;
  const count = countShown(ctx, sheet, constituency.name);
  const last = sheet.steps.length;
  const shown = count < last ? sheetAfterCount(sheet, count) : sheet;
  const name = view.definition.name;
  const change = (await electionChange(ctx.client, ctx.reviewed, name))!;
  const since = change.constituency(constituency.key);
  const failed = checksOf(await failedChecks(ctx.client, view), constituency.name);
  const hasCounts = election.hasCounts && Boolean(view.roles.counts);
  const chartKey = `${name}/${constituency.key}`;
  const pageHref = urls.constituency(name, constituency.key);
  const page = {
    href: count < last ? `${pageHref}?count=${count}` : pageHref,
    title: `${constituency.name}, ${base.label}`,
  };
  const step = hasCounts && count >= 2 ? sheet.steps[count - 1]! : null;
  const tables: Takeaway['tables'] = {
    'first-preferences': () => firstPreferencesTable(sheet),
  };
  const charts: Takeaway['charts'] = {
    'first-preferences': {
      title: `First preferences in ${constituency.name}, ${base.label}.`,
      caption: `Each candidate's first-preference votes, share of the valid poll and fraction of a quota; the solid line is the quota (${constituency.quota}), the dotted one a quarter of it (${constituency.quarterQuota}).`,
      page,
      svg: () => chartOf(ctx.client, `first ${chartKey}`, () => firstPreferencesChart(sheet)),
      table: 'first-preferences',
    },
  };
  if (hasCounts) {
    tables['count-by-count'] = () => countByCountTable(shown);
    tables.race = () => raceTable(shown, count);
    tables['all-transfers'] = () => allTransfersTable(shown.steps);
    charts.race = {
      title: `The race to the quota in ${constituency.name}${count < last ? `, after count ${count}` : ''}, ${base.label}.`,
      caption: `The votes each candidate gained, a segment per count from first preferences (lightest) to count ${count} (darkest); the dashed line is the quota.`,
      page,
      svg: () => chartOf(ctx.client, `race ${chartKey} ${count}`, () => raceToQuotaChart(shown, count)),
      table: 'race',
      legend: countColours(count).map((colour, i) => ({ colour, label: `Count ${i + 1}` })),
    };
  }
  if (step) {
    tables.transfers = () => stepTable(step);
    charts.transfers = {
      title: `Where the votes went at count ${step.count} in ${constituency.name}, ${base.label}.`,
      caption: 'The votes the count distributed: who received them, and how many showed no further preference.',
      page,
      svg: () => chartOf(ctx.client, `transfers ${chartKey} ${count}`, () => transfersChart(sheet, step)),
      table: 'transfers',
    };
  }
  if (since.swing && change.previous)
    tables.since = () => constituencySinceTable(since.swing!, change.previous!.label, base.label);
  const narrow = {
    firstPreferences: chartOf(ctx.client, `first narrow ${chartKey}`, () => firstPreferencesNarrowChart(sheet)),
    race: hasCounts
      ? chartOf(ctx.client, `race narrow ${chartKey} ${count}`, () => raceToQuotaNarrowChart(shown, count))
      : null,
    transfers: step
      ? chartOf(ctx.client, `transfers narrow ${chartKey} ${count}`, () => transfersNarrowChart(sheet, step))
      : null,
  };
  return {
    ...of,
    constituency,
    sheet,
    shown,
    count,
    last,
    change,
    since,
    failed,
    hasCounts,
    narrow,
    downloads: downloadsUnder(pageHref, count < last ? `count=${count}` : ''),
    takeaway: { source: sourceOf(view), tables, charts } satisfies Takeaway,
  };
}

/** A party's page: its candidates and its change since the election before. */
export async function partyParts(ctx: PageContext) {
  const of = await electionOf(ctx);
  const { view, election, base } = of;
  const party = election.party(ctx.params.key ?? '');
  if (!party) notFound(`No party "${ctx.params.key}" stood in the ${base.label}.`);
  const change = (await electionChange(ctx.client, ctx.reviewed, view.definition.name))!;
  const swing = change.parties.find((p) => p.keys[1] === party.key) ?? null;
  const candidates: Candidate[] = election.data.candidates.filter((c) => (c.party || 'No party given') === party.party);
  const byConstituency = new Map(election.constituencies.map((c) => [c.key, c]));
  candidates.sort(
    (a, b) =>
      compareText(byConstituency.get(a.constituencyKey)!.name, byConstituency.get(b.constituencyKey)!.name) ||
      compareSurnames(a, b),
  );
  const electedAt = (c: Candidate) =>
    election.hasCounts
      ? (election.sheet(c.constituencyKey)!.candidates.find((s) => s.candidate.key === c.key)?.elected?.count ?? null)
      : null;
  const tables: Takeaway['tables'] = {
    candidates: () => partyCandidatesTable(election, candidates, electedAt),
  };
  if (swing && change.previous) tables.since = () => partySinceTable(swing, change.previous!.label);
  return {
    ...of,
    party,
    candidates,
    electedAt,
    change,
    swing,
    downloads: downloadsUnder(urls.party(view.definition.name, party.key)),
    takeaway: { source: sourceOf(view), tables, charts: {} } satisfies Takeaway,
  };
}
