/**
 * An API key's rate budget in the team database (api/rate-budget.ts keeps the rule): a row per key
 * fingerprint, drawn from under its row lock on the database's clock (machines' clocks differ). A
 * 429's block is everyone's. Without the database this process counts alone (sharedOrMemory). A
 * draw is one round trip: one statement applies the rule and returns the state it found, on which
 * this side runs the same rule for the outcome; rarer updates read and write in a transaction.
 */
import {
  budgetStateOf,
  MAX_BLOCK_MS,
  msAgoInUse,
  sharedOrMemory,
  type BudgetState,
  type BudgetStore,
  type DrawRule,
} from '../../api/rate-budget.js';
import type { SqlValue } from '../sql/types.js';
import type { Database } from './connect.js';

/** The database's clock in epoch ms, as a column `t`: every machine's budget runs on it. */
const DB_NOW = 'round(extract(epoch from clock_timestamp()) * 1000)::float8 AS t';
const dbTime = (t: number | string | undefined): number => Math.round(Number(t));

/**
 * The draw rule (prune, then draw unless blocked or full, a batch's spares `aheadMs` later) as one
 * statement returning the row as found and the instant (none for a new key; a bad state reads empty).
 */
export function drawStatement(id: string, rule: DrawRule): [string, SqlValue[]] {
  const valid = `jsonb_typeof(old.state->'sent') = 'array' AND NOT EXISTS (
      SELECT 1 FROM jsonb_array_elements(old.state->'sent') x WHERE jsonb_typeof(x) <> 'number')`;
  const text = `WITH now AS (SELECT ${DB_NOW}),
old AS (SELECT state FROM schedctl_rate_budgets WHERE budget_id = $1 FOR UPDATE),
found AS (
  SELECT now.t, old.state,
    CASE WHEN ${valid} THEN coalesce((
      SELECT jsonb_agg(s ORDER BY s::float8) FROM jsonb_array_elements(old.state->'sent') e(s)
      WHERE s::float8 > now.t - $2::float8), '[]'::jsonb) ELSE '[]'::jsonb END AS sent,
    CASE WHEN ${valid} AND jsonb_typeof(old.state->'blockedUntil') = 'number'
      AND (old.state->>'blockedUntil')::float8 > now.t
      THEN least((old.state->>'blockedUntil')::float8, now.t + $3::float8) END AS blocked
  FROM old, now),
drawn AS (
  UPDATE schedctl_rate_budgets SET updated_at = now(), state = jsonb_build_object('sent',
      CASE WHEN f.blocked IS NULL AND jsonb_array_length(f.sent) < $4::int
        THEN f.sent || to_jsonb(f.t) || coalesce((SELECT jsonb_agg(s.v) FROM (SELECT f.t + $5::float8 AS v
          FROM generate_series(2, least($6::int, $4::int - jsonb_array_length(f.sent)))) s), '[]'::jsonb)
        ELSE f.sent END)
    || CASE WHEN f.blocked IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('blockedUntil', f.blocked) END
  FROM found f WHERE budget_id = $1 RETURNING 1)
SELECT state, t FROM found`;
  return [text, [id, rule.spanMs, MAX_BLOCK_MS, rule.limit, rule.aheadMs ?? 0, rule.count ?? 1]];
}

export function pgBudgetStore(
  backend: { db: Database; ready: () => Promise<void>; where: string },
  id: string,
  now: () => number,
  /** Says once on stderr that the shared budget could not be used (and is rejoined when it answers). */
  warn?: (line: string) => void,
): BudgetStore {
  const { db } = backend;
  const row = `INSERT INTO schedctl_rate_budgets (budget_id, state) VALUES ($1, '{"sent":[]}')`;
  return sharedOrMemory(
    `${backend.where} (rate budget ${id.slice(0, 12)})`,
    now,
    async (change, rule) => {
      await backend.ready();
      if (rule) {
        for (let tries = 0; ; tries++) {
          const [answer] = await db.step([drawStatement(id, rule)]);
          const found = answer?.rows[0] as { state: unknown; t: number | string } | undefined;
          if (found) {
            const state = budgetStateOf(found.state);
            return { result: change(state, dbTime(found.t)), state };
          }
          // The key's first draw anywhere: its row made, then drawn.
          if (tries > 0) throw new Error('the rate budget row is missing after it was made');
          await db.query(`${row} ON CONFLICT (budget_id) DO NOTHING`, [id]);
        }
      }
      // Two round trips: the row made if missing, locked and read; then written back with the COMMIT.
      return db.transaction(async (client, commit) => {
        const r = await client.query<{ state: unknown; t: number | string }>(
          `${row} ON CONFLICT (budget_id) DO UPDATE SET budget_id = EXCLUDED.budget_id RETURNING state, ${DB_NOW}`,
          [id],
        );
        const state: BudgetState = budgetStateOf(r.rows[0]?.state);
        const result = change(state, dbTime(r.rows[0]?.t));
        const written = client.query(
          'UPDATE schedctl_rate_budgets SET state = $1, updated_at = now() WHERE budget_id = $2',
          [JSON.stringify(state), id],
        );
        void commit();
        await written;
        return { result, state };
      });
    },
    warn,
  );
}

/** What every machine has drawn from the key's budget, read without its lock (a bulk plan's estimate, never a draw). */
export async function pgBudgetInUse(
  backend: { db: Database; ready: () => Promise<void> },
  id: string,
): Promise<number[]> {
  await backend.ready();
  const [row] = await backend.db.query<{ state: unknown; t: number | string }>(
    `SELECT state, ${DB_NOW} FROM schedctl_rate_budgets WHERE budget_id = $1`,
    [id],
  );
  return row ? msAgoInUse(budgetStateOf(row.state), dbTime(row.t)) : [];
}
