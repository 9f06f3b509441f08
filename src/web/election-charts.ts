// The election views' charts: first preferences against the quota, the race to the quota count by count, where a
// count's votes went, and party vote and seat shares. Each returns SVG for a <figure> that also carries the data.

import {
  displayName,
  type CountSheet,
  type CountStep,
  type PartyChange,
  type PartyTotals,
} from '../elections/index.js';
import type { PlotOptions, ScaleOptions } from '@observablehq/plot';
import { Marks, renderChart } from './charts.js';
import { formatNumber, formatShare } from './format.js';
import { NEUTRAL_COLOUR, partyColour } from './party-colours.js';

const WIDTH = 720;
const ROW = 26;

/**
 * A party's name as a chart's label writes it, in plain words rather than initials: the English name of a bilingual
 * one ("Green Party/ Comhaontas Glas" → "Green Party"), without a leading "The".
 */
export function plainPartyName(party: string): string {
  return (
    party
      .replace(/^the\s+/i, '')
      .split(/\s*\/\s*|\s+-\s+An\s/)[0]!
      .trim() || 'No party given'
  );
}

/**
 * A candidate as charts and tables label them: "Eamon Ryan (Green Party)"; where that is longer than `max` characters,
 * the party's abbreviation stands for its name.
 */
export function candidateLabel(
  s: { candidate: { surname: string; firstName: string; party: string; partyAbbreviation: string } },
  max = 40,
): string {
  const c = s.candidate;
  const name = `${displayName(c.firstName)} ${displayName(c.surname)}`.trim();
  const full = `${name} (${c.party ? plainPartyName(c.party) : 'no party given'})`;
  return full.length <= max || !c.partyAbbreviation ? full : `${name} (${c.partyAbbreviation})`;
}

/** Room for the longest label at the charts' 12 px text (about 7 px a character), within a third of the width. */
function marginFor(labels: string[]): number {
  return Math.min(300, 12 + 7 * Math.max(...labels.map((l) => l.length), 8));
}

/** A wide chart of a row per label: the labels down the left, a gridded axis of values along the bottom. */
function rowsChart(
  label: string,
  labels: string[],
  options: PlotOptions & { height: number; marginRight: number; x: ScaleOptions },
): string {
  return renderChart(label, {
    width: WIDTH,
    marginLeft: marginFor(labels),
    y: { label: null, domain: labels },
    ...options,
    x: { grid: true, ...options.x },
  }).svg;
}

/** Horizontal bars of first preferences, with the quota and the quarter quota marked. */
export function firstPreferencesChart(sheet: CountSheet): string {
  const { quota, quarterQuota, validPoll } = sheet.constituency;
  const rows = sheet.candidates.map((s) => ({
    label: candidateLabel(s),
    votes: s.candidate.firstPreferences,
    colour: partyColour(s.candidate.party),
    text: `${formatNumber(s.candidate.firstPreferences)} · ${formatShare(validPoll ? s.candidate.firstPreferences / validPoll : 0)} · ${(s.candidate.firstPreferences / quota).toFixed(2)} q`,
  }));
  const labels = rows.map((r) => r.label);
  const max = Math.max(quota, ...rows.map((r) => r.votes));
  return rowsChart(
    `First preferences in ${sheet.constituency.name}, against the quota of ${formatNumber(quota)} and a quarter quota of ${formatNumber(quarterQuota)}.`,
    labels,
    {
      height: 54 + rows.length * ROW,
      marginTop: 24,
      marginRight: 150,
      x: { label: 'First-preference votes', domain: [0, max * 1.02] },
      marks: [
        Marks.barX(rows, { x: 'votes', y: 'label', fill: 'colour', stroke: '#222', strokeWidth: 0.5 }),
        Marks.text(rows, {
          x: 'votes',
          y: 'label',
          text: 'text',
          textAnchor: 'start',
          dx: 4,
          fill: '#222',
          stroke: 'white',
          strokeWidth: 3,
        }),
        Marks.ruleX([quota], { stroke: '#111', strokeWidth: 2 }),
        Marks.ruleX([quarterQuota], { stroke: '#111', strokeDasharray: '2 3' }),
        quotaName(quota, 'quota'),
        quotaName(quarterQuota, '¼ quota'),
      ],
    },
  );
}

/** A quota line's name, above the plot at the line. */
function quotaName(at: number, name: string) {
  return Marks.text([at], {
    x: (d: number) => d,
    frameAnchor: 'top',
    text: () => name,
    dy: -14,
    textAnchor: 'start',
    dx: 3,
    fill: '#111',
  });
}

