/**
 * The route's slots and booking: pages of free times are shown, a picked time is booked, and a
 * refused booking is recovered from as the spec's booking errors say (RECOVERIES). The
 * lost-response rules stay in bookSlot (never a second booking).
 */
import { ApiError, CancelledError } from '../../errors.js';
import { refireHint } from '../../hints.js';
import { bookSlot, type BookRequest, type BookResult } from '../booking.js';
import { leadFields } from '../lead-fields.js';
import { fetchSlots } from '../slots.js';
import type { RouteGuardResult } from './deps.js';
import { fire } from './reuse-or-fire.js';
import { fromLedger, onRecord } from './resolve.js';
import { bookDepsOf, type RouteSession } from './session.js';
import type { GuestDetails, RouteResult, SlotAnswer, SlotPage } from './types.js';

/** Booking attempts per run: each recovery costs requests, and a server refusing forever must not loop. */
export const MAX_BOOK_ATTEMPTS = 6;
/** Re-fires per run: each one starts a workflow run (CRM writes, routing fairness). */
export const MAX_REFIRES = 2;
const DAY_MS = 86_400_000;

/** Where the picking stands: the page shown, the times refused, the workflow run booked for. */
interface Picking {
  /** The route's result so far (its workflow run changes with a re-fire). */
  result: RouteResult;
  linkId: string;
  reservationId: string | undefined;
  window: { from: Date; to: Date };
  /** undefined: the next page is asked for (one slots request). */
  page: SlotPage | undefined;
  reason: SlotPage['reason'];
  openDay: Date | undefined;
  refused: Set<number>;
  guests: GuestDetails | undefined;
  attempts: number;
}

/** Picks a time and books it until booked, answered from the record, or given up. */
export async function pickAndBook(s: RouteSession, result: RouteResult, linkId: string): Promise<RouteResult> {
  const p: Picking = {
    result,
    linkId,
    reservationId: undefined,
    window: firstWindow(s),
    page: undefined,
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
    const done = await bookPicked(s, p, page, answer.slot);
    if (done) return done;
  }
}

function firstWindow(s: RouteSession): { from: Date; to: Date } {
  const from = s.deps.options.now();
  return { from, to: new Date(from.getTime() + s.deps.options.days * DAY_MS) };
}

async function currentPage(s: RouteSession, p: Picking): Promise<SlotPage> {
  if (!p.page) {
    const fresh = await fetchSlots(s.deps.api, p.linkId, { ...p.window, reservationId: p.reservationId });
    p.reservationId = fresh.reservationId;
    p.page = {
      linkId: p.linkId,
      reservationId: p.reservationId,
      expiresAt: fresh.expiresAt,
      slots: fresh.slots,
      from: p.window.from,
      to: p.window.to,
    };
  }
  return p.page;
}

/** The page as the asker sees it: without the times refused, with why it is shown again. */
function shownPage(s: RouteSession, p: Picking, page: SlotPage): SlotPage {
  const earlier = p.window.from.getTime() > s.deps.options.now().getTime() + 60_000;
  const shown: SlotPage = {
    ...page,
    slots: page.slots.filter((slot) => !p.refused.has(Date.parse(slot))),
    earlier,
    ...(p.reason ? { reason: p.reason } : {}),
    ...(p.openDay ? { openDay: p.openDay } : {}),
  };
  p.openDay = undefined;
  return shown;
}

/** Another page: from a day typed in, or `days` later or earlier; never before now. */
function turnPage(s: RouteSession, p: Picking, answer: Exclude<SlotAnswer, { kind: 'slot' }>): void {
  const { now, days } = s.deps.options;
  if (answer.kind === 'day') {
    const from = new Date(Math.max(now().getTime(), answer.day.getTime()));
    p.window = { from, to: new Date(from.getTime() + days * DAY_MS) };
    p.openDay = answer.day;
  } else {
    const { window } = p;
    p.window =
      answer.kind === 'later'
        ? { from: window.to, to: new Date(window.to.getTime() + days * DAY_MS) }
        : { from: new Date(Math.max(now().getTime(), window.from.getTime() - days * DAY_MS)), to: window.from };
  }
  p.page = undefined;
  p.reason = undefined;
}

