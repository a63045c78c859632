/**
 * A meeting's move, journaled as a booking is (docs/ledger.md, "Moves"): under the meeting's lock
 * the record is read afresh and the lead rule (domain/lead-rule.ts `decideMove`) says what to send;
 * each PATCH is marked sent in the record right before its bytes leave, and settled by its answer:
 * - 200: the record follows the move (an unknown id adopted only on evidence: reschedule/adopt.ts);
 * - 409 CONFLICT: a refusal it saw (nothing changed at the server): a search tries the next time;
 * - 404: noted with its date, the lead not freed (reschedule/gone.ts);
 * - no answer: the move stays sent; the re-run sends this same move again before any other time.
 * A move to the time on record sends nothing. Every command that moves a meeting comes here:
 * `reschedule` by id, by email and its search, its bulk rows, and the MCP tool.
 */
import type { Meeting } from '../../api/schemas.js';
import { serverClockOf } from '../../api/server-clock.js';
import type { Context } from '../../context.js';
import { decideMove, type MoveIntent } from '../../domain/lead-rule.js';
import { NEAREST_SLOTS } from '../../domain/booking.js';
import { offerable, type MoveRefusal } from '../../domain/move-search.js';
import { fetchSlots, nearestSlots } from '../../domain/slots.js';
import { systemZone } from '../../domain/time.js';
import { ApiError, OutcomeUnknownError } from '../../errors.js';
import { hintFor } from '../../hints.js';
import type { HeldLock, JournalEntry, MeetingRecord, State } from '../../state/index.js';
import { leadWaitPrinter } from '../lead-guard.js';
import { adoptUnknownId } from '../reschedule/adopt.js';
import { learnGone } from '../reschedule/gone.js';
import { liveRefused, noneAccepted, refusalLine, refusalNow, type MoveSearch } from '../reschedule/search.js';

const DAY_MS = 86_400_000;

/** The meeting to move and what the local record knows of it (its time, its event). */
export interface MeetingToMove {
  id: string;
  scope: string;
  known: MeetingRecord | undefined;
  journaled: JournalEntry | undefined;
  was: string | undefined;
  event: string | undefined;
  /** The zone the command reads and shows times in. */
  zone?: string | undefined;
  /** Times this meeting's host refused (from the record, then this run's): never offered as free while live. */
  refused: MoveRefusal[];
}

/** What a move did: `moved` (a PATCH accepted) or `unchanged` (the record has it at that time: nothing sent). */
export interface MoveOutcome {
  status: 'moved' | 'unchanged';
  meeting: Meeting;
}

/** The meeting as the record holds it, for a move by id (its own event, time and refusals). */
export async function meetingToMove(
  state: Pick<State, 'meetings' | 'journal'>,
  scope: string,
  id: string,
  o: { event?: string | undefined; zone?: string | undefined; known?: MeetingRecord | undefined } = {},
): Promise<MeetingToMove> {
  const known = o.known ?? (await state.meetings.get(scope, id));
  // Meetings booked before the meetings record existed are still in the journal.
  const journaled = await state.journal.findMeeting(scope, id);
  return {
    id,
    scope,
    known,
    journaled,
    was: known?.date ?? journaled?.startTime,
    event: o.event ?? known?.event ?? journaled?.event,
    zone: o.zone,
    refused: [...(known?.refused ?? [])],
  };
}

/**
 * Moves the meeting to `start`, or to the first time a search's host accepts. Under the meeting's
 * lock: parallel moves of one meeting reach the server one at a time, so the record ends at the
 * server's last answer with its history in order.
 */
export async function moveMeeting(
  ctx: Context,
  found: MeetingToMove,
  start: Date | MoveSearch,
  /** A bulk row says nothing of where it moves: its run said so once. */
  o: { quiet?: boolean } = {},
): Promise<MoveOutcome> {
  const state = await ctx.state();
  return state.holdMeeting(
    { scope: found.scope, id: found.id },
    (held) => moveHeld(ctx, found, start, held, o.quiet ?? false),
    leadWaitPrinter(ctx, `meeting ${found.id}`),
  );
}

