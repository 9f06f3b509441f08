// A constituency's page: its facts, who was elected on which count, first preferences against the quota, the
// count-by-count table laid out as results are printed, the race to the quota, and where each count's votes went.
// `?count=N` shows the state after count N as a page of its own.

import type { ComponentChildren } from 'preact';
import {
  displayName,
  type Constituency,
  type CountSheet,
  type CountStep,
  type Distribution,
} from '../../elections/index.js';
import type { FailedCheck } from '../checks-view.js';
import type { downloadsUnder } from '../downloads.js';
import { candidateLabel, countColours } from '../election-charts.js';
import { formatNumber, formatShare, formatSigned, plural } from '../format.js';
import { ShortfallNote } from './election.js';
import { DataTable, Fact, Figure, Ga, Num, PartyChip, TableLinks } from './layout.js';

export interface ConstituencyPageProps {
  constituency: Constituency;
  /** The whole count, and the count as it stood after the count shown. */
  sheet: CountSheet;
  shown: CountSheet;
  count: number;
  electionLabel: string;
  /** API calls of the records behind the page. */
  api: { counts: string | null; candidates: string; constituency: string | null };
  /** Resource pages of the same records. */
  tables: { counts: string | null; candidates: string };
  pagePath: string;
  candidateCount: number;
  hasCounts: boolean;
  partyHref: (party: string) => string | null;
  /** This constituency's transfers page: party to party, and the count as a flow. */
  transfersHref: string | null;
  /** The outgoing Ceann Comhairle, when returned here without a contest. */
  ceannComhairle: string | null;
  /** The charts' SVG: first preferences, the race to the quota after the count shown, that count's transfers. */
  charts: { firstPreferences: string; race: string | null; transfers: string | null };
  /** The same charts drawn for a phone. */
  narrowCharts: { firstPreferences: string; race: string | null; transfers: string | null };
  /** The consistency checks of this constituency's first preferences, for a note where they do not add up. */
  checks: string | null;
  /** This constituency's failed consistency checks: each is said beside the figure it concerns. */
  failed: readonly FailedCheck[];
  /** Where its tables and charts are taken away. */
  downloads: ReturnType<typeof downloadsUnder>;
  /** The change since the election before, and the constituency at the other elections. */
  since: ComponentChildren;
}

/** What a failed check says, in words: the figure the source gives, and what its parts add up to. */
export function checkText(f: FailedCheck): string {
  const [expected, actual] = [f.expected ?? 0, f.actual ?? 0];
  switch (f.check) {
    case 'count-transfers':
      return expected === 0
        ? `Count ${f.count}: nobody's votes left the count, but the candidates' totals gain ${formatNumber(actual)} votes.`
        : `Count ${f.count}: ${formatNumber(expected)} votes were distributed, but the candidates' gains add up to ${formatNumber(actual)} (${formatShare(actual / expected)} of them).`;
    case 'first-preferences':
      return `The candidates' first preferences add up to ${formatNumber(actual)}, against the valid poll of ${formatNumber(expected)}.`;
    case 'expenses-threshold':
      return `The official results count ${formatNumber(expected)} candidates who did not reach a quarter of the quota; the running totals leave ${formatNumber(actual)}.`;
    case 'elected-seats':
      return `The constituency had ${formatNumber(expected)} seats, but the records elect ${formatNumber(actual)}.`;
    case 'quota':
      return `The source's quota, ${formatNumber(actual)}, is not ⌊valid poll ÷ (seats + 1)⌋ + 1 = ${formatNumber(expected)}.`;
    default:
      return `The check "${f.check}" expected ${formatNumber(expected)} and found ${formatNumber(actual)}.`;
  }
}

/** A failed check said beside its figure, with the reviewed note and the check in the report. */
export function CheckNote({ failed }: { failed: FailedCheck }) {
  const note = failed.note.replace(/^Known fault, loaded as published: /, '');
  return (
    <p class="note shortfall" role="note">
      <strong>The source does not add up.</strong> {checkText(failed)}{' '}
      {note && note !== 'Not reviewed.' ? `${note} ` : ''}
      The figures are shown as published{failed.href ? ': ' : '.'}
      {failed.href && <a href={failed.href}>see the consistency check</a>}
      {failed.href ? '.' : ''}
    </p>
  );
}

