/**
 * What the ledger already knows answers the route before anything is fired: an earlier run's
 * booking whose answer was lost is resolved (sent again as it was, never a second booking), and
 * the lead rule (the guard) refuses, asks, or finds the same booking on record.
 */
import type { Meeting } from '../../api/schemas.js';
import { ApiError } from '../../errors.js';
import type { JournalEntry } from '../../state/index.js';
import { answeredFromLedger, bookSlot, type BookRequest, type BookResult } from '../booking.js';
import { bookDepsOf, type ResultBase, type RouteSession } from './session.js';
import type { RouteResult } from './types.js';

/** Refusals of a re-sent attempt that tell nothing about whether it booked: the server did not look at it. */
const NOT_AN_ANSWER = new Set(['RATE_LIMITED', 'INVALID_API_KEY', 'MISSING_SCOPE']);

/**
 * An earlier run of the same lead and answers whose booking answer was lost is resolved first,
 * whatever slot this run asks for: its attempt is sent again as it was. So is one known to
 * have booked (unless rebook; askLeadRule): after a lost answer its meeting is in no local record.
 */
export async function resolveLostAttempt(
  s: RouteSession,
  open: JournalEntry | undefined,
): Promise<RouteResult | undefined> {
  // Not one the user already booked past (rebook after an unknown outcome): resending it again
  // would only repeat the answer that left it unknown.
  if (
    open?.request &&
    open.outcome !== 'booked' &&
    open.acknowledgedAt === undefined &&
    !(s.deps.options.rebook && open.lostBy === 'error_answer')
  ) {
    return resolveAttempt(s, open);
  }
  return undefined;
}

/**
 * The ledger's rule: an upcoming meeting or an unknown outcome of this lead, on any event,
 * trigger or answers, is not booked again (the guard refuses or asks); the same booking again
 * is answered from the record. undefined: go on and fire.
 */
export async function askLeadRule(s: RouteSession, open: JournalEntry | undefined): Promise<RouteResult | undefined> {
  const verdict = await s.deps.lead?.guard?.({
    trigger: s.trigger,
    email: s.email,
    answersKey: s.key,
    asked: s.early?.guard,
  });
  if (verdict?.kind === 'repeat') return onRecord(s.base, verdict.meeting, '');
  // Booked, but not on record (the meetings record could not be written): the server says so again.
  const bookedBefore =
    verdict?.kind === 'repeat_attempt' ? verdict.attempt : open?.outcome === 'booked' ? open : undefined;
  return bookedBefore?.request ? resolveAttempt(s, bookedBefore) : undefined;
}

/** An earlier attempt's outcome: from the ledger when known, else by sending it again. undefined: it booked nothing. */
async function resolveAttempt(s: RouteSession, attempt: JournalEntry): Promise<RouteResult | undefined> {
  // Resolving writes to the ledger: the reads asked early are asked again after it.
  s.early = undefined;
  // The same lead and answers, resolved as booked (shared/ledger-rules.md): answered from the ledger, nothing sent.
  if (attempt.outcome !== 'unknown') return answeredFromRecord(s, attempt);
  s.deps.notify({ type: 'resolving', attempt });
  const request = attempt.request as BookRequest;
  try {
    const resolved = await bookSlot(bookDepsOf(s, s.deps.lead?.assertHeld), request);
    return resolvedResult(s.base, attempt.workflowExecutionId ?? '', resolved, request);
  } catch (error) {
    // Refused for another reason (the slot went to someone else, the hold of a run that never
    // booked lapsed): the earlier attempt booked nothing, so this run goes on as a new booking.
    // Not when the server did not look at the booking at all (rate limit, key): that says nothing.
    if (!(error instanceof ApiError) || NOT_AN_ANSWER.has(error.code)) throw error;
    return undefined;
  }
}

/** An attempt resolved as booked: its meeting on record (its id learnt since, by a move), else the attempt itself. */
async function answeredFromRecord(s: RouteSession, attempt: JournalEntry): Promise<RouteResult> {
  const held = attempt.meetingId
    ? await s.deps.ledger.meetings?.get?.(s.deps.options.scope, attempt.meetingId)
    : undefined;
  if (held && held.goneAt === undefined && held.status !== 'canceled')
    return onRecord(s.base, held, attempt.workflowExecutionId ?? '');
  return fromLedger(s.base, attempt);
}

/** An attempt known to have booked, answered from the ledger: nothing sent. */
export function fromLedger(base: ResultBase, attempt: JournalEntry): RouteResult {
  return resolvedResult(
    base,
    attempt.workflowExecutionId ?? '',
    answeredFromLedger(attempt),
    attempt.request as BookRequest,
  );
}

/** A lead's meeting on record answers the route: nothing fired or booked (ON_RECORD is schedctl's code, not the API's). */
export function onRecord(base: ResultBase, meeting: Meeting, executionId: string): RouteResult {
  return {
    ...base,
    status: 'already_booked',
    executionId,
    outcome: { type: 'scheduler' },
    reused: true,
    meeting,
    slot: meeting.date,
    reservationId: null,
    alreadyBookedCode: 'ON_RECORD',
  };
}

/** The result of re-sending an earlier run's lost booking attempt. */
function resolvedResult(base: ResultBase, executionId: string, booked: BookResult, request: BookRequest): RouteResult {
  const common = {
    ...base,
    executionId,
    outcome: { type: 'scheduler' },
    reused: true,
    reservationId: request.reservationId,
    warnings: booked.warnings,
  };
  if (booked.status === 'booked')
    return { ...common, status: 'booked', meeting: booked.meeting, slot: booked.meeting.date };
  return {
    ...common,
    status: 'already_booked',
    meeting: null,
    slot: booked.attempt.startTime,
    alreadyBookedCode: booked.code,
  };
}
