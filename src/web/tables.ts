// The figures each election page shows, as tables to download: the same rows, columns and rounding as the page (a
// share of 24.53 % is 24.5, as shown), numbers without their thousands separators. Built from the models the pages
// render, never from the raw records, which the API and the resource pages already offer.

import {
  displayName,
  handsText,
  isElectedResult,
  NON_TRANSFERABLE,
  type Candidate,
  type Comparison,
  type CountSheet,
  type ConstituencySwing,
  type CountStep,
  type Election,
  type PartySwing,
  type PartyTotals,
} from '../elections/index.js';
import { candidateLabel } from './election-charts.js';
import { percent, rounded, type Cell, type CsvTable } from './downloads.js';
import type { ElectedRow } from './pages/change.js';
import { CONSTITUENCY_SORTS, sortConstituencies } from './pages/election.js';
import { distributionText } from './pages/constituency.js';
import type { FlowRow, TransferPageBase } from './pages/transfers.js';
import type { MapTile } from './tile-map.js';

const year = (label: string) => /\b(\d{4})$/.exec(label)?.[1] ?? label;
const fullName = (c: { firstName: string; surname: string }) =>
  `${displayName(c.firstName)} ${displayName(c.surname)}`.trim();

/** Seats by party with the change since the election before, and first-preference shares with the swing. */
export function seatsTable(swings: readonly PartySwing[], previousLabel: string | null): CsvTable {
  if (!previousLabel)
    return {
      columns: ['Party', 'Seats', 'First preferences (%)'],
      rows: swings.map((p) => [p.party, p.seats[1], percent(p.shares[1])]),
    };
  const before = year(previousLabel);
  return {
    columns: [
      'Party',
      'Seats',
      `Seats ${before}`,
      'Change',
      'First preferences (%)',
      `First preferences ${before} (%)`,
      'Swing (points)',
    ],
    rows: swings.map((p) => [
      p.party,
      p.seats[1],
      p.seats[0],
      p.seatChange,
      percent(p.shares[1]),
      percent(p.shares[0]),
      rounded(p.swing),
    ]),
  };
}

/** Each party's seats against the majority line. */
export function majorityTable(parties: readonly { party: string; seats: number }[], majority: number): CsvTable {
  return {
    columns: ['Party', 'Seats', `Short of a majority (${majority})`],
    rows: parties.map((p) => [p.party, p.seats, Math.max(0, majority - p.seats)]),
  };
}

/** The tile map's figures: each constituency's largest party by first preferences and its share. */
export function mapTable(tiles: readonly MapTile[]): CsvTable {
  return {
    columns: ['Constituency', 'Seats', 'Largest party', 'Its share of first preferences (%)'],
    rows: [...tiles]
      .sort((a, b) => a.constituency.name.localeCompare(b.constituency.name, 'en-IE'))
      .map((t) => [t.constituency.name, t.seats, t.party, percent(t.share)]),
  };
}

/** Every TD elected. */
export function electedTable(rows: readonly ElectedRow[]): CsvTable {
  return {
    columns: ['TD', 'Party', 'Constituency', 'Elected on count'],
    rows: rows.map((r) => [r.name, r.party, r.constituency, r.count === null ? 'Returned automatically' : r.count]),
  };
}

/** The constituencies of an election, in the order the list is sorted. */
export function constituenciesTable(election: Election, sortKey: string, descending: boolean): CsvTable {
  const value = (key: string, c: Parameters<(typeof CONSTITUENCY_SORTS)[string]['value']>[0]) =>
    CONSTITUENCY_SORTS[key]!.value(c, election) as number | null;
  return {
    columns: [
      'Constituency',
      'Irish name',
      'Seats',
      'Candidates',
      'Electorate',
      'Turnout (%)',
      'Spoiled (%)',
      'Quota',
      'Counts',
    ],
    rows: sortConstituencies(election, sortKey, descending).map((c) => [
      c.name,
      c.nameGa,
      c.seats + c.returnedAutomatically,
      election.candidates(c.key).length,
      c.electorate,
      percent(value('turnout', c)),
      percent(value('spoiled', c)),
      c.quota,
      value('counts', c),
    ]),
  };
}

