// Layouts: how rows are read from files. `csv` maps each field to a header (every declared column present once,
// nothing undeclared) and streams; `json` takes one record per match of a path in each document, a field per JSON
// path, and reads each document whole. Named presets (stv-running-totals) are a base layout with its records and
// columns said once in src/catalog/source-kinds.ts. Every value is typed for its field here, so whatever reads the
// rows gets them checked, with the file, line, column or JSON pointer of any problem.

import { jsonColumnProblem, LAYOUT_PRESETS, layoutBase, parseJsonPath } from '../catalog/source-kinds.js';
import { lineOf, parseJsonOr, pointerText } from '../catalog/json-location.js';
import type { FieldDefinition, LayoutSourceDefinition } from '../catalog/types.js';
import { parseCell, ValueError, type StoredValue } from '../catalog/values.js';
import { correctionJson, correctionsFor, type Correction } from './corrections.js';
import { LoadError } from './csv.js';
import { decodedText } from './encoding.js';
import type { ResolvedFile } from './files.js';
import { openDelimited } from './readers/delimited.js';
import { publicName } from './source.js';
import { openJson, openJsonColumns } from './readers/json.js';
import { openTypedFile } from './readers/open.js';
import { widthOf, type RawRow, type TableReader } from './readers/types.js';
import { loadError, origin, typedValue, type Origin, type TableRow } from './table.js';

export interface LayoutRead {
  source: LayoutSourceDefinition;
  fields: readonly FieldDefinition[];
  files: readonly ResolvedFile[];
  corrections: Correction[];
}

/**
 * The rows of a layout source, in file order then record order, in the batches they were read in: one step of
 * asynchronous iteration a batch, not a row (a chain of per-row async generators cost about 1 µs a row a link).
 */
export function readLayout(read: LayoutRead): AsyncGenerator<TableRow[]> {
  const base = layoutBase(read.source.layout);
  if (base === 'json' || base === 'ndjson') {
    const streamed = streamedPlans(read.source, read.fields, base);
    if (streamed) return readJsonRecords(read, base, streamed);
    if (read.source.orient === 'columns')
      throw new LoadError(
        publicName(read.source.path),
        null,
        null,
        'a json layout of columns (orient "columns") reads each record\'s member of every column: its fields (and id_column) are "/*/name", $file or $stem',
      );
    if (base === 'ndjson')
      throw new LoadError(
        publicName(read.source.path),
        null,
        null,
        'an ndjson layout\'s fields (and id_column) read keys of each line\'s object ("/name", "/address/city"), $file or $stem',
      );
    if (read.source.idColumn !== null)
      throw new LoadError(
        publicName(read.source.path),
        null,
        null,
        'id_column needs records that are the elements of one array ("/items/*") and an id read from each ("/items/*/id")',
      );
    return readJson(read);
  }
  if (base === 'csv') return readCsv(read);
  return readTypedFiles(read, base!);
}

// ---- tables: csv, ndjson, streamed json (and any other reader of src/ingest/readers)

/** `/<line>/<column header>` → the correction, for one file. */
function csvCorrections(corrections: Correction[]): Map<number, Map<string, Correction>> {
  const byLine = new Map<number, Map<string, Correction>>();
  for (const c of corrections) {
    const match = /^\/(\d+)\/(.+)$/.exec(c.location);
    if (!match)
      throw loadError(c.origin, `a CSV file's correction is located as /<line>/<column header>, not ${c.location}`);
    const line = Number(match[1]);
    if (!byLine.has(line)) byLine.set(line, new Map());
    byLine.get(line)!.set(match[2]!.replace(/~1/g, '/').replace(/~0/g, '~'), c);
  }
  return byLine;
}

/** Where a field's value is in a reader's row: a column, and within its value (a JSON object) a path. */
interface CellPlan {
  column: string;
  /** Keys below the column's value, for a nested JSON value ([] for the value itself). */
  within: string[];
  /** `$file` or `$stem`: the file's name, not a cell. */
  constant: string | null;
}

/**
 * The rows of one file through a TableReader, each field's value found by its column and typed for it. CSV rows are
 * checked for width (a longer row is an error at its first extra cell; a shorter one is an error or padded, as the
 * source says) and corrected where a reviewed correction names their line.
 */