/** Blues from light to dark, one per count: the order of the segments reads left to right as the count went. */
export function countColours(counts: number): string[] {
  const light = [222, 235, 247];
  const dark = [8, 48, 107];
  return Array.from({ length: counts }, (_, i) => {
    const t = counts === 1 ? 1 : 0.25 + (0.75 * i) / (counts - 1);
    const mix = light.map((l, k) => Math.round(l + (dark[k]! - l) * t));
    return `rgb(${mix.join(',')})`;
  });
}

/** Stacked bars, a segment per count of what each candidate gained, against a dashed quota line. */
export function raceToQuotaChart(sheet: CountSheet, upTo: number): string {
  const colours = countColours(upTo);
  const segments: { label: string; count: string; votes: number }[] = [];
  for (const s of sheet.candidates) {
    s.cells.slice(0, upTo).forEach((cell, i) => {
      const gain = i === 0 ? s.candidate.firstPreferences : Math.max(0, cell.transfer ?? 0);
      if (gain > 0) segments.push({ label: candidateLabel(s), count: `Count ${i + 1}`, votes: gain });
    });
  }
  const labels = sheet.candidates.map((s) => candidateLabel(s));
  const quota = sheet.constituency.quota;
  const totals = sheet.candidates.map((s) =>
    s.cells
      .slice(0, upTo)
      .reduce((sum, c, i) => sum + (i === 0 ? s.candidate.firstPreferences : Math.max(0, c.transfer ?? 0)), 0),
  );
  return rowsChart(
    `Votes gained by each candidate in ${sheet.constituency.name} up to count ${upTo}, count by count, against the quota of ${formatNumber(quota)}.`,
    labels,
    {
      height: 40 + labels.length * ROW,
      marginRight: 24,
      x: {
        label: 'Votes gained (first preferences, then transfers)',
        domain: [0, Math.max(quota, ...totals) * 1.02],
      },
      color: { domain: colours.map((_, i) => `Count ${i + 1}`), range: colours },
      marks: [
        Marks.barX(
          segments,
          Marks.stackX({ x: 'votes', y: 'label', fill: 'count', order: null, stroke: 'white', strokeWidth: 0.5 }),
        ),
        Marks.ruleX([quota], { stroke: '#111', strokeWidth: 2, strokeDasharray: '6 3' }),
      ],
    },
  );
}

/** Where a count's votes went: each candidate's gain, and the votes that went no further. */
export function transfersChart(sheet: CountSheet, step: CountStep): string {
  const rows = step.gains.map((g) => ({
    label: candidateLabel({ candidate: g.candidate }),
    votes: g.votes,
    colour: partyColour(g.candidate.party),
  }));
  if (step.nonTransferable > 0)
    rows.push({ label: 'Non-transferable', votes: step.nonTransferable, colour: NEUTRAL_COLOUR });
  const labels = rows.map((r) => r.label);
  return rowsChart(`Where the votes distributed at count ${step.count} in ${sheet.constituency.name} went.`, labels, {
    height: 40 + Math.max(1, rows.length) * ROW,
    marginRight: 70,
    x: { label: 'Votes received at this count' },
    marks: [
      Marks.barX(rows, { x: 'votes', y: 'label', fill: 'colour', stroke: '#222', strokeWidth: 0.5 }),
      Marks.text(rows, {
        x: 'votes',
        y: 'label',
        text: (d: { votes: number }) => formatNumber(d.votes),
        textAnchor: 'start',
        dx: 4,
        fill: '#222',
      }),
    ],
  });
}

/** Each party's share of the vote (circle) and of the seats (diamond). */
export function sharesChart(parties: readonly PartyTotals[], electionLabel: string): string {
  const rows = parties.flatMap((p) => [
    { party: plainPartyName(p.party), measure: 'Vote share', share: p.voteShare * 100, colour: partyColour(p.party) },
    { party: plainPartyName(p.party), measure: 'Seat share', share: p.seatShare * 100, colour: partyColour(p.party) },
  ]);
  const labels = parties.map((p) => plainPartyName(p.party));
  return rowsChart(`Share of first-preference votes and share of seats by party, ${electionLabel}.`, labels, {
    height: 40 + labels.length * ROW,
    marginRight: 24,
    x: { label: 'Share (%)', domain: [0, Math.max(5, ...rows.map((r) => r.share)) * 1.05] },
    symbol: { domain: ['Vote share', 'Seat share'], range: ['circle', 'diamond'] },
    marks: [
      Marks.ruleY(labels, { stroke: '#ddd' }),
      Marks.dot(rows, { x: 'share', y: 'party', symbol: 'measure', fill: 'colour', stroke: '#222', r: 5 }),
    ],
  });
}

