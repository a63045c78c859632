/** The rate budget's lock: held for microseconds, taken over only once it has stood still. */
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockTimeoutError, withQuickLock } from '../../src/api/quick-lock.js';

const fileIn = () => join(mkdtempSync(join(tmpdir(), 'quick-lock-')), 'budget.json');

describe('withQuickLock', () => {
  it('returns what the critical section returns, and removes the lock even when it throws', async () => {
    const file = fileIn();
    expect(await withQuickLock(file, { staleMs: 1_000, waitMs: 1_000 }, () => 42)).toBe(42);
    expect(existsSync(`${file}.lock`)).toBe(false);
    await expect(
      withQuickLock(file, { staleMs: 1_000, waitMs: 1_000 }, () => {
        throw new Error('inside');
      }),
    ).rejects.toThrow('inside');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('waits for a lock that is released, and takes it then', async () => {
    const file = fileIn();
    mkdirSync(`${file}.lock`);
    setTimeout(() => rmdirSync(`${file}.lock`), 100);
    expect(await withQuickLock(file, { staleMs: 60_000, waitMs: 5_000 }, () => 'mine')).toBe('mine');
  });

  it('takes over a lock that has stood still for staleMs (its holder was killed)', async () => {
    const file = fileIn();
    mkdirSync(`${file}.lock`);
    expect(await withQuickLock(file, { staleMs: 200, waitMs: 5_000 }, () => 'mine')).toBe('mine');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('never judges a lock by its mtime: one an hour old by the wall clock is not taken over at once', async () => {
    const file = fileIn();
    mkdirSync(`${file}.lock`);
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(`${file}.lock`, hourAgo, hourAgo);
    const error = await withQuickLock(file, { staleMs: 5_000, waitMs: 300 }, () => 'mine').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect(existsSync(`${file}.lock`)).toBe(true);
  });

  it('counts the stillness again when the lock changes hands', async () => {
    const file = fileIn();
    const lock = `${file}.lock`;
    mkdirSync(lock);
    // Another holder every 100 ms: never still for 400 ms, so never taken over within the wait.
    const churn = setInterval(() => {
      rmdirSync(lock);
      mkdirSync(lock);
      const t = new Date(Date.now() + Math.random() * 1_000);
      utimesSync(lock, t, t);
    }, 100);
    try {
      const error = await withQuickLock(file, { staleMs: 400, waitMs: 1_000 }, () => 'mine').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockTimeoutError);
    } finally {
      clearInterval(churn);
    }
  });
});
