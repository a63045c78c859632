/**
 * The lead ledger's rule (shared/ledger-rules.md, "Before sending a new booking for a lead"):
 * a lead with an upcoming meeting, or a sent booking attempt whose outcome is unknown, in this
 * workspace is not booked again by any command, event, trigger or answers without rebook. The
 * identical request again is answered from the record (already booked); anything else is
 * refused naming what blocks it. Pure: the callers gather the lead's record (state/ledger.ts)
 * and act on the verdict; every identity comparison goes through state/identity.ts.
 */
import { resolveEventId, sameEvent } from '../state/identity.js';
import type { JournalEntry, MeetingRecord } from '../state/index.js';

/** What the ledger holds for one lead in one workspace, as of now. */
export interface LeadRecord {
  /** Meetings on record, not canceled, starting now or later. */
  meetings: MeetingRecord[];
  /** Sent attempts whose outcome is unknown, oldest first. */
  unknown: JournalEntry[];
  /** Attempts known to have booked, upcoming, whose meeting is in no record (its id may be unknown). */
  bookedUnrecorded: JournalEntry[];
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
  | { kind: 'unknown_attempt'; attempt: JournalEntry };

export interface DecideOptions {
  rebook: boolean;
  /** Event aliases of the workspace (slug or link id → eventId). */
  aliases: Readonly<Record<string, string>>;
}

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
  return { kind: 'send', maybeBooked: [] };
}

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
