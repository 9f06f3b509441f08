// Reads and validates the declarative catalogue file; every mistake is reported with its JSON path, and its line
// when the catalogue's text is known. Sources are checked against the layouts and transforms the loader knows
// (src/catalog/source-kinds.ts), so a catalogue that names a missing input or column fails before anything is read.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../settings.js';
import { lineOf, parseJsonOr, pathText, type JsonPath } from './json-location.js';
import {
  BASE_LAYOUTS,
  jsonColumnProblem,
  layoutBase,
  LAYOUT_PRESETS,
  TRANSFORM_SPECS,
  type ColumnKind,
  type TransformSpec,
} from './source-kinds.js';
import {
  DATE_FORMATS,
  FIELD_TYPES,
  isFieldType,
  NUMBER_FORMATS,
  type CatalogDefinition,
  type DatasetDefinition,
  type DerivedSourceDefinition,
  type ExtraDefinition,
  type FieldDefinition,
  type FieldDictionary,
  type FieldFormat,
  type FileSetDefinition,
  type CkanSourceDefinition,
  type InputDefinition,
  type InputReference,
  type LayoutSourceDefinition,
  type PortalDefinition,
  type ResourceDefinition,
} from './types.js';
import { RESOURCE_ROLES, type ElectionDefinition, type ResourceRole } from '../elections/definition.js';

export class CatalogError extends Error {}

type Json = Record<string, unknown>;

export interface ParseOptions {
  /** The catalogue's text, so that messages can give the line of a mistake. */
  text?: string;
  /** What messages call the catalogue (its file name). */
  name?: string;
  /** Folder that `base: catalog` files are read from; by default the repository root. */
  baseDir?: string;
}

/** Raises CatalogErrors that name the place (JSON path, and line when the text is known) of a mistake. */
class Reader {
  constructor(private readonly options: ParseOptions) {}

  fail(where: JsonPath, problem: string): never {
    const line = this.options.text === undefined ? null : lineOf(this.options.text, where);
    const file = this.options.name ? `${this.options.name} ` : '';
    throw new CatalogError(`catalogue ${file}${line === null ? '' : `line ${line}, `}${pathText(where)}: ${problem}`);
  }

  object(value: unknown, where: JsonPath): Json {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) this.fail(where, 'must be an object');
    return value as Json;
  }

  string(obj: Json, key: string, where: JsonPath, fallback?: string): string {
    const value = obj[key];
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'string' || value === '') this.fail([...where, key], 'must be a non-empty string');
    return value;
  }

  /** A string that may be empty (a note, a label). */
  text(obj: Json, key: string, where: JsonPath): string {
    const value = obj[key] ?? '';
    if (typeof value !== 'string') this.fail([...where, key], 'must be a string');
    return value;
  }

  array(obj: Json, key: string, where: JsonPath): unknown[] {
    const value = obj[key];
    if (!Array.isArray(value) || value.length === 0) this.fail([...where, key], 'must be a non-empty list');
    return value;
  }

  /** Only the keys listed: a misspelt key would otherwise be silently ignored. */
  keys(obj: Json, allowed: readonly string[], where: JsonPath): void {
    for (const key of Object.keys(obj))
      if (!allowed.includes(key)) this.fail([...where, key], `is not a known key here (known: ${allowed.join(', ')})`);
  }
}

/**
 * CKAN's rule for column names (helpers.is_valid_field_name): names beginning with "_" are reserved
 * for the store's own columns, and a double quote or surrounding whitespace would make SQL quoting ambiguous.
 */
export function fieldNameProblem(name: string): string | null {
  if (name === '') return 'must not be empty';
  if (name.startsWith('_')) return 'must not begin with "_" (reserved for the store\'s own columns)';
  if (name.includes('"')) return 'must not contain a double quote';
  if (name.trim() !== name) return 'must not begin or end with whitespace';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters';
  return null;
}

// PostgreSQL names index <id>__load__c12 while loading: ids are kept short enough for its 63-byte names.
const RESOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,49}$/;
const INPUT_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const FIELD_KEYS = ['id', 'type', 'column', 'format', 'index', 'info'];

