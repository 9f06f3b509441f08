// Where each party's transfers went, for an election and for one constituency: the share of a party's distributed
// votes that went to each party and to non-transferable, from the counts whose votes were one party's, with those
// counts listed and the others said why they were left out; for a constituency, its count as a flow beside its data.

import type { ComponentChildren } from 'preact';
import {
  INDEPENDENTS,
  NON_TRANSFERABLE,
  displayName,
  type LeftOutCount,
  type PartyTransfers,
  type TransferCount,
} from '../../elections/index.js';
import type { FailedCheck } from '../checks-view.js';
import type { downloadsUnder } from '../downloads.js';
import { plainPartyName } from '../election-charts.js';
import { formatNumber, formatShare, plural } from '../format.js';
import { CheckNote } from './constituency.js';
import { DataTable, Figure, LinkList, Num, PartyChip, TableLinks } from './layout.js';

type Downloads = ReturnType<typeof downloadsUnder>;

export interface TransferPageBase {
  electionLabel: string;
  transfers: PartyTransfers[];
  used: TransferCount[];
  left: LeftOutCount[];
  abbreviation: (party: string) => string;
  /** A party's own page in this election. */
  partyHref: (party: string) => string | null;
  /** The count as it stood after count N in a constituency. */
  countHref: (constituencyKey: string, count: number) => string;
  api: string;
}

/** Votes staying within a party: its voters' loyalty. Independents are no party, so have none. */
const ownParty = (to: string, from: string) => to === from && from !== INDEPENDENTS;

const names = (list: { firstName: string; surname: string }[]) =>
  list.map((c) => `${displayName(c.firstName)} ${displayName(c.surname)}`.trim()).join(', ');

function Caveats() {
  return (
    <ul class="caveats">
      <li>
        Only counts whose distributed votes were one party's are used: a surplus, or the exclusion of one candidate (or
        of several of one party, or of several without a party). Counts that excluded candidates of several parties at
        once are left out, as their votes cannot be told apart.
      </li>
      <li>Shares are sums of votes over the counts (not averages of each count's shares).</li>
      <li>
        A surplus after the first count transfers only the last parcel of votes the candidate received, not a sample of
        all their votes.
      </li>
      <li>Transfers show who was still in the count: a party with no candidate left could receive nothing.</li>
      <li>
        Transfers within a party (its own row and column, shaded) measure its voters' loyalty, and are usually reported
        apart. Independents are not a party: transfers from one independent to another are not loyalty, and are not
        shaded.
      </li>
    </ul>
  );
}

/** How many receiving parties the matrix gives a column of their own; the rest share one. */
const MATRIX_PARTIES = 10;
const OTHERS = '\u0000others';

