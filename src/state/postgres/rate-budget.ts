/**
 * The rate budget of an API key in the team database (api/rate-budget.ts keeps the rule): one
 * row per key fingerprint (sha256 of base URL and key, never the key), drawn from by every
 * machine in a transaction holding its row lock, on the database's clock (machines' clocks
 * differ; the budget's window must not). A 429's Retry-After blocks the row for everyone.
 * When the database cannot be used the budget counts this process's requests only, like a
 * config directory that cannot be written: a read never fails for the budget's sake.
 */
import type { BudgetState, BudgetStore } from '../../api/rate-budget.js';
import type { PostgresBackend } from './backend.js';

export function pgBudgetStore(
  backend: Pick<PostgresBackend, 'db' | 'ready' | 'where'>,
  budgetId: string,
  now: () => number,
): BudgetStore {
  let memory: BudgetState = { sent: [] };
  let degraded = false;
  const where = `${backend.where} (rate budget ${budgetId.slice(0, 12)})`;

  async function update<T>(
    change: (state: BudgetState, t: number) => T,
    debug: ((line: string) => void) | undefined,
  ): Promise<T> {
    if (!degraded) {
      try {
        await backend.ready();
        return await backend.db.transaction(async (client) => {
          await client.query(
            `INSERT INTO schedctl_rate_budgets (budget_id, state) VALUES ($1, '{"sent":[]}') ON CONFLICT (budget_id) DO NOTHING`,
            [budgetId],
          );
          const r = await client.query<{ state: unknown; t: number | string }>(
            `SELECT state, (extract(epoch from clock_timestamp()) * 1000)::float8 AS t
             FROM schedctl_rate_budgets WHERE budget_id = $1 FOR UPDATE`,
            [budgetId],
          );
          const state = budgetState(r.rows[0]?.state);
          const result = change(state, Math.round(Number(r.rows[0]?.t)));
          await client.query(`UPDATE schedctl_rate_budgets SET state = $2, updated_at = now() WHERE budget_id = $1`, [
            budgetId,
            JSON.stringify(state),
          ]);
          memory = { ...state, sent: [...state.sent] };
          return result;
        });
      } catch (error) {
        degraded = true;
        debug?.(
          `rate budget: ${where} cannot be used (${(error as Error).message}); counting this process's requests only`,
        );
      }
    }
    return change(memory, now());
  }
  return { where, update };
}

/** The row's budget, or an empty one when it is not one (a cache: never a reason to fail). */
function budgetState(value: unknown): BudgetState {
  const v = value as { sent?: unknown; blockedUntil?: unknown } | null;
  const sent = Array.isArray(v?.sent) && v.sent.every((t) => Number.isFinite(t)) ? (v.sent as number[]) : [];
  return Number.isFinite(v?.blockedUntil) ? { sent, blockedUntil: v?.blockedUntil as number } : { sent };
}
