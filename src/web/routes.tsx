// Each page's handler: reads the URL, gets the data through the actions (or the election models made from them),
// and renders. Handlers return a page or a redirect; failures they raise are rendered as error pages by index.ts.
// The pages of several elections at once (over time, people, transfers) have handlers of their own modules.

import type { CatalogResource } from '../catalog/catalog.js';
import {
  candidacyId,
  compareElections,
  displayName,
  FIELD_NAMES,
  partyRecords,
  slugOf,
  type Election,
} from '../elections/index.js';
import { chartOf, loadCharts } from './charts.js';
import { datasets, electionLabel, electionModel, elections, type ElectionView } from './catalog-view.js';
import { PageFailure, pageFailureOf, type SearchResult } from './data.js';
import { defaultFacets, facetOf, type Facet } from './facets.js';
import { downloadsUnder } from './downloads.js';
import { shareChangeChart } from './election-charts.js';
import { formatNumber } from './format.js';
import { ComparePage } from './pages/compare.js';
import { ConstituencySince, ElectedPage, Headline, OtherElections, PartySince } from './pages/change.js';
import { ConstituencyPage } from './pages/constituency.js';
import {
  ConstituencyList,
  CONSTITUENCY_SORTS,
  ElectionOverview,
  PartyPage,
  PartyTotalsPage,
  TileMap,
} from './pages/election.js';
import { ErrorPage } from './pages/error.js';
import { HomePage, type DatasetCard, type ElectionCard } from './pages/home.js';
import type { Crumb } from './pages/layout.js';
import {
  checksHref,
  constituencyFilters,
  electionOf,
  fieldOf,
  notFound,
  ok,
  page,
  type PageContext,
  type PageResult,
} from './page-context.js';
import { RecordPage, type RelatedLink } from './pages/record.js';
import { ResourcePage } from './pages/resource.js';
import { togetherHandlers } from './routes-together.js';
import { transferHandlers } from './routes-transfers.js';
import { electionsTogether } from './together.js';
import { apiQuery, canonical, decodedParams, foldForm, queryString } from './table-query.js';
import { compareTables, constituenciesTable } from './tables.js';
import {
  constituencyParts,
  electionNarrowCharts,
  electionParts,
  partyParts,
  sourceOf,
  takeawayAnswer,
  type Takeaway,
} from './takeaway.js';
import { apiSearchUrl, dumpUrl, filteredQuery, urls } from './urls.js';

async function home(ctx: PageContext): Promise<PageResult> {
  const all = elections(ctx.client);
  const cards: ElectionCard[] = await Promise.all(
    all.map(async (view) => {
      const name = view.definition.name;
      let totals = null;
      let problem: string | null = null;
      try {
        totals = (await electionModel(ctx.client, view)).totals;
      } catch (err) {
        const failure = pageFailureOf(err);
        if (!failure) throw err;
        problem = failure.message;
      }
      return {
        name,
        label: electionLabel(view),
        title: view.definition.title,
        date: view.election.date,
        body: view.election.body,
        totals,
        problem,
        href: urls.election(name),
        constituencies: urls.constituencies(name),
        parties: urls.parties(name),
        transfers: view.roles.counts ? urls.transfers(name) : null,
        candidatesResource: view.roles.candidates ?? null,
        resources: view.resources,
        seats: totals?.houseSeats ?? view.election.seats,
      };
    }),
  );
  const others: DatasetCard[] = datasets(ctx.client)
    .filter((d) => d.definition.election === null)
    .map((d) => ({ title: d.definition.title, notes: d.definition.notes, resources: d.resources }));
  return ok(
    page(
      ctx,
      { title: 'Elections and data', crumbs: [], alternate: '/api/3/action/package_list' },
      <HomePage elections={cards} datasets={others} compare={all.length > 1} resourceHref={urls.resource} />,
    ),
  );
}

/** The most rows a resource page shows; the downloads have every record of the view. */
export const MAX_PAGE_ROWS = 1000;

const DUMP_PARAMS = ['q', 'full_text', 'plain', 'language', 'filters', 'sort', 'fields', 'distinct'];

