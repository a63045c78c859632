/**
 * The lost-response journal (`journal.json`, `{entries: [...]}`): every booking attempt is
 * written down before it is sent, so that after a lost response a later `book` for the same
 * reservation or workflow run can tell "already booked" from a real failure. Entries carry
 * `sentAt`: an attempt recorded but never sent (schedctl died first, or the request failed
 * before leaving the machine) is not a lost response. It never stores the API key.
 */
import { randomUUID } from 'node:crypto';
import { FileStore } from './json-file.js';
import { sameEmail } from './records.js';
import type { JournalEntry, JournalFile } from './schemas.js';

export type { JournalEntry };
export type JournalOutcome = JournalEntry['outcome'];
/** What a caller supplies for a new attempt; id, attemptedAt (the clock) and sentAt (null) are set here. */
export type NewAttempt = Omit<JournalEntry, 'id' | 'attemptedAt' | 'sentAt'>;
export type JournalPatch = Partial<Omit<JournalEntry, 'id' | 'scope'>>;
export interface PriorQuery {
  reservationId?: string;
  workflowExecutionId?: string | null;
  startTime?: string;
  personEmail?: string;
}
export interface OpenAttemptQuery {
  personEmail: string;
  workflowExecutionId?: string;
  event?: string;
  triggerId?: string;
  answersKey?: string;
  /**
   * Also attempts known to have booked (`already_booked`: a retry showed it; `booked`) whose
   * time is at or after this instant: a re-run must say "already booked" again, not book anew.
   */
  bookedSince?: Date;
}

/** Entries older than this are dropped when one is added: reservations and sessions are long gone. */
export const KEEP_DAYS = 90;
const DAY_MS = 86_400_000;

/** False only for an attempt recorded but not sent (sentAt null); entries from before sentAt count as sent. */
export const wasSent = (e: JournalEntry): boolean => e.sentAt !== null;

export class Journal extends FileStore<JournalFile> {
  async all(): Promise<JournalEntry[]> {
    return (await this.file.read()).entries;
  }

  /** Records a new attempt (not sent yet) and prunes old entries. */
  async add(entry: NewAttempt): Promise<JournalEntry> {
    return (await this.begin(entry)).attempt;
  }

  /**
   * findPrior for this attempt and add, under one lock: two parallel books of the same lead
   * cannot both miss each other's attempt. `earlier`: the prior's booking's other attempts, sent
   * (it was sent again, and lost again, or its sender killed; or another run learnt one's outcome
   * meanwhile): what settles the prior settles those still unknown, and one known to have booked
   * proves the booking.
   */
  async begin(
    entry: NewAttempt,
  ): Promise<{ prior: JournalEntry | undefined; attempt: JournalEntry; earlier: JournalEntry[] }> {
    const attempt: JournalEntry = { id: randomUUID(), ...entry, attemptedAt: this.now().toISOString(), sentAt: null };
    return this.file.update((journal) => {
      const kept = this.kept(journal.entries);
      const prior = findPrior(kept, entry.scope, entry);
      journal.entries = [...kept, attempt];
      return { prior, attempt, earlier: prior ? kept.filter((e) => e !== prior && otherOfSameBooking(prior, e)) : [] };
    });
  }

  /** The request left the machine: from now on a missing answer is a lost response. */
  async markSent(id: string): Promise<JournalEntry | undefined> {
    return this.update(id, { sentAt: this.now().toISOString() });
  }

  async update(id: string, patch: JournalPatch): Promise<JournalEntry | undefined> {
    return this.file.update((journal) => {
      const held = journal.entries.find((e) => e.id === id);
      if (!held) return undefined;
      const updated: JournalEntry = { ...held, ...patch };
      journal.entries[journal.entries.indexOf(held)] = updated;
      return updated;
    });
  }

  async remove(id: string): Promise<boolean> {
    return this.file.update((journal) => {
      const before = journal.entries.length;
      journal.entries = journal.entries.filter((e) => e.id !== id);
      return journal.entries.length < before;
    });
  }

  /**
   * The latest earlier attempt for this reservation or this workflow run: one whose response
   * was lost (also once a retry showed it `already_booked`, so running the command again says
   * so again), or one that booked (so re-running a successful command is idempotent).
   * An `unknown` attempt that was never sent is skipped: it cannot have booked anything.
   */
  async findPrior(scope: string, by: PriorQuery): Promise<JournalEntry | undefined> {
    return findPrior((await this.file.read()).entries, scope, by);
  }