/** The party totals table. */
export function partiesTable(parties: readonly PartyTotals[], swings: readonly PartySwing[], before: string | null) {
  const swingOf = (p: PartyTotals) => swings.find((s) => s.keys[1] === p.key) ?? null;
  const columns = [
    'Party',
    'Abbreviation',
    'Seats',
    ...(before ? [`Seat change since ${before}`] : []),
    'First preferences',
    'Vote share (%)',
    ...(before ? [`Swing since ${before} (points)`] : []),
    'Seat share (%)',
    'Seats compared with votes (points)',
    'Candidates',
    'Women candidates',
    'Women elected',
    'Candidates who won back expenses',
  ];
  const rows: Cell[][] = parties.map((p) => {
    const s = swingOf(p);
    return [
      p.party,
      p.abbreviation,
      p.seats,
      ...(before ? [s ? s.seatChange : null] : []),
      p.firstPreferences,
      percent(p.voteShare),
      ...(before ? [s ? rounded(s.swing) : null] : []),
      percent(p.seatShare),
      rounded((p.seatShare - p.voteShare) * 100),
      p.candidates,
      p.women,
      p.womenElected,
      p.reachedQuarterQuota,
    ];
  });
  return { columns, rows };
}

/** Vote and seat shares by party: the shares chart's data. */
export function sharesTable(parties: readonly PartyTotals[]): CsvTable {
  return {
    columns: ['Party', 'Vote share (%)', 'Seat share (%)'],
    rows: parties.map((p) => [p.party, percent(p.voteShare), percent(p.seatShare)]),
  };
}

/** A party's candidates, as its page lists them. */
export function partyCandidatesTable(
  election: Election,
  candidates: readonly Candidate[],
  electedAt: (c: Candidate) => number | null,
): CsvTable {
  return {
    columns: ['Candidate', 'Constituency', 'First preferences', 'Share of valid poll (%)', 'Quotas', 'Result'],
    rows: candidates.map((c) => {
      const constituency = election.constituency(c.constituencyKey)!;
      const at = electedAt(c);
      return [
        fullName(c),
        constituency.name,
        c.firstPreferences,
        constituency.validPoll ? percent(c.firstPreferences / constituency.validPoll) : null,
        rounded(c.firstPreferences / constituency.quota, 2),
        isElectedResult(c.result) ? `Elected${at ? ` on count ${at}` : ''}` : c.result || 'Not elected',
      ];
    }),
  };
}

/** A party's seats and share at the election before and now. */
export function partySinceTable(swing: PartySwing, previousLabel: string): CsvTable {
  const before = year(previousLabel);
  return {
    columns: ['Measure', before, 'Now', 'Change'],
    rows: [
      ['Seats', swing.seats[0], swing.seats[1], swing.seatChange],
      ['Share of first preferences (%)', percent(swing.shares[0]), percent(swing.shares[1]), rounded(swing.swing)],
    ],
  };
}

/** A constituency's seats and shares by party against the one it is compared with. */
export function constituencySinceTable(swing: ConstituencySwing, previousLabel: string, label: string): CsvTable {
  const [before, now] = [year(previousLabel), year(label)];
  return {
    columns: [
      'Party',
      `Seats ${before}`,
      `Seats ${now}`,
      'Change',
      `Share ${before} (%)`,
      `Share ${now} (%)`,
      'Swing (points)',
      'Gain from, loss to',
    ],
    rows: swing.parties.map((p) => [
      p.party,
      p.seats[0],
      p.seats[1],
      p.seatChange,
      percent(p.shares[0]),
      percent(p.shares[1]),
      rounded(p.swing),
      handsText(swing, p.party) || (p.seats[1] > 0 ? 'held' : ''),
    ]),
  };
}

