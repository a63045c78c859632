/**
 * The routed booking (spec "Routed booking flow"): list triggers, fire, slots, book; four
 * requests on the happy path, one more slots request per "later times" page. Recovery follows
 * the spec's booking errors, and the lost-response rules stay in bookSlot (never a second booking):
 * - SLOT_TAKEN: the reservation stays usable: refresh the page with it and pick again;
 * - NO_HOST_AVAILABLE: pick another time from the same page (no request);
 * - RESERVATION_EXPIRED: a new reservation (slots without reservationId), pick again;
 * - CONFLICT: the scheduling session ended: fire again (asked: it repeats CRM writes and counts
 *   for routing fairness) and restart from the slots step.
 * A remembered scheduler outcome for the same trigger and email is offered for reuse first.
 */
import { leadFields } from '../lead-fields.js';
import type { Meeting, Outcome, Trigger, TriggerFireResult } from '../../api/schemas.js';
import { ApiError, CancelledError, CliError, EXIT } from '../../errors.js';
import { refireHint } from '../../hints.js';
import { answersKey, type JournalEntry, type Outcomes } from '../../state/index.js';
import { answeredFromLedger, bookSlot, type BookRequest, type BookResult } from '../booking.js';
import { fireTrigger, type FireJournal } from '../fire.js';
import { fetchSlots } from '../slots.js';
import { buildResponses, isEmailField } from '../triggers.js';
import type { RouteDeps, RouteGuardResult, RouteLead, RouteLedger } from './deps.js';
import type { GuestDetails, RouteResult, SlotPage } from './types.js';

export type { RouteApi, RouteDeps, RouteGuardResult, RouteLead, RouteLedger, RouteOptions } from './deps.js';

/** Booking attempts per run: each recovery costs requests, and a server refusing forever must not loop. */
export const MAX_BOOK_ATTEMPTS = 6;
/** Re-fires per run: each one starts a workflow run (CRM writes, routing fairness). */
export const MAX_REFIRES = 2;
const DAY_MS = 86_400_000;
/** Refusals of a re-sent attempt that tell nothing about whether it booked: the server did not look at it. */
const NOT_AN_ANSWER = new Set(['RATE_LIMITED', 'INVALID_API_KEY', 'MISSING_SCOPE']);

export async function runRoute(deps: RouteDeps): Promise<RouteResult> {
  // A fire marked sent ahead (below) and not handed to its fire is taken back, however the route ends.
  const taken: { ahead?: FireJournal | undefined } = {};
  try {
    return await routeOnce(deps, taken);
  } finally {
    await taken.ahead?.abandonAhead?.();
  }
}

