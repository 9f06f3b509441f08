// The transfer pages: an election's party-to-party transfers nationally, and one constituency's, with its count as a
// flow.

import {
  NON_TRANSFERABLE,
  partyTransfers,
  transferCounts,
  type Election,
  type PartyTransfers,
  type TransferCount,
} from '../elections/index.js';
import { memoKey } from '../util/version-memos.js';
import { chartOf } from './charts.js';
import type { ElectionView } from './catalog-view.js';
import { checksOf, failedChecks } from './checks-view.js';
import { downloadsUnder } from './downloads.js';
import { candidateLabel } from './election-charts.js';
import { countFlowChart } from './flow-chart.js';
import { electionOf, notFound, type PageContext, type PageResult } from './page-context.js';
import { distributionText } from './pages/constituency.js';
import {
  ConstituencyTransfersPage,
  ElectionTransfersPage,
  type FlowRow,
  type TransferPageBase,
} from './pages/transfers.js';
import { countsTable, flowTable, matrixTable, partyVotesTable } from './tables.js';
import { sourceOf, takeawayAnswer, type Takeaway } from './takeaway.js';
import { apiSearchUrl, urls } from './urls.js';

function baseOf(
  ctx: PageContext,
  view: ElectionView,
  election: Election,
  label: string,
  used: TransferCount[],
  left: ReturnType<typeof transferCounts>['left'],
  transfers: PartyTransfers[] = partyTransfers(used),
): TransferPageBase {
  const name = view.definition.name;
  const byParty = new Map(election.parties.map((p) => [p.party, p]));
  const counts = view.roles.counts;
  return {
    electionLabel: label,
    used,
    left,
    transfers,
    abbreviation: (party) => byParty.get(party)?.abbreviation ?? '',
    partyHref: (party) => {
      const key = byParty.get(party)?.key;
      return key ? urls.party(name, key) : null;
    },
    countHref: (key, count) => `${urls.constituency(name, key)}?count=${count}`,
    api: counts
      ? apiSearchUrl('', counts.id, new URLSearchParams({ limit: String(ctx.client.settings.rowsMax) }))
      : '/api/3/action/package_list',
  };
}

/** Every constituency's one-party counts, worked out once per election and version of the data. */
type NationalCounts = ReturnType<typeof transferCounts> & { transfers: PartyTransfers[] };
const NATIONAL = memoKey<Map<string, NationalCounts>>('web: transfer counts by election');

function nationalCounts(ctx: PageContext, name: string, election: Election): NationalCounts {
  const kept = ctx.client.memo(NATIONAL, () => new Map<string, NationalCounts>());
  let counts = kept.get(name);
  if (!counts) {
    const all = election.constituencies.map((c) => transferCounts(election.sheet(c.key)!));
    const used = all.flatMap((a) => a.used);
    counts = { used, left: all.flatMap((a) => a.left), transfers: partyTransfers(used) };
    kept.set(name, counts);
  }
  return counts;
}

/** The national transfers: the page's figures and what it offers to take away. */
async function nationalParts(ctx: PageContext) {
  const of = await electionOf(ctx);
  const { view, election, base } = of;
  if (!election.hasCounts) notFound(`The ${base.label} has no count details, so no transfers.`);
  const name = view.definition.name;
  const { used, left, transfers } = nationalCounts(ctx, name, election);
  const transferBase = baseOf(ctx, view, election, base.label, used, left, transfers);
  const failed = (await failedChecks(ctx.client, view)).filter((f) => f.check === 'count-transfers');
  const takeaway: Takeaway = {
    source: sourceOf(view),
    charts: {},
    tables: {
      matrix: () => matrixTable(transferBase),
      'party-votes': () => partyVotesTable(transferBase),
      counts: () => countsTable(transferBase),
    },
  };
  return { ...of, transferBase, failed, takeaway, downloads: downloadsUnder(urls.transfers(name)) };
}

export async function electionTransfers(ctx: PageContext): Promise<PageResult> {
  const parts = await nationalParts(ctx);
  const { view, election, base, crumbs, answer } = parts;
  const name = view.definition.name;
  return answer(
    { title: `Transfers, ${base.label}`, crumbs: [...crumbs, { label: 'Transfers' }], alternate: null },
    <ElectionTransfersPage
      base={parts.transferBase}
      constituencies={election.constituencies
        .map((c) => ({ label: c.name, href: urls.constituencyTransfers(name, c.key) }))
        .sort((a, b) => a.label.localeCompare(b.label, 'en-IE'))}
      failed={parts.failed}
      downloads={parts.downloads}
    />,
  );
}

