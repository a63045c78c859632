/**
 * The inter-process lock around every read-modify-write (proper-lockfile: an atomic mkdir of
 * `<file>.lock`, refreshed while held, taken over once its mtime is older than `staleMs`, so a
 * killed process does not block schedctl forever). Loaded only when writing: reads stay light.
 */
import type { LockOptions } from 'proper-lockfile';
import { StateLockError, StateWriteError, errnoCode } from './errors.js';

export interface LockTiming {
  /** How long to wait for another process before giving up with StateLockError. */
  waitMs: number;
  /** A lock not refreshed for this long belongs to a dead process (proper-lockfile's floor is 2 s). */
  staleMs: number;
}

export const DEFAULT_LOCK_TIMING: LockTiming = { waitMs: 12_000, staleMs: 10_000 };

type Lockfile = typeof import('proper-lockfile');
let lockfile: Promise<Lockfile> | undefined;
const loadLockfile = () =>
  // A CommonJS module: its functions may sit on the namespace or on its default export.
  (lockfile ??= import('proper-lockfile').then((m) => ((m as { default?: Lockfile }).default ?? m) as Lockfile));

/**
 * Runs `critical` while holding the lock on `file`. `critical` is synchronous on purpose:
 * no timer can run inside it, so the lock cannot be found stale and taken over mid-write.
 */
export async function withLock<T>(file: string, timing: LockTiming, critical: () => T): Promise<T> {
  const release = await acquire(file, timing, () => new StateLockError(file));
  try {
    return critical();
  } finally {
    // A failed release leaves a lock that turns stale and is taken over: nothing to report.
    await release().catch(() => {});
  }
}

async function acquire(file: string, timing: LockTiming, onTimeout: () => Error): Promise<() => Promise<void>> {
  const { lock } = await loadLockfile();
  const options: LockOptions = {
    realpath: false,
    // Refreshed every staleMs / 2 while held (proper-lockfile's default `update`).
    stale: timing.staleMs,
    retries: 0,
    // The default throws from a timer (crashing the process); with a synchronous critical
    // section a compromise can only be noticed after the write, when there is nothing left to undo.
    onCompromised: () => {},
  };
  const deadline = Date.now() + timing.waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await lock(file, options);
    } catch (error) {
      if (errnoCode(error) !== 'ELOCKED') throw new StateWriteError(file, error);
      if (Date.now() >= deadline) throw onTimeout();
      await sleep(backoff(attempt));
    }
  }
}

/** Jittered, growing waits: a dozen processes started together do not retry in lockstep. */
function backoff(attempt: number): number {
  const base = Math.min(10 * 1.5 ** attempt, 200);
  return base / 2 + Math.random() * base;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
