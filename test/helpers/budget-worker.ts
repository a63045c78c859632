/**
 * One process drawing from a shared rate budget, for test/unit/rate-budget-processes.test.ts
 * (bundled there with esbuild). Arguments: dir draws limit windowMs. The budget is the one
 * commands use without a team state: a row of the config directory's rate cache
 * (src/state/sqlite/rate-budget.ts). Prints one JSON line per draw:
 * `{"pid": …, "at": <the instant the budget recorded>}`, then `{"done": true}`.
 */
import { budgetId, createRateBudget } from '../../src/api/rate-budget.js';
import { rateCache } from '../../src/state/sqlite/rate-cache.js';
import { sqliteBudgetStore } from '../../src/state/sqlite/rate-budget.js';

const [dir, draws, limit, windowMs] = process.argv.slice(2);
const baseUrl = 'http://127.0.0.1:1';
const apiKey = 'sk_test_shared_by_every_worker';
const ledger = rateCache(dir!, 12_000);
const debug = (line: string) => process.stderr.write(`${line}\n`);
const budget = createRateBudget({
  store: sqliteBudgetStore(ledger, budgetId(baseUrl, apiKey), Date.now),
  dir: dir!,
  baseUrl,
  apiKey,
  limit: Number(limit),
  windowMs: Number(windowMs),
  marginMs: 0,
});
for (let i = 0; i < Number(draws); i++) {
  const at = await budget.draw({ maxWaitMs: 60_000, debug });
  process.stdout.write(`${JSON.stringify({ pid: process.pid, at })}\n`);
}
ledger.close();
process.stdout.write(`${JSON.stringify({ done: true })}\n`);
