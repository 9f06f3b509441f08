// Collects what is wrong with a request once its resource is known, and reports it as CKAN does: first the
// "invalid value" problems of the alphabetically first parameter (CKAN walks its sorted request dict), then
// problems CKAN would only discover when PostgreSQL ran the query ("Invalid query").

import { errors, messages, type ApiError } from '../errors.js';

/** Caps that keep one request from asking for unbounded work; exceeding one is a 409, never a crash. */
export const QUERY_LIMITS = {
  maxFilterValues: 10_000,
  maxFilterAlternatives: 100,
  maxSortClauses: 100,
  maxFields: 1_000,
  maxTextQueryLength: 10_000,
} as const;

export class PlanProblems {
  private readonly byParameter = new Map<string, string>();
  private queryProblem: string | null = null;

  /** CKAN's `{"<param>": ["invalid value \"<value>\""]}`; only the first per parameter is kept. */
  invalidValue(parameter: string, value: unknown): void {
    this.message(parameter, messages.invalidValue(value));
  }

  message(parameter: string, text: string): void {
    if (!this.byParameter.has(parameter)) this.byParameter.set(parameter, text);
  }

  /** A problem CKAN reports as "Invalid query"; `reason` is what PostgreSQL would have said. */
  invalidQuery(reason: string): void {
    this.queryProblem ??= reason;
  }

  toError(): ApiError | null {
    if (this.byParameter.size > 0) {
      const first = [...this.byParameter.keys()].sort()[0]!;
      return errors.validation({ [first]: [this.byParameter.get(first)!] });
    }
    return this.queryProblem === null ? null : errors.invalidQuery(this.queryProblem);
  }
}
