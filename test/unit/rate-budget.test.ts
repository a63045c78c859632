import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  budgetFile,
  budgetId,
  createRateBudget,
  type RateBudgetOptions,
  MAX_BLOCK_MS,
  AHEAD_MS,
  RateBudgetWaitError,
  REJOIN_MS,
  sharedOrMemory,
  type BudgetState,
} from '../../src/api/rate-budget.js';

const KEY = 'sk_live_0123456789abcdef';
const BASE = 'https://api.example';

/** A fake clock that sleeping advances; budgets built on it share it (like processes share the wall clock). */
function fakeTime(start = 1_000_000) {
  const clock = { t: start, waits: [] as number[] };
  const make = (dir: string, extra: Partial<RateBudgetOptions> = {}) =>
    createRateBudget({
      dir,
      baseUrl: BASE,
      apiKey: KEY,
      marginMs: 0,
      now: () => clock.t,
      sleep: async (ms) => {
        clock.waits.push(ms);
        clock.t += ms;
      },
      ...extra,
    });
  return { clock, make };
}
const tempDir = () => mkdtempSync(join(tmpdir(), 'schedctl-rate-'));

/** No window of `windowMs` holds more than `limit` of the instants. */
function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowMs) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

describe('rate budget', () => {
  it('lets `limit` draws through at once, then waits until the oldest leaves the window', async () => {
    const { clock, make } = fakeTime();
    const budget = make(tempDir(), { limit: 3, windowMs: 1000 });
    const waits: number[] = [];
    const times: number[] = [];
    for (let i = 0; i < 7; i++) times.push(await budget.draw({ onWait: (ms) => waits.push(ms) }));
    const t0 = 1_000_000;
    expect(times).toEqual([t0, t0, t0, t0 + 1000, t0 + 1000, t0 + 1000, t0 + 2000]);
    expect(waits).toEqual([1000, 1000]);
    expect(clock.waits).toEqual(waits);
    expect(maxInWindow(times, 1000)).toBe(3);
  });

  it('is one budget for every process on the same key and base URL, and another for another key', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const a = make(dir, { limit: 2, windowMs: 1000 });
    const b = make(dir, { limit: 2, windowMs: 1000 });
    const other = make(dir, { limit: 2, windowMs: 1000, apiKey: 'sk_live_other' });
    await a.draw();
    await b.draw();
    await other.draw();
    await other.draw();
    expect(clock.waits).toEqual([]);
    await b.draw();
    expect(clock.waits).toEqual([1000]);
  });

  it('makes every process wait out a Retry-After, keeping the longer of two', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const a = make(dir);
    const b = make(dir);
    await a.recordRetryAfter(5);
    await b.recordRetryAfter(2);
    const debug: string[] = [];
    await b.draw({ debug: (line) => debug.push(line) });
    expect(clock.waits).toEqual([5000]);
    expect(debug[0]).toBe('rate budget: 0/30 requests used in the last 60 s; waiting 5000 ms');
    expect(debug[1]).toMatch(/^rate budget: request 1 of 30 in the last 60 s/);
    expect(debug).toHaveLength(2);
    await a.draw();
    expect(clock.waits).toEqual([5000]);
  });

  it('gives up with a rate-limited error instead of waiting longer than maxWaitMs', async () => {
    const { clock, make } = fakeTime();
    const budget = make(tempDir());
    for (let i = 0; i < 30; i++) await budget.draw();
    clock.t += 20_000;
    const error = await budget.draw({ maxWaitMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateBudgetWaitError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', exitCode: 6, waitMs: 40_000 });
    expect((error as Error).message).toBe(
      'the rate budget for this key is spent for 40 s more (30 requests per minute, shared by every schedctl process); try again then',
    );
    expect(clock.waits).toEqual([]);
    await expect(budget.draw({ maxWaitMs: 40_000 })).resolves.toBe(1_060_000);
  });

  it("holds a Retry-After for at most the API's one-minute window, however long the server asks (issue 25)", async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const budget = make(dir);
    await budget.recordRetryAfter(999_999_999); // "Retry-After: 999999999" would be 31 years
    expect(JSON.parse(readFileSync(budget.file, 'utf8')).blockedUntil).toBe(clock.t + MAX_BLOCK_MS);
    await budget.draw();
    expect(clock.waits).toEqual([MAX_BLOCK_MS]);
  });

  it('cuts back a block past the bound already in the file (written before it, or by hand)', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const budget = make(dir);
    mkdirSync(join(dir, 'rate'), { recursive: true });
    writeFileSync(budget.file, JSON.stringify({ sent: [], blockedUntil: clock.t + 10 * 365 * 86_400_000 }));
    await budget.draw();
    expect(clock.waits).toEqual([MAX_BLOCK_MS]);
  });

  it('says how to clear the budget when it gives up: delete its file', async () => {
    const { make } = fakeTime();
    const budget = make(tempDir());
    await budget.recordRetryAfter(50);
    const error = await budget.draw({ maxWaitMs: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateBudgetWaitError);
    expect((error as RateBudgetWaitError).hint).toBe(
      `it clears by itself within a minute; to clear it now (no other schedctl using this key), delete ${budget.file}`,
    );
  });

  it('widens the window by a margin (default 1 s) for requests slower on the wire than the next', async () => {
    const { clock, make } = fakeTime();
    const budget = make(tempDir(), { limit: 1, windowMs: 1000, marginMs: undefined });
    await budget.draw();
    await budget.draw();
    expect(clock.waits).toEqual([2000]);
  });

  it('keeps timestamps in a private file named by a hash, never the key', async () => {
    const dir = tempDir();
    const { make } = fakeTime();
    const budget = make(dir);
    await budget.draw();
    expect(budget.file).toBe(join(dir, 'rate', `${budgetId(BASE, KEY)}.json`));
    expect(budget.file).toBe(budgetFile(dir, BASE, KEY));
    expect(budgetId(BASE, KEY)).toMatch(/^[0-9a-f]{32}$/);
    const text = readFileSync(budget.file, 'utf8');
    expect(JSON.parse(text)).toEqual({ sent: [1_000_000] });
    expect(text).not.toContain(KEY);
    expect(statSync(budget.file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'rate')).mode & 0o777).toBe(0o700);
  });

  it('resets a corrupted budget file (a cache, not a record)', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const budget = make(dir, { limit: 1 });
    await budget.draw();
    writeFileSync(budget.file, '{"sent": [1, "x"');
    await budget.draw();
    expect(clock.waits).toEqual([]);
    expect(JSON.parse(readFileSync(budget.file, 'utf8'))).toEqual({ sent: [1_000_000] });
  });

  it('counts this process alone, without failing, when the config directory cannot be written', async () => {
    const notADir = join(tempDir(), 'file');
    writeFileSync(notADir, '');
    const { clock, make } = fakeTime();
    const budget = make(notADir, { limit: 2, windowMs: 1000 });
    const debug: string[] = [];
    await budget.draw({ debug: (l) => debug.push(l) });
    await budget.draw();
    await budget.recordRetryAfter(3);
    await budget.draw();
    expect(clock.waits).toEqual([3000]);
    expect(debug[0]).toMatch(/cannot be used .*counting this process's requests only/);
  });
});

