// A resource patched in PostgreSQL. Its next version is a view over the segments of the published one (each read
// without the changed `_id` ranges) and one new segment holding the changed records, indexed and analysed as a load's
// table is: a patch costs what its records cost, not what the table does. Segments are shared between versions and
// never changed, so requests reading the current version keep reading exactly it; the load's commit points the
// resource at the new view. When the segments after the first grow too many, the next patch merges them into one; when
// they, with the records hidden in the first, outgrow a share of it, it compacts the version into one table.

import type pg from 'pg';
import type { ResourceDefinition } from '../../catalog/types.js';
import type { StoredValue } from '../../catalog/values.js';
import { indexTableSql, tableSizesSql } from '../../dialect/postgres/ddl.js';
import { indexesByKey } from '../../catalog/indexes.js';
import {
  compositionSql,
  copySegmentsSql,
  insertRecordsSql,
  patchedFactsSql,
  recordsInRangesSql,
  segmentTable,
  versionObjectsSql,
  versionViewSql,
  type IdSpan,
  type Segment,
} from '../../dialect/postgres/patch.js';
import { qualified } from '../../dialect/postgres/quote.js';
import type { IdRange, LoadBase, ResourceLoadRecord, ResourceSink } from '../load-target.js';
import { RecordNumberer, numberingSink } from '../row-sink.js';
import { vectorsFromLoader } from '../../dialect/postgres/ddl.js';
import { RowVectorizer } from '../../catalog/row-text.js';
import { tsvectorToString } from '../../text-search/index.js';
import { storeError } from './connection.js';
import { valueText } from './value-text.js';

/** Records sent per INSERT. */
const BATCH = 200;
/** Segments a version reads at most (every read visits each); beyond, a patch merges all but the first. */
export const MAX_SEGMENTS = 4;
/**
 * A patch compacts the version into one table once the records outside its first segment and those hidden in it
 * would pass this share of that segment: reads stay as fast as a table's, and a merged segment stays small.
 */
export const COMPACT_SHARE = 1 / 8;
/** Hidden ranges of the first segment beyond which its filter would slow every read: compacted instead. */
export const MAX_HIDDEN_RANGES = 64;

export interface PatchContext {
  client: pg.Client;
  schema: string;
  fullTextLanguage: string;
  /**
   * Builds independent statements side by side (the load's index builders); returns the keys of the `optional` ones
   * PostgreSQL refused (a value too long for a B-tree key).
   */
  buildSideBySide: (statements: readonly string[], optional?: ReadonlyMap<string, string>) => Promise<string[]>;
}

/** Ranges sorted, overlapping and adjacent ones joined. */
export function joinSpans(ranges: readonly IdSpan[]): IdSpan[] {
  const joined: IdSpan[] = [];
  for (const range of [...ranges].sort((a, b) => a.from - b.from)) {
    const last = joined[joined.length - 1];
    if (last && last.to + 1 >= range.from) last.to = Math.max(last.to, range.to);
    else joined.push({ from: range.from, to: range.to });
  }
  return joined;
}

/** The segments the published version reads: a view's, from its comment; a table is its own one segment. */
async function segmentsOf(client: pg.Client, schema: string, previous: ResourceLoadRecord): Promise<Segment[]> {
  const row = (
    await client.query<{ view: boolean; composition: string | null }>(compositionSql(), [
      qualified(schema, previous.table),
    ])
  ).rows[0];
  if (row?.view && row.composition) return (JSON.parse(row.composition) as { segments: Segment[] }).segments;
  return [{ table: previous.table, rows: previous.total, without: [] }];
}

