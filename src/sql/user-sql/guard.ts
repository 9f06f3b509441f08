// The guard: before any translation, the whole parse tree is walked for what datastore_search_sql may never
// do, whatever the subset: statements other than SELECT anywhere (writes, DDL, SET, COPY, transactions…), SELECT
// INTO and FOR UPDATE (409); system catalogues, other schemas (403); functions off the allow-list (403).

import type { Node } from 'libpg-query';
import { ReadForbidden } from '../../domain-errors.js';
import { isAllowedFunction } from './allowed-functions.js';
import { nodeKind, stringsOf } from './ast.js';
import { CKAN_MESSAGES, forbidden, readOnlyRefusal, SqlFailure } from './failure.js';
import { checkRelationName } from './query.js';

/** How a statement node is named in the refusal ("INSERT", "CREATE TABLE", …). */
const STATEMENT_WORDS: Record<string, string> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
  CreateStmt: 'CREATE TABLE',
  CreateTableAsStmt: 'CREATE TABLE AS',
  DropStmt: 'DROP',
  TruncateStmt: 'TRUNCATE',
  AlterTableStmt: 'ALTER TABLE',
  GrantStmt: 'GRANT/REVOKE',
  GrantRoleStmt: 'GRANT/REVOKE',
  CopyStmt: 'COPY',
  VariableSetStmt: 'SET',
  VariableShowStmt: 'SHOW',
  CallStmt: 'CALL',
  DoStmt: 'DO',
  LockStmt: 'LOCK',
  ExplainStmt: 'EXPLAIN',
  ViewStmt: 'CREATE VIEW',
  IndexStmt: 'CREATE INDEX',
  VacuumStmt: 'VACUUM/ANALYZE',
  CreateFunctionStmt: 'CREATE FUNCTION',
  CreateSchemaStmt: 'CREATE SCHEMA',
  CreateRoleStmt: 'CREATE ROLE',
  AlterRoleStmt: 'ALTER ROLE',
  DropRoleStmt: 'DROP ROLE',
  CreatedbStmt: 'CREATE DATABASE',
  DropdbStmt: 'DROP DATABASE',
  CreateExtensionStmt: 'CREATE EXTENSION',
  PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE',
  DeallocateStmt: 'DEALLOCATE',
  ListenStmt: 'LISTEN',
  NotifyStmt: 'NOTIFY',
  UnlistenStmt: 'UNLISTEN',
  LoadStmt: 'LOAD',
  CheckPointStmt: 'CHECKPOINT',
  DiscardStmt: 'DISCARD',
  RenameStmt: 'ALTER … RENAME',
  CommentStmt: 'COMMENT',
  DeclareCursorStmt: 'DECLARE CURSOR',
  FetchStmt: 'FETCH',
  ClosePortalStmt: 'CLOSE',
  ReindexStmt: 'REINDEX',
  ClusterStmt: 'CLUSTER',
  RuleStmt: 'CREATE RULE',
  CreateTrigStmt: 'CREATE TRIGGER',
  CreateSeqStmt: 'CREATE SEQUENCE',
  AlterSeqStmt: 'ALTER SEQUENCE',
  RefreshMatViewStmt: 'REFRESH MATERIALIZED VIEW',
  SecLabelStmt: 'SECURITY LABEL',
  ImportForeignSchemaStmt: 'IMPORT FOREIGN SCHEMA',
  AlterSystemStmt: 'ALTER SYSTEM',
  ReturnStmt: 'RETURN',
  PLAssignStmt: 'assignment',
};

function transactionWord(body: unknown): string {
  const kind = String((body as { kind?: string }).kind ?? 'TRANS_STMT_BEGIN').replace(/^TRANS_STMT_/, '');
  return kind.replace(/_/g, ' ');
}

export function statementWord(kind: string, body: unknown): string {
  if (kind === 'TransactionStmt') return transactionWord(body);
  const known = STATEMENT_WORDS[kind];
  if (known) return known;
  // CreateFooStmt → CREATE FOO
  return kind
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
}

interface Findings {
  write: SqlFailure | null;
  relation: ReadForbidden | null;
  func: ReadForbidden | null;
}

