// `count-centre add FILE|URL`: reads a CSV, infers its schema (src/ingest/infer.ts), writes a catalogue entry for it
// (src/catalog/edit.ts keeps the rest of the file as it was), loads it, and prints the schema as a table. With
// --dry-run it prints the entry and changes nothing.

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EMPTY_CATALOG, resourceWithPath, withResource } from '../catalog/edit.js';
import { parseCatalog } from '../catalog/load.js';
import { inferCsv, type InferredSchema } from '../ingest/infer.js';
import type { Settings } from '../settings.js';
import { textTable } from './progress.js';

export interface AddRequest {
  /** A file path (relative to the working directory) or an http(s) URL. */
  source: string;
  dataset?: string;
  title?: string;
  id?: string;
  dateFormat?: 'DD/MM/YYYY' | 'MM/DD/YYYY';
}

export interface AddPlan {
  schema: InferredSchema;
  /** The catalogue's text with the entry in it. */
  catalogText: string;
  /** The catalogue's text before. */
  previousText: string | null;
  datasetName: string;
  resource: Record<string, unknown> & { id: string };
  /** Whether the resource replaces an entry for the same file. */
  replaces: boolean;
}

const isUrl = (text: string) => /^https?:\/\//i.test(text);

/** A dataset name from a file name: CKAN's rules (lowercase letters, digits, - and _, 2 to 100 of them). */
export function datasetNameFor(stem: string): string {
  const name = stem.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100);
  return name.length >= 2 ? name : `dataset-${name || 'new'}`;
}

function titleFor(stem: string): string {
  const words = stem.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'New dataset';
}

/** The bytes of a file or URL. */
export async function readSourceBytes(source: string): Promise<Buffer> {
  if (isUrl(source)) {
    const response = await fetch(source, { signal: AbortSignal.timeout(120_000) });
    if (!response.ok) throw new Error(`${source}: download failed (HTTP ${response.status})`);
    return Buffer.from(await response.arrayBuffer());
  }
  try {
    return readFileSync(source);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`${source}: ${code === 'ENOENT' ? 'file not found' : (err as Error).message}`);
  }
}

/**
 * How the catalogue names the file: a URL as it is; a file under the sources folder by its path there (as the
 * elections' files are), a file beside the catalogue relative to it (`base: catalog`), any other by its absolute path.
 */
export function sourcePathFor(source: string, settings: Pick<Settings, 'sources' | 'catalog'>): { path: string; base?: 'catalog' } {
  if (isUrl(source)) return { path: source };
  const absolute = path.resolve(source);
  const within = (root: string) => {
    const relative = path.relative(root, absolute);
    return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : null;
  };
  if (!isUrl(settings.sources)) {
    const underSources = within(path.resolve(settings.sources));
    if (underSources) return { path: underSources };
  }
  const besideCatalog = within(path.dirname(settings.catalog));
  if (besideCatalog) return { path: besideCatalog, base: 'catalog' };
  return { path: absolute };
}

/** Works out the entry and the catalogue text with it, changing nothing. */
export async function planAdd(request: AddRequest, settings: Pick<Settings, 'sources' | 'catalog'>): Promise<AddPlan> {
  const bytes = await readSourceBytes(request.source);
  const name = isUrl(request.source) ? request.source : request.source;
  const schema = inferCsv(bytes, { name, ...(request.dateFormat ? { dateFormat: request.dateFormat } : {}) });
  const stem = path.basename(isUrl(request.source) ? new URL(request.source).pathname : request.source).replace(/\.[^.]*$/, '');
  const previousText = existsSync(settings.catalog) ? readFileSync(settings.catalog, 'utf8') : null;
  const text = previousText ?? EMPTY_CATALOG;
  const where = sourcePathFor(request.source, settings);
  const existing = resourceWithPath(text, where.path);
  const datasetName = request.dataset ?? existing?.dataset ?? datasetNameFor(stem);
  const id = request.id ?? existing?.id ?? randomUUID();
  const title = request.title ?? titleFor(stem);
  const source: Record<string, unknown> = { path: where.path };
  if (where.base) source.base = where.base;
  if (schema.encoding === 'windows-1252') source.encoding = 'windows-1252';
  if (schema.delimiter !== ',') source.delimiter = schema.delimiter;
  const resource = {
    id,
    name: title,
    source,
    fields: schema.columns.map((c) => {
      const field: Record<string, unknown> = { id: c.id, type: c.type };
      if (c.type === 'timestamp' && c.format !== 'ISO') field.format = c.format;
      if (c.id !== c.header) field.column = c.header;
      return field;
    }),
  };
  const catalogText = withResource(text, { name: datasetName, title }, resource);
  // The new catalogue must read as one: a mistake is found here, before anything is written.
  parseCatalog(JSON.parse(catalogText), { text: catalogText, name: path.basename(settings.catalog), baseDir: path.dirname(settings.catalog) });
  return { schema, catalogText, previousText, datasetName, resource, replaces: existing?.id === id };
}

/** Writes the catalogue in one step (a rename), so a server reading it never sees half a file. */
export function writeCatalog(file: string, text: string): void {
  const temporary = `${file}.adding-${process.pid}`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

const DELIMITER_NAMES: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };

/** The inferred schema as people read it. */
export function schemaReport(plan: AddPlan): string {
  const { schema } = plan;
  const encoding = schema.encoding === 'utf-8' ? (schema.hasBom ? 'UTF-8 with BOM' : 'UTF-8') : 'Windows-1252';
  const head = `${schema.records.toLocaleString('en-IE')} records; ${encoding}; ${DELIMITER_NAMES[schema.delimiter]}-separated; ${schema.quoted ? 'quoted fields' : 'no quoted fields'}`;
  const rows = schema.columns.map((c) => [
    c.id, c.type, c.type === 'timestamp' ? c.format : '', String(c.empty), c.example.length > 24 ? `${c.example.slice(0, 23)}…` : c.example, c.note ?? '',
  ]);
  return `${head}\n\n${textTable(['field', 'type', 'format', 'empty', 'example', 'note'], rows, new Set([3]))}\n`;
}
