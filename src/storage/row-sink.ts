// What every store's sink does with a record before writing it its own way: number it (the source's `_id`, checked,
// or its position), note which fields it leaves null, and render the JSON object and CSV line served for it.

import { ID_FIELD } from '../catalog/catalog.js';
import type { FieldDefinition } from '../catalog/types.js';
import type { StoredValue } from '../catalog/values.js';
import { delimitedWriter, objectWriter } from '../serialize/records.js';
import type { ResourceSink } from './load-target.js';

/**
 * The `_id` of the next record: the one given (checked to be a positive whole number above the last), or its position.
 */
export function checkedId(id: number | undefined, position: number, lastId: number): number {
  if (id === undefined) return position;
  if (!Number.isSafeInteger(id) || id <= lastId)
    throw new Error(`record _id ${id} is not a whole number above the previous one (${lastId})`);
  return id;
}

/** A record made ready to store: its `_id`, and the JSON object and CSV line served for it. */
export interface RenderedRecord {
  id: number;
  json: string;
  csv: string;
}

export class RecordRenderer {
  private rows = 0;
  private lastId = 0;
  private readonly json: ReturnType<typeof objectWriter>;
  private readonly csv: ReturnType<typeof delimitedWriter>;
  private readonly nulls: boolean[];

  constructor(private readonly fields: readonly FieldDefinition[]) {
    this.json = objectWriter([ID_FIELD, ...fields]);
    this.csv = delimitedWriter([ID_FIELD, ...fields], ',');
    this.nulls = new Array<boolean>(fields.length).fill(false);
  }

  /** Records rendered so far. */
  get count(): number {
    return this.rows;
  }

  /** The largest `_id` so far (the last one, since they increase). */
  get maxId(): number {
    return this.lastId;
  }

  next(values: readonly StoredValue[], id?: number): RenderedRecord {
    this.rows += 1;
    const rowId = checkedId(id, this.rows, this.lastId);
    this.lastId = rowId;
    for (let i = 0; i < values.length; i++) if (values[i] === null) this.nulls[i] = true;
    const row = [rowId, ...values];
    return { id: rowId, json: this.json.record(row), csv: this.csv.record(row) };
  }

  /** Fields at least one record left null. */
  nullFields(): string[] {
    return this.fields.filter((_, i) => this.nulls[i]).map((f) => f.id);
  }
}

/** A sink that renders each record and hands it to `write`, which stores it its store's way (and may ask to wait). */
export function renderingSink(
  renderer: RecordRenderer,
  write: (values: readonly StoredValue[], record: RenderedRecord) => void | Promise<void>,
): ResourceSink {
  return {
    get count() {
      return renderer.count;
    },
    insert: (values, id) => write(values, renderer.next(values, id)),
  };
}
