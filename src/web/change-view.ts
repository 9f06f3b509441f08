// What changed at each election since the one before, as its pages show it: the parties' seats and swings nationally,
// the majority line, and each constituency compared with its predecessor where the reviewed lineage allows it (or
// the reason it does not, with the predecessors named). Worked out once per version of the data and reviewed inputs.

import {
  ConstituencyLineage,
  constituencySwing,
  majorityArithmetic,
  partySwingsAt,
  tallyOf,
  type ConstituencyRef,
  type ConstituencySwing,
  type Election,
  type LinkedConstituency,
  type MajorityArithmetic,
  type PartySwing,
} from '../elections/index.js';
import { memoKey } from '../util/version-memos.js';
import { electionLabel, type ElectionView } from './catalog-view.js';
import type { ActionClient } from './data.js';
import type { Reviewed } from './reviewed.js';
import { electionsTogether, type ElectionsTogether } from './together.js';

export interface ElectionRef {
  name: string;
  label: string;
}

export interface ElectionChange {
  election: ElectionRef;
  /** The election before, among those loaded; null for the first. */
  previous: ElectionRef | null;
  /** Every party's change since the election before (empty for the first election). */
  parties: PartySwing[];
  majority: MajorityArithmetic;
  /** Turnout at the election before and at this one. */
  turnout: [number | null, number | null];
  /** The reviewed lineage of every loaded election's constituencies. */
  lineage: ConstituencyLineage;
  /** Each election's label by dataset name, to name the elections the lineage links. */
  labels: Map<string, string>;
  /** A constituency of this election compared with the one before. */
  constituency(key: string): ConstituencyChange;
}

export interface ConstituencyChange {
  previous: ElectionRef | null;
  /** The constituency it is compared with (it is, or continues it); null where the lineage allows no comparison. */
  comparedWith: LinkedConstituency | null;
  /** Where it came from at the election before; what it became at the election after. */
  predecessors: LinkedConstituency[];
  successors: LinkedConstituency[];
  /** The same constituency at every other election, through renames. */
  sameAt: ConstituencyRef[];
  /** Seats and shares by party against the constituency it is compared with. */
  swing: ConstituencySwing | null;
}

const CHANGES = memoKey<Map<string, Promise<Map<string, ElectionChange>>>>('web: change since the election before');

/** The change at every election, by dataset name. */
export function electionChanges(client: ActionClient, reviewed: Reviewed): Promise<Map<string, ElectionChange>> {
  return client.memoPromise(CHANGES, reviewed.version, async () =>
    changesOf(await electionsTogether(client, reviewed), reviewed),
  );
}

export async function electionChange(
  client: ActionClient,
  reviewed: Reviewed,
  name: string,
): Promise<ElectionChange | undefined> {
  return (await electionChanges(client, reviewed)).get(name);
}

function changesOf(together: ElectionsTogether, reviewed: Reviewed): Map<string, ElectionChange> {
  const { views, models, overTime } = together;
  const lineage = new ConstituencyLineage(
    reviewed.places.lineage,
    views.map((view, i) => ({ name: view.definition.name, constituencies: models[i]!.constituencies })),
  );
  const labels = new Map(views.map((v) => [v.definition.name, electionLabel(v)]));
  const refOf = (view: ElectionView): ElectionRef => ({ name: view.definition.name, label: electionLabel(view) });
  const changes = new Map<string, ElectionChange>();
  views.forEach((view, i) => {
    const model = models[i]!;
    const before = i > 0 ? { view: views[i - 1]!, model: models[i - 1]! } : null;
    const previous = before ? refOf(before.view) : null;
    const constituencies = new Map<string, ConstituencyChange>();
    const tally = (election: string, e: Election, key: string) => {
      const constituency = e.constituency(key)!;
      const cc = e.parties.find((p) => p.returnedAutomatically > 0);
      return tallyOf(
        constituency,
        e.candidates(key),
        (party) => together.partyLine(election, party),
        cc ? { party: cc.party, abbreviation: cc.abbreviation } : null,
      );
    };
    changes.set(view.definition.name, {
      election: refOf(view),
      previous,
      parties: partySwingsAt(overTime.parties, i),
      majority: majorityArithmetic(model.totals, model.parties),
      turnout: [before?.model.totals.turnout ?? null, model.totals.turnout],
      lineage,
      labels,
      constituency(key: string): ConstituencyChange {
        let found = constituencies.get(key);
        if (found) return found;
        const name = view.definition.name;
        const comparedWith = lineage.comparedWith(name, key);
        found = {
          previous,
          comparedWith,
          predecessors: lineage.predecessors(name, key),
          successors: lineage.successors(name, key),
          sameAt: lineage.sameAt(name, key),
          swing:
            comparedWith && before
              ? constituencySwing(
                  tally(before.view.definition.name, before.model, comparedWith.constituency.key),
                  tally(name, model, key),
                )
              : null,
        };
        constituencies.set(key, found);
        return found;
      },
    });
  });
  return changes;
}
