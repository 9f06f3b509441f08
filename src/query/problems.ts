// Collects what is wrong with a request once its resource is known, and reports it as CKAN does: first the filter
// grammar's errors (CKAN 2.12 parses `filters` before it checks anything else), then the "invalid value" problems of
// the alphabetically first parameter (CKAN walks its sorted request dict), then what CKAN finds only while building
// its SQL (an unknown filter operation), then problems CKAN would only discover when PostgreSQL ran the query
// ("Invalid query").

import { errors, messages, type ApiError } from '../errors.js';

/** Caps that keep one request from asking for unbounded work; exceeding one is a 409, never a crash. */
export const QUERY_LIMITS = {
  maxFilterValues: 10_000,
  maxSortClauses: 100,
  maxFields: 1_000,
  maxTextQueryLength: 10_000,
} as const;

export class PlanProblems {
  private grammarProblem: { parameter: string; messages: string[] } | null = null;
  private readonly byParameter = new Map<string, string>();
  private lateProblem: { parameter: string; message: string } | null = null;
  private queryProblem: string | null = null;

  /** Errors of a parameter's grammar, all of them, reported before any other problem (the first call wins). */
  grammar(parameter: string, texts: string[]): void {
    this.grammarProblem ??= { parameter, messages: texts };
  }

  /** CKAN's `{"<param>": ["invalid value \"<value>\""]}`; only the first per parameter is kept. */
  invalidValue(parameter: string, value: unknown): void {
    this.message(parameter, messages.invalidValue(value));
  }

  message(parameter: string, text: string): void {
    if (!this.byParameter.has(parameter)) this.byParameter.set(parameter, text);
  }

  /** A problem CKAN only raises once everything else has passed, while building its SQL; the first one wins. */
  late(parameter: string, text: string): void {
    this.lateProblem ??= { parameter, message: text };
  }

  /** A problem CKAN reports as "Invalid query"; `reason` is what PostgreSQL would have said. */
  invalidQuery(reason: string): void {
    this.queryProblem ??= reason;
  }

  toError(): ApiError | null {
    if (this.grammarProblem)
      return errors.validation({ [this.grammarProblem.parameter]: this.grammarProblem.messages });
    if (this.byParameter.size > 0) {
      const first = [...this.byParameter.keys()].sort()[0]!;
      return errors.validation({ [first]: [this.byParameter.get(first)!] });
    }
    if (this.lateProblem) return errors.validation({ [this.lateProblem.parameter]: [this.lateProblem.message] });
    return this.queryProblem === null ? null : errors.invalidQuery(this.queryProblem);
  }
}