async function* readTable(
  reader: TableReader,
  name: string,
  fields: readonly FieldDefinition[],
  fieldPlans: readonly CellPlan[],
  options: {
    /** Where each record's own `_id` is, when the source has one. */
    idPlan: CellPlan | null;
    extraColumns: 'error' | 'ignore';
    shortRows: 'error' | 'pad';
    corrections: Map<number, Map<string, Correction>> | null;
    /** The header's line, for messages about it. */
    headerLine: number | null;
    /** Delimited text: cells are text, rows are checked for width and corrected by line. */
    delimited?: boolean;
    /** The reader tells NULL from "" (PostgreSQL's CSV): a null cell stays null, in a text field too. */
    keepNulls?: boolean;
    /** Cells that stand for a missing value: null in a field of any type but text (the source's `missing`). */
    missing?: ReadonlySet<string>;
    /** JSON records: columns are keys, and a key may first appear late (fields waiting for it are empty until then). */
    columnsGrow?: boolean;
    pointerOf?: (row: RawRow) => string | null;
  },
): AsyncGenerator<TableRow[]> {
  const { unit } = reader;
  const header = reader.columns;
  // The id column is matched like a field's; it is the last plan.
  const plans = options.idPlan ? [...fieldPlans, options.idPlan] : fieldPlans;
  const idAt = options.idPlan ? plans.length - 1 : -1;
  const text = options.delimited === true;
  // Columns are matched by name; a name the header repeats is taken by its fields in order. Fields that read inside a
  // column's value (a JSON object's members: "/items/*/address/city", "/items/*/address/zip") share it.
  const positions = (): number[] => {
    const taken = new Set<number>();
    return plans.map((plan) => {
      if (plan.constant !== null) return -1;
      const whole = plan.within.length === 0;
      const at = header.findIndex((h, i) => h === plan.column && !(whole && taken.has(i)));
      if (at !== -1 && whole) taken.add(at);
      return at;
    });
  };
  let at = positions();
  const forWhat = (i: number) => (i === idAt ? "for the records' _id" : `for field "${fields[i]!.id}"`);
  const missing = at.findIndex((p, i) => p === -1 && plans[i]!.constant === null);
  const growing = options.columnsGrow === true;
  if (missing !== -1 && !growing) {
    throw new LoadError(
      name,
      options.headerLine,
      null,
      `header has no column "${plans[missing]!.column}" (${forWhat(missing)}); found: ${header.map((h) => `"${h}"`).join(', ')}`,
      null,
      unit,
    );
  }
  // Delimited text's columns with no name that no field reads (a spreadsheet's empty columns, as `add` leaves them
  // out) are passed over while they hold nothing.
  const unnamedUnread =
    text && options.extraColumns === 'error'
      ? header.flatMap((h, i) => (h.trim() === '' && !at.includes(i) ? [i] : []))
      : [];
  if (options.extraColumns === 'error') {
    const unexpected = header.findIndex((_, i) => !at.includes(i) && !unnamedUnread.includes(i));
    if (unexpected !== -1)
      throw new LoadError(
        name,
        options.headerLine,
        unexpected + 1,
        `header has column "${header[unexpected]}", which the catalogue does not declare`,
      );
  }
  let width = header.length;
  let seen = new Set(at.filter((p) => p !== -1));
  for await (const batch of reader.batches()) {
    if (header.length !== width) {
      // A JSON key first seen now: fields waiting for it find it from here on.
      width = header.length;
      at = positions();
      seen = new Set([...seen, ...at.filter((p) => p !== -1)]);
    }
    const out: TableRow[] = [];
    for (const row of batch) {
      const { cells, line } = row;
      if (text) {
        if (cells.length > width) {
          throw new LoadError(name, line, width + 1, `row has ${cells.length} cells, ${widthOf(reader, width)}`);
        }
        if (cells.length < width && options.shortRows === 'error') {
          throw new LoadError(
            name,
            line,
            cells.length + 1,
            `row has ${cells.length} cells, ${widthOf(reader, width)} (the source's short_rows: "pad" fills the rest with empty cells)`,
          );
        }
        for (const i of unnamedUnread)
          if (cells[i] !== undefined && cells[i] !== null && cells[i] !== '')
            throw new LoadError(
              name,
              line,
              i + 1,
              `the unnamed column ${i + 1}, which no field reads, holds ${JSON.stringify(cells[i])}: name it in the header and add a field for it`,
            );
        const fix = options.corrections?.get(line);
        if (fix) {
          for (const [column, c] of fix) {
            const i = header.indexOf(column);
            if (i === -1) continue;
            if (cells[i] !== c.published)
              throw loadError(
                c.origin,
                `${name} line ${line} column "${column}" holds "${cells[i]}", not the published "${c.published}" the correction expects: review it`,
              );
            cells[i] = c.corrected;
            c.used = true;
          }
        }
      }
      const values: StoredValue[] = new Array(fields.length);
      for (let i = 0; i < fields.length; i++) {
        const field = fields[i]!;
        const plan = plans[i]!;
        const position = at[i]!;
        let raw: unknown = plan.constant ?? (position === -1 ? null : cells[position]);
        if (raw === undefined) raw = text ? '' : null;
        for (let j = 0; j < plan.within.length && raw !== null && raw !== undefined; j++)
          raw = child(raw, plan.within[j]!);
        try {
          values[i] =
            typeof raw === 'string'
              ? field.type !== 'text' && options.missing?.has(raw.trim())
                ? null
                : parseCell(raw, field.type, field.format)
              : raw === null && options.keepNulls
                ? null
                : typedValue(raw ?? null, field);
        } catch (err) {
          if (!(err instanceof ValueError)) throw err;
          throw new LoadError(
            name,
            line,
            text ? position + 1 : null,
            `field "${field.id}" (${field.type}): ${err.message}`,
            options.pointerOf?.(row) ?? null,
            unit,
          );
        }
      }
      const where: Origin = {
        file: name,
        line,
        column: null,
        pointer: options.pointerOf ? options.pointerOf(row) : null,
      };
      if (idAt === -1) {
        out.push({ values, origin: where });
        continue;
      }
      const raw = at[idAt] === -1 ? null : cells[at[idAt]!];
      const id =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'bigint'
            ? Number(raw)
            : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw)
              ? Number(raw)
              : NaN;
      if (!Number.isSafeInteger(id) || id < 1) {
        throw new LoadError(
          name,
          line,
          text ? at[idAt]! + 1 : null,
          `the _id column "${options.idPlan!.column}" holds ${JSON.stringify(raw ?? null)}, not a whole number of 1 or more`,
          options.pointerOf?.(row) ?? null,
          unit,
        );
      }
      out.push({ values, origin: where, id });
    }
    if (out.length > 0) yield out;
  }
  const never = plans.findIndex((plan, i) => plan.constant === null && !seen.has(at[i]!));
  if (growing && never !== -1) {
    throw new LoadError(
      name,
      null,
      null,
      `no ${unit} has "${plans[never]!.column}" (${forWhat(never)}); found: ${header.map((h) => `"${h}"`).join(', ')}`,
      null,
      unit,
    );
  }
}

