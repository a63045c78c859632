/**
 * The lead's rule, as one decision table (docs/ledger.md, "The rule as a table";
 * shared/ledger-rules.md is its summary): what any command may send for a lead, given the
 * lead's record and the request, and what a server's answer may change in that record.
 * Pure: the lead session (run/lead-guard.ts) gathers the record (state/ledger.ts), asks here,
 * and acts on the verdict; every identity comparison goes through state/identity.ts.
 *
 * Bookings: a lead with an upcoming meeting, a meeting the API answered 404 for (not proof that
 * it is gone), or a sent attempt whose outcome is unknown, is not booked again by any command,
 * event, trigger or answers without rebook. The identical request again is answered from the
 * record. Moves: a move whose answer was lost is sent again as it was; a move to the time the
 * record already has sends nothing. An id is adopted only on evidence.
 */
import { eventAliasKey, resolveEventId, sameEvent, sameLead } from '../state/identity.js';
import type { JournalEntry, MeetingRecord } from '../state/schemas.js';

/** What the ledger holds for one lead in one workspace, as of now. */
export interface LeadRecord {
  /** Meetings on record, not canceled, not answered 404, starting now or later. */
  meetings: MeetingRecord[];
  /** Sent attempts whose outcome is unknown, oldest first. */
  unknown: JournalEntry[];
  /** Attempts known to have booked, upcoming, whose meeting is in no record (its id may be unknown). */
  bookedUnrecorded: JournalEntry[];
  /**
   * Upcoming meetings a move was answered 404 NOT_FOUND for: the API does not know them now (a
   * deleted meeting, another account's key, a gateway's mistake). Not proof that the lead is free.
   */
  notFound: NotFoundNote[];
}

/** The record's note of a 404: which meeting, when it was to start, when the API answered 404. */
export interface NotFoundNote {
  id: string;
  date: string;
  goneAt: string;
  event: string;
  scope: string;
}

/** The booking about to be sent. */
export type BookingIntent =
  | { kind: 'book'; event: string; start: Date }
  | { kind: 'route'; triggerId: string; answersKey: string; start: Date | 'first' };

export type Verdict =
  | { kind: 'send'; maybeBooked: JournalEntry[] }
  | { kind: 'repeat'; meeting: MeetingRecord }
  | { kind: 'repeat_attempt'; attempt: JournalEntry }
  | { kind: 'has_meeting'; meeting: MeetingRecord }
  | { kind: 'has_booked_attempt'; attempt: JournalEntry }
  | { kind: 'unknown_attempt'; attempt: JournalEntry }
  | { kind: 'not_found'; note: NotFoundNote };

/** The verdicts that refuse (or, on a terminal, ask). */
export type Refusal = Extract<
  Verdict,
  { kind: 'has_meeting' | 'has_booked_attempt' | 'unknown_attempt' | 'not_found' }
>;

export interface DecideOptions {
  rebook: boolean;
  /** Event aliases of the workspace (slug or link id → eventId). */
  aliases: Readonly<Record<string, string>>;
}

/** Before sending a new booking for a lead: the table's rows, first match wins. */
export function decide(record: LeadRecord, intent: BookingIntent, o: DecideOptions): Verdict {
  // With rebook the user asked for another meeting: send, saying which outcomes are unknown.
  if (o.rebook) return { kind: 'send', maybeBooked: record.unknown };
  const meeting = record.meetings.find((m) => isSameMeeting(m, intent, o.aliases));
  if (meeting) return { kind: 'repeat', meeting };
  const attempt = record.bookedUnrecorded.find((a) => isSameAttempt(a, intent, o.aliases));
  if (attempt) return { kind: 'repeat_attempt', attempt };
  const unknown = record.unknown.at(-1);
  if (unknown) return { kind: 'unknown_attempt', attempt: unknown };
  const held = record.meetings.at(-1);
  if (held) return { kind: 'has_meeting', meeting: held };
  const booked = record.bookedUnrecorded.at(-1);
  if (booked) return { kind: 'has_booked_attempt', attempt: booked };
  // A 404 is what the API says now, not that the meeting is gone: the lead is not freed by it.
  const missing = record.notFound.at(-1);
  if (missing) return { kind: 'not_found', note: missing };
  return { kind: 'send', maybeBooked: [] };
}

export const refuses = (v: Verdict): v is Refusal =>
  v.kind === 'has_meeting' || v.kind === 'has_booked_attempt' || v.kind === 'unknown_attempt' || v.kind === 'not_found';

const sameStart = (iso: string, start: Date | 'first') => start === 'first' || Date.parse(iso) === start.getTime();

