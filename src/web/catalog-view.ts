// The catalogue as the explorer presents it: datasets with their served resources, the election datasets found by
// their `election` marker and their resources by role (never by id), and each election's model, read through the
// actions once per version of the data.

import type { CatalogResource } from '../catalog/catalog.js';
import type { DatasetDefinition } from '../catalog/types.js';
import type { ElectionDefinition, ResourceRole } from '../elections/definition.js';
import { Election, type ElectionRecords, type ResourceRecords } from '../elections/index.js';
import { memoKey } from '../util/version-memos.js';
import type { ActionClient } from './data.js';
import { reviewedData } from './reviewed.js';

export interface DatasetView {
  definition: DatasetDefinition;
  resources: CatalogResource[];
}

export interface ElectionView extends DatasetView {
  election: ElectionDefinition;
  /** The dataset's served resources by role. */
  roles: Partial<Record<ResourceRole, CatalogResource>>;
}

/** Served datasets, in catalogue order, each with the resources the store holds. */
export function datasets(client: ActionClient): DatasetView[] {
  const byName = new Map<string, DatasetView>();
  for (const resource of client.catalog.resources) {
    const dataset = resource.dataset;
    if (!dataset) continue;
    let view = byName.get(dataset.name);
    if (!view) {
      view = { definition: dataset, resources: [] };
      byName.set(dataset.name, view);
    }
    view.resources.push(resource);
  }
  return [...byName.values()];
}

/** Election datasets, latest polling day first. */
export function elections(client: ActionClient): ElectionView[] {
  return datasets(client)
    .filter((d): d is DatasetView & { definition: { election: ElectionDefinition } } => d.definition.election !== null)
    .map((d) => {
      const roles: Partial<Record<ResourceRole, CatalogResource>> = {};
      for (const r of d.resources) if (r.definition.role && !roles[r.definition.role]) roles[r.definition.role] = r;
      return { ...d, election: d.definition.election, roles };
    })
    .sort(
      (a, b) => b.election.date.localeCompare(a.election.date) || a.definition.name.localeCompare(b.definition.name),
    );
}

export function electionByName(client: ActionClient, name: string): ElectionView | undefined {
  return elections(client).find((e) => e.definition.name === name);
}

/** A short name for headings and lists: the dataset title up to any colon ("General Election 2020"). */
export function electionLabel(view: DatasetView): string {
  return view.definition.title.split(':')[0]!.trim();
}

/** Each election's model, kept with the version of the data it was read from (a reload's version reads them again). */
const MODELS = memoKey<Map<string, Promise<Election>>>('web: election models');

/** The election's model, read through the actions the first time a page of this version needs it. */
export function electionModel(client: ActionClient, view: ElectionView): Promise<Election> {
  return client.memoPromise(MODELS, view.definition.name, () => loadElection(client, view));
}

async function loadElection(client: ActionClient, view: ElectionView): Promise<Election> {
  const read = async (role: ResourceRole): Promise<ResourceRecords | null> => {
    const resource = view.roles[role];
    if (!resource) return null;
    const result = await client.searchAll({ resource_id: resource.id, sort: '_id' });
    return { fields: resource.fields.map((f) => f.id), records: result.records };
  };
  const [candidates, constituencies, counts] = await Promise.all([
    read('candidates'),
    read('constituencies'),
    read('counts'),
  ]);
  const records: ElectionRecords = { candidates, constituencies, counts };
  // Shown as reviewed: names in the usual spelling, party labels counted as the press counts them.
  return new Election(
    records,
    { seats: view.election.seats, ceannComhairle: view.election.ceannComhairle },
    reviewedData().presentation,
    view.definition.name,
  );
}
