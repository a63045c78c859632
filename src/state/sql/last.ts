/**
 * Sql.last on a node:sqlite statement (the SQLite ledger, a migration's connection, the team
 * state's in-memory mirror): the statement runs at once. A read's rows; a write's count, and its
 * rows when it has RETURNING.
 */
import type { StatementSync } from 'node:sqlite';
import type { SqlValue } from './types.js';

/** Whether a statement writes (a `DELETE … RETURNING` too): the one test of it for every engine. */
export const isWrite = (sql: string): boolean => /^\s*(INSERT|UPDATE|DELETE)\b/i.test(sql);

export function lastOf<T>(
  stmt: StatementSync,
  sql: string,
  params: readonly SqlValue[],
): { rows: T[]; changes: number } {
  const write = isWrite(sql);
  if (write && !/\bRETURNING\b/i.test(sql)) return { rows: [], changes: Number(stmt.run(...params).changes) };
  const rows = stmt.all(...params) as T[];
  return { rows, changes: write ? rows.length : 0 };
}