function fullName(c: { firstName: string; surname: string }): string {
  return `${displayName(c.firstName)} ${displayName(c.surname)}`.trim();
}

function names(list: { firstName: string; surname: string }[]): string {
  const all = list.map(fullName);
  return all.length <= 1 ? all.join('') : `${all.slice(0, -1).join(', ')} and ${all.at(-1)}`;
}

export function distributionText(d: Distribution): string {
  if (d.kind === 'first') return 'First preferences';
  return `${d.kind === 'surplus' ? 'Surplus' : 'Exclusion'} of ${names(d.from)}`;
}

export function ConstituencyPage(props: ConstituencyPageProps) {
  const { constituency: c, sheet, shown, count, pagePath } = props;
  const last = sheet.steps.length;
  const final = count >= last;
  const turnout = c.electorate && c.totalPoll !== null ? c.totalPoll / c.electorate : null;
  const step = shown.steps[count - 1]!;
  const countHref = (n: number) => (n >= last ? pagePath : `${pagePath}?count=${n}`);

  return (
    <>
      <h1>
        {c.name}
        {c.nameGa && (
          <span class="subtitle">
            {' '}
            · <Ga>{c.nameGa}</Ga>
          </span>
        )}
      </h1>
      <p class="lead">
        {props.electionLabel}: {plural(c.seats, 'seat')}, {plural(props.candidateCount, 'candidate')},{' '}
        {plural(last, 'count')}.
      </p>
      {props.ceannComhairle && (
        <p>
          The outgoing Ceann Comhairle, {props.ceannComhairle}, was returned automatically here, in a seat beside the{' '}
          {plural(c.seats, 'seat')} contested.
        </p>
      )}

      <dl class="facts">
        <Fact term="Seats">{formatNumber(c.seats)}</Fact>
        <Fact term="Electorate">{formatNumber(c.electorate)}</Fact>
        <Fact term="Total poll">{formatNumber(c.totalPoll)}</Fact>
        <Fact term="Turnout">{formatShare(turnout)}</Fact>
        <Fact term="Spoiled">{formatNumber(c.spoiled)}</Fact>
        <Fact term="Valid poll">{formatNumber(c.validPoll)}</Fact>
        <Fact term="Quota">{formatNumber(c.quota)}</Fact>
        <Fact term="Quarter quota (deposit and expenses)">{formatNumber(c.quarterQuota)}</Fact>
        <Fact term="Counts">{formatNumber(last)}</Fact>
      </dl>
      <ShortfallNote
        firstPreferences={sheet.candidates.reduce((sum, s) => sum + s.candidate.firstPreferences, 0)}
        validPoll={c.validPoll}
        checks={props.checks}
        where="here"
      />
      {props.failed.filter((f) => f.check !== 'first-preferences').length > 0 && (
        <section aria-labelledby="checks-title" class="checks">
          <h2 id="checks-title" class="h-small">
            Figures on this page that do not add up in the source
          </h2>
          {props.failed
            .filter((f) => f.check !== 'first-preferences')
            .map((f) => (
              <CheckNote failed={f} />
            ))}
        </section>
      )}

      {props.hasCounts && (
        <nav class="stepper" aria-label="Counts">
          <p id="stepper-label">Show the count as it stood after:</p>
          <ul aria-labelledby="stepper-label">
            {sheet.steps.map((s) => (
              <li>
                <a
                  href={countHref(s.count)}
                  aria-current={s.count === count ? 'page' : undefined}
                  aria-label={`Count ${s.count}${s.count === last ? ' (final)' : ''}: ${distributionText(s.distribution)}`}
                >
                  {s.count === last ? `${s.count} (final)` : s.count}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      )}

      <section aria-labelledby="elected-title">
        <h2 id="elected-title">{final ? 'Elected' : `Elected by the end of count ${count}`}</h2>
        {shown.elected.length === 0 ? (
          <p>Nobody had been elected yet.</p>
        ) : (
          <ol class="elected">
            {shown.elected.map((s) => {
              const at = s.cells[s.elected!.count - 1]?.total ?? 0;
              return (
                <li>
                  <strong>{fullName(s.candidate)}</strong>,{' '}
                  <PartyLink party={s.candidate.party} href={props.partyHref(s.candidate.party)} /> — elected on count{' '}
                  {s.elected!.count} with {formatNumber(at)} votes{at < c.quota ? ', without reaching the quota' : ''}
                </li>
              );
            })}
          </ol>
        )}
        {!final && (
          <p>
            {c.seats - shown.elected.length} seat{c.seats - shown.elected.length === 1 ? '' : 's'} still to fill.{' '}
            <a href={pagePath}>See the final result</a>.
          </p>
        )}
      </section>

      {props.since}

      <Figure
        id="first-preferences"
        title="First preferences."
        caption={
          <>
            Each candidate's first-preference votes, share of the valid poll and fraction of a quota (q). The solid line
            is the quota ({formatNumber(c.quota)}), the dotted one a quarter of it ({formatNumber(c.quarterQuota)}):
            above it a candidate keeps the deposit and recovers expenses.
          </>
        }
        svg={props.charts.firstPreferences}
        narrowSvg={props.narrowCharts.firstPreferences}
        api={props.api.candidates}
        downloads={props.downloads.chart('first-preferences', `the first preferences in ${c.name}`)}
        data={
          <DataTable
            class="data compact"
            caption={<>First preferences in {c.name}</>}
            text={['Candidate', 'Party']}
            numeric={['Votes', 'Share', 'Quotas']}
          >
            {sheet.candidates.map((s) => (
              <tr>
                <th scope="row">{fullName(s.candidate)}</th>
                <td>{s.candidate.party}</td>
                <Num>{formatNumber(s.candidate.firstPreferences)}</Num>
                <Num>{formatShare(c.validPoll ? s.candidate.firstPreferences / c.validPoll : null)}</Num>
                <Num>{(s.candidate.firstPreferences / c.quota).toFixed(2)}</Num>
              </tr>
            ))}
          </DataTable>
        }
      />

      {props.hasCounts && <CountTable {...props} />}

      {props.hasCounts && (
        <Figure
          id="race"
          title={`The race to the quota${final ? '' : `, after count ${count}`}.`}
          caption={
            <>
              The votes each candidate gained, a segment per count from first preferences (lightest) to count {count}{' '}
              (darkest); the dashed line is the quota. Surpluses and excluded candidates' votes given away are not
              subtracted.
            </>
          }
          svg={props.charts.race!}
          narrowSvg={props.narrowCharts.race!}
          api={props.api.counts!}
          downloads={props.downloads.chart('race', `the race to the quota in ${c.name}`)}
          legend={countColours(count).map((colour, i) => ({ colour, label: `Count ${i + 1}` }))}
          data={<RaceTable sheet={shown} count={count} />}
        />
      )}

      {props.hasCounts &&
        last > 1 &&
        (count >= 2 ? (
          <Transfers {...props} step={step} />
        ) : (
          <section aria-labelledby="transfers-title">
            <h2 id="transfers-title">Where the votes went</h2>
            <p>
              Count 1 is the first preferences: nothing had been transferred yet. <a href={countHref(2)}>See count 2</a>
              .
            </p>
          </section>
        ))}
      {props.transfersHref && last > 1 && (
        <p class="big-link">
          <a href={props.transfersHref}>The whole count as a flow, and where each party's transfers went</a>
        </p>
      )}

      <section aria-labelledby="records-title">
        <h2 id="records-title">The records</h2>
        <ul>
          <li>
            <a href={props.tables.candidates}>The candidates of {c.name}</a> in the candidates table
          </li>
          {props.tables.counts && (
            <li>
              <a href={props.tables.counts}>Count details of {c.name}</a>, a record per candidate per count
            </li>
          )}
          {props.api.constituency && (
            <li>
              <a href={props.api.constituency} rel="nofollow">
                This constituency's record as JSON
              </a>
            </li>
          )}
        </ul>
      </section>
    </>
  );
}

function PartyLink({ party, href }: { party: string; href: string | null }) {
  return href ? (
    <a href={href}>
      <PartyChip party={party} />
    </a>
  ) : (
    <PartyChip party={party} />
  );
}

/** The most counts a printed count table holds side by side on A4; a longer count prints as several tables. */
const PRINTED_COUNTS = 9;

function CountTable(props: ConstituencyPageProps) {
  const { sheet, shown, count, constituency: c, downloads } = props;
  const steps = shown.steps;
  // On paper the count is cut into tables of a few counts each, so that every count prints, whole, on A4.
  const parts: CountStep[][] = [];
  for (let i = 0; i < steps.length; i += PRINTED_COUNTS) parts.push(steps.slice(i, i + PRINTED_COUNTS));
  return (
    <section aria-labelledby="count-title">
      <h2 id="count-title">Count by count{count < sheet.steps.length ? `, to count ${count}` : ''}</h2>
      <p class="hint">
        Each cell gives the votes transferred at that count (+ received, − given away) and the running total after it.
        Quota {formatNumber(c.quota)}.
      </p>
      <div class="screen-only">
        <DataTable
          scroll={`Count by count in ${c.name}`}
          download={downloads.table('count-by-count', `the count by count in ${c.name}`)}
          class="data count-table"
          caption={
            <>Count by count in {c.name}: a row per candidate, a column per count, headed by what was distributed.</>
          }
          head={<CountHeads {...props} steps={steps} />}
        >
          <CountRows {...props} steps={steps} />
        </DataTable>
      </div>
      {parts.length > 1 && (
        <div class="print-only">
          {parts.map((part) => (
            <DataTable
              class="data count-table"
              caption={
                <>
                  Count by count in {c.name}, counts {part[0]!.count} to {part.at(-1)!.count}
                </>
              }
              head={<CountHeads {...props} steps={part} />}
            >
              <CountRows {...props} steps={part} />
            </DataTable>
          ))}
        </div>
      )}
    </section>
  );
}

function CountHeads({ sheet, pagePath, failed, steps }: ConstituencyPageProps & { steps: CountStep[] }) {
  const faulty = new Set(failed.filter((f) => f.check === 'count-transfers').map((f) => f.count));
  return (
    <>
      <th scope="col">Candidate</th>
      {steps.map((s) => (
        <th scope="col" class="num">
          <a href={s.count >= sheet.steps.length ? pagePath : `${pagePath}?count=${s.count}`}>Count {s.count}</a>
          <span class="count-what">
            {distributionText(s.distribution)}
            {s.distribution.kind !== 'first' && ` (${formatNumber(s.distribution.votes)})`}
            {faulty.has(s.count) && (
              <a href="#checks-title" class="footnote-mark" aria-label=": does not add up in the source (see the note)">
                †
              </a>
            )}
          </span>
        </th>
      ))}
    </>
  );
}

function CountRows({ shown, steps }: ConstituencyPageProps & { steps: CountStep[] }) {
  const counts = new Set(steps.map((s) => s.count));
  return (
    <>
      {shown.candidates.map((s) => (
        <tr class={s.elected ? 'is-elected' : s.excludedAt !== null ? 'is-excluded' : undefined}>
          <th scope="row">
            {fullName(s.candidate)}
            <span class="row-party">
              <PartyChip party={s.candidate.party} label={s.candidate.partyAbbreviation || s.candidate.party} />
            </span>
          </th>
          {s.cells
            .filter((cell) => counts.has(cell.count))
            .map((cell) => (
              <td class={`num${cell.event ? ` event-${cell.event}` : ''}`}>
                {cell.transfer !== null && cell.transfer !== 0 && (
                  <span class="transfer">
                    <span class="visually-hidden">transfer </span>
                    {formatSigned(cell.transfer)}
                  </span>
                )}
                {cell.total !== null && (
                  <span class="total">
                    <span class="visually-hidden">total </span>
                    {formatNumber(cell.total)}
                  </span>
                )}
                {cell.event === 'elected' && <span class="event">Elected</span>}
                {cell.event === 'excluded' && <span class="event">Excluded</span>}
                {cell.transfer === null && cell.total === null && cell.event === null && (
                  <span class="visually-hidden">out of the count</span>
                )}
              </td>
            ))}
        </tr>
      ))}
      <tr class="nontransferable">
        <th scope="row">Non-transferable</th>
        {steps.map((s) => (
          <td class="num">
            {s.count > 1 && (
              <span class="transfer">
                <span class="visually-hidden">this count </span>
                {formatSigned(s.nonTransferable)}
              </span>
            )}
            <span class="total">
              <span class="visually-hidden">in all </span>
              {formatNumber(s.nonTransferableSoFar)}
            </span>
          </td>
        ))}
      </tr>
    </>
  );
}

function RaceTable({ sheet, count }: { sheet: CountSheet; count: number }) {
  const quota = sheet.constituency.quota;
  return (
    <DataTable
      class="data compact"
      caption={
        <>
          Running totals after count {count} and progress to the quota of {formatNumber(quota)}
        </>
      }
      text={['Candidate']}
      numeric={['First preferences', 'Gained since', `Total after count ${count}`, 'Of the quota']}
    >
      {sheet.candidates.map((s) => {
        const gained = s.cells.slice(1, count).reduce((sum, c) => sum + Math.max(0, c.transfer ?? 0), 0);
        const total = s.cells[count - 1]?.total ?? null;
        return (
          <tr>
            <th scope="row">{candidateLabel(s)}</th>
            <Num>{formatNumber(s.candidate.firstPreferences)}</Num>
            <Num>{formatNumber(gained)}</Num>
            <Num>{total === null ? 'Excluded' : formatNumber(total)}</Num>
            <Num>{total === null ? '–' : formatShare(total / quota, 0)}</Num>
          </tr>
        );
      })}
    </DataTable>
  );
}

function Transfers(props: ConstituencyPageProps & { step: CountStep }) {
  const { shown, step, constituency: c } = props;
  const distributed = step.distribution.kind === 'first' ? 0 : step.distribution.votes;
  const stepsShown = shown.steps.filter((s) => s.count >= 2);
  return (
    <section aria-labelledby="transfers-title">
      <h2 id="transfers-title">Where the votes went</h2>
      {props.failed
        .filter((f) => f.check === 'count-transfers' && f.count === step.count)
        .map((f) => (
          <CheckNote failed={f} />
        ))}
      <Figure
        id="transfers"
        title={`Count ${step.count}: ${distributionText(step.distribution)}.`}
        caption={
          <>
            {formatNumber(distributed)} votes distributed; the bars show who received them, and how many showed no
            further preference. Choose another count above to see its transfers.
          </>
        }
        svg={props.charts.transfers!}
        narrowSvg={props.narrowCharts.transfers!}
        api={props.api.counts!}
        downloads={props.downloads.chart('transfers', `the transfers at count ${step.count}`)}
        data={<StepTable step={step} constituencyName={c.name} />}
      />
      {stepsShown.length > 0 && (
        <details class="all-transfers">
          <summary>Every count's transfers, as tables</summary>
          {stepsShown.map((s) => (
            <StepTable step={s} constituencyName={c.name} heading />
          ))}
          <TableLinks download={props.downloads.table('all-transfers', `every count's transfers in ${c.name}`)} />
        </details>
      )}
    </section>
  );
}

function StepTable({
  step,
  constituencyName,
  heading,
}: {
  step: CountStep;
  constituencyName: string;
  heading?: boolean;
}) {
  const distributed = step.distribution.kind === 'first' ? 0 : step.distribution.votes;
  const title = `Count ${step.count}: ${distributionText(step.distribution)} (${formatNumber(distributed)} votes)`;
  return (
    <>
      {heading && <h3>{title}</h3>}
      <DataTable
        scroll={`Transfers at count ${step.count}${heading ? '' : ', chart data'}`}
        class="data compact"
        caption={heading ? `Transfers at count ${step.count} in ${constituencyName}` : title}
        text={['To']}
        numeric={['Votes', 'Share of those distributed']}
      >
        {step.gains.map((g) => (
          <tr>
            <th scope="row">{candidateLabel({ candidate: g.candidate })}</th>
            <Num>{formatNumber(g.votes)}</Num>
            <Num>{formatShare(distributed ? g.votes / distributed : null)}</Num>
          </tr>
        ))}
        <tr>
          <th scope="row">Non-transferable</th>
          <Num>{formatNumber(step.nonTransferable)}</Num>
          <Num>{formatShare(distributed ? step.nonTransferable / distributed : null)}</Num>
        </tr>
      </DataTable>
    </>
  );
}
