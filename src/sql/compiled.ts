// What a dialect compiler hands to a storage backend: SQL text and its positional parameters.

export interface CompiledQuery {
  sql: string;
  params: (string | number | null)[];
}
