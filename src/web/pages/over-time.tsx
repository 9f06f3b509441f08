// Every election at once: each party's seats (as the Dáil had them), first-preference share and candidates from the
// first election loaded to the last, as tables a phone can read and charts drawn on the server.

import type { ElectionsOverTime, PartyLine, PartyTotals } from '../../elections/index.js';
import { formatNumber, formatShare } from '../format.js';
import { DataTable, Figure, Num, PartyName as PartyLabel } from './layout.js';

export interface OverTimeProps {
  overTime: ElectionsOverTime;
  /** Each election's page, in the order of `overTime.elections`. */
  electionHref: string[];
  partyHref: (election: number, key: string) => string;
  /** Where an election's first preferences do not add up to its valid poll: the difference and its checks. */
  shortfalls: { label: string; firstPreferences: number; validPoll: number; checks: string | null }[];
  charts: { seats: ChartPair; shares: ChartPair };
  api: string;
}

export interface ChartPair {
  wide: string;
  narrow: string;
}

type Measure = { id: string; title: string; caption: string; value: (t: PartyTotals) => string; mark?: boolean };

/** Parties shown: those that won a seat or 1 % of the vote somewhere; the others are listed below them. */
export function isMajorLine(line: PartyLine): boolean {
  return line.totals.some((t) => t !== null && (t.seats > 0 || t.voteShare >= 0.01));
}