function readInfo(r: Reader, value: unknown, where: JsonPath): FieldDictionary | null {
  if (value === undefined || value === null) return null;
  const obj = r.object(value, where);
  r.keys(obj, ['label', 'notes', 'type_override'], where);
  return {
    label: r.text(obj, 'label', where),
    notes: r.text(obj, 'notes', where),
    type_override: r.text(obj, 'type_override', where),
  };
}

function readField(
  r: Reader,
  value: unknown,
  where: JsonPath,
  defaults: { column?: string; type?: string } = {},
): FieldDefinition {
  const obj = r.object(value, where);
  r.keys(obj, FIELD_KEYS, where);
  const id = r.string(obj, 'id', where);
  const problem = fieldNameProblem(id);
  if (problem) r.fail([...where, 'id'], `"${id}" ${problem}`);
  const type = r.string(obj, 'type', where, defaults.type);
  if (!isFieldType(type)) r.fail([...where, 'type'], `unknown type "${type}"`);
  const format = r.string(obj, 'format', where, 'ISO');
  const isDateFormat = (DATE_FORMATS as readonly string[]).includes(format);
  const isNumberFormat = (NUMBER_FORMATS as readonly string[]).includes(format);
  if (!isDateFormat && !isNumberFormat)
    r.fail([...where, 'format'], `must be one of ${[...DATE_FORMATS, ...NUMBER_FORMATS].join(', ')}`);
  const numeric = type === 'numeric' || type === 'float8' || type === 'int4' || type === 'int8';
  if (format !== 'ISO' && isDateFormat && type !== 'date' && type !== 'timestamp')
    r.fail([...where, 'format'], 'only applies to date and timestamp fields');
  if (isNumberFormat && !numeric)
    r.fail([...where, 'format'], `"${format}" only applies to number fields (numeric, float8, int4, int8)`);
  const index = obj.index ?? true;
  if (typeof index !== 'boolean') r.fail([...where, 'index'], 'must be true or false');
  return {
    id,
    type,
    // A column may be unnamed (pandas writes its index under an empty header): "" reads it.
    column: obj.column === undefined ? (defaults.column ?? id) : r.text(obj, 'column', where),
    format: format as FieldFormat,
    index,
    info: readInfo(r, obj.info, [...where, 'info']),
  };
}

function readFields(r: Reader, obj: Json, where: JsonPath): FieldDefinition[] {
  const fields = r.array(obj, 'fields', where).map((f, i) => readField(r, f, [...where, 'fields', i]));
  const seenIds = new Set<string>();
  // A column named twice is read by two fields when the header repeats the name: they take its columns in order.
  fields.forEach((field, i) => {
    if (seenIds.has(field.id)) r.fail([...where, 'fields', i, 'id'], `field "${field.id}" is declared twice`);
    seenIds.add(field.id);
  });
  return fields;
}

function readFileSet(r: Reader, value: unknown, where: JsonPath, base: FileSetDefinition['base']): FileSetDefinition {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0)
    r.fail(where, 'must be a file path or pattern, or a non-empty list of them');
  list.forEach((pattern, i) => {
    const at = typeof value === 'string' ? where : [...where, i];
    if (typeof pattern !== 'string' || pattern === '') r.fail(at, 'must be a non-empty string');
    if (/^https?:\/\//i.test(pattern) && /[*?]/.test(pattern))
      r.fail(at, 'a URL cannot hold a pattern: list the files');
    if (pattern.split(/[\\/]/).includes('..')) r.fail(at, 'must not climb out of its folder with ".."');
    if (base === 'catalog' && path.isAbsolute(pattern)) r.fail(at, 'must be relative to the catalogue');
  });
  return { patterns: list as string[], base };
}

const LAYOUT_KEYS = [
  'path',
  'files',
  'base',
  'layout',
  'encoding',
  'delimiter',
  'repair',
  'records',
  'corrections',
  'extra_columns',
  'header_row',
  'short_rows',
  'quotes',
  'escapes',
  'nulls',
  'missing',
  'leading_spaces',
  'header_prefix',
  'comments',
  'orient',
  'sheet',
  'id_column',
];

/**
 * An option of one base layout (csv unless said): one of `allowed` (the first is the default), and refused on any other
 * layout.
 */