/** A constituency's transfers and its count as a flow: the page's figures and what it offers to take away. */
async function constituencyParts(ctx: PageContext) {
  const of = await electionOf(ctx);
  const { view, election, base } = of;
  const constituency = election.constituency(ctx.params.key ?? '');
  if (!constituency) notFound(`There is no constituency "${ctx.params.key}" in the ${base.label}.`);
  if (!election.hasCounts) notFound(`The ${base.label} has no count details, so no transfers.`);
  const sheet = election.sheet(constituency.key)!;
  const { used, left } = transferCounts(sheet);
  const name = view.definition.name;
  const flowRows: FlowRow[] = sheet.steps
    .filter((s) => s.count > 1)
    .flatMap((s) => [
      ...s.gains.map((g) => ({
        count: s.count,
        what: distributionText(s.distribution),
        to: candidateLabel({ candidate: g.candidate }),
        votes: g.votes,
      })),
      ...(s.nonTransferable > 0
        ? [{ count: s.count, what: distributionText(s.distribution), to: NON_TRANSFERABLE, votes: s.nonTransferable }]
        : []),
    ]);
  const flowSvg = () => chartOf(ctx.client, `flow ${name}/${constituency.key}`, () => countFlowChart(sheet));
  const transferBase = baseOf(ctx, view, election, base.label, used, left);
  const page = urls.constituencyTransfers(name, constituency.key);
  const failed = checksOf(await failedChecks(ctx.client, view), constituency.name).filter(
    (f) => f.check === 'count-transfers',
  );
  const takeaway: Takeaway = {
    source: sourceOf(view),
    charts: {
      flow: {
        title: `The count in ${constituency.name} as a flow, ${base.label}.`,
        caption:
          "A column per count; each candidate's bar is their running total. Grey bands carry a candidate's votes to the next count; coloured bands (the giver's party colour) carry what a count distributed.",
        page: { href: page, title: `Transfers in ${constituency.name}, ${base.label}` },
        svg: flowSvg,
        table: 'flow',
      },
    },
    tables: {
      flow: () => flowTable(flowRows),
      matrix: () => matrixTable(transferBase),
      'party-votes': () => partyVotesTable(transferBase),
      counts: () => countsTable(transferBase),
    },
  };
  return { ...of, constituency, flowRows, flowSvg, transferBase, failed, takeaway, downloads: downloadsUnder(page) };
}

export async function constituencyTransfers(ctx: PageContext): Promise<PageResult> {
  const parts = await constituencyParts(ctx);
  const { view, base, crumbs, answer, constituency } = parts;
  const name = view.definition.name;
  return answer(
    {
      title: `Transfers in ${constituency.name}, ${base.label}`,
      crumbs: [
        ...crumbs,
        { label: 'Constituencies', href: base.links.constituencies },
        { label: constituency.name, href: urls.constituency(name, constituency.key) },
        { label: 'Transfers' },
      ],
      alternate: null,
    },
    <ConstituencyTransfersPage
      base={parts.transferBase}
      name={constituency.name}
      flowSvg={parts.flowSvg()}
      flowRows={parts.flowRows}
      constituencyHref={urls.constituency(name, constituency.key)}
      electionTransfersHref={urls.transfers(name)}
      failed={parts.failed}
      downloads={parts.downloads}
    />,
  );
}

const nationalTakeaway = async (ctx: PageContext): Promise<PageResult> =>
  takeawayAnswer(ctx, (await nationalParts(ctx)).takeaway, 'data', ctx.params.file ?? '');

const constituencyTakeaway =
  (kind: 'data' | 'charts' | 'embed') =>
  async (ctx: PageContext): Promise<PageResult> =>
    takeawayAnswer(ctx, (await constituencyParts(ctx)).takeaway, kind, ctx.params.file ?? '');

export const transferHandlers = {
  '/election/:name/transfers': electionTransfers,
  '/election/:name/constituencies/:key/transfers': constituencyTransfers,
  '/election/:name/transfers/data/:file': nationalTakeaway,
  '/election/:name/constituencies/:key/transfers/data/:file': constituencyTakeaway('data'),
  '/election/:name/constituencies/:key/transfers/charts/:file': constituencyTakeaway('charts'),
  '/election/:name/constituencies/:key/transfers/charts/:file/embed': constituencyTakeaway('embed'),
};
