/**
 * The local state store: the one owner of the files in the config directory. Every change is
 * a locked (across processes), atomic read-modify-write, so parallel schedctl runs lose
 * nothing and a crash leaves a readable file; a file that does not read is reported
 * (StateFileError), never reset. Opening creates and writes nothing: reads work on a
 * read-only or missing directory, and only the first write creates it (0700).
 */
import { assertWritable } from './disk.js';
import { ConfigFileStore } from './config-file.js';
import { JOURNAL_FILE, MEETINGS_FILE, OUTCOMES_FILE } from './files.js';
import { Journal } from './journal.js';
import { holdLead, LEAD_WAIT_MS } from './lead-lock.js';
import { JsonFile } from './json-file.js';
import { DEFAULT_LOCK_TIMING } from './lock.js';
import { Meetings } from './meetings.js';
import { Outcomes } from './outcomes.js';
import { Profiles } from './profiles.js';

export { LeadBusyError, StateFileError, StateLockError, StateWriteError } from './errors.js';
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
export type { Journal, Meetings, Outcomes, Profiles };

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
  /** Before sending something whose outcome must be written down: fails (StateWriteError) when nothing can be. */
  assertWritable(): void;
  /** Runs `work` (a check of the record and the booking it allows) as the only schedctl booking this lead. */
  holdLead<T>(lead: { scope: string; email: string }, work: () => Promise<T>): Promise<T>;
}

export function openState(dir: string, opts: StateOptions): State {
  const timing = {
    waitMs: opts.lockWaitMs ?? DEFAULT_LOCK_TIMING.waitMs,
    staleMs: opts.staleMs ?? DEFAULT_LOCK_TIMING.staleMs,
  };
  return {
    dir,
    profiles: new Profiles(new ConfigFileStore(dir, timing)),
    journal: new Journal(new JsonFile(dir, JOURNAL_FILE, timing), opts.now),
    outcomes: new Outcomes(new JsonFile(dir, OUTCOMES_FILE, timing), opts.now),
    meetings: new Meetings(new JsonFile(dir, MEETINGS_FILE, timing), opts.now),
    assertWritable: () => assertWritable(dir),
    holdLead: (lead, work) => holdLead(dir, { ...timing, waitMs: opts.leadWaitMs ?? LEAD_WAIT_MS }, lead, work),
  };
}
