import type { BookRequest } from '../api/schemas.js';
import { workspaceOf } from './workspace.js';
import type { Context } from '../context.js';
import { answeredFromLedger, bookSlot, resolvedAsBooked, type BookResult, SlotTakenError } from '../domain/booking.js';
import { formatRange } from '../domain/human-time.js';
import { bookChoice } from './book/start.js';
import { formatInZone } from '../domain/time.js';
import { ApiError } from '../errors.js';
import { nearestSlots } from '../domain/slots.js';
import type { MeetingRecord, State } from '../state/index.js';
import { describeMeeting } from '../ui/meeting-view.js';
import { sanitizeText } from '../ui/sanitize.js';
import { guardLead, leadWaitPrinter } from './lead-guard.js';
import { apiMeeting } from '../documents/meeting.js';
import type { BookingResultDocument } from '../documents/schemas.js';

import type { BookOptions } from './book/options.js';

export { parseBookOptions, type BookOptions } from './book/options.js';

export async function run(ctx: Context, [event = '']: string[], opts: BookOptions): Promise<void> {
  const { request, zone, pickedIn, fetched } = await bookChoice(ctx, event, opts);
  let result: BookOutcome;
  try {
    result = await bookMeeting(ctx, request, zone, Boolean(opts.rebook), {
      // Without --reservation the free times were read for one: no booking went out.
      ...(fetched ? { sent: 'no booking was sent (only the free times were read, for the reservation)' } : {}),
    });
  } catch (error) {
    explainSlotTaken(error, ctx, zone);
    if (error instanceof ApiError && error.code === 'NO_HOST_AVAILABLE')
      throw await explainNoHost(ctx, request, error, zone);
    throw error;
  }
  const ui = await ctx.ui();
  if (result.status !== 'on_record') for (const warning of result.warnings) ui.warn(warning);
  if (ctx.globals.json) return ui.json(bookDocument(result, request));
  if (result.status === 'on_record') {
    const m = result.meeting;
    return ui.print(
      `Already booked: ${m.personEmail} has meeting ${m.id} at ${formatInZone(m.date, zone)} on ${m.event} (booked through schedctl ${formatInZone(m.recordedAt, zone)}); nothing was sent.`,
    );
  }
  if (result.status === 'already_booked') {
    const a = result.attempt;
    const run = a.workflowExecutionId ? `, workflow run ${a.workflowExecutionId}` : '';
    if (result.code === 'ON_RECORD')
      return ui.print(
        `Already booked: the earlier attempt at ${formatInZone(a.attemptedAt, zone)} (reservation ${a.reservationId}${run}) booked the meeting${a.meetingId ? ` ${a.meetingId}` : ''} at ${formatInZone(a.startTime, zone)} for ${a.personEmail} (on record${a.meetingId ? '' : '; its meeting id was never received: move it with schedctl reschedule <meeting-id>, the id from the scheduling app'}); nothing was sent.`,
      );
    return ui.print(
      `Already booked: the earlier attempt at ${formatInZone(a.attemptedAt, zone)} (reservation ${a.reservationId}${run}) did book the meeting${a.meetingId ? ` ${a.meetingId}` : ''} at ${formatInZone(a.startTime, zone)} for ${a.personEmail}; the API answered ${result.code} to this retry, so no second meeting was created.`,
    );
  }
  if (pickedIn) ui.info(`The first free time in "${pickedIn.input}" (${formatRange(pickedIn, zone)}):`);
  ui.print(describeMeeting(result.meeting, zone, 'Booked', request.leadTimezone));
  ui.info(`\nTo move it: schedctl reschedule ${result.meeting.id} --start <time>`);
}

/** What a booking came to: the server's answer, or the lead's meeting already on record (nothing sent). */
export type BookOutcome = BookResult | { status: 'on_record'; meeting: MeetingRecord };

/**
 * The `book --json` document, a booking result (src/documents/schemas.ts): `status` and the
 * Meeting (null when only its booking is known), with what identifies the booking.
 */
