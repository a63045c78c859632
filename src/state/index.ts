/**
 * The local state store: the one owner of the files in the config directory. Every change is
 * a locked (across processes), atomic read-modify-write, so parallel schedctl runs lose
 * nothing and a crash leaves a readable file; a file that does not read is reported
 * (StateFileError), never reset. Opening creates and writes nothing: reads work on a
 * read-only or missing directory, and only the first write creates it (0700).
 */
import { assertWritable } from './disk.js';
import { ConfigFileStore } from './config-file.js';
import { EventAliases } from './events.js';
import { EVENTS_FILE, FIRES_FILE, JOURNAL_FILE, MEETINGS_FILE, OUTCOMES_FILE } from './files.js';
import { Fires } from './fires.js';
import { Journal } from './journal.js';
import { holdLead, holdLock, LEAD_WAIT_MS, meetingLockFile, type HeldLock, type LockWait } from './lead-lock.js';
import { JsonFile } from './json-file.js';
import { DEFAULT_LOCK_TIMING } from './lock.js';
import { Meetings } from './meetings.js';
import { Outcomes } from './outcomes.js';
import { Profiles } from './profiles.js';

export { LeadBusyError, LeadLockLostError, StateFileError, StateLockError, StateWriteError } from './errors.js';
export type { FireEntry } from './fires.js';
export type { HeldLock, LockOwner, LockWait } from './lead-lock.js';
export {
  KEEP_DAYS,
  wasSent,
  type JournalEntry,
  type JournalOutcome,
  type JournalPatch,
  type NewAttempt,
  type OpenAttemptQuery,
  type PriorQuery,
} from './journal.js';
export type { MeetingMove, MeetingRecord, MeetingSource, MeetingToRecord, UpcomingQuery } from './meetings.js';
export { answersKey, type FireToRemember, type OutcomeLookup, type RememberedOutcome } from './outcomes.js';
export type { Profile, ProfileListing } from './profiles.js';
export type { EventAliases, Fires, Journal, Meetings, Outcomes, Profiles };

export interface StateOptions {
  /** The clock of every timestamp and of journal pruning (tests inject one; never Date.now()). */
  now: () => Date;
  /** Wait for another process's lock before StateLockError (default 12 s). */
  lockWaitMs?: number;
  /** Age after which a lock is taken over as left by a dead process (default 10 s, at least 2 s). */
  staleMs?: number;
  /** Wait for another process booking the same lead before LeadBusyError (default 2 min). */
  leadWaitMs?: number;
}

export interface State {
  readonly dir: string;
  readonly profiles: Profiles;
  readonly journal: Journal;
  readonly outcomes: Outcomes;
  readonly meetings: Meetings;
  readonly fires: Fires;
  readonly events: EventAliases;
  /** Before sending something whose outcome must be written down: fails (StateWriteError) when nothing can be. */
  assertWritable(): void;
  /**
   * Runs `work` (a check of the record and the booking it allows) as the only schedctl run
   * booking this lead; `held.assertHeld()` right before sending proves the lock is still ours.
   */
  holdLead<T>(
    lead: { scope: string; email: string },
    work: (held: HeldLock) => Promise<T>,
    onWait?: (wait: LockWait) => void,
  ): Promise<T>;
  /** Runs `work` as the only schedctl run moving this meeting (parallel moves land in order). */
  holdMeeting<T>(
    meeting: { scope: string; id: string },
    work: (held: HeldLock) => Promise<T>,
    onWait?: (wait: LockWait) => void,
  ): Promise<T>;
  /** Moves records written before workspaces (profile@url) into the workspace; writes only when there are any. */
  adopt(legacyScope: string, workspace: string): Promise<void>;
}

export function openState(dir: string, opts: StateOptions): State {
  const timing = {
    waitMs: opts.lockWaitMs ?? DEFAULT_LOCK_TIMING.waitMs,
    staleMs: opts.staleMs ?? DEFAULT_LOCK_TIMING.staleMs,
  };
  const leadTiming = { ...timing, waitMs: opts.leadWaitMs ?? LEAD_WAIT_MS };
  const state: State = {
    dir,
    profiles: new Profiles(new ConfigFileStore(dir, timing)),
    journal: new Journal(new JsonFile(dir, JOURNAL_FILE, timing), opts.now),
    outcomes: new Outcomes(new JsonFile(dir, OUTCOMES_FILE, timing), opts.now),
    meetings: new Meetings(new JsonFile(dir, MEETINGS_FILE, timing), opts.now),
    fires: new Fires(new JsonFile(dir, FIRES_FILE, timing), opts.now),
    events: new EventAliases(new JsonFile(dir, EVENTS_FILE, timing), opts.now),
    assertWritable: () => assertWritable(dir),
    holdLead: (lead, work, onWait) => holdLead(dir, leadTiming, lead, work, onWait),
    holdMeeting: (meeting, work, onWait) =>
      holdLock(
        meetingLockFile(dir, meeting.scope, meeting.id),
        leadTiming,
        { label: `meeting ${meeting.id}`, onWait },
        work,
      ),
    async adopt(legacy, workspace) {
      if (legacy === workspace) return;
      await Promise.all([
        state.journal.adopt(legacy, workspace),
        state.outcomes.adopt(legacy, workspace),
        state.meetings.adopt(legacy, workspace),
        state.fires.adopt(legacy, workspace),
      ]);
    },
  };
  return state;
}
