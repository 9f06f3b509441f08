// A constituency's count as a flow (a Sankey diagram), drawn as static SVG on the server: a column per count, a bar per
// candidate still in the count (their running total), bands carrying each candidate's votes to the next count and a
// count's distributed votes to those who gained them, and the votes gone no further at the bottom. The layout is
// fixed rather than relaxed (as d3-sankey would): every candidate keeps one row from count to count, so a reader can
// follow them along it, and the counts are already the layers.

import { countFlow, displayName, NON_TRANSFERABLE, type CountSheet } from '../elections/index.js';
import { plainPartyName } from './election-charts.js';
import { formatNumber } from './format.js';
import { NEUTRAL_COLOUR, partyColour } from './party-colours.js';

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const round = (n: number) => Math.round(n * 10) / 10;

export function countFlowChart(sheet: CountSheet): string {
  const { nodes, links } = countFlow(sheet);
  const columns = sheet.steps.length;
  const order = [...sheet.candidates.map((s) => s.candidate.key), NON_TRANSFERABLE];
  const byKey = new Map(sheet.candidates.map((s) => [s.candidate.key, s]));
  // Labels in plain words: the party's name, or its abbreviation where the name is long.
  const labelOf = (who: string) => {
    if (who === NON_TRANSFERABLE) return 'Non-transferable';
    const c = byKey.get(who)!.candidate;
    const party = c.party ? plainPartyName(c.party) : 'no party';
    return `${displayName(c.surname)} (${party.length <= 18 || !c.partyAbbreviation ? party : c.partyAbbreviation})`;
  };
  const colourOf = (who: string) =>
    who === NON_TRANSFERABLE ? NEUTRAL_COLOUR : partyColour(byKey.get(who)!.candidate.party);

  // Room for the longest label at 12.5 px (about 7.3 px a character) and its figures.
  const longest = Math.max(...order.map((who) => labelOf(who).length));
  const marginLeft = Math.ceil(16 + 7.3 * (longest + 7));
  const marginRight = Math.ceil(16 + 7.3 * (longest + 16));
  const top = 34;
  const gap = 5;
  const nodeWidth = 10;
  // The counts fill what a wide screen's box has room for (about 1,100 px), at least 56 px apart: a long count
  // scrolls in its box rather than shrinking its text.
  const spacing =
    columns > 1 ? Math.max(56, Math.min(96, (1100 - marginLeft - marginRight - nodeWidth) / (columns - 1))) : 0;
  const width = Math.max(760, Math.ceil(marginLeft + marginRight + (columns - 1) * spacing + nodeWidth));
  const height = Math.max(420, 30 * order.length);
  const columnTotals = Array.from({ length: columns }, (_, i) =>
    nodes.filter((n) => n.column === i).reduce((s, n) => s + n.votes, 0),
  );
  const maxNodes = Math.max(...Array.from({ length: columns }, (_, i) => nodes.filter((n) => n.column === i).length));
  const scale = (height - top - 10 - gap * maxNodes) / Math.max(1, ...columnTotals);
  const step = columns > 1 ? (width - marginLeft - marginRight - nodeWidth) / (columns - 1) : 0;

  // Node positions: each column stacked in the sheet's order (first preferences, largest first), non-transferable last.
  const place = new Map<string, { x: number; y: number; h: number }>();
  for (let column = 0; column < columns; column++) {
    let y = top;
    for (const who of order) {
      const node = nodes.find((n) => n.column === column && n.who === who);
      if (!node) continue;
      const h = Math.max(1, node.votes * scale);
      place.set(node.id, { x: marginLeft + column * step, y, h });
      y += h + gap;
    }
  }
  // Band ends: outgoing bands stacked down each source in the order of their targets, incoming down each target.
  const outUsed = new Map<string, number>();
  const inUsed = new Map<string, number>();
  const rank = (id: string) => order.indexOf(id.slice(id.indexOf(':') + 1));
  const sorted = [...links].sort((a, b) => rank(a.target) - rank(b.target) || rank(a.source) - rank(b.source));
  const bands: string[] = [];
  for (const link of sorted) {
    const from = place.get(link.source);
    const to = place.get(link.target);
    if (!from || !to || link.votes <= 0) continue;
    const h = link.votes * scale;
    const y0 = from.y + (outUsed.get(link.source) ?? 0);
    const y1 = to.y + (inUsed.get(link.target) ?? 0);
    outUsed.set(link.source, (outUsed.get(link.source) ?? 0) + h);
    inUsed.set(link.target, (inUsed.get(link.target) ?? 0) + h);
    const x0 = from.x + nodeWidth;
    const x1 = to.x;
    const xm = (x0 + x1) / 2;
    const giver = link.source.slice(link.source.indexOf(':') + 1);
    const fill = link.transfer ? colourOf(giver) : '#c9d1da';
    const d = `M${round(x0)},${round(y0)}C${round(xm)},${round(y0)} ${round(xm)},${round(y1)} ${round(x1)},${round(y1)}L${round(x1)},${round(y1 + h)}C${round(xm)},${round(y1 + h)} ${round(xm)},${round(y0 + h)} ${round(x0)},${round(y0 + h)}Z`;
    bands.push(`<path d="${d}" fill="${fill}" fill-opacity="${link.transfer ? 0.75 : 0.55}"/>`);
  }
  const bars: string[] = [];
  const labels: string[] = [];
  for (const node of nodes) {
    const p = place.get(node.id)!;
    bars.push(
      `<rect x="${round(p.x)}" y="${round(p.y)}" width="${nodeWidth}" height="${round(p.h)}" fill="${colourOf(node.who)}" stroke="#222" stroke-width="0.5"/>`,
    );
  }
  // Labels beside the first and last columns, nudged apart where small candidates' bars sit close together.
  const spread = (items: { y: number; text: string; x: number; anchor: 'start' | 'end' }[]) => {
    items.sort((a, b) => a.y - b.y);
    for (let i = 1; i < items.length; i++) if (items[i]!.y - items[i - 1]!.y < 13) items[i]!.y = items[i - 1]!.y + 13;
    return items;
  };
  const left: { y: number; text: string; x: number; anchor: 'start' | 'end' }[] = [];
  const right: typeof left = [];
  for (const who of order) {
    const first = nodes.find((n) => n.column === 0 && n.who === who);
    if (first) {
      const p = place.get(first.id)!;
      left.push({ x: p.x - 6, y: p.y + p.h / 2, text: `${labelOf(who)} ${formatNumber(first.votes)}`, anchor: 'end' });
    }
    const lastNode = nodes.filter((n) => n.who === who).at(-1);
    if (!lastNode || lastNode.column !== columns - 1) continue;
    const p = place.get(lastNode.id)!;
    const s = byKey.get(who);
    const fate = s?.elected ? ', elected' : '';
    right.push({
      x: p.x + nodeWidth + 6,
      y: p.y + p.h / 2,
      text: `${labelOf(who)} ${formatNumber(lastNode.votes)}${fate}`,
      anchor: 'start',
    });
  }
  let bottom = height;
  for (const l of [...spread(left), ...spread(right)]) {
    labels.push(
      `<text x="${round(l.x)}" y="${round(l.y)}" dy="0.32em"${l.anchor === 'end' ? ' text-anchor="end"' : ''}>${escape(l.text)}</text>`,
    );
    bottom = Math.max(bottom, l.y + 12);
  }
  const heads = Array.from(
    { length: columns },
    (_, i) =>
      `<text x="${round(marginLeft + i * step + nodeWidth / 2)}" y="16" text-anchor="middle" font-weight="600">${i === 0 ? 'Count 1' : i + 1}</text>`,
  );
  const label = `The count in ${sheet.constituency.name} as a flow: a column per count, each candidate's running total as a bar, bands carrying their votes to the next count and each count's distributed votes to those who gained them; the table beside it gives every figure.`;
  return (
    `<svg class="chart flow" role="img" aria-label="${escape(label)}" viewBox="0 0 ${width} ${round(bottom)}" width="${width}" height="${round(bottom)}" xmlns="http://www.w3.org/2000/svg">` +
    `<g>${bands.join('')}</g><g>${bars.join('')}</g><g font-size="12.5" fill="#111">${heads.join('')}${labels.join('')}</g></svg>`
  );
}
