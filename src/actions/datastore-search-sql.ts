// datastore_search_sql: one read-only SELECT in PostgreSQL's dialect over the catalogue's resources, guarded, run
// under a time limit and a row cap (natively on PostgreSQL, translated on the embedded store), answered as CKAN does.

import { errors, toApiError } from '../errors.js';
import { requiredText } from '../query/params.js';
import { ReadForbidden, StatementRejected, StatementTimeout } from '../domain-errors.js';
import { documented } from './help-text.js';
import { paramValues } from './validation.js';

/**
 * The translator and PostgreSQL's parser (WebAssembly, some 13 MB, and about 20 MB of a process's memory once loaded)
 * are loaded by the first statement, not at start: most processes never answer one.
 */
let searchSql: Promise<typeof import('../sql/user-sql/index.js')> | null = null;
function loadSearchSql(): Promise<typeof import('../sql/user-sql/index.js')> {
  searchSql ??= import('../sql/user-sql/index.js').then(async (module) => {
    await module.initSearchSql();
    return module;
  });
  return searchSql;
}

const params = [
  requiredText(
    'sql',
    'SELECT "Party Abbreviation", count(*) AS candidates, sum("Votes") AS votes FROM "60728fc9-2896-41d8-a70c-9c01dd3d57ce" GROUP BY 1 ORDER BY 3 DESC',
    "a single SELECT statement in PostgreSQL's dialect, naming resources by their id in double quotes. Joins, WITH, GROUP BY/HAVING, window functions and the usual functions work (docs/sql.md lists the subset the embedded store runs). Statements that would write, read anything but the resources, or call other functions are refused.",
  ),
];

/** A refusal by the translator or the store as the API's error here, so the action's hints apply to it. */
function refusal(err: unknown): unknown {
  return err instanceof StatementRejected || err instanceof ReadForbidden ? toApiError(err, () => {}) : err;
}

function refusedAsApiError<T>(prepare: () => T): T {
  try {
    return prepare();
  } catch (err) {
    throw refusal(err);
  }
}

export const datastoreSearchSqlAction = documented({
  name: 'datastore_search_sql',
  params,
  summary: 'Execute SQL queries on the DataStore.',
  details:
    'The datastore_search_sql action allows a user to search data in a resource or connect multiple resources with join expressions. The underlying SQL engine is PostgreSQL (or an embedded store that answers as PostgreSQL would). Each statement runs under a time limit and returns at most the configured number of rows.',
  results:
    "A dictionary with the parameters as given, `records` (a list of {column: value} objects; numeric values as JSON numbers with all their digits, as CKAN 2.11 and later give them), `fields` (each result column's id and PostgreSQL type), and `records_truncated: true` when the row cap cut the result.",
  async run({ params: input }, { catalog, backend, settings }) {
    const sql = paramValues(params, input.sql === '' ? {} : input).get('sql') as string;
    const lookup = (id: string) => {
      const resource = catalog.get(id);
      if (!resource?.dataset) return undefined;
      return {
        id: resource.id,
        fields: resource.fields,
        exactFields: resource.stored.exactFields,
        fullTextLanguage: backend.indexLanguage,
      };
    };
    const { prepareSearchSql, renderSqlValue } = await loadSearchSql();
    const prepared = refusedAsApiError(() => prepareSearchSql(sql, lookup, { maxRows: settings.rowsMax }));
    let rows: unknown[][];
    let columns = prepared.columns;
    try {
      const result = await backend.userSql(
        backend.compiler.compileUserSql(prepared, settings.rowsMax),
        settings.sqlTimeoutMs,
      );
      rows = result.rows;
      // PostgreSQL reports the result's own column types; the translation knows them beforehand.
      columns = result.columns ?? columns;
    } catch (err) {
      if (err instanceof StatementTimeout) throw errors.queryTimeout('Query took too long');
      throw refusal(err);
    }
    const truncated = rows.length > settings.rowsMax;
    if (truncated) rows = rows.slice(0, settings.rowsMax);
    const records = rows.map((row) => {
      const record: Record<string, unknown> = {};
      columns.forEach((column, i) => {
        record[column.id] = renderSqlValue(row[i], column.type);
      });
      return record;
    });
    // CKAN's result is the request dict, with records, fields and (when cut) records_truncated added.
    const result: Record<string, unknown> = { ...input, records, fields: columns };
    if (truncated) result.records_truncated = true;
    return result;
  },
});
