/**
 * Reads a config directory's SQLite ledger as the tests' witness: straight from the file with
 * node:sqlite (read-only), not through the state store under test.
 */
import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';

export type LedgerTable = 'attempts' | 'meetings' | 'outcomes' | 'fires' | 'event_aliases';

/** The rows of one ledger table (each with its JSON body parsed, when it has one), in row order. */
export function ledgerRows<T = Record<string, unknown>>(dir: string, table: LedgerTable): T[] {
  if (!existsSync(join(dir, 'ledger.db'))) return [];
  const db = new DatabaseSync(join(dir, 'ledger.db'), { readOnly: true });
  try {
    const order = table === 'attempts' || table === 'fires' ? ' ORDER BY seq' : '';
    const rows = db.prepare(`SELECT * FROM schedctl_${table}${order}`).all() as Record<string, unknown>[];
    return rows.map((r) => (typeof r.body === 'string' ? { ...JSON.parse(r.body), scope: r.workspace } : r) as T);
  } finally {
    db.close();
  }
}

/** The run records of the ledger's `schedctl_run_records` (each log's, or every log's), in the order appended. */
export function runRecordRows(
  dir: string,
  key?: string,
): { key: string; row: number; status: string; at_ms: number }[] {
  if (!existsSync(join(dir, 'ledger.db'))) return [];
  const db = new DatabaseSync(join(dir, 'ledger.db'), { readOnly: true });
  try {
    // A run creating the ledger this instant: the file is there before its tables (and it may
    // hold the file a moment while it turns WAL on).
    db.exec('PRAGMA busy_timeout = 5000');
    if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'schedctl_run_records'`).get()) return [];
    const rows = db
      .prepare(
        `SELECT log_key, record, at_ms FROM schedctl_run_records${key === undefined ? '' : ' WHERE log_key = ?'} ORDER BY seq`,
      )
      .all(...(key === undefined ? [] : [key])) as { log_key: string; record: string; at_ms: number }[];
    return rows.map((r) => ({ ...JSON.parse(r.record), key: r.log_key, at_ms: Number(r.at_ms) }));
  } finally {
    db.close();
  }
}

/** The rate budgets of a config directory's rate cache (`schedctl_rate_budgets` in rate-budgets.db), each state parsed. */
export function budgetRows(
  dir: string,
): Array<{ budgetId: string; sent: number[]; blockedUntil?: number; updatedMs: number }> {
  if (!existsSync(join(dir, 'rate-budgets.db'))) return [];
  const db = new DatabaseSync(join(dir, 'rate-budgets.db'), { readOnly: true });
  try {
    const rows = db.prepare('SELECT * FROM schedctl_rate_budgets ORDER BY budget_id').all() as Array<{
      budget_id: string;
      state: string;
      updated_ms: number;
    }>;
    return rows.map((r) => ({ budgetId: r.budget_id, ...JSON.parse(r.state), updatedMs: r.updated_ms }));
  } finally {
    db.close();
  }
}