async function resourcePage(ctx: PageContext): Promise<PageResult> {
  const id = ctx.params.id ?? '';
  const resource = ctx.client.catalog.get(id);
  if (!resource || !resource.dataset) notFound(`There is no resource with the id "${id}".`);
  const fieldIds = resource.fields.filter((f) => f.id !== '_id').map((f) => f.id);
  const folded = foldForm(ctx.search, fieldIds);
  if (folded) return { redirect: `${urls.resource(id)}${queryString(folded)}` };

  const search = canonical(ctx.search);
  search.delete('resource_id');
  // A page of HTML is for reading: larger pages are downloads. The address says what the page shows.
  const limit = Number(search.get('limit'));
  if (search.getAll('limit').length === 1 && Number.isInteger(limit) && limit > MAX_PAGE_ROWS) {
    search.set('limit', String(MAX_PAGE_ROWS));
    return { redirect: `${urls.resource(id)}${queryString(search)}` };
  }
  const api = apiQuery(search);
  let result: SearchResult | null = null;
  let failure: PageFailure | null = null;
  try {
    result = await ctx.client.search({ ...decodedParams(api), resource_id: id });
  } catch (err) {
    failure = pageFailureOf(err);
    if (!failure || failure.status >= 500) throw err;
  }

  const textFields = resource.fields.filter((f) => f.type === 'text').map((f) => f.id);
  let facetFields: string[];
  if (search.has('_facet'))
    facetFields = search.getAll('_facet').filter((f) => textFields.includes(f) || resource.fieldById.has(f));
  else facetFields = await defaultFacets(ctx.client, resource);
  const facets: Facet[] = failure
    ? []
    : await Promise.all(facetFields.map((f) => facetOf(ctx.client, resource, search, f)));

  const dumpBase = new URLSearchParams();
  for (const name of DUMP_PARAMS) for (const v of api.getAll(name)) dumpBase.append(name, v);
  const dumpOf = (extra: Record<string, string>) => {
    const p = new URLSearchParams(dumpBase);
    for (const [k, v] of Object.entries(extra)) p.set(k, v);
    return dumpUrl(id, p);
  };
  const downloads = [
    { label: 'CSV', href: dumpOf({}), note: 'comma-separated, UTF-8' },
    { label: 'CSV for Excel', href: dumpOf({ bom: 'true' }), note: 'with a byte order mark, so Excel keeps the fadas' },
    { label: 'TSV', href: dumpOf({ format: 'tsv' }), note: 'tab-separated' },
    { label: 'JSON', href: dumpOf({ format: 'json' }), note: 'fields and records as lists' },
    { label: 'NDJSON', href: dumpOf({ format: 'ndjson' }), note: 'one JSON object per line' },
    {
      label: `The whole resource (CSV, ${formatNumber(resource.total)} records)`,
      href: dumpUrl(id, new URLSearchParams()),
      note: 'every record, ignoring this view',
    },
  ];

  const election = elections(ctx.client).find((e) => e.definition.name === resource.dataset!.name);
  const datasetLink = election
    ? { label: electionLabel(election), href: urls.election(election.definition.name) }
    : null;
  const apiUrl = apiSearchUrl(ctx.siteUrl, id, api);
  const crumbs: Crumb[] = [{ label: 'Home', href: '/' }];
  if (datasetLink) crumbs.push(datasetLink);
  crumbs.push({ label: resource.definition.name, href: urls.resource(id) });
  const html = page(
    ctx,
    {
      title: resource.definition.name,
      crumbs,
      alternate: apiSearchUrl('', id, api),
      datasets: [resource.dataset!.name],
    },
    <ResourcePage
      resource={resource}
      search={search}
      result={result}
      failure={failure}
      facets={facets}
      facetChoices={textFields.filter((f) => !facetFields.includes(f))}
      siteUrl={ctx.siteUrl}
      rowsDefault={ctx.client.settings.rowsDefault}
      pagePath={urls.resource(id)}
      apiUrl={apiUrl}
      downloads={downloads}
      dataset={datasetLink}
    />,
  );
  return { status: failure ? failure.status : 200, html };
}