function layoutOption<T extends string>(
  r: Reader,
  obj: Json,
  where: JsonPath,
  base: string | null | undefined,
  key: string,
  allowed: readonly [T, ...T[]],
  layout = 'csv',
): T {
  const value = r.string(obj, key, where, allowed[0]);
  if (!(allowed as readonly string[]).includes(value))
    r.fail([...where, key], `must be ${allowed.map((a) => `"${a}"`).join(' or ')}`);
  if (base !== layout && obj[key] !== undefined) r.fail([...where, key], `only applies to the ${layout} layout`);
  return value as T;
}

function readLayoutSource(r: Reader, obj: Json, where: JsonPath): LayoutSourceDefinition {
  r.keys(obj, LAYOUT_KEYS, where);
  const layout = r.string(obj, 'layout', where, 'csv');
  const base = layoutBase(layout);
  if (!base)
    r.fail(
      [...where, 'layout'],
      `unknown layout "${layout}" (known: ${[...BASE_LAYOUTS, ...Object.keys(LAYOUT_PRESETS)].join(', ')})`,
    );
  const fileBase = r.string(obj, 'base', where, 'sources');
  if (fileBase !== 'sources' && fileBase !== 'catalog') r.fail([...where, 'base'], 'must be "sources" or "catalog"');
  if (obj.path !== undefined && obj.files !== undefined) r.fail(where, 'has both "path" and "files": give one');
  if (obj.path === undefined && obj.files === undefined)
    r.fail(where, 'needs "path" (one file) or "files" (files or patterns)');
  const files =
    obj.path !== undefined
      ? readFileSet(r, r.string(obj, 'path', where), [...where, 'path'], fileBase)
      : readFileSet(r, obj.files, [...where, 'files'], fileBase);
  if (obj.path !== undefined && /[*?]/.test(files.patterns[0]!))
    r.fail([...where, 'path'], 'is one file; use "files" for a pattern');
  const delimiter = r.string(obj, 'delimiter', where, ',');
  if ([...delimiter].length !== 1) r.fail([...where, 'delimiter'], 'must be one character');
  if (base !== 'csv' && obj.delimiter !== undefined) r.fail([...where, 'delimiter'], 'only applies to the csv layout');
  const repair = obj.repair ?? null;
  if (repair !== null && repair !== 'windows-1252-c1') r.fail([...where, 'repair'], 'must be "windows-1252-c1"');
  let records: string | null = null;
  if (base === 'ndjson') {
    if (obj.records !== undefined && obj.records !== '')
      r.fail(
        [...where, 'records'],
        'an ndjson layout reads each line as a record: its fields give paths in the line ("/name")',
      );
    records = '';
  } else if (base === 'json') {
    records = LAYOUT_PRESETS[layout]?.records ?? null;
    if (obj.records !== undefined) {
      if (LAYOUT_PRESETS[layout]) r.fail([...where, 'records'], `is set by the ${layout} layout`);
      if (typeof obj.records !== 'string')
        r.fail([...where, 'records'], 'must be a JSON path such as "/items/*" ("" for the whole document)');
      records = obj.records;
    }
    if (records === null) r.fail(where, 'the json layout needs "records": the path of the records, e.g. "/items/*"');
    if (!/^(\/[^/]*)*$/.test(records))
      r.fail([...where, 'records'], 'must be a JSON path such as "/items/*" ("" for the whole document)');
  } else if (obj.records !== undefined) r.fail([...where, 'records'], 'only applies to json layouts');
  const extraColumns = layoutOption(r, obj, where, base, 'extra_columns', ['error', 'ignore']);
  const headerRow = obj.header_row ?? 1;
  if (!Number.isInteger(headerRow) || (headerRow as number) < 0)
    r.fail([...where, 'header_row'], 'must be a line number, 1 or more (0: the file has no header)');
  if (base !== 'csv' && obj.header_row !== undefined)
    r.fail([...where, 'header_row'], 'only applies to the csv layout');
  const shortRows = layoutOption(r, obj, where, base, 'short_rows', ['error', 'pad']);
  const quotes = layoutOption(r, obj, where, base, 'quotes', ['csv', 'literal']);
  const escapes = layoutOption(r, obj, where, base, 'escapes', ['none', 'backslash']);
  const nulls = layoutOption(r, obj, where, base, 'nulls', ['empty', 'unquoted-empty', 'NULL']);
  const missing = obj.missing ?? [];
  if (!Array.isArray(missing) || !missing.every((m) => typeof m === 'string' && m.trim() !== '' && m === m.trim()))
    r.fail([...where, 'missing'], 'must be a list of cell texts, such as ["NA", ".."]');
  if (base !== 'csv' && obj.missing !== undefined) r.fail([...where, 'missing'], 'only applies to the csv layout');
  const leadingSpaces = layoutOption(r, obj, where, base, 'leading_spaces', ['keep', 'skip']);
  const headerPrefix = obj.header_prefix === undefined ? null : r.string(obj, 'header_prefix', where);
  if (headerPrefix !== null && (headerPrefix === '' || /\s/.test(headerPrefix)))
    r.fail([...where, 'header_prefix'], 'must be the mark the header line starts with, such as "#"');
  if (base !== 'csv' && headerPrefix !== null) r.fail([...where, 'header_prefix'], 'only applies to the csv layout');
  const comments = obj.comments === undefined ? null : r.string(obj, 'comments', where);
  if (comments !== null && (comments === '' || /\s/.test(comments)))
    r.fail([...where, 'comments'], 'must be the mark comment lines start with, such as "#"');
  if (base !== 'csv' && comments !== null) r.fail([...where, 'comments'], 'only applies to the csv layout');
  const orient = layoutOption(r, obj, where, base, 'orient', ['records', 'columns'], 'json');
  if (orient === 'columns' && records !== '/*')
    r.fail(
      [...where, 'records'],
      'must be "/*" for a document of columns (orient "columns"): its records run across them',
    );
  if (orient === 'columns' && obj.corrections !== undefined)
    r.fail([...where, 'corrections'], 'are not supported for a document of columns (orient "columns")');
  const sheet = obj.sheet === undefined ? null : r.string(obj, 'sheet', where);
  const idColumn = obj.id_column === undefined ? null : r.string(obj, 'id_column', where);
  if (idColumn !== null && LAYOUT_PRESETS[layout])
    r.fail([...where, 'id_column'], `is not taken by the ${layout} layout`);
  if (base !== 'xlsx' && sheet !== null) r.fail([...where, 'sheet'], 'only applies to the xlsx layout');
  if ((base === 'xlsx' || base === 'parquet') && obj.encoding !== undefined)
    r.fail([...where, 'encoding'], `does not apply to the ${base} layout (the format says its own)`);
  if ((base === 'xlsx' || base === 'parquet') && obj.corrections !== undefined)
    r.fail([...where, 'corrections'], `are not supported for the ${base} layout`);
  return {
    kind: 'layout',
    layout,
    files,
    path: files.patterns.join(', '),
    encoding: r.string(obj, 'encoding', where, 'auto'),
    delimiter,
    repair: repair as LayoutSourceDefinition['repair'],
    records,
    corrections:
      obj.corrections === undefined ? null : readFileSet(r, obj.corrections, [...where, 'corrections'], 'catalog'),
    extraColumns,
    headerRow: headerRow as number,
    shortRows,
    quotes,
    escapes,
    nulls,
    missing: missing as string[],
    leadingSpaces,
    headerPrefix,
    comments,
    orient,
    sheet,
    idColumn,
  };
}