/** Change in vote share between two elections, by party, in percentage points. */
export function shareChangeChart(parties: readonly PartyChange[], label: string): string {
  const rows = parties
    .filter((p) => p.shareChange !== null)
    .map((p) => ({ party: plainPartyName(p.party), change: p.shareChange!, colour: partyColour(p.party) }));
  const labels = rows.map((r) => r.party);
  return rowsChart(`Change in first-preference vote share by party, ${label}, in percentage points.`, labels, {
    height: 40 + Math.max(1, rows.length) * ROW,
    marginRight: 40,
    x: { label: 'Change in vote share (percentage points)' },
    marks: [
      Marks.barX(rows, { x: 'change', y: 'party', fill: 'colour', stroke: '#222', strokeWidth: 0.5 }),
      Marks.ruleX([0], { stroke: '#111' }),
    ],
  });
}

/** Each party's seats against the majority line of the Dáil. */
export function majorityChart(
  parties: readonly { party: string; seats: number }[],
  majority: number,
  houseSeats: number,
  electionLabel: string,
): string {
  const rows = parties.map((p) => ({ label: plainPartyName(p.party), seats: p.seats, colour: partyColour(p.party) }));
  const labels = rows.map((r) => r.label);
  return rowsChart(
    `Seats won by each party that won a seat, ${electionLabel}, against the majority line of ${formatNumber(majority)} of ${formatNumber(houseSeats)} seats.`,
    labels,
    {
      height: 54 + Math.max(1, rows.length) * ROW,
      marginTop: 24,
      marginRight: 40,
      x: { label: 'Seats', domain: [0, Math.max(majority, ...rows.map((r) => r.seats)) * 1.05] },
      marks: [
        Marks.barX(rows, { x: 'seats', y: 'label', fill: 'colour', stroke: '#222', strokeWidth: 0.5 }),
        Marks.text(rows, {
          x: 'seats',
          y: 'label',
          text: (d: { seats: number }) => formatNumber(d.seats),
          textAnchor: 'start',
          dx: 4,
          fill: '#222',
        }),
        Marks.ruleX([majority], { stroke: '#111', strokeWidth: 2, strokeDasharray: '6 3' }),
        quotaName(majority, `majority, ${formatNumber(majority)}`),
      ],
    },
  );
}

/** The same, for a phone. */
export function majorityNarrowChart(
  parties: readonly { party: string; seats: number }[],
  majority: number,
  houseSeats: number,
  electionLabel: string,
): string {
  return narrowBars(
    `Seats won by each party that won a seat, ${electionLabel}, against the majority line of ${formatNumber(majority)} of ${formatNumber(houseSeats)} seats.`,
    parties.map((p) => ({
      label: plainPartyName(p.party),
      segments: [{ value: p.seats, fill: partyColour(p.party), key: '' }],
      text: formatNumber(p.seats),
    })),
    [{ at: majority, label: `majority, ${formatNumber(majority)}`, dash: '6 3' }],
    'Seats',
  );
}

/** A phone's chart width: drawn at about the width it is shown at, so its text reads at its own size. */
const NARROW = 300;
const NARROW_ROW = 34;

interface NarrowBar {
  label: string;
  /** Segments of the bar, left to right (one for a plain bar). */
  segments: { value: number; fill: string; key: string }[];
  text: string;
}

/**
 * Bars for a narrow screen: each row's name above its bar, the whole width for the bars, the value after each bar,
 * and vertical lines (quota) labelled at the top. Nothing is clipped: the scale leaves room for the longest value.
 */
