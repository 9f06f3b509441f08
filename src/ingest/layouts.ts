// Layouts: how rows are read from files. `csv` maps each field to a header (every declared column present once,
// nothing undeclared) and streams; `json` takes one record per match of a path in each document, a field per JSON
// path, and reads each document whole. Named presets (stv-running-totals) are a base layout with its records and
// columns said once in src/catalog/source-kinds.ts. Every value is typed for its field here, so whatever reads the
// rows gets them checked, with the file, line, column or JSON pointer of any problem.

import { jsonColumnProblem, LAYOUT_PRESETS, layoutBase, parseJsonPath } from '../catalog/source-kinds.js';
import { jsonSyntaxError, lineOf, pointerText } from '../catalog/json-location.js';
import type { FieldDefinition, LayoutSourceDefinition } from '../catalog/types.js';
import { parseCell, ValueError, type StoredValue } from '../catalog/values.js';
import { correctionJson, correctionsFor, type Correction } from './corrections.js';
import { LoadError, readCsvRecords } from './csv.js';
import { decodedText } from './encoding.js';
import type { ResolvedFile } from './files.js';
import { loadError, origin, typedValue, type TableRow } from './table.js';

export interface LayoutRead {
  source: LayoutSourceDefinition;
  fields: readonly FieldDefinition[];
  files: readonly ResolvedFile[];
  corrections: Correction[];
}

/** The rows of a layout source, in file order then record order. */
export function readLayout(read: LayoutRead): AsyncGenerator<TableRow> {
  return layoutBase(read.source.layout) === 'json' ? readJson(read) : readCsv(read);
}

// ---- csv

/** `/<line>/<column header>` → the correction, for one file. */
function csvCorrections(corrections: Correction[]): Map<number, Map<string, Correction>> {
  const byLine = new Map<number, Map<string, Correction>>();
  for (const c of corrections) {
    const match = /^\/(\d+)\/(.+)$/.exec(c.location);
    if (!match) throw loadError(c.origin, `a CSV file's correction is located as /<line>/<column header>, not ${c.location}`);
    const line = Number(match[1]);
    if (!byLine.has(line)) byLine.set(line, new Map());
    byLine.get(line)!.set(match[2]!.replace(/~1/g, '/').replace(/~0/g, '~'), c);
  }
  return byLine;
}

async function* readCsv({ source, fields, files, corrections }: LayoutRead): AsyncGenerator<TableRow> {
  for (const file of files) {
    const name = file.name;
    const fixes = csvCorrections(correctionsFor(corrections, name));
    let header: string[] | null = null;
    let positions: number[] = [];
    for await (const { cells, line } of readCsvRecords(file.located.file, name, file.scan, source.delimiter, source.repair)) {
      if (header === null) {
        header = cells.map((c) => c.trim());
        const found = header;
        positions = fields.map((field) => {
          const at = found.indexOf(field.column);
          if (at === -1) throw new LoadError(name, line, null, `header has no column "${field.column}" (for field "${field.id}"); found: ${found.map((h) => `"${h}"`).join(', ')}`);
          return at;
        });
        const unexpected = found.findIndex((_, i) => !positions.includes(i));
        if (unexpected !== -1 && source.extraColumns === 'error') throw new LoadError(name, line, unexpected + 1, `header has column "${found[unexpected]}", which the catalogue does not declare`);
        continue;
      }
      if (cells.length !== header.length) {
        throw new LoadError(name, line, Math.min(cells.length, header.length) + 1, `row has ${cells.length} cells, the header has ${header.length}`);
      }
      const fix = fixes.get(line);
      if (fix) {
        for (const [column, c] of fix) {
          const at = header.indexOf(column);
          if (at === -1) continue;
          if (cells[at] !== c.published) throw loadError(c.origin, `${name} line ${line} column "${column}" holds "${cells[at]}", not the published "${c.published}" the correction expects: review it`);
          cells[at] = c.corrected;
          c.used = true;
        }
      }
      const values: StoredValue[] = new Array(fields.length);
      for (let i = 0; i < fields.length; i++) {
        const field = fields[i]!;
        const at = positions[i]!;
        try {
          values[i] = parseCell(cells[at]!, field.type, field.format);
        } catch (err) {
          if (!(err instanceof ValueError)) throw err;
          throw new LoadError(name, line, at + 1, `field "${field.id}" (${field.type}): ${err.message}`);
        }
      }
      yield { values, origin: origin(name, { line }) };
    }
    if (header === null) throw new LoadError(name, null, null, 'the file is empty (no header row)');
  }
}

// ---- json

type Segment = string;
const parsePath = parseJsonPath;

/** How a field's value is found: the file's name, or a path whose `*` and `#` are bound by the records path. */
type ColumnPlan = { kind: 'file' } | { kind: 'stem' } | { kind: 'path'; segments: Segment[] };

