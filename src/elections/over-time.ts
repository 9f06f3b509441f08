// Every election at once: each party's seats, first-preference share and candidates from the first election loaded to
// the last, one line per party. Parties are matched from one election to the next as the comparison matches them (name
// without fadas, case or a leading "The"; the same words in another order; the abbreviation), and by the reviewed
// lineage of renamed parties, which names the line a party belongs to.

import { partyMatchKey } from './names.js';
import type { ElectionSummary } from './compare.js';
import type { PartyTotals } from './types.js';

/** A reviewed statement that a party, as one election's records name it, is the party another election names `line`. */
export interface PartyLineage {
  /** The election's dataset name. */
  election: string;
  party: string;
  line: string;
  evidence: string;
}

export interface PartyLine {
  /** URL-safe key of the line: its latest name's. */
  key: string;
  /** As the latest election it stood in names it. */
  party: string;
  abbreviation: string;
  /** The party's totals in each election, in the order given (null where it did not stand). */
  totals: (PartyTotals | null)[];
  /** The lineage statements that joined it, with their evidence. */
  lineage: PartyLineage[];
}

export interface ElectionsOverTime {
  /** Oldest first. */
  elections: ElectionSummary[];
  /** Largest first-preference share in the latest election first, then the earlier ones. */
  parties: PartyLine[];
}

function wordsKey(name: string): string {
  return partyMatchKey(name).split(' ').sort().join(' ');
}

/** The elections' parties as lines across them; `elections` in any order, returned oldest first. */
export function partiesOverTime(
  elections: readonly (ElectionSummary & { date: string })[],
  lineage: readonly PartyLineage[] = [],
): ElectionsOverTime {
  const ordered = [...elections].sort((a, b) => a.date.localeCompare(b.date));
  const lines: PartyLine[] = [];
  const names = (line: PartyLine) => line.totals.filter((t): t is PartyTotals => t !== null).map((t) => t.party);
  ordered.forEach((election, index) => {
    const taken = new Set<PartyLine>();
    const latest = (line: PartyLine) =>
      line.totals
        .slice(0, index)
        .reverse()
        .find((t) => t !== null) ?? null;
    const free = (found: PartyLine | undefined) => (found && !taken.has(found) ? found : undefined);
    for (const party of election.parties) {
      const rule = lineage.find(
        (r) => r.election === election.name && partyMatchKey(r.party) === partyMatchKey(party.party),
      );
      let line: PartyLine | undefined;
      if (rule) {
        // The line the lineage names: a party of another election by that name, earlier or (once made) later.
        line = free(
          lines.find(
            (l) =>
              names(l).some((n) => partyMatchKey(n) === partyMatchKey(rule.line)) ||
              partyMatchKey(l.party) === partyMatchKey(rule.line),
          ),
        );
      } else {
        const candidates = lines.filter((l) => latest(l) !== null);
        line =
          free(candidates.find((l) => partyMatchKey(latest(l)!.party) === partyMatchKey(party.party))) ??
          free(candidates.find((l) => wordsKey(latest(l)!.party) === wordsKey(party.party))) ??
          free(candidates.find((l) => latest(l)!.abbreviation === party.abbreviation && party.abbreviation !== ''));
      }
      if (!line) {
        line = {
          key: '',
          party: party.party,
          abbreviation: party.abbreviation,
          totals: new Array(ordered.length).fill(null),
          lineage: [],
        };
        lines.push(line);
      }
      if (rule) line.lineage.push(rule);
      taken.add(line);
      line.totals[index] = party;
      line.party = party.party;
      line.abbreviation = party.abbreviation;
    }
  });
  // A lineage rule naming a later election's party joins an earlier line only once that party is met: lines still
  // named by a rule's target are merged with the line that holds it, when they never stood in the same election.
  for (const line of [...lines]) {
    for (const rule of line.lineage) {
      const target = lines.find(
        (l) => l !== line && names(l).some((n) => partyMatchKey(n) === partyMatchKey(rule.line)),
      );
      if (!target || target.totals.some((t, i) => t !== null && line.totals[i] !== null)) continue;
      target.totals = target.totals.map((t, i) => t ?? line.totals[i] ?? null);
      target.lineage.push(...line.lineage);
      lines.splice(lines.indexOf(line), 1);
      break;
    }
  }
  const used = new Set<string>();
  for (const line of lines) {
    const last = line.totals.findLast((t) => t !== null)!;
    let key = last.key;
    for (let n = 2; used.has(key); n++) key = `${last.key}-${n}`;
    used.add(key);
    line.key = key;
  }
  const share = (line: PartyLine, i: number) => line.totals[i]?.voteShare ?? -1;
  lines.sort((a, b) => {
    for (let i = ordered.length - 1; i >= 0; i--) if (share(a, i) !== share(b, i)) return share(b, i) - share(a, i);
    return a.party.localeCompare(b.party);
  });
  return { elections: ordered, parties: lines };
}
