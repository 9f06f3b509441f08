// Name scopes of a statement: the relations of each query level (resources, subqueries, CTEs, joins), the
// CTEs in view, and how PostgreSQL resolves a column reference against them (with its error messages).

import { SqlFailure, unsupported } from './failure.js';
import type { PgType } from './pg-types.js';

export interface Column {
  name: string;
  type: PgType;
  /** SQLite expression reading it, always qualified by an internal alias. */
  sql: string;
  native: boolean;
  /** For a stored numeric read as its exact text: the SQLite expression of its double (Ex.nativeKey). */
  nativeKey?: string;
  /** For a stored date or timestamp: the integer its index is keyed on (Ex.timeKey). */
  timeKey?: { of: string; key: string };
  length: number | null;
  /** The relation it belongs to (null for a merged JOIN USING column). */
  entry: RangeEntry | null;
}

export interface RangeEntry {
  /** The name that qualifies its columns: the alias, else the relation's name. */
  refName: string;
  columns: Column[];
  /** `_id` of a resource table: grouping by it makes every column of the table grouped (functional dependency). */
  primaryKey: Column | null;
}

export interface FromItem {
  sql: string;
  /** Every relation inside the item, for qualified references. */
  entries: RangeEntry[];
  /** Columns seen by unqualified references and `*`, in PostgreSQL's order (JOIN USING columns merged). */
  visible: Column[];
}

export interface CteDef {
  name: string;
  sqlName: string;
  columns: { name: string; type: PgType; native: boolean; length: number | null }[];
}

/** The GROUP BY of a query level: key expressions (by their SQL) and tables grouped by primary key. */
export interface Grouping {
  keys: Set<string>;
  pkEntries: Set<RangeEntry>;
}

export interface ResolvedColumn {
  column: Column;
  levelsUp: number;
  scope: Scope;
}

export class Scope {
  items: FromItem[] = [];
  entries: RangeEntry[] = [];
  /** Set while a grouped query's expressions are checked, so that subqueries can check outer references. */
  activeGrouping: Grouping | null = null;

  /** `ctes` is shared by the scopes of one query level (its FROM subqueries and JOIN conditions see them). */
  constructor(
    readonly parent: Scope | null,
    readonly ctes = new Map<string, CteDef>(),
  ) {}

  findCte(name: string): CteDef | undefined {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the walk up the scopes starts at this one
    for (let s: Scope | null = this; s; s = s.parent) {
      const cte = s.ctes.get(name);
      if (cte) return cte;
    }
    return undefined;
  }

  addItem(item: FromItem): void {
    for (const entry of item.entries) {
      if (this.entries.some((e) => e.refName === entry.refName)) {
        throw new SqlFailure(`table name "${entry.refName}" specified more than once`);
      }
      this.entries.push(entry);
    }
    this.items.push(item);
  }

  /** Resolves a column reference (1 or 2 names) through this level and the enclosing ones. */
  resolve(names: readonly string[]): ResolvedColumn {
    if (names.length === 1) {
      const name = names[0]!;
      let levelsUp = 0;
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- the walk up the scopes starts at this one
      for (let s: Scope | null = this; s; s = s.parent, levelsUp++) {
        const found: Column[] = [];
        for (const item of s.items) for (const c of item.visible) if (c.name === name) found.push(c);
        if (found.length > 1) throw new SqlFailure(`column reference "${name}" is ambiguous`);
        if (found.length === 1) return { column: found[0]!, levelsUp, scope: s };
        if (s.entries.some((e) => e.refName === name)) throw unsupported(`whole-row reference "${name}"`);
      }
      throw new SqlFailure(`column "${name}" does not exist`);
    }
    if (names.length === 2) {
      const [rel, name] = names as [string, string];
      let levelsUp = 0;
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- the walk up the scopes starts at this one
      for (let s: Scope | null = this; s; s = s.parent, levelsUp++) {
        const entry = s.entries.find((e) => e.refName === rel);
        if (!entry) continue;
        const found = entry.columns.filter((c) => c.name === name);
        if (found.length > 1) throw new SqlFailure(`column reference "${name}" is ambiguous`);
        if (found.length === 0) throw new SqlFailure(`column ${rel}.${name} does not exist`);
        return { column: found[0]!, levelsUp, scope: s };
      }
      throw new SqlFailure(`missing FROM-clause entry for table "${rel}"`);
    }
    throw unsupported(`column reference ${names.map((n) => `"${n}"`).join('.')}`);
  }

  /** The relation a qualified star (`t.*`) names. */
  entryForStar(rel: string): RangeEntry {
    const entry = this.entries.find((e) => e.refName === rel);
    if (!entry) {
      for (let s = this.parent; s; s = s.parent) {
        if (s.entries.some((e) => e.refName === rel)) throw unsupported(`"${rel}.*" of an outer query`);
      }
      throw new SqlFailure(`missing FROM-clause entry for table "${rel}"`);
    }
    return entry;
  }
}

/** How a column appears in "must appear in the GROUP BY clause" messages. */
export function columnDisplay(c: Column): string {
  return c.entry ? `${c.entry.refName}.${c.name}` : c.name;
}
