// The structure of CKAN 2.12's `filters` (ckanext/datastore/filters.py): a dict, or a list of dicts (OR), whose keys
// are fields or the operators `$and` / `$or`, and whose field values are a value (eq), a list (in), an operator dict
// ({"gt": 1, "lt": 5}: AND) or a list mixing values and operator dicts (OR). Read into a tree of operations with
// CKAN's limits, counting and messages; what the values mean is the planner's business (filters.ts).

import { pythonRepr, pythonStr } from '../serialize/python-json.js';

/** CKAN's MAX_FILTER_OPS_NUM: operations in all, and keys in one dict or entries in a top-level list (at most 99). */
export const MAX_FILTER_OPERATIONS = 100;
/** CKAN's MAX_FILTER_OPS_DEPTH: `$and` / `$or` lists nest at most 9 deep (the 10th level is refused). */
export const MAX_FILTER_DEPTH = 10;

export const FILTER_MESSAGES = {
  shape: 'Filters must be defined as a dict or a list of dicts',
  tooManyOperations: 'Maximum number of filter operations exceeded',
  tooDeep: 'Maximum nesting depth for filter operations reached',
  unknownCombinator: (key: string) => `Unknown operators (must be one of $or, $and): ${key}`,
  combinatorShape: (value: unknown) => `Filter operations must be defined as a list of dicts: ${pythonStr(value)}`,
  unknownField: (name: string) => `Unknown field: ${name}`,
  unknownOperation: (op: FieldOperation) => `Unknown filter operation: ${filterOpRepr(op)}`,
} as const;

export type Combinator = '$and' | '$or';

/**
 * One field's condition: `op` is what the request named (eq, in, gt, gte, lt, lte, or anything else, refused later).
 */
export interface FieldOperation {
  op: string;
  field: string;
  value: unknown;
}

export type FilterOperation = FieldOperation | { op: Combinator; members: FilterOperation[] };

/**
 * Told apart by shape, not by name: a field's operator dict may itself name `$and` or `$or`
 * (`{"Votes": {"$and": […]}}`), which is an unknown operation on that field, not a combination.
 */
export function isCombination(op: FilterOperation): op is { op: Combinator; members: FilterOperation[] } {
  return 'members' in op;
}

/** CKAN's repr of a field operation, which its "Unknown filter operation" message quotes. */
export function filterOpRepr(op: FieldOperation): string {
  return `FilterOp(field=${pythonRepr(op.field)}, op=${pythonRepr(op.op)}, value=${pythonRepr(op.value)})`;
}

export type FilterGrammarResult =
  { ok: true; root: FilterOperation | null; operations: number } | { ok: false; messages: string[] };

type Dict = Record<string, unknown>;

function isDict(value: unknown): value is Dict {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isListOfDicts(value: unknown): value is Dict[] {
  return Array.isArray(value) && value.every(isDict);
}

/** Python's truth value of a JSON value: CKAN ignores `filters` that are falsy. */
function isFalsy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isDict(value) && Object.keys(value).length === 0;
}

/** `$or`, `$and`, `$anything`; `$$name` is the field `$name`. */
function isCombinatorKey(key: string): boolean {
  return key.startsWith('$') && !key.startsWith('$$');
}

/** An error that ends the reading at once, as CKAN raises it (the errors collected so far are dropped). */
class Refusal {
  constructor(readonly message: string) {}
}

/**
 * Reads filters into operations. Every operation made counts towards the limit where CKAN's parser makes one (each
 * field operation, each `$or` / `$and` it keeps, the AND of a dict's several keys or of a field's several operators,
 * the OR of a mixed list), so a request is refused at exactly the size CKAN refuses it.
 */
class FilterReader {
  operations = 0;
  readonly errors: string[] = [];

  constructor(private readonly isField: (name: string) => boolean) {}

  private made<T extends FilterOperation>(op: T): T {
    this.operations += 1;
    if (this.operations > MAX_FILTER_OPERATIONS) throw new Refusal(FILTER_MESSAGES.tooManyOperations);
    return op;
  }

  private checkDictSize(dict: Dict): void {
    if (Object.keys(dict).length >= MAX_FILTER_OPERATIONS) throw new Refusal(FILTER_MESSAGES.tooManyOperations);
  }

  read(input: unknown): FilterOperation | null {
    if (isFalsy(input)) return null;
    if (!isDict(input) && !isListOfDicts(input)) throw new Refusal(FILTER_MESSAGES.shape);
    if (Array.isArray(input)) {
      if (input.length >= MAX_FILTER_OPERATIONS) throw new Refusal(FILTER_MESSAGES.tooManyOperations);
      const members = this.combination(input, '$or', 0);
      return members ? this.made({ op: '$or', members }) : null;
    }
    const children = this.dictOperations(input, 0, true);
    if (this.errors.length > 0 || children.length === 0) return null;
    return children.length === 1 ? children[0]! : this.made({ op: '$and', members: children });
  }

