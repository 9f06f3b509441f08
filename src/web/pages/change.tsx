// What changed since the election before, on the pages that show it: an election's headline result (seats by party
// with the change, turnout, and the seats against the majority line), every TD elected, a party's figures against the
// election before, and a constituency's seats gained and lost, or why its boundaries allow no comparison and what it
// was made from, with the same constituency at the other elections.

import type { ComponentChildren } from 'preact';
import {
  handsText,
  type ConstituencyRef,
  type Election,
  type LinkedConstituency,
  type PartySwing,
} from '../../elections/index.js';
import type { ConstituencyChange, ElectionChange, ElectionRef } from '../change-view.js';
import type { ChartDownload, TableDownload } from '../downloads.js';
import { formatNumber, formatShare, formatSigned, plural } from '../format.js';
import { DataTable, Figure, Num, PartyChip, PartyName } from './layout.js';

/** "2020" from "General Election 2020": an election's year, where its label ends in one. */
export const yearOf = (label: string) => /\b(\d{4})$/.exec(label)?.[1] ?? label;

/** A change in seats: "+14", "−15", "no change". */
export const seatChangeText = (n: number) => (n === 0 ? 'no change' : formatSigned(n));

/** A swing in points, to one decimal place, from the unrounded shares: "−4.7 points". */
export const swingText = (points: number) => formatSigned(points, 1, ' points');

/** The parties a headline shows: those with a seat at either election, most seats first. */
export function seatedSwings(change: ElectionChange, election: Election): PartySwing[] {
  if (change.parties.length > 0) return change.parties.filter((p) => (p.seats[0] ?? 0) > 0 || (p.seats[1] ?? 0) > 0);
  return election.parties
    .filter((p) => p.seats > 0)
    .sort((a, b) => b.seats - a.seats || b.voteShare - a.voteShare)
    .map((p) => ({
      party: p.party,
      abbreviation: p.abbreviation,
      keys: [null, p.key],
      seats: [null, p.seats],
      shares: [null, p.voteShare],
      seatChange: 0,
      swing: 0,
      stood: 'later only',
    }));
}

export interface HeadlineProps {
  change: ElectionChange;
  election: Election;
  partyHref: (key: string) => string;
  electedHref: string;
  chart: { wide: string; narrow: string };
  downloads: { seats: ChartDownload; arithmetic: TableDownload };
  api: string;
}

