/**
 * The inter-process lock around every read-modify-write of a state file: `<file>.lock`, an
 * atomic mkdir holding who took it (lead-lock.ts, the same lock as a lead's). A holder that is
 * gone from this host loses it at once, a live one never does, and a holder elsewhere (a shared
 * directory) once its heartbeat has stood still for `staleMs` on the waiter's own clock. No wall
 * clock is compared with a file's mtime: a clock that jumps, or a file server whose clock
 * differs, cannot make a live lock look stale (proper-lockfile, used here before, did: two
 * writers then lost each other's writes).
 */
import { LeadBusyError, StateLockError, StateWriteError } from './errors.js';
import { holdLock, type LockTiming } from './lead-lock.js';

// Declared beside holdLock, which reads it: lead-lock.ts imports nothing from this file.
export type { LockTiming } from './lead-lock.js';

export const DEFAULT_LOCK_TIMING: LockTiming = { waitMs: 12_000, staleMs: 10_000 };

/**
 * Runs `critical` while holding the lock on `file`. `critical` is synchronous on purpose:
 * the write happens in one stretch, with no await inside for a takeover to slip into.
 */
export async function withLock<T>(file: string, timing: LockTiming, critical: () => T): Promise<T> {
  try {
    return await holdLock(file, timing, { label: file, createDir: false }, async () => critical());
  } catch (error) {
    if (error instanceof LeadBusyError) throw new StateLockError(file);
    // The lock could not be made (a missing or read-only directory): the write names the file.
    if (error instanceof StateWriteError && error.path === `${file}.lock`) throw new StateWriteError(file, error.cause);
    throw error;
  }
}
