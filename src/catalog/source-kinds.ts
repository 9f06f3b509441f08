// The vocabulary of the catalogue's sources: the layouts files can be read with and the transforms resources can be
// derived by, with what each needs and yields, so that a catalogue is checked before anything is read. The election
// layouts and transforms themselves are src/elections/sources.ts's; the code that reads and derives lives in
// src/ingest/, and a test keeps the two in step.

import { ELECTION_TRANSFORMS, STV_RUNNING_TOTALS } from '../elections/sources.js';
import type { FieldType } from './types.js';

/** What a transform needs of an input column: text, or a number of any numeric type. */
export type ColumnKind = 'text' | 'number';

export interface TransformInputSpec {
  required: boolean;
  /** Columns the transform reads, by field id, with the kind each must be. */
  columns: Record<string, ColumnKind>;
  description: string;
}

export interface TransformColumnSpec {
  name: string;
  /** Default data dictionary notes of a field taken from this column (the catalogue may give its own). */
  notes: string;
}

export type OptionType = 'boolean' | 'string' | 'string-map';

export interface TransformOptionSpec {
  type: OptionType;
  description: string;
}

export interface TransformSpec {
  name: string;
  description: string;
  inputs: Record<string, TransformInputSpec>;
  options: Record<string, TransformOptionSpec>;
  columns: TransformColumnSpec[];
  /**
   * Changes whenever the transform would derive different rows from the same inputs, so that they are derived again.
   */
  version: number;
}

/** Every transform a resource can be derived by, by name: so far those of election data. */
export const TRANSFORM_SPECS: Record<string, TransformSpec> = Object.fromEntries(
  (ELECTION_TRANSFORMS satisfies readonly TransformSpec[]).map((spec) => [spec.name, spec]),
);

/** A column a layout preset offers, and where it is in each file. */
export interface PresetColumn {
  /** A JSON path (see the json layout), `$file` or `$stem`. */
  path: string;
  type: FieldType;
  notes: string;
}

export interface LayoutPreset {
  name: string;
  /** The layout the preset is made of. */
  base: 'json';
  records: string;
  columns: Record<string, PresetColumn>;
  /** Where each file says what it was taken from (recorded with the load, and shown as the dataset's attribution). */
  about: { title: string; url: string } | null;
}

/**
 * How a file is read: delimited text (`csv`), JSON (records at a path of one document), NDJSON (a JSON record per
 * line), an Excel workbook's sheet (`xlsx`) or Parquet. `csv`, `xlsx` and `parquet` fields name their column; `json`
 * and `ndjson` fields give a JSON path.
 */
export const BASE_LAYOUTS = ['csv', 'json', 'ndjson', 'xlsx', 'parquet'] as const;
export type BaseLayout = (typeof BASE_LAYOUTS)[number];

/** Layouts with a name of their own: a base layout with its records and columns already said. */
export const LAYOUT_PRESETS: Record<string, LayoutPreset> = {
  [STV_RUNNING_TOTALS.name]: STV_RUNNING_TOTALS satisfies LayoutPreset,
};

/** The segments of a JSON path (RFC 6901 pointer syntax, `*` for every element, `#` for an element's position). */
export function parseJsonPath(text: string): string[] {
  if (text === '') return [];
  return text
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Whether `column` can be read for each record of a json layout whose records are at `records`: each `*` or `#` in
 * it must stand where the records path has a `*`, with the same segments before it, and `#` (the position of the
 * element, from 1) must end the path. Returns the problem, or null.
 */
export function jsonColumnProblem(records: string, column: string): string | null {
  if (column === '$file' || column === '$stem') return null;
  if (!column.startsWith('/')) return `"${column}" is not a JSON path (it must begin with "/"), $file or $stem`;
  const recordSegments = parseJsonPath(records);
  const segments = parseJsonPath(column);
  const hash = segments.indexOf('#');
  if (hash !== -1 && hash !== segments.length - 1) return `"${column}": # (the position) must end the path`;
  const lastWildcard = segments.reduce((last, s, i) => (s === '*' || s === '#' ? i : last), -1);
  for (let i = 0; i <= lastWildcard; i++) {
    const s = segments[i]!;
    if (s === '*' || s === '#' ? recordSegments[i] !== '*' : s !== recordSegments[i]) {
      return `"${column}" must follow the records path "${records}" up to its last * or #`;
    }
  }
  return null;
}

export function layoutBase(layout: string): BaseLayout | null {
  if ((BASE_LAYOUTS as readonly string[]).includes(layout)) return layout as BaseLayout;
  return LAYOUT_PRESETS[layout]?.base ?? null;
}