async function recordPage(ctx: PageContext): Promise<PageResult> {
  const id = ctx.params.id ?? '';
  const resource = ctx.client.catalog.get(id);
  if (!resource || !resource.dataset) notFound(`There is no resource with the id "${id}".`);
  const recordId = Number(ctx.params.record);
  if (!Number.isSafeInteger(recordId) || recordId < 1)
    notFound(`There is no record "${ctx.params.record}" in ${resource.definition.name}.`);
  const filters = { _id: recordId };
  const result = await ctx.client.search({ resource_id: id, filters: JSON.stringify(filters) });
  const record = result.records[0];
  if (!record) notFound(`There is no record ${recordId} in ${resource.definition.name}.`);
  const related = await relatedLinks(ctx, resource, record);
  const outcome = await candidateOutcome(ctx, resource, record, related);
  const title = recordTitle(resource, record);
  const apiUrl = apiSearchUrl('', id, new URLSearchParams({ filters: JSON.stringify(filters) }));
  return ok(
    page(
      ctx,
      {
        title,
        crumbs: [
          { label: 'Home', href: '/' },
          { label: resource.definition.name, href: urls.resource(id) },
          { label: `Record ${recordId}` },
        ],
        alternate: apiUrl,
        datasets: [resource.dataset.name],
      },
      <RecordPage
        resource={resource}
        record={record}
        fields={result.fields}
        related={related}
        apiUrl={apiUrl}
        tableHref={urls.resource(id)}
        title={title}
        outcome={outcome}
      />,
    ),
  );
}

/**
 * A candidate record's result as the count details have it ("Elected on count 6 of 8"), which its own Count Number (the
 * constituency's number of counts) is easily mistaken for; and a link to the person across elections.
 */
async function candidateOutcome(
  ctx: PageContext,
  resource: CatalogResource,
  record: Record<string, unknown>,
  related: RelatedLink[],
): Promise<{ text: string; href: string } | null> {
  if (resource.definition.role !== 'candidates') return null;
  const view = elections(ctx.client).find((e) => e.definition.name === resource.dataset?.name);
  if (!view) return null;
  const election = await electionModel(ctx.client, view);
  const candidate = election.data.candidates.find((c) => c.recordId === record._id);
  if (!candidate) return null;
  const together = await electionsTogether(ctx.client, ctx.reviewed);
  const person = together.people.byCandidacy.get(
    candidacyId({ election: view.definition.name, candidateKey: candidate.key }),
  );
  if (person) related.unshift({ label: `${person.name} in every election`, href: urls.person(person.key) });
  if (!election.hasCounts) return null;
  const sheet = election.sheet(candidate.constituencyKey)!;
  const s = sheet.candidates.find((c) => c.candidate.key === candidate.key);
  if (!s) return null;
  const last = sheet.steps.length;
  const at = s.elected?.count ?? s.excludedAt;
  const href = urls.constituency(view.definition.name, candidate.constituencyKey);
  if (at === null || at === undefined) return { text: `Not elected: in the count to its end (count ${last})`, href };
  return {
    text: `${s.elected ? 'Elected' : 'Excluded'} on count ${at} of ${last}`,
    href: at >= last ? href : `${href}?count=${at}`,
  };
}

function recordTitle(resource: CatalogResource, record: Record<string, unknown>): string {
  const text = (spellings: readonly string[]) => {
    const field = fieldOf(resource, spellings);
    return field ? String(record[field] ?? '') : '';
  };
  switch (resource.definition.role) {
    case 'candidates':
      // The name in the usual case (`HELENA BYRNE` → `Helena Byrne`); the fields below keep the record's spelling.
      return `${displayName(text(FIELD_NAMES.candidates.firstName))} ${displayName(text(FIELD_NAMES.candidates.surname))}, ${text(FIELD_NAMES.candidates.constituency)}`.trim();
    case 'counts':
      return `${text(['Candidate First Name'])} ${text(['Candidate surname'])}, count ${text(FIELD_NAMES.counts.count)}`.trim();
    case 'constituencies':
      return text(FIELD_NAMES.constituencies.name) || `Record ${String(record._id)}`;
    default:
      return `${resource.definition.name}, record ${String(record._id)}`;
  }
}