/**
 * How deep the parse tree may nest (JSON levels; an expression level takes two or three). PostgreSQL stops at its
 * stack depth limit, SQLite at expression depth 1000 and JavaScript at its call stack; this keeps every statement
 * well inside all three.
 */
export const MAX_TREE_DEPTH = 600;

/**
 * Walks the tree without recursion (a hostile statement may nest deeply): checks every node and collects the
 * names of CTEs, whose scoping the translator applies.
 */
function walk(
  root: unknown,
  found: Findings,
  ctes: Set<string>,
  ranges: { schemaname?: string; relname?: string; catalogname?: string }[],
): void {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_TREE_DEPTH) throw new SqlFailure('stack depth limit exceeded');
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], depth + 1]);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (value === null || typeof value !== 'object') continue;
      const first = key.charCodeAt(0);
      if (first >= 65 && first <= 90) {
        // A wrapped node: {"SelectStmt": {...}}
        if (key.endsWith('Stmt') && key !== 'SelectStmt' && key !== 'RawStmt') {
          found.write ??= readOnlyRefusal(statementWord(key, value));
        } else if (key === 'RangeVar') {
          ranges.push(value as { schemaname?: string; relname?: string });
        } else if (key === 'FuncCall') {
          checkFunction(value as { funcname?: Node[]; funcformat?: string }, found);
        } else if (key === 'CommonTableExpr') {
          const name = (value as { ctename?: string }).ctename;
          if (name !== undefined) ctes.add(name);
        }
      } else if (key === 'intoClause') {
        found.write ??= readOnlyRefusal('SELECT INTO');
      } else if (key === 'lockingClause') {
        found.write ??= readOnlyRefusal('SELECT … FOR UPDATE/SHARE');
      } else if (key === 'relation' || key === 'rel') {
        // Direct (unwrapped) RangeVars of statements: INSERT INTO x, SELECT INTO x, COPY x…
        ranges.push(value as { schemaname?: string; relname?: string });
      }
      stack.push([value, depth + 1]);
    }
  }
}

function checkRange(
  rv: { schemaname?: string; relname?: string; catalogname?: string },
  ctes: ReadonlySet<string>,
  found: Findings,
): void {
  if (found.relation) return;
  if (rv.schemaname === undefined && rv.relname !== undefined && ctes.has(rv.relname)) return;
  try {
    checkRelationName(rv);
  } catch (e) {
    if (e instanceof ReadForbidden) found.relation = e;
    else throw e;
  }
}

function checkFunction(f: { funcname?: Node[]; funcformat?: string }, found: Findings): void {
  if (found.func) return;
  const names = stringsOf(f.funcname);
  // SQL-syntax forms (SUBSTRING(… FROM …), TRIM(…), x AT TIME ZONE …) are syntax, as CKAN's scanner sees them;
  // the translator decides whether it supports them.
  if (f.funcformat === 'COERCE_SQL_SYNTAX') return;
  // The parser's own rewriting of LIKE … ESCAPE and SIMILAR TO.
  if (
    names.length === 2 &&
    names[0] === 'pg_catalog' &&
    (names[1] === 'like_escape' || names[1] === 'similar_to_escape')
  )
    return;
  const name = names.length === 2 && names[0] === 'pg_catalog' ? names[1]! : names.length === 1 ? names[0]! : null;
  if (name === null || !isAllowedFunction(name)) {
    found.func = forbidden(CKAN_MESSAGES.callFunction(names.join('.')));
  }
}

/** Refuses what may never run; the most serious finding wins (a write, then a relation, then a function). */
export function guard(stmt: Node): void {
  const kind = nodeKind(stmt);
  if (kind !== 'SelectStmt') throw readOnlyRefusal(statementWord(kind, (stmt as Record<string, unknown>)[kind]));
  const found: Findings = { write: null, relation: null, func: null };
  const ctes = new Set<string>();
  const ranges: { schemaname?: string; relname?: string; catalogname?: string }[] = [];
  walk(stmt, found, ctes, ranges);
  for (const rv of ranges) checkRange(rv, ctes, found);
  if (found.write) throw found.write;
  if (found.relation) throw found.relation;
  if (found.func) throw found.func;
}
