/**
 * Booking with the spec's lost-response rules. "Never a second booking":
 * - the attempt is journaled before it is sent, and marked sent right before its bytes leave
 *   (api/send-hook.ts); a timeout, dropped connection, 5xx or unreadable answer
 *   (OutcomeUnknownError from the HTTP layer, which never retries a booking) leaves it as
 *   `unknown` and fails with exit 7: it almost certainly booked. An attempt that never left the
 *   machine is forgotten: it cannot have booked anything;
 * - a later booking for that reservation or workflow run that meets CONFLICT,
 *   RESERVATION_USED or RESERVATION_EXPIRED means the meeting exists: `already_booked`;
 * - SLOT_TAKEN keeps the reservation usable: the nearest fresh slots come with the error;
 * - every other refusal gets a hint saying what to change;
 * - a booking the server confirmed is reported even when the local record cannot be written
 *   (disk full, read-only): with a warning saying what was not recorded.
 */
import type { Api } from '../api/endpoints.js';
import type { BookRequest, Meeting } from '../api/schemas.js';
import { ApiError, NetworkError, OutcomeUnknownError, type ErrorDocument } from '../errors.js';
import { hintFor, slotTakenHint, type HintContext } from '../hints.js';
import type { Journal, JournalEntry, Meetings } from '../state/index.js';
import { sameLead } from '../state/identity.js';
import { usedUpWrite } from '../state/outcomes.js';
import { writeTogether, type Write } from '../state/together.js';
import { fetchSlots, nearestSlots } from './slots.js';

export type { BookRequest };

export type BookResult =
  | { status: 'booked'; meeting: Meeting; warnings: string[] }
  | { status: 'already_booked'; code: string; attempt: JournalEntry; warnings: string[] };

