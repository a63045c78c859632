/**
 * The rate budget shared by every schedctl process on one key (src/api/rate-budget.ts), end to
 * end: many real processes on one config dir against a sandbox that enforces its own limit
 * and answers 429. The measure is the sandbox's request log: how many 429s it sent. No timing
 * assertions: "waited" is what the processes say on stderr.
 *
 * Runtime: a few seconds per test. The parallel test would wait out one real budget window (61 s);
 * instead the client's window is 8 s there (SCHEDCTL_TEST_RATE_WINDOW_MS, a test-only knob) and
 * the sandbox's clock runs 10 times as fast, so its own 60-second window lasts 6 s: the sandbox is
 * still the stricter side, as the real API's minute is to the client's 61 s.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { baseEnv, BIN, registerSecret, runCli, show, tempDir } from '../helpers/cli.js';
import { sendJson, startTestServer } from '../helpers/server.js';
import { sent, spawnCli, waitFor } from '../helpers/bulk-run.js';
import { useSandbox } from '../helpers/sandbox.js';
import { budgetRows } from '../helpers/ledger-db.js';

const LIMIT = 10;
// 8 s: the processes' start-ups (spread over a few seconds on a loaded machine) fit well inside it.
const CLIENT_WINDOW_MS = 8000;
const SANDBOX_SPEED = 10;
const origin = Date.now();
const t = useSandbox({ rateLimit: LIMIT, now: () => new Date(origin + (Date.now() - origin) * SANDBOX_SPEED) });

const WAITING = /waiting for the rate budget \(shared by every schedctl process on this key\)/;
const statuses = async () => (await t.sb.state()).requests.map((r) => r.status);

/** The rate budgets of a config dir's ledger (schedctl_rate_budgets), read from the file; none while it is busy being made. */
function budgets(configDir: string): Array<{ sent: number[]; blockedUntil?: number }> {
  try {
    return budgetRows(configDir);
  } catch {
    return [];
  }
}

describe('the shared rate budget, across processes', () => {
  it(
    `${LIMIT + 5} parallel processes on one key at ${LIMIT} per (shortened) window: all succeed, the sandbox sends no 429, some wait`,
    {
      timeout: 110_000,
    },
    async () => {
      const dir = tempDir();
      const env = { SCHEDCTL_RATE: String(LIMIT), SCHEDCTL_TEST_RATE_WINDOW_MS: String(CLIENT_WINDOW_MS) };
      const runs = Array.from({ length: LIMIT + 5 }, () =>
        t.sb.cli(['triggers', 'ls', '--json'], { configDir: dir, env, timeoutMs: 100_000 }),
      );
      const results = await Promise.all(runs);
      for (const r of results) expect(r.code, show(r)).toBe(0);
      for (const r of results) expect(r.json<{ triggers: unknown[] }>().triggers.length).toBeGreaterThan(0);

      const log = await statuses();
      expect(log).toHaveLength(LIMIT + 5);
      expect(log.filter((s) => s === 429)).toHaveLength(0);
      // LIMIT went in the first window; the other 5 waited for the budget, and said so.
      const waited = results.filter((r) => WAITING.test(r.stderr));
      expect(waited.length, results.map(show).join('\n---\n')).toBe(5);
    },
  );

  it('a 429 from another client is recorded in the budget, so a second process waits too', async () => {
    const dir = tempDir();
    await t.sb.fault({
      method: 'GET',
      path: '/v1/triggers',
      fault: 'status',
      status: 429,
      code: 'RATE_LIMITED',
      retryAfter: 3,
      count: 1,
    });
    // The default budget (SCHEDCTL_RATE unset: 30/min): only the 429 makes anyone wait here.
    const env = { SCHEDCTL_RATE: undefined };
    const first = spawnCli(t.sb, ['triggers', 'ls', '--json'], { configDir: dir, env });
    await waitFor(
      () => budgets(dir).some((b) => b.blockedUntil !== undefined) || first.exited(),
      'the 429 to be recorded',
    );
    const second = await t.sb.cli(['triggers', 'ls', '--json'], { configDir: dir, env });
    const a = await first.done;
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toMatch(/rate limited \(429\); retrying GET \/v1\/triggers in 3 s/);
    expect(second.code, show(second)).toBe(0);
    expect(second.stderr).toMatch(WAITING);
    // The injected 429, then two answered requests: the second process never met a 429.
    expect(sent(await t.sb.state())).toEqual(['GET /v1/triggers 429', 'GET /v1/triggers 200', 'GET /v1/triggers 200']);
  });

  it('a wait longer than the command may wait is exit 6 (RATE_LIMITED); the next process waits at most a minute', async () => {
    const dir = tempDir();
    // Retry-After 120 s: past the 90 s a command waits for the rate limit.
    await t.sb.fault({
      method: 'GET',
      path: '/v1/triggers',
      fault: 'status',
      status: 429,
      code: 'RATE_LIMITED',
      retryAfter: 120,
      count: 1,
    });
    const first = await t.sb.cli(['triggers', 'ls', '--json'], {
      configDir: dir,
      env: { SCHEDCTL_RATE: String(LIMIT) },
    });
    expect(first.code, show(first)).toBe(6);
    expect(first.json<{ error: { code: string; hint: string } }>().error).toMatchObject({
      code: 'RATE_LIMITED',
      hint: expect.stringContaining('try again in 60 s'),
    });

    // The budget holds the 429 for the API's one-minute window, not the 120 s asked.
    const second = nextProcess(dir, t.sb.baseUrl, t.sb.keys.full, { SCHEDCTL_RATE: String(LIMIT) });
    const waited = await second.waitingSeconds();
    expect(waited).toBeGreaterThan(50);
    expect(waited).toBeLessThanOrEqual(60);
    expect(sent(await t.sb.state())).toEqual(['GET /v1/triggers 429']);
  });
});