export function bookDocument(result: BookOutcome, request: BookRequest): BookingResultDocument {
  const base = { email: request.personEmail, event: request.event };
  if (result.status === 'booked') {
    const m = result.meeting;
    return {
      status: 'booked',
      meeting: apiMeeting(m),
      meetingId: m.id,
      startTime: m.date,
      ...base,
      reservationId: request.reservationId,
      executionId: request.workflowExecutionId ?? null,
      alreadyBookedCode: null,
    };
  }
  if (result.status === 'on_record') {
    const m = result.meeting;
    return {
      status: 'already_booked',
      meeting: apiMeeting(m),
      meetingId: m.id,
      startTime: m.date,
      email: m.personEmail,
      event: m.event,
      reservationId: null,
      executionId: request.workflowExecutionId ?? null,
      alreadyBookedCode: 'ON_RECORD',
    };
  }
  const a = result.attempt;
  return {
    status: 'already_booked',
    meeting: null,
    meetingId: a.meetingId ?? null,
    startTime: a.startTime,
    email: a.personEmail,
    event: a.event,
    reservationId: a.reservationId,
    executionId: a.workflowExecutionId,
    alreadyBookedCode: result.code,
  };
}

/**
 * Books one slot with the lost-response rules (domain/booking.ts), after asking the local record
 * whether this lead already has this meeting. No prompt unless ctx.canPrompt().
 */
export async function bookMeeting(
  ctx: Context,
  request: BookRequest,
  zone: string,
  rebook: boolean,
  o: { noPrompt?: boolean; rebookWord?: string; again?: string; sent?: string } = {},
): Promise<BookOutcome> {
  const target = await ctx.target();
  const state = await ctx.state();
  // The workspace first: on a team state its read carries the schema check, and assertWritable
  // stands on that fresh answer. The attempt is journaled before it is sent: refuse before any
  // request when it cannot be.
  const scope = await workspaceOf(ctx);
  await state.assertWritable();
  // Checking the record and booking run as the only schedctl booking this lead (state/lead-lock.ts):
  // a parallel run for the same lead waits, then finds this one's meeting on record.
  const waiting = leadWaitPrinter(ctx, request.personEmail);
  return state.holdLead(
    { scope, email: request.personEmail },
    async (held) => {
      // A re-run of an earlier attempt (same reservation or run) goes to the server, which knows;
      // otherwise the ledger is asked whether this lead already has a meeting, or an unknown attempt.
      const prior = await state.journal.findPrior(scope, {
        reservationId: request.reservationId,
        workflowExecutionId: request.workflowExecutionId ?? null,
        startTime: request.startTime,
        personEmail: request.personEmail,
      });
      // The identical request, resolved as booked: answered from the ledger, nothing sent.
      const known = resolvedAsBooked(prior, request);
      if (known) return answeredFromLedger(known);
      if (!prior) {
        const verdict = await guardLead(ctx, state, {
          scope,
          email: request.personEmail,
          intent: { kind: 'book', event: request.event, start: new Date(request.startTime) },
          zone,
          rebook,
          again:
            o.again ??
            `schedctl book ${request.event} --start ${request.startTime} --reservation ${request.reservationId} --email ${request.personEmail}`,
          ...(o.rebookWord ? { rebookWord: o.rebookWord } : {}),
          ...(o.noPrompt ? { noPrompt: true } : {}),
          ...(o.sent ? { sent: o.sent } : {}),
        });
        if (verdict.kind === 'repeat') return { status: 'on_record', meeting: verdict.meeting };
        if (verdict.kind === 'repeat_attempt')
          return { status: 'already_booked', code: 'ON_RECORD', attempt: verdict.attempt, warnings: [] };
      }
      const ui = await ctx.ui();
      // It changes something: say where, before it happens.
      if (!ctx.globals.json)
        ui.info(
          `Booking on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}`,
        );
      const api = await ctx.api();
      /**
       * When a run's scheduling session ended, its remembered scheduler outcome (kept by
       * `trigger fire`) is dead: forget it, so firing again needs no --force, and name the trigger.
       */
      const fireAgain = async (executionId: string, email: string): Promise<string | undefined> => {
        const held = await state.outcomes.forgetExecution(scope, executionId);
        return held && `schedctl trigger fire ${held.triggerId} --email ${email} --field ... (the same form responses)`;
      };
      return bookSlot(
        {
          api,
          journal: state.journal,
          meetings: state.meetings,
          outcomes: state.outcomes,
          scope,
          now: () => ctx.clock.now(),
          fireAgain,
          origin: await originOf(state, scope, request.workflowExecutionId),
          assertHeld: () => held.assertHeld(),
          learnEvent: (event, eventId) => state.events.learn(scope, event, eventId),
          learnEventWrite: (event, eventId) => state.events.learnWrite(scope, event, eventId),
        },
        request,
      );
    },
    waiting,
  );
}