export interface BookDeps {
  api: Pick<Api, 'book' | 'slots'>;
  journal: Pick<Journal, 'begin' | 'update' | 'remove' | 'path'> & Partial<Pick<Journal, 'ledger' | 'updateWrite'>>;
  /** The record of meetings booked through schedctl (meetings ls, "not twice by accident"). */
  meetings?: Pick<Meetings, 'record'> & Partial<Pick<Meetings, 'recordWrite' | 'ledger'>>;
  scope: string;
  now: () => Date;
  /** How the lead was routed, kept with the attempt and the meeting (route). */
  origin?: { triggerId?: string | undefined; answersKey?: string | undefined; triggerName?: string | undefined };
  /**
   * The exact `schedctl trigger fire ...` command that started this workflow run, when known
   * (from the remembered outcomes); called once its scheduling session has ended.
   */
  fireAgain?: (workflowExecutionId: string, email: string) => Promise<string | undefined>;
  /**
   * The remembered scheduler outcomes: a workflow run whose meeting is booked is used up,
   * so its outcome is forgotten (a later fire for that lead then needs no confirmation); on a
   * booking, in the step of its records when it keeps them in the journal's ledger (together.ts).
   */
  outcomes?: { forgetExecution(scope: string, executionId: string): Promise<unknown>; readonly ledger?: unknown };
  /**
   * On SLOT_TAKEN, look up the nearest free times (one slots request) for the error's hint.
   * The route wizard turns this off: it refreshes the whole page itself.
   */
  suggestOnSlotTaken?: boolean;
  /**
   * Right before the booking's bytes leave: throws when this run no longer holds the lead's
   * lock (taken over while it waited), so that nothing is sent.
   */
  assertHeld?: (() => void | Promise<void>) | undefined;
  /**
   * When the page offering this time was fetched (epoch ms), for a time the run picked itself: a
   * time another booking holds since is not sent (state/slot-claims.ts, SlotClaimedError).
   */
  claimedSince?: number | undefined;
  /** Learns which eventId the event argument names (the ledger's event aliases). */
  learnEvent?: ((event: string, eventId: string) => Promise<unknown>) | undefined;
  /** learnEvent as a write for the booking's one step (state/together.ts), when the aliases share the journal's ledger. */
  learnEventWrite?: ((event: string, eventId: string) => Write | undefined) | undefined;
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

/**
 * shared/ledger-rules.md: "the identical request, resolved as booked → answer already_booked
 * with that meeting, send nothing". Identical: the same reservation, workflow run (or none), lead
 * and time as the attempt first sent (a move since then changes the meeting, not the request).
 * An attempt whose outcome is still unknown is not resolved: the spec's retry sends it again.
 */
export function resolvedAsBooked(prior: JournalEntry | undefined, request: BookRequest): JournalEntry | undefined {
  if (!prior || prior.outcome === 'unknown') return undefined;
  const sent = typeof prior.request?.startTime === 'string' ? prior.request.startTime : prior.startTime;
  const identical =
    prior.reservationId === request.reservationId &&
    prior.workflowExecutionId === (request.workflowExecutionId ?? null) &&
    sameLead(prior.personEmail, request.personEmail) &&
    Date.parse(sent) === Date.parse(request.startTime);
  return identical ? prior : undefined;
}

/** The answer to a request the ledger holds as booked: `already_booked` from the record, nothing sent. */
export function answeredFromLedger(attempt: JournalEntry): BookResult {
  return { status: 'already_booked', code: 'ON_RECORD', attempt, warnings: [] };
}

export async function bookSlot(deps: BookDeps, request: BookRequest): Promise<BookResult> {
  const { api, journal, scope } = deps;
  const entry = {
    scope,
    event: request.event,
    reservationId: request.reservationId,
    workflowExecutionId: request.workflowExecutionId ?? null,
    personEmail: request.personEmail,
    startTime: request.startTime,
    outcome: 'unknown' as const,
    request: { ...request },
    ...(deps.origin?.triggerId ? { triggerId: deps.origin.triggerId } : {}),
    ...(deps.origin?.answersKey ? { answersKey: deps.origin.answersKey } : {}),
  };
  // The attempt is written, already marked sent, right before the booking's bytes leave, in one
  // step with the look-up of an earlier attempt (under the journal's lock): even if schedctl is
  // killed mid-request, it is on record. Killed before the bytes left, the attempt re-sent by a
  // re-run is answered as the first send would have been: cautious, never a second booking.
  let begun: Awaited<ReturnType<typeof journal.begin>> | undefined;
  // A transport that never reports sending (no beforeSend) gets it written once answered.
  const begin = async (sent: boolean) =>
    (begun ??= await journal.begin(entry, { sent, claimedSince: deps.claimedSince }));
  let sent = false;
  let meeting: Meeting;
  try {
    meeting = await api.book(request, {
      beforeSend: async () => {
        // Both at once (the lock's session and the ledger are two connections on a team state).
        // A lock found lost stops the send all the same: the attempt is then removed below.
        const [held, began] = await Promise.allSettled([deps.assertHeld?.(), begin(true)]);
        if (held.status === 'rejected') throw held.reason;
        if (began.status === 'rejected') throw began.reason;
        sent = true;
      },
    });
  } catch (error) {
    if (error instanceof OutcomeUnknownError && sent && begun) {
      // How it was lost decides what a retry's answer can prove (shared/ledger-rules.md).
      await journal.update(begun.attempt.id, { lostBy: error.lostBy }, begun.attempt).catch(() => undefined);
      throw lostResponse(error, journal.path);
    }
    // Refused, or it never left the machine: this attempt booked nothing.
    if (!(error instanceof ApiError)) {
      if (begun) await journal.remove(begun.attempt.id);
      // No answer in time, but the request never left (the ledger's write was still waiting, say
      // on a stalled team database): say so, not exit 7.
      if (error instanceof OutcomeUnknownError) throw notSentInTime(error);
      throw error;
    }
    const { prior, attempt, earlier } = await begin(false);
    await journal.remove(attempt.id);
    // The booking's other attempts whose outcome is still unknown: settled with the prior.
    const open = earlier.filter((e) => e.outcome === 'unknown');
    if (prior && disproves(error.code, request, prior)) {
      // The run never booked (it would have answered CONFLICT): its unknown attempt booked nothing either.
      if (prior.outcome === 'unknown') await journal.remove(prior.id);
      for (const e of open) if (disproves(error.code, request, e)) await journal.remove(e.id);
    } else if (prior && provesNothing(error.code, prior) && earlier.every((e) => provesNothing(error.code, e))) {
      // An explicit error answer first, then a code a lapsed hold or session gives as well:
      // whether a meeting exists is unknown, and it is never reported as already booked.
      // (Unless another send of that booking had its answer lost, or is known to have booked.)
      throw unresolved(error, prior);
    } else if (prior && (ALREADY_BOOKED_CODES as readonly string[]).includes(error.code)) {
      // A known booking stays `booked` (with its meeting id); a lost one is now known to exist.
      const now = deps.now().toISOString();
      const updated =
        prior.outcome === 'booked'
          ? prior
          : ((await journal.update(prior.id, { outcome: 'already_booked', updatedAt: now })) ?? prior);
      // The same booking sent before and lost: the prior now speaks for it.
      for (const e of open) await journal.remove(e.id);
      if (request.workflowExecutionId) await deps.outcomes?.forgetExecution(scope, request.workflowExecutionId);
      return { status: 'already_booked', code: error.code, attempt: updated, warnings: [] };
    }
    if (error.code === 'SLOT_TAKEN') throw await slotTaken(deps, request, error);
    throw error.withHint(
      hintFor(error.code, { ...(await hintContext(request, deps, error.code)), details: error.details }),
    );
  }
  const { prior, attempt, earlier } = await begin(false);
  // The booking's other attempts whose outcome is still unknown: settled with the prior.
  const open = earlier.filter((e) => e.outcome === 'unknown');
  return {
    status: 'booked',
    meeting,
    warnings: await recordBooked(deps, request, attempt, [...(prior ? [prior] : []), ...open], meeting),
  };
}

/**
 * Spec rule 2: a retry for a workflow run that booked answers CONFLICT or RESERVATION_USED.
 * So for a retry of the same run, RESERVATION_EXPIRED says that the hold lapsed before the run
 * ever booked (a request that died on its way, a 5xx the server did not act on): the more
 * specific rule, over rule 4 (which speaks of a retry without a run). And a reservation that
 * answers SLOT_TAKEN or NO_HOST_AVAILABLE is still usable (spec "Reservation"): unspent.
 * Without a run, RESERVATION_EXPIRED after a lost answer means the meeting exists (rule 4);
 * after an explicit error answer it proves nothing (provesNothing).
 */
function disproves(code: string, request: BookRequest, prior: JournalEntry): boolean {
  const sameRun = !!request.workflowExecutionId && prior.workflowExecutionId === request.workflowExecutionId;
  if (code === 'RESERVATION_EXPIRED') return sameRun;
  // The same reservation still usable (the time went to someone else, or has no host): it was
  // never spent, so the earlier attempt on it booked nothing.
  return (code === 'SLOT_TAKEN' || code === 'NO_HOST_AVAILABLE') && prior.reservationId === request.reservationId;
}

/**
 * shared/ledger-rules.md: after an explicit error answer (5xx), only RESERVATION_USED (the
 * reservation was this client's alone) proves the booking; RESERVATION_EXPIRED and CONFLICT
 * may just mean the hold or the session lapsed. A prior already known to have booked stays so.
 */
function provesNothing(code: string, prior: JournalEntry): boolean {
  return (
    prior.outcome === 'unknown' &&
    prior.lostBy === 'error_answer' &&
    (code === 'RESERVATION_EXPIRED' || code === 'CONFLICT')
  );
}

function unresolved(error: ApiError, prior: JournalEntry): OutcomeUnknownError {
  return new OutcomeUnknownError(
    `the earlier booking of ${prior.personEmail} got an error answer from the server, and this retry ${error.code}: whether it booked a meeting is unknown`,
    {
      hint: `check the host's calendar or ask the lead; if there is no meeting, book again with --rebook (the attempt stays on record until then)`,
      cause: error,
      lostBy: 'error_answer',
    },
  );
}

/**
 * The server confirmed: write it down. A failure here (disk full, read-only directory) must
 * not turn a booked meeting into an error, so it becomes a warning naming what was not kept.
 */
async function recordBooked(
  deps: BookDeps,
  request: BookRequest,
  attempt: JournalEntry,
  /** The prior attempt of this booking, and its other lost ones. */
  before: JournalEntry[],
  meeting: Meeting,
): Promise<string[]> {
  const { journal, scope } = deps;
  const warnings: string[] = [];
  const step = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (error) {
      warnings.push(
        `the meeting is booked, but ${what} could not be recorded (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  };
  const now = deps.now().toISOString();
  const settled = {
    outcome: 'booked' as const,
    meetingId: meeting.id,
    startTime: meeting.date,
    eventId: meeting.eventId,
    updatedAt: now,
  };
  const toRecord = {
    scope,
    meeting,
    source: 'booked' as const,
    event: request.event,
    triggerId: deps.origin?.triggerId,
    triggerName: deps.origin?.triggerName,
    answersKey: deps.origin?.answersKey,
  };
  const executionId = request.workflowExecutionId;
  // An earlier lost attempt never reached the server: had it booked, this one would have been refused.
  const removeBefore = async () => {
    for (const e of before) if (e.outcome !== 'booked') await journal.remove(e.id);
  };
  // Every record in one step (one round trip on a team state), all or nothing, when the stores
  // share the journal's ledger (they do in every command). Lost, the attempt stays sent with its
  // outcome unknown, and a re-run resolves it without booking again.
  const together = togetherWrites(deps, attempt, settled, toRecord, executionId);
  if (together) {
    await step(
      `the meeting in the local record (schedctl meetings ls), its event alias and the journal entry in ${journal.path}`,
      async () => {
        await writeTogether(journal.ledger!, together);
        await removeBefore();
      },
    );
    return warnings;
  }
  // Stores kept apart: a step each. The meeting first, the outcome last: a process killed
  // between two steps leaves the attempt `unknown` (a re-run resolves it) or the meeting on
  // record (a re-run finds it); never a run that is `booked` with no record and no outcome,
  // which a re-run would fire and book again.
  if (deps.meetings) {
    const meetings = deps.meetings;
    await step('the meeting in the local record (schedctl meetings ls)', () => meetings.record(toRecord));
  }
  if (deps.learnEvent) {
    const learn = deps.learnEvent;
    await step('the event alias', () => learn(request.event, meeting.eventId));
  }
  await step(`the journal entry in ${journal.path}`, async () => {
    await journal.update(attempt.id, settled, attempt);
    await removeBefore();
  });
  const outcomes = deps.outcomes;
  if (executionId && outcomes)
    await step('the end of its remembered trigger outcome', () => outcomes.forgetExecution(scope, executionId));
  return warnings;
}

/**
 * A confirmed booking's records as one step's writes (one transaction: they land together, so
 * their order does not matter), or undefined when a store keeps its rows elsewhere or cannot
 * write that way.
 */
function togetherWrites(
  deps: BookDeps,
  attempt: JournalEntry,
  settled: Partial<JournalEntry>,
  toRecord: Parameters<Meetings['record']>[0],
  executionId: string | undefined,
): Array<Write | undefined> | undefined {
  const { journal, meetings, outcomes, learnEvent, learnEventWrite } = deps;
  const ledger = journal.ledger;
  if (!ledger || !journal.updateWrite) return undefined;
  if (meetings && (!meetings.recordWrite || meetings.ledger !== ledger)) return undefined;
  if (learnEvent && !learnEventWrite) return undefined;
  if (outcomes && outcomes.ledger !== ledger) return undefined;
  return [
    meetings?.recordWrite!(toRecord),
    learnEventWrite?.(toRecord.event, toRecord.meeting.eventId),
    // The workflow run's remembered outcome is used up (a row of the same ledger, if any).
    executionId ? { statement: usedUpWrite(toRecord.scope, executionId) } : undefined,
    journal.updateWrite(attempt, settled),
  ];
}

function lostResponse(error: OutcomeUnknownError, journalPath: string | undefined): OutcomeUnknownError {
  const reason = error.message.replace(/; the request may have been processed$/, '');
  // A lost answer (rule 1: "the booking almost always succeeded") or an explicit error answer
  // (an HTML 502 from a proxy did nothing as often as not): only the first is "almost certainly".
  const verdict =
    error.lostBy === 'error_answer'
      ? 'whether it booked is not known, so do not book this lead again until you know'
      : 'it almost certainly succeeded, so do not book this lead again';
  return new OutcomeUnknownError(`the booking's outcome is unknown (${reason}): ${verdict}`, {
    hint: `to check, run the same command again: the reservation is single-use, so it reports "already booked" (exit 0) or books it once, and cannot create a second meeting${journalPath ? `; the attempt is recorded in ${journalPath}` : ''}`,
    cause: error,
    lostBy: error.lostBy,
  });
}

/** A booking that timed out before it left this machine: nothing was sent, and running it again is safe. */
function notSentInTime(error: OutcomeUnknownError): NetworkError {
  const reason = error.message.replace(/; the request may have been processed$/, '');
  return new NetworkError(`${reason}, before the booking left this machine; nothing was sent`, {
    hint: 'run the same command again (with a larger --timeout if this machine or its team state is slow)',
    cause: error,
  });
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
  const hint = slotTakenHint(await hintContext(request, deps), { fetched, nearest });
  return new SlotTakenError(error, nearest, request.reservationId, hint);
}

/** What the hints need; the fire-again command only for CONFLICT (finding it forgets the ended run's outcome). */
async function hintContext(r: BookRequest, deps: BookDeps, code?: string): Promise<HintContext> {
  return {
    operation: 'book',
    event: r.event,
    reservationId: r.reservationId,
    personEmail: r.personEmail,
    workflowExecutionId: r.workflowExecutionId,
    fireAgain:
      code === 'CONFLICT' && r.workflowExecutionId
        ? await deps.fireAgain?.(r.workflowExecutionId, r.personEmail)
        : undefined,
  };
}
