// `filters` → a condition tree. CKAN 2.11's grammar — {field: value} for equality, {field: [values]} for
// any of them — with the cases CKAN gets wrong answered correctly: a list of dictionaries is an OR of them
// (CKAN 2.11 fails), an empty list matches nothing (CKAN 2.11 fails), null matches empty cells (CKAN never matches).

import { parseBoolean, parseDate, parseNumber, parseTimestamp, ValueError, type StoredValue } from '../catalog/values.js';
import { messages } from '../errors.js';
import { pythonStr } from '../serialize/python-json.js';
import type { Condition, PlanField } from './plan.js';
import { QUERY_LIMITS, type PlanProblems } from './problems.js';

type Scalar = Exclude<StoredValue, null>;

const TYPE_NAMES: Record<PlanField['type'], string> = {
  int: 'integer', int4: 'integer', int8: 'bigint', numeric: 'numeric', float8: 'double precision',
  text: 'text', bool: 'boolean', date: 'date', timestamp: 'timestamp',
};

/**
 * A filter value as the field's type, or a message worded as PostgreSQL's (which is where CKAN finds out).
 * Text fields compare with the value's Python str(), as CKAN does, so {"Candidate Id": 25} and "25" agree.
 */
export function coerceFilterValue(value: unknown, field: PlanField): Scalar | { problem: string } {
  const typeName = TYPE_NAMES[field.type];
  const invalid = (shown: unknown) => ({ problem: `invalid input syntax for type ${typeName}: "${pythonStr(shown)}"` });
  if (value !== null && typeof value === 'object') return { problem: `a filter value for "${field.id}" must be a single value or a list of values, got ${pythonStr(value)}` };
  try {
    switch (field.type) {
      case 'text':
        return pythonStr(value);
      case 'numeric':
      case 'float8':
        if (typeof value === 'number') return value;
        if (typeof value === 'string') return parseNumber(value);
        return invalid(value);
      case 'int':
      case 'int4':
      case 'int8': {
        const number = typeof value === 'number' ? value : typeof value === 'string' ? parseNumber(value) : NaN;
        if (!Number.isInteger(number)) return invalid(value);
        return number;
      }
      case 'bool':
        if (typeof value === 'boolean') return value;
        if (typeof value === 'string') return parseBoolean(value);
        return invalid(value);
      case 'date':
        return typeof value === 'string' ? parseDate(value, 'ISO') : invalid(value);
      case 'timestamp':
        return typeof value === 'string' ? parseTimestamp(value, 'ISO') : invalid(value);
    }
  } catch (err) {
    if (err instanceof ValueError) return invalid(value);
    throw err;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function conjunction(filters: Record<string, unknown>, fields: ReadonlyMap<string, PlanField>, problems: PlanProblems, budget: { values: number }): Condition[] {
  const conditions: Condition[] = [];
  for (const [name, value] of Object.entries(filters)) {
    const field = fields.get(name);
    if (!field) {
      problems.invalidValue('filters', name);
      continue;
    }
    const values = Array.isArray(value) ? value : [value];
    budget.values += values.length;
    if (Array.isArray(value) && value.length === 0) {
      conditions.push({ kind: 'never' });
      continue;
    }
    if (!Array.isArray(value) && value === null) {
      conditions.push({ kind: 'is-null', field });
      continue;
    }
    const coerced: Scalar[] = [];
    let matchesNull = false;
    for (const item of values) {
      if (item === null) {
        matchesNull = true;
        continue;
      }
      const result = coerceFilterValue(item, field);
      if (typeof result === 'object') problems.invalidQuery(result.problem);
      else coerced.push(result);
    }
    const valueCondition: Condition | null = coerced.length === 0 ? null
      : coerced.length === 1 && !Array.isArray(value) ? { kind: 'equals', field, value: coerced[0]! }
      : { kind: 'in', field, values: coerced };
    if (matchesNull) {
      const nullCondition: Condition = { kind: 'is-null', field };
      conditions.push(valueCondition ? { kind: 'or', of: [valueCondition, nullCondition] } : nullCondition);
    } else if (valueCondition) {
      conditions.push(valueCondition);
    }
  }
  return conditions;
}

function and(conditions: Condition[]): Condition | null {
  if (conditions.length === 0) return null;
  return conditions.length === 1 ? conditions[0]! : { kind: 'and', of: conditions };
}

/** The condition a `filters` value asks for (null: no condition); problems are recorded, not thrown. */
export function planFilters(filters: unknown, fields: ReadonlyMap<string, PlanField>, problems: PlanProblems): Condition | null {
  if (filters === undefined || filters === null) return null;
  const budget = { values: 0 };
  let condition: Condition | null;
  if (isPlainObject(filters)) {
    condition = and(conjunction(filters, fields, problems, budget));
  } else if (Array.isArray(filters) && filters.every(isPlainObject)) {
    if (filters.length > QUERY_LIMITS.maxFilterAlternatives) {
      problems.message('filters', `At most ${QUERY_LIMITS.maxFilterAlternatives} alternative filter dictionaries are allowed`);
      return null;
    }
    const alternatives = filters.map((f) => and(conjunction(f, fields, problems, budget)));
    // An empty dictionary among the alternatives matches everything, so the whole OR does.
    condition = filters.length === 0 || alternatives.some((a) => a === null) ? null
      : alternatives.length === 1 ? alternatives[0]!
      : { kind: 'or', of: alternatives as Condition[] };
  } else {
    problems.message('filters', messages.filtersShape);
    return null;
  }
  if (budget.values > QUERY_LIMITS.maxFilterValues) {
    problems.message('filters', `At most ${QUERY_LIMITS.maxFilterValues} filter values are allowed`);
  }
  return condition;
}