/**
 * The rows of a delimited table opened elsewhere (a CKAN DataStore dump), typed for the fields as a csv layout types
 * them: each field reads the column its `column` names, `idColumn` the records' own `_id`s, and the header has no
 * other column. With `keepNulls`, a null cell (from a reader that tells NULL from "") stays null in a text field.
 */
export function readDelimitedRows(
  reader: TableReader,
  name: string,
  fields: readonly FieldDefinition[],
  options: { idColumn: string | null; keepNulls?: boolean },
): AsyncGenerator<TableRow[]> {
  return readTable(
    reader,
    name,
    fields,
    fields.map((f): CellPlan => ({ column: f.column, within: [], constant: null })),
    {
      idPlan: options.idColumn === null ? null : { column: options.idColumn, within: [], constant: null },
      extraColumns: 'error',
      shortRows: 'error',
      corrections: null,
      headerLine: 1,
      delimited: true,
      keepNulls: options.keepNulls === true,
    },
  );
}

async function* readCsv({ source, fields, files, corrections }: LayoutRead): AsyncGenerator<TableRow[]> {
  const plans = fields.map((f): CellPlan => ({ column: f.column, within: [], constant: null }));
  for (const file of files) {
    const reader = await openDelimited(file.located.file, file.name, {
      encoding: file.scan.encoding,
      bomLength: file.scan.bomLength,
      delimiter: source.delimiter,
      headerRow: source.headerRow,
      repair: source.repair,
      quotes: source.quotes,
      escapes: source.escapes,
      unquotedEmptyIsNull: source.nulls === 'unquoted-empty',
      nullWord: source.nulls === 'NULL',
      leadingSpaces: source.leadingSpaces === 'skip',
      headerPrefix: source.headerPrefix,
      commentMark: source.comments,
    });
    try {
      yield* readTable(reader, file.name, fields, plans, {
        idPlan: source.idColumn === null ? null : { column: source.idColumn, within: [], constant: null },
        extraColumns: source.extraColumns,
        shortRows: source.shortRows,
        corrections: csvCorrections(correctionsFor(corrections, file.name)),
        headerLine: source.headerRow === 0 ? null : source.headerRow,
        delimited: true,
        // Only the text format (\N), PostgreSQL's CSV (an unquoted empty cell) and a NULL word tell NULL from "".
        keepNulls: source.escapes === 'backslash' || source.nulls !== 'empty',
        ...(source.missing.length > 0 ? { missing: new Set(source.missing) } : {}),
      });
    } finally {
      await reader.close();
    }
  }
}