  /**
   * The latest sent attempt still `unknown` for this lead, narrowed by every filter given
   * (run, event or link, trigger, answers): a re-run resolves it (the meeting exists or not)
   * before choosing a time, whatever its flags. With `bookedSince`, an upcoming attempt known
   * to have booked counts too: once a re-run showed a lost attempt `already_booked`, its
   * outcome is forgotten and the meeting (id unknown) is in no record, so without it the
   * next re-run would fire and book again.
   */
  async findOpenAttempt(scope: string, by: OpenAttemptQuery): Promise<JournalEntry | undefined> {
    const since = by.bookedSince?.getTime();
    const open = (e: JournalEntry) =>
      (e.outcome === 'unknown' && wasSent(e)) ||
      (since !== undefined && e.outcome !== 'unknown' && !(Date.parse(e.startTime) < since));
    return (await this.file.read()).entries
      .filter((e) => e.scope === scope && open(e) && sameEmail(e.personEmail, by.personEmail) && matchesGiven(e, by))
      .at(-1);
  }

  /** Every sent attempt in this scope whose outcome is still unknown, oldest first. */
  async listOpen(scope: string): Promise<JournalEntry[]> {
    return (await this.file.read()).entries.filter((e) => e.scope === scope && e.outcome === 'unknown' && wasSent(e));
  }

  /** The booked meeting with this id, when it was booked (or last moved) through schedctl. */
  async findMeeting(scope: string, meetingId: string): Promise<JournalEntry | undefined> {
    return (await this.file.read()).entries.filter((e) => e.scope === scope && e.meetingId === meetingId).at(-1);
  }

  /** This lead's entries in the workspace, oldest first (the ledger's view of its attempts). */
  async ofLead(scope: string, email: string): Promise<JournalEntry[]> {
    return (await this.file.read()).entries.filter((e) => e.scope === scope && sameEmail(e.personEmail, email));
  }

  /** Entries written under a legacy scope move to the workspace (state/identity.ts). */
  async adopt(from: string, to: string): Promise<void> {
    if (!(await this.file.read()).entries.some((e) => e.scope === from)) return;
    await this.file.update((journal) => {
      for (const e of journal.entries) if (e.scope === from) e.scope = to;
    });
  }

  /** Booked entries stay (reschedule needs them); an unreadable date is kept rather than guessed old. */
  private kept(entries: JournalEntry[]): JournalEntry[] {
    const cutoff = this.now().getTime() - KEEP_DAYS * DAY_MS;
    return entries.filter((e) => e.outcome === 'booked' || !(Date.parse(e.updatedAt ?? e.attemptedAt) < cutoff));
  }
}

function findPrior(entries: JournalEntry[], scope: string, by: PriorQuery): JournalEntry | undefined {
  // A booked entry counts only for the very same booking (same time and lead): then a refusal
  // means "this one exists"; another time on a spent reservation is a real error.
  // Any earlier attempt counts only for the same lead: another lead's lost attempt on a shared
  // reservation says nothing about this booking (and must not be taken for it, nor deleted by it).
  // (Without an email, only an attempt whose outcome is open can match: a booked one is a lead's.)
  const sameLead = (e: JournalEntry) =>
    by.personEmail === undefined ? e.outcome !== 'booked' : sameEmail(e.personEmail, by.personEmail);
  const sameBooking = (e: JournalEntry) =>
    sameLead(e) &&
    (e.outcome !== 'booked' || (by.startTime !== undefined && Date.parse(e.startTime) === Date.parse(by.startTime)));
  return entries
    .filter(
      (e) =>
        e.scope === scope &&
        !(e.outcome === 'unknown' && !wasSent(e)) &&
        sameBooking(e) &&
        ((by.reservationId !== undefined && e.reservationId === by.reservationId) ||
          (!!by.workflowExecutionId && e.workflowExecutionId === by.workflowExecutionId)),
    )
    .at(-1);
}

/** `e` is another sent attempt of `prior`'s booking (same lead, reservation or run). */
function otherOfSameBooking(prior: JournalEntry, e: JournalEntry): boolean {
  return (
    e.scope === prior.scope &&
    wasSent(e) &&
    sameEmail(e.personEmail, prior.personEmail) &&
    (e.reservationId === prior.reservationId ||
      (!!prior.workflowExecutionId && e.workflowExecutionId === prior.workflowExecutionId))
  );
}

function matchesGiven(e: JournalEntry, by: OpenAttemptQuery): boolean {
  return (
    (by.workflowExecutionId === undefined || e.workflowExecutionId === by.workflowExecutionId) &&
    (by.event === undefined || e.event === by.event) &&
    (by.triggerId === undefined || e.triggerId === by.triggerId) &&
    (by.answersKey === undefined || e.answersKey === by.answersKey)
  );
}