describe('rate budget: waiting for room for a whole run (smoke)', () => {
  it('does not wait, nor draw, when the room is there', async () => {
    const { clock, make } = fakeTime();
    const budget = make(tempDir(), { limit: 5, windowMs: 10_000 });
    await budget.draw();
    expect(await budget.waitForRoom(4)).toBe(0);
    expect(clock.waits).toEqual([]);
    // Nothing drawn: 4 more still fit without a wait.
    for (let i = 0; i < 4; i++) await budget.draw();
    expect(clock.waits).toEqual([]);
  });

  it('waits once, until enough of the oldest draws have left the window, and says how many are left', async () => {
    const { clock, make } = fakeTime();
    const budget = make(tempDir(), { limit: 5, windowMs: 10_000 });
    await budget.draw(); // t0
    clock.t += 1000;
    await budget.draw(); // t0 + 1 s
    clock.t += 1000;
    await budget.draw(); // t0 + 2 s
    clock.t += 1000;
    await budget.draw(); // t0 + 3 s: 1 of 5 left
    const heard: Array<[number, number]> = [];
    // 3 wanted: 2 draws must leave, the second at t0 + 1 s + 10 s.
    const waited = await budget.waitForRoom(3, { onWait: (ms, left) => heard.push([ms, left]) });
    expect(heard).toEqual([[8000, 1]]);
    expect(waited).toBe(8000);
    expect(clock.waits).toEqual([8000]);
  });

  it('asks for no more than the limit, and a blocked budget waits out the block', async () => {
    const { clock, make } = fakeTime();
    const budget = make(tempDir(), { limit: 2, windowMs: 10_000 });
    await budget.draw();
    await budget.draw();
    expect(await budget.waitForRoom(7)).toBe(10_000);
    await budget.recordRetryAfter(3);
    const heard: number[] = [];
    expect(await budget.waitForRoom(1, { onWait: (_ms, left) => heard.push(left) })).toBe(3000);
    expect(heard).toEqual([0]);
    expect(clock.waits).toEqual([10_000, 3000]);
  });

  it('gives up past maxWaitMs', async () => {
    const { make } = fakeTime();
    const budget = make(tempDir(), { limit: 1, windowMs: 10_000 });
    await budget.draw();
    await expect(budget.waitForRoom(1, { maxWaitMs: 5000 })).rejects.toBeInstanceOf(RateBudgetWaitError);
  });
});

