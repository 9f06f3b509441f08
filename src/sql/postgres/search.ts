// PostgreSQL's hooks for the search compiler: `$n` placeholders, `= ANY($n)` arrays, text ordered by code point
// (COLLATE "C", CKAN's collation), and full-text matching with the database's own @@ and ts_rank.

import { RANK_NORMALIZATION, type SearchPlan, type TextMatch } from '../../query/plan.js';
import type { SqlCompiler } from '../../dialect/compiler.js';
import { compilerOf, type ParamList, type SearchDialectHooks } from '../search-compiler.js';
import { wrapUserSql } from './user-sql.js';
import { COLUMN_TYPES, foldSql, keyExpression } from '../../dialect/postgres/ddl.js';
import { qualified, quoteIdent } from '../../dialect/postgres/quote.js';
import { delimitedLineSql } from '../../dialect/postgres/lines.js';

export interface PostgresCompileOptions {
  schema: string;
  /** The table that holds each resource in the version being read. */
  tables: ReadonlyMap<string, string>;
}

/** The text the query matches in one field: `value::text`, as CKAN casts it, with accents folded as the query's. */
function fieldText(p: ParamList, schema: string, match: TextMatch & { target: { kind: 'field' } }): string {
  return `to_tsvector(${p.bind(match.query.config)}::regconfig, ${foldSql(schema, `${quoteIdent(match.target.field.id)}::text`)})`;
}

function hooks(options: PostgresCompileOptions): SearchDialectHooks {
  return {
    placeholder: (position) => `$${position}`,
    quoteIdent,
    table: (resourceId) => qualified(options.schema, options.tables.get(resourceId) ?? resourceId),
    bindBoolean: (p, value) => p.bindRaw(value),
    inList: (p, field, values) => `${keyExpression(field)} = ANY(${p.bindRaw(values)}::${COLUMN_TYPES[field.type]}[])`,
    keyExpression,
    delimitedLine: (fields, lines) => delimitedLineSql(fields, lines.delimiter, lines.timestampMilliseconds),
    textMatch(p: ParamList, _plan: SearchPlan, match: TextMatch) {
      // A query of stop words only matches nothing; saying so spares PostgreSQL's notice about it.
      if (match.query.candidates.kind === 'none') return '1 = 0';
      if (match.target.kind === 'row') return `"_full_text" @@ ${p.bind(match.query.text)}::tsquery`;
      return `${fieldText(p, options.schema, match as TextMatch & { target: { kind: 'field' } })} @@ ${p.bind(match.query.text)}::tsquery`;
    },
    rank(p: ParamList, match: TextMatch) {
      const vector =
        match.target.kind === 'row'
          ? '"_full_text"'
          : fieldText(p, options.schema, match as TextMatch & { target: { kind: 'field' } });
      return `ts_rank(${vector}, ${p.bind(match.query.text)}::tsquery, ${RANK_NORMALIZATION})`;
    },
  };
}

/** The PostgreSQL compiler for a version of the data (its schema and this load's tables); user SQL runs as written. */
export function postgresCompiler(options: PostgresCompileOptions): SqlCompiler {
  return compilerOf(hooks(options), (prepared, maxRows) => wrapUserSql(prepared.statement, maxRows));
}