  /** The operations of one filter dict's keys, in order. */
  private dictOperations(dict: Dict, level: number, topLevel: boolean): FilterOperation[] {
    this.checkDictSize(dict);
    const operations: FilterOperation[] = [];
    for (const [key, value] of Object.entries(dict)) {
      if (isCombinatorKey(key)) {
        const combinator = this.combinator(key, value);
        if (!combinator) continue;
        const members = this.combination(value as Dict[], combinator, level);
        if (!members) continue;
        // The top level is an AND already: a `$and` there adds its members, not an operation of its own.
        if (topLevel && combinator === '$and') operations.push(...members);
        else operations.push(this.made({ op: combinator, members }));
      } else {
        const operation = this.field(key, value);
        if (operation) operations.push(operation);
      }
    }
    return operations;
  }

  /** The combinator a key names, when its value is a list of dicts; otherwise the error is recorded. */
  private combinator(key: string, value: unknown): Combinator | null {
    if (key !== '$and' && key !== '$or') this.errors.push(FILTER_MESSAGES.unknownCombinator(key));
    else if (!isListOfDicts(value)) this.errors.push(FILTER_MESSAGES.combinatorShape(value));
    else return key;
    return null;
  }

  /** The members of a `$and` / `$or` list, with members of the same kind merged into it (AND within AND is one AND). */
  private combination(list: Dict[], parent: Combinator, level: number): FilterOperation[] | null {
    const members = this.members(list, level + 1);
    return members && merged(members, parent);
  }

  private members(list: Dict[], level: number): FilterOperation[] | null {
    if (level >= MAX_FILTER_DEPTH) throw new Refusal(FILTER_MESSAGES.tooDeep);
    const out: FilterOperation[] = [];
    for (const item of list) {
      const operations = this.dictOperations(item, level, false);
      // A member that asks for nothing (an empty dict, an empty `$and`) is left out, as CKAN leaves it out.
      if (operations.length === 1) out.push(operations[0]!);
      else if (operations.length > 1) out.push(this.made({ op: '$and', members: merged(operations, '$and') }));
    }
    return out.length > 0 ? out : null;
  }

  private field(key: string, value: unknown, escaped = false): FilterOperation | null {
    const name = !escaped && key.startsWith('$$') ? key.slice(1) : key;
    if (isDict(value)) {
      const entries = Object.entries(value);
      // CKAN fails on an empty operator dict; it asks for no condition.
      if (entries.length === 0) return null;
      if (entries.length === 1) return this.operation(name, entries[0]![0], entries[0]![1]);
      const children = entries
        .map(([op, operand]) => this.field(name, { [op]: operand }, true))
        .filter((c) => c !== null);
      return children.length > 0 ? this.made({ op: '$and', members: children }) : null;
    }
    if (!Array.isArray(value)) return this.operation(name, 'eq', value);
    const operatorDicts = value.filter(isDict);
    // CKAN does not check the field of a plain list here; an unknown one is reported later, as "invalid value".
    if (operatorDicts.length === 0) return this.made({ op: 'in', field: name, value });
    const members = operatorDicts.map((dict) => this.field(name, dict, true)).filter((m) => m !== null);
    const values = value.filter((item) => !isDict(item));
    if (values.length > 0) members.push(this.made({ op: 'in', field: name, value: values }));
    return members.length > 0 ? this.made({ op: '$or', members }) : null;
  }

  private operation(field: string, op: string, value: unknown): FieldOperation | null {
    if (!this.isField(field)) {
      this.errors.push(FILTER_MESSAGES.unknownField(field));
      return null;
    }
    return this.made({ op, field, value });
  }
}

function merged(operations: FilterOperation[], parent: Combinator): FilterOperation[] {
  return operations.flatMap((op) => (op.op === parent && isCombination(op) ? op.members : [op]));
}

/** Reads `filters` as CKAN 2.12 does; `isField` says whether the resource has a field of that name (`_id` included). */
export function readFilterGrammar(input: unknown, isField: (name: string) => boolean): FilterGrammarResult {
  const reader = new FilterReader(isField);
  try {
    const root = reader.read(input);
    if (reader.errors.length > 0) return { ok: false, messages: reader.errors };
    return { ok: true, root, operations: reader.operations };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, messages: [err.message] };
    throw err;
  }
}
