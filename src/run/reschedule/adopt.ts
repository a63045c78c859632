/**
 * A meeting booked under a lost answer is on record without its id (a retry proved the booking;
 * the API never sent the Meeting back). When a move by id is answered with a Meeting that the
 * evidence ties to that lost attempt (domain/lead-rule.ts `adoptable`: the same lead and event,
 * created during the attempt's flight), the record learns the id: the booking's journal entry
 * gets it, and the meeting is recorded as `recovered` at its booked time, with the event, trigger
 * and answers it was booked with, so the move that follows is its history and the route's re-run
 * finds it. Another meeting of that lead (booked elsewhere) is never adopted.
 */
import type { Meeting } from '../../api/schemas.js';
import { adoptable } from '../../domain/lead-rule.js';
import type { JournalEntry, State } from '../../state/index.js';

/** The lead's booking known to exist whose id was never received, when there is exactly one (else none: which is it?). */
export async function unknownIdBooking(
  state: Pick<State, 'journal'>,
  scope: string,
  email: string,
  now: Date,
): Promise<JournalEntry | undefined> {
  const lost = (await state.journal.ofLead(scope, email)).filter(
    (e) => e.outcome === 'already_booked' && e.meetingId === undefined && e.goneAt === undefined,
  );
  const upcoming = lost.filter((e) => !(Date.parse(e.startTime) < now.getTime()));
  const [only] = upcoming.length ? upcoming : lost;
  return (upcoming.length || lost.length) === 1 ? only : undefined;
}

/**
 * Gives the lead's one unknown-id booking the id of the meeting a move by id was answered with
 * (before that move is recorded). Nothing when the meeting is on record already or the lead has
 * no such booking. Returns the booking adopted.
 */
export async function adoptUnknownId(
  state: Pick<State, 'journal' | 'meetings' | 'events'>,
  scope: string,
  meeting: Meeting,
  now: Date,
  /** The server's clock minus this one's, as heard from the move's answer: createdAt is the server's. */
  skewMs: number,
): Promise<JournalEntry | undefined> {
  if (await state.meetings.get(scope, meeting.id)) return undefined;
  const booking = await unknownIdBooking(state, scope, meeting.personEmail, now);
  if (!booking) return undefined;
  const aliases = await state.events.of(scope, [booking.event]);
  if (!adoptable(meeting, booking, { skewMs, aliases })) return undefined;
  await state.meetings.record({
    scope,
    meeting: { ...meeting, date: booking.startTime },
    source: 'recovered',
    event: booking.event,
    triggerId: booking.triggerId,
    answersKey: booking.answersKey,
  });
  await state.journal.update(booking.id, {
    meetingId: meeting.id,
    eventId: meeting.eventId,
    updatedAt: now.toISOString(),
  });
  return booking;
}