export async function patchTable(
  context: PatchContext,
  resource: ResourceDefinition,
  base: LoadBase,
  previous: ResourceLoadRecord,
  version: string,
  ranges: readonly IdRange[],
  fill: (sink: ResourceSink) => Promise<void>,
): Promise<ResourceLoadRecord> {
  const { client, schema, fullTextLanguage } = context;
  const types = resource.fields.map((f) => f.type);
  const param = (value: StoredValue, i: number) => valueText(value, types[i]!);
  const spans = joinSpans(ranges);
  try {
    const published = await segmentsOf(client, schema, previous);
    // Every segment is read without the changed ranges: the new segment's records take their place.
    const hidden = published.map((s) => ({ ...s, without: joinSpans([...s.without, ...spans]) }));
    const first = hidden[0]!;
    const hiddenInFirst = Number(
      (await client.query<{ hidden: string }>(recordsInRangesSql(schema, first.table, first.without))).rows[0]!.hidden,
    );
    const added = spans.reduce((n, s) => n + s.to - s.from + 1, 0);
    const later = hidden.slice(1).reduce((n, s) => n + s.rows, added);
    const compact = hiddenInFirst + later > first.rows * COMPACT_SHARE || first.without.length > MAX_HIDDEN_RANGES;
    // Compacting: the version is one table again. Otherwise the new segment takes the changed records, and the later
    // segments' too when the version would read more than MAX_SEGMENTS.
    const merge = !compact && hidden.length + 1 > MAX_SEGMENTS;
    const table = compact ? version : segmentTable(version);
    const copied = compact ? hidden : merge ? hidden.slice(1) : [];
    const kept = compact ? [] : merge ? [first] : hidden;

    await client.query('BEGIN');
    let rows = 0;
    for (const sql of copySegmentsSql(schema, table, resource, copied, first.table)) {
      const result = await client.query(sql);
      if (result.command === 'SELECT') rows = result.rowCount ?? 0;
    }
    let batch: (string | number | null)[] = [];
    let batched = 0;
    const flush = async () => {
      if (batched === 0) return;
      await client.query(insertRecordsSql(schema, table, resource, fullTextLanguage, batched), batch);
      batch = [];
      batched = 0;
    };
    const numberer = new RecordNumberer(resource.fields);
    const vectorizer = vectorsFromLoader(fullTextLanguage)
      ? new RowVectorizer(fullTextLanguage, resource.fields)
      : null;
    const sink = numberingSink(numberer, (values, id) => {
      // A record outside the ranges would be read twice: from its old segment and from the new one.
      if (!spans.some((s) => id >= s.from && id <= s.to))
        throw new Error(`record ${id} is outside the ranges being patched`);
      batch.push(id, ...values.map(param));
      if (vectorizer) batch.push(tsvectorToString(vectorizer.vector(values)));
      batched += 1;
      return batched >= BATCH ? flush() : undefined;
    });
    await fill(sink);
    await flush();
    await client.query('COMMIT');
    // The new segment (or the compacted table) has the indexes its version had, so that no search gets slower.
    const { indexes, optional, finish, analyze } = indexTableSql(
      schema,
      table,
      resource,
      indexesByKey(resource, previous.builtIndexes),
    );
    const refused = new Set(await context.buildSideBySide(indexes, optional));
    for (const sql of [...finish, analyze]) await client.query(sql);
    const segments = compact ? [] : [...kept, { table, rows: rows + numberer.count, without: [] }];
    if (!compact) for (const sql of versionViewSql(schema, version, resource, segments)) await client.query(sql);
    const facts = (await client.query<Record<string, unknown>>(patchedFactsSql(schema, version, resource))).rows[0]!;
    const sized = (compact ? [version] : segments.map((s) => s.table)).map((t) => qualified(schema, t));
    const sizes = await client.query<{ data: string; indexes: string }>(tableSizesSql, [sized]);
    return {
      ...base,
      total: Number(facts.total),
      maxId: Number(facts.max_id),
      loadedAt: new Date().toISOString(),
      table: version,
      dataBytes: Number(sizes.rows[0]?.data ?? 0),
      indexBytes: Number(sizes.rows[0]?.indexes ?? 0),
      nullFields: resource.fields.filter((_, i) => facts[`n${i}`] === true).map((f) => f.id),
      builtIndexes: previous.builtIndexes.filter((key) => !refused.has(key)),
      ...(previous.quotedFields
        ? { quotedFields: [...new Set([...previous.quotedFields, ...numberer.quotedFields()])] }
        : {}),
      ...(refused.size > 0 || previous.unbuiltIndexes
        ? { unbuiltIndexes: [...new Set([...(previous.unbuiltIndexes ?? []), ...refused])] }
        : {}),
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    for (const sql of versionObjectsSql(schema, version)) await client.query(sql).catch(() => {});
    throw storeError(err);
  }
}