/** Workbooks' sheets and Parquet files: each field takes the column its `column` names. */
async function* readTypedFiles(
  { source, fields, files }: LayoutRead,
  format: 'xlsx' | 'parquet',
): AsyncGenerator<TableRow[]> {
  const plans = fields.map((f): CellPlan => ({ column: f.column, within: [], constant: null }));
  for (const file of files) {
    let reader: TableReader;
    try {
      reader = await openTypedFile(
        file.located.file,
        file.name,
        format === 'xlsx' ? { format, sheet: source.sheet } : { format },
      );
    } catch (err) {
      throw new LoadError(file.name, null, null, (err as Error).message.replace(`${file.name}: `, ''));
    }
    try {
      yield* readTable(reader, file.name, fields, plans, {
        idPlan: source.idColumn === null ? null : { column: source.idColumn, within: [], constant: null },
        extraColumns: 'ignore',
        shortRows: 'pad',
        corrections: null,
        headerLine: null,
        // Parquet tells a null from an empty string, as JSON does; a workbook's empty cell is just empty.
        keepNulls: format === 'parquet',
      });
    } finally {
      await reader.close();
    }
  }
}

/**
 * Where each field of a json layout is in a streamed record: a JSON layout streams when its records are the elements
 * of one array (`/items/*`, `/*`) and each field reads a key of the record (or below it), its file name, or its stem;
 * NDJSON's records are its lines. Null when the layout needs the whole document (a preset, corrections, paths that
 * reach outside the record).
 */
function streamedPlans(
  source: LayoutSourceDefinition,
  fields: readonly FieldDefinition[],
  base: 'json' | 'ndjson',
): { recordsAt: string[]; plans: CellPlan[]; idPlan: CellPlan | null } | null {
  if (LAYOUT_PRESETS[source.layout] || source.corrections) return null;
  const records = parsePath(source.records ?? '');
  const recordsAt = base === 'ndjson' ? [] : records.slice(0, -1);
  if (base === 'json' && (records.at(-1) !== '*' || recordsAt.some((s) => s === '*' || s === '#'))) return null;
  const prefix = base === 'ndjson' ? [] : records;
  const planOf = (column: string): CellPlan | null => {
    if (column === '$file' || column === '$stem') return { column, within: [], constant: '' };
    const segments = parsePath(column);
    const own = segments.slice(prefix.length);
    if (
      segments.length <= prefix.length ||
      prefix.some((s, i) => segments[i] !== s) ||
      own.some((s) => s === '*' || s === '#')
    )
      return null;
    return { column: own[0]!, within: own.slice(1), constant: null };
  };
  const plans: CellPlan[] = [];
  for (const field of fields) {
    const plan = planOf(field.column);
    if (!plan) return null;
    plans.push(plan);
  }
  const idPlan = source.idColumn === null ? null : planOf(source.idColumn);
  if (source.idColumn !== null && (!idPlan || idPlan.constant !== null)) return null;
  return { recordsAt, plans, idPlan };
}

