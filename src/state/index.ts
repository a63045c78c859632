/**
 * The local state store: the one owner of the files in the config directory. Every change is
 * a locked (across processes), atomic read-modify-write, so parallel schedctl runs lose
 * nothing and a crash leaves a readable file; a file that does not read is reported
 * (StateFileError), never reset. Opening creates and writes nothing: reads work on a
 * read-only or missing directory, and only the first write creates it (0700).
 */
import { join } from 'node:path';
import type { LedgerBackend } from './backend.js';
import { assertWritable } from './disk.js';
import { ConfigFileStore } from './config-file.js';
import { EventAliases } from './events.js';
import { Fires } from './fires.js';
import { Journal } from './journal.js';
import { LEAD_WAIT_MS, type HeldLock, type LockWait } from './lead-lock.js';
import { localBackend } from './local/backend.js';
import { DEFAULT_LOCK_TIMING } from './lock.js';
import { Meetings } from './meetings.js';
import { Outcomes } from './outcomes.js';
import { postgresBackend } from './postgres/backend.js';
import { connectEarly } from './postgres/load-pg.js';
import { Profiles } from './profiles.js';
import { FireAnswers } from './together.js';
import { LEDGER_DB } from './sqlite/engine.js';
import { moveRecords, Workspaces } from './workspaces.js';
import { countTables as countRecords, type LedgerCounts } from './sql/documents.js';
import { countRateBudgets } from './sqlite/rate-cache.js';
import type { Sql, SqlSource } from './sql/types.js';

/**
 * What `state status` counts on this machine: the ledger's records, then the rate budgets of its
 * rate cache (rows of schedctl_rate_budgets in rate-budgets.db), as the team state counts them.
 * Not sql/documents.ts's countTables, whose kinds are what `state push` copies: a rate budget is
 * a cache, never pushed.
 */
export async function countTables(sql: Sql, dir: string): Promise<LedgerCounts & { rateBudgets: number }> {
  return { ...(await countRecords(sql)), rateBudgets: await countRateBudgets(dir) };
}

export { StateLockError, StateWriteError } from './errors.js';
export type { LedgerBackend } from './backend.js';
export type { FireEntry } from './fires.js';
export type { HeldLock, LockWait } from './lead-lock.js';
export type { JournalEntry } from './journal.js';
export type { MeetingRecord } from './meetings.js';
export { answersKey, type RememberedOutcome } from './outcomes.js';
export type { Profile } from './profiles.js';
// For the `state` commands, through this module: the build keeps the store's modules in one chunk.
export { localBackend } from './local/backend.js';
export { DEFAULT_LOCK_TIMING } from './lock.js';
export { LEDGER_DB };
// Through this module (not imported directly): the build keeps it in the state's chunk, no file of its own.
export { sqliteBudgetInUse, sqliteBudgetStore } from './sqlite/rate-budget.js';
export { rateCache } from './sqlite/rate-cache.js';
export type { EventAliases, Fires, Journal, Meetings, Outcomes, Profiles, Workspaces };
export { WorkspaceTakenError, type WorkspaceKey } from './workspaces.js';

export interface StateOptions {
  /** The clock of every timestamp and of journal pruning (tests inject one; never Date.now()). */
  now: () => Date;
  /** Wait for another process's lock before StateLockError (default 12 s). */
  lockWaitMs?: number;
  /** How long the lock of a holder on another host may stand still before it is taken over (default 10 s). */
  staleMs?: number;
  /** Wait for another process booking the same lead before LeadBusyError (default 2 min). */
  leadWaitMs?: number;
  /**
   * The team state's URL (postgres://…), asked for on the ledger's first use (it may come from
   * a profile, read from this same state); undefined = the local files.
   */
  stateUrl?: () => Promise<string | undefined> | string | undefined;
  /** Says what the command should know of the ledger: a write kept on this machine (team state), a meeting id answered for another lead. */
  warn?: (line: string) => void;
}

