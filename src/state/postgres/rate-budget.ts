/**
 * The rate budget of an API key in the team database (api/rate-budget.ts keeps the rule): one
 * row per key fingerprint (sha256 of base URL and key, never the key), drawn from by every
 * machine in a transaction holding its row lock, on the database's clock (machines' clocks
 * differ; the budget's window must not). A 429's Retry-After blocks the row for everyone.
 * When the database cannot be used the budget counts this process's requests only, like a
 * config directory that cannot be written: a read never fails for the budget's sake.
 */
import { budgetStateOf, msAgoInUse, sharedOrMemory, type BudgetStore } from '../../api/rate-budget.js';
import type { QueryResult } from 'pg';
import type { PostgresBackend } from './backend.js';

/** The database's clock in epoch ms, as a column `t`: every machine's budget runs on it. */
const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::float8 AS t';
const dbTime = (t: number | string | undefined): number => Math.round(Number(t));

/** A budget id goes into SQL text (simple queries take no parameters): hex only. */
function checkedId(budgetId: string): string {
  if (!/^[0-9a-f]+$/.test(budgetId)) throw new Error(`a rate budget id is hex, not ${JSON.stringify(budgetId)}`);
  return budgetId;
}

export function pgBudgetStore(
  backend: Pick<PostgresBackend, 'db' | 'ready' | 'where'>,
  budgetId: string,
  now: () => number,
): BudgetStore {
  const id = checkedId(budgetId);
  return sharedOrMemory(`${backend.where} (rate budget ${budgetId.slice(0, 12)})`, now, async (change) => {
    await backend.ready();
    // Two round trips, each several statements in one simple query (so no bound parameters: the
    // id is hex, checked above, and the state goes through the client's literal escaping). The
    // request need not wait for the second: the first holds the row lock, so no other machine
    // draws before the COMMIT lands, and a COMMIT that fails (the database gone between the two)
    // only leaves this draw uncounted, as when the database cannot be used at all.
    return backend.db.unawaitedCommit(async (client) => {
      // The row made if missing, locked (ON CONFLICT DO UPDATE) and read, after BEGIN.
      const [, r] = (await client.query(
        `BEGIN; INSERT INTO schedctl_rate_budgets (budget_id, state) VALUES ('${id}', '{"sent":[]}')
         ON CONFLICT (budget_id) DO UPDATE SET budget_id = EXCLUDED.budget_id
         RETURNING state, ${DB_NOW}`,
      )) as unknown as [unknown, QueryResult<{ state: unknown; t: number | string }>];
      const state = budgetStateOf(r.rows[0]?.state);
      const result = change(state, dbTime(r.rows[0]?.t));
      // An asynchronous commit (it waits for no disk): a budget is an estimate shared by the
      // machines, kept as this machine keeps its own (sqlite/rate-cache.ts, synchronous = OFF); a
      // crash of the server losing the last draws only undercounts them, as a 429 would correct.
      // Sent with the command's next ledger step (unawaitedCommit), three statements.
      const commit = {
        text: `UPDATE schedctl_rate_budgets SET state = ${client.escapeLiteral(JSON.stringify(state))}, updated_at = now()
         WHERE budget_id = '${id}'; SET LOCAL synchronous_commit TO off; COMMIT`,
        statements: 3,
      };
      return { result: { result, state }, commit };
    });
  });
}

/**
 * budgetInUse for the team state: what every machine has drawn from the key's budget, read
 * without its lock on the database's clock (an estimate for a bulk plan, never a draw).
 */
export async function pgBudgetInUse(
  backend: Pick<PostgresBackend, 'db' | 'ready'>,
  budgetId: string,
): Promise<number[]> {
  const id = checkedId(budgetId);
  await backend.ready();
  const [row] = await backend.db.query<{ state: unknown; t: number | string }>(
    `SELECT state, ${DB_NOW} FROM schedctl_rate_budgets WHERE budget_id = $1`,
    [id],
  );
  return row ? msAgoInUse(budgetStateOf(row.state), dbTime(row.t)) : [];
}