async function* readJsonRecords(
  read: LayoutRead,
  base: 'json' | 'ndjson',
  streamed: NonNullable<ReturnType<typeof streamedPlans>>,
): AsyncGenerator<TableRow[]> {
  const { fields, files } = read;
  for (const file of files) {
    const plans = streamed.plans.map((plan, i) =>
      plan.constant === null
        ? plan
        : { ...plan, constant: fields[i]!.column === '$file' ? file.name : stemOf(file.name) },
    );
    const scan = { encoding: file.scan.encoding, bomLength: file.scan.bomLength };
    const reader =
      read.source.orient === 'columns'
        ? await openJsonColumns(file.located.file, file.name, scan)
        : await openJson(file.located.file, file.name, {
            ...scan,
            lines: base === 'ndjson',
            recordsAt: streamed.recordsAt,
          });
    const prefix =
      base === 'json' ? streamed.recordsAt.map((k) => `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('') : '';
    try {
      yield* readTable(reader, file.name, fields, plans, {
        idPlan: streamed.idPlan,
        extraColumns: 'ignore',
        shortRows: 'pad',
        corrections: null,
        headerLine: null,
        columnsGrow: true,
        // A document of columns has no one place for a record: its number says where it is.
        pointerOf:
          base === 'json' && read.source.orient !== 'columns' ? (row) => `${prefix}/${row.line - 1}` : () => null,
        // JSON tells null (or a missing key) from "": a text field keeps it, as CKAN's DataStore does, so that a
        // JSON dump of a resource with null texts publishes back the same.
        keepNulls: true,
      });
    } finally {
      await reader.close();
    }
  }
}

// ---- json

type Segment = string;
const parsePath = parseJsonPath;

/** How a field's value is found: the file's name, or a path whose `*` and `#` are bound by the records path. */
type ColumnPlan = { kind: 'file' } | { kind: 'stem' } | { kind: 'path'; segments: Segment[] };

function columnPlan(
  field: FieldDefinition,
  records: string,
  presetColumns: Record<string, { path: string }> | null,
): ColumnPlan {
  const column = presetColumns?.[field.column]?.path ?? field.column;
  if (column === '$file') return { kind: 'file' };
  if (column === '$stem') return { kind: 'stem' };
  const problem = jsonColumnProblem(records, column);
  if (problem) throw new Error(`field "${field.id}": ${problem}`);
  return { kind: 'path', segments: parsePath(column) };
}

function child(value: unknown, segment: string): unknown {
  if (Array.isArray(value)) return /^\d+$/.test(segment) ? value[Number(segment)] : undefined;
  if (value !== null && typeof value === 'object')
    return Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
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
  else if (value !== null && typeof value === 'object')
    for (const key of Object.keys(value)) yield* matches((value as Record<string, unknown>)[key], rest, [...at, key]);
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
      throw loadError(
        c.origin,
        `${name} ${c.location} holds ${JSON.stringify(current)}, not the published ${c.published} the correction expects: review it`,
      );
    }
    if (key === undefined) root = corrected;
    else if (Array.isArray(parent)) parent[Number(key)] = corrected;
    else (parent as Record<string, unknown>)[key] = corrected;
    c.used = true;
  }
  return root;
}

/** Records of a whole JSON document handed on at a time. */
const JSON_BATCH_ROWS = 1000;

function stemOf(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  return base.replace(/\.[^.]*$/, '');
}

async function* readJson({ source, fields, files, corrections }: LayoutRead): AsyncGenerator<TableRow[]> {
  const preset = LAYOUT_PRESETS[source.layout] ?? null;
  const records = source.records ?? '';
  const plans = fields.map((field) => {
    try {
      return columnPlan(field, records, preset?.columns ?? null);
    } catch (err) {
      throw new LoadError(publicName(source.path), null, null, (err as Error).message);
    }
  });
  const recordSegments = parsePath(records);
  for (const file of files) {
    const name = file.name;
    const text = await decodedText(file.located.file, file.scan, source.repair);
    const parsed = parseJsonOr(
      text,
      (problem, where) => new LoadError(name, where?.line ?? null, where?.column ?? null, `not valid JSON: ${problem}`),
    );
    const document = applyJsonCorrections(parsed, correctionsFor(corrections, name), name);
    let any = false;
    let batch: TableRow[] = [];
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
          for (let j = 0; j < plan.segments.length && raw !== undefined; j++)
            raw = child(raw, bound(j, plan.segments[j]!));
        }
        try {
          // As the streamed path does (readJsonRecords): a null or missing member stays null, but a preset's tables
          // keep reading as they were defined.
          values[i] = preset === null && (raw === null || raw === undefined) ? null : typedValue(raw, fields[i]!);
        } catch (err) {
          if (!(err instanceof ValueError)) throw err;
          // The place is worked out only for a message.
          const where = plan.kind === 'path' ? plan.segments.map((s, j) => bound(j, s)) : at;
          throw new LoadError(
            name,
            lineOf(text, where),
            null,
            `field "${fields[i]!.id}" (${fields[i]!.type}): ${err.message}`,
            pointerText(where),
          );
        }
      }
      batch.push({ values, origin: origin(name, { pointer: pointerText(at) }) });
      if (batch.length === JSON_BATCH_ROWS) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
    if (!any) throw new LoadError(name, null, null, `no records at ${records || 'the root'}`);
  }
}

/** Line of a pointer in a file's JSON text, for messages about derived rows. */
export async function jsonLine(file: ResolvedFile, pointer: string): Promise<number | null> {
  const text = await decodedText(file.located.file, file.scan);
  return lineOf(text, parsePath(pointer));
}