function narrowBars(
  label: string,
  rows: NarrowBar[],
  rules: { at: number; label: string; dash?: string }[],
  axisLabel: string,
  colours?: { domain: string[]; range: string[] },
): string {
  const max = Math.max(1, ...rules.map((r) => r.at), ...rows.map((r) => r.segments.reduce((s, g) => s + g.value, 0)));
  const segments = rows.flatMap((r) => {
    let start = 0;
    return r.segments.map((g) => {
      const seg = { label: r.label, x1: start, x2: start + g.value, fill: g.fill, key: g.key };
      start += g.value;
      return seg;
    });
  });
  const ends = rows.map((r) => ({ label: r.label, x: r.segments.reduce((s, g) => s + g.value, 0), text: r.text }));
  // The longest value text takes about 6 px a character at 11 px: the domain leaves that much room after the longest
  // bar.
  const textRoom = Math.max(...rows.map((r) => r.text.length), 4) * 7 + 8;
  const plotWidth = NARROW - 8 - 8;
  const domainMax = (max * plotWidth) / Math.max(60, plotWidth - textRoom);
  return renderChart(
    label,
    {
      width: NARROW,
      height: 44 + rows.length * NARROW_ROW,
      marginLeft: 8,
      marginRight: 8,
      marginTop: 28,
      marginBottom: 34,
      x: { label: axisLabel, grid: true, domain: [0, domainMax], ticks: 3 },
      y: { domain: rows.map((r) => r.label), axis: null, paddingInner: 0.1 },
      ...(colours ? { color: colours } : {}),
      marks: [
        Marks.barX(segments, {
          x1: 'x1',
          x2: 'x2',
          y: 'label',
          fill: colours ? 'key' : 'fill',
          stroke: '#222',
          strokeWidth: 0.5,
          insetTop: 15,
          insetBottom: 1,
        }),
        Marks.text(rows, {
          x: 0,
          y: 'label',
          text: 'label',
          textAnchor: 'start',
          dy: -9,
          fill: '#111',
          fontWeight: 600,
        }),
        Marks.text(ends, { x: 'x', y: 'label', text: 'text', textAnchor: 'start', dx: 4, dy: 7, fill: '#222' }),
        ...rules.map((r) =>
          Marks.ruleX([r.at], {
            stroke: '#111',
            strokeWidth: r.dash ? 1 : 2,
            ...(r.dash ? { strokeDasharray: r.dash } : {}),
          }),
        ),
        ...rules.map((r) => {
          // A label reads after its line, unless the line is near the right edge: then it ends at the line.
          const after = r.at < domainMax * 0.6;
          return Marks.text([r.at], {
            x: (d: number) => d,
            frameAnchor: 'top',
            text: () => r.label,
            dy: -16,
            dx: after ? 3 : -3,
            textAnchor: after ? 'start' : 'end',
            fill: '#111',
          });
        }),
      ],
    },
    { narrow: true },
  ).svg;
}

/** First preferences against the quota, for a phone. */
export function firstPreferencesNarrowChart(sheet: CountSheet): string {
  const { quota, quarterQuota, validPoll } = sheet.constituency;
  const rows = sheet.candidates.map((s) => ({
    label: candidateLabel(s),
    segments: [{ value: s.candidate.firstPreferences, fill: partyColour(s.candidate.party), key: '' }],
    text: `${formatNumber(s.candidate.firstPreferences)} · ${formatShare(validPoll ? s.candidate.firstPreferences / validPoll : 0)}`,
  }));
  return narrowBars(
    `First preferences in ${sheet.constituency.name}, against the quota of ${formatNumber(quota)} and a quarter quota of ${formatNumber(quarterQuota)}.`,
    rows,
    [
      { at: quota, label: 'quota' },
      { at: quarterQuota, label: '¼ quota', dash: '2 3' },
    ],
    'First-preference votes',
  );
}

/** The race to the quota, for a phone. */
export function raceToQuotaNarrowChart(sheet: CountSheet, upTo: number): string {
  const colours = countColours(upTo);
  const rows = sheet.candidates.map((s) => {
    const segments = s.cells
      .slice(0, upTo)
      .map((cell, i) => ({
        value: i === 0 ? s.candidate.firstPreferences : Math.max(0, cell.transfer ?? 0),
        fill: colours[i]!,
        key: `Count ${i + 1}`,
      }))
      .filter((g) => g.value > 0);
    return { label: candidateLabel(s), segments, text: formatNumber(segments.reduce((a, g) => a + g.value, 0)) };
  });
  return narrowBars(
    `Votes gained by each candidate in ${sheet.constituency.name} up to count ${upTo}, count by count, against the quota of ${formatNumber(sheet.constituency.quota)}.`,
    rows,
    [{ at: sheet.constituency.quota, label: 'quota', dash: '6 3' }],
    'Votes gained',
    { domain: colours.map((_, i) => `Count ${i + 1}`), range: colours },
  );
}