export interface State {
  readonly dir: string;
  readonly profiles: Profiles;
  readonly journal: Journal;
  readonly outcomes: Outcomes;
  readonly meetings: Meetings;
  readonly fires: Fires;
  readonly events: EventAliases;
  /** Which workspace each key belongs to (workspaces.ts). */
  readonly workspaces: Workspaces;
  /**
   * Before sending something whose outcome must be written down: fails (StateWriteError, or
   * StateUnavailableError for a team database) when nothing can be.
   */
  assertWritable(): Promise<void>;
  /** The config directory can be written (profiles: always local). */
  assertLocalWritable(): void;
  /** The ledger's backend (local files or the team database), chosen on first use. */
  backend(): Promise<LedgerBackend>;
  /** Writes what a fire's answer left for a booking that did not follow (together.ts FireAnswers), if anything. */
  flush(): Promise<void>;
  /** Ends the backend's connections, if any were opened (what still waits to be written sent first). */
  close(): Promise<void>;
  /**
   * Runs `work` (a check of the record and the booking it allows) as the only schedctl run
   * booking this lead; `held.assertHeld()` right before sending proves the lock is still ours.
   */
  /** `waitMs`: how long to wait for a lead another run holds (default: the state's lead wait). */
  holdLead<T>(
    lead: { scope: string; email: string },
    work: (held: HeldLock) => Promise<T>,
    onWait?: (wait: LockWait) => void,
    waitMs?: number,
  ): Promise<T>;
  /** Runs `work` as the only schedctl run moving this meeting (parallel moves land in order). */
  holdMeeting<T>(
    meeting: { scope: string; id: string },
    work: (held: HeldLock) => Promise<T>,
    onWait?: (wait: LockWait) => void,
  ): Promise<T>;
  /** Moves the records of a former scope into the workspace, in one transaction (the one there wins a duplicate). */
  adopt(legacyScope: string, workspace: string): Promise<void>;
}

export function openState(dir: string, opts: StateOptions): State {
  const timing = {
    waitMs: opts.lockWaitMs ?? DEFAULT_LOCK_TIMING.waitMs,
    staleMs: opts.staleMs ?? DEFAULT_LOCK_TIMING.staleMs,
  };
  const leadTiming = { ...timing, waitMs: opts.leadWaitMs ?? LEAD_WAIT_MS };
  let chosen: Promise<LedgerBackend> | undefined;
  const backend = (): Promise<LedgerBackend> =>
    (chosen ??= (async () => {
      const url = await opts.stateUrl?.();
      if (url === undefined) return localBackend(dir, timing, leadTiming, opts.warn);
      // The connection first (load-pg.ts connectEarly: its wait overlaps loading the rest). The
      // client (pg) loads only with a team state; the backend's modules are in this chunk (backend.ts).
      const early = connectEarly(url);
      const team = postgresBackend({ url, dir, leadWaitMs: leadTiming.waitMs, warn: opts.warn, early });
      // A step costs a round trip there: a fire's answer waits for the booking's first step.
      fireAnswers.holds = true;
      // The schema check rides in front of the command's first statements (connect.ts checkSchema):
      // no round trip of its own. A failure is said by the first use that needs the database.
      return team;
    })());
  // Where the ledger is, for messages: the local database until a team state is chosen.
  let where = join(dir, LEDGER_DB);
  const whereNow = () => where;
  const sql: SqlSource = async () => {
    const b = await backend();
    if (b.kind === 'postgres') where = b.where;
    return b.sql();
  };
  const fireAnswers = new FireAnswers();
  const state: State = {
    dir,
    profiles: new Profiles(new ConfigFileStore(dir, timing)),
    journal: new Journal(sql, opts.now, whereNow, fireAnswers),
    outcomes: new Outcomes(sql, opts.now, whereNow, fireAnswers),
    meetings: new Meetings(sql, opts.now, whereNow, opts.warn),
    fires: new Fires(sql, opts.now),
    events: new EventAliases(sql, opts.now),
    workspaces: new Workspaces(sql, opts.now),
    backend,
    assertLocalWritable: () => assertWritable(dir),
    assertWritable: async () => (await backend()).assertWritable(),
    holdLead: async (lead, work, onWait, waitMs) =>
      (await backend()).hold({ kind: 'lead', ...lead }, work, onWait, waitMs),
    holdMeeting: async (meeting, work, onWait) => (await backend()).hold({ kind: 'meeting', ...meeting }, work, onWait),
    // What a fire's answer left for a booking that did not follow (together.ts FireAnswers).
    flush: () => fireAnswers.send(sql),
    async close() {
      await state.flush().catch(() => {});
      const b = chosen && (await chosen.catch(() => undefined));
      // Not waited for: ending a connection sends its Terminate message at once, and the process
      // may exit while the server closes it (waiting costs ~7 ms a command; a database that
      // stopped answering must not hold the exit either).
      b?.close().catch(() => {});
    },
    async adopt(legacy, workspace) {
      // moveRecords does nothing for a scope into itself (without a transaction: adopt(x, x) is common).
      if (legacy !== workspace) await (await sql()).transaction((tx) => moveRecords(tx, legacy, workspace));
    },
  };
  return state;
}
