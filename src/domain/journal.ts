/**
 * The lost-response journal: every booking attempt is written down before it is sent,
 * so that after a timeout (the booking almost certainly happened) a later `book` for the
 * same reservation or workflow run can tell "already booked" from a real failure.
 * Booked meetings stay in it too, so `reschedule` knows a meeting's old time and event.
 * It never stores the API key; the file is 0600 in the private config directory.
 */
import { randomUUID } from 'node:crypto';

export type JournalOutcome = 'unknown' | 'booked' | 'already_booked';

export interface JournalEntry {
  id: string;
  /** `${profile ?? 'env'}@${baseUrl}`: attempts against one workspace never match another's. */
  scope: string;
  event: string;
  reservationId: string;
  workflowExecutionId: string | null;
  personEmail: string;
  startTime: string;
  attemptedAt: string;
  outcome: JournalOutcome;
  meetingId?: string;
  /** When the outcome last changed (booked, already_booked, rescheduled). */
  updatedAt?: string;
}

/** Where entries live: a JSON file in production, an array in unit tests. */
export interface JournalStorage {
  read(): JournalEntry[];
  write(entries: JournalEntry[]): void;
  readonly path?: string;
}

/** Entries older than this are dropped on write: reservations and sessions are long gone. */
const KEEP_DAYS = 90;

export class Journal {
  constructor(private readonly storage: JournalStorage) {}

  get path(): string | undefined {
    return this.storage.path;
  }

  all(): JournalEntry[] {
    return this.storage.read();
  }

  add(entry: Omit<JournalEntry, 'id'>): JournalEntry {
    const full: JournalEntry = { id: randomUUID(), ...entry };
    const cutoff = Date.now() - KEEP_DAYS * 86_400_000;
    const kept = this.all().filter((e) => Date.parse(e.updatedAt ?? e.attemptedAt) >= cutoff || e.outcome === 'booked');
    this.storage.write([...kept, full]);
    return full;
  }

  update(id: string, patch: Partial<Omit<JournalEntry, 'id'>>): JournalEntry | undefined {
    let updated: JournalEntry | undefined;
    this.storage.write(this.all().map((e) => (e.id === id ? (updated = { ...e, ...patch }) : e)));
    return updated;
  }

  remove(id: string): void {
    this.storage.write(this.all().filter((e) => e.id !== id));
  }

  /**
   * The latest earlier attempt for this reservation or this workflow run: one whose response
   * was lost (also once a retry showed it `already_booked`, so running the command again says
   * so again), or one that booked (so re-running a successful command is idempotent).
   */
  findPrior(
    scope: string,
    by: { reservationId?: string; workflowExecutionId?: string | null; startTime?: string; personEmail?: string },
  ): JournalEntry | undefined {
    const sameBooking = (e: JournalEntry) =>
      e.outcome !== 'booked' ||
      (by.startTime !== undefined && Date.parse(e.startTime) === Date.parse(by.startTime) && e.personEmail.toLowerCase() === (by.personEmail ?? '').toLowerCase());
    return this.all()
      .filter(
        (e) =>
          e.scope === scope &&
          // A booked entry counts only for the very same booking (same time and lead): then a
          // refusal means "this one exists"; another time on a spent reservation is a real error.
          sameBooking(e) &&
          ((by.reservationId !== undefined && e.reservationId === by.reservationId) ||
            (!!by.workflowExecutionId && e.workflowExecutionId === by.workflowExecutionId)),
      )
      .at(-1);
  }

  /** The booked meeting with this id, when it was booked (or last moved) through schedctl. */
  findMeeting(scope: string, meetingId: string): JournalEntry | undefined {
    return this.all()
      .filter((e) => e.scope === scope && e.meetingId === meetingId)
      .at(-1);
  }
}

export function memoryJournal(initial: JournalEntry[] = []): Journal {
  let entries = [...initial];
  return new Journal({ read: () => entries.map((e) => ({ ...e })), write: (next) => (entries = next.map((e) => ({ ...e }))) });
}

/** The journal file beside the key store (`journal.json`, 0600). */
export async function openJournal(dir: string): Promise<Journal> {
  const { openJsonStore } = await import('../config/store.js');
  const conf = openJsonStore<{ entries: JournalEntry[] }>(dir, 'journal', { entries: [] });
  return new Journal({
    read: () => conf.get('entries') ?? [],
    write: (entries) => conf.set('entries', entries),
    path: conf.path,
  });
}
