/**
 * Failures of the local state store. Each says which file or directory, why, and what to do,
 * in one line: a script running schedctl in parallel must be able to act on it without a stack.
 */
import { CliError, EXIT } from '../errors.js';

/** What to do about a file schedctl can recreate empty without losing anything that guards a booking. */
const RECREATE = 'move it aside and schedctl recreates it; nothing else was touched';

/**
 * A state file that exists but cannot be used as it is. It is never overwritten. `advice`: what
 * to do, where moving it aside would lose records (the ledger database, the team spool).
 */
export class StateFileError extends CliError {
  constructor(
    readonly path: string,
    what: string,
    reason: string,
    advice: string = RECREATE,
  ) {
    super('STATE_FILE', `${path} is not a readable schedctl ${what} file (${oneLine(reason)}): ${advice}`, EXIT.error);
  }
}

/**
 * The ledger database is damaged: it holds the meetings and attempts that keep a lead from being
 * booked twice, so "move it aside" is the last resort, said as such.
 */
export const DAMAGED_LEDGER =
  'it was not changed; restore it from a backup, or move it aside to start an empty ledger (its meetings and attempts then no longer keep a lead from a second booking)';

/**
 * The ledger documents of an older schedctl could not all be moved into the database: none was
 * (one transaction), the files stay where they were, and the ledger is read from them as before.
 */
export class DocumentsNotMovedError extends CliError {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(
      'STATE_FILE',
      `moving the ledger documents into ${path} failed (${oneLine(reason)}): none was moved; they stay where they were`,
      EXIT.error,
      {
        hint: 'run the command again; if it fails the same way, keep the documents as they are and report it with this message',
      },
    );
  }
}

/** Another program's database where the ledger belongs: nothing of schedctl's is in it. */
export const FOREIGN_LEDGER = "it was not changed; move it aside (it is not schedctl's) and schedctl creates its own";

const WRITE_HINTS: Record<string, string> = {
  EACCES: 'make the directory writable by you, or point SCHEDCTL_CONFIG_DIR at one that is',
  EPERM: 'make the directory writable by you, or point SCHEDCTL_CONFIG_DIR at one that is',
  EROFS: 'the file system is read-only: point SCHEDCTL_CONFIG_DIR at a writable directory',
  ENOSPC: 'the disk is full: free some space and run the command again',
  EDQUOT: 'the disk quota is exhausted: free some space and run the command again',
  ENOTDIR: 'a part of the path is a file, not a directory: point SCHEDCTL_CONFIG_DIR elsewhere',
};

/** The state could not be saved (directory or file not writable, disk full). Nothing was changed. */
export class StateWriteError extends CliError {
  readonly osCode: string | undefined;
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    const osCode = errnoCode(cause);
    super('STATE_WRITE', `cannot write ${path} (${describeOsError(cause)}): nothing was saved`, EXIT.error, {
      hint: (osCode && WRITE_HINTS[osCode]) ?? 'check the permissions and free space of the configuration directory',
      cause,
    });
    this.osCode = osCode;
  }
}

/** Another process kept the lock past the wait: either slow, or gone without the lock being stale yet. */
export class StateLockError extends CliError {
  /** `database`: a SQLite database's own lock (what holds it is a process with the file open, not a lock file). */
  constructor(
    readonly path: string,
    database?: string,
  ) {
    super(
      'STATE_LOCK',
      database
        ? `another process has held ${database} ${path} in a write for too long (a schedctl that hangs?): nothing was written; end it, or run this again once it has finished`
        : `another schedctl process holds ${path} for too long; if none is running, remove ${path}.lock`,
      EXIT.error,
    );
  }
}