/** First preferences of each candidate: the first chart's data. */
export function firstPreferencesTable(sheet: CountSheet): CsvTable {
  const c = sheet.constituency;
  return {
    columns: ['Candidate', 'Party', 'Votes', 'Share (%)', 'Quotas'],
    rows: sheet.candidates.map((s) => [
      fullName(s.candidate),
      s.candidate.party,
      s.candidate.firstPreferences,
      c.validPoll ? percent(s.candidate.firstPreferences / c.validPoll) : null,
      rounded(s.candidate.firstPreferences / c.quota, 2),
    ]),
  };
}

/** The count by count: a row per candidate, and per count the transfer and the total after it. */
export function countByCountTable(sheet: CountSheet): CsvTable {
  const columns = ['Candidate', 'Party'];
  for (const s of sheet.steps)
    columns.push(
      ...(s.count === 1
        ? ['Count 1: first preferences']
        : [
            `Count ${s.count}: transfer (${distributionText(s.distribution)}, ${s.distribution.kind === 'first' ? 0 : s.distribution.votes} votes)`,
            `Count ${s.count}: total`,
          ]),
    );
  columns.push('Result');
  const rows: Cell[][] = sheet.candidates.map((s) => [
    fullName(s.candidate),
    s.candidate.party,
    ...s.cells.flatMap((cell) => (cell.count === 1 ? [cell.total] : [cell.transfer, cell.total])),
    s.elected
      ? `Elected on count ${s.elected.count}`
      : s.excludedAt !== null
        ? `Excluded on count ${s.excludedAt}`
        : '',
  ]);
  rows.push([
    'Non-transferable',
    '',
    ...sheet.steps.flatMap((s) => (s.count === 1 ? [0] : [s.nonTransferable, s.nonTransferableSoFar])),
    '',
  ]);
  return { columns, rows };
}

/** The race to the quota after a count: the chart's data. */
export function raceTable(sheet: CountSheet, count: number): CsvTable {
  const quota = sheet.constituency.quota;
  return {
    columns: ['Candidate', 'First preferences', 'Gained since', `Total after count ${count}`, 'Of the quota (%)'],
    rows: sheet.candidates.map((s) => {
      const gained = s.cells.slice(1, count).reduce((sum, c) => sum + Math.max(0, c.transfer ?? 0), 0);
      const total = s.cells[count - 1]?.total ?? null;
      return [
        candidateLabel(s),
        s.candidate.firstPreferences,
        gained,
        total === null ? 'Excluded' : total,
        total === null ? null : rounded((total / quota) * 100, 0),
      ];
    }),
  };
}

/** Where a count's votes went: the transfers chart's data. */
export function stepTable(step: CountStep): CsvTable {
  const distributed = step.distribution.kind === 'first' ? 0 : step.distribution.votes;
  return {
    columns: ['To', 'Votes', 'Share of those distributed (%)'],
    rows: [
      ...step.gains.map((g): Cell[] => [
        candidateLabel({ candidate: g.candidate }),
        g.votes,
        distributed ? percent(g.votes / distributed) : null,
      ]),
      ['Non-transferable', step.nonTransferable, distributed ? percent(step.nonTransferable / distributed) : null],
    ],
  };
}

/** Every count's transfers in one table. */
export function allTransfersTable(steps: readonly CountStep[]): CsvTable {
  return {
    columns: ['Count', 'Distributed', 'Votes distributed', 'To', 'Votes', 'Share of those distributed (%)'],
    rows: steps
      .filter((s) => s.count > 1)
      .flatMap((s) => {
        const distributed = s.distribution.kind === 'first' ? 0 : s.distribution.votes;
        const what = distributionText(s.distribution);
        return stepTable(s).rows.map((r) => [s.count, what, distributed, ...r]);
      }),
  };
}

/** The party-to-party matrix: shares of each giving party's votes by receiving party. */
export function matrixTable(base: TransferPageBase): CsvTable {
  const received = new Map<string, number>();
  for (const g of base.transfers)
    for (const t of g.to)
      if (t.party !== NON_TRANSFERABLE) received.set(t.party, (received.get(t.party) ?? 0) + t.votes);
  const receivers = [...received.keys()].sort((a, b) => received.get(b)! - received.get(a)! || a.localeCompare(b));
  const columns = [...receivers, NON_TRANSFERABLE];
  return {
    columns: ['From', 'Votes distributed', ...columns.map((p) => `To ${p} (%)`)],
    rows: base.transfers.map((g) => [
      g.party,
      g.distributed,
      ...columns.map((p) => {
        const to = g.to.find((t) => t.party === p);
        return to ? percent(to.share) : null;
      }),
    ]),
  };
}

