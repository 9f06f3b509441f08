// Reads and validates the declarative catalogue file; every mistake is reported with its JSON path.

import { readFileSync } from 'node:fs';
import {
  DATE_FORMATS, isFieldType,
  type CatalogDefinition, type DatasetDefinition, type DateFormat, type FieldDefinition, type ResourceDefinition,
} from './types.js';

export class CatalogError extends Error {}

type Json = Record<string, unknown>;

function fail(where: string, problem: string): never {
  throw new CatalogError(`catalogue ${where}: ${problem}`);
}

function object(value: unknown, where: string): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(where, 'must be an object');
  return value as Json;
}

function string(obj: Json, key: string, where: string, fallback?: string): string {
  const value = obj[key];
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || value === '') fail(`${where}.${key}`, 'must be a non-empty string');
  return value;
}

function array(obj: Json, key: string, where: string): unknown[] {
  const value = obj[key];
  if (!Array.isArray(value) || value.length === 0) fail(`${where}.${key}`, 'must be a non-empty list');
  return value;
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

function readField(value: unknown, where: string): FieldDefinition {
  const obj = object(value, where);
  const id = string(obj, 'id', where);
  const problem = fieldNameProblem(id);
  if (problem) fail(`${where}.id`, `"${id}" ${problem}`);
  const type = string(obj, 'type', where);
  if (!isFieldType(type)) fail(`${where}.type`, `unknown type "${type}"`);
  const format = string(obj, 'format', where, 'ISO');
  if (!(DATE_FORMATS as readonly string[]).includes(format)) {
    fail(`${where}.format`, `must be one of ${DATE_FORMATS.join(', ')}`);
  }
  if (format !== 'ISO' && type !== 'date' && type !== 'timestamp') fail(`${where}.format`, 'only applies to date and timestamp fields');
  const index = obj.index ?? true;
  if (typeof index !== 'boolean') fail(`${where}.index`, 'must be true or false');
  return { id, type, column: string(obj, 'column', where, id), format: format as DateFormat, index };
}

function readResource(value: unknown, where: string, datasetName: string): ResourceDefinition {
  const obj = object(value, where);
  const id = string(obj, 'id', where);
  if (!RESOURCE_ID.test(id)) fail(`${where}.id`, `"${id}" must be letters, digits, "-" and "_" (a UUID, as CKAN uses)`);
  const source = object(obj.source, `${where}.source`);
  const delimiter = string(source, 'delimiter', `${where}.source`, ',');
  if ([...delimiter].length !== 1) fail(`${where}.source.delimiter`, 'must be one character');
  const fields = array(obj, 'fields', where).map((f, i) => readField(f, `${where}.fields[${i}]`));
  const seenIds = new Set<string>();
  const seenColumns = new Set<string>();
  for (const field of fields) {
    if (seenIds.has(field.id)) fail(`${where}.fields`, `field "${field.id}" is declared twice`);
    if (seenColumns.has(field.column)) fail(`${where}.fields`, `source column "${field.column}" is mapped twice`);
    seenIds.add(field.id);
    seenColumns.add(field.column);
  }
  const indexes = obj.indexes ?? [];
  if (!Array.isArray(indexes)) fail(`${where}.indexes`, 'must be a list of lists of field ids');
  indexes.forEach((index, i) => {
    if (!Array.isArray(index) || index.length < 2 || !index.every((id) => typeof id === 'string' && seenIds.has(id))) {
      fail(`${where}.indexes[${i}]`, 'must list two or more of the resource\'s field ids');
    }
  });
  return {
    id,
    name: string(obj, 'name', where),
    description: string(obj, 'description', where, ''),
    datasetName,
    indexes: indexes as string[][],
    source: { path: string(source, 'path', `${where}.source`), encoding: string(source, 'encoding', `${where}.source`, 'auto'), delimiter },
    fields,
  };
}

function readDataset(value: unknown, where: string): DatasetDefinition {
  const obj = object(value, where);
  const name = string(obj, 'name', where);
  if (!/^[a-z0-9_-]{2,100}$/.test(name)) fail(`${where}.name`, 'must be 2-100 lowercase letters, digits, "-" or "_" (CKAN\'s rule for dataset names)');
  return {
    name,
    title: string(obj, 'title', where, name),
    notes: string(obj, 'notes', where, ''),
    licenseId: string(obj, 'license_id', where, 'notspecified'),
    licenseTitle: string(obj, 'license_title', where, 'License not specified'),
    licenseUrl: string(obj, 'license_url', where, ''),
    attribution: string(obj, 'attribution', where, ''),
    organization: string(obj, 'organization', where, ''),
    resources: array(obj, 'resources', where).map((r, i) => readResource(r, `${where}.resources[${i}]`, name)),
  };
}

export function parseCatalog(json: unknown): CatalogDefinition {
  const root = object(json, '(root)');
  const datasets = array(root, 'datasets', '(root)').map((d, i) => readDataset(d, `datasets[${i}]`));
  const resources = datasets.flatMap((d) => d.resources);
  const ids = new Set<string>();
  for (const resource of resources) {
    if (ids.has(resource.id)) fail('datasets', `resource id ${resource.id} is used twice`);
    ids.add(resource.id);
  }
  const names = new Set<string>();
  for (const dataset of datasets) {
    if (names.has(dataset.name)) fail('datasets', `dataset name ${dataset.name} is used twice`);
    names.add(dataset.name);
  }
  return { fullTextLanguage: string(root, 'full_text_language', '(root)', 'english'), datasets, resources };
}

export function loadCatalogFile(file: string): CatalogDefinition {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CatalogError(`cannot read catalogue ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CatalogError(`catalogue ${file} is not valid JSON: ${(err as Error).message}`);
  }
  return parseCatalog(json);
}