async function moveHeld(
  ctx: Context,
  found: MeetingToMove,
  start: Date | MoveSearch,
  held: HeldLock,
  quiet: boolean,
): Promise<MoveOutcome> {
  const { id, scope, event } = found;
  const [target, state, api] = await Promise.all([ctx.target(), ctx.state(), ctx.api()]);
  // Another run may have moved it while this one waited: the record is read afresh.
  const [record, journaled] = await Promise.all([state.meetings.get(scope, id), state.journal.findMeeting(scope, id)]);
  const search = start instanceof Date ? undefined : start;
  const intent: MoveIntent = search
    ? { kind: 'search', candidates: search.candidates.slice(0, search.tries) }
    : { kind: 'time', to: start as Date };
  const verdict = decideMove(record, intent);
  const ui = await ctx.ui();
  if (verdict.kind === 'unchanged' && record) {
    return { status: 'unchanged', meeting: meetingOf(record) };
  }
  const candidates = verdict.kind === 'send' ? verdict.candidates : [];
  if (verdict.kind === 'send' && verdict.resend)
    ui.info(
      `an earlier move of meeting ${id} to ${verdict.resend.to} (sent ${verdict.resend.sentAt}) got no answer: sending it again as it was`,
    );
  if (!ctx.globals.json && !quiet)
    ui.info(
      `Rescheduling on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}`,
    );
  let meeting: Meeting | undefined;
  for (const at of candidates) {
    let sent = false;
    try {
      meeting = await api.reschedule(id, at, {
        beforeSend: async () => {
          await held.assertHeld();
          // Marked before the bytes leave: a lost answer leaves the move sent, to be sent again as it was.
          if (record) await state.meetings.markMoveSent(scope, id, { to: at, sentAt: ctx.clock.now().toISOString() });
          sent = true;
        },
      });
      search?.tried.push({ startTime: at, answer: 'moved' });
      break;
    } catch (error) {
      if (error instanceof OutcomeUnknownError && sent) throw lostMove(error, id, at, search);
      // It never left (or was refused without being looked at): the mark, if any, is taken back.
      if (sent && !(error instanceof ApiError)) await state.meetings.markMoveSent(scope, id, undefined).catch(() => {});
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'NOT_FOUND' && error.status === 404)
        throw await learnGone(
          ctx,
          { scope, id },
          error.withHint(hintFor(error.code, { operation: 'reschedule', event, meetingId: id })),
          found.zone ?? systemZone(),
        );
      if (error.code !== 'CONFLICT') {
        if (sent) await state.meetings.markMoveSent(scope, id, undefined).catch(() => {});
        throw error.withHint(hintFor(error.code, { operation: 'reschedule', event, meetingId: id }));
      }
      await rememberRefusal(ctx, found, at);
      if (!search) {
        const hinted = error.withHint(hintFor(error.code, { operation: 'reschedule', event, meetingId: id }));
        throw event ? await withNearestTimes(ctx, hinted, found, new Date(at)) : hinted;
      }
      search.tried.push({ startTime: at, answer: 'CONFLICT' });
      ui.info(refusalLine(search, at));
      if (search.tried.length < candidates.length) continue;
      throw noneAccepted(error, search, id, event);
    }
  }
  if (!meeting) throw new Error('a move ended without a PATCH answered'); // unreachable: candidates is never empty
  await recordMoved(ctx, state, found, meeting, journaled, target.baseUrl);
  return { status: 'moved', meeting };
}

