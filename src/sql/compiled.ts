// What a dialect compiler hands to a storage backend: SQL text and its positional parameters.

export interface CompiledQuery {
  sql: string;
  /** Strings, numbers and null for every dialect; PostgreSQL also takes booleans and arrays (for `= ANY($n)`). */
  params: (string | number | boolean | null | readonly unknown[])[];
}