/** Each giving party's transfers in votes. */
export function partyVotesTable(base: TransferPageBase): CsvTable {
  return {
    columns: ['From', 'To', 'Votes', 'Share (%)'],
    rows: base.transfers.flatMap((g) => g.to.map((t) => [g.party, t.party, t.votes, percent(t.share)])),
  };
}

/** The counts used for the party-to-party shares, and those left out with the reason. */
export function countsTable(base: TransferPageBase): CsvTable {
  const names = (list: { firstName: string; surname: string }[]) => list.map(fullName).join(', ');
  return {
    columns: ['Constituency', 'Count', 'Used', 'Distributed', 'Party', 'Votes', 'Non-transferable', 'Why left out'],
    rows: [
      ...base.used.map((c): Cell[] => [
        c.constituencyName,
        c.count,
        'yes',
        `${c.kind === 'surplus' ? 'Surplus' : 'Exclusion'} of ${names(c.from)}`,
        c.party,
        c.distributed,
        c.nonTransferable,
        '',
      ]),
      ...base.left.map((c): Cell[] => [
        c.constituencyName,
        c.count,
        'no',
        names(c.from),
        '',
        null,
        null,
        c.reason === 'several parties'
          ? "Several parties' votes at once"
          : `The source's totals gain ${c.excess} more votes than the count distributed`,
      ]),
    ],
  };
}

/** The count as a flow: every band's figures. */
export function flowTable(rows: readonly FlowRow[]): CsvTable {
  return {
    columns: ['Count', 'Distributed', 'To', 'Votes'],
    rows: rows.map((r) => [r.count, r.what, r.to, r.votes]),
  };
}

/** The comparison of two elections: the country, the parties, and the constituencies matched by name. */
export function compareTables(comparison: Comparison): Record<string, CsvTable> {
  const { earlier: a, later: b } = comparison;
  const [ya, yb] = [year(a.label), year(b.label)];
  const overall: [string, (t: typeof a.totals) => Cell][] = [
    ['Seats', (t) => t.houseSeats],
    ['Constituencies', (t) => t.constituencies],
    ['Candidates', (t) => t.candidates],
    ['Women candidates', (t) => t.women],
    ['Turnout (%)', (t) => percent(t.turnout)],
    ['Valid poll', (t) => t.validPoll],
  ];
  return {
    overall: { columns: ['', a.label, b.label], rows: overall.map(([name, v]) => [name, v(a.totals), v(b.totals)]) },
    'shares-compared': {
      columns: ['Party', `${ya} (%)`, `${yb} (%)`, 'Change (points)'],
      rows: comparison.parties.map((p) => [
        p.party,
        percent(p.voteShare[0]),
        percent(p.voteShare[1]),
        rounded(p.shareChange),
      ]),
    },
    'seats-compared': {
      columns: ['Party', ya, yb, 'Change'],
      rows: comparison.parties
        .filter((p) => (p.seats[0] ?? 0) > 0 || (p.seats[1] ?? 0) > 0)
        .map((p) => [p.party, p.seats[0], p.seats[1], p.seatChange]),
    },
    'share-change': {
      columns: ['Party', 'Change (points)'],
      rows: comparison.parties.filter((p) => p.shareChange !== null).map((p) => [p.party, rounded(p.shareChange)]),
    },
    constituencies: {
      columns: ['Constituency', `Seats ${ya}`, `Seats ${yb}`, `Turnout ${ya} (%)`, `Turnout ${yb} (%)`, 'Match'],
      rows: comparison.constituencies.map((c) => [
        c.name,
        c.seats[0],
        c.seats[1],
        percent(c.turnout[0]),
        percent(c.turnout[1]),
        c.status,
      ]),
    },
  };
}