/** The server's Meeting answered: the record follows (a failure here loses the record, never the move). */
async function recordMoved(
  ctx: Context,
  state: State,
  found: MeetingToMove,
  meeting: Meeting,
  journaled: JournalEntry | undefined,
  baseUrl: string,
): Promise<void> {
  const { scope, id } = found;
  try {
    // A meeting on record without its id (booked under a lost answer) learns it, on evidence.
    const skewMs = serverClockOf(ctx).reading(baseUrl).skewMs ?? 0;
    const adopted = journaled ?? (await adoptUnknownId(state, scope, meeting, ctx.clock.now(), skewMs));
    await state.meetings.recordMove(scope, id, meeting, ctx.clock.now());
    if (adopted)
      await state.journal.update(adopted.id, {
        startTime: meeting.date,
        updatedAt: ctx.clock.now().toISOString(),
        goneAt: undefined,
      });
  } catch (error) {
    (await ctx.ui()).warn(
      `the meeting moved, but the local record could not be updated (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

function lostMove(error: OutcomeUnknownError, id: string, at: string, search: MoveSearch | undefined) {
  if (search) search.lost = at;
  const reason = error.message.replace(/; the request may have been processed$/, '');
  return new OutcomeUnknownError(
    `no answer to the reschedule of meeting ${id} to ${at} (${reason}): it may already have moved`,
    {
      hint: `run the same command again: it sends this same move (to ${at}) again before trying any other time, which is harmless; or check the meeting (the calendar invite)`,
      cause: error,
    },
  );
}

/**
 * This meeting's host refused `at`: kept for this run and in the record (it also settles the
 * move's sent mark). A record that cannot be written loses only the memory, never the move.
 */
async function rememberRefusal(ctx: Context, found: MeetingToMove, at: string): Promise<void> {
  // Dated by the refusals' clock: the server's, at most a day ahead of this machine's (a
  // server's Date never makes a refusal last longer: reschedule/search.ts refusalNow).
  const now = await refusalNow(ctx);
  const refusal = { startTime: at, at: now.toISOString() };
  found.refused.push(refusal);
  try {
    await (await ctx.state()).meetings.recordRefusal(found.scope, found.id, refusal, now);
  } catch (error) {
    (await ctx.ui()).warn(
      `the refusal of ${at} was not recorded (${error instanceof Error ? error.message : String(error)}); the next run may offer it again`,
    );
  }
}

/**
 * A CONFLICT to one named time (this meeting's host is not free then) offers the nearest free
 * times of the meeting's event, as book does after SLOT_TAKEN (one slots request, a week either
 * side), labelled for what they are: the event's (all its hosts'), which this meeting's host may
 * not take; never one this host refused. When they cannot be looked up, the error stands as it was.
 */
async function withNearestTimes(ctx: Context, error: ApiError, found: MeetingToMove, wanted: Date) {
  const event = found.event ?? '';
  const now = ctx.clock.now();
  const from = new Date(Math.max(now.getTime(), wanted.getTime() - 7 * DAY_MS));
  const to = new Date(wanted.getTime() + 7 * DAY_MS);
  let nearest: string[];
  try {
    const slots = (await fetchSlots(await ctx.api(), event, { from, to })).slots;
    nearest = nearestSlots(offerable(slots, await liveRefused(ctx, found.refused)), wanted, NEAREST_SLOTS);
  } catch {
    return error;
  }
  if (nearest.length === 0) return error;
  return new ApiError({
    ...error.fields(),
    details: [...(error.details ?? []), ...nearest.map((s) => `free for the event: ${s}   --start ${s}`)],
    hint: `these are the event's free times (all its hosts'); this meeting's host may not take all of them: schedctl reschedule ${found.id} --start <time>, or let schedctl try them in turn: --start "first <day>" (more: schedctl slots ${event})`,
  });
}

/** The API's Meeting out of a record (the record's own fields left out). */
function meetingOf(r: MeetingRecord): Meeting {
  const { id, eventId, title, status, date, duration, meetingLink, conferencingType, location } = r;
  const { personEmail, additionalAttendees, cancellationReason, createdAt, updatedAt } = r;
  return {
    ...{ id, eventId, title, status, date, duration, meetingLink, conferencingType, location },
    ...{ personEmail, additionalAttendees, cancellationReason, createdAt, updatedAt },
  };
}