function readCkanSource(r: Reader, obj: Json, where: JsonPath): CkanSourceDefinition {
  r.keys(obj, ['ckan', 'resource', 'token_env'], where);
  const portal = r.string(obj, 'ckan', where);
  let url: URL;
  try {
    url = new URL(portal);
  } catch {
    r.fail([...where, 'ckan'], 'must be the portal\'s base URL, e.g. "https://data.example.org/"');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    r.fail([...where, 'ckan'], 'must be an http:// or https:// URL');
  const resource = r.string(obj, 'resource', where);
  const tokenEnv = obj.token_env === undefined ? null : r.string(obj, 'token_env', where);
  if (tokenEnv !== null && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))
    r.fail([...where, 'token_env'], 'must be the name of an environment variable');
  return { kind: 'ckan', portal: url.href, resource, tokenEnv };
}

function readReference(r: Reader, value: unknown, where: JsonPath): InputReference {
  if (typeof value === 'string' && value !== '') return { kind: 'input', name: value };
  const obj = r.object(value, where);
  r.keys(obj, ['input', 'resource'], where);
  if (obj.resource !== undefined) return { kind: 'resource', id: r.string(obj, 'resource', where) };
  return { kind: 'input', name: r.string(obj, 'input', where) };
}

function readOptions(r: Reader, spec: TransformSpec, value: unknown, where: JsonPath): Record<string, unknown> {
  if (value === undefined) return {};
  const obj = r.object(value, where);
  for (const [key, option] of Object.entries(obj)) {
    const optionSpec = spec.options[key];
    if (!optionSpec)
      r.fail(
        [...where, key],
        `is not an option of ${spec.name} (options: ${Object.keys(spec.options).join(', ') || 'none'})`,
      );
    if (optionSpec.type === 'boolean' && typeof option !== 'boolean') r.fail([...where, key], 'must be true or false');
    if (optionSpec.type === 'string' && typeof option !== 'string') r.fail([...where, key], 'must be a string');
    if (optionSpec.type === 'string-map') {
      const map = r.object(option, [...where, key]);
      for (const [k, v] of Object.entries(map))
        if (typeof v !== 'string') r.fail([...where, key, k], 'must be a string');
    }
  }
  return obj;
}