/** Links from a record of an election resource to the pages and records it relates to. */
async function relatedLinks(
  ctx: PageContext,
  resource: CatalogResource,
  record: Record<string, unknown>,
): Promise<RelatedLink[]> {
  const role = resource.definition.role;
  const view = elections(ctx.client).find((e) => e.definition.name === resource.dataset?.name);
  if ((role !== 'candidates' && role !== 'counts' && role !== 'constituencies') || !view) return [];
  const election = await electionModel(ctx.client, view);
  const names = FIELD_NAMES[role] as Record<string, readonly string[]>;
  const numberField = fieldOf(resource, names.number!);
  const nameField = fieldOf(resource, role === 'constituencies' ? names.name! : names.constituency!);
  const constituency = election.constituencies.find((c) =>
    numberField && c.number !== null
      ? c.number === record[numberField]
      : nameField !== undefined && slugOf(String(record[nameField] ?? '')) === c.key,
  );
  const links: RelatedLink[] = [];
  const name = view.definition.name;
  if (!constituency) return links;
  const candidateField = fieldOf(resource, names.candidateId ?? []);
  const candidateId = candidateField ? record[candidateField] : undefined;
  if (role === 'counts') {
    const count = fieldOf(resource, FIELD_NAMES.counts.count);
    const n = count ? Number(record[count]) : NaN;
    links.push({
      label: `${constituency.name}, the count as it stood after count ${n}`,
      href: `${urls.constituency(name, constituency.key)}${Number.isInteger(n) ? `?count=${n}` : ''}`,
    });
  } else {
    links.push({
      label: `${constituency.name}: the count, transfer by transfer`,
      href: urls.constituency(name, constituency.key),
    });
  }
  const byConstituency = (target: 'candidates' | 'counts') => constituencyFilters(view, target, constituency);
  if (role === 'candidates' && candidateField) {
    const party = fieldOf(resource, FIELD_NAMES.candidates.party);
    // The row the candidate is counted in, which may group several labels of the records.
    const counted = election.data.candidates.find((c) => c.recordId === record._id);
    const partyRow = counted
      ? election.parties.find((p) => p.party === (counted.party || 'No party given'))
      : undefined;
    if (party && partyRow)
      links.push({ label: `${partyRow.party}: party totals and candidates`, href: urls.party(name, partyRow.key) });
    const counts = view.roles.counts;
    const countFilters = byConstituency('counts');
    const countsCandidate = fieldOf(counts, FIELD_NAMES.counts.candidateId);
    if (counts && countFilters && countsCandidate) {
      const countField = fieldOf(counts, FIELD_NAMES.counts.count);
      links.push({
        label: 'This candidate at every count (count details)',
        href: `${urls.resource(counts.id)}${filteredQuery({ ...countFilters, [countsCandidate]: candidateId }, countField ? { sort: `"${countField}"` } : {})}`,
      });
    }
  }
  if (role === 'counts' && candidateField) {
    const candidates = view.roles.candidates;
    const filters = byConstituency('candidates');
    const field = fieldOf(candidates, FIELD_NAMES.candidates.candidateId);
    if (candidates && filters && field)
      links.push({
        label: 'This candidate in the candidates table',
        href: `${urls.resource(candidates.id)}${filteredQuery({ ...filters, [field]: candidateId })}`,
      });
  }
  if (role === 'constituencies') {
    const candidates = view.roles.candidates;
    const filters = byConstituency('candidates');
    if (candidates && filters)
      links.push({
        label: `The candidates of ${constituency.name}`,
        href: `${urls.resource(candidates.id)}${filteredQuery(filters)}`,
      });
  }
  return links;
}

