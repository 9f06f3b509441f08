// The resident tables of one version of the data: small resources read from the store on first use and kept in memory
// within a byte budget (least recently used first out), so that searches on them need no statement at all.

import type { ResidentNeeds } from './execute.js';
import { ResidentTable, type ResidentField } from './table.js';

/** Reads stored columns of a resource, every record in `_id` order. */
export type ResidentReader = (columns: readonly string[]) => Promise<unknown[][]>;

export interface ResidentLimits {
  /** Resources with more records are never held (their searches go to the store). */
  maxRows: number;
  /** Memory for all the tables together; 0 holds none. */
  maxBytes: number;
}

export interface ResidentResource {
  id: string;
  /** `_id` first, then the resource's fields. */
  fields: readonly ResidentField[];
  total: number;
}

interface Held {
  table: Promise<ResidentTable>;
  /** The table once read. */
  ready: ResidentTable | null;
  /** Preparations under way (columns being read, indexes being built), shared by concurrent searches. */
  preparing: Map<string, Promise<void>>;
  /** When it was last used, on the tables' own clock: the least recently used goes first. */
  used: number;
}

export class ResidentTables {
  private readonly held = new Map<string, Held>();
  private clock = 0;
  /** Resources found too large for the budget on their own: not read again. */
  private readonly tooLarge = new Set<string>();
  /** Tables counted against the budget since they were read (they are counted again when something is added). */
  private readonly fitted = new WeakSet<ResidentTable>();

  constructor(
    private readonly limits: ResidentLimits,
    /** The language of the records' `_full_text` in this version of the store. */
    private readonly indexLanguage: string,
  ) {}

  /** Whether a resource's searches can be answered in memory. */
  holds(resource: ResidentResource): boolean {
    return this.limits.maxBytes > 0 && resource.total <= this.limits.maxRows && !this.tooLarge.has(resource.id);
  }

  /**
   * The resource's table with what a search needs prepared, read through `read` if not held yet; null when the
   * resource is not to be held. A failed read is not remembered: the next search tries again.
   */
  async table(resource: ResidentResource, needs: ResidentNeeds, read: ResidentReader): Promise<ResidentTable | null> {
    if (!this.holds(resource)) return null;
    let held = this.held.get(resource.id);
    if (held) {
      held.used = ++this.clock;
      // Most searches find their table read and prepared: they wait for nothing.
      const { ready } = held;
      if (
        ready &&
        this.fitted.has(ready) &&
        (!needs.recordText || ready.hasRecordText) &&
        needs.fieldTexts.every((t) => ready.hasFieldText(t.fieldId, t.config))
      )
        return ready;
    } else {
      const reading = this.readTable(resource, read);
      const fresh: Held = { table: reading, ready: null, preparing: new Map(), used: ++this.clock };
      reading.then(
        (table) => {
          fresh.ready = table;
        },
        () => {
          if (this.held.get(resource.id) === fresh) this.held.delete(resource.id);
        },
      );
      held = fresh;
      this.held.set(resource.id, held);
    }
    const table = await held.table;
    let grown = !this.fitted.has(table);
    if (needs.recordText && !table.hasRecordText) {
      await this.prepare(held, '_full_text', () => table.addRecordText(this.indexLanguage));
      grown = true;
    }
    for (const { fieldId, config } of needs.fieldTexts) {
      if (table.hasFieldText(fieldId, config)) continue;
      await this.prepare(held, `${config}\u0000${fieldId}`, () => table.addFieldText(fieldId, config));
      grown = true;
    }
    if (grown) this.fit(resource.id, table);
    return table;
  }

  /** Bytes held by the tables read so far (an estimate: values, texts and indexes). */
  get bytes(): number {
    let bytes = 0;
    for (const held of this.held.values()) bytes += held.ready?.bytes ?? 0;
    return bytes;
  }

  get count(): number {
    return this.held.size;
  }

  /** One preparation of a table at a time per kind, whoever asks; a failed one is tried again by the next search. */
  private prepare(held: Held, kind: string, work: () => Promise<void>): Promise<void> {
    let pending = held.preparing.get(kind);
    if (!pending) {
      const { preparing } = held;
      pending = work();
      preparing.set(kind, pending);
      const done = () => preparing.delete(kind);
      pending.then(done, done);
    }
    return pending;
  }

  private async readTable(resource: ResidentResource, read: ResidentReader): Promise<ResidentTable> {
    const rows = await read(resource.fields.map((f) => f.id));
    const table = new ResidentTable(resource.id, resource.fields, rows);
    await table.buildIndexes();
    return table;
  }

  /** Keeps the held tables within the budget, dropping the least recently used; the one just used stays if it fits. */
  private fit(justUsed: string, table: ResidentTable): void {
    this.fitted.add(table);
    if (table.bytes > this.limits.maxBytes) {
      this.tooLarge.add(justUsed);
      this.held.delete(justUsed);
      return;
    }
    let total = 0;
    const sizes: [string, number, number][] = [];
    for (const [id, held] of this.held) {
      const size = held.ready?.bytes ?? 0;
      sizes.push([id, size, held.used]);
      total += size;
    }
    sizes.sort((a, b) => a[2] - b[2]);
    for (const [id, size] of sizes) {
      if (total <= this.limits.maxBytes) break;
      if (id === justUsed) continue;
      this.held.delete(id);
      total -= size;
    }
  }
}
