// What the catalogue says of a dataset that holds one election's results, and the roles its resources play: the
// election views find the candidates, constituencies and counts by these, whatever the resources are called.

/**
 * What a resource holds when its dataset is an election: the explorer's election views find the candidates, the
 * constituencies and the count-by-count details by these roles, whatever the resources are called.
 */
export const RESOURCE_ROLES = ['candidates', 'constituencies', 'counts', 'checks'] as const;
export type ResourceRole = (typeof RESOURCE_ROLES)[number];

/** A dataset that holds one election's results. */
export interface ElectionDefinition {
  /** Polling day, YYYY-MM-DD. */
  date: string;
  /** What was elected, e.g. "33rd Dáil". */
  body: string;
  /** Seats in the house, the Ceann Comhairle's included; null when the catalogue does not say. */
  seats: number | null;
  /**
   * The outgoing Ceann Comhairle, returned without a contest, so in no count; null when the catalogue does not say.
   * `party` is the party they were elected for, spelt as the election's candidate records spell it: readers count the
   * seat for it. Null when not given.
   */
  ceannComhairle: { name: string; constituency: string; party: string | null } | null;
}