function readDerivedSource(r: Reader, obj: Json, where: JsonPath): DerivedSourceDefinition {
  r.keys(obj, ['derive', 'inputs', 'options'], where);
  const name = r.string(obj, 'derive', where);
  const spec = TRANSFORM_SPECS[name];
  if (!spec)
    r.fail([...where, 'derive'], `unknown transform "${name}" (known: ${Object.keys(TRANSFORM_SPECS).join(', ')})`);
  const given = r.object(obj.inputs ?? {}, [...where, 'inputs']);
  const inputs: Record<string, InputReference[]> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!spec.inputs[key])
      r.fail([...where, 'inputs', key], `is not an input of ${name} (inputs: ${Object.keys(spec.inputs).join(', ')})`);
    const list = Array.isArray(value) ? value : [value];
    if (list.length === 0) r.fail([...where, 'inputs', key], 'must name at least one table');
    inputs[key] = list.map((v, i) =>
      readReference(r, v, Array.isArray(value) ? [...where, 'inputs', key, i] : [...where, 'inputs', key]),
    );
  }
  for (const [key, input] of Object.entries(spec.inputs)) {
    if (input.required && !inputs[key])
      r.fail([...where, 'inputs'], `${name} needs the input "${key}": ${input.description}`);
  }
  return {
    kind: 'derived',
    transform: name,
    inputs,
    options: readOptions(r, spec, obj.options, [...where, 'options']),
  };
}

/** The fields of a preset layout's table, when the catalogue does not list them: every column the preset offers. */
function presetFields(layout: string): FieldDefinition[] {
  const preset = LAYOUT_PRESETS[layout];
  if (!preset) return [];
  return Object.entries(preset.columns).map(([id, column]) => ({
    id,
    type: column.type,
    column: id,
    format: 'ISO',
    index: false,
    info: { label: '', notes: column.notes, type_override: '' },
  }));
}

function checkLayoutColumns(
  r: Reader,
  source: LayoutSourceDefinition,
  fields: FieldDefinition[],
  where: JsonPath,
): void {
  const base = layoutBase(source.layout);
  if (base !== 'json' && base !== 'ndjson') return;
  const preset = LAYOUT_PRESETS[source.layout];
  fields.forEach((field, i) => {
    const presetColumn = preset?.columns[field.column];
    if (presetColumn) return;
    const problem = jsonColumnProblem(source.records ?? '', field.column);
    if (problem) {
      r.fail(
        [...where, 'fields', i, 'column'],
        preset
          ? `is not one of the ${source.layout} layout's columns (${Object.keys(preset.columns).join(', ')}), nor a JSON path: ${problem}`
          : problem,
      );
    }
  });
}

function readInput(r: Reader, name: string, value: unknown, where: JsonPath): InputDefinition {
  if (!INPUT_NAME.test(name)) r.fail(where, `input name "${name}" must be lowercase letters, digits, "-" and "_"`);
  const obj = r.object(value, where);
  const { fields: _fields, ...sourceKeys } = obj;
  const source = readLayoutSource(r, sourceKeys, where);
  if (obj.fields === undefined && !LAYOUT_PRESETS[source.layout])
    r.fail(where, `needs "fields": the columns to read, with their types`);
  const fields = obj.fields === undefined ? presetFields(source.layout) : readFields(r, obj, where);
  checkLayoutColumns(r, source, fields, where);
  return { name, source, fields };
}

