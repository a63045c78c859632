/**
 * The rate budget of an API key in the team database (api/rate-budget.ts keeps the rule): one
 * row per key fingerprint (sha256 of base URL and key, never the key), drawn from by every
 * machine under its row lock, on the database's clock (machines' clocks differ; the budget's
 * window must not). A 429's Retry-After blocks the row for everyone. When the database cannot
 * be used the budget counts this process's requests only, like a config directory that cannot
 * be written: a read never fails for the budget's sake.
 *
 * A draw is one round trip: one statement locks the row, applies the rule (DrawRule) there and
 * returns the state it found with the instant, and this side runs the same rule on that state
 * for the outcome. The row lock lasts that statement only, never a round trip over the network.
 * The rarer updates (a 429's block, a bulk run's wait for room) read and write in a transaction.
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
import { isConnectionFailure, isGuardFailure, type Database } from './connect.js';

/** The database's clock in epoch ms, as a column `t`: every machine's budget runs on it. */
const DB_NOW = 'round(extract(epoch from clock_timestamp()) * 1000)::float8 AS t';
const dbTime = (t: number | string | undefined): number => Math.round(Number(t));

/** A budget id goes into SQL text (the draw is one simple query, with its transaction's settings): hex only. */
function checkedId(budgetId: string): string {
  if (!/^[0-9a-f]+$/.test(budgetId)) throw new Error(`a rate budget id is hex, not ${JSON.stringify(budgetId)}`);
  return budgetId;
}

const int = (n: number) => {
  if (!Number.isSafeInteger(n)) throw new Error(`a rate budget's number is an integer, not ${n}`);
  return String(n);
};

/**
 * The draw rule (api/rate-budget.ts: prune, then draw if not blocked and not full, with the
 * spares of a batch `aheadMs` later when `count` asks for more than one) as one statement. It returns the row as it found it (locked: FOR UPDATE waits for a draw under way,
 * then reads its result) and the instant; no row when the key has none yet. A stored state
 * that is not one (a cache: budgetStateOf resets it) is read as empty, as budgetStateOf does.
 * Its COMMIT is asynchronous (it waits for no disk): a budget is an estimate, kept as this
 * machine keeps its own (sqlite/rate-cache.ts, synchronous = OFF); a crash of the server that
 * loses the last draws only undercounts them, as a 429 would correct.
 */
export function drawSql(id: string, rule: DrawRule): string {
  const valid = `jsonb_typeof(old.state->'sent') = 'array' AND NOT EXISTS (
      SELECT 1 FROM jsonb_array_elements(old.state->'sent') x WHERE jsonb_typeof(x) <> 'number')`;
  return `BEGIN; SET LOCAL synchronous_commit TO off;
WITH now AS (SELECT ${DB_NOW}),
old AS (SELECT state FROM schedctl_rate_budgets WHERE budget_id = '${checkedId(id)}' FOR UPDATE),
found AS (
  SELECT now.t, old.state,
    CASE WHEN ${valid} THEN coalesce((
      SELECT jsonb_agg(s ORDER BY s::float8) FROM jsonb_array_elements(old.state->'sent') e(s)
      WHERE s::float8 > now.t - ${int(rule.spanMs)}), '[]'::jsonb) ELSE '[]'::jsonb END AS sent,
    CASE WHEN ${valid} AND jsonb_typeof(old.state->'blockedUntil') = 'number'
      AND (old.state->>'blockedUntil')::float8 > now.t
      THEN least((old.state->>'blockedUntil')::float8, now.t + ${int(MAX_BLOCK_MS)}) END AS blocked
  FROM old, now),
drawn AS (
  UPDATE schedctl_rate_budgets SET updated_at = now(), state = jsonb_build_object('sent',
      CASE WHEN f.blocked IS NULL AND jsonb_array_length(f.sent) < ${int(rule.limit)}
        THEN f.sent || to_jsonb(f.t) || coalesce((SELECT jsonb_agg(s.v) FROM (SELECT f.t + ${int(rule.aheadMs ?? 0)} AS v
          FROM generate_series(2, least(${int(rule.count ?? 1)}, ${int(rule.limit)} - jsonb_array_length(f.sent)))) s), '[]'::jsonb)
        ELSE f.sent END)
    || CASE WHEN f.blocked IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('blockedUntil', f.blocked) END
  FROM found f WHERE budget_id = '${id}' RETURNING 1)
SELECT state, t FROM found; COMMIT`;
}

export function pgBudgetStore(
  backend: {
    db: Database;
    ready: () => Promise<void>;
    where: string;
    /** The schema check in front of the command's first statement (backend.ts), when this draw is it. */
    takeGuard?: () => string | undefined;
    guardAnswered?: (passed: boolean) => void;
  },
  budgetId: string,
  now: () => number,
): BudgetStore {
  const id = checkedId(budgetId);
  const { db } = backend;
  const row = `INSERT INTO schedctl_rate_budgets (budget_id, state) VALUES ('${id}', '{"sent":[]}')`;
  // The guard's answer first. Passed: the draw's answers behind it. Failed (another version, no
  // schema yet, no answer): the full check, then the draw again, alone.
  const guarded = async (guard: string, text: string): Promise<unknown[][]> => {
    try {
      const answers = await db.simple(`${guard}; ${text}`);
      backend.guardAnswered?.(true);
      return answers.slice(1);
    } catch (error) {
      const passed = !isGuardFailure(error) && !isConnectionFailure(error);
      backend.guardAnswered?.(passed);
      if (passed) throw error;
      await backend.ready();
      return db.simple(text);
    }
  };
  return sharedOrMemory(`${backend.where} (rate budget ${budgetId.slice(0, 12)})`, now, async (change, rule) => {
    const guard = rule ? backend.takeGuard?.() : undefined;
    if (guard === undefined) await backend.ready();
    if (rule) {
      for (let tries = 0; ; tries++) {
        // BEGIN, SET, the draw's answer, COMMIT: behind the schema guard when this is the command's first statement.
        const text = drawSql(id, rule);
        const answers = guard !== undefined && tries === 0 ? await guarded(guard, text) : await db.simple(text);
        const found = answers[2]?.[0] as { state: unknown; t: number | string } | undefined;
        if (found) {
          const state = budgetStateOf(found.state);
          return { result: change(state, dbTime(found.t)), state };
        }
        // The key's first draw anywhere: its row made, then drawn as any other.
        if (tries > 0) throw new Error('the rate budget row is missing after it was made');
        await db.query(`${row} ON CONFLICT (budget_id) DO NOTHING`);
      }
    }
    return db.transaction(async (client) => {
      // The row made if missing, locked (ON CONFLICT DO UPDATE) and read.
      const r = await client.query<{ state: unknown; t: number | string }>(
        `${row} ON CONFLICT (budget_id) DO UPDATE SET budget_id = EXCLUDED.budget_id RETURNING state, ${DB_NOW}`,
      );
      const state: BudgetState = budgetStateOf(r.rows[0]?.state);
      const result = change(state, dbTime(r.rows[0]?.t));
      await client.query('UPDATE schedctl_rate_budgets SET state = $1, updated_at = now() WHERE budget_id = $2', [
        JSON.stringify(state),
        id,
      ]);
      return { result, state };
    });
  });
}

/**
 * budgetInUse for the team state: what every machine has drawn from the key's budget, read
 * without its lock on the database's clock (an estimate for a bulk plan, never a draw).
 */
export async function pgBudgetInUse(
  backend: { db: Database; ready: () => Promise<void> },
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