/** The party-to-party table: a row per giving party, a column per receiving party and non-transferable. */
export function TransferMatrix({
  base,
  caption,
  id,
  downloads,
}: {
  base: TransferPageBase;
  caption: string;
  id: string;
  downloads: Downloads;
}) {
  const givers = base.transfers;
  const received = new Map<string, number>();
  for (const g of givers)
    for (const t of g.to)
      if (t.party !== NON_TRANSFERABLE) received.set(t.party, (received.get(t.party) ?? 0) + t.votes);
  const ranked = [...received.keys()].sort((a, b) => received.get(b)! - received.get(a)! || a.localeCompare(b));
  // The matrix reads whole at 1280 px: the parties that received least share one column, "Others" (each party's
  // transfers below, and the CSV, give them one by one).
  const crowded = ranked.length > MATRIX_PARTIES + 1;
  const receivers = crowded ? ranked.slice(0, MATRIX_PARTIES) : ranked;
  const others = crowded ? ranked.slice(MATRIX_PARTIES) : [];
  const columns = [...receivers, ...(crowded ? [OTHERS] : []), NON_TRANSFERABLE];
  // Full names would make the matrix too wide for a screen: the columns are headed by abbreviations, which never
  // break, explained in the key below the table (and read out in full by screen readers).
  const short = (party: string) => base.abbreviation(party) || plainPartyName(party);
  const keyed = receivers.filter((p) => short(p) !== plainPartyName(p));
  const shareTo = (g: PartyTransfers, p: string) => {
    if (p !== OTHERS) return g.to.find((t) => t.party === p)?.share ?? null;
    const to = g.to.filter((t) => others.includes(t.party));
    return to.length > 0 ? to.reduce((sum, t) => sum + t.share, 0) : null;
  };
  return (
    <>
      <DataTable
        scroll={caption}
        class="data transfer-matrix party-table"
        id={id}
        caption={caption}
        download={downloads.table('matrix', 'the party-to-party transfers')}
        head={
          <>
            <th scope="col">From</th>
            <th scope="col" class="num">
              Votes distributed
            </th>
            {columns.map((p) =>
              p === NON_TRANSFERABLE || p === OTHERS ? (
                <th scope="col" class="num">
                  <span class="visually-hidden">To </span>
                  {p === OTHERS ? 'Others' : 'Non-transferable'}
                </th>
              ) : (
                <th scope="col" class="num">
                  <span class="visually-hidden">To {p}</span>
                  <span aria-hidden="true" class="abbreviation">
                    {short(p)}
                  </span>
                </th>
              ),
            )}
          </>
        }
      >
        {givers.map((g) => (
          <tr>
            <th scope="row">
              <PartyLabel party={g.party} href={base.partyHref(g.party)} />
            </th>
            <Num>{formatNumber(g.distributed)}</Num>
            {columns.map((p) => {
              const share = shareTo(g, p);
              return (
                <td class={`num${ownParty(p, g.party) ? ' own' : ''}`}>{share === null ? '–' : formatShare(share)}</td>
              );
            })}
          </tr>
        ))}
      </DataTable>
      {(keyed.length > 0 || crowded) && (
        <p class="hint abbreviation-key">
          Columns:{' '}
          {keyed.map((p, i) => (
            <>
              {i > 0 ? '; ' : ''}
              <span class="abbreviation">{short(p)}</span> {plainPartyName(p)}
            </>
          ))}
          {crowded && (
            <>
              {keyed.length > 0 ? '; ' : ''}Others: the {others.length} parties that received fewest transfers (
              {others.map(plainPartyName).join(', ')}), together
            </>
          )}
          .
        </p>
      )}
    </>
  );
}

/** A party's chip and plain name, linked to its page where it has one. */
function PartyLabel({ party, href }: { party: string; href: string | null }) {
  const chip = <PartyChip party={party} label={plainPartyName(party)} />;
  return href ? <a href={href}>{chip}</a> : chip;
}