/** The identical request: the same event (by identity) at the same time, or the same trigger and answers. */
export function isSameMeeting(m: MeetingRecord, intent: BookingIntent, aliases: Readonly<Record<string, string>>) {
  if (!sameStart(m.date, intent.start)) return false;
  if (intent.kind === 'route') return m.triggerId === intent.triggerId && m.answersKey === intent.answersKey;
  return sameEvent(intent.event, { eventId: m.eventId, typed: m.event }, aliases);
}

function isSameAttempt(a: JournalEntry, intent: BookingIntent, aliases: Readonly<Record<string, string>>) {
  if (!sameStart(a.startTime, intent.start)) return false;
  if (intent.kind === 'route') return a.triggerId === intent.triggerId && a.answersKey === intent.answersKey;
  // The attempt's event by id: kept once booked, else what its spelling resolves to.
  const eventId = a.eventId ?? resolveEventId(a.event, aliases) ?? '';
  return sameEvent(intent.event, { eventId, typed: a.event }, aliases);
}

/** A move sent whose answer was lost (a timeout, a dropped connection): the record keeps it until answered. */
export interface PendingMove {
  to: string;
  sentAt: string;
}

/** The times a move asks for: one named time, or a search's candidates in the order it tries them. */
export type MoveIntent = { kind: 'time'; to: Date } | { kind: 'search'; candidates: readonly string[] };

export type MoveVerdict =
  /** The record has the meeting at that time already, and no move is pending: nothing is sent. */
  | { kind: 'unchanged'; at: string }
  /** The times to send, in order: a pending move first (sent again as it was), then the others. */
  | { kind: 'send'; candidates: string[]; resend?: PendingMove | undefined };

/**
 * Before sending a move: a move whose answer was lost is sent again as it was before any other
 * time of a search (a timeout is not a refusal: the meeting may be there already). A named time
 * is the user's choice and goes as it is. A move to the time on record sends nothing.
 */
export function decideMove(
  record: { date?: string | undefined; pendingMove?: PendingMove | undefined } | undefined,
  intent: MoveIntent,
): MoveVerdict {
  const pending = record?.pendingMove;
  const wanted = intent.kind === 'time' ? [intent.to.toISOString()] : [...intent.candidates];
  const at = (iso: string) => Date.parse(iso);
  if (pending && (intent.kind === 'search' || at(pending.to) === at(wanted[0]!))) {
    return {
      kind: 'send',
      candidates: [pending.to, ...wanted.filter((t) => at(t) !== at(pending.to))],
      resend: pending,
    };
  }
  if (!pending && record?.date !== undefined && at(record.date) === at(wanted[0]!))
    return { kind: 'unchanged', at: record.date };
  return { kind: 'send', candidates: wanted };
}

/** How far two clocks (this machine's and the server's, corrected by the skew heard) may disagree on one instant. */
export const ADOPT_CLOCK_TOLERANCE_MS = 120_000;
/** How long a booking's request can have been in flight before its answer was given up (the longest --timeout we expect). */
export const ADOPT_FLIGHT_MS = 5 * 60_000;

/**
 * Whether a Meeting the API answered (a move by id) is the one a lost booking made, so that the
 * record may adopt its id. Evidence, not email and event alone: the same lead, the same event,
 * and a `createdAt` (the server's clock, brought to this machine's by `skewMs`) within the lost
 * attempt's flight, from its send until its answer was given up. Anything else is another
 * meeting of that lead (booked elsewhere), and is not adopted.
 */
export function adoptable(
  meeting: { personEmail: string; eventId: string; createdAt: string },
  attempt: Pick<JournalEntry, 'personEmail' | 'eventId' | 'event' | 'sentAt' | 'updatedAt'>,
  o: { skewMs: number; aliases: Readonly<Record<string, string>> },
): boolean {
  if (!sameLead(meeting.personEmail, attempt.personEmail)) return false;
  // The attempt's event as the record knows it (its eventId, or an alias a slots answer taught);
  // a link id no answer resolved leaves the clock as the evidence.
  const key = eventAliasKey(attempt.event);
  const eventId = attempt.eventId ?? (Object.hasOwn(o.aliases, key) ? o.aliases[key] : undefined);
  if (eventId !== undefined && eventId !== meeting.eventId) return false;
  const sent = Date.parse(attempt.sentAt ?? '');
  const created = Date.parse(meeting.createdAt) - o.skewMs;
  if (!Number.isFinite(sent) || !Number.isFinite(created)) return false;
  const lost = Math.max(sent, Date.parse(attempt.updatedAt ?? '') || sent);
  return created >= sent - ADOPT_CLOCK_TOLERANCE_MS && created <= lost + ADOPT_FLIGHT_MS + ADOPT_CLOCK_TOLERANCE_MS;
}
