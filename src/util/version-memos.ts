// What presenters work out once per version of the data (election models, chart images, facet counts) kept with that
// version's services: a reload's new services start with none, and the old ones go when the old version does.

/** A memo's name and the type of what it keeps. */
export interface MemoKey<T> {
  readonly name: string;
  /** Never set: carries T for the type checker. */
  readonly type?: T;
}

export function memoKey<T>(name: string): MemoKey<T> {
  return { name };
}

export class VersionMemos {
  private readonly kept = new Map<MemoKey<unknown>, unknown>();

  /** The value kept under `key`, made by `make` the first time it is asked for. */
  get<T>(key: MemoKey<T>, make: () => T): T {
    if (this.kept.has(key)) return this.kept.get(key) as T;
    const value = make();
    this.kept.set(key, value);
    return value;
  }
}
