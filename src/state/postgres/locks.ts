/**
 * Lead, meeting and run locks: a session advisory lock on the subject's name, on the command's
 * connection (connect.ts): a killed process's goes at once, a stopped one's stays. `schedctl_locks`
 * says who holds each (user, host, pid, command, since), valid while that session holds the lock.
 */
import type { LockSubject } from '../backend.js';
import { subjectLabel } from '../backend.js';
import { LeadLockLostError } from '../errors.js';
import { newOwner, waitTurn, type HeldLock, type LockOwner, type LockWait } from '../lead-lock.js';
import { isConnectionFailure, type Database } from './connect.js';

/** The lock's name: one per lead (normalised email) or meeting, per workspace. */
export function lockName(s: LockSubject): string {
  return s.kind === 'lead'
    ? `lead ${s.scope} ${s.email.trim().toLowerCase()}`
    : `meeting ${s.scope} ${s.id.toLowerCase()}`;
}

/** How recent an answer on the lock's connection stands for "its session is there" (assertHeld). */
const FRESH_ANSWER_MS = 1000;

/** Names held in this process: an advisory lock is re-entrant in its session, so two holders here take turns too. */
const heldHere = new Set<string>();

/** A session lock held: whether its session still stands, and the way to give it back (never rejects). */
export interface SessionLock {
  alive(): boolean;
  release(): Promise<void>;
}

/** The lock taken (when free) and its holder recorded in one statement (a data-modifying WITH runs once). */
const TAKE_AND_RECORD = `
  WITH got AS (SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok),
  recorded AS (
    INSERT INTO schedctl_locks (name, lock_key, backend_pid, owner)
    SELECT $1, hashtextextended($1, 0), pg_backend_pid(), $2::jsonb FROM got WHERE ok
    ON CONFLICT (name) DO UPDATE SET lock_key = EXCLUDED.lock_key, backend_pid = EXCLUDED.backend_pid, owner = EXCLUDED.owner
    RETURNING 1)
  SELECT ok FROM got`;

/** Takes the session lock `name` at once and records its holder, or resolves to undefined (held by another). */
export async function takeLock(db: Database, name: string, owner = newOwner()): Promise<SessionLock | undefined> {
  if (heldHere.has(name)) return undefined;
  const session = await db.session();
  const [row] = await db.query<{ ok: boolean }>(TAKE_AND_RECORD, [name, JSON.stringify(owner)]);
  if (row?.ok !== true || heldHere.has(name)) return undefined;
  heldHere.add(name);
  let released = false;
  return {
    alive: () => session.alive(),
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(name);
      if (!session.alive()) return;
      await db
        .step([
          ['DELETE FROM schedctl_locks WHERE name = $1 AND backend_pid = pg_backend_pid()', [name]],
          ['SELECT pg_advisory_unlock(hashtextextended($1, 0))', [name]],
        ])
        .catch(() => {});
    },
  };
}

/** Who holds the locks, when the holding session still holds them. */
export const HOLDERS_SQL = `
  SELECT l.name, l.owner, l.backend_pid FROM schedctl_locks l
  WHERE EXISTS (SELECT 1 FROM pg_locks p WHERE p.locktype = 'advisory' AND p.granted AND p.pid = l.backend_pid
                AND ((p.classid::int8 << 32) | p.objid::int8) = l.lock_key)`;

/** Who holds the session lock `name`, as its holder recorded it (undefined when unknown). */
export async function holderOf(db: Database, name: string): Promise<LockOwner | undefined> {
  const rows = await db.query<{ owner: LockOwner }>(`${HOLDERS_SQL} AND l.name = $1`, [name]).catch(() => []);
  return rows[0]?.owner;
}

export async function holdAdvisory<T>(
  db: Database,
  subject: LockSubject,
  waitMs: number,
  work: (held: HeldLock) => Promise<T>,
  onWait?: (wait: LockWait) => void,
): Promise<T> {
  const name = lockName(subject);
  const label = subjectLabel(subject);
  // What a failure here stops from being sent, when the run sent something before (route's fire).
  const guarded = subject.kind === 'lead' ? 'the booking' : 'the move';
  const started = Date.now();
  const owner = newOwner();
  const of = name.split(' ').slice(2).join(' ');
  const lock = await waitTurn<SessionLock>({
    label,
    waitMs,
    onWait,
    release: { command: `schedctl state unlock ${subject.kind === 'meeting' ? '--meeting ' : ''}${of}` },
    pause: () => 150,
    // A database that stops answering meanwhile is waited for too, within the same deadline.
    take: async () => {
      try {
        const held = await takeLock(db, name, owner);
        return held ? { held } : { owner: await holderOf(db, name) };
      } catch (error) {
        if (!isConnectionFailure(error) || Date.now() - started >= waitMs)
          throw db.unavailable(error, undefined, guarded);
        return { owner: undefined };
      }
    },
  });
  try {
    return await work({
      // Right before a booking's bytes leave: the session holding the lock must still be there.
      async assertHeld() {
        // An answer a moment ago (the step marking the request sent) on the lock's connection will do.
        if (lock.alive() && performance.now() - db.answeredAt() < FRESH_ANSWER_MS) return;
        // No answer: unavailable; an answer on a new connection (a restart, `state unlock`): lost.
        await db.query('SELECT 1').catch((error: unknown) => Promise.reject(db.unavailable(error, undefined, guarded)));
        if (!lock.alive()) throw new LeadLockLostError(label, undefined);
      },
    });
  } finally {
    // Not waited for: written behind the work's last step, it costs no round trip.
    void lock.release();
  }
}
