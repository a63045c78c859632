/**
 * One process drawing from a shared rate budget, for test/unit/rate-budget-processes.test.ts
 * (bundled there with esbuild). Arguments: dir draws limit windowMs. Prints one JSON line per
 * draw: `{"pid": …, "at": <the instant the budget recorded>}`, then `{"done": true}`.
 */
import { createRateBudget } from '../../src/api/rate-budget.js';

const [dir, draws, limit, windowMs] = process.argv.slice(2);
const budget = createRateBudget({
  dir: dir!,
  baseUrl: 'http://127.0.0.1:1',
  apiKey: 'sk_test_shared_by_every_worker',
  limit: Number(limit),
  windowMs: Number(windowMs),
  marginMs: 0,
});
for (let i = 0; i < Number(draws); i++) {
  const at = await budget.draw({ maxWaitMs: 60_000 });
  process.stdout.write(`${JSON.stringify({ pid: process.pid, at })}\n`);
}
process.stdout.write(`${JSON.stringify({ done: true })}\n`);
