// An election's own pages: its overview, the list of constituencies (sortable, turnout and quota at a glance), the
// party totals (seats, first preferences, seat share against vote share, women, quarter-quota passes) and a page per
// party with its candidates.

import type { ComponentChildren } from 'preact';
import type { CatalogResource } from '../../catalog/catalog.js';
import {
  compareText,
  displayName,
  isElectedResult,
  type Candidate,
  type Constituency,
  type Election,
  type House,
  type PartySwing,
  type PartyTotals,
} from '../../elections/index.js';
import type { FailedCheck } from '../checks-view.js';
import type { ChartDownload, TableDownload } from '../downloads.js';
import { formatDate, formatNumber, formatShare, formatSigned, plural } from '../format.js';
import type { MapTile } from '../tile-map.js';
import { DataTable, Fact, Figure, Ga, Num, PartyChip, PartyName, SortHead } from './layout.js';

export interface ElectionLinks {
  overview: string;
  constituencies: string;
  parties: string;
  transfers: string;
  constituency: (key: string) => string;
  party: (key: string) => string;
  resource: (id: string) => string;
}

export interface ElectionPageBase {
  label: string;
  date: string;
  body: string;
  /** Seats in the house and the Ceann Comhairle returned without a contest, where the catalogue says. */
  house: House;
  election: Election;
  links: ElectionLinks;
  resources: CatalogResource[];
  /** The consistency checks of first preferences against the valid poll, for a note where they do not add up. */
  checks: string | null;
}

function Problems({ problems }: { problems: string[] }) {
  if (problems.length === 0) return null;
  return (
    <div class="notice" role="note">
      <p>Some of this election's records could not be used:</p>
      <ul>
        {problems.slice(0, 10).map((p) => (
          <li>{p}</li>
        ))}
      </ul>
    </div>
  );
}

/** "160 (159 contested; the Ceann Comhairle, X, returned automatically in Y)", or the contested seats alone. */
export function seatsText(totals: Election['totals'], house: House): string {
  const cc = house.ceannComhairle;
  if (!cc) return formatNumber(house.seats ?? totals.seats);
  return `${formatNumber(totals.houseSeats)} (${formatNumber(totals.seats)} contested; the Ceann Comhairle, ${cc.name}, returned automatically in ${cc.constituency})`;
}

/** A party's seats as the Dáil had them: "38 (37 + the Ceann Comhairle)" where the Ceann Comhairle is among them. */
export function partySeatsText(p: Pick<PartyTotals, 'seats' | 'elected' | 'returnedAutomatically'>): string {
  return p.returnedAutomatically
    ? `${formatNumber(p.seats)} (${formatNumber(p.elected)} + the Ceann Comhairle)`
    : formatNumber(p.seats);
}

/** The same in a table's narrow column: "38*", the mark a link to the note that says "37 + the Ceann Comhairle". */
function SeatsCell({
  seats,
  elected,
  returnedAutomatically,
}: Pick<PartyTotals, 'seats' | 'elected' | 'returnedAutomatically'>) {
  if (!returnedAutomatically) return <Num>{formatNumber(seats)}</Num>;
  return (
    <Num>
      {formatNumber(seats)}
      <a
        href="#ceann-comhairle-note"
        class="footnote-mark"
        aria-label={`: ${formatNumber(elected)} at the count and the Ceann Comhairle (see the note)`}
      >
        *
      </a>
    </Num>
  );
}

/** The note beside every seat total that counts a Ceann Comhairle returned automatically; none where there was none. */
export function CeannComhairleNote({
  election,
  candidatesHref,
}: {
  election: Election;
  candidatesHref: string | null;
}) {
  const cc = election.house.ceannComhairle;
  if (!cc) return null;
  const t = election.totals;
  const party = election.parties.find((p) => p.returnedAutomatically > 0);
  return (
    <p class="note" role="note" id="ceann-comhairle-note">
      {party && cc.party ? (
        <>
          * {party.party}: {partySeatsText(party)}.{' '}
        </>
      ) : null}
      The outgoing Ceann Comhairle, {cc.name}, was returned automatically in {cc.constituency}, without a contest.
      {party && cc.party ? (
        <>
          {' '}
          Their seat is counted for {party.party}, the party they were elected for, as the Dáil and the media count it.
        </>
      ) : (
        <> Their party is not given, so their seat is a row of its own.</>
      )}{' '}
      Seat shares are of all {formatNumber(t.houseSeats)} seats. The official results count only the{' '}
      {formatNumber(t.seats)} seats filled at the count
      {candidatesHref ? (
        <>
          ; <a href={candidatesHref}>the candidate records</a> stay as published
        </>
      ) : null}
      .
    </p>
  );
}