async function routeOnce(deps: RouteDeps, taken: { ahead?: FireJournal | undefined }): Promise<RouteResult> {
  const { api, asker } = deps;
  const { scope } = deps.options;
  const { triggers } = await api.listTriggers();
  if (triggers.length === 0) {
    throw new CliError('NOT_FOUND', 'this workspace has no API triggers to route with', EXIT.notFound, {
      hint: 'publish a workflow with an API trigger, or check the profile and base URL in use',
    });
  }
  const trigger = await asker.trigger(triggers);
  const email = await asker.email(trigger);
  const formFields = trigger.fields.filter((f) => !isEmailField(f));
  // The answers come first: a remembered outcome belongs to the answers it was fired with.
  const formAnswers = await asker.form(trigger, formFields, email);
  const responses = buildResponses(trigger, { email, fields: formAnswers }, deps.options.inputNames);
  /**
   * WORK_EMAIL_REQUIRED: on a terminal the lead's email is asked again and the run starts over
   * with it, keeping every other answer (no re-typing the form, no second triggers request).
   */
  const withAnotherEmail = async (error: unknown): Promise<RouteResult | undefined> => {
    if (!(error instanceof ApiError) || error.code !== 'WORK_EMAIL_REQUIRED' || !asker.retryEmail) return undefined;
    const next = await asker.retryEmail(trigger, email, error.message);
    if (!next) return undefined;
    return runRoute({
      ...deps,
      api: { ...deps.api, listTriggers: async () => ({ triggers }) },
      asker: { ...asker, trigger: async () => trigger, email: async () => next, form: async () => formAnswers },
    });
  };
  const key = answersKey(responses, {});
  const origin = { triggerId: trigger.id, triggerName: trigger.name, answersKey: key };
  const base = { trigger, email, responses, refires: 0, guests: { guests: [] as string[] } };

  // A lead with nothing on record is fired for: without a question between its reads and its
  // fire, a team state marks the fire sent with those reads (state/fires.ts recordSentAhead),
  // and the fire's own mark then costs no round trip. A mark not followed by its fire is taken back.
  const ahead = deps.options.fireAhead ? deps.ledger.fireJournal?.(trigger, email, key) : undefined;
  const aheadId = ahead?.markAhead?.();
  if (aheadId !== undefined) taken.ahead = ahead;
  // Asked together with the open attempt (one round trip on a team state): the remembered outcome,
  // the fires whose answer was lost and the guard's record of the lead, used below unless
  // resolving an earlier attempt wrote to the ledger first (then asked again).
  let early:
    | { remembered: ReturnType<Outcomes['lookup']>; unanswered: UnansweredAsked | undefined; guard: unknown }
    | undefined = {
    remembered: deps.ledger.outcomes.lookup(scope, trigger.id, email, key),
    unanswered: deps.ledger.unansweredFires?.(trigger, email, aheadId),
    guard: deps.lead?.askGuard?.(email),
  };
  early.remembered.catch(() => {});
  early.unanswered?.catch(() => {});
  // An earlier run of the same lead and answers whose booking answer was lost is resolved first,
  // whatever slot this run asks for: its attempt is sent again as it was. So is one known to
  // have booked (unless rebook): after a lost answer its meeting is in no local record.
  const open = await deps.ledger.journal.findOpenAttempt(scope, {
    personEmail: email,
    triggerId: trigger.id,
    answersKey: key,
    ...(deps.options.rebook ? {} : { bookedSince: deps.options.now() }),
  });
  const resolve = async (attempt: JournalEntry): Promise<RouteResult | undefined> => {
    early = undefined;
    // The same lead and answers, resolved as booked (shared/ledger-rules.md): answered from the ledger, nothing sent.
    if (attempt.outcome !== 'unknown') {
      // Its meeting on record (its id learnt since, by a move): answered with that meeting.
      const held = attempt.meetingId ? await deps.ledger.meetings?.get?.(scope, attempt.meetingId) : undefined;
      if (held && held.goneAt === undefined && held.status !== 'canceled')
        return onRecord(base, held, attempt.workflowExecutionId ?? '');
      return resolvedResult(
        base,
        attempt.workflowExecutionId ?? '',
        answeredFromLedger(attempt),
        attempt.request as BookRequest,
      );
    }
    deps.notify({ type: 'resolving', attempt });
    try {
      const resolved = await bookSlot(
        {
          api,
          journal: deps.ledger.journal,
          meetings: deps.ledger.meetings,
          outcomes: deps.ledger.outcomes,
          scope,
          now: deps.options.now,
          origin,
          suggestOnSlotTaken: false,
          assertHeld: deps.lead?.assertHeld,
          learnEvent: deps.ledger.learnEvent,
          learnEventWrite: deps.ledger.learnEventWrite,
        },
        attempt.request as BookRequest,
      );
      return resolvedResult(base, attempt.workflowExecutionId ?? '', resolved, attempt.request as BookRequest);
    } catch (error) {
      // Refused for another reason (the slot went to someone else, the hold of a run that never
      // booked lapsed): the earlier attempt booked nothing, so this run goes on as a new booking.
      // Not when the server did not look at the booking at all (rate limit, key): that says nothing.
      if (!(error instanceof ApiError) || NOT_AN_ANSWER.has(error.code)) throw error;
      return undefined;
    }
  };
  // Not one the user already booked past (rebook after an unknown outcome): resending it again
  // would only repeat the answer that left it unknown.
  if (
    open?.request &&
    open.outcome !== 'booked' &&
    open.acknowledgedAt === undefined &&
    !(deps.options.rebook && open.lostBy === 'error_answer')
  ) {
    const resolved = await resolve(open);
    if (resolved) return resolved;
  }
  // The ledger's rule: an upcoming meeting or an unknown outcome of this lead, on any event,
  // trigger or answers, is not booked again (the guard refuses or asks); the same booking again
  // is answered from the record.
  const verdict = await deps.lead?.guard?.({ trigger, email, answersKey: key, asked: early?.guard });
  if (verdict?.kind === 'repeat') {
    const held = verdict.meeting;
    return onRecord(base, held, '');
  }
  // Booked, but not on record (the meetings record could not be written): the server says so again.
  const bookedBefore =
    verdict?.kind === 'repeat_attempt' ? verdict.attempt : open?.outcome === 'booked' ? open : undefined;
  if (bookedBefore?.request) {
    const resolved = await resolve(bookedBefore);
    if (resolved) return resolved;
  }

  let fired: { executionId: string; outcome: Outcome | { type: string } };
  let reused = false;
  const remembered = await (early?.remembered ?? deps.ledger.outcomes.lookup(scope, trigger.id, email, key));
  if (remembered.kind === 'match' && (await asker.reuse(remembered.outcome, trigger))) {
    fired = { executionId: remembered.outcome.executionId, outcome: remembered.outcome.outcome };
    reused = true;
    deps.notify({ type: 'reused', remembered: remembered.outcome });
  } else {
    if (remembered.kind === 'different-answers')
      deps.notify({ type: 'answers_changed', previous: remembered.previous });
    if (!(await asker.confirmFire({ trigger, email, responses }))) throw new CancelledError('nothing was fired');
    try {
      const journal = taken.ahead;
      taken.ahead = undefined; // the fire's now: its journal forgets the mark if it never leaves
      fired = await fire(deps, trigger, email, responses, early?.unanswered, journal);
    } catch (error) {
      const again = await withAnotherEmail(error);
      if (again) return again;
      throw error;
    }
  }

  const result: RouteResult = {
    status: 'none',
    trigger,
    email,
    executionId: fired.executionId,
    outcome: fired.outcome,
    responses,
    reused,
    refires: 0,
    meeting: null,
    slot: null,
    reservationId: null,
    guests: { guests: [] },
  };
  const outcome = fired.outcome as Outcome | { type: string };
  if (outcome.type === 'redirect' || outcome.type === 'none') return { ...result, status: outcome.type };
  if (!('schedulingLinkId' in outcome) || outcome.type !== 'scheduler') return { ...result, status: 'other' };

  let linkId = outcome.schedulingLinkId;
  let reservationId: string | undefined;
  const firstWindow = () => {
    const from = deps.options.now();
    return { from, to: new Date(from.getTime() + deps.options.days * DAY_MS) };
  };
  let window = firstWindow();
  let page: SlotPage | undefined;
  let reason: SlotPage['reason'];
  let openDay: Date | undefined;
  const refused = new Set<number>();
  let guests: GuestDetails | undefined;
  let attempts = 0;

  for (;;) {
    if (!page) {
      const fresh = await fetchSlots(api, linkId, { ...window, reservationId });
      reservationId = fresh.reservationId;
      page = {
        linkId,
        reservationId,
        expiresAt: fresh.expiresAt,
        slots: fresh.slots,
        from: window.from,
        to: window.to,
      };
    }
    const earlier = window.from.getTime() > deps.options.now().getTime() + 60_000;
    const shown: SlotPage = {
      ...page,
      slots: page.slots.filter((s) => !refused.has(Date.parse(s))),
      earlier,
      ...(reason ? { reason } : {}),
      ...(openDay ? { openDay } : {}),
    };
    openDay = undefined;
    const answer = await asker.pickSlot(shown);
    if (answer.kind === 'day') {
      const from = new Date(Math.max(deps.options.now().getTime(), answer.day.getTime()));
      window = { from, to: new Date(from.getTime() + deps.options.days * DAY_MS) };
      openDay = answer.day;
      page = undefined;
      reason = undefined;
      continue;
    }
    if (answer.kind === 'later' || answer.kind === 'earlier') {
      // Pages of `days` either way; never before now.
      window =
        answer.kind === 'later'
          ? { from: window.to, to: new Date(window.to.getTime() + deps.options.days * DAY_MS) }
          : {
              from: new Date(
                Math.max(deps.options.now().getTime(), window.from.getTime() - deps.options.days * DAY_MS),
              ),
              to: window.from,
            };
      page = undefined;
      reason = undefined;
      continue;
    }
    const slot = answer.slot;
    guests ??= await asker.guests();
    if (!(await asker.confirmBook({ slot, email, linkId, executionId: result.executionId, guests }))) {
      throw new CancelledError('not booked (the reservation lapses by itself)');
    }
    const request = bookRequest({
      slot,
      reservationId: page.reservationId,
      linkId,
      email,
      executionId: result.executionId,
      guests,
      leadTimezone: deps.options.leadTimezone,
    });
    deps.notify({ type: 'booking', slot });
    attempts += 1;
    const bookHeld = (assertHeld: RouteLead['assertHeld']) =>
      bookSlot(
        {
          api,
          journal: deps.ledger.journal,
          meetings: deps.ledger.meetings,
          scope,
          now: deps.options.now,
          outcomes: deps.ledger.outcomes,
          origin,
          suggestOnSlotTaken: false,
          assertHeld,
          learnEvent: deps.ledger.learnEvent,
          learnEventWrite: deps.ledger.learnEventWrite,
        },
        request,
      );
    try {
      let booked: BookResult;
      const holdLead = deps.lead?.holdLead;
      if (holdLead) {
        // Held from the confirmation: the lead's record read again, the rule asked again.
        const held = await holdLead(email, async (assertHeld): Promise<HeldBooking> => {
          const since = await deps.lead?.guard?.({ trigger, email, answersKey: key });
          if (since && since.kind !== 'go') return since;
          return { kind: 'booked', booked: await bookHeld(assertHeld) };
        });
        if (held.kind === 'repeat') return onRecord(base, held.meeting, result.executionId);
        if (held.kind === 'repeat_attempt') {
          const a = held.attempt;
          return resolvedResult(base, a.workflowExecutionId ?? '', answeredFromLedger(a), a.request as BookRequest);
        }
        booked = held.booked;
      } else booked = await bookHeld(deps.lead?.assertHeld);
      const done = { ...result, guests, slot, reservationId: request.reservationId, warnings: booked.warnings };
      if (booked.status === 'booked')
        return { ...done, status: 'booked', meeting: booked.meeting, slot: booked.meeting.date };
      return { ...done, status: 'already_booked', slot: booked.attempt.startTime, alreadyBookedCode: booked.code };
    } catch (error) {
      if (!(error instanceof ApiError) || attempts >= MAX_BOOK_ATTEMPTS) throw error;
      switch (error.code) {
        case 'WORK_EMAIL_REQUIRED': {
          // The event wants a work email: the run is fired anew for the new email (its own lead).
          const again = await withAnotherEmail(error);
          if (again) return again;
          throw error;
        }
        case 'SLOT_TAKEN':
          deps.notify({ type: 'slot_taken', slot });
          refused.add(Date.parse(slot));
          page = undefined; // same window, same reservation: it stays usable
          reason = 'slot_taken';
          break;
        case 'NO_HOST_AVAILABLE':
          deps.notify({ type: 'no_host', slot });
          refused.add(Date.parse(slot));
          reason = 'no_host';
          break;
        case 'RESERVATION_EXPIRED':
          deps.notify({ type: 'expired' });
          reservationId = undefined;
          window = firstWindow();
          page = undefined;
          reason = 'expired';
          break;
        case 'CONFLICT': {
          deps.notify({ type: 'session_ended', executionId: result.executionId });
          if (result.refires >= MAX_REFIRES || !(await asker.refire(result.executionId, trigger))) {
            throw error.withHint(refireHint(result.executionId));
          }
          await deps.ledger.outcomes.forgetExecution(scope, result.executionId);
          const again = await fire(deps, trigger, email, responses);
          if (again.outcome.type !== 'scheduler' || !('schedulingLinkId' in again.outcome)) {
            // The workflow routed differently this time: report that outcome as the result.
            const status =
              again.outcome.type === 'redirect' || again.outcome.type === 'none' ? again.outcome.type : 'other';
            return { ...result, ...again, responses, refires: result.refires + 1, guests, status };
          }
          Object.assign(result, {
            executionId: again.executionId,
            outcome: again.outcome,
            responses,
            refires: result.refires + 1,
          });
          linkId = again.outcome.schedulingLinkId;
          reservationId = undefined;
          window = firstWindow();
          page = undefined;
          refused.clear();
          reason = 'refired';
          break;
        }
        default:
          throw error;
      }
    }
  }
}

