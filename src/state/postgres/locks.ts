/**
 * Lead and meeting locks in the team database: a session advisory lock on the subject's
 * identity, held by a connection of its own for as long as the work runs. A killed process's
 * connection closes and its lock goes with it at once; a stopped one keeps it (its connection
 * stays open). `schedctl_locks` says who holds each (user, host, pid, command, since), valid
 * while the holding session still holds the advisory lock.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Client, QueryResult } from 'pg';
import type { LockSubject } from '../backend.js';
import { subjectLabel } from '../backend.js';
import { LeadBusyError, LeadLockLostError } from '../errors.js';
import { holderCommand } from '../holder-command.js';
import { currentUser, OWNER_GRACE_MS, type HeldLock, type LockOwner, type LockWait } from '../lead-lock.js';
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
/** This process's lock releases still under way: a session it opens next waits for them. */
let releasing: Promise<void> = Promise.resolve();

export async function sessionClient(db: Database): Promise<{
  client: Client;
  /** Connects it (the spare early connection is already on its way: then waits for that). */
  connect: () => Promise<void>;
  lost: () => boolean;
  release: (name: string) => Promise<void>;
}> {
  const spare = db.takeSpare();
  const client: Client = spare?.client ?? new (await loadPg()).Client(db.config);
  let lost = spare?.gone() ?? false;
  client.on('error', () => {
    lost = true;
  });
  client.on('end', () => {
    lost = true;
  });
  const release = async (name: string) => {
    // Not waited for: the holder row's removal and the locks given back (a simple query of two
    // statements, the name a quoted literal) are written, and the session's end right behind
    // them, without waiting for their answer: the server runs the query, then ends the session
    // (which would give the locks back anyway), whether or not this process is still there to
    // read it. So a command waits no round trip to let go (scripts/pg-forwarder.mjs counts none).
    // The session commits asynchronously (takeAndRecord). A session this process opens later
    // waits for this one's end (it may take the lock again).
    (client as unknown as { unref(): void }).unref();
    const ended = lost ? client.end().catch(() => {}) : giveBackAndEnd(client, name);
    releasing = Promise.all([releasing, ended]).then(() => {});
  };
  const connect = async () => {
    await releasing;
    await (spare ? spare.connected : client.connect());
  };
  return { client, connect, lost: () => lost, release };
}

/** How long a session's end may take before its socket is closed outright (a server that never closes it). */
const END_WAIT_MS = 2000;

/**
 * The holder row removed and the locks given back, with the session's Terminate right behind
 * the query in the same write: pg's `end()` would destroy the socket under a query in flight.
 * Resolves once the session has ended (or after END_WAIT_MS, its socket then destroyed).
 */
function giveBackAndEnd(client: Client, name: string): Promise<void> {
  const ended = new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      connectionOf(client).stream.destroy();
      done();
    }, END_WAIT_MS);
    timer.unref();
    client.once('end', done);
  });
  client
    .query(
      `DELETE FROM schedctl_locks WHERE name = ${client.escapeLiteral(name)} AND backend_pid = pg_backend_pid();
       SELECT pg_advisory_unlock_all()`,
    )
    .catch(() => {});
  connectionOf(client).end();
  return ended;
}

/** pg's connection under a client: its `end()` writes Terminate after what is already written. */
const connectionOf = (client: Client) =>
  (client as unknown as { connection: { end(): void; stream: { destroy(): void } } }).connection;

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
  const { client, connect, lost, release } = await sessionClient(db);
  try {
    await connect();
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
  const owner = newOwner();
  for (;;) {
    let got: boolean;
    try {
      // Taken and recorded in one statement: a waiter never finds the lock held by no one it can name
      // (two statements left a moment between them: 2 of 24 waits named no holder).
      got = await takeAndRecord(client, name, owner);
    } catch (error) {
      throw db.unavailable(error, undefined, guarded);
    }
    if (got) return owner;
    const waited = Date.now() - started;
    const holder = await holderOf(client, name);
    if (waited >= waitMs) throw new LeadBusyError(label, { command: unlockCommand(name) }, waitMs, holder);
    // At once, then every 5 s: who holds it and how long this run has waited. A holder whose
    // record is not visible yet (a lock taken by an older schedctl in two steps) gets a moment.
    if (onWait && (said === 0 || waited - said >= 5000) && (holder || waited >= OWNER_GRACE_MS)) {
      said = Math.max(waited, 1);
      onWait({ owner: holder, waitedMs: waited, waitMs });
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

/** Takes the session lock `name` at once and records its holder, or resolves to false (held by another). */
export async function takeAndRecord(client: Client, name: string, owner: LockOwner = newOwner()): Promise<boolean> {
  // The session's commits made asynchronous in the same round trip (a simple query, so the values
  // go in as quoted literals): it writes only holder rows, read only while their lock is held,
  // and a crash of the server ends the locks with it. So the lock waits for no disk.
  const values = [client.escapeLiteral(name), client.escapeLiteral(JSON.stringify(owner))];
  const take = TAKE_AND_RECORD.replace(/\$([12])/g, (_, n: string) => values[Number(n) - 1]!);
  const answer = (await client.query(`SET synchronous_commit TO off; ${take}`)) as unknown as
    QueryResult<{ ok: boolean }> | Array<QueryResult<{ ok: boolean }>>;
  const r = Array.isArray(answer) ? answer[answer.length - 1]! : answer;
  return r.rows[0]?.ok === true;
}

/** The holder of `name`, given the moment a holder between taking and recording needs to be seen (see acquire). */
export async function holderSoon(client: Client, name: string): Promise<LockOwner | undefined> {
  for (const deadline = Date.now() + OWNER_GRACE_MS; ; await new Promise((r) => setTimeout(r, 50))) {
    const holder = await holderOf(client, name);
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