/**
 * A process on `dir`'s budget whose first wait for the budget is read from its stderr, then it is
 * ended (the wait itself is not the test: its length, as the process says it, is).
 */
function nextProcess(dir: string, baseUrl: string, key: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'triggers', 'ls'], {
    env: { ...baseEnv(dir), SCHEDCTL_BASE_URL: baseUrl, SCHEDCTL_API_KEY: key, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    async waitingSeconds(): Promise<number> {
      try {
        await waitFor(() => WAIT_SECONDS.test(stderr) || child.exitCode !== null, 'the wait line');
        const m = WAIT_SECONDS.exec(stderr);
        if (!m) throw new Error(`no wait said:\n${stderr}`);
        return Number(m[1]);
      } finally {
        child.kill();
        await exited;
      }
    },
  };
}
const WAIT_SECONDS = /waiting for the rate budget \(shared by every schedctl process on this key\), (\d+) s/;

// Issue 25: one 429 must not lock a key out. Whatever a hostile server sends as Retry-After,
// what it imposes on the shared budget is at most the API's one-minute window.
describe("a hostile server's Retry-After", () => {
  const KEY = 'sk_test_retry_after_0123456789ab';
  registerSecret(KEY);
  async function tooMany(value: string) {
    const s = await startTestServer((_req, res) =>
      sendJson(res, 429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': value }),
    );
    closers.push(s);
    return s;
  }
  let closers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(closers.map((c) => c.close()));
    closers = [];
  });
  const run = (dir: string, baseUrl: string) =>
    runCli(['triggers', 'ls', '--json'], {
      configDir: dir,
      env: { SCHEDCTL_BASE_URL: baseUrl, SCHEDCTL_API_KEY: KEY, SCHEDCTL_RATE: undefined },
      timeoutMs: 30_000,
    });

  it.each([
    ['huge seconds', '999999999'],
    ['a number past what fits', '99999999999999999999999'],
    ['an HTTP-date in the year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT'],
  ])(
    '%s: exit 6 at once; the budget is blocked for a minute at most, and the next process waits that long',
    async (_what, value) => {
      const s = await tooMany(value);
      const dir = tempDir();
      const r = await run(dir, s.baseUrl);
      expect(r.code, show(r)).toBe(6);
      expect(s.seen).toHaveLength(1);
      const error = r.json<{ error: { message: string; hint: string } }>().error;
      expect(error.hint).toContain('try again in 60 s');
      const blocked = budgets(dir).map((b) => b.blockedUntil ?? 0);
      expect(blocked).toHaveLength(1);
      expect(blocked[0]! - Date.now()).toBeLessThanOrEqual(60_000);
      const waited = await nextProcess(dir, s.baseUrl, KEY, { SCHEDCTL_RATE: '30' }).waitingSeconds();
      expect(waited).toBeLessThanOrEqual(60);
      expect(s.seen).toHaveLength(1);
    },
  );

  it.each([
    ['negative', '-30'],
    ['malformed', 'after lunch'],
    ['fractional', '1.5'],
    ['a date without a day name', '2031-03-03T08:00:30Z'],
  ])(
    '%s: ignored (a short backoff, nothing recorded in the budget), exit 6 after a few tries',
    async (_what, value) => {
      const s = await tooMany(value);
      const dir = tempDir();
      const r = await run(dir, s.baseUrl);
      expect(r.code, show(r)).toBe(6);
      expect(s.seen.length).toBeGreaterThan(1);
      expect(budgets(dir).filter((b) => b.blockedUntil !== undefined)).toEqual([]);
    },
  );
});
