/**
 * A lock for the rate budget, which every request takes: an atomic `mkdir` of `<file>.lock`,
 * removed on release. Its critical section is synchronous and takes microseconds, so it needs
 * no refresh and no owner file (the state files' lock, src/state/lead-lock.ts, writes one: too
 * much for every request). A lock that has stood still (same directory, same mtime) for
 * `staleMs` on this waiter's own monotonic clock was left by a killed process and is taken over.
 * Its age is never read from the wall clock: a clock that jumps, or a file server whose clock
 * differs, would make every live lock look old, and two processes would draw at once.
 */
import { mkdirSync, rmdirSync, statSync } from 'node:fs';

export class LockTimeoutError extends Error {}

export async function withQuickLock<T>(
  file: string,
  opts: { staleMs: number; waitMs: number },
  critical: () => T,
): Promise<T> {
  const lockDir = `${file}.lock`;
  const started = performance.now();
  let seen: { key: string; at: number } | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const now = performance.now();
      const key = identity(lockDir);
      if (seen?.key !== key) seen = { key, at: now };
      else if (now - seen.at >= opts.staleMs) {
        // Left by a process that died holding it: take it over (the next mkdir decides who wins),
        // unless another waiter did so a moment ago (its own lock is another directory).
        if (identity(lockDir) === key) removeLock(lockDir);
        seen = undefined;
        continue;
      }
      if (now - started >= opts.waitMs) throw new LockTimeoutError(`${lockDir} is held by another process`);
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

/** Which lock directory this is: another holder's lock, even made in the same millisecond, is another inode. */
function identity(lockDir: string): string {
  const stat = statSync(lockDir, { throwIfNoEntry: false });
  return stat ? `${stat.ino} ${stat.mtimeMs}` : '-';
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
