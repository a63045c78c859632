/**
 * Booking with the spec's lost-response rules. "Never a second booking":
 * - the attempt is journaled before it is sent; a timeout, dropped connection, 5xx or
 *   unreadable answer (OutcomeUnknownError from the HTTP layer, which never retries a
 *   booking) leaves it as `unknown` and fails with exit 7: it almost certainly booked;
 * - a later booking for that reservation or workflow run that meets CONFLICT,
 *   RESERVATION_USED or RESERVATION_EXPIRED means the meeting exists: `already_booked`;
 * - SLOT_TAKEN keeps the reservation usable: the nearest fresh slots come with the error;
 * - every other refusal gets a hint saying what to change.
 */
import type { Api } from '../api/endpoints.js';
import type { BookRequest, Meeting } from '../api/schemas.js';
import { ApiError, OutcomeUnknownError, type ErrorDocument } from '../errors.js';
import { hintFor, slotTakenHint, type HintContext } from '../hints.js';
import type { Journal, JournalEntry } from './journal.js';
import { fetchSlots, nearestSlots } from './slots.js';

export type { BookRequest };

export type BookResult =
  | { status: 'booked'; meeting: Meeting }
  | { status: 'already_booked'; code: string; attempt: JournalEntry };

export interface BookDeps {
  api: Pick<Api, 'book' | 'slots'>;
  journal: Journal;
  scope: string;
  now: () => Date;
  /**
   * The exact `schedctl trigger fire ...` command that started this workflow run, when known
   * (from the remembered outcomes); called once its scheduling session has ended.
   */
  fireAgain?: (workflowExecutionId: string, email: string) => string | undefined;
  /**
   * The remembered scheduler outcomes: a workflow run whose meeting is booked is used up,
   * so its outcome is forgotten (a later fire for that lead then needs no --force).
   */
  outcomes?: { forgetExecution(scope: string, executionId: string): unknown };
  /**
   * On SLOT_TAKEN, look up the nearest free times (one slots request) for the error's hint.
   * The route wizard turns this off: it refreshes the whole page itself.
   */
  suggestOnSlotTaken?: boolean;
}

/** After a lost response, these answers to a retry mean the first request booked (spec rules 2-4). */
export const ALREADY_BOOKED_CODES = ['CONFLICT', 'RESERVATION_USED', 'RESERVATION_EXPIRED'] as const;
export const NEAREST_SLOTS = 5;
const DAY_MS = 86_400_000;

/** SLOT_TAKEN, with the nearest bookable times under the same (still usable) reservation. */
export class SlotTakenError extends ApiError {
  constructor(
    base: ApiError,
    readonly nearestSlots: string[],
    readonly reservationId: string,
    hint: string,
  ) {
    super({ ...base.fields(), hint });
  }
  override toDocument(): ErrorDocument & { nearestSlots: string[]; reservationId: string } {
    return { ...super.toDocument(), nearestSlots: this.nearestSlots, reservationId: this.reservationId };
  }
}

export async function bookSlot(deps: BookDeps, request: BookRequest): Promise<BookResult> {
  const { api, journal, scope } = deps;
  const prior = journal.findPrior(scope, {
    reservationId: request.reservationId,
    workflowExecutionId: request.workflowExecutionId ?? null,
    startTime: request.startTime,
    personEmail: request.personEmail,
  });
  // Written before sending: even if schedctl is killed mid-request, the attempt is on record.
  const attempt = journal.add({
    scope,
    event: request.event,
    reservationId: request.reservationId,
    workflowExecutionId: request.workflowExecutionId ?? null,
    personEmail: request.personEmail,
    startTime: request.startTime,
    attemptedAt: deps.now().toISOString(),
    outcome: 'unknown',
  });

  let meeting: Meeting;
  try {
    meeting = await api.book(request);
  } catch (error) {
    if (error instanceof OutcomeUnknownError) throw lostResponse(error, journal.path);
    journal.remove(attempt.id);
    if (!(error instanceof ApiError)) throw error;
    if (prior && (ALREADY_BOOKED_CODES as readonly string[]).includes(error.code)) {
      // A known booking stays `booked` (with its meeting id); a lost one is now known to exist.
      const updated =
        prior.outcome === 'booked' ? prior : (journal.update(prior.id, { outcome: 'already_booked', updatedAt: deps.now().toISOString() }) ?? prior);
      if (request.workflowExecutionId) deps.outcomes?.forgetExecution(scope, request.workflowExecutionId);
      return { status: 'already_booked', code: error.code, attempt: updated };
    }
    if (error.code === 'SLOT_TAKEN') throw await slotTaken(deps, request, error);
    throw error.withHint(hintFor(error.code, { ...hintContext(request, deps), details: error.details }));
  }
  journal.update(attempt.id, { outcome: 'booked', meetingId: meeting.id, startTime: meeting.date, updatedAt: deps.now().toISOString() });
  // An earlier lost attempt never reached the server: had it booked, this one would have been refused.
  if (prior && prior.outcome !== 'booked') journal.remove(prior.id);
  if (request.workflowExecutionId) deps.outcomes?.forgetExecution(scope, request.workflowExecutionId);
  return { status: 'booked', meeting };
}

function lostResponse(error: OutcomeUnknownError, journalPath: string | undefined): OutcomeUnknownError {
  const reason = error.message.replace(/; the request may have been processed$/, '');
  return new OutcomeUnknownError(
    `the booking's outcome is unknown (${reason}): it almost certainly succeeded, so do not book this lead again`,
    {
      hint: `to check, run the same command again: the reservation is single-use, so it reports "already booked" (exit 0) and cannot create a second meeting${journalPath ? `; the attempt is recorded in ${journalPath}` : ''}`,
      cause: error,
    },
  );
}

async function slotTaken(deps: BookDeps, request: BookRequest, error: ApiError): Promise<SlotTakenError> {
  const target = new Date(request.startTime);
  const now = deps.now();
  const from = new Date(Math.max(now.getTime(), target.getTime() - 7 * DAY_MS));
  const to = new Date(target.getTime() + 7 * DAY_MS);
  let nearest: string[] = [];
  let fetched = false;
  if (from < to && deps.suggestOnSlotTaken !== false) {
    try {
      const fresh = await fetchSlots(deps.api, request.event, { from, to, reservationId: request.reservationId });
      nearest = nearestSlots(fresh.slots, target, NEAREST_SLOTS);
      fetched = true;
    } catch {
      // The error still stands; the hint says how to look for slots by hand.
    }
  }
  const hint = slotTakenHint(hintContext(request, deps), { fetched, nearest: nearest.length });
  return new SlotTakenError(error, nearest, request.reservationId, hint);
}

function hintContext(r: BookRequest, deps: BookDeps): HintContext {
  return {
    operation: 'book',
    event: r.event,
    reservationId: r.reservationId,
    personEmail: r.personEmail,
    workflowExecutionId: r.workflowExecutionId,
    fireAgain: r.workflowExecutionId ? deps.fireAgain?.(r.workflowExecutionId, r.personEmail) : undefined,
  };
}