/** The result at a glance: who won most, seats with the change, turnout, and the majority arithmetic. */
export function Headline({ change, election, partyHref, electedHref, chart, downloads, api }: HeadlineProps) {
  const m = change.majority;
  const t = election.totals;
  const previous = change.previous;
  const before = previous ? yearOf(previous.label) : null;
  const swings = seatedSwings(change, election);
  const largest = m.parties[0];
  const mostVotes = [...election.parties].sort((a, b) => b.firstPreferences - a.firstPreferences)[0];
  const cc = election.house.ceannComhairle;
  const ccParty = election.parties.find((p) => p.returnedAutomatically > 0);
  const houseSeats = election.house.seats;
  return (
    <section aria-labelledby="headline-title" class="headline">
      <h2 id="headline-title">The result</h2>
      <p class="lead">
        {largest && (
          <>
            {largest.party} won the most seats, {formatNumber(largest.seats)} of {formatNumber(m.houseSeats)}
            {largest.seats >= m.majority
              ? ', a majority'
              : `, ${formatNumber(m.majority - largest.seats)} short of a majority`}
            .{' '}
          </>
        )}
        {mostVotes && (
          <>
            {mostVotes.party === largest?.party ? 'It also won' : `${mostVotes.party} won`} the most first preferences,{' '}
            {formatShare(mostVotes.voteShare)}.{' '}
          </>
        )}
        Turnout {formatShare(t.turnout)}
        {previous && change.turnout[0] !== null ? ` (${formatShare(change.turnout[0])} in ${before})` : ''}.
      </p>
      <DataTable
        scroll="Seats by party"
        class="data party-table seats-change"
        id="seats-table"
        caption={
          previous ? (
            <>Seats by party, with the change since {previous.label}, and each party's share of first preferences</>
          ) : (
            <>Seats by party, and each party's share of first preferences</>
          )
        }
        text={['Party']}
        numeric={
          before
            ? ['Seats', `Seats ${before}`, 'Change', 'First preferences', `First preferences ${before}`, 'Swing']
            : ['Seats', 'First preferences']
        }
        download={downloads.arithmetic}
        foot={
          <>
            <th scope="row">All</th>
            <Num>{formatNumber(m.partySeats)}</Num>
            {before && (
              <>
                <Num>{formatNumber(swings.reduce((s, p) => s + (p.seats[0] ?? 0), 0))}</Num>
                <Num>{seatChangeText(swings.reduce((s, p) => s + p.seatChange, 0))}</Num>
              </>
            )}
            <Num>100%</Num>
            {before && (
              <>
                <Num>100%</Num>
                <Num>–</Num>
              </>
            )}
          </>
        }
      >
        {swings.map((p) => (
          <tr>
            <th scope="row">
              <PartyName party={p.party} abbreviation={p.abbreviation} href={p.keys[1] ? partyHref(p.keys[1]) : null} />
            </th>
            <Num>
              {p.seats[1] === null ? 'did not stand' : formatNumber(p.seats[1])}
              {p.keys[1] && ccParty?.key === p.keys[1] ? (
                <a href="#majority-note" class="footnote-mark" aria-label=": with the Ceann Comhairle (see the note)">
                  *
                </a>
              ) : null}
            </Num>
            {before && (
              <>
                <Num>{p.seats[0] === null ? 'did not stand' : formatNumber(p.seats[0])}</Num>
                <Num>
                  {p.stood === 'later only' ? `new, ${formatSigned(p.seatChange)}` : seatChangeText(p.seatChange)}
                </Num>
              </>
            )}
            <Num>{formatShare(p.shares[1])}</Num>
            {before && (
              <>
                <Num>{formatShare(p.shares[0])}</Num>
                <Num>{swingText(p.swing)}</Num>
              </>
            )}
          </tr>
        ))}
      </DataTable>
      <p class="hint">
        {before ? (
          <>
            Parties that won a seat in {yearOf(change.election.label)} or {before}; every party's figures are in the
            party totals. Swing: the change in a party's share of first preferences, in percentage points, from the
            unrounded shares.
          </>
        ) : (
          <>
            Parties that won a seat; every party's figures are in the party totals. The {change.election.label} is the
            first election loaded here: there is none before it to compare with.
          </>
        )}
      </p>
      <Figure
        id="majority"
        title="Seats against the majority line."
        caption={
          <>
            Each party's seats; the line is a majority, {formatNumber(m.majority)} of {formatNumber(m.houseSeats)}.
          </>
        }
        svg={chart.wide}
        narrowSvg={chart.narrow}
        api={api}
        downloads={downloads.seats}
        data={
          <DataTable
            class="data compact"
            caption={<>Seats by party against the majority of {formatNumber(m.majority)}</>}
            text={['Party']}
            numeric={['Seats', 'Short of a majority']}
          >
            {m.parties.map((p) => (
              <tr>
                <th scope="row">{p.party}</th>
                <Num>{formatNumber(p.seats)}</Num>
                <Num>{formatNumber(Math.max(0, m.majority - p.seats))}</Num>
              </tr>
            ))}
          </DataTable>
        }
      />
      <div class="note" role="note" id="majority-note">
        <p>
          <strong>The majority line:</strong> more than half of all {formatNumber(m.houseSeats)} seats,{' '}
          {formatNumber(m.majority)}.
          {cc && (
            <>
              {' '}
              The outgoing Ceann Comhairle, {cc.name}, returned automatically in {cc.constituency}, is counted in the{' '}
              {formatNumber(m.houseSeats)} and in the seats of {ccParty ? ccParty.party : 'no party'} (*). The Ceann
              Comhairle votes only to break a tie, so of the {formatNumber(m.votingSeats)} TDs who vote,{' '}
              {formatNumber(m.votingMajority)} are a majority.
            </>
          )}
        </p>
        {m.combinations.length > 0 && (
          <p>
            The largest parties together:{' '}
            {m.combinations.map((c, i) => (
              <>
                {i > 0 ? '; ' : ''}
                {c.parties.length > 2
                  ? `${c.parties.slice(0, -1).join(', ')} and ${c.parties.at(-1)}`
                  : c.parties.join(' and ')}
                , {formatNumber(c.seats)}
                {c.short > 0 ? ` (${formatNumber(c.short)} short)` : ' (a majority)'}
              </>
            ))}
            .
          </p>
        )}
        <p>
          {m.partySeats === m.houseSeats && (houseSeats === null || houseSeats === m.houseSeats) ? (
            <>
              The parties' seats add up to {formatNumber(m.partySeats)}
              {houseSeats !== null ? ', the seats the Dáil had' : ''}.
            </>
          ) : (
            <>
              The parties' seats add up to {formatNumber(m.partySeats)}, but the Dáil had{' '}
              {formatNumber(houseSeats ?? m.houseSeats)}: the records do not account for every seat.
            </>
          )}{' '}
          <a href={electedHref}>Every TD elected ({formatNumber(m.houseSeats)})</a>
        </p>
      </div>
    </section>
  );
}