/** Where a count's votes went, for a phone. */
export function transfersNarrowChart(sheet: CountSheet, step: CountStep): string {
  const rows = step.gains.map((g) => ({
    label: candidateLabel({ candidate: g.candidate }),
    segments: [{ value: g.votes, fill: partyColour(g.candidate.party), key: '' }],
    text: formatNumber(g.votes),
  }));
  if (step.nonTransferable > 0)
    rows.push({
      label: 'Non-transferable',
      segments: [{ value: step.nonTransferable, fill: NEUTRAL_COLOUR, key: '' }],
      text: formatNumber(step.nonTransferable),
    });
  return narrowBars(
    `Where the votes distributed at count ${step.count} in ${sheet.constituency.name} went.`,
    rows,
    [],
    'Votes received at this count',
  );
}

/** Vote and seat shares by party, for a phone. */
export function sharesNarrowChart(parties: readonly PartyTotals[], electionLabel: string): string {
  const rows = parties
    .filter((p) => p.seats > 0 || p.voteShare >= 0.01)
    .map((p) => ({
      label: plainPartyName(p.party),
      segments: [{ value: p.voteShare * 100, fill: partyColour(p.party), key: '' }],
      text: `${formatShare(p.voteShare)} · seats ${formatShare(p.seatShare)}`,
    }));
  return narrowBars(
    `Share of first-preference votes by party (bars) and of seats (after each bar), ${electionLabel}; parties with a seat or 1% of the vote.`,
    rows,
    [],
    'Vote share (%)',
  );
}

export interface SeriesLine {
  label: string;
  /** A shorter label (an abbreviation), used where the label does not fit a phone's chart. */
  short?: string;
  colour: string;
  /** One value per election; null where the party did not stand. */
  values: (number | null)[];
}

/**
 * Lines across elections, each labelled at its last point (labels nudged apart so that close values stay readable).
 * `narrow` draws it for a phone's width.
 */
export function overTimeChart(
  label: string,
  years: string[],
  lines: SeriesLine[],
  axisLabel: string,
  narrow: boolean,
): string {
  const width = narrow ? NARROW : WIDTH;
  const height = narrow ? 340 : 420;
  const marginTop = 16;
  const marginBottom = 34;
  // A phone's chart gives its labels at most a third of its width; a longer label is written short.
  const room = narrow ? Math.floor(width / 3) : 250;
  const labelOf = (l: SeriesLine) => (l.label.length * 7 + 10 > room && l.short ? l.short : l.label);
  const points = lines.flatMap((l) =>
    l.values
      .map((v, i) => (v === null ? null : { label: l.label, year: years[i]!, value: v, colour: l.colour }))
      .filter((p) => p !== null),
  );
  const max = Math.max(1, ...points.map((p) => p!.value)) * 1.05;
  // End labels at least 14 px apart, in data units, among those at the same election.
  const gap = (14 * max) / (height - marginTop - marginBottom);
  const ends = lines
    .map((l) => {
      const i = l.values.findLastIndex((v) => v !== null);
      return { label: labelOf(l), year: years[i]!, value: l.values[i]!, y: l.values[i]!, colour: l.colour };
    })
    .filter((e) => e.year !== undefined)
    .sort((a, b) => a.value - b.value);
  for (const year of years) {
    const here = ends.filter((e) => e.year === year);
    for (let i = 1; i < here.length; i++) if (here[i]!.y - here[i - 1]!.y < gap) here[i]!.y = here[i - 1]!.y + gap;
  }
  const longest = Math.max(4, ...ends.filter((e) => e.year === years.at(-1)).map((e) => e.label.length));
  return renderChart(
    label,
    {
      width,
      height,
      marginTop,
      marginBottom,
      marginLeft: narrow ? 34 : 44,
      marginRight: Math.min(room, longest * 7 + 12),
      x: { type: 'point', domain: years, label: null, padding: 0.1 },
      y: { label: axisLabel, grid: true, domain: [0, Math.max(max, ...ends.map((e) => e.y))], ticks: narrow ? 5 : 8 },
      marks: [
        Marks.lineY(points, { x: 'year', y: 'value', z: 'label', stroke: 'colour', strokeWidth: 2.5 }),
        Marks.dot(points, { x: 'year', y: 'value', fill: 'colour', stroke: '#222', r: 3.5 }),
        Marks.text(ends, {
          x: 'year',
          y: 'y',
          text: 'label',
          textAnchor: 'start',
          dx: 8,
          fill: '#111',
          stroke: 'white',
          strokeWidth: 3,
        }),
      ],
    },
    { narrow },
  ).svg;
}