/**
 * The trigger and answers of the workflow run a booking names (`book --execution`, after
 * `trigger fire`): kept with the meeting, so that a later `route` of the same lead, trigger and
 * answers finds it as the same booking.
 */
async function originOf(
  state: State,
  scope: string,
  executionId: string | undefined,
): Promise<{ triggerId?: string; answersKey?: string } | undefined> {
  if (!executionId) return undefined;
  const fired =
    (await state.fires.byExecution(scope, executionId)) ?? (await state.outcomes.findExecution(scope, executionId));
  if (!fired) return undefined;
  return { triggerId: fired.triggerId, ...(fired.answersKey ? { answersKey: fired.answersKey } : {}) };
}

/**
 * NO_HOST_AVAILABLE for a start off the event's grid (10:15 where meetings start every 30 min)
 * is not "no host is free": the API answers both alike, so after the refusal (never before: a
 * booking costs one request) the event's increment and the free times near the start are looked
 * up, and an off-grid start is said as what it is, with the nearest free times. Any failure of
 * the look-up leaves the API's answer as it was.
 */
async function explainNoHost(ctx: Context, request: BookRequest, error: ApiError, zone: string): Promise<ApiError> {
  try {
    const api = await ctx.api();
    const target = Date.parse(request.startTime);
    const from = new Date(Math.max(ctx.clock.now().getTime(), target - 7 * 86_400_000));
    const to = new Date(target + 7 * 86_400_000);
    const [detail, fresh] = await Promise.all([
      api.getEvent(request.event),
      api.slots(request.event, {
        start: from.toISOString(),
        end: to.toISOString(),
        reservationId: request.reservationId,
      }),
    ]);
    const step = detail.timeslotIncrement * 60_000;
    const nearest = nearestSlots(fresh.slots, new Date(target), 3);
    const anchor = nearest[0];
    if (anchor === undefined || step <= 0 || (((target - Date.parse(anchor)) % step) + step) % step === 0) return error;
    const times = nearest.map((s) => formatInZone(s, zone)).join(', ');
    return error.withHint(
      `${formatInZone(request.startTime, zone)} is not a start time of ${request.event}: its meetings start every ${detail.timeslotIncrement} min (the nearest free: ${times}); book one with --start ${anchor} --reservation ${request.reservationId}`,
    );
  } catch {
    return error;
  }
}

/** Human mode: list the nearest free times of a SLOT_TAKEN (the error line itself comes from the reporter). */
function explainSlotTaken(error: unknown, ctx: Context, zone: string): void {
  if (ctx.globals.json) return;
  if (!(error instanceof SlotTakenError) || error.nearestSlots.length === 0) return;
  // Slots are server text: sanitized like every other line for a person.
  ctx.io.stderr.write(`${sanitizeText(`Nearest free times (reservation ${error.reservationId} is still usable):`)}\n`);
  for (const s of error.nearestSlots)
    ctx.io.stderr.write(`${sanitizeText(`  ${formatInZone(s, zone)}   --start ${s}`)}\n`);
}
