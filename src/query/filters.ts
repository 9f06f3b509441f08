// `filters` → a condition tree. CKAN 2.12's grammar (filter-grammar.ts: eq, in, gt, gte, lt, lte, `$and`, `$or`),
// with values read as the field's type, and the cases CKAN gets wrong answered correctly: null matches empty cells
// (CKAN never matches), a value no stored value can reach matches nothing instead of failing in the database, and
// ranges on whole-number fields compare as numbers whatever the bound.

import {
  parseBoolean,
  parseDate,
  parseNumber,
  parseTimestamp,
  ValueError,
  type StoredValue,
} from '../catalog/values.js';
import { pythonStr } from '../serialize/python-json.js';
import {
  FILTER_MESSAGES,
  filterOpRepr,
  isCombination,
  readFilterGrammar,
  type FieldOperation,
  type FilterOperation,
} from './filter-grammar.js';
import type { ComparisonOperator, Condition, PlanField } from './plan.js';
import { QUERY_LIMITS, type PlanProblems } from './problems.js';

type Scalar = Exclude<StoredValue, null>;

const TYPE_NAMES: Record<PlanField['type'], string> = {
  int: 'integer',
  int4: 'integer',
  int8: 'bigint',
  numeric: 'numeric',
  float8: 'double precision',
  text: 'text',
  bool: 'boolean',
  date: 'date',
  timestamp: 'timestamp',
};

/**
 * The whole numbers a store can hold in a field of each integer type: `_id` and int4 are PostgreSQL integers, and
 * int8 values are loaded only within JavaScript's exact range. A filter value outside can match no record, and must
 * not reach a store that would reject it as out of range.
 */
