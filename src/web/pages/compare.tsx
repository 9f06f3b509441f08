// Two elections compared: turnout and seats, party vote shares and seats with their changes, and constituencies
// matched by name, with the ones that exist in only one of them (boundaries redrawn) or changed seats flagged.

import type { ComponentChildren } from 'preact';
import type { Comparison, ElectionSummary, ElectionTotals } from '../../elections/index.js';
import type { downloadsUnder } from '../downloads.js';
import { formatNumber, formatShare, formatSigned } from '../format.js';
import { DataTable, Figure, Num, PartyName } from './layout.js';

type Downloads = ReturnType<typeof downloadsUnder>;

/** An election's label as a column heading: its year where the label ends in one ("General Election 2020" → 2020). */
const short = (label: string) => /\b(\d{4})$/.exec(label)?.[1] ?? label;

type ComparedParty = Comparison['parties'][number];

/** The whole country's figures, compared side by side: each row's name and its value in an election. */
const OVERALL_ROWS: readonly [string, (totals: ElectionTotals) => string][] = [
  ['Seats', (t) => formatNumber(t.houseSeats)],
  ['Constituencies', (t) => formatNumber(t.constituencies)],
  ['Candidates', (t) => formatNumber(t.candidates)],
  ['Women candidates', (t) => formatNumber(t.women)],
  ['Turnout', (t) => formatShare(t.turnout)],
  ['Valid poll', (t) => formatNumber(t.validPoll)],
];

export interface CompareChoice {
  name: string;
  label: string;
}

export interface ComparePageProps {
  choices: CompareChoice[];
  earlier: string;
  later: string;
  comparison: Comparison | null;
  constituencyHref: (election: 0 | 1, key: string) => string;
  partyHref: (election: 0 | 1, key: string) => string;
  api: string;
  /** The change in vote share, as an SVG chart. */
  chart: string | null;
  /** Where the comparison's tables and chart are taken away. */
  downloads: Downloads | null;
}

const STATUS_TEXT = {
  same: 'Same name and seats',
  seats: 'Seats changed',
  'only-earlier': 'Only in the earlier election (abolished or redrawn)',
  'only-later': 'Only in the later election (new or redrawn)',
} as const;

