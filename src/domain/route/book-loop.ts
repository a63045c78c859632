/**
 * The route's slots and booking: pages of free times are shown (picking.ts), a picked time is
 * booked, and a refused booking is recovered from as the spec's booking errors say (recover.ts).
 * The lost-response rules stay in bookSlot (never a second booking).
 */
import { ApiError, CancelledError } from '../../errors.js';
import { SlotClaimedError } from '../../state/slot-claims.js';
import { bookSlot, type BookRequest, type BookResult } from '../booking.js';
import { leadFields } from '../lead-fields.js';
import type { RouteGuardResult } from './deps.js';
import { currentPage, firstWindow, type Picking, shownPage, turnPage } from './picking.js';
import { RECOVERIES } from './recover.js';
import { fromLedger, onRecord } from './resolve.js';
import { bookDepsOf, type RouteSession } from './session.js';
import type { GuestDetails, RouteResult, SlotPage } from './types.js';

/** Booking attempts per run: each recovery costs requests, and a server refusing forever must not loop. */
export const MAX_BOOK_ATTEMPTS = 6;

/** Picks a time and books it until booked, answered from the record, or given up. */
export async function pickAndBook(s: RouteSession, result: RouteResult, linkId: string): Promise<RouteResult> {
  const p: Picking = {
    result,
    linkId,
    reservationId: undefined,
    window: firstWindow(s),
    page: undefined,
    pageAt: 0,
    reason: undefined,
    openDay: undefined,
    refused: new Set(),
    guests: undefined,
    attempts: 0,
  };
  for (;;) {
    const page = await currentPage(s, p);
    const answer = await s.deps.asker.pickSlot(shownPage(s, p, page));
    if (answer.kind !== 'slot') {
      turnPage(s, p, answer);
      continue;
    }
    const done = await bookPicked(s, p, page, answer.slot, answer.auto === true);
    if (done) return done;
  }
}

/** The picked time, confirmed and booked. undefined: refused and recovered from, pick again. */
async function bookPicked(
  s: RouteSession,
  p: Picking,
  page: SlotPage,
  slot: string,
  auto: boolean,
): Promise<RouteResult | undefined> {
  const { deps, email } = s;
  const guests = (p.guests ??= await deps.asker.guests());
  const { executionId } = p.result;
  if (!(await deps.asker.confirmBook({ slot, email, linkId: p.linkId, executionId, guests }))) {
    throw new CancelledError('not booked (the reservation lapses by itself)');
  }
  const request = bookRequest(s, { slot, reservationId: page.reservationId, linkId: p.linkId, executionId, guests });
  deps.notify({ type: 'booking', slot });
  p.attempts += 1;
  try {
    return await booked(s, p, request, guests, auto ? p.pageAt : undefined);
  } catch (error) {
    if (error instanceof SlotClaimedError) {
      // Nothing was sent: another time from the same page, no request, not an attempt.
      p.attempts -= 1;
      s.deps.notify({ type: 'slot_claimed', slot });
      p.refused.add(Date.parse(slot));
      return undefined;
    }
    if (!(error instanceof ApiError) || p.attempts >= MAX_BOOK_ATTEMPTS) throw error;
    const recover = RECOVERIES.get(error.code);
    if (!recover) throw error;
    return recover(s, p, { error, slot, guests });
  }
}

/** The booking's result: booked, already booked (a lost answer's), or the meeting found under the hold. */
async function booked(
  s: RouteSession,
  p: Picking,
  request: BookRequest,
  guests: GuestDetails,
  claimedSince: number | undefined,
): Promise<RouteResult> {
  const sent = await sendBooking(s, request, claimedSince);
  if (sent.kind === 'repeat') return onRecord(s.base, sent.meeting, p.result.executionId);
  if (sent.kind === 'repeat_attempt') return fromLedger(s.base, sent.attempt);
  const { booked } = sent;
  const done = {
    ...p.result,
    guests,
    slot: request.startTime,
    reservationId: request.reservationId,
    warnings: booked.warnings,
  };
  if (booked.status === 'booked')
    return { ...done, status: 'booked', meeting: booked.meeting, slot: booked.meeting.date };
  return { ...done, status: 'already_booked', slot: booked.attempt.startTime, alreadyBookedCode: booked.code };
}

/** A booking under the wizard's hold: sent, or answered from the record found there. */
type HeldBooking = Exclude<RouteGuardResult, { kind: 'go' }> | { kind: 'booked'; booked: BookResult };

async function sendBooking(
  s: RouteSession,
  request: BookRequest,
  claimedSince: number | undefined,
): Promise<HeldBooking> {
  const { lead } = s.deps;
  const send = async (assertHeld: (() => void | Promise<void>) | undefined): Promise<HeldBooking> => ({
    kind: 'booked',
    booked: await bookSlot(bookDepsOf(s, assertHeld, claimedSince), request),
  });
  const holdLead = lead?.holdLead;
  if (!holdLead) return send(lead?.assertHeld);
  // Held from the confirmation: the lead's record read again, the rule asked again.
  return holdLead(s.email, async (assertHeld): Promise<HeldBooking> => {
    const since = await lead?.guard?.({ trigger: s.trigger, email: s.email, answersKey: s.key });
    if (since && since.kind !== 'go') return since;
    return send(assertHeld);
  });
}

function bookRequest(
  s: RouteSession,
  r: { slot: string; reservationId: string; linkId: string; executionId: string; guests: GuestDetails },
): BookRequest {
  return {
    startTime: r.slot,
    reservationId: r.reservationId,
    event: r.linkId,
    personEmail: s.email,
    workflowExecutionId: r.executionId,
    ...leadFields({ ...r.guests, leadTimezone: s.deps.options.leadTimezone }),
  };
}