async function electionOverview(ctx: PageContext): Promise<PageResult> {
  const parts = await electionParts(ctx);
  const { base, crumbs, view, answer, change, takeaway } = parts;
  const name = view.definition.name;
  const candidates = view.roles.candidates;
  const api = candidates ? apiSearchUrl('', candidates.id) : '/api/3/action/package_list';
  const narrow = electionNarrowCharts(ctx, parts);
  const under = downloadsUnder(urls.election(name));
  return answer(
    { title: base.label, crumbs, alternate: candidates ? apiSearchUrl('', candidates.id) : null },
    <ElectionOverview
      {...base}
      headline={
        <Headline
          change={change}
          election={parts.election}
          partyHref={base.links.party}
          electedHref={urls.elected(name)}
          chart={{ wide: takeaway.charts.majority!.svg(), narrow: narrow.majority }}
          downloads={{
            seats: under.chart('majority', 'the seats against the majority line'),
            arithmetic: under.table('seats', 'the seats by party'),
          }}
          api={api}
        />
      }
      map={
        <TileMap
          label={base.label}
          tiles={parts.tiles}
          unplaced={parts.unplaced}
          svg={takeaway.charts.map!.svg()}
          constituencyHref={base.links.constituency}
          api={api}
          downloads={under.chart('map', 'the map of the largest party in each constituency')}
        />
      }
      electedHref={urls.elected(name)}
      failed={parts.failed}
    />,
  );
}

async function constituencyList(ctx: PageContext): Promise<PageResult> {
  const { base, crumbs, view, answer } = await electionOf(ctx);
  const raw = ctx.search.get('sort') ?? 'name';
  const descending = raw.startsWith('-');
  const key = raw.replace(/^-/, '');
  if (!CONSTITUENCY_SORTS[key])
    throw new PageFailure(
      400,
      `The constituencies cannot be sorted by "${key.slice(0, 40)}"; choose a column heading.`,
    );
  const resource = view.roles.constituencies;
  const api = resource ? apiSearchUrl('', resource.id) : null;
  const sort = raw === 'name' ? '' : `sort=${encodeURIComponent(raw)}`;
  return answer(
    { title: `Constituencies, ${base.label}`, crumbs: [...crumbs, { label: 'Constituencies' }], alternate: api },
    <ConstituencyList
      {...base}
      sortKey={key}
      descending={descending}
      api={api}
      download={downloadsUnder(urls.election(view.definition.name), sort).table('constituencies', 'the constituencies')}
    />,
  );
}

async function constituencyPage(ctx: PageContext): Promise<PageResult> {
  const parts = await constituencyParts(ctx);
  const { base, crumbs, view, election, answer, constituency, sheet, shown, count, last } = parts;
  const filtersFor = (role: 'candidates' | 'counts' | 'constituencies') =>
    constituencyFilters(view, role, constituency);
  const candidates = view.roles.candidates!;
  const counts = view.roles.counts;
  const countsFilters = filtersFor('counts');
  const countField = fieldOf(counts, FIELD_NAMES.counts.count);
  const apiOf = (
    resource: CatalogResource,
    filters: Record<string, unknown> | null,
    extra: Record<string, string> = {},
  ) => {
    const p = new URLSearchParams(extra);
    if (filters) p.set('filters', JSON.stringify(filters));
    return apiSearchUrl('', resource.id, p);
  };
  const constituencies = view.roles.constituencies;
  const sizeLimit = String(ctx.client.settings.rowsMax);
  const name = view.definition.name;
  const partyHref = (party: string) => {
    const key = election.parties.find((p) => p.party === party)?.key;
    return key ? urls.party(name, key) : null;
  };
  const props = {
    constituency,
    sheet,
    shown,
    count,
    electionLabel: base.label,
    pagePath: urls.constituency(name, constituency.key),
    candidateCount: election.candidates(constituency.key).length,
    hasCounts: parts.hasCounts,
    ceannComhairle: constituency.returnedAutomatically ? (election.house.ceannComhairle?.name ?? null) : null,
    transfersHref: election.hasCounts && counts ? urls.constituencyTransfers(name, constituency.key) : null,
    checks: checksHref(view, { Check: 'first-preferences', Constituency: constituency.name, Status: 'failed' }),
    failed: parts.failed,
    partyHref,
    api: {
      candidates: apiOf(candidates, filtersFor('candidates'), { sort: '"Votes" desc' }),
      counts: counts
        ? apiOf(counts, countsFilters, { limit: sizeLimit, ...(countField ? { sort: `"${countField}"` } : {}) })
        : null,
      constituency:
        constituencies && constituency.recordId
          ? apiSearchUrl(
              '',
              constituencies.id,
              new URLSearchParams({ filters: JSON.stringify({ _id: constituency.recordId }) }),
            )
          : null,
    },
    tables: {
      candidates: `${urls.resource(candidates.id)}${filteredQuery(filtersFor('candidates') ?? {})}`,
      counts: counts ? `${urls.resource(counts.id)}${filteredQuery(countsFilters ?? {})}` : null,
    },
    downloads: parts.downloads,
  };
  if (!fieldOf(candidates, ['Votes'])) props.api.candidates = apiOf(candidates, filtersFor('candidates'));
  const { charts: c } = parts.takeaway;
  const charts = {
    firstPreferences: c['first-preferences']!.svg(),
    race: c.race ? c.race.svg() : null,
    transfers: c.transfers ? c.transfers.svg() : null,
  };
  const title =
    count < last ? `${constituency.name} after count ${count}, ${base.label}` : `${constituency.name}, ${base.label}`;
  const constituencyHref = (ref: { election: string; key: string }) => urls.constituency(ref.election, ref.key);
  return answer(
    {
      title,
      crumbs: [...crumbs, { label: 'Constituencies', href: base.links.constituencies }, { label: constituency.name }],
      alternate: props.api.counts ?? props.api.candidates,
    },
    <ConstituencyPage
      {...props}
      charts={charts}
      narrowCharts={parts.narrow}
      since={
        <>
          <ConstituencySince
            name={constituency.name}
            electionLabel={base.label}
            change={parts.since}
            constituencyHref={constituencyHref}
            partyHref={partyHref}
            download={parts.downloads.table('since', `${constituency.name} since the election before`)}
          />
          <OtherElections
            name={constituency.name}
            election={name}
            change={parts.since}
            labels={parts.change.labels}
            constituencyHref={constituencyHref}
          />
        </>
      }
    />,
  );
}

