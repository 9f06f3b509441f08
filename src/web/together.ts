// The elections read together, once per version of the data: parties as lines across them, and the people who stood
// in them, with the reviewed lineage and candidate decisions applied.

import {
  candidaciesOf,
  partiesOverTime,
  peopleOf,
  type Election,
  type ElectionsOverTime,
  type People,
} from '../elections/index.js';
import { memoKey } from '../util/version-memos.js';
import { electionLabel, electionModel, elections, type ElectionView } from './catalog-view.js';
import type { ActionClient } from './data.js';
import type { Reviewed } from './reviewed.js';

export interface ElectionsTogether {
  /** Oldest first, with their models. */
  views: ElectionView[];
  models: Election[];
  overTime: ElectionsOverTime;
  people: People;
  /** The line (latest name) a party of an election belongs to. */
  partyLine: (election: string, party: string) => string;
}

const TOGETHER = memoKey<Map<string, Promise<ElectionsTogether>>>('web: elections together');

/** Whether an election's candidate records are the official files (the catalogue's `official_status`). */
export function isOfficial(view: ElectionView): boolean {
  return view.definition.extras.some((e) => e.key === 'official_status' && e.value === 'official');
}

export function electionsTogether(client: ActionClient, reviewed: Reviewed): Promise<ElectionsTogether> {
  return client.memoPromise(TOGETHER, reviewed.version, () => readTogether(client, reviewed));
}

async function readTogether(client: ActionClient, reviewed: Reviewed): Promise<ElectionsTogether> {
  const views = elections(client).slice().reverse();
  const models = await Promise.all(views.map((v) => electionModel(client, v)));
  const overTime = partiesOverTime(
    views.map((view, i) => ({
      name: view.definition.name,
      label: electionLabel(view),
      date: view.election.date,
      house: models[i]!.house,
      totals: models[i]!.totals,
      parties: models[i]!.parties,
      constituencies: models[i]!.constituencies,
    })),
    reviewed.lineage,
  );
  const lineOf = new Map<string, string>();
  overTime.parties.forEach((line) =>
    line.totals.forEach((t, i) => {
      if (t) lineOf.set(`${overTime.elections[i]!.name}\u0000${t.party}`, line.party);
    }),
  );
  const partyLine = (election: string, party: string) =>
    lineOf.get(`${election}\u0000${party || 'No party given'}`) ?? party;
  const candidacies = views.flatMap((view, i) =>
    candidaciesOf({
      name: view.definition.name,
      label: electionLabel(view),
      date: view.election.date,
      official: isOfficial(view),
      election: models[i]!,
    }),
  );
  return { views, models, overTime, people: peopleOf(candidacies, reviewed.matches, partyLine), partyLine };
}
