// The transforms resources can be derived by, by the name the catalogue uses (their inputs, options and columns are
// declared in src/catalog/source-kinds.ts). Each is a pure function from checked tables to rows.

import { TRANSFORM_SPECS } from '../../catalog/source-kinds.js';
import type { DatasetDefinition } from '../../catalog/types.js';
import { origin, type DerivedRow, type Table } from '../table.js';
import { checkRows, runChecks } from './checks.js';
import { constituenciesFromCounts } from './official.js';
import { candidateRows, constituencyRows, countDetailRows } from './stv.js';

export interface TransformCall {
  /** Each input the catalogue gave, as one table; an optional input it did not give is null. */
  inputs: Record<string, Table | null>;
  options: Record<string, unknown>;
  dataset: DatasetDefinition;
}

export type TransformFunction = (call: TransformCall) => DerivedRow[];

const need = (call: TransformCall, name: string): Table => {
  const table = call.inputs[name];
  if (!table) throw new Error(`input "${name}" is missing`);
  return table;
};

export const TRANSFORMS: Record<string, TransformFunction> = {
  'stv-count-details': (call) => countDetailRows(need(call, 'totals'), need(call, 'statistics'), call.options),
  'stv-candidate-results': (call) =>
    candidateRows(
      need(call, 'totals'),
      need(call, 'statistics'),
      call.inputs.parties ?? null,
      call.inputs.irish_names ?? null,
      call.options,
    ),
  'stv-constituency-results': (call) =>
    constituencyRows(
      need(call, 'totals'),
      need(call, 'statistics'),
      call.inputs.irish_names ?? null,
      call.options,
      call.dataset,
    ),
  'count-details-constituency-results': (call) =>
    constituenciesFromCounts(need(call, 'counts'), need(call, 'candidates'), need(call, 'statistics'), call.dataset),
  'election-checks': (call) =>
    checkRows(
      runChecks(
        need(call, 'candidates'),
        need(call, 'constituencies'),
        need(call, 'counts'),
        call.inputs.corrections ?? null,
        call.inputs.known_faults ?? null,
        call.dataset,
        call.inputs.expenses ?? null,
      ),
      origin(`the ${call.dataset.name} tables`),
    ),
};

/** Names the catalogue vocabulary declares but no code implements, or the other way round (a test asserts none). */
export function unimplementedTransforms(): string[] {
  const declared = Object.keys(TRANSFORM_SPECS);
  const implemented = Object.keys(TRANSFORMS);
  return [...declared.filter((n) => !implemented.includes(n)), ...implemented.filter((n) => !declared.includes(n))];
}