async function partyTotals(ctx: PageContext): Promise<PageResult> {
  const parts = await electionParts(ctx);
  const { base, crumbs, view, answer, change, takeaway } = parts;
  const candidates = view.roles.candidates!;
  const api = apiSearchUrl('', candidates.id, new URLSearchParams({ limit: String(ctx.client.settings.rowsMax) }));
  const under = downloadsUnder(urls.election(view.definition.name));
  return answer(
    { title: `Party totals, ${base.label}`, crumbs: [...crumbs, { label: 'Party totals' }], alternate: api },
    <PartyTotalsPage
      {...base}
      api={api}
      chart={takeaway.charts.shares!.svg()}
      narrowChart={electionNarrowCharts(ctx, parts).shares}
      candidatesHref={urls.resource(candidates.id)}
      swings={change.parties}
      previous={change.previous?.label ?? null}
      downloads={{
        parties: under.table('parties', 'the party totals'),
        shares: under.chart('shares', 'the vote and seat shares'),
      }}
    />,
  );
}

async function partyPage(ctx: PageContext): Promise<PageResult> {
  const parts = await partyParts(ctx);
  const { base, crumbs, view, election, answer, party, change } = parts;
  const candidates = view.roles.candidates!;
  const partyField = fieldOf(candidates, FIELD_NAMES.candidates.party);
  // A row may count several labels of the records, or one candidate of a label (a grouping the press counts).
  const records = partyRecords(election.data, party);
  const filters =
    'recordIds' in records
      ? { _id: records.recordIds }
      : partyField
        ? { [partyField]: records.labels.length === 1 ? records.labels[0] : records.labels }
        : {};
  const api = apiSearchUrl('', candidates.id, new URLSearchParams({ filters: JSON.stringify(filters) }));
  const table = `${urls.resource(candidates.id)}${filteredQuery(filters)}`;
  const previousKey = parts.swing?.keys[0] ?? null;
  return answer(
    {
      title: `${party.party}, ${base.label}`,
      crumbs: [...crumbs, { label: 'Party totals', href: base.links.parties }, { label: party.party }],
      alternate: api,
    },
    <PartyPage
      {...base}
      party={party}
      api={api}
      table={table}
      candidates={parts.candidates}
      electedAt={parts.electedAt}
      download={parts.downloads.table('candidates', `the candidates of ${party.party}`)}
      since={
        <PartySince
          swing={parts.swing}
          previous={change.previous}
          previousHref={change.previous && previousKey ? urls.party(change.previous.name, previousKey) : null}
          download={parts.downloads.table('since', `${party.party} since the election before`)}
        />
      }
    />,
  );
}