function readResource(r: Reader, value: unknown, where: JsonPath, datasetName: string): ResourceDefinition {
  const obj = r.object(value, where);
  r.keys(obj, ['id', 'name', 'description', 'role', 'source', 'fields', 'indexes'], where);
  const id = r.string(obj, 'id', where);
  if (!RESOURCE_ID.test(id))
    r.fail([...where, 'id'], `"${id}" must be letters, digits, "-" and "_" (a UUID, as CKAN uses)`);
  const sourceObj = r.object(obj.source, [...where, 'source']);
  const source =
    sourceObj.derive !== undefined
      ? readDerivedSource(r, sourceObj, [...where, 'source'])
      : sourceObj.ckan !== undefined
        ? readCkanSource(r, sourceObj, [...where, 'source'])
        : readLayoutSource(r, sourceObj, [...where, 'source']);
  const fields = readFields(r, obj, where);
  if (source.kind === 'derived') {
    const spec = TRANSFORM_SPECS[source.transform]!;
    const outputs = new Map(spec.columns.map((c) => [c.name, c]));
    fields.forEach((field, i) => {
      const column = outputs.get(field.column);
      if (!column)
        r.fail(
          [...where, 'fields', i],
          `${source.transform} yields no column "${field.column}" (it yields: ${spec.columns.map((c) => c.name).join(', ')})`,
        );
      if (!field.info && column.notes) field.info = { label: '', notes: column.notes, type_override: '' };
    });
    const mapped = new Set(fields.map((f) => f.column));
    const unmapped = spec.columns.find((c) => !mapped.has(c.name));
    if (unmapped)
      r.fail([...where, 'fields'], `${source.transform} yields the column "${unmapped.name}", which no field takes`);
  } else if (source.kind === 'layout') {
    checkLayoutColumns(r, source, fields, where);
  }
  const seenIds = new Set(fields.map((f) => f.id));
  const indexes = obj.indexes ?? [];
  if (!Array.isArray(indexes)) r.fail([...where, 'indexes'], 'must be a list of lists of field ids');
  indexes.forEach((index, i) => {
    if (!Array.isArray(index) || index.length < 2 || !index.every((f) => typeof f === 'string' && seenIds.has(f))) {
      r.fail([...where, 'indexes', i], "must list two or more of the resource's field ids");
    }
  });
  const role = obj.role ?? null;
  if (role !== null && !(RESOURCE_ROLES as readonly unknown[]).includes(role))
    r.fail([...where, 'role'], `must be one of ${RESOURCE_ROLES.join(', ')}`);
  return {
    id,
    name: r.string(obj, 'name', where),
    description: r.string(obj, 'description', where, ''),
    datasetName,
    indexes: indexes as string[][],
    role: role as ResourceRole | null,
    source,
    fields,
  };
}

function readElection(r: Reader, value: unknown, where: JsonPath): ElectionDefinition | null {
  if (value === undefined || value === null) return null;
  const obj = r.object(value, where);
  r.keys(obj, ['date', 'body', 'seats', 'ceann_comhairle'], where);
  const date = r.string(obj, 'date', where);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)))
    r.fail([...where, 'date'], 'must be a date, YYYY-MM-DD');
  const seats = obj.seats ?? null;
  if (seats !== null && !(Number.isInteger(seats) && (seats as number) > 0))
    r.fail([...where, 'seats'], 'must be a whole number above 0');
  let ceannComhairle: ElectionDefinition['ceannComhairle'] = null;
  if (obj.ceann_comhairle !== undefined) {
    const cc = r.object(obj.ceann_comhairle, [...where, 'ceann_comhairle']);
    const at = [...where, 'ceann_comhairle'];
    r.keys(cc, ['name', 'constituency', 'party'], at);
    const party = cc.party === undefined ? null : r.string(cc, 'party', at);
    ceannComhairle = { name: r.string(cc, 'name', at), constituency: r.string(cc, 'constituency', at), party };
  }
  return { date, body: r.string(obj, 'body', where), seats: seats as number | null, ceannComhairle };
}