describe('rate budget: a batch drawn ahead (a route knows its four requests)', () => {
  it('takes the batch with one draw; the spares serve the next draws within AHEAD_MS, then the store is asked again', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const a = make(dir, { limit: 10 });
    a.drawAhead(3);
    const t0 = await a.draw();
    const file = JSON.parse(readFileSync(budgetFile(dir, BASE, KEY), 'utf8')) as { sent: number[] };
    // Counted on the safe side: the spares until AHEAD_MS after the batch's instant.
    expect(file.sent).toEqual([t0, t0 + AHEAD_MS, t0 + AHEAD_MS]);
    clock.t += 100;
    expect(await a.draw()).toBe(t0);
    clock.t += AHEAD_MS;
    // The last spare has lapsed: a draw of its own.
    expect(await a.draw()).toBe(clock.t);
    expect((JSON.parse(readFileSync(budgetFile(dir, BASE, KEY), 'utf8')) as { sent: number[] }).sent).toHaveLength(4);
  });

  it('drops the spares on a Retry-After: nothing drawn ahead is sent before the block ends', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const a = make(dir);
    a.drawAhead(4);
    await a.draw();
    await a.recordRetryAfter(2);
    await a.draw();
    expect(clock.waits).toEqual([2000]);
  });
});

describe('rate budget: draws taken ahead and never sent (RateBudget.giveBack)', () => {
  const sent = (dir: string) =>
    (JSON.parse(readFileSync(budgetFile(dir, BASE, KEY), 'utf8')) as { sent: number[] }).sent;

  it('gives back the spares left when the command ends: the window holds only what was sent', async () => {
    const dir = tempDir();
    const { make } = fakeTime();
    const a = make(dir, { limit: 10 });
    a.drawAhead(4);
    const t0 = await a.draw();
    await a.draw();
    await a.giveBack();
    expect(sent(dir)).toEqual([t0, t0 + AHEAD_MS]);
    // Nothing left: a second giveBack changes nothing.
    await a.giveBack();
    expect(sent(dir)).toEqual([t0, t0 + AHEAD_MS]);
  });

  it('reserve draws the whole batch now: its requests then go on spares, and what a row did not send goes back', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const a = make(dir, { limit: 10 });
    await a.reserve(3);
    const t0 = sent(dir)[0]!;
    expect(sent(dir)).toEqual([t0, t0 + AHEAD_MS, t0 + AHEAD_MS]);
    // Each request of the batch, the first too, on a spare: nothing more drawn.
    expect(await a.draw()).toBe(t0);
    expect(await a.draw()).toBe(t0);
    expect(sent(dir)).toHaveLength(3);
    // The row sent two: the third goes back at its end.
    await a.giveBack();
    expect(sent(dir)).toEqual([t0, t0 + AHEAD_MS]);
    // A batch not sent at all (its lead another run's): all of it goes back.
    clock.t += 1;
    await a.reserve(3);
    await a.giveBack();
    expect(sent(dir)).toEqual([t0, t0 + AHEAD_MS]);
  });

  it("gives back spares that lapsed unused, another process's draw at the same instant staying counted", async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const a = make(dir, { limit: 10 });
    const b = make(dir, { limit: 10 });
    a.drawAhead(3);
    const t0 = await a.draw();
    // Another process draws at the instant a's spares are stamped with.
    clock.t = t0 + AHEAD_MS;
    await b.draw();
    clock.t += 1;
    // a's spares have lapsed: its next draw is one of its own, and both spares go back at its end.
    const t1 = await a.draw();
    await a.giveBack();
    expect(sent(dir)).toEqual([t0, t0 + AHEAD_MS, t1]);
  });
});

describe('rate budget: a shared place that stops answering (the team database)', () => {
  /** A shared store over `state` that fails while `down` is set. */
  function flaky(clock: { t: number }) {
    const shared = { state: { sent: [] as number[] } as BudgetState, down: false, calls: 0 };
    const warnings: string[] = [];
    const store = sharedOrMemory(
      'the team database',
      () => clock.t,
      async (change) => {
        shared.calls++;
        if (shared.down) throw new Error('connection refused');
        const result = change(shared.state, clock.t);
        return { result, state: shared.state };
      },
      (line) => warnings.push(line),
    );
    return { shared, warnings, store };
  }

  it('counts alone while it fails, says so once, and rejoins once it answers: the draws made alone counted there', async () => {
    const { clock, make } = fakeTime();
    const { shared, warnings, store } = flaky(clock);
    const budget = make(tempDir(), { limit: 10, store });
    await budget.draw();
    shared.down = true;
    await budget.draw();
    clock.t += 1000;
    await budget.draw();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/the team database cannot be used \(connection refused\).*rejoins/);
    expect(shared.state.sent).toHaveLength(1);
    // Back, but within REJOIN_MS of the failure: not asked yet.
    shared.down = false;
    const asked = shared.calls;
    await budget.draw();
    expect(shared.calls).toBe(asked);
    // Past it: the draws made alone (3) go into the shared window at their age, then this one.
    clock.t += REJOIN_MS;
    await budget.draw();
    expect(shared.state.sent).toHaveLength(5);
    expect(shared.state.sent.every((t) => t <= clock.t)).toBe(true);
    // And it stays joined: the next draw is counted there at once.
    await budget.draw();
    expect(shared.state.sent).toHaveLength(6);
    expect(warnings).toHaveLength(1);
  });
});