/** One of the two elections to compare, chosen from the list. */
function ElectionChoice(props: { name: string; label: string; choices: CompareChoice[]; chosen: string | null }) {
  return (
    <div>
      <label for={props.name}>{props.label}</label>
      <select id={props.name} name={props.name}>
        {props.choices.map((c) => (
          <option value={c.name} selected={c.name === props.chosen}>
            {c.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function ComparePage({
  choices,
  earlier,
  later,
  comparison,
  constituencyHref,
  partyHref,
  api,
  chart,
  downloads,
}: ComparePageProps) {
  return (
    <>
      <h1>Compare elections</h1>
      <form method="get" action="/compare" class="compare-form">
        <ElectionChoice name="earlier" label="Earlier election" choices={choices} chosen={earlier} />
        <ElectionChoice name="later" label="Later election" choices={choices} chosen={later} />
        <button type="submit">Compare</button>
      </form>
      {!comparison || !downloads ? (
        <p>Choose two different elections.</p>
      ) : (
        <CompareBody
          comparison={comparison}
          constituencyHref={constituencyHref}
          partyHref={partyHref}
          api={api}
          chart={chart ?? ''}
          downloads={downloads}
        />
      )}
    </>
  );
}

/** Seats with a mark where they count a Ceann Comhairle returned automatically, explained by the note below. */
function seatsCell(seats: number | null, withCeannComhairle: boolean) {
  if (!withCeannComhairle) return formatNumber(seats);
  return (
    <>
      {formatNumber(seats)}
      <a href="#ceann-comhairle-note" class="footnote-mark" aria-label="including the Ceann Comhairle: see the note">
        *
      </a>
    </>
  );
}

/** A table of the parties compared: each party's figure in the two elections, then the change. */
function PartiesCompared({
  label,
  id,
  caption,
  a,
  b,
  parties,
  partyHref,
  cells,
  downloads,
}: Pick<ComparePageProps, 'partyHref'> & {
  downloads: Downloads;
  label: string;
  id: string;
  caption: string;
  a: ElectionSummary;
  b: ElectionSummary;
  parties: readonly ComparedParty[];
  cells: (party: ComparedParty) => ComponentChildren[];
}) {
  return (
    <DataTable
      scroll={label}
      class="data compare-table"
      id={id}
      caption={caption}
      text={['Party']}
      numeric={[short(a.label), short(b.label), 'Change']}
      download={downloads.table(id, label.toLowerCase())}
    >
      {parties.map((p) => (
        <tr>
          <th scope="row">
            <PartyName
              party={p.party}
              abbreviation={p.abbreviation}
              href={partyHref(p.keys[1] ? 1 : 0, (p.keys[1] ?? p.keys[0])!)}
            />
          </th>
          {cells(p).map((cell) => (
            <Num>{cell}</Num>
          ))}
        </tr>
      ))}
    </DataTable>
  );
}

function CeannComhairleNote({ a, b }: { a: ElectionSummary; b: ElectionSummary }) {
  const named = [a, b].filter((e) => e.house.ceannComhairle);
  if (named.length === 0) return null;
  return (
    <p class="note" role="note" id="ceann-comhairle-note">
      * Seats as the Dáil had them: the outgoing Ceann Comhairle, returned automatically without a contest, is counted
      for the party they were elected for (
      {named.map((e, i) => {
        const cc = e.house.ceannComhairle!;
        return (
          <>
            {i > 0 ? '; ' : ''}
            {e.label}: {cc.name}
            {cc.party ? `, ${cc.party}` : ''}
          </>
        );
      })}
      ). The official results count only the seats filled at the count.
    </p>
  );
}

function CompareBody({
  comparison,
  constituencyHref,
  partyHref,
  api,
  chart,
  downloads,
}: Pick<ComparePageProps, 'constituencyHref' | 'partyHref' | 'api'> & {
  comparison: Comparison;
  chart: string;
  downloads: Downloads;
}) {
  const { earlier: a, later: b } = comparison;
  const label = `${a.label} to ${b.label}`;
  const redrawn = comparison.constituencies.filter(
    (c) => c.status === 'only-earlier' || c.status === 'only-later',
  ).length;
  return (
    <>
      <section aria-labelledby="overall-title">
        <h2 id="overall-title">Overall</h2>
        <DataTable
          scroll="The whole country compared"
          download={downloads.table('overall', 'the whole country compared')}
          class="data compact"
          caption={<>{label}: the whole country</>}
          text={['']}
          numeric={[a.label, b.label]}
        >
          {OVERALL_ROWS.map(([name, value]) => (
            <tr>
              <th scope="row">{name}</th>
              <Num>{value(a.totals)}</Num>
              <Num>{value(b.totals)}</Num>
            </tr>
          ))}
        </DataTable>
      </section>

      <section aria-labelledby="parties-title">
        <h2 id="parties-title">Parties</h2>
        <p class="hint">
          Parties are matched by name (ignoring fadas, case and a leading "The") or by abbreviation; a party that stood
          in only one election has no change.
        </p>
        <PartiesCompared
          label="Vote share by party, compared"
          id="shares-compared"
          caption={`First-preference vote share by party, ${label}; the change in percentage points`}
          a={a}
          b={b}
          parties={comparison.parties}
          partyHref={partyHref}
          downloads={downloads}
          cells={(p) => [formatShare(p.voteShare[0]), formatShare(p.voteShare[1]), formatSigned(p.shareChange, 1)]}
        />
        <PartiesCompared
          label="Seats by party, compared"
          id="seats-compared"
          caption={`Seats by party, ${label}`}
          a={a}
          b={b}
          parties={comparison.parties.filter((p) => (p.seats[0] ?? 0) > 0 || (p.seats[1] ?? 0) > 0)}
          partyHref={partyHref}
          downloads={downloads}
          cells={(p) => [
            seatsCell(p.seats[0], p.ceannComhairle[0]),
            seatsCell(p.seats[1], p.ceannComhairle[1]),
            formatSigned(p.seatChange),
          ]}
        />
        <p class="hint">Parties that won no seat in either election are in the vote share table only.</p>
        <CeannComhairleNote a={a} b={b} />
        <Figure
          id="share-change"
          title="Change in vote share."
          caption={<>Percentage points gained or lost by each party that stood in both elections, {label}.</>}
          svg={chart}
          api={api}
          downloads={downloads.chart('share-change', 'the change in vote share')}
          data={
            <DataTable
              class="data compact"
              caption="Change in vote share by party (percentage points)"
              text={['Party']}
              numeric={['Change']}
            >
              {comparison.parties
                .filter((p) => p.shareChange !== null)
                .map((p) => (
                  <tr>
                    <th scope="row">{p.party}</th>
                    <Num>{formatSigned(p.shareChange, 1)}</Num>
                  </tr>
                ))}
            </DataTable>
          }
        />
      </section>

      <section aria-labelledby="constituencies-title">
        <h2 id="constituencies-title">Constituencies</h2>
        <p>
          {a.constituencies.length} constituencies in {a.label}, {b.constituencies.length} in {b.label}; {redrawn}{' '}
          appear in only one of them, where boundaries were redrawn. Constituencies with the same name may still have
          changed boundaries.
        </p>
        <DataTable
          scroll="Constituencies compared"
          download={downloads.table('constituencies', 'the constituencies compared')}
          class="data"
          caption={<>Constituencies matched by name, {label}</>}
          text={['Constituency']}
          numeric={[
            `Seats ${short(a.label)}`,
            `Seats ${short(b.label)}`,
            `Turnout ${short(a.label)}`,
            `Turnout ${short(b.label)}`,
          ]}
          after={['Match']}
        >
          {comparison.constituencies.map((c) => (
            <tr class={c.status === 'same' ? undefined : 'flagged'}>
              <th scope="row">
                {c.keys[1] ? (
                  <a href={constituencyHref(1, c.keys[1])}>{c.name}</a>
                ) : (
                  <a href={constituencyHref(0, c.keys[0]!)}>{c.name}</a>
                )}
              </th>
              <Num>{seatsCell(c.seats[0], c.ceannComhairle[0])}</Num>
              <Num>{seatsCell(c.seats[1], c.ceannComhairle[1])}</Num>
              <Num>{formatShare(c.turnout[0])}</Num>
              <Num>{formatShare(c.turnout[1])}</Num>
              <td>{STATUS_TEXT[c.status]}</td>
            </tr>
          ))}
        </DataTable>
      </section>
    </>
  );
}