function readExtras(r: Reader, value: unknown, where: JsonPath): ExtraDefinition[] {
  if (value === undefined) return [];
  const obj = r.object(value, where);
  return Object.entries(obj).map(([key, v]) => {
    if (key === 'attribution') r.fail([...where, key], 'is the dataset\'s "attribution" key');
    if (typeof v !== 'string' || v === '') r.fail([...where, key], 'must be a non-empty string');
    return { key, value: v };
  });
}

const NUMBER_TYPES = new Set(
  Object.entries(FIELD_TYPES)
    .filter(([, t]) => t.kind === 'number')
    .map(([name]) => name),
);

function kindMatches(type: string, kind: ColumnKind): boolean {
  return kind === 'text' ? type === 'text' : NUMBER_TYPES.has(type);
}

/** Resolves a derived resource's inputs within its dataset and checks each supplies the columns its transform reads. */
function checkDerivations(r: Reader, dataset: DatasetDefinition, where: JsonPath): void {
  const byIdOrRole = (key: string) => dataset.resources.filter((res) => res.id === key || res.role === key);
  dataset.resources.forEach((resource, i) => {
    const { source } = resource;
    if (source.kind !== 'derived') return;
    const spec = TRANSFORM_SPECS[source.transform]!;
    for (const [key, refs] of Object.entries(source.inputs)) {
      refs.forEach((ref, j) => {
        const at: JsonPath = [...where, 'resources', i, 'source', 'inputs', key, ...(refs.length > 1 ? [j] : [])];
        let fields: FieldDefinition[];
        if (ref.kind === 'input') {
          const input = Object.hasOwn(dataset.inputs, ref.name) ? dataset.inputs[ref.name] : undefined;
          if (!input)
            r.fail(
              at,
              `the dataset has no input "${ref.name}" (inputs: ${Object.keys(dataset.inputs).join(', ') || 'none'})`,
            );
          fields = input.fields;
        } else {
          const found = byIdOrRole(ref.id);
          if (found.length !== 1)
            r.fail(
              at,
              found.length === 0
                ? `the dataset has no resource with id or role "${ref.id}"`
                : `more than one resource has the role "${ref.id}": name it by id`,
            );
          if (found[0] === resource) r.fail(at, 'a resource cannot be derived from itself');
          ref.id = found[0]!.id;
          fields = found[0]!.fields;
        }
        for (const [column, kind] of Object.entries(spec.inputs[key]!.columns)) {
          const field = fields.find((f) => f.id === column);
          if (!field)
            r.fail(
              at,
              `${source.transform} reads the column "${column}" of its input "${key}", which this table has no field for`,
            );
          if (!kindMatches(field.type, kind))
            r.fail(at, `${source.transform} reads "${column}" as ${kind}, but the field is ${field.type}`);
        }
      });
    }
  });
  // Derivations from other resources must not go round in a circle.
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (resource: ResourceDefinition, i: number) => {
    if (done.has(resource.id)) return;
    if (visiting.has(resource.id))
      r.fail(
        [...where, 'resources', i, 'source', 'inputs'],
        `resource ${resource.id} is derived, through other resources, from itself`,
      );
    visiting.add(resource.id);
    if (resource.source.kind === 'derived') {
      for (const ref of Object.values(resource.source.inputs).flat()) {
        if (ref.kind !== 'resource') continue;
        const j = dataset.resources.findIndex((res) => res.id === ref.id);
        visit(dataset.resources[j]!, j);
      }
    }
    visiting.delete(resource.id);
    done.add(resource.id);
  };
  dataset.resources.forEach(visit);
}

