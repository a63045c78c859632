/**
 * A lock for the rate budget, which every request takes: an atomic `mkdir` of `<file>.lock`,
 * removed on release; one left by a killed process is taken over once older than `staleMs`.
 * proper-lockfile (used by the state store, src/state/lock.ts) does the same with refresh
 * timers, but loading it costs about 20 ms, a measurable part of a one-request command; the
 * budget's critical section is synchronous and takes microseconds, so it needs no refresh.
 */
import { mkdirSync, rmdirSync, statSync } from 'node:fs';

export class LockTimeoutError extends Error {}

export async function withQuickLock<T>(
  file: string,
  opts: { staleMs: number; waitMs: number },
  critical: () => T,
): Promise<T> {
  const lockDir = `${file}.lock`;
  const deadline = Date.now() + opts.waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > opts.staleMs) {
        // Left by a process that died holding it: take it over (the next mkdir decides who wins).
        removeLock(lockDir);
        continue;
      }
      if (Date.now() >= deadline) throw new LockTimeoutError(`${lockDir} is held by another process`);
      // Jittered, growing waits: processes started together do not retry in lockstep.
      const base = Math.min(2 * 1.5 ** attempt, 50);
      await new Promise((resolve) => setTimeout(resolve, base / 2 + Math.random() * base));
    }
  }
  try {
    return critical();
  } finally {
    removeLock(lockDir);
  }
}

/** The lock is an empty directory: rmdir, not a recursive rm (which loads and runs Node's rimraf). */
function removeLock(lockDir: string): void {
  try {
    rmdirSync(lockDir);
  } catch (error) {
    // Already gone: another process took a stale lock over and released it.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
