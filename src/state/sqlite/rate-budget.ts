/**
 * The rate budget of an API key on this machine (the rate cache `rate-budgets.db`, table
 * `schedctl_rate_budgets`, rate-cache.ts; api/rate-budget.ts keeps the rule): one row per key fingerprint
 * (sha256 of base URL and key, never the key), the last window's draws as JSON. Each draw is one
 * `BEGIN IMMEDIATE` transaction (read the row, apply the change, upsert it), so every schedctl
 * process on this machine draws from one budget, on this machine's clock; a 429's Retry-After
 * blocks the row for all of them.
 *
 * A cache, not a record: a row that does not read is an empty budget. A cache that cannot be
 * used (a read-only directory, its write lock held past the busy timeout)
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
import { get, type Sql } from '../sql/types.js';

/** Where the budgets are: this machine's rate cache (rate-cache.ts). */
export type BudgetLedger = Pick<Sql, 'where' | 'all' | 'transaction'>;

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
    ledger.transaction(async (tx) => {
      const row = await get<{ state: string }>(tx, READ, [budgetId]);
      const state = row ? stateOf(row.state) : { sent: [] };
      const t = now();
      const result = change(state, t);
      await tx.run(UPSERT, [budgetId, JSON.stringify(state), t]);
      return { result, state };
    }),
  );
  return {
    ...store,
    // One row: the other keys' budgets stay.
    clear: `run: sqlite3 '${ledger.where.replaceAll("'", "'\\''")}' "DELETE FROM schedctl_rate_budgets WHERE budget_id = '${budgetId}'"`,
  };
}

/**
 * budgetInUse for this machine's rate cache: how long ago the draws still counted in the key's
 * window were made, read without a write lock (an estimate for a bulk plan, never a draw). A
 * cache that cannot be read counts as an unused budget.
 */
export async function sqliteBudgetInUse(
  ledger: Pick<Sql, 'all'>,
  budgetId: string,
  options: { windowMs?: number; marginMs?: number; now?: () => number } = {},
): Promise<number[]> {
  try {
    const row = (await ledger.all<{ state: string }>(READ, [budgetId]))[0];
    return row ? msAgoInUse(stateOf(row.state), (options.now ?? Date.now)(), options) : [];
  } catch {
    return [];
  }
}
