/**
 * One booking of a lead at a time, across processes (shared/ledger-rules.md, "Locks"). `book`,
 * `route`, bulk rows and the MCP tools check the ledger and book under a lock per workspace and
 * lead; `reschedule` moves a meeting under a lock per meeting. The lock is a directory
 * (`leads/<id>.lock`, id = 32 hex digits of sha256(workspace + "\n" + key): no email in a file
 * name, made with an atomic mkdir) holding `owner.json`: who holds it (pid, host, user, the
 * command, since when) and a token only the holder knows.
 *
 * The claim belongs to the ledger, not to the config directory that reaches it: `leads/` is
 * beside the ledger's real file (lockHome), so two config directories whose ledger.db is one file
 * (a symlink, a shared home) take turns on one lead.
 *
 * Deterministic by design, whatever the clocks say:
 * - a lock whose holder is a live process on this host is never taken over: a run that was
 *   stopped (Ctrl-Z, a paused container) keeps it, and the waiter says who holds it;
 * - a holder that is gone (its pid no longer runs on this host) is taken over at once;
 * - a holder elsewhere (a shared directory) is taken over once its heartbeat (the owner file's
 *   mtime, touched every staleMs/3) has not moved for staleMs as measured by the waiter's own
 *   monotonic clock: mtimes are compared with each other, never with the waiter's wall clock;
 * - the holder checks the token right before a booking's bytes leave (`assertHeld`): a run
 *   whose lock was taken over (forced, or by a race of two takers) sends nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureDir } from './disk.js';
import { LeadBusyError, LeadLockLostError, StateWriteError, errnoCode } from './errors.js';
import { holderCommand } from './holder-command.js';
import { leadId } from './identity.js';

/** How long to wait for a lock's holder, and when a silent one elsewhere is taken over (lock.ts re-exports it). */
export interface LockTiming {
  /** How long to wait for another process before giving up with StateLockError. */
  waitMs: number;
  /** How long the heartbeat of a holder on another host may stand still before it is taken over. */
  staleMs: number;
}

/** How long a run waits for another one booking the same lead: a few requests, or a wizard's prompts. */
export const LEAD_WAIT_MS = 120_000;

export interface LockOwner {
  token: string;
  pid: number;
  host: string;
  user: string;
  command: string;
  /** ISO instant the lock was taken. */
  since: string;
}

/** What a waiting run is told, at once and then every few seconds. */
export interface LockWait {
  owner: LockOwner | undefined;
  waitedMs: number;
  waitMs: number;
}

export interface HeldLock {
  /** Throws LeadLockLostError when this run no longer holds the lock (call right before sending). */
  assertHeld(): void | Promise<void>;
}

export interface HoldOptions {
  /** What to call the thing locked in messages (the lead's email, "meeting <id>"). */
  label: string;
  onWait?: ((wait: LockWait) => void) | undefined;
  /** The command holding it, shown to waiters (default: this process's arguments). */
  command?: string | undefined;
  /** Make the lock's directory first (default); false: a missing one is a StateWriteError. */
  createDir?: boolean | undefined;
}

const OWNER = 'owner.json';

/**
 * The directory whose `leads/` holds the locks of the ledger file `ledger`: the one its real path
 * is in (symlinks resolved, each time: the file may have been made meanwhile). A ledger not made
 * yet: the directory it will be made in (`fallback`, the config directory).
 */
export function lockHome(ledger: string, fallback: string): string {
  try {
    const home = dirname(realpathSync(ledger));
    // The same directory as the config directory (reached through a symlink of its own, say):
    // named as the user named it, in messages and for the tests that look.
    return home === realpathSync(fallback) ? fallback : home;
  } catch {
    return fallback;
  }
}

export function lockFileOf(dir: string, scope: string, key: string): string {
  const id = createHash('sha256').update(`${scope}\n${key}`).digest('hex').slice(0, 32);
  return join(dir, 'leads', id);
}

export function leadLockFile(dir: string, scope: string, email: string): string {
  return lockFileOf(dir, scope, leadId(email));
}

export function meetingLockFile(dir: string, scope: string, meetingId: string): string {
  return lockFileOf(dir, scope, `meeting ${meetingId.toLowerCase()}`);
}

export async function holdLead<T>(
  dir: string,
  timing: LockTiming,
  lead: { scope: string; email: string },
  work: (held: HeldLock) => Promise<T>,
  onWait?: (wait: LockWait) => void,
): Promise<T> {
  return holdLock(leadLockFile(dir, lead.scope, lead.email), timing, { label: lead.email, onWait }, work);
}

/** Runs `work` as the only holder of the lock `file` (`<file>.lock`). */
export async function holdLock<T>(
  file: string,
  timing: LockTiming,
  o: HoldOptions,
  work: (held: HeldLock) => Promise<T>,
): Promise<T> {
  const lockDir = `${file}.lock`;
  if (o.createDir !== false) ensureDir(join(lockDir, '..'));
  const owner = await acquire(lockDir, timing, o);
  const ownerFile = join(lockDir, OWNER);
  let lost = false;
  const beat = setInterval(
    () => {
      try {
        const now = new Date();
        utimesSync(ownerFile, now, now);
      } catch {
        lost = true;
      }
    },
    Math.max(50, Math.floor(timing.staleMs / 3)),
  );
  beat.unref();
  const held: HeldLock = {
    assertHeld() {
      const current = readOwner(lockDir);
      if (lost || current?.token !== owner.token) throw new LeadLockLostError(o.label, current);
    },
  };
  try {
    return await work(held);
  } finally {
    clearInterval(beat);
    // Only our own lock is removed: one taken over belongs to its new holder.
    if (readOwner(lockDir)?.token === owner.token) rmSync(lockDir, { recursive: true, force: true });
  }
}