/** A party's figures against the election before, for its own page. */
export function PartySince({
  swing,
  previous,
  previousHref,
  download,
}: {
  swing: PartySwing | null;
  previous: ElectionRef | null;
  previousHref: string | null;
  download: TableDownload;
}) {
  if (!previous)
    return (
      <p class="note" role="note" id="since">
        This is the first election loaded here: there is no earlier one to compare with.
      </p>
    );
  if (!swing) return null;
  const before = yearOf(previous.label);
  return (
    <section aria-labelledby="since-title" id="since">
      <h2 id="since-title">Since {previous.label}</h2>
      <p>
        {swing.stood === 'later only' ? (
          <>It did not stand in {before}: every seat and vote is new.</>
        ) : (
          <>
            Seats {formatNumber(swing.seats[0])} → {formatNumber(swing.seats[1])} ({seatChangeText(swing.seatChange)});
            share of first preferences {formatShare(swing.shares[0])} → {formatShare(swing.shares[1])} (
            {swingText(swing.swing)}).
          </>
        )}{' '}
        {previousHref && <a href={previousHref}>Its page for {previous.label}</a>}
      </p>
      <DataTable
        scroll={`Since ${previous.label}`}
        class="data compact"
        caption={
          <>
            {swing.party}: seats and share of first preferences, {before} and now
          </>
        }
        text={['']}
        numeric={[before, 'Now', 'Change']}
        download={download}
      >
        <tr>
          <th scope="row">Seats</th>
          <Num>{formatNumber(swing.seats[0])}</Num>
          <Num>{formatNumber(swing.seats[1])}</Num>
          <Num>{seatChangeText(swing.seatChange)}</Num>
        </tr>
        <tr>
          <th scope="row">Share of first preferences</th>
          <Num>{formatShare(swing.shares[0])}</Num>
          <Num>{formatShare(swing.shares[1])}</Num>
          <Num>{swingText(swing.swing)}</Num>
        </tr>
      </DataTable>
    </section>
  );
}

export interface ConstituencyChangeProps {
  name: string;
  electionLabel: string;
  change: ConstituencyChange;
  constituencyHref: (ref: ConstituencyRef) => string;
  partyHref: (party: string) => string | null;
  download: TableDownload;
}

const listed = (items: ComponentChildren[]) =>
  items.map((item, i) => (
    <>
      {i > 0 ? (i === items.length - 1 ? ' and ' : ', ') : ''}
      {item}
    </>
  ));

