/**
 * `book --start` in the grammar `reschedule` reads (docs/time.md): one time, or a day or a part
 * of one ("first friday", "tomorrow afternoon"), which books its first free time. Without
 * --reservation the event's free times are fetched first (one slots request, as `schedctl slots`
 * makes), for the reservation the booking needs; with it, a day is looked up on that reservation.
 * Every flag is checked before that request.
 */
import type { BookRequest } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { formatRange, readTime } from '../../domain/human-time.js';
import { fetchSlots } from '../../domain/slots.js';
import { requireFuture, resolveZone } from '../../domain/time.js';
import { CliError, EXIT } from '../../errors.js';
import type { JournalEntry } from '../../state/index.js';
import { workspaceOf } from '../workspace.js';
import { parseBookOptions, type BookOptions } from './options.js';

/** A reservation id of the right form, standing in while the other flags are checked (never sent). */
const STAND_IN_RESERVATION = '00000000-0000-4000-8000-000000000000';
const DAY_MS = 86_400_000;

/** What `book`'s flags ask for: the request to send, and the window its time was picked in (a day named). */
export interface BookChoice {
  request: BookRequest;
  zone: string;
  /** --start named a day or a part of one: the window its first free time was taken from. */
  pickedIn?: { input: string; from: Date; to: Date };
  /** The free times were fetched for the reservation (a request went out before the booking). */
  fetched?: boolean;
}

export async function bookChoice(ctx: Context, event: string, opts: BookOptions): Promise<BookChoice> {
  const now = ctx.clock.now();
  // Without --start, or with one time and a reservation: the booking as it always was.
  if (opts.start === undefined || opts.start.trim() === '') return parseBookOptions(event, opts, now);
  const zone = resolveZone(opts.tz, '--tz');
  const reading = await readTime(opts.start, { zone, now, name: '--start', zoneInput: '--tz', picks: true });
  if (reading.kind === 'instant' && opts.reservation !== undefined) return parseBookOptions(event, opts, now);
  // The window the free times are looked up in: the day (or part) named, from now on; for one
  // time without a reservation, the day from it (the booking then sends that time as given).
  const at = reading.kind === 'instant' ? requireFuture(reading.at, now, '--start', zone) : undefined;
  if (reading.kind === 'range') requireFuture(reading.to, now, '--start', zone);
  const from = reading.kind === 'range' ? new Date(Math.max(reading.from.getTime(), now.getTime())) : at!;
  const to = reading.kind === 'range' ? reading.to : new Date(from.getTime() + DAY_MS);
  // The other flags, checked before any request, with stand-ins for what the slots give.
  const checked = await parseBookOptions(
    event,
    { ...opts, start: (at ?? to).toISOString(), reservation: opts.reservation ?? STAND_IN_RESERVATION },
    now,
  );
  // The same command after a lost answer: its booking is sent again as it was (its reservation,
  // its time), never a new reservation whose booking the lead's rule would refuse.
  const lost =
    opts.reservation === undefined ? await lostBooking(ctx, checked.request, at ?? from, at ?? to) : undefined;
  if (lost)
    return { request: { ...checked.request, reservationId: lost.reservationId, startTime: lost.startTime }, zone };
  const found = await fetchSlots(await ctx.api(), event, { from, to, reservationId: opts.reservation?.trim() });
  const request = { ...checked.request, reservationId: found.reservationId };
  if (at) return { request: { ...request, startTime: at.toISOString() }, zone, fetched: true };
  const first = found.slots[0];
  if (first === undefined)
    throw new CliError(
      'NO_SLOTS',
      `no free times of ${event} in "${opts.start}" (${formatRange({ from, to }, zone)})`,
      EXIT.notFound,
      { hint: `name another day or part of one, or see the free times: schedctl slots ${event}` },
    );
  return {
    request: { ...request, startTime: new Date(first).toISOString() },
    zone,
    pickedIn: { input: opts.start, from, to },
    fetched: true,
  };
}

/** The lead's booking of this event that was sent and never answered, at a time in [from, to]. */
async function lostBooking(
  ctx: Context,
  request: BookRequest,
  from: Date,
  to: Date,
): Promise<JournalEntry | undefined> {
  const [state, scope] = await Promise.all([ctx.state(), workspaceOf(ctx)]);
  const open = await state.journal.findOpenAttempt(scope, { personEmail: request.personEmail, event: request.event });
  const t = open && !open.acknowledgedAt ? Date.parse(open.startTime) : Number.NaN;
  return t >= from.getTime() && t <= to.getTime() ? open : undefined;
}
