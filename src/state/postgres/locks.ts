/**
 * Lead and meeting locks in the team database: a session advisory lock on the subject's
 * identity, held by the command's connection (connect.ts) for as long as the work runs. A killed process's
 * connection closes and its lock goes with it at once; a stopped one keeps it (its connection
 * stays open). `schedctl_locks` says who holds each (user, host, pid, command, since), valid
 * while the holding session still holds the advisory lock.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { LockSubject } from '../backend.js';
import { subjectLabel } from '../backend.js';
import { LeadBusyError, LeadLockLostError } from '../errors.js';
import { holderCommand } from '../holder-command.js';
import { currentUser, OWNER_GRACE_MS, type HeldLock, type LockOwner, type LockWait } from '../lead-lock.js';
import { isConnectionFailure, type Database } from './connect.js';

/** The lock's name: one per lead (normalised email) or meeting, per workspace. */
export function lockName(s: LockSubject): string {
  return s.kind === 'lead'
    ? `lead ${s.scope} ${s.email.trim().toLowerCase()}`
    : `meeting ${s.scope} ${s.id.toLowerCase()}`;
}

const POLL_MS = 150;
/** How recent an answer on the lock's connection stands for "its session is there" (assertHeld). */
const FRESH_ANSWER_MS = 1000;

/**
 * Names this process holds: a session advisory lock is re-entrant within its session, so two
 * holders in one process (a bulk run's rows, an MCP server's calls) take turns here too.
 */
const heldHere = new Set<string>();

/** A session lock held: whether its session still stands, and the way to give it back. */
export interface SessionLock {
  alive(): boolean;
  /** Gives it back (its holder row too), written behind what is under way: resolves once it has (never rejects). */
  release(): Promise<void>;
}

/**
 * Takes the session lock `name` at once and records its holder, or resolves to undefined (held by
 * another, here or elsewhere). On the command's one connection: it goes with that session.
 */
export async function takeLock(
  db: Database,
  name: string,
  owner: LockOwner = newOwner(),
): Promise<SessionLock | undefined> {
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
        .then(
          () => {},
          () => {},
        );
    },
  };
}

/** Who holds the locks, when the holding session still holds them. */
export const HOLDERS_SQL = `
  SELECT l.name, l.owner, l.backend_pid FROM schedctl_locks l
  WHERE EXISTS (SELECT 1 FROM pg_locks p WHERE p.locktype = 'advisory' AND p.granted AND p.pid = l.backend_pid
                AND ((p.classid::int8 << 32) | p.objid::int8) = l.lock_key)`;

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
  const lock = await acquire(db, name, label, guarded, waitMs, onWait);
  try {
    const held: HeldLock = {
      // Right before a booking's bytes leave: the session holding the lock must still be there.
      async assertHeld() {
        // The lock's session answered a moment ago (the step marking the request sent, on the
        // same connection): it stands, and asking again would only cost a round trip.
        if (lock.alive() && performance.now() - db.answeredAt() < FRESH_ANSWER_MS) return;
        // The database not answering is the team state being unavailable, said as such; its
        // answer on a new connection (the lock's went away: the database restarted, or `state
        // unlock --force` ended it) is the lock lost.
        try {
          await db.query('SELECT 1');
        } catch (error) {
          throw db.unavailable(error, undefined, guarded);
        }
        if (!lock.alive()) throw new LeadLockLostError(label, undefined);
      },
    };
    return await work(held);
  } finally {
    // Not waited for: written behind the work's last step, it costs the command no round trip.
    void lock.release();
  }
}

/**
 * Waits for the lock, saying who holds it. A database that stops answering meanwhile is waited
 * for too, within the same deadline: the wait goes on on a new connection once it is back.
 */
async function acquire(
  db: Database,
  name: string,
  label: string,
  guarded: string,
  waitMs: number,
  onWait?: (wait: LockWait) => void,
): Promise<SessionLock> {
  const started = Date.now();
  let said = 0;
  const owner = newOwner();
  for (;;) {
    let lock: SessionLock | undefined;
    let holder: LockOwner | undefined;
    const waited = () => Date.now() - started;
    try {
      // Taken and recorded in one statement: a waiter never finds the lock held by no one it can name.
      lock = await takeLock(db, name, owner);
      if (lock) return lock;
      holder = await holderOf(db, name);
    } catch (error) {
      if (!isConnectionFailure(error) || waited() >= waitMs) throw db.unavailable(error, undefined, guarded);
    }
    if (waited() >= waitMs) throw new LeadBusyError(label, { command: unlockCommand(name) }, waitMs, holder);
    // At once, then every 5 s: who holds it and how long this run has waited. A holder whose
    // record is not visible yet (a lock taken by an older schedctl in two steps) gets a moment.
    if (onWait && (said === 0 || waited() - said >= 5000) && (holder || waited() >= OWNER_GRACE_MS)) {
      said = Math.max(waited(), 1);
      onWait({ owner: holder, waitedMs: waited(), waitMs });
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * The lock taken (when free) and its holder recorded, in one statement: the INSERT runs only
 * when the lock was got (a data-modifying WITH runs once, whether read or not).
 */
const TAKE_AND_RECORD = `
  WITH got AS (SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok),
  recorded AS (
    INSERT INTO schedctl_locks (name, lock_key, backend_pid, owner)
    SELECT $1, hashtextextended($1, 0), pg_backend_pid(), $2::jsonb FROM got WHERE ok
    ON CONFLICT (name) DO UPDATE SET lock_key = EXCLUDED.lock_key, backend_pid = EXCLUDED.backend_pid, owner = EXCLUDED.owner
    RETURNING 1)
  SELECT ok FROM got`;

/** The holder of `name`, given the moment a holder between taking and recording needs to be seen (see acquire). */
export async function holderSoon(db: Database, name: string): Promise<LockOwner | undefined> {
  for (const deadline = Date.now() + OWNER_GRACE_MS; ; await new Promise((r) => setTimeout(r, 50))) {
    const holder = await holderOf(db, name);
    if (holder || Date.now() >= deadline) return holder;
  }
}

/** Who this run is, as its holder records say: never the command's values (holder-command.ts). */
function newOwner(): LockOwner {
  return {
    token: randomUUID(),
    pid: process.pid,
    host: hostname(),
    user: currentUser(),
    command: holderCommand(),
    since: new Date().toISOString(),
  };
}

/** Who holds the session lock `name`, as its holder recorded it (undefined when unknown). */
export async function holderOf(db: Database, name: string): Promise<LockOwner | undefined> {
  try {
    const [row] = await db.query<{ owner: LockOwner }>(`${HOLDERS_SQL} AND l.name = $1`, [name]);
    return row?.owner;
  } catch {
    return undefined;
  }
}

/** The command that releases the lock `name` (`lead <scope> <email>` or `meeting <scope> <id>`). */
function unlockCommand(name: string): string {
  const [subject, , ...rest] = name.split(' ');
  const of = rest.join(' ');
  return subject === 'meeting' ? `schedctl state unlock --meeting ${of}` : `schedctl state unlock ${of}`;
}