function columnPlan(field: FieldDefinition, records: string, presetColumns: Record<string, { path: string }> | null): ColumnPlan {
  const column = presetColumns?.[field.column]?.path ?? field.column;
  if (column === '$file') return { kind: 'file' };
  if (column === '$stem') return { kind: 'stem' };
  const problem = jsonColumnProblem(records, column);
  if (problem) throw new Error(`field "${field.id}": ${problem}`);
  return { kind: 'path', segments: parsePath(column) };
}

function child(value: unknown, segment: string): unknown {
  if (Array.isArray(value)) return /^\d+$/.test(segment) ? value[Number(segment)] : undefined;
  if (value !== null && typeof value === 'object') return Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  return undefined;
}

/** Every match of the records path: the concrete path of each record, in document order. */
function* matches(value: unknown, segments: Segment[], at: string[] = []): Generator<string[]> {
  if (segments.length === 0) {
    yield at;
    return;
  }
  const [first, ...rest] = segments as [Segment, ...Segment[]];
  if (first !== '*') {
    const next = child(value, first);
    if (next !== undefined) yield* matches(next, rest, [...at, first]);
    return;
  }
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* matches(value[i], rest, [...at, String(i)]);
  else if (value !== null && typeof value === 'object') for (const key of Object.keys(value)) yield* matches((value as Record<string, unknown>)[key], rest, [...at, key]);
}

function applyJsonCorrections(document: unknown, fixes: readonly Correction[], name: string): unknown {
  let root = document;
  for (const c of fixes) {
    const segments = parsePath(c.location);
    const published = correctionJson(c, 'published');
    const corrected = correctionJson(c, 'corrected');
    const parent = segments.slice(0, -1).reduce<unknown>((v, s) => child(v, s), root);
    const key = segments[segments.length - 1];
    const current = key === undefined ? root : child(parent, key);
    if (current === undefined) throw loadError(c.origin, `${name} has no ${c.location}`);
    if (JSON.stringify(current) !== JSON.stringify(published)) {
      throw loadError(c.origin, `${name} ${c.location} holds ${JSON.stringify(current)}, not the published ${c.published} the correction expects: review it`);
    }
    if (key === undefined) root = corrected;
    else if (Array.isArray(parent)) parent[Number(key)] = corrected;
    else (parent as Record<string, unknown>)[key] = corrected;
    c.used = true;
  }
  return root;
}

function stemOf(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  return base.replace(/\.[^.]*$/, '');
}

async function* readJson({ source, fields, files, corrections }: LayoutRead): AsyncGenerator<TableRow> {
  const preset = LAYOUT_PRESETS[source.layout] ?? null;
  const records = source.records ?? '';
  const plans = fields.map((field) => {
    try {
      return columnPlan(field, records, preset?.columns ?? null);
    } catch (err) {
      throw new LoadError(source.path, null, null, (err as Error).message);
    }
  });
  const recordSegments = parsePath(records);
  for (const file of files) {
    const name = file.name;
    const text = await decodedText(file.located.file, file.scan, source.repair);
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (err) {
      const where = jsonSyntaxError(text);
      throw new LoadError(name, where?.line ?? null, where?.column ?? null, `not valid JSON: ${where?.problem ?? (err as Error).message}`);
    }
    document = applyJsonCorrections(document, correctionsFor(corrections, name), name);
    let any = false;
    for (const at of matches(document, recordSegments)) {
      any = true;
      const values: StoredValue[] = new Array(fields.length);
      for (let i = 0; i < fields.length; i++) {
        const plan = plans[i]!;
        let raw: unknown;
        // Each * and # stands for the record's own segment at that position.
        const bound = (j: number, s: string) => (s === '*' || s === '#' ? at[j]! : s);
        if (plan.kind === 'file') raw = name;
        else if (plan.kind === 'stem') raw = stemOf(name);
        else if (plan.segments[plan.segments.length - 1] === '#') {
          const position = at[plan.segments.length - 1]!;
          raw = /^\d+$/.test(position) ? Number(position) + 1 : position;
        } else {
          raw = document;
          for (let j = 0; j < plan.segments.length && raw !== undefined; j++) raw = child(raw, bound(j, plan.segments[j]!));
        }
        try {
          values[i] = typedValue(raw, fields[i]!);
        } catch (err) {
          if (!(err instanceof ValueError)) throw err;
          // The place is worked out only for a message.
          const where = plan.kind === 'path' ? plan.segments.map((s, j) => bound(j, s)) : at;
          throw new LoadError(name, lineOf(text, where), null, `field "${fields[i]!.id}" (${fields[i]!.type}): ${err.message}`, pointerText(where));
        }
      }
      yield { values, origin: origin(name, { pointer: pointerText(at) }) };
    }
    if (!any) throw new LoadError(name, null, null, `no records at ${records || 'the root'}`);
  }
}

/** Line of a pointer in a file's JSON text, for messages about derived rows. */
export async function jsonLine(file: ResolvedFile, pointer: string): Promise<number | null> {
  const text = await decodedText(file.located.file, file.scan);
  return lineOf(text, parsePath(pointer));
}
