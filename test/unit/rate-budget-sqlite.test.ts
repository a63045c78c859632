/**
 * The rate budget on this machine (src/state/sqlite/rate-budget.ts over the rate cache,
 * rate-cache.ts): the rule of src/api/rate-budget.ts over a row of `schedctl_rate_budgets` in a
 * real SQLite file of its own, read back as the tests' witness straight from the file
 * (test/helpers/ledger-db.ts).
 */
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { budgetId, createRateBudget, RateBudgetWaitError } from '../../src/api/rate-budget.js';
import { releaseLedger, sqliteLedger } from '../../src/state/sqlite/engine.js';
import { sqliteBudgetInUse, sqliteBudgetStore } from '../../src/state/sqlite/rate-budget.js';
import { RATE_DB, rateCache, type RateCache } from '../../src/state/sqlite/rate-cache.js';
import { budgetRows } from '../helpers/ledger-db.js';
import { countTables } from '../../src/state/index.js';
import { countTables as countRecords } from '../../src/state/sql/documents.js';

const ID = budgetId('https://api.example', 'sk_live_0123456789abcdef');
const tempDir = () => mkdtempSync(join(tmpdir(), 'schedctl-rate-sqlite-'));

const opened: RateCache[] = [];
function ledger(dir: string, busyMs = 2000): RateCache {
  const c = rateCache(dir, busyMs);
  opened.push(c);
  return c;
}
afterEach(() => {
  for (const c of opened.splice(0)) c.close();
});

/** A fake clock that sleeping advances, and budgets over the ledger of `dir` on it. */
function fakeTime(start = 1_000_000) {
  const clock = { t: start, waits: [] as number[] };
  const now = () => clock.t;
  const make = (dir: string, limit = 2, busyMs?: number) =>
    createRateBudget({
      store: sqliteBudgetStore(ledger(dir, busyMs), ID, now),
      dir,
      baseUrl: 'unused',
      apiKey: 'unused',
      limit,
      windowMs: 10_000,
      marginMs: 0,
      now,
      sleep: async (ms) => {
        clock.waits.push(ms);
        clock.t += ms;
      },
    });
  return { clock, make };
}

describe('the rate budget in the local rate cache', () => {
  it('keeps each draw in the key’s row, on this machine’s clock, named by the database and the id', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const budget = make(dir);
    expect(budget.file).toBe(`${join(dir, RATE_DB)} (rate budget ${ID.slice(0, 12)})`);
    await budget.draw();
    expect(budgetRows(dir)).toEqual([{ budgetId: ID, sent: [1_000_000], updatedMs: 1_000_000 }]);
    clock.t += 500;
    await budget.draw();
    expect(budgetRows(dir)).toEqual([{ budgetId: ID, sent: [1_000_000, 1_000_500], updatedMs: 1_000_500 }]);
    // Full: the third waits until the first leaves the window.
    await budget.draw();
    expect(clock.waits).toEqual([9500]);
    expect(budgetRows(dir)[0]?.sent).toEqual([1_000_500, 1_010_000]);
  });

  it('shares one row between budgets (processes) on the same key: a Retry-After blocks every one', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const a = make(dir, 30);
    const b = make(dir, 30);
    await a.draw();
    await a.recordRetryAfter(5);
    expect(budgetRows(dir)[0]).toMatchObject({ sent: [1_000_000], blockedUntil: 1_005_000 });
    await b.draw();
    expect(clock.waits).toEqual([5000]);
    expect(budgetRows(dir)[0]).toEqual({ budgetId: ID, sent: [1_000_000, 1_005_000], updatedMs: 1_005_000 });
  });

  it('says how to clear the row, never to delete the ledger, when it gives up', async () => {
    const { make } = fakeTime();
    const dir = mkdtempSync(join(tmpdir(), "schedctl-rate-o'brien-"));
    const budget = make(dir);
    await budget.recordRetryAfter(50);
    const error = await budget.draw({ maxWaitMs: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateBudgetWaitError);
    // The path quoted for a POSIX shell, its own quote too.
    const quoted = `'${join(dir, RATE_DB).replace("o'brien", "o'\\''brien")}'`;
    expect((error as RateBudgetWaitError).hint).toBe(
      `it clears by itself within a minute; to clear it now (no other schedctl using this key), run: sqlite3 ${quoted} "DELETE FROM schedctl_rate_budgets WHERE budget_id = '${ID}'"`,
    );
    expect((error as RateBudgetWaitError).hint).not.toMatch(/delete \S*\.db/);
  });

  it('reads a row that is not a budget as an empty one (a cache), and rewrites it', async () => {
    for (const bad of ['{"sent": [1, "x"', '{"sent": "no"}']) {
      const dir = tempDir();
      const { clock, make } = fakeTime();
      const budget = make(dir, 1);
      await budget.draw();
      const db = new DatabaseSync(join(dir, RATE_DB));
      db.prepare('UPDATE schedctl_rate_budgets SET state = ?').run(bad);
      db.close();
      const debug: string[] = [];
      await budget.draw({ debug: (l) => debug.push(l) });
      expect(clock.waits).toEqual([]);
      expect(debug.filter((l) => l.includes('cannot be used'))).toEqual([]);
      expect(budgetRows(dir)[0]?.sent).toEqual([1_000_000]);
    }
  });

  it('counts this process alone, without failing, when the ledger cannot be written (and --debug says so)', async () => {
    const notADir = join(tempDir(), 'file');
    writeFileSync(notADir, '');
    const { clock, make } = fakeTime();
    const budget = make(notADir, 30);
    const debug: string[] = [];
    await budget.draw({ debug: (l) => debug.push(l) });
    await budget.draw();
    await budget.recordRetryAfter(3);
    await budget.draw();
    expect(clock.waits).toEqual([3000]);
    expect(debug[0]).toBe(
      `rate budget: ${budget.file} cannot be used (${debug[0]!.slice(`rate budget: ${budget.file} cannot be used (`.length, -"); counting this process's requests only".length)}); counting this process's requests only`,
    );
    expect(debug[0]).toContain(notADir);
  });

  it('counts this process alone when another holds the ledger’s write lock past the busy timeout', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    const budget = make(dir, 2, 50);
    await budget.draw(); // the file and its schema made
    const other = new DatabaseSync(join(dir, RATE_DB));
    other.exec('BEGIN IMMEDIATE');
    try {
      const debug: string[] = [];
      await budget.draw({ debug: (l) => debug.push(l) });
      expect(debug[0]).toMatch(/cannot be used .*counting this process's requests only/);
      // It went on from what it last saw: the earlier draw still counts.
      await budget.draw();
      expect(clock.waits).toEqual([10_000]);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(budgetRows(dir)[0]?.sent).toEqual([1_000_000]);
  });
});

describe('the rate cache', () => {
  it('waits for no disk and keeps no write-ahead log (nothing to checkpoint when it closes)', async () => {
    const dir = tempDir();
    const c = ledger(dir);
    const { make } = fakeTime();
    await make(dir).draw();
    expect(await c.all('PRAGMA synchronous')).toEqual([{ synchronous: 0 }]);
    expect(await c.all('PRAGMA journal_mode')).toEqual([{ journal_mode: 'truncate' }]);
    expect(existsSync(join(dir, `${RATE_DB}-wal`))).toBe(false);
    expect(statSync(join(dir, RATE_DB)).mode & 0o777).toBe(0o600);
  });

  it('makes a damaged file anew (a budget forgotten), and rolls back a step that fails', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, RATE_DB), 'not a database, just text'.repeat(200));
    const { make } = fakeTime();
    await make(dir).draw();
    expect(budgetRows(dir)).toEqual([{ budgetId: ID, sent: [1_000_000], updatedMs: 1_000_000 }]);
    const c = ledger(dir);
    const failed = await c
      .transaction(async (tx) => {
        await tx.run('DELETE FROM schedctl_rate_budgets');
        throw new Error('the step failed');
      })
      .catch((e: Error) => e.message);
    expect(failed).toBe('the step failed');
    expect(budgetRows(dir)).toHaveLength(1);
    // Not left in the failed step: the next one commits.
    await c.transaction(async (tx) => tx.all('SELECT 1'));
  });

  it('is one per directory in a process, and a new one after close', () => {
    const dir = tempDir();
    const c = rateCache(dir, 100);
    expect(rateCache(dir, 100)).toBe(c);
    c.close();
    const again = ledger(dir);
    expect(again).not.toBe(c);
  });
});

