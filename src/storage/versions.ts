// Which version of the data a store serves, and which older ones are still in use: a request leases the current
// version for as long as it reads; a version that has been replaced is closed when its last lease is released.

import { createHash } from 'node:crypto';
import type { Lease, LoadedResource, StoreVersion } from './backend.js';
import type { StoreMeta } from './load-target.js';

/** A version a store can close once nothing reads it. */
export interface ClosableVersion extends StoreVersion {
  close(): Promise<void>;
}

/**
 * What versions answers (entity tags, remembered answers, rendered pages): the dataset version, and which indexes
 * are built, as indexes built after publication change what datastore_info reports of a resource's size (and
 * nothing else), without changing its data.
 */
export function answersVersion(meta: StoreMeta): string {
  const indexes = [...meta.resources.values()]
    .map((r) => `${r.id} ${r.builtIndexes.join(' ')} ${(r.unbuiltIndexes ?? []).join(' ')}`)
    .sort()
    .join('\n');
  return `${meta.datasetVersion}.${createHash('sha1').update(indexes).digest('hex').slice(0, 8)}`;
}

/** What a version says about itself, on either store: read from the meta its load recorded, never from live tables. */
export abstract class RecordedVersion {
  /** Made once: every request asks for it (cache keys, entity tags), and a version's meta never changes. */
  private answersVersionMemo: string | null = null;

  constructor(protected readonly meta: StoreMeta) {}

  get catalog(): string {
    return this.meta.catalog;
  }

  get indexLanguage(): string {
    return this.meta.fullTextLanguage;
  }

  get datasetVersion(): string {
    return this.meta.datasetVersion;
  }

  get answersVersion(): string {
    return (this.answersVersionMemo ??= answersVersion(this.meta));
  }

  get databaseBytes(): number {
    return this.meta.databaseBytes;
  }

  get resources(): ReadonlyMap<string, LoadedResource> {
    return this.meta.resources;
  }
}

export class ServedVersions<V extends ClosableVersion> {
  private served: V;
  private readonly leases = new Map<V, number>();
  private readonly retired = new Set<V>();
  private readonly closing: Promise<void>[] = [];

  constructor(
    first: V,
    private readonly onCloseError: (err: unknown) => void = () => {},
  ) {
    this.served = first;
  }

  get current(): V {
    return this.served;
  }

  acquire(): Lease {
    const version = this.served;
    this.leases.set(version, (this.leases.get(version) ?? 0) + 1);
    let released = false;
    return {
      version,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.leases.get(version) ?? 1) - 1;
        if (left > 0) this.leases.set(version, left);
        else {
          this.leases.delete(version);
          if (this.retired.has(version)) this.close(version);
        }
      },
    };
  }

  /** Switches to `next` at once; the previous version closes now if unused, or when its last lease goes. */
  serve(next: V): void {
    const previous = this.served;
    if (previous === next) return;
    this.served = next;
    if (this.leases.has(previous)) this.retired.add(previous);
    else this.close(previous);
  }

  /** Versions still open: the served one and any replaced ones that requests are still reading. */
  get open(): number {
    return 1 + this.retired.size;
  }

  private close(version: V): void {
    this.retired.delete(version);
    this.closing.push(version.close().catch(this.onCloseError));
  }

  /** Closes every version, whether or not requests still hold it (the process is stopping). */
  async closeAll(): Promise<void> {
    for (const version of [...this.retired]) this.close(version);
    this.closing.push(this.served.close().catch(this.onCloseError));
    await Promise.all(this.closing);
  }
}