const STORABLE_INTEGERS: Record<'int' | 'int4' | 'int8', [number, number]> = {
  int: [-2147483648, 2147483647],
  int4: [-2147483648, 2147483647],
  int8: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** A filter value that is valid for its field but that no stored value can equal. */
export const MATCHES_NOTHING = Symbol('matches nothing');

type Coerced = Scalar | typeof MATCHES_NOTHING | { problem: string };

function invalidSyntax(field: PlanField, shown: unknown): { problem: string } {
  return { problem: `invalid input syntax for type ${TYPE_NAMES[field.type]}: "${pythonStr(shown)}"` };
}

function isIntegerField(field: PlanField): field is PlanField & { type: 'int' | 'int4' | 'int8' } {
  return field.type === 'int' || field.type === 'int4' || field.type === 'int8';
}

/**
 * A number a whole-number field is compared with: a JSON number as it is (PostgreSQL compares an integer column
 * with 2.5 numerically), text only as a whole number (PostgreSQL reads it as the column's type, and fails otherwise).
 */
function integerOperand(value: unknown, field: PlanField): number | { problem: string } {
  try {
    if (typeof value === 'number') return value;
    if (typeof value === 'string') {
      const number = parseNumber(value);
      if (Number.isInteger(number)) return number;
    }
  } catch (err) {
    if (!(err instanceof ValueError)) throw err;
  }
  return invalidSyntax(field, value);
}

/**
 * A filter value as the field's type, or a message worded as PostgreSQL's (which is where CKAN finds out), or
 * MATCHES_NOTHING for a valid value no record can hold (a number that is not a whole number, or one beyond the
 * column's range, in a whole-number field; text with a NUL, which PostgreSQL text cannot contain). Text fields
 * compare with the value's Python str(), as CKAN does, whatever its JSON type: {"Candidate Id": 25} and "25" agree.
 */
export function coerceFilterValue(value: unknown, field: PlanField): Coerced {
  if (field.type === 'text') {
    const text = pythonStr(value);
    return text.includes('\u0000') ? MATCHES_NOTHING : text;
  }
  if (value !== null && typeof value === 'object')
    return {
      problem: `a filter value for "${field.id}" must be a single value or a list of values, got ${pythonStr(value)}`,
    };
  if (isIntegerField(field)) {
    const number = integerOperand(value, field);
    if (typeof number !== 'number') return number;
    const [min, max] = STORABLE_INTEGERS[field.type];
    return !Number.isInteger(number) || number < min || number > max ? MATCHES_NOTHING : number;
  }
  try {
    switch (field.type) {
      case 'numeric':
      case 'float8':
        if (typeof value === 'number') return value;
        if (typeof value === 'string') return parseNumber(value);
        return invalidSyntax(field, value);
      case 'bool':
        if (typeof value === 'boolean') return value;
        if (typeof value === 'string') return parseBoolean(value);
        return invalidSyntax(field, value);
      case 'date':
        return typeof value === 'string' ? parseDate(value, 'ISO') : invalidSyntax(field, value);
      case 'timestamp':
        return typeof value === 'string' ? parseTimestamp(value, 'ISO') : invalidSyntax(field, value);
      default:
        return invalidSyntax(field, value);
    }
  } catch (err) {
    if (err instanceof ValueError) return invalidSyntax(field, value);
    throw err;
  }
}

// Conditions are built with null standing for "every record" (no condition), so that a bound every value satisfies
// disappears instead of reaching the store.
type Built = Condition | null;

const NEVER: Condition = { kind: 'never' };

export function allOf(conditions: readonly Built[]): Built {
  const kept: Condition[] = [];
  for (const c of conditions) {
    if (c === null) continue;
    if (c.kind === 'never') return NEVER;
    if (c.kind === 'and') kept.push(...c.of);
    else kept.push(c);
  }
  return kept.length === 0 ? null : kept.length === 1 ? kept[0]! : { kind: 'and', of: kept };
}

export function anyOf(conditions: readonly Built[]): Built {
  const kept: Condition[] = [];
  for (const c of conditions) {
    if (c === null) return null;
    if (c.kind === 'never') continue;
    if (c.kind === 'or') kept.push(...c.of);
    else kept.push(c);
  }
  return kept.length === 0 ? NEVER : kept.length === 1 ? kept[0]! : { kind: 'or', of: kept };
}

/** Every record with a value in the field: nothing to ask of a field known to have no empty cells. */
function notNull(field: PlanField): Built {
  return field.nullable === false || field.id === '_id' ? null : { kind: 'not-null', field };
}

/**
 * A range on a whole-number field. A fractional bound becomes the whole number it implies (> 2.5 is ≥ 3, as
 * PostgreSQL's numeric comparison gives); a bound beyond the column's range matches nothing or every value, so
 * that it never reaches the store as a value out of range.
 */
function integerComparison(
  field: PlanField & { type: 'int' | 'int4' | 'int8' },
  operator: ComparisonOperator,
  bound: number,
): Built {
  const [min, max] = STORABLE_INTEGERS[field.type];
  // Every stored value v satisfies `v > lower` exactly when v ≥ lower + 1; work with inclusive bounds throughout.
  if (operator === 'gt' || operator === 'gte') {
    const lowest = operator === 'gt' ? Math.floor(bound) + 1 : Math.ceil(bound);
    if (lowest > max) return NEVER;
    if (lowest <= min) return notNull(field);
    return { kind: 'compare', field, operator: 'gte', value: lowest };
  }
  const highest = operator === 'lt' ? Math.ceil(bound) - 1 : Math.floor(bound);
  if (highest < min) return NEVER;
  if (highest >= max) return notNull(field);
  return { kind: 'compare', field, operator: 'lte', value: highest };
}

/** `field <operator> value`, with the value read as the field's type; null compares with nothing (SQL's rule). */
export function comparison(
  field: PlanField,
  operator: ComparisonOperator,
  value: unknown,
  problems: PlanProblems,
): Built {
  if (value === null) return NEVER;
  if (typeof value === 'object' && field.type !== 'text') {
    problems.invalidQuery(`a filter value for "${field.id}" must be a single value, got ${pythonStr(value)}`);
    return NEVER;
  }
  if (isIntegerField(field)) {
    const bound = integerOperand(value, field);
    if (typeof bound !== 'number') {
      problems.invalidQuery(bound.problem);
      return NEVER;
    }
    return integerComparison(field, operator, bound);
  }
  if (field.type === 'text') {
    const text = pythonStr(value);
    const nul = text.indexOf('\u0000');
    if (nul === -1) return { kind: 'compare', field, operator, value: text };
    // No stored text holds a NUL (PostgreSQL text cannot), and NUL orders before every other character: a stored
    // value is beyond "ab\0c" exactly when it is beyond "ab", and short of it exactly when it is at most "ab".
    const before = text.slice(0, nul);
    return { kind: 'compare', field, operator: operator === 'gt' || operator === 'gte' ? 'gt' : 'lte', value: before };
  }
  const coerced = coerceFilterValue(value, field);
  if (coerced === MATCHES_NOTHING) return NEVER;
  if (typeof coerced === 'object') {
    problems.invalidQuery(coerced.problem);
    return NEVER;
  }
  return { kind: 'compare', field, operator, value: coerced };
}

/** The field equals one of `values` (null: the cell is empty); `asList` keeps a single value an IN, as CKAN's `in`. */
function membership(field: PlanField, values: readonly unknown[], asList: boolean, problems: PlanProblems): Built {
  if (values.length === 0) return NEVER;
  const coerced: Scalar[] = [];
  let matchesNull = false;
  for (const item of values) {
    if (item === null) {
      matchesNull = true;
      continue;
    }
    const result = coerceFilterValue(item, field);
    if (result === MATCHES_NOTHING) continue;
    if (typeof result === 'object') problems.invalidQuery(result.problem);
    else coerced.push(result);
  }
  const valueCondition: Built =
    coerced.length === 0
      ? NEVER
      : coerced.length === 1 && !asList
        ? { kind: 'equals', field, value: coerced[0]! }
        : { kind: 'in', field, values: coerced };
  return matchesNull ? anyOf([valueCondition, { kind: 'is-null', field }]) : valueCondition;
}

const OPERATORS = new Set<string>(['eq', 'in', 'gt', 'gte', 'lt', 'lte']);

interface Walk {
  fields: ReadonlyMap<string, PlanField>;
  problems: PlanProblems;
  values: number;
}

function fieldCondition(op: FieldOperation, walk: Walk): Built {
  const field = walk.fields.get(op.field)!;
  if (!OPERATORS.has(op.op)) {
    walk.problems.late('filters', FILTER_MESSAGES.unknownOperation(op));
    return NEVER;
  }
  switch (op.op) {
    case 'eq':
      walk.values += 1;
      return membership(field, [op.value], false, walk.problems);
    case 'in':
      if (!Array.isArray(op.value)) {
        walk.problems.late('filters', `Filter operation "in" takes a list of values: ${filterOpRepr(op)}`);
        return NEVER;
      }
      walk.values += op.value.length;
      return membership(field, op.value, true, walk.problems);
    default:
      walk.values += 1;
      return comparison(field, op.op as ComparisonOperator, op.value, walk.problems);
  }
}

function condition(op: FilterOperation, walk: Walk): Built {
  if (isCombination(op)) {
    const members = op.members.map((m) => condition(m, walk));
    return op.op === '$and' ? allOf(members) : anyOf(members);
  }
  return fieldCondition(op, walk);
}

/** The first field CKAN's later check finds unknown: only a plain list (`in`) reaches it without being checked. */
function unknownListField(op: FilterOperation, fields: ReadonlyMap<string, PlanField>): string | null {
  if (isCombination(op)) {
    for (const member of op.members) {
      const unknown = unknownListField(member, fields);
      if (unknown !== null) return unknown;
    }
    return null;
  }
  return fields.has(op.field) ? null : op.field;
}

/** The condition a `filters` value asks for (null: no condition); problems are recorded, not thrown. */
export function planFilters(
  filters: unknown,
  fields: ReadonlyMap<string, PlanField>,
  problems: PlanProblems,
): Condition | null {
  if (filters === undefined || filters === null) return null;
  const grammar = readFilterGrammar(filters, (name) => fields.has(name));
  if (!grammar.ok) {
    problems.grammar('filters', grammar.messages);
    return null;
  }
  if (grammar.root === null) return null;
  const unknown = unknownListField(grammar.root, fields);
  if (unknown !== null) {
    problems.invalidValue('filters', unknown);
    return null;
  }
  const walk: Walk = { fields, problems, values: 0 };
  const built = condition(grammar.root, walk);
  if (walk.values > QUERY_LIMITS.maxFilterValues) {
    problems.message('filters', `At most ${QUERY_LIMITS.maxFilterValues} filter values are allowed`);
  }
  return built;
}