describe('state status (local) counts the rate budgets', () => {
  it('as rows of the table, after the records (what state push copies does not include them)', async () => {
    const dir = tempDir();
    const { make } = fakeTime();
    await make(dir).draw();
    const l = sqliteLedger(dir, { busyMs: 2000, hasDocuments: () => false, importDocuments: undefined });
    try {
      expect(await countTables(l, dir)).toEqual({
        journal: 0,
        meetings: 0,
        outcomes: 0,
        fires: 0,
        events: 0,
        rateBudgets: 1,
      });
      expect(await countRecords(l)).not.toHaveProperty('rateBudgets');
      // Read, never made: a directory without a cache counts none and gets none.
      const empty = tempDir();
      expect((await countTables(l, empty)).rateBudgets).toBe(0);
      expect(existsSync(join(empty, RATE_DB))).toBe(false);
    } finally {
      releaseLedger(l);
    }
  });
});

describe('what a bulk plan reads of the local budget (budgetInUse)', () => {
  it('says how long ago the draws in the window were made, without drawing', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime();
    await make(dir, 30).draw();
    clock.t += 2000;
    const l = ledger(dir);
    expect(await sqliteBudgetInUse(l, ID, { now: () => clock.t })).toEqual([2000]);
    expect(await sqliteBudgetInUse(l, ID, { now: () => clock.t + 60_000 })).toEqual([]);
    expect(await sqliteBudgetInUse(l, ID, { now: () => clock.t, windowMs: 1000, marginMs: 0 })).toEqual([]);
    expect(budgetRows(dir)[0]?.sent).toEqual([1_000_000]);
  });

  it('reads the wall clock by default, and an unknown key or an unreadable ledger as an unused budget', async () => {
    const dir = tempDir();
    const { clock, make } = fakeTime(Date.now() - 1000);
    await make(dir, 30).draw();
    const [ago] = await sqliteBudgetInUse(ledger(dir), ID);
    expect(ago).toBeGreaterThanOrEqual(1000);
    expect(ago).toBeLessThan(30_000);
    expect(await sqliteBudgetInUse(ledger(dir), budgetId('x', 'y'))).toEqual([]);
    expect(await sqliteBudgetInUse(ledger(tempDir()), ID)).toEqual([]);
    const damaged = tempDir();
    writeFileSync(join(damaged, RATE_DB), 'not a database'.repeat(100));
    expect(await sqliteBudgetInUse(ledger(damaged), ID)).toEqual([]);
    expect(clock.waits).toEqual([]);
  });
});
