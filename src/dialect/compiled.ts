// What a dialect compiler hands to a store version: SQL text and its positional parameters.

export interface CompiledQuery {
  sql: string;
  /** Strings, numbers and null for every dialect; PostgreSQL also takes booleans and arrays (for `= ANY($n)`). */
  params: (string | number | boolean | null | readonly unknown[])[];
  /**
   * The statement checks the store's deadline on every row it visits (the embedded store's `cc_deadline`), so it can
   * be stopped part way: the store may start it where it is cheap to run and move it elsewhere if it runs long.
   * Statements without it are bounded by construction (small tables, index-driven pages).
   */
  interruptible?: boolean;
}