/** The votes behind the shares: each giving party's transfers as a list, largest first (a phone reads this one). */
export function PartyBreakdown({
  base,
  heading,
  downloads,
}: {
  base: TransferPageBase;
  heading: 'h2' | 'h3';
  downloads: Downloads;
}) {
  const H = heading;
  return (
    <>
      <div class="breakdowns">
        {base.transfers.map((g) => (
          <section aria-labelledby={`from-${slug(g.party)}`} class="breakdown">
            <H id={`from-${slug(g.party)}`}>From {g.party}</H>
            <p>
              {formatNumber(g.distributed)} votes distributed at {plural(g.counts, 'count')}.
            </p>
            <DataTable
              class="data compact"
              caption={<>Where {g.party}'s transfers went</>}
              text={['To']}
              numeric={['Votes', 'Share']}
            >
              {g.to.map((t) => (
                <tr class={ownParty(t.party, g.party) ? 'own' : undefined}>
                  <th scope="row">
                    {t.party === NON_TRANSFERABLE ? 'Non-transferable' : t.party}
                    {ownParty(t.party, g.party) ? ' (own party)' : ''}
                  </th>
                  <Num>{formatNumber(t.votes)}</Num>
                  <Num>{formatShare(t.share)}</Num>
                </tr>
              ))}
            </DataTable>
          </section>
        ))}
      </div>
      <TableLinks download={downloads.table('party-votes', "each party's transfers in votes")} />
    </>
  );
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-');

/** The counts used, and those left out with the reason, each linked to the count as it stood then. */
export function CountsUsed({
  base,
  byConstituency,
  downloads,
}: {
  base: TransferPageBase;
  byConstituency: boolean;
  downloads: Downloads;
}) {
  const download = <TableLinks download={downloads.table('counts', 'the counts used and left out')} />;
  if (byConstituency) return <CountsByConstituency base={base} download={download} />;
  const what = (c: TransferCount) => `${c.kind === 'surplus' ? 'Surplus' : 'Exclusion'} of ${names(c.from)}`;
  return (
    <details class="counts-used">
      <summary>
        The {plural(base.used.length, 'count')} used, and the {plural(base.left.length, 'count')} left out
      </summary>
      <DataTable
        scroll="The counts used"
        class="data compact"
        caption="Counts used"
        text={['Count', 'Distributed']}
        numeric={['Votes', 'Non-transferable']}
      >
        {base.used.map((c) => (
          <tr>
            <CountCell base={base} count={c} />
            <td>
              {what(c)} ({base.abbreviation(c.party) || c.party})
            </td>
            <Num>{formatNumber(c.distributed)}</Num>
            <Num>{formatNumber(c.nonTransferable)}</Num>
          </tr>
        ))}
      </DataTable>
      {base.left.length > 0 && (
        <DataTable
          scroll="The counts left out"
          class="data compact"
          caption="Counts left out"
          text={['Count', 'Distributed', 'Why left out']}
        >
          {base.left.map((c) => (
            <tr>
              <CountCell base={base} count={c} />
              <td>{names(c.from)}</td>
              <td>
                {c.reason === 'several parties'
                  ? "Several parties' votes at once"
                  : `The source's totals gain ${formatNumber(c.excess)} more votes than the count distributed`}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {download}
    </details>
  );
}

/** A count's number, linked to the count as it stood then. */
function CountCell({
  base,
  count,
}: {
  base: TransferPageBase;
  count: Pick<TransferCount, 'constituencyKey' | 'count'>;
}) {
  return (
    <td>
      <a href={base.countHref(count.constituencyKey, count.count)}>{count.count}</a>
    </td>
  );
}

/** The counts of every constituency, a line each: those used, and those left out with the reason. */
function CountsByConstituency({ base, download }: { base: TransferPageBase; download: ComponentChildren }) {
  const places = [...new Map([...base.used, ...base.left].map((c) => [c.constituencyKey, c.constituencyName]))].sort(
    (a, b) => a[1].localeCompare(b[1], 'en-IE'),
  );
  return (
    <details class="counts-used">
      <summary>
        The {plural(base.used.length, 'count')} used, and the {plural(base.left.length, 'count')} left out
      </summary>
      <p class="hint">Each count links to the count as it stood then. S: a surplus; E: an exclusion.</p>
      <ul class="counts-by-constituency">
        {places.map(([key, name]) => {
          const used = base.used.filter((c) => c.constituencyKey === key);
          const left = base.left.filter((c) => c.constituencyKey === key);
          return (
            <li>
              <strong>{name}</strong>:{' '}
              {used.length === 0
                ? 'none used'
                : used.map((c, i) => (
                    <>
                      {i > 0 ? ', ' : ''}
                      <a href={base.countHref(key, c.count)}>{c.count}</a> {c.kind === 'surplus' ? 'S' : 'E'}{' '}
                      {base.abbreviation(c.party) || c.party}
                    </>
                  ))}
              {left.length > 0 && (
                <>
                  ; left out:{' '}
                  {left.map((c, i) => (
                    <>
                      {i > 0 ? ', ' : ''}
                      <a href={base.countHref(key, c.count)}>{c.count}</a> (
                      {c.reason === 'several parties'
                        ? 'several parties'
                        : `gains exceed the votes distributed by ${formatNumber(c.excess)}`}
                      )
                    </>
                  ))}
                </>
              )}
            </li>
          );
        })}
      </ul>
      {download}
    </details>
  );
}

export function ElectionTransfersPage({
  base,
  constituencies,
  failed,
  downloads,
}: {
  base: TransferPageBase;
  constituencies: { label: string; href: string }[];
  /** Counts whose figures do not add up in the source. */
  failed: readonly FailedCheck[];
  downloads: Downloads;
}) {
  const distributed = base.used.reduce((s, c) => s + c.distributed, 0);
  return (
    <>
      <h1>Transfers, {base.electionLabel}</h1>
      <p class="lead">
        Where each party's transfers went, nationally: {formatNumber(distributed)} votes distributed at{' '}
        {plural(base.used.length, 'count')} whose votes were one party's. Each row is a party's distributed votes; each
        column, the share that went to a party, or no further.
      </p>
      <Caveats />
      {failed.length > 0 && (
        <p class="note" role="note">
          The figures of {plural(failed.length, 'count')} do not add up in the source, and{' '}
          {failed.length === 1 ? 'it is' : 'they are'} left out of these shares:{' '}
          {failed.map((f, i) => (
            <>
              {i > 0 ? ', ' : ''}
              {f.href ? (
                <a href={f.href}>
                  {f.constituency}, count {f.count}
                </a>
              ) : (
                `${f.constituency}, count ${f.count}`
              )}
            </>
          ))}
          .
        </p>
      )}
      <TransferMatrix
        base={base}
        id="matrix"
        caption={`Share of each party's transferable votes that went to each party, ${base.electionLabel}, all constituencies`}
        downloads={downloads}
      />
      <CountsUsed base={base} byConstituency downloads={downloads} />
      <h2>Each party's transfers, in votes</h2>
      <PartyBreakdown base={base} heading="h3" downloads={downloads} />
      <section aria-labelledby="by-constituency">
        <h2 id="by-constituency">By constituency</h2>
        <p>Each constituency's transfers, and its count as a flow:</p>
        <LinkList class="constituency-links" links={constituencies} />
      </section>
      <p>
        <a href={base.api} rel="nofollow">
          The count details behind these figures (JSON, from the API)
        </a>
      </p>
    </>
  );
}

export interface FlowRow {
  count: number;
  what: string;
  to: string;
  votes: number;
}

export function ConstituencyTransfersPage({
  base,
  name,
  flowSvg,
  flowRows,
  constituencyHref,
  electionTransfersHref,
  failed,
  downloads,
}: {
  base: TransferPageBase;
  name: string;
  flowSvg: string;
  flowRows: FlowRow[];
  constituencyHref: string;
  electionTransfersHref: string;
  failed: readonly FailedCheck[];
  downloads: Downloads;
}) {
  return (
    <>
      <h1>
        Transfers in {name}, {base.electionLabel}
      </h1>
      <p class="lead">
        Where the votes went at each count, as a flow, and where each party's transfers went.{' '}
        <a href={constituencyHref}>The count, count by count</a> ·{' '}
        <a href={electionTransfersHref}>Transfers in every constituency</a>
      </p>
      {failed.map((f) => (
        <CheckNote failed={f} />
      ))}
      <div class="flow-layout">
        <Figure
          id="flow"
          title="The count as a flow."
          caption={
            <>
              A column per count; each candidate's bar is their running total, in the order of first preferences. Grey
              bands carry a candidate's votes to the next count; coloured bands (the giver's party colour) carry what a
              count distributed to those who gained it, and to non-transferable at the bottom. Where several candidates
              were excluded at once, each band is their share of the gains in proportion to what they gave.
            </>
          }
          svg={flowSvg}
          api={base.api}
          downloads={downloads.chart('flow', `the count in ${name} as a flow`)}
          data={<FlowTable rows={flowRows} name={name} />}
        />
        <section class="flow-data" aria-labelledby="flow-data-title">
          <h2 id="flow-data-title" class="h-small">
            The flow's figures
          </h2>
          <FlowTable rows={flowRows} name={name} />
          <TableLinks download={downloads.table('flow', `the transfers at each count in ${name}`)} />
        </section>
      </div>
      <h2>Party to party</h2>
      <Caveats />
      {base.transfers.length === 0 ? (
        <p>No count here distributed one party's votes alone.</p>
      ) : (
        <>
          <TransferMatrix
            base={base}
            id="matrix"
            caption={`Share of each party's transferable votes that went to each party, ${name}, ${base.electionLabel}`}
            downloads={downloads}
          />
          <PartyBreakdown base={base} heading="h3" downloads={downloads} />
        </>
      )}
      <CountsUsed base={base} byConstituency={false} downloads={downloads} />
    </>
  );
}

function FlowTable({ rows, name }: { rows: FlowRow[]; name: string }) {
  return (
    <DataTable
      scroll={`Transfers at each count in ${name}`}
      class="data compact flow-table"
      caption={<>Transfers at each count in {name}</>}
      text={['Count', 'Distributed', 'To']}
      numeric={['Votes']}
    >
      {rows.map((r) => (
        <tr>
          <td>{r.count}</td>
          <td>{r.what}</td>
          <th scope="row">{r.to}</th>
          <Num>{formatNumber(r.votes)}</Num>
        </tr>
      ))}
    </DataTable>
  );
}