/**
 * Where the candidates' first preferences do not add up to the official valid poll: by how much, and the checks that
 * say where.
 */
export function ShortfallNote({
  firstPreferences,
  validPoll,
  checks,
  where,
}: {
  firstPreferences: number;
  validPoll: number;
  checks: string | null;
  where: string;
}) {
  if (firstPreferences === validPoll) return null;
  const gap = Math.abs(validPoll - firstPreferences);
  return (
    <p class="note shortfall" role="note">
      The candidates' first preferences {where} add up to {formatNumber(firstPreferences)}, {formatNumber(gap)}{' '}
      {firstPreferences < validPoll ? 'fewer' : 'more'} than the official valid poll of {formatNumber(validPoll)}: the
      source does not add up
      {checks ? (
        <>
          , and <a href={checks}>the consistency checks</a> say where
        </>
      ) : (
        ''
      )}
      . Shares of the vote are of the first preferences.
    </p>
  );
}

export function ElectionOverview({
  label,
  date,
  body,
  election,
  links,
  resources,
  house,
  checks,
  headline,
  map,
  electedHref,
  failed,
}: ElectionPageBase & {
  headline: ComponentChildren;
  map: ComponentChildren;
  electedHref: string;
  failed: readonly FailedCheck[];
}) {
  const t = election.totals;
  const national = failed.filter((f) => !f.constituency && f.check !== 'first-preferences');
  return (
    <>
      <h1>{label}</h1>
      <p class="lead">
        Polling day {formatDate(date)}, electing the {body}.
      </p>
      <Problems problems={election.data.problems} />
      {headline}
      {national.map((f) => (
        <p class="note" role="note">
          The source does not add up: the check "{f.check}" expected {formatNumber(f.expected)} and found{' '}
          {formatNumber(f.actual)}. {f.href && <a href={f.href}>See the consistency check</a>}.
        </p>
      ))}
      <h2>The election in figures</h2>
      <dl class="facts">
        <Fact term="Seats">{seatsText(t, house)}</Fact>
        <Fact term="Constituencies">{formatNumber(t.constituencies)}</Fact>
        <Fact term="Candidates">{formatNumber(t.candidates)}</Fact>
        <Fact term="Women candidates">
          {formatNumber(t.women)}
          {t.womenSource && (
            <span class="hint"> (the official statistics; the candidates' records give no gender)</span>
          )}
        </Fact>
        <Fact term="Women elected">{formatNumber(t.womenElected)}</Fact>
        <Fact term="Electorate">{formatNumber(t.electorate)}</Fact>
        <Fact term="Turnout">{formatShare(t.turnout)}</Fact>
        <Fact term="Valid poll">{formatNumber(t.validPoll)}</Fact>
      </dl>
      <ShortfallNote
        firstPreferences={election.parties.reduce((sum, p) => sum + p.firstPreferences, 0)}
        validPoll={t.validPoll}
        checks={checks}
        where="of the whole country"
      />
      <ul class="big-links">
        <li>
          <a href={electedHref}>Every TD elected</a>: {formatNumber(t.houseSeats)}, constituency by constituency
        </li>
        <li>
          <a href={links.constituencies}>The {t.constituencies} constituencies</a>: each count, transfer by transfer
        </li>
        <li>
          <a href={links.parties}>Party totals</a>: seats, votes, seat share against vote share
        </li>
        {election.hasCounts && (
          <li>
            <a href={links.transfers}>Transfers</a>: where each party's transfers went, nationally and in each
            constituency
          </li>
        )}
      </ul>
      {map}
      <h2>The data</h2>
      <ul>
        {resources.map((r) => (
          <li>
            <a href={links.resource(r.id)}>{r.definition.name}</a> ({plural(r.total, 'record')})
          </li>
        ))}
      </ul>
    </>
  );
}

/** The tile map of the country, with its figures as a table. */
export function TileMap({
  label,
  tiles,
  unplaced,
  svg,
  constituencyHref,
  api,
  downloads,
}: {
  label: string;
  tiles: readonly MapTile[];
  unplaced: readonly string[];
  svg: string;
  constituencyHref: (key: string) => string;
  api: string;
  downloads: ChartDownload;
}) {
  const sorted = [...tiles].sort((a, b) => compareText(a.constituency.name, b.constituency.name));
  return (
    <section aria-labelledby="map-title">
      <h2 id="map-title">A picture of the country</h2>
      <Figure
        id="map"
        title="The largest party in each constituency."
        caption={
          <>
            A tile per constituency, placed roughly as on a map (Dublin drawn large), coloured by the party with the
            largest share of first preferences there: the darker, the larger its share. Each tile names the
            constituency, the party and its share.
          </>
        }
        svg={svg}
        api={api}
        downloads={downloads}
        data={
          <DataTable
            class="data compact"
            caption={<>The largest party by first preferences in each constituency, {label}</>}
            text={['Constituency']}
            numeric={['Seats']}
            after={['Largest party', 'Its share']}
          >
            {sorted.map((t) => (
              <tr>
                <th scope="row">
                  <a href={constituencyHref(t.constituency.key)}>{t.constituency.name}</a>
                </th>
                <Num>{formatNumber(t.seats)}</Num>
                <td>
                  <PartyChip party={t.party} />
                </td>
                <td class="num">{formatShare(t.share)}</td>
              </tr>
            ))}
          </DataTable>
        }
      />
      {unplaced.length > 0 && (
        <p class="note" role="note">
          The reviewed tile layout places no tile for {unplaced.join(', ')}; the table has every constituency.
        </p>
      )}
    </section>
  );
}

export const CONSTITUENCY_SORTS: Record<
  string,
  { label: string; value: (c: Constituency, e: Election) => number | string | null; numeric: boolean }
> = {
  name: { label: 'Constituency', value: (c) => c.name, numeric: false },
  seats: { label: 'Seats', value: (c) => c.seats + c.returnedAutomatically, numeric: true },
  candidates: { label: 'Candidates', value: (c, e) => e.candidates(c.key).length, numeric: true },
  electorate: { label: 'Electorate', value: (c) => c.electorate, numeric: true },
  turnout: {
    label: 'Turnout',
    value: (c) => (c.electorate && c.totalPoll !== null ? c.totalPoll / c.electorate : null),
    numeric: true,
  },
  spoiled: {
    label: 'Spoiled',
    value: (c) => (c.totalPoll && c.spoiled !== null ? c.spoiled / c.totalPoll : null),
    numeric: true,
  },
  quota: { label: 'Quota', value: (c) => c.quota, numeric: true },
  counts: {
    label: 'Counts',
    value: (c, e) => c.counts ?? (e.hasCounts ? e.sheet(c.key)!.steps.length : null),
    numeric: true,
  },
};

export function sortConstituencies(election: Election, key: string, descending: boolean): Constituency[] {
  const spec = CONSTITUENCY_SORTS[key] ?? CONSTITUENCY_SORTS.name!;
  const list = [...election.constituencies];
  list.sort((a, b) => {
    const x = spec.value(a, election);
    const y = spec.value(b, election);
    let order: number;
    if (x === null || y === null) order = x === null ? (y === null ? 0 : 1) : -1;
    else order = typeof x === 'string' ? compareText(x, String(y)) : (x as number) - (y as number);
    if (x !== null && y !== null && descending) order = -order;
    return order || compareText(a.name, b.name);
  });
  return list;
}

export function ConstituencyList({
  label,
  election,
  links,
  sortKey,
  descending,
  api,
  download,
}: ElectionPageBase & { sortKey: string; descending: boolean; api: string | null; download: TableDownload }) {
  const list = sortConstituencies(election, sortKey, descending);
  const header = (key: string) => {
    const spec = CONSTITUENCY_SORTS[key]!;
    const active = key === sortKey;
    const nextDescending = active ? !descending : spec.numeric;
    const href = `${links.constituencies}?sort=${nextDescending ? '-' : ''}${key}#list`;
    const state = active ? (descending ? 'descending' : 'ascending') : null;
    return (
      <SortHead
        label={spec.label}
        numeric={spec.numeric}
        state={state}
        href={href}
        action={`sort ${nextDescending ? 'descending' : 'ascending'}`}
      />
    );
  };
  // The sorted column comes next to the constituency's name, so that both are in view on a phone.
  const columns = ['nameGa', 'seats', 'candidates', 'electorate', 'turnout', 'spoiled', 'quota', 'counts'];
  if (sortKey !== 'name') {
    columns.splice(columns.indexOf(sortKey), 1);
    columns.unshift(sortKey);
  }
  const cell = (key: string, c: Constituency) => {
    const value = (k: string) => CONSTITUENCY_SORTS[k]!.value(c, election) as number | null;
    switch (key) {
      case 'nameGa':
        return <td>{c.nameGa ? <Ga>{c.nameGa}</Ga> : '–'}</td>;
      case 'seats':
        return (
          <Num>
            {c.returnedAutomatically ? (
              <>
                {formatNumber(c.seats + c.returnedAutomatically)}
                <a
                  href="#ceann-comhairle-note"
                  class="footnote-mark"
                  aria-label={`${c.seats} contested and the Ceann Comhairle: see the note`}
                >
                  *
                </a>
              </>
            ) : (
              formatNumber(c.seats)
            )}
          </Num>
        );
      case 'turnout':
      case 'spoiled':
        return <Num>{formatShare(value(key))}</Num>;
      default:
        return <Num>{formatNumber(value(key))}</Num>;
    }
  };
  return (
    <>
      <h1>Constituencies, {label}</h1>
      <Problems problems={election.data.problems} />
      <p class="lead">
        {plural(list.length, 'constituency', 'constituencies')}. Choose one for its count, transfer by transfer.
      </p>
      <div id="list" tabindex={-1}>
        <DataTable
          scroll="Constituencies"
          download={download}
          class="data"
          caption={
            <>
              Constituencies of the {label}, sorted by {CONSTITUENCY_SORTS[sortKey]!.label.toLowerCase()}{' '}
              {descending ? 'descending' : 'ascending'}
            </>
          }
          head={
            <>
              {header('name')}
              {columns.map((key) => (key === 'nameGa' ? <th scope="col">Irish name</th> : header(key)))}
            </>
          }
        >
          {list.map((c) => (
            <tr>
              <th scope="row">
                <a href={links.constituency(c.key)}>{c.name}</a>
              </th>
              {columns.map((key) => cell(key, c))}
            </tr>
          ))}
        </DataTable>
      </div>
      {election.house.ceannComhairle && list.some((c) => c.returnedAutomatically) && (
        <p class="note" role="note" id="ceann-comhairle-note">
          * Seats as the Dáil had them: {election.house.ceannComhairle.constituency}'s count filled the seats contested,
          and the outgoing Ceann Comhairle, {election.house.ceannComhairle.name}, was returned there automatically in
          one more. Its quota is of the seats contested.
        </p>
      )}
      {api && (
        <p>
          <a href={api} rel="nofollow">
            These constituencies' records as JSON, from the API
          </a>
        </p>
      )}
    </>
  );
}

export function PartyTotalsPage({
  label,
  election,
  links,
  api,
  chart,
  narrowChart,
  candidatesHref,
  checks,
  swings,
  previous,
  downloads,
}: ElectionPageBase & {
  api: string;
  chart: string;
  narrowChart: string;
  candidatesHref: string | null;
  /** Each party's change since the election before, and that election's label (null for the first). */
  swings: readonly PartySwing[];
  previous: string | null;
  downloads: { parties: TableDownload; shares: ChartDownload };
}) {
  const parties = election.parties;
  const t = election.totals;
  const cc = election.house.ceannComhairle;
  const before = previous ? (/\b(\d{4})$/.exec(previous)?.[1] ?? previous) : null;
  const swingOf = (p: PartyTotals) => swings.find((s) => s.keys[1] === p.key) ?? null;
  return (
    <>
      <h1>Party totals, {label}</h1>
      <Problems problems={election.data.problems} />
      <p class="lead">
        {cc ? (
          <>
            {plural(t.houseSeats, 'seat')}: {formatNumber(t.elected)} filled at the count from{' '}
            {plural(t.candidates, 'candidate')}, and the Ceann Comhairle returned automatically
          </>
        ) : (
          <>
            {plural(t.elected, 'seat')} filled from {plural(t.candidates, 'candidate')}
          </>
        )}
        ; {formatNumber(t.validPoll)} valid first-preference votes.
      </p>
      <DataTable
        scroll="Party totals"
        class="data party-table party-totals"
        id="party-totals"
        caption={<>Party totals, {label}, by first-preference votes</>}
        text={['Party']}
        numeric={[
          'Seats',
          ...(before ? [`Seats since ${before}`] : []),
          'First preferences',
          'Vote share',
          ...(before ? [`Swing since ${before}`] : []),
          'Seat share',
          'Seats compared with votes',
          'Candidates',
          'Women candidates',
          'Women elected',
          'Won back expenses',
        ]}
        download={downloads.parties}
        foot={
          <>
            <th scope="row">All</th>
            <SeatsCell seats={t.houseSeats} elected={t.elected} returnedAutomatically={t.returnedAutomatically} />
            {before && <Num>–</Num>}
            <Num>{formatNumber(parties.reduce((s, p) => s + p.firstPreferences, 0))}</Num>
            <Num>100%</Num>
            {before && <Num>–</Num>}
            <Num>100%</Num>
            <Num>–</Num>
            <Num>{formatNumber(t.candidates)}</Num>
            <Num>{formatNumber(t.women)}</Num>
            <Num>{formatNumber(t.womenElected)}</Num>
            <Num>{formatNumber(parties.reduce((s, p) => s + p.reachedQuarterQuota, 0))}</Num>
          </>
        }
      >
        {parties.map((p) => {
          const swing = swingOf(p);
          return (
            <tr>
              <th scope="row">
                <PartyName party={p.party} abbreviation={p.abbreviation} href={links.party(p.key)} />
              </th>
              <SeatsCell {...p} />
              {before && (
                <Num>
                  {!swing
                    ? '–'
                    : swing.stood === 'later only'
                      ? 'new'
                      : swing.seatChange === 0
                        ? '0'
                        : formatSigned(swing.seatChange)}
                </Num>
              )}
              <Num>{formatNumber(p.firstPreferences)}</Num>
              <Num>{formatShare(p.voteShare)}</Num>
              {before && (
                <Num>{!swing ? '–' : swing.stood === 'later only' ? 'new' : formatSigned(swing.swing, 1, ' pts')}</Num>
              )}
              <Num>{formatShare(p.seatShare)}</Num>
              <Num>{formatSigned((p.seatShare - p.voteShare) * 100, 1, ' pts')}</Num>
              <Num>{formatNumber(p.candidates)}</Num>
              <Num>{formatNumber(p.women)}</Num>
              <Num>{formatNumber(p.womenElected)}</Num>
              <Num>{formatNumber(p.reachedQuarterQuota)}</Num>
            </tr>
          );
        })}
      </DataTable>
      <CeannComhairleNote election={election} candidatesHref={candidatesHref} />
      <ShortfallNote
        firstPreferences={parties.reduce((sum, p) => sum + p.firstPreferences, 0)}
        validPoll={t.validPoll}
        checks={checks}
        where="of all parties"
      />
      <ul class="hint">
        {before && (
          <li>
            Seats since {before} and swing since {before}: the change from the {previous}, in seats and in percentage
            points (pts) of first preferences, from the unrounded shares; "new" for a party that did not stand then.
          </li>
        )}
        <li>
          Seats compared with votes: the party's share of the seats less its share of first preferences, in percentage
          points. Above zero, the count gave it more seats than its votes alone would.
        </li>
        <li>
          Won back expenses: candidates whose votes passed a quarter of their constituency's quota at some count, which
          entitles them to recover election expenses and a deposit.
        </li>
      </ul>
      <Figure
        id="shares"
        title="Vote share and seat share."
        caption={
          <>
            Each party's share of first-preference votes (circle) and of the seats (diamond), in percent. Parties to the
            right of their circle won more seats than their votes alone would give.
          </>
        }
        svg={chart}
        narrowSvg={narrowChart}
        api={api}
        downloads={downloads.shares}
        data={<SharesTable parties={parties} />}
      />
    </>
  );
}

function SharesTable({ parties }: { parties: readonly PartyTotals[] }) {
  return (
    <DataTable
      class="data compact"
      caption="Vote share and seat share by party"
      text={['Party']}
      numeric={['Vote share', 'Seat share']}
    >
      {parties.map((p) => (
        <tr>
          <th scope="row">{p.party}</th>
          <Num>{formatShare(p.voteShare)}</Num>
          <Num>{formatShare(p.seatShare)}</Num>
        </tr>
      ))}
    </DataTable>
  );
}

export function PartyPage({
  label,
  election,
  links,
  party,
  api,
  table,
  candidates,
  electedAt,
  download,
  since,
}: ElectionPageBase & {
  party: PartyTotals;
  api: string;
  table: string;
  /** The party's candidates, in the order shown, and the count each was elected on. */
  candidates: readonly Candidate[];
  electedAt: (c: Candidate) => number | null;
  download: TableDownload;
  /** The party's figures against the election before. */
  since: ComponentChildren;
}) {
  const byConstituency = new Map(election.constituencies.map((c) => [c.key, c]));
  return (
    <>
      <h1>
        <PartyChip party={party.party} />
      </h1>
      <p class="lead">
        {label}: {plural(party.candidates, 'candidate')}, {plural(party.seats, 'seat')}
        {party.returnedAutomatically
          ? ` (${formatNumber(party.elected)} won at the count and the Ceann Comhairle returned automatically)`
          : ' won'}
        , {formatShare(party.voteShare)} of first preferences.
      </p>
      {party.returnedAutomatically > 0 && <CeannComhairleNote election={election} candidatesHref={null} />}
      {party.counting && (
        <p class="note" role="note" id="how-counted">
          How this row is counted: {party.counting}
          {party.labels && <> The records' own labels it counts: {party.labels.join(', ')}.</>}
        </p>
      )}
      <dl class="facts">
        <Fact term="Seats">{partySeatsText(party)}</Fact>
        <Fact term="First preferences">{formatNumber(party.firstPreferences)}</Fact>
        <Fact term="Vote share">{formatShare(party.voteShare)}</Fact>
        <Fact term="Seat share">{formatShare(party.seatShare)}</Fact>
        <Fact term="Seats compared with votes">
          {formatSigned((party.seatShare - party.voteShare) * 100, 1, ' points')}
        </Fact>
        <Fact term="Candidates">{formatNumber(party.candidates)}</Fact>
        <Fact term="Women candidates">{formatNumber(party.women)}</Fact>
        <Fact term="Women elected">{formatNumber(party.womenElected)}</Fact>
        <Fact term="Won back expenses">{formatNumber(party.reachedQuarterQuota)}</Fact>
      </dl>
      {since}
      <h2>Candidates</h2>
      <DataTable
        scroll={`Candidates of ${party.party}`}
        id="candidates"
        class="data"
        caption={
          <>
            Candidates of {party.party}, {label}, by constituency
          </>
        }
        text={['Candidate', 'Constituency']}
        numeric={['First preferences', 'Share of valid poll', 'Quotas']}
        after={['Result']}
        download={download}
      >
        {candidates.map((c) => {
          const constituency = byConstituency.get(c.constituencyKey)!;
          const at = electedAt(c);
          return (
            <tr>
              <th scope="row">
                {displayName(c.firstName)} {displayName(c.surname)}
              </th>
              <td>
                <a href={links.constituency(c.constituencyKey)}>{constituency.name}</a>
              </td>
              <Num>{formatNumber(c.firstPreferences)}</Num>
              <Num>{formatShare(constituency.validPoll ? c.firstPreferences / constituency.validPoll : null)}</Num>
              <Num>{(c.firstPreferences / constituency.quota).toFixed(2)}</Num>
              <td>{isElectedResult(c.result) ? `Elected${at ? ` on count ${at}` : ''}` : c.result || 'Not elected'}</td>
            </tr>
          );
        })}
      </DataTable>
      <p>
        <a href={table}>These candidates in the candidates table</a> ·{' '}
        <a href={api} rel="nofollow">
          as JSON, from the API
        </a>{' '}
        · <a href={links.parties}>All parties</a>
      </p>
    </>
  );
}
