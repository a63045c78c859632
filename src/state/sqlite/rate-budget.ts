/**
 * The rate budget of an API key in this machine's ledger (`ledger.db`, table
 * `schedctl_rate_budgets`; api/rate-budget.ts keeps the rule): one row per key fingerprint
 * (sha256 of base URL and key, never the key), the last window's draws as JSON. Each draw is one
 * `BEGIN IMMEDIATE` transaction (read the row, apply the change, upsert it), so every schedctl
 * process on this machine draws from one budget, on this machine's clock; a 429's Retry-After
 * blocks the row for all of them.
 *
 * A cache, not a record: a row that does not read is an empty budget. A ledger that cannot be
 * used (a read-only directory, a damaged database, its write lock held past the busy timeout)
 * never fails a command: sharedOrMemory then counts this process's requests only (and says so
 * under --debug).
 */
import {
  budgetStateOf,
  msAgoInUse,
  sharedOrMemory,
  type BudgetState,
  type BudgetStore,
} from '../../api/rate-budget.js';
import type { Sql } from '../sql/types.js';

/** The ledger, as the store uses it: a cache's transaction (engine.ts) need not wait for the disk. */
export type BudgetLedger = Pick<Sql, 'where' | 'get'> & {
  transaction<R>(work: (tx: Sql) => Promise<R>, opts?: { cache?: boolean }): Promise<R>;
};

const READ = 'SELECT state FROM schedctl_rate_budgets WHERE budget_id = ?';
const UPSERT = `INSERT INTO schedctl_rate_budgets (budget_id, state, updated_ms) VALUES (?, ?, ?)
  ON CONFLICT (budget_id) DO UPDATE SET state = excluded.state, updated_ms = excluded.updated_ms`;

/** A stored state, or an empty budget when it does not parse (a cache: never a reason to fail). */
function stateOf(text: string): BudgetState {
  try {
    return budgetStateOf(JSON.parse(text));
  } catch {
    return budgetStateOf(undefined);
  }
}

export function sqliteBudgetStore(ledger: BudgetLedger, budgetId: string, now: () => number): BudgetStore {
  const store = sharedOrMemory(`${ledger.where} (rate budget ${budgetId.slice(0, 12)})`, now, (change) =>
    ledger.transaction(
      async (tx) => {
        const row = await tx.get<{ state: string }>(READ, [budgetId]);
        const state = row ? stateOf(row.state) : { sent: [] };
        const t = now();
        const result = change(state, t);
        await tx.run(UPSERT, [budgetId, JSON.stringify(state), t]);
        return { result, state };
      },
      { cache: true },
    ),
  );
  return {
    ...store,
    // Never "delete ledger.db": the budget is one row of the ledger.
    clear: `run: sqlite3 '${ledger.where.replaceAll("'", "'\\''")}' "DELETE FROM schedctl_rate_budgets WHERE budget_id = '${budgetId}'"`,
  };
}

/**
 * budgetInUse for this machine's ledger: how long ago the draws still counted in the key's
 * window were made, read without a write lock (an estimate for a bulk plan, never a draw). A
 * ledger that cannot be read counts as an unused budget.
 */
export async function sqliteBudgetInUse(
  ledger: Pick<Sql, 'get'>,
  budgetId: string,
  options: { windowMs?: number; marginMs?: number; now?: () => number } = {},
): Promise<number[]> {
  try {
    const row = await ledger.get<{ state: string }>(READ, [budgetId]);
    return row ? msAgoInUse(stateOf(row.state), (options.now ?? Date.now)(), options) : [];
  } catch {
    return [];
  }
}
