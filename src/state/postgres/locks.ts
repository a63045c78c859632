/**
 * Lead and meeting locks in the team database: a session advisory lock on the subject's
 * identity, held by a connection of its own for as long as the work runs. A killed process's
 * connection closes and its lock goes with it at once; a stopped one keeps it (its connection
 * stays open). `schedctl_locks` says who holds each (user, host, pid, command, since), valid
 * while the holding session still holds the advisory lock.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Client } from 'pg';
import type { LockSubject } from '../backend.js';
import { subjectLabel } from '../backend.js';
import { LeadBusyError, LeadLockLostError } from '../errors.js';
import { currentUser, type HeldLock, type LockOwner, type LockWait } from '../lead-lock.js';
import { loadPg, type Database } from './connect.js';

/** The lock's name: one per lead (normalised email) or meeting, per workspace. */
export function lockName(s: LockSubject): string {
  return s.kind === 'lead'
    ? `lead ${s.scope} ${s.email.trim().toLowerCase()}`
    : `meeting ${s.scope} ${s.id.toLowerCase()}`;
}

const POLL_MS = 150;
/**
 * A connection of its own for a session lock (a lead's, a meeting's, a bulk run's): the lock
 * lives and dies with it. `lost()` says whether it has failed or ended since; `release(name)`
 * gives the lock back (its holder row too, when the session still stands) and closes it.
 */
export async function sessionClient(
  db: Database,
): Promise<{ client: Client; lost: () => boolean; release: (name: string) => Promise<void> }> {
  const pg = await loadPg();
  const client: Client = new pg.Client(db.config);
  let lost = false;
  client.on('error', () => {
    lost = true;
  });
  client.on('end', () => {
    lost = true;
  });
  const release = async (name: string) => {
    if (!lost) {
      await client
        .query('DELETE FROM schedctl_locks WHERE name = $1 AND backend_pid = pg_backend_pid()', [name])
        .catch(() => {});
      await client.query('SELECT pg_advisory_unlock_all()').catch(() => {});
    }
    await client.end().catch(() => {});
  };
  return { client, lost: () => lost, release };
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
  const { client, lost, release } = await sessionClient(db);
  try {
    await client.connect();
  } catch (error) {
    throw db.unavailable(error, undefined, guarded);
  }
  try {
    const owner = await acquire(db, client, name, label, guarded, waitMs, onWait);
    const held: HeldLock = {
      // Right before a booking's bytes leave: the session holding the lock must still be there.
      async assertHeld() {
        let gone = lost();
        if (!gone)
          try {
            await client.query('SELECT 1');
          } catch {
            gone = true;
          }
        if (!gone) return;
        // The lock's session ended: ended by `state unlock --force`, or the database went away
        // (stopped, unreachable). The latter is the team state being unavailable, said as such.
        try {
          await db.query('SELECT 1');
        } catch (error) {
          throw db.unavailable(error, undefined, guarded);
        }
        throw new LeadLockLostError(label, undefined);
      },
    };
    void owner;
    return await work(held);
  } finally {
    await release(name);
  }
}

async function acquire(
  db: Database,
  client: Client,
  name: string,
  label: string,
  guarded: string,
  waitMs: number,
  onWait?: (wait: LockWait) => void,
): Promise<LockOwner> {
  const started = Date.now();
  let said = 0;
  for (;;) {
    let got: boolean;
    try {
      const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [
        name,
      ]);
      got = r.rows[0]?.ok === true;
    } catch (error) {
      throw db.unavailable(error, undefined, guarded);
    }
    if (got) {
      try {
        return await recordHolder(client, name);
      } catch (error) {
        throw db.unavailable(error, undefined, guarded);
      }
    }
    const waited = Date.now() - started;
    const holder = await holderOf(client, name);
    if (waited >= waitMs) throw new LeadBusyError(label, { command: unlockCommand(name) }, waitMs, holder);
    // At once, then every 5 s: who holds it and how long this run has waited.
    if (onWait && (said === 0 || waited - said >= 5000)) {
      said = Math.max(waited, 1);
      onWait({ owner: holder, waitedMs: waited, waitMs });
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Says in schedctl_locks who holds the session lock `name` (this run), for waiting runs and `state status`. */
export async function recordHolder(client: Client, name: string): Promise<LockOwner> {
  const owner: LockOwner = {
    token: randomUUID(),
    pid: process.pid,
    host: hostname(),
    user: currentUser(),
    command: `schedctl ${process.argv.slice(2).join(' ')}`.slice(0, 200),
    since: new Date().toISOString(),
  };
  await client.query(
    `INSERT INTO schedctl_locks (name, lock_key, backend_pid, owner)
     VALUES ($1, hashtextextended($1, 0), pg_backend_pid(), $2)
     ON CONFLICT (name) DO UPDATE SET lock_key = EXCLUDED.lock_key, backend_pid = EXCLUDED.backend_pid, owner = EXCLUDED.owner`,
    [name, JSON.stringify(owner)],
  );
  return owner;
}

/** Who holds the session lock `name`, as its holder recorded it (undefined when unknown). */
export async function holderOf(client: Client, name: string): Promise<LockOwner | undefined> {
  try {
    const r = await client.query<{ owner: LockOwner }>(`${HOLDERS_SQL} AND l.name = $1`, [name]);
    return r.rows[0]?.owner;
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
