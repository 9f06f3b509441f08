// Brings the embedded database in line with the catalogue and its sources: rebuilds it when it is missing,
// when a source's checksum or a resource's catalogue entry changed, and otherwise leaves it alone.
// A resource whose new source fails to load keeps serving its previous data.

import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { TABLE_METADATA, type CatalogDefinition, type ResourceDefinition } from '../catalog/types.js';
import { parseCell, ValueError, type StoredValue } from '../catalog/values.js';
import type { LoadSession, LoadTarget, ResourceLoadRecord, ResourceSink, StoreMeta } from '../storage/load-target.js';
import { LoadError, readCsvRecords } from './csv.js';
import { scanSource, type SourceScan } from './encoding.js';
import { locateSource, type LocatedSource } from './source.js';

/** Changes whenever the loader would store the same source differently. */
const LOADER_VERSION = 5;

export type ResourceStatus = 'loaded' | 'unchanged' | 'kept-previous' | 'failed';

export interface ResourceOutcome {
  id: string;
  name: string;
  status: ResourceStatus;
  rows: number | null;
  error: string | null;
}

export interface BuildResult {
  rebuilt: boolean;
  datasetVersion: string;
  outcomes: ResourceOutcome[];
}

export interface BuildOptions {
  catalog: CatalogDefinition;
  sources: string;
  /** The store to load into. */
  target: LoadTarget;
  logger: Logger;
  /** Rebuild even when nothing changed. */
  force?: boolean;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function resourceSpecHash(resource: ResourceDefinition, fullTextLanguage: string): string {
  const { fields, source, indexes } = resource;
  return sha256(JSON.stringify({ fields, indexes, encoding: source.encoding, delimiter: source.delimiter, fullTextLanguage, LOADER_VERSION }));
}

/** A short digest of exactly what is loaded; it changes with any reload, so it can version cached answers. */
export function datasetVersionOf(records: Iterable<ResourceLoadRecord>): string {
  const parts = [...records].map((r) => `${r.id}:${r.sourceSha256}:${r.specHash}`).sort();
  return sha256(parts.join('\n')).slice(0, 16);
}

interface Prepared {
  resource: ResourceDefinition;
  specHash: string;
  located: LocatedSource | null;
  scan: SourceScan | null;
  problem: string | null;
}

async function prepare(resource: ResourceDefinition, options: BuildOptions): Promise<Prepared> {
  const specHash = resourceSpecHash(resource, options.catalog.fullTextLanguage);
  let located: LocatedSource | null = null;
  try {
    located = await locateSource(options.sources, resource.source.path);
    const scan = await scanSource(located.file, resource.source.encoding);
    return { resource, specHash, located, scan, problem: null };
  } catch (err) {
    const message = (err as Error).message;
    return { resource, specHash, located, scan: null, problem: message.startsWith(resource.source.path) ? message : `${resource.source.path}: ${message}` };
  }
}

function isUnchanged(prepared: Prepared, previous: StoreMeta | null): boolean {
  const record = previous?.resources.get(prepared.resource.id);
  return !!record && !!prepared.scan && record.sourceSha256 === prepared.scan.sha256 && record.specHash === prepared.specHash;
}

/** Reads a source's records into the sink, checking the header and converting each cell to its field's type. */
export async function loadRecords(resource: ResourceDefinition, located: LocatedSource, scan: SourceScan, sink: ResourceSink): Promise<void> {
  const { fields } = resource;
  const name = located.displayName;
  let positions: number[] | null = null;
  let width = 0;
  for await (const { cells, line } of readCsvRecords(located.file, name, scan, resource.source.delimiter)) {
    if (positions === null) {
      const header = cells.map((c) => c.trim());
      width = header.length;
      positions = fields.map((field) => {
        const at = header.indexOf(field.column);
        if (at === -1) throw new LoadError(name, line, null, `header has no column "${field.column}" (for field "${field.id}"); found: ${header.map((h) => `"${h}"`).join(', ')}`);
        return at;
      });
      const unexpected = header.findIndex((h, i) => !positions!.includes(i));
      if (unexpected !== -1) throw new LoadError(name, line, unexpected + 1, `header has column "${header[unexpected]}", which the catalogue does not declare`);
      continue;
    }
    if (cells.length !== width) {
      throw new LoadError(name, line, Math.min(cells.length, width) + 1, `row has ${cells.length} cells, the header has ${width}`);
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
    const wait = sink.insert(values);
    if (wait) await wait;
  }
  if (positions === null) throw new LoadError(name, null, null, 'the file is empty (no header row)');
}

/** A stable number per table, standing in for PostgreSQL's oid in `_table_metadata`. */
function tableOid(resourceId: string): number {
  return parseInt(createHash('sha256').update(resourceId).digest('hex').slice(0, 7), 16);
}

async function writeTableMetadata(session: LoadSession, records: readonly ResourceLoadRecord[]): Promise<void> {
  const base = { id: TABLE_METADATA.id, sourceSha256: '', specHash: '', source: '' };
  await session.load(TABLE_METADATA, base, async (sink) => {
    for (const record of records) await sink.insert([record.id, tableOid(record.id), null]);
  });
}

export async function buildDatabase(options: BuildOptions): Promise<BuildResult> {
  const { catalog, target, logger } = options;
  const previous = await target.readMeta();
  const usablePrevious = previous && previous.fullTextLanguage === catalog.fullTextLanguage ? previous : null;
  const prepared = await Promise.all(catalog.resources.map((resource) => prepare(resource, options)));
  try {
    const catalogIds = new Set(catalog.resources.map((r) => r.id));
    const staleTables = usablePrevious ? [...usablePrevious.resources.keys()].some((id) => id !== TABLE_METADATA.id && !catalogIds.has(id)) : false;
    const needsBuild = options.force || !usablePrevious || staleTables ||
      prepared.some((p) => p.scan !== null && !isUnchanged(p, usablePrevious));

    if (!needsBuild) {
      const outcomes = prepared.map((p): ResourceOutcome => {
        const record = usablePrevious.resources.get(p.resource.id);
        if (p.problem) logger.error({ resource: p.resource.id }, `source unavailable, serving previous data: ${p.problem}`);
        if (!record) return { id: p.resource.id, name: p.resource.name, status: 'failed', rows: null, error: p.problem };
        return { id: p.resource.id, name: p.resource.name, status: p.problem ? 'kept-previous' : 'unchanged', rows: record.total, error: p.problem };
      });
      return { rebuilt: false, datasetVersion: usablePrevious.datasetVersion, outcomes };
    }

    const session = await target.begin(catalog.fullTextLanguage);
    const outcomes: ResourceOutcome[] = [];
    const records: ResourceLoadRecord[] = [];
    try {
      for (const p of prepared) {
        const { resource } = p;
        const old = usablePrevious?.resources.get(resource.id) ?? null;
        const started = Date.now();
        if (!options.force && old && isUnchanged(p, usablePrevious)) {
          await session.keep(resource, old);
          records.push(old);
          outcomes.push({ id: resource.id, name: resource.name, status: 'unchanged', rows: old.total, error: null });
          continue;
        }
        let problem = p.problem;
        if (!problem && p.located && p.scan) {
          const base = { id: resource.id, sourceSha256: p.scan.sha256, specHash: p.specHash, source: p.located.displayName };
          try {
            const record = await session.load(resource, base, (sink) => loadRecords(resource, p.located!, p.scan!, sink));
            const rows = record.total;
            records.push(record);
            outcomes.push({ id: resource.id, name: resource.name, status: 'loaded', rows, error: null });
            logger.info({ resource: resource.id, rows, encoding: p.scan.encoding, ms: Date.now() - started }, `loaded ${resource.name} from ${p.located.displayName}`);
            continue;
          } catch (err) {
            problem = (err as Error).message;
          }
        }
        if (old) {
          await session.keep(resource, old);
          records.push(old);
          outcomes.push({ id: resource.id, name: resource.name, status: 'kept-previous', rows: old.total, error: problem });
          logger.error({ resource: resource.id }, `load failed, still serving the previous data: ${problem}`);
        } else {
          outcomes.push({ id: resource.id, name: resource.name, status: 'failed', rows: null, error: problem });
          logger.error({ resource: resource.id }, `load failed, resource not served: ${problem}`);
        }
      }
      await writeTableMetadata(session, records);
      const datasetVersion = datasetVersionOf(records);
      await session.commit(datasetVersion);
      return { rebuilt: true, datasetVersion, outcomes };
    } catch (err) {
      await session.abort();
      throw err;
    }
  } finally {
    await Promise.all(prepared.map((p) => p.located?.release()));
  }
}