async function electedPage(ctx: PageContext): Promise<PageResult> {
  const parts = await electionParts(ctx);
  const { base, crumbs, view, answer } = parts;
  const name = view.definition.name;
  return answer(
    {
      title: `Every TD elected, ${base.label}`,
      crumbs: [...crumbs, { label: 'Every TD elected' }],
      alternate: view.roles.candidates ? apiSearchUrl('', view.roles.candidates.id) : null,
    },
    <ElectedPage
      label={base.label}
      rows={parts.elected}
      download={downloadsUnder(urls.election(name)).table('elected', 'every TD elected')}
      overviewHref={urls.election(name)}
    />,
  );
}

/** `/election/<name>/data/<table>.csv`, `…/charts/<chart>.svg` and `…/charts/<chart>/embed`. */
const electionTakeaway =
  (kind: 'data' | 'charts' | 'embed') =>
  async (ctx: PageContext): Promise<PageResult> => {
    const parts = await electionParts(ctx);
    const file = ctx.params.file ?? '';
    if (kind === 'data' && file === 'constituencies.csv') {
      const raw = ctx.search.get('sort') ?? 'name';
      const key = raw.replace(/^-/, '');
      if (!CONSTITUENCY_SORTS[key]) notFound(`The constituencies cannot be sorted by "${key.slice(0, 40)}".`);
      const tables = { constituencies: () => constituenciesTable(parts.election, key, raw.startsWith('-')) };
      return takeawayAnswer(ctx, { ...parts.takeaway, tables }, kind, file);
    }
    return takeawayAnswer(ctx, parts.takeaway, kind, file);
  };

const constituencyTakeaway =
  (kind: 'data' | 'charts' | 'embed') =>
  async (ctx: PageContext): Promise<PageResult> =>
    takeawayAnswer(ctx, (await constituencyParts(ctx)).takeaway, kind, ctx.params.file ?? '');

const partyTakeaway = async (ctx: PageContext): Promise<PageResult> =>
  takeawayAnswer(ctx, (await partyParts(ctx)).takeaway, 'data', ctx.params.file ?? '');

/** Two elections compared: the comparison, its chart, and what the page offers to take away. */
async function compareParts(ctx: PageContext) {
  await loadCharts();
  const all = elections(ctx.client);
  // Latest first in `all`: by default the latest election against the one before it.
  const byName = new Map(all.map((e) => [e.definition.name, e]));
  const earlierName = ctx.search.get('earlier') ?? all[1]?.definition.name ?? '';
  const laterName = ctx.search.get('later') ?? all[0]?.definition.name ?? '';
  const earlier = byName.get(earlierName);
  const later = byName.get(laterName);
  if (all.length < 2) return { all, earlier, later, comparison: null };
  if (!earlier || !later)
    notFound(`There is no election called "${(!earlier ? earlierName : laterName).slice(0, 80)}".`);
  const [a, b] = await Promise.all([electionModel(ctx.client, earlier), electionModel(ctx.client, later)]);
  const summary = (view: ElectionView, e: Election) => ({
    name: view.definition.name,
    label: electionLabel(view),
    house: e.house,
    totals: e.totals,
    parties: e.parties,
    constituencies: e.constituencies,
  });
  const comparison = earlier === later ? null : compareElections(summary(earlier, a), summary(later, b));
  const label = comparison ? `${comparison.earlier.label} to ${comparison.later.label}` : '';
  const query = new URLSearchParams({ earlier: earlier.definition.name, later: later.definition.name }).toString();
  const chartSvg = () =>
    chartOf(ctx.client, `compare ${earlier.definition.name} ${later.definition.name}`, () =>
      shareChangeChart(comparison!.parties, label),
    );
  const tables = comparison ? compareTables(comparison) : {};
  const takeaway: Takeaway = {
    source: [earlier, later].map(sourceOf).join(' '),
    tables: Object.fromEntries(Object.entries(tables).map(([id, t]) => [id, () => t])),
    charts: comparison
      ? {
          'share-change': {
            title: `Change in vote share, ${label}.`,
            caption: 'Percentage points gained or lost by each party that stood in both elections.',
            page: { href: `${urls.compare}?${query}`, title: `Compare elections: ${label}` },
            svg: chartSvg,
            table: 'share-change',
          },
        }
      : {},
  };
  return { all, earlier, later, comparison, chartSvg, takeaway, downloads: downloadsUnder(urls.compare, query) };
}