/** Seats gained from and lost to other parties, with each party's swing; or why there is no comparison. */
export function ConstituencySince(props: ConstituencyChangeProps) {
  const { name, change, constituencyHref, download } = props;
  const previous = change.previous;
  if (!previous)
    return (
      <section aria-labelledby="since-title" id="since">
        <h2 id="since-title">Change since the election before</h2>
        <p>This is the first election loaded here: there is no earlier one to compare with.</p>
      </section>
    );
  const before = yearOf(previous.label);
  const link = (l: LinkedConstituency) => <a href={constituencyHref(l.constituency)}>{l.constituency.name}</a>;
  const compared = change.comparedWith;
  const others = change.predecessors.filter((l) => l.relation === 'from');
  if (!compared || !change.swing) {
    return (
      <section aria-labelledby="since-title" id="since">
        <h2 id="since-title">Since {previous.label}</h2>
        {change.predecessors.length === 0 ? (
          <p>
            The reviewed lineage of the constituencies does not say what {name} was in {before}, so there is no
            comparison.
          </p>
        ) : (
          <>
            <p>
              <strong>No comparison:</strong> {name} is new since {before}, its boundaries drawn from{' '}
              {listed(change.predecessors.map(link))}. A constituency with other boundaries had other voters, so its
              seats gained and lost, and its swing, would not mean what they say.
            </p>
            <Evidence links={change.predecessors} />
          </>
        )}
      </section>
    );
  }
  const swing = change.swing;
  const now = yearOf(props.electionLabel);
  const held = swing.parties.filter((p) => Math.min(p.seats[0], p.seats[1]) > 0);
  return (
    <section aria-labelledby="since-title" id="since">
      <h2 id="since-title">Since {previous.label}</h2>
      <p>
        {compared.relation === 'same' ? (
          <>
            {name} had the same boundaries in {before}
            {compared.constituency.name !== name ? ` (as ${compared.constituency.name})` : ''}.
          </>
        ) : (
          <>
            {name}'s boundaries were redrawn since {before}: it is compared with {link(compared)} as it was then
            {others.length > 0 ? <>, and took in part of {listed(others.map(link))}</> : ''}.
          </>
        )}{' '}
        {swing.gains.length === 0 && swing.losses.length === 0 ? (
          <strong>No seat changed party.</strong>
        ) : (
          <strong>
            {listed([
              ...swing.gains.map((g) => (g.from ? `${g.party} gain from ${g.from}` : `${g.party} won a new seat`)),
              ...swing.losses
                .filter((l) => l.to === null)
                .map((l) => `${l.party} lost a seat the constituency no longer has`),
            ])}
            .
          </strong>
        )}{' '}
        {held.length > 0 && (
          <>
            Held:{' '}
            {listed(
              held.map(
                (p) =>
                  `${p.party}${Math.min(p.seats[0], p.seats[1]) > 1 ? ` (${Math.min(p.seats[0], p.seats[1])})` : ''}`,
              ),
            )}
            .
          </>
        )}
      </p>
      {compared.relation !== 'same' && <Evidence links={[compared, ...others]} />}
      <DataTable
        scroll={`${name} since ${before}`}
        class="data party-table"
        id="change-table"
        caption={
          <>
            {name}: seats and share of first preferences by party, {before} and {now}
          </>
        }
        text={['Party']}
        numeric={[`Seats ${before}`, `Seats ${now}`, 'Change', `Share ${before}`, `Share ${now}`, 'Swing']}
        after={['Gain from, loss to']}
        download={download}
        foot={
          <>
            <th scope="row">All</th>
            <Num>{formatNumber(swing.seats[0])}</Num>
            <Num>{formatNumber(swing.seats[1])}</Num>
            <Num>{seatChangeText(swing.seats[1] - swing.seats[0])}</Num>
            <Num>100%</Num>
            <Num>100%</Num>
            <Num>–</Num>
            <td />
          </>
        }
      >
        {swing.parties.map((p) => {
          const href = props.partyHref(p.party);
          return (
            <tr>
              <th scope="row">
                {href ? (
                  <a href={href}>
                    <PartyChip party={p.party} />
                  </a>
                ) : (
                  <PartyChip party={p.party} />
                )}
              </th>
              <Num>{formatNumber(p.seats[0])}</Num>
              <Num>{formatNumber(p.seats[1])}</Num>
              <Num>{seatChangeText(p.seatChange)}</Num>
              <Num>{p.shares[0] === null ? 'no candidate' : formatShare(p.shares[0])}</Num>
              <Num>{p.shares[1] === null ? 'no candidate' : formatShare(p.shares[1])}</Num>
              <Num>{swingText(p.swing)}</Num>
              <td>{handsText(swing, p.party) || (p.seats[1] > 0 ? 'held' : '')}</td>
            </tr>
          );
        })}
      </DataTable>
    </section>
  );
}

/** The reviewed evidence of how a constituency was drawn. */
function Evidence({ links }: { links: LinkedConstituency[] }) {
  const unique = [...new Set(links.map((l) => l.evidence))];
  return (
    <details class="evidence">
      <summary>How the boundaries changed (the reviewed lineage)</summary>
      <ul>
        {unique.map((e) => (
          <li>{e}</li>
        ))}
      </ul>
    </details>
  );
}

