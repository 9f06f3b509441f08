// What every store's sink does with a record before writing it its own way: number it (the source's `_id`, checked,
// or its position) and note which fields it leaves null. Nothing is rendered here: records are rendered when answered.

import type { FieldDefinition } from '../catalog/types.js';
import type { StoredValue } from '../catalog/values.js';
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

/** A text value COPY quotes in CSV or TSV: empty (to tell it from NULL), or holding a delimiter, quote or line break. */
const QUOTED = /[,\t"\n\r]/;

export class RecordNumberer {
  private rows = 0;
  private lastId = 0;
  private readonly nulls: boolean[];
  private readonly quoted: boolean[];
  private readonly texts: number[];

  constructor(private readonly fields: readonly FieldDefinition[]) {
    this.nulls = new Array<boolean>(fields.length).fill(false);
    this.quoted = new Array<boolean>(fields.length).fill(false);
    this.texts = fields.flatMap((f, i) => (f.type === 'text' ? [i] : []));
  }

  /** Records numbered so far. */
  get count(): number {
    return this.rows;
  }

  /** The largest `_id` so far (the last one, since they increase). */
  get maxId(): number {
    return this.lastId;
  }

  /** The next record's `_id`, noting the fields it leaves null. */
  next(values: readonly StoredValue[], id?: number): number {
    this.rows += 1;
    const rowId = checkedId(id, this.rows, this.lastId);
    this.lastId = rowId;
    for (let i = 0; i < values.length; i++) if (values[i] === null) this.nulls[i] = true;
    for (const i of this.texts) {
      if (this.quoted[i]) continue;
      const value = values[i];
      if (typeof value === 'string' && (value === '' || QUOTED.test(value))) this.quoted[i] = true;
    }
    return rowId;
  }

  /** Fields at least one record left null. */
  nullFields(): string[] {
    return this.fields.filter((_, i) => this.nulls[i]).map((f) => f.id);
  }

  /** Text fields with a value COPY quotes. */
  quotedFields(): string[] {
    return this.fields.filter((_, i) => this.quoted[i]).map((f) => f.id);
  }
}

/** A sink that numbers each record and hands it to `write`, which stores it its store's way (and may ask to wait). */
export function numberingSink(
  numberer: RecordNumberer,
  write: (values: readonly StoredValue[], id: number) => void | Promise<void>,
): ResourceSink {
  return {
    get count() {
      return numberer.count;
    },
    insert: (values, id) => write(values, numberer.next(values, id)),
  };
}