export function OverTimePage({ overTime, electionHref, partyHref, shortfalls, charts, api }: OverTimeProps) {
  const { elections, parties } = overTime;
  const first = elections[0]?.label ?? '';
  const last = elections.at(-1)?.label ?? '';
  const major = parties.filter(isMajorLine);
  const minor = parties.filter((p) => !isMajorLine(p));
  const withCeannComhairle = elections.filter((e) => e.house.ceannComhairle);
  const measures: Measure[] = [
    {
      id: 'seats',
      title: 'Seats',
      caption: 'as the Dáil had them: the Ceann Comhairle returned automatically counts for their party (*)',
      value: (t) => formatNumber(t.seats),
      mark: true,
    },
    {
      id: 'shares',
      title: 'First-preference share',
      caption: 'of all first-preference votes',
      value: (t) => formatShare(t.voteShare),
    },
    { id: 'candidates', title: 'Candidates', caption: 'who stood', value: (t) => formatNumber(t.candidates) },
  ];
  const years = elections.map((e) => e.label.replace(/^General Election /, ''));
  return (
    <>
      <h1>Elections over time</h1>
      <p class="lead">
        Every party's seats, share of the first-preference vote and candidates at the {elections.length} general
        elections loaded, {first} to {last}. {major.length} parties won a seat or 1% of the vote in at least one of
        them.
      </p>
      <nav class="jump" aria-label="On this page">
        <ul>
          {measures.map((m) => (
            <li>
              <a href={`#${m.id}-table`}>{m.title}</a>
            </li>
          ))}
          <li>
            <a href="#seats-chart">Charts</a>
          </li>
        </ul>
      </nav>
      {measures.map((m) => (
        <section aria-labelledby={`${m.id}-table-title`} id={`${m.id}-table`}>
          <h2 id={`${m.id}-table-title`}>{m.title}</h2>
          <DataTable
            scroll={`${m.title} by party and election`}
            class="data over-time"
            caption={
              <>
                {m.title} by party, {first} to {last}: {m.caption}
              </>
            }
            head={
              <>
                <th scope="col">Party</th>
                {elections.map((e, i) => (
                  <th scope="col" class="num">
                    <a href={electionHref[i]} aria-label={e.label}>
                      {years[i]}
                    </a>
                  </th>
                ))}
              </>
            }
            foot={
              m.id !== 'shares' && (
                <>
                  <th scope="row">All parties</th>
                  {elections.map((e) => (
                    <Num>{formatNumber(m.id === 'seats' ? e.totals.houseSeats : e.totals.candidates)}</Num>
                  ))}
                </>
              )
            }
          >
            {major.map((line) => (
              <tr>
                <th scope="row">
                  <PartyName line={line} partyHref={partyHref} />
                </th>
                {line.totals.map((t) =>
                  t === null ? (
                    <Num>
                      <span aria-label="did not stand">–</span>
                    </Num>
                  ) : (
                    <Num>
                      {m.value(t)}
                      {m.mark && t.returnedAutomatically > 0 && (
                        <a
                          href="#ceann-comhairle-note"
                          class="footnote-mark"
                          aria-label={`: ${formatNumber(t.elected)} at the count and the Ceann Comhairle (see the note)`}
                        >
                          *
                        </a>
                      )}
                    </Num>
                  ),
                )}
              </tr>
            ))}
          </DataTable>
        </section>
      ))}
      {withCeannComhairle.length > 0 && (
        <p class="note" role="note" id="ceann-comhairle-note">
          * Seats as the Dáil had them: the outgoing Ceann Comhairle, returned automatically without a contest, is
          counted for the party they were elected for (
          {withCeannComhairle.map((e, i) => (
            <>
              {i > 0 ? '; ' : ''}
              {e.label.replace(/^General Election /, '')}: {e.house.ceannComhairle!.name}
              {e.house.ceannComhairle!.party ? `, ${e.house.ceannComhairle!.party}` : ''}
            </>
          ))}
          ). The official results count only the seats filled at the count.
        </p>
      )}
      {shortfalls.map((s) => (
        <p class="note" role="note">
          {s.label}: the candidates' first preferences add up to {formatNumber(s.firstPreferences)},{' '}
          {formatNumber(Math.abs(s.validPoll - s.firstPreferences))}{' '}
          {s.firstPreferences < s.validPoll ? 'fewer' : 'more'} than the official valid poll of{' '}
          {formatNumber(s.validPoll)}; shares are of the first preferences.
          {s.checks && (
            <>
              {' '}
              <a href={s.checks}>The consistency checks say where.</a>
            </>
          )}
        </p>
      ))}
      {parties.some((p) => p.lineage.length > 0) && (
        <p class="hint">
          Renamed parties are one line:{' '}
          {parties
            .filter((p) => p.lineage.length > 0)
            .map(
              (p) =>
                `${p.party} (${p.totals
                  .filter((t) => t)
                  .map((t) => t!.party)
                  .filter((n, i, a) => a.indexOf(n) === i)
                  .join(', then ')})`,
            )
            .join('; ')}
          . Other parties are matched by name, ignoring fadas, case and a leading "The", or by abbreviation.
        </p>
      )}
      {minor.length > 0 && (
        <details>
          <summary>{minor.length} smaller parties (no seat, under 1% in every election)</summary>
          <ul class="minor-parties">
            {minor.map((line) => (
              <li>
                <PartyName line={line} partyHref={partyHref} />:{' '}
                {line.totals
                  .map((t, i) => (t ? `${years[i]} ${formatNumber(t.firstPreferences)} votes` : null))
                  .filter(Boolean)
                  .join(', ')}
              </li>
            ))}
          </ul>
        </details>
      )}
      <Figure
        id="seats-chart"
        title="Seats, election by election."
        caption={
          <>
            Seats won by each party that won a seat, {first} to {last}, as the Dáil had them.
          </>
        }
        svg={charts.seats.wide}
        narrowSvg={charts.seats.narrow}
        api={api}
        data={<a href="#seats-table">The seats table above</a>}
      />
      <Figure
        id="shares-chart"
        title="First-preference share, election by election."
        caption={<>Each party's share of the first-preference vote, in percent, for the parties that won a seat.</>}
        svg={charts.shares.wide}
        narrowSvg={charts.shares.narrow}
        api={api}
        data={<a href="#shares-table">The share table above</a>}
      />
    </>
  );
}

function PartyName({ line, partyHref }: { line: PartyLine; partyHref: (election: number, key: string) => string }) {
  const latest = line.totals.findLastIndex((t) => t !== null);
  return (
    <PartyLabel
      party={line.party}
      abbreviation={line.abbreviation}
      href={partyHref(latest, line.totals[latest]!.key)}
    />
  );
}