async function comparePage(ctx: PageContext): Promise<PageResult> {
  const parts = await compareParts(ctx);
  const { all, earlier, later, comparison } = parts;
  const crumbs: Crumb[] = [{ label: 'Home', href: '/' }, { label: 'Compare elections' }];
  if (!earlier || !later) {
    return {
      status: 404,
      html: page(
        ctx,
        { title: 'Compare elections', crumbs, alternate: null, datasets: [] },
        <ErrorPage status={404} message="Comparing needs two elections, and only one is loaded." />,
      ),
    };
  }
  const views = [earlier, later] as const;
  const candidates = later.roles.candidates;
  const api = candidates
    ? apiSearchUrl('', candidates.id, new URLSearchParams({ limit: String(ctx.client.settings.rowsMax) }))
    : '/api/3/action/package_list';
  return ok(
    page(
      ctx,
      {
        title: 'Compare elections',
        crumbs,
        alternate: api,
        datasets: earlier === later ? [earlier.definition.name] : [earlier.definition.name, later.definition.name],
      },
      <ComparePage
        choices={all.map((e) => ({ name: e.definition.name, label: electionLabel(e) }))}
        earlier={earlier.definition.name}
        later={later.definition.name}
        comparison={comparison}
        api={api}
        chart={comparison && parts.chartSvg ? parts.chartSvg() : null}
        downloads={parts.downloads ?? null}
        constituencyHref={(i, key) => urls.constituency(views[i].definition.name, key)}
        partyHref={(i, key) => urls.party(views[i].definition.name, key)}
      />,
    ),
  );
}

const compareTakeaway =
  (kind: 'data' | 'charts' | 'embed') =>
  async (ctx: PageContext): Promise<PageResult> => {
    const parts = await compareParts(ctx);
    if (!parts.comparison || !parts.takeaway) notFound('Comparing needs two different elections.');
    return takeawayAnswer(ctx, parts.takeaway, kind, ctx.params.file ?? '');
  };

export const pageHandlers: Record<string, (ctx: PageContext) => Promise<PageResult>> = {
  ...togetherHandlers,
  ...transferHandlers,
  '/': home,
  '/resource/:id': resourcePage,
  '/resource/:id/record/:record': recordPage,
  '/election/:name': electionOverview,
  '/election/:name/constituencies': constituencyList,
  '/election/:name/constituencies/:key': constituencyPage,
  '/election/:name/parties': partyTotals,
  '/election/:name/parties/:key': partyPage,
  '/election/:name/elected': electedPage,
  '/election/:name/data/:file': electionTakeaway('data'),
  '/election/:name/charts/:file': electionTakeaway('charts'),
  '/election/:name/charts/:file/embed': electionTakeaway('embed'),
  '/election/:name/parties/:key/data/:file': partyTakeaway,
  '/election/:name/constituencies/:key/data/:file': constituencyTakeaway('data'),
  '/election/:name/constituencies/:key/charts/:file': constituencyTakeaway('charts'),
  '/election/:name/constituencies/:key/charts/:file/embed': constituencyTakeaway('embed'),
  '/compare': comparePage,
  '/compare/data/:file': compareTakeaway('data'),
  '/compare/charts/:file': compareTakeaway('charts'),
  '/compare/charts/:file/embed': compareTakeaway('embed'),
};