/** A state file written by a newer schedctl (its schema is past what this one knows): never written by this one. */
export class StateTooNewError extends CliError {
  constructor(
    readonly path: string,
    found: number,
    known: number,
  ) {
    super(
      'STATE_FILE',
      `${path} was written by a newer schedctl (ledger schema ${found}; this one knows ${known}): nothing was read or changed`,
      EXIT.error,
      { hint: 'use the newer schedctl (npm install -g schedctl@latest), or point SCHEDCTL_CONFIG_DIR elsewhere' },
    );
  }
}

/** Who holds a lead lock, in one phrase: "pid 4242 on host-a (bob, since 18:40:01Z: schedctl route …)". */
export function describeHolder(owner: HolderInfo | undefined): string {
  if (!owner) return 'a schedctl run that has not said who it is';
  return `pid ${owner.pid} on ${owner.host} (${owner.user}, since ${owner.since}: ${oneLine(owner.command)})`;
}

interface HolderInfo {
  pid: number;
  host: string;
  user: string;
  command: string;
  since: string;
}

/** Another schedctl run kept booking the same lead past the wait (state/lead-lock.ts). */
export class LeadBusyError extends CliError {
  /** `release`: a lock directory to remove, or (team state) the command that releases the lock. */
  constructor(label: string, release: string | { command: string }, waitMs: number, owner?: HolderInfo) {
    const local = typeof release === 'string';
    const last = local ? `remove ${release}` : `run ${release.command}`;
    // A lock directory is taken over by its waiters (state/lead-lock.ts); a team lock is the holder's session's.
    const freed = local
      ? 'its lock is taken over at once on its own machine, and from another once its heartbeat has stopped for a few seconds'
      : 'its lock ends with its connection to the team database';
    super(
      'LEAD_BUSY',
      `another schedctl run has been booking ${label} for over ${waitMs < 1000 ? `${waitMs} ms` : `${Math.round(waitMs / 1000)} s`}: ${describeHolder(owner)}; nothing was sent`,
      EXIT.conflict,
      {
        hint: `run this again once it has finished (it will find that booking on record); if that run is stuck, end it${owner ? ` (kill ${owner.pid} on ${owner.host})` : ''}: ${freed}; if it is gone for good, ${last}`,
      },
    );
  }
}

/** This run's lead lock was taken over while it waited (forced, or a race of two takers): it sends nothing. */
export class LeadLockLostError extends CliError {
  constructor(label: string, now: HolderInfo | undefined) {
    super(
      'LEAD_LOCK_LOST',
      `this run lost its lock on ${label} before sending (${now ? `now held by ${describeHolder(now)}` : 'it was removed'}); nothing was sent`,
      EXIT.conflict,
      { hint: 'run the command again: it will find what the other run did on record' },
    );
  }
}

export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** "EACCES: permission denied" from "EACCES: permission denied, open '/x'": the path is said once already. */
export function describeOsError(error: unknown): string {
  const message = oneLine(error instanceof Error ? error.message : String(error));
  const code = errnoCode(error);
  if (!code) return message;
  return `${code}: ${message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '')}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The team state (PostgreSQL) cannot be used: unreachable, refusing, or its schema is not one
 * this schedctl can write. A command that would book, move or fire sends nothing. `where` is
 * the state URL without its password. `sent`: this process has already sent a request that
 * cannot be repeated (the failure is a record's, after a booking): not "nothing was sent".
 */
export class StateUnavailableError extends CliError {
  /** `sent`: something was sent before (its outcome is kept), or what was not sent, named. */
  constructor(where: string, reason: string, hint?: string, sent: boolean | { notSent: string } = false) {
    const tail = sent === true ? '' : `; ${sent === false ? 'nothing was sent' : `${sent.notSent} was not sent`}`;
    super(
      'STATE_UNAVAILABLE',
      `the team state at ${where} cannot be used (${oneLine(reason)})${tail}`,
      EXIT.stateUnavailable,
      {
        hint:
          hint ??
          "check that the database is up and reachable (psql with the same settings); to work with this machine's state only, set SCHEDCTL_STATE_URL=local (a --profile with a team state of its own still uses that)",
      },
    );
  }
}