/** The same constituency, or what it came from and became, at the other elections loaded. */
export function OtherElections({
  name,
  election,
  change,
  labels,
  constituencyHref,
}: {
  name: string;
  /** The election of the page, by dataset name. */
  election: string;
  change: ConstituencyChange;
  labels: Map<string, string>;
  constituencyHref: (ref: ConstituencyRef) => string;
}) {
  const label = (election: string) => labels.get(election) ?? election;
  const rows: { election: string; what: ComponentChildren }[] = [];
  const same = new Map(change.sameAt.map((r) => [r.election, r]));
  const before = change.predecessors;
  const after = change.successors;
  const order = [...labels.keys()];
  const here = order.indexOf(election);
  for (const other of order) {
    const at = same.get(other);
    const linked = [...before, ...after].filter((l) => l.constituency.election === other);
    const link = (r: ConstituencyRef) => <a href={constituencyHref(r)}>{r.name}</a>;
    if (at) {
      const renamed = at.name !== name;
      const parts = linked.filter((l) => l.relation === 'from');
      rows.push({
        election: other,
        what: (
          <>
            {link(at)}
            {renamed ? (order.indexOf(other) < here ? ' (its name then)' : ' (renamed)') : ''}
            {parts.length > 0 && (
              <>
                {before.includes(parts[0]!) ? '; it also took in part of ' : '; part of it went to '}
                {listed(parts.map((l) => link(l.constituency)))}
              </>
            )}
          </>
        ),
      });
    } else if (linked.length > 0) {
      rows.push({
        election: other,
        what: (
          <>
            {before.some((l) => l.constituency.election === other)
              ? 'Drawn from '
              : linked.length > 1
                ? 'Divided among '
                : 'Became part of '}
            {listed(linked.map((l) => link(l.constituency)))}
          </>
        ),
      });
    }
  }
  return (
    <section aria-labelledby="other-elections-title" id="other-elections">
      <h2 id="other-elections-title">{name} at the other elections</h2>
      {rows.length === 0 ? (
        <p>The reviewed lineage links {name} to no constituency of the other elections loaded.</p>
      ) : (
        <ul class="other-elections">
          {rows.map((r) => (
            <li>
              {label(r.election)}: {r.what}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export interface ElectedRow {
  name: string;
  personHref: string | null;
  party: string;
  partyHref: string | null;
  constituency: string;
  constituencyHref: string;
  /** The count elected on, and its page; null for the Ceann Comhairle returned automatically. */
  count: number | null;
  countHref: string | null;
  /** Place in the constituency's order of election. */
  order: number | null;
}

/** Every TD elected at an election, constituency by constituency. */
export function ElectedPage({
  label,
  rows,
  download,
  overviewHref,
}: {
  label: string;
  rows: ElectedRow[];
  download: TableDownload;
  overviewHref: string;
}) {
  const automatic = rows.filter((r) => r.count === null).length;
  return (
    <>
      <h1>Every TD elected, {label}</h1>
      <p class="lead">
        {plural(rows.length, 'TD')}, constituency by constituency in the order they were elected
        {automatic > 0 ? ', with the Ceann Comhairle returned automatically' : ''}.{' '}
        <a href={overviewHref}>The result at a glance</a>
      </p>
      <DataTable
        scroll={`Every TD elected, ${label}`}
        class="data elected-table"
        id="elected"
        caption={<>Every TD elected, {label}, by constituency</>}
        text={['TD', 'Party', 'Constituency']}
        numeric={['Elected on count']}
        download={download}
      >
        {rows.map((r) => (
          <tr>
            <th scope="row">{r.personHref ? <a href={r.personHref}>{r.name}</a> : r.name}</th>
            <td>{r.partyHref ? <a href={r.partyHref}>{r.party}</a> : r.party}</td>
            <td>
              <a href={r.constituencyHref}>{r.constituency}</a>
            </td>
            <Num>
              {r.count === null ? (
                'Returned automatically'
              ) : r.countHref ? (
                <a href={r.countHref}>{r.count}</a>
              ) : (
                formatNumber(r.count)
              )}
            </Num>
          </tr>
        ))}
      </DataTable>
    </>
  );
}