function readDataset(r: Reader, value: unknown, where: JsonPath): DatasetDefinition {
  const obj = r.object(value, where);
  r.keys(
    obj,
    [
      'name',
      'title',
      'notes',
      'url',
      'license_id',
      'license_title',
      'license_url',
      'attribution',
      'organization',
      'election',
      'extras',
      'inputs',
      'resources',
    ],
    where,
  );
  const name = r.string(obj, 'name', where);
  if (!/^[a-z0-9_-]{2,100}$/.test(name))
    r.fail([...where, 'name'], 'must be 2-100 lowercase letters, digits, "-" or "_" (CKAN\'s rule for dataset names)');
  const inputs: Record<string, InputDefinition> = {};
  if (obj.inputs !== undefined) {
    for (const [key, input] of Object.entries(r.object(obj.inputs, [...where, 'inputs'])))
      inputs[key] = readInput(r, key, input, [...where, 'inputs', key]);
  }
  const dataset: DatasetDefinition = {
    name,
    title: r.string(obj, 'title', where, name),
    notes: r.string(obj, 'notes', where, ''),
    url: r.string(obj, 'url', where, ''),
    licenseId: r.string(obj, 'license_id', where, 'notspecified'),
    licenseTitle: r.string(obj, 'license_title', where, 'License not specified'),
    licenseUrl: r.string(obj, 'license_url', where, ''),
    attribution: r.string(obj, 'attribution', where, ''),
    organization: r.string(obj, 'organization', where, ''),
    election: readElection(r, obj.election, [...where, 'election']),
    extras: readExtras(r, obj.extras, [...where, 'extras']),
    inputs,
    resources: r.array(obj, 'resources', where).map((res, i) => readResource(r, res, [...where, 'resources', i], name)),
  };
  checkDerivations(r, dataset, where);
  return dataset;
}

/** The portal a whole-portal mirror stands in front of (`count-centre mirror PORTAL --all`), and what it copies. */
function readPortal(r: Reader, value: unknown): PortalDefinition {
  const where: JsonPath = ['portal'];
  const obj = r.object(value, where);
  r.keys(obj, ['url', 'organizations', 'exclude_organizations', 'max_rows', 'token_env'], where);
  const url = r.string(obj, 'url', where);
  if (!/^https?:\/\/[^/]/i.test(url)) r.fail([...where, 'url'], 'must be an http:// or https:// URL');
  const names = (key: string): string[] => {
    const list = obj[key] ?? [];
    if (!Array.isArray(list) || list.some((n) => typeof n !== 'string' || n === ''))
      r.fail([...where, key], 'must be a list of organisation names');
    return list as string[];
  };
  const maxRows = obj.max_rows ?? null;
  if (maxRows !== null && (!Number.isSafeInteger(maxRows) || (maxRows as number) < 0))
    r.fail([...where, 'max_rows'], 'must be a whole number');
  return {
    url,
    organizations: names('organizations'),
    excludeOrganizations: names('exclude_organizations'),
    maxRows: maxRows as number | null,
    tokenEnv: obj.token_env === undefined ? null : r.string(obj, 'token_env', where),
  };
}

export function parseCatalog(json: unknown, options: ParseOptions = {}): CatalogDefinition {
  const r = new Reader(options);
  const root = r.object(json, []);
  r.keys(root, ['full_text_language', 'portal', 'datasets'], []);
  // A whole portal mirrored may have nothing to copy (every table withdrawn): it still stands in front of the portal.
  const listed =
    root.portal !== undefined && Array.isArray(root.datasets) ? root.datasets : r.array(root, 'datasets', []);
  const datasets = listed.map((d, i) => readDataset(r, d, ['datasets', i]));
  const resources = datasets.flatMap((d) => d.resources);
  const ids = new Set<string>();
  resources.forEach((resource) => {
    if (ids.has(resource.id)) {
      const d = datasets.findIndex((ds) => ds.name === resource.datasetName);
      r.fail(
        ['datasets', d, 'resources', datasets[d]!.resources.lastIndexOf(resource), 'id'],
        `resource id ${resource.id} is used twice`,
      );
    }
    ids.add(resource.id);
  });
  const names = new Set<string>();
  datasets.forEach((dataset, i) => {
    if (names.has(dataset.name)) r.fail(['datasets', i, 'name'], `dataset name ${dataset.name} is used twice`);
    names.add(dataset.name);
  });
  return {
    document: json,
    fullTextLanguage: r.string(root, 'full_text_language', [], 'english'),
    portal: root.portal === undefined ? null : readPortal(r, root.portal),
    baseDir: options.baseDir ?? PROJECT_ROOT,
    datasets,
    resources,
  };
}

export function loadCatalogFile(file: string): CatalogDefinition {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CatalogError(`cannot read catalogue ${file}: ${(err as Error).message}`);
  }
  const json = parseJsonOr(
    text,
    (problem, where) =>
      new CatalogError(
        `catalogue ${file}${where ? `, line ${where.line}, column ${where.column}` : ''} is not valid JSON: ${problem}`,
      ),
  );
  return parseCatalog(json, { text, name: path.basename(file), baseDir: path.dirname(path.resolve(file)) });
}
