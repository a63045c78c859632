/**
 * One statement's answer (sql/types.ts Answer) on a node:sqlite statement (the SQLite ledger, a
 * migration's connection): the statement runs at once. A read's rows; a write's count, and its
 * rows when it has RETURNING.
 */
import type { StatementSync } from 'node:sqlite';
import type { Answer, SqlValue } from './types.js';

/** Whether a statement writes (a `DELETE … RETURNING` too): the one test of it for every engine. */
export const isWrite = (sql: string): boolean => /^\s*(INSERT|UPDATE|DELETE)\b/i.test(sql);

export function answerOf(stmt: StatementSync, sql: string, params: readonly SqlValue[]): Answer {
  const write = isWrite(sql);
  if (write && !/\bRETURNING\b/i.test(sql)) return { rows: [], changes: Number(stmt.run(...params).changes) };
  const rows = stmt.all(...params) as Answer['rows'];
  return { rows, changes: write ? rows.length : 0 };
}