/** The picked time, confirmed and booked. undefined: refused and recovered from, pick again. */
async function bookPicked(s: RouteSession, p: Picking, page: SlotPage, slot: string): Promise<RouteResult | undefined> {
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
    return await booked(s, p, request, guests);
  } catch (error) {
    if (!(error instanceof ApiError) || p.attempts >= MAX_BOOK_ATTEMPTS) throw error;
    const recover = RECOVERIES.get(error.code);
    if (!recover) throw error;
    return recover(s, p, { error, slot, guests });
  }
}

/** The booking's result: booked, already booked (a lost answer's), or the meeting found under the hold. */
async function booked(s: RouteSession, p: Picking, request: BookRequest, guests: GuestDetails): Promise<RouteResult> {
  const sent = await sendBooking(s, request);
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

async function sendBooking(s: RouteSession, request: BookRequest): Promise<HeldBooking> {
  const { lead } = s.deps;
  const send = async (assertHeld: (() => void | Promise<void>) | undefined): Promise<HeldBooking> => ({
    kind: 'booked',
    booked: await bookSlot(bookDepsOf(s, assertHeld), request),
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

/** A refused booking's recovery: undefined = pick again (the picking changed), or the route's result. */
type Recovery = (
  s: RouteSession,
  p: Picking,
  refused: { error: ApiError; slot: string; guests: GuestDetails },
) => Promise<RouteResult | undefined> | undefined;

/** The spec's booking errors the route recovers from; any other refusal stands. */
const RECOVERIES = new Map<string, Recovery>([
  // The event wants a work email: the run is fired anew for the new email (its own lead).
  [
    'WORK_EMAIL_REQUIRED',
    async (s, _p, { error }) => {
      const again = await s.withAnotherEmail(error);
      if (again) return again;
      throw error;
    },
  ],
  // The reservation stays usable: the same window is asked again with it, and picked again.
  [
    'SLOT_TAKEN',
    (s, p, { slot }) => {
      s.deps.notify({ type: 'slot_taken', slot });
      p.refused.add(Date.parse(slot));
      p.page = undefined; // same window, same reservation: it stays usable
      p.reason = 'slot_taken';
      return undefined;
    },
  ],
  // Another time from the same page (no request).
  [
    'NO_HOST_AVAILABLE',
    (s, p, { slot }) => {
      s.deps.notify({ type: 'no_host', slot });
      p.refused.add(Date.parse(slot));
      p.reason = 'no_host';
      return undefined;
    },
  ],
  // A new reservation (slots without reservationId), from the first page.
  [
    'RESERVATION_EXPIRED',
    (s, p) => {
      s.deps.notify({ type: 'expired' });
      p.reservationId = undefined;
      p.window = firstWindow(s);
      p.page = undefined;
      p.reason = 'expired';
      return undefined;
    },
  ],
  ['CONFLICT', refireForEndedSession],
]);

/**
 * CONFLICT: the scheduling session ended: fire again (asked: it repeats CRM writes and counts for
 * routing fairness) and restart from the slots step.
 */
async function refireForEndedSession(
  s: RouteSession,
  p: Picking,
  { error, guests }: { error: ApiError; guests: GuestDetails },
): Promise<RouteResult | undefined> {
  const { deps, trigger, email, responses } = s;
  const { result } = p;
  deps.notify({ type: 'session_ended', executionId: result.executionId });
  if (result.refires >= MAX_REFIRES || !(await deps.asker.refire(result.executionId, trigger))) {
    throw error.withHint(refireHint(result.executionId));
  }
  await deps.ledger.outcomes.forgetExecution(deps.options.scope, result.executionId);
  const again = await fire(deps, trigger, email, responses);
  if (again.outcome.type !== 'scheduler' || !('schedulingLinkId' in again.outcome)) {
    // The workflow routed differently this time: report that outcome as the result.
    const status = again.outcome.type === 'redirect' || again.outcome.type === 'none' ? again.outcome.type : 'other';
    return { ...result, ...again, responses, refires: result.refires + 1, guests, status };
  }
  Object.assign(result, {
    executionId: again.executionId,
    outcome: again.outcome,
    responses,
    refires: result.refires + 1,
  });
  p.linkId = again.outcome.schedulingLinkId;
  p.reservationId = undefined;
  p.window = firstWindow(s);
  p.page = undefined;
  p.refused.clear();
  p.reason = 'refired';
  return undefined;
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
