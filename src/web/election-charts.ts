// The election views' charts: first preferences against the quota, the race to the quota count by count, where a
// count's votes went, and party vote and seat shares. Each returns SVG for a <figure> that also carries the data.

import { displayName, type CountSheet, type CountStep, type PartyChange, type PartyTotals } from '../elections/index.js';
import { Marks, renderChart } from './charts.js';
import { formatNumber, formatShare } from './format.js';
import { NEUTRAL_COLOUR, partyColour } from './party-colours.js';

const WIDTH = 720;
const ROW = 26;

export function candidateLabel(s: { candidate: { surname: string; firstName: string; party: string; partyAbbreviation: string } }): string {
  const c = s.candidate;
  return `${displayName(c.firstName)} ${displayName(c.surname)} (${c.partyAbbreviation || c.party || 'no party given'})`.trim();
}

function marginFor(labels: string[]): number {
  return Math.min(260, 12 + 6.2 * Math.max(...labels.map((l) => l.length), 8));
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
  return renderChart(`First preferences in ${sheet.constituency.name}, against the quota of ${formatNumber(quota)} and a quarter quota of ${formatNumber(quarterQuota)}.`, {
    width: WIDTH, height: 54 + rows.length * ROW, marginTop: 24, marginLeft: marginFor(labels), marginRight: 150,
    x: { label: 'First-preference votes', grid: true, domain: [0, max * 1.02] },
    y: { label: null, domain: labels },
    marks: [
      Marks.barX(rows, { x: 'votes', y: 'label', fill: 'colour', stroke: '#222', strokeWidth: 0.5 }),
      Marks.text(rows, { x: 'votes', y: 'label', text: 'text', textAnchor: 'start', dx: 4, fill: '#222', stroke: 'white', strokeWidth: 3 }),
      Marks.ruleX([quota], { stroke: '#111', strokeWidth: 2 }),
      Marks.ruleX([quarterQuota], { stroke: '#111', strokeDasharray: '2 3' }),
      Marks.text([quota], { x: (d: number) => d, frameAnchor: 'top', text: () => 'quota', dy: -14, textAnchor: 'start', dx: 3, fill: '#111' }),
      Marks.text([quarterQuota], { x: (d: number) => d, frameAnchor: 'top', text: () => '¼ quota', dy: -14, textAnchor: 'start', dx: 3, fill: '#111' }),
    ],
  }).svg;
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
  const labels = sheet.candidates.map(candidateLabel);
  const quota = sheet.constituency.quota;
  const totals = sheet.candidates.map((s) => s.cells.slice(0, upTo).reduce((sum, c, i) => sum + (i === 0 ? s.candidate.firstPreferences : Math.max(0, c.transfer ?? 0)), 0));
  return renderChart(`Votes gained by each candidate in ${sheet.constituency.name} up to count ${upTo}, count by count, against the quota of ${formatNumber(quota)}.`, {
    width: WIDTH, height: 40 + labels.length * ROW, marginLeft: marginFor(labels), marginRight: 24,
    x: { label: 'Votes gained (first preferences, then transfers)', grid: true, domain: [0, Math.max(quota, ...totals) * 1.02] },
    y: { label: null, domain: labels },
    color: { domain: colours.map((_, i) => `Count ${i + 1}`), range: colours },
    marks: [
      Marks.barX(segments, Marks.stackX({ x: 'votes', y: 'label', fill: 'count', order: null, stroke: 'white', strokeWidth: 0.5 })),
      Marks.ruleX([quota], { stroke: '#111', strokeWidth: 2, strokeDasharray: '6 3' }),
    ],
  }).svg;
}

/** Where a count's votes went: each candidate's gain, and the votes that went no further. */
export function transfersChart(sheet: CountSheet, step: CountStep): string {
  const rows = step.gains.map((g) => ({
    label: candidateLabel({ candidate: g.candidate }), votes: g.votes, colour: partyColour(g.candidate.party),
  }));
  if (step.nonTransferable > 0) rows.push({ label: 'Non-transferable', votes: step.nonTransferable, colour: NEUTRAL_COLOUR });
  const labels = rows.map((r) => r.label);
  return renderChart(`Where the votes distributed at count ${step.count} in ${sheet.constituency.name} went.`, {
    width: WIDTH, height: 40 + Math.max(1, rows.length) * ROW, marginLeft: marginFor(labels), marginRight: 70,
    x: { label: 'Votes received at this count', grid: true },
    y: { label: null, domain: labels },
    marks: [
      Marks.barX(rows, { x: 'votes', y: 'label', fill: 'colour', stroke: '#222', strokeWidth: 0.5 }),
      Marks.text(rows, { x: 'votes', y: 'label', text: (d: { votes: number }) => formatNumber(d.votes), textAnchor: 'start', dx: 4, fill: '#222' }),
    ],
  }).svg;
}

/** Each party's share of the vote (circle) and of the seats (diamond). */
export function sharesChart(parties: readonly PartyTotals[], electionLabel: string): string {
  const rows = parties.flatMap((p) => [
    { party: p.abbreviation, measure: 'Vote share', share: p.voteShare * 100, colour: partyColour(p.party) },
    { party: p.abbreviation, measure: 'Seat share', share: p.seatShare * 100, colour: partyColour(p.party) },
  ]);
  const labels = parties.map((p) => p.abbreviation);
  return renderChart(`Share of first-preference votes and share of seats by party, ${electionLabel}.`, {
    width: WIDTH, height: 40 + labels.length * ROW, marginLeft: marginFor(labels), marginRight: 24,
    x: { label: 'Share (%)', grid: true, domain: [0, Math.max(5, ...rows.map((r) => r.share)) * 1.05] },
    y: { label: null, domain: labels },
    symbol: { domain: ['Vote share', 'Seat share'], range: ['circle', 'diamond'] },
    marks: [
      Marks.ruleY(parties.map((p) => p.abbreviation), { stroke: '#ddd' }),
      Marks.dot(rows, { x: 'share', y: 'party', symbol: 'measure', fill: 'colour', stroke: '#222', r: 5 }),
    ],
  }).svg;
}

/** Change in vote share between two elections, by party, in percentage points. */
export function shareChangeChart(parties: readonly PartyChange[], label: string): string {
  const rows = parties.filter((p) => p.shareChange !== null).map((p) => ({ party: p.abbreviation, change: p.shareChange!, colour: partyColour(p.party) }));
  const labels = rows.map((r) => r.party);
  return renderChart(`Change in first-preference vote share by party, ${label}, in percentage points.`, {
    width: WIDTH, height: 40 + Math.max(1, rows.length) * ROW, marginLeft: marginFor(labels), marginRight: 40,
    x: { label: 'Change in vote share (percentage points)', grid: true },
    y: { label: null, domain: labels },
    marks: [
      Marks.barX(rows, { x: 'change', y: 'party', fill: 'colour', stroke: '#222', strokeWidth: 0.5 }),
      Marks.ruleX([0], { stroke: '#111' }),
    ],
  }).svg;
}