function acquire(lockDir: string, timing: LockTiming, o: HoldOptions): Promise<LockOwner> {
  let seen: { key: string; at: number } | undefined;
  const take = (): { held: LockOwner } | { owner: LockOwner | undefined } => {
    for (;;) {
      const mine = tryCreate(lockDir, o.command);
      if (mine) return { held: mine };
      const owner = readOwner(lockDir);
      // The heartbeat as this waiter sees it: token and mtime, noted on the waiter's own clock.
      const key = `${owner?.token ?? '-'} ${mtimeOf(lockDir, owner)}`;
      const now = performance.now();
      if (seen?.key !== key) seen = { key, at: now };
      if (!mayTakeOver(owner, now - seen.at, timing.staleMs)) return { owner };
      takeOver(lockDir, owner);
    }
  };
  return waitTurn({ label: o.label, waitMs: timing.waitMs, release: lockDir, onWait: o.onWait, take, pause: backoff });
}

/**
 * Waits for a lock (this machine's, or the team state's): `take` until it gives one, saying who
 * holds it to `onWait` at once and every 5 s, LeadBusyError after `waitMs` (`release`: as it says).
 */
export async function waitTurn<L>(o: {
  label: string;
  waitMs: number;
  release: string | { command: string };
  onWait?: ((wait: LockWait) => void) | undefined;
  take: () => Promise<{ held: L } | { owner: LockOwner | undefined }> | { held: L } | { owner: LockOwner | undefined };
  pause: (attempt: number) => number;
}): Promise<L> {
  const started = performance.now();
  let told = -Infinity;
  for (let attempt = 0; ; attempt++) {
    const got = await o.take();
    if ('held' in got) return got.held;
    const now = performance.now();
    const waited = now - started;
    if (waited >= o.waitMs) throw new LeadBusyError(o.label, o.release, o.waitMs, got.owner);
    // A holder takes its lock, then writes who it is (a lock directory, then its owner file): a
    // waiter that looks between the two sees no owner yet, not said as such until it had time to.
    if (o.onWait && now - told >= WAIT_NOTICE_MS && (got.owner || waited >= OWNER_GRACE_MS)) {
      told = now;
      o.onWait({ owner: got.owner, waitedMs: waited, waitMs: o.waitMs });
    }
    await sleep(o.pause(attempt));
  }
}

/** A waiting run hears at once, then every 5 s. */
const WAIT_NOTICE_MS = 5_000;
/** How long a new holder has to say who it is before a waiter says it has not (one write, normally well under it). */
export const OWNER_GRACE_MS = 1_000;

function tryCreate(lockDir: string, command: string | undefined): LockOwner | undefined {
  try {
    mkdirSync(lockDir, { mode: 0o700 });
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return undefined;
    throw new StateWriteError(lockDir, error);
  }
  const owner = newOwner(command);
  const temp = join(lockDir, `${OWNER}.${owner.token}.tmp`);
  try {
    writeFileSync(temp, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
    renameSync(temp, join(lockDir, OWNER));
  } catch (error) {
    // Taken over between our mkdir and this write (we looked dead for a moment): try again.
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw new StateWriteError(lockDir, error);
  }
  return owner;
}

/** Who this run is, as its holder records say: never the command's values (holder-command.ts). */
export function newOwner(command = holderCommand()): LockOwner {
  return {
    token: randomUUID(),
    pid: process.pid,
    host: hostname(),
    user: currentUser(),
    command,
    since: new Date().toISOString(),
  };
}

/**
 * A live holder on this host keeps its lock, however long it is stopped. A holder that is gone
 * loses it at once. Anything else (another host, or no owner written: a run that died between
 * mkdir and writing it, or a lock left by an older schedctl) once its heartbeat stood still.
 */
export function mayTakeOver(owner: LockOwner | undefined, stillForMs: number, staleMs: number): boolean {
  if (owner && owner.host === hostname()) return !isAlive(owner.pid);
  return stillForMs >= staleMs;
}

function takeOver(lockDir: string, seen: LockOwner | undefined): void {
  // Another waiter may have taken it over already: remove only what we judged.
  if (readOwner(lockDir)?.token !== seen?.token) return;
  rmSync(lockDir, { recursive: true, force: true });
}

export function readOwner(lockDir: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(join(lockDir, OWNER), 'utf8')) as LockOwner;
    return typeof owner?.token === 'string' ? owner : undefined;
  } catch {
    return undefined;
  }
}

function mtimeOf(lockDir: string, owner: LockOwner | undefined): number {
  try {
    return statSync(owner ? join(lockDir, OWNER) : lockDir).mtimeMs;
  } catch {
    return 0;
  }
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return errnoCode(error) === 'EPERM';
  }
}

export function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? '?';
  }
}

/** Jittered, growing waits: runs started together do not retry in lockstep. */
function backoff(attempt: number): number {
  const base = Math.min(10 * 1.5 ** attempt, 250);
  return base / 2 + Math.random() * base;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