type UnansweredAsked = ReturnType<NonNullable<RouteLedger['unansweredFires']>>;

/** A booking under the wizard's hold: sent, or answered from the record found there. */
type HeldBooking = Exclude<RouteGuardResult, { kind: 'go' }> | { kind: 'booked'; booked: BookResult };

async function fire(
  deps: RouteDeps,
  trigger: Trigger,
  email: string,
  responses: Record<string, string>,
  /** The unanswered fires, when already asked (runRoute). */
  asked?: UnansweredAsked,
  /** The fire's journal, when made already (its fire marked sent ahead: runRoute). */
  journal?: FireJournal,
): Promise<TriggerFireResult> {
  // Not this run's own fire, when marked sent ahead with the lead's reads.
  const own = journal ? await journal.prepare() : undefined;
  const earlier = (await (asked ?? deps.ledger.unansweredFires?.(trigger, email, own))) ?? [];
  if (earlier.length > 0) deps.notify({ type: 'unanswered_fires', trigger, email, fires: earlier });
  deps.notify({ type: 'firing', trigger, email });
  // Stops when its outcome cannot be recorded (nothing is booked), saying the run exists.
  const result = await fireTrigger(
    deps.api,
    trigger,
    { email, responses },
    journal ?? deps.ledger.fireJournal?.(trigger, email, answersKey(responses, {})),
    (fired, along) =>
      deps.ledger.outcomes.remember(
        deps.options.scope,
        trigger.id,
        email,
        { ...fired, firedAt: deps.options.now().toISOString(), answersKey: answersKey(responses, {}) },
        along,
        // With the booking's next write (its attempt): one round trip fewer on a team state. Lost
        // only with this process (killed before it), the re-run says the fire went unanswered.
        { later: true },
      ),
  );
  deps.notify({ type: 'fired', executionId: result.executionId, outcome: result.outcome });
  return result;
}

/** A lead's meeting on record answers the route: nothing fired or booked (ON_RECORD is schedctl's code, not the API's). */
function onRecord(
  base: Pick<RouteResult, 'trigger' | 'email' | 'responses' | 'refires' | 'guests'>,
  meeting: Meeting,
  executionId: string,
): RouteResult {
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
function resolvedResult(
  base: Pick<RouteResult, 'trigger' | 'email' | 'responses' | 'refires' | 'guests'>,
  executionId: string,
  booked: BookResult,
  request: BookRequest,
): RouteResult {
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

function bookRequest(r: {
  slot: string;
  reservationId: string;
  linkId: string;
  email: string;
  executionId: string;
  guests: GuestDetails;
  leadTimezone: string | undefined;
}): BookRequest {
  return {
    startTime: r.slot,
    reservationId: r.reservationId,
    event: r.linkId,
    personEmail: r.email,
    workflowExecutionId: r.executionId,
    ...leadFields({ ...r.guests, leadTimezone: r.leadTimezone }),
  };
}
