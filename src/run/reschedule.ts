import type { Meeting } from '../api/schemas.js';
import { workspaceOf } from './workspace.js';
import { leadWaitPrinter } from './lead-guard.js';
import type { HeldLock } from '../state/index.js';
import type { Context } from '../context.js';
import { readTime } from '../domain/human-time.js';
import { NEAREST_SLOTS } from '../domain/booking.js';
import { offerable, type MoveRefusal } from '../domain/move-search.js';
import { fetchSlots, nearestSlots } from '../domain/slots.js';
import { requireEmail, requireUuid } from '../domain/inputs.js';
import { formatWithUtc, requireFuture, resolveZone, systemZone } from '../domain/time.js';
import { ApiError, OutcomeUnknownError, UsageError } from '../errors.js';
import { BATCH_ONLY_FLAGS, batchFile } from './bulk/batch.js';
import { hintFor } from '../hints.js';
import type { JournalEntry, State } from '../state/index.js';
import { describeMeeting, meetingLine } from '../ui/meeting-view.js';
import { rescheduleBatch } from './bulk/reschedule-batch.js';
import { findMeetingByEmail } from './reschedule/find.js';
import { learnGone } from './reschedule/gone.js';
import { adoptUnknownId } from './reschedule/adopt.js';
import { pickTime, shortTime } from './reschedule/pick.js';
import {
  liveRefused,
  noneAccepted,
  parseTries,
  planSearch,
  readable,
  refusalLine,
  serverNow,
  type MoveSearch,
} from './reschedule/search.js';

export interface RescheduleOptions {
  start?: string;
  tz?: string;
  event?: string;
  email?: string;
  /** PATCHes a searched move sends at most (--start naming a day, a part of it or `first`). */
  tries?: string;
  file?: string;
  from?: string;
  dryRun?: boolean;
  skipInvalid?: boolean;
  out?: string;
  /** A time picked on a terminal is moved to without "Move … to …?". */
  yes?: boolean;
}

export async function run(ctx: Context, [meetingId]: string[], opts: RescheduleOptions): Promise<void> {
  const file = batchFile(opts);
  if (file !== undefined) {
    if (meetingId !== undefined || opts.email !== undefined || opts.start !== undefined || opts.tries !== undefined) {
      throw new UsageError(
        '--file takes the meetings and times from the file: leave out <meeting-id>, --email, --start and --tries',
      );
    }
    return rescheduleBatch(ctx, {
      from: file,
      tz: opts.tz,
      dryRun: opts.dryRun,
      skipInvalid: opts.skipInvalid,
      out: opts.out,
    });
  }
  if (opts.dryRun || opts.skipInvalid || opts.out) throw new UsageError(BATCH_ONLY_FLAGS);
  // Every flag first: a typo costs no request.
  const request = await parseRescheduleOptions(meetingId, opts, ctx.clock.now());
  const { zone, byId, email } = request;
  if (opts.tries !== undefined && !request.range)
    throw new UsageError('--tries is for a searched move: pass --start as a day or a part of it ("first fri")');
  if (!request.start && !request.range && !ctx.canPrompt()) {
    throw new UsageError('missing --start: pass the new start time', {
      hint: `schedctl reschedule ${byId ?? `--email ${email}`} --start <time> (free times: schedctl slots <event>)`,
    });
  }

  const state = await ctx.state();
  const found = await findMeetingToMove(ctx, state, await workspaceOf(ctx), request);
  const { was } = found;
  let search: MoveSearch | undefined;
  let meeting: Meeting;
  if (request.start) meeting = await moveMeeting(ctx, found, request.start);
  else if (request.range && (request.range.first || !ctx.canPrompt())) {
    // `first …`, or a day or a part of it with no one to pick: the search tries its free times (one PATCH each).
    search = await searchIn(ctx, found, request.range, { zone, tries: request.tries });
    meeting = await moveMeeting(ctx, found, search);
  } else meeting = await pickAndMove(ctx, found, zone, request.range, Boolean(opts.yes));
  const ui = await ctx.ui();
  // A searched move's --json adds what was tried (docs/json-output.md); a move to one time prints the Meeting.
  if (ctx.globals.json) return ui.json(search ? { ...meeting, tried: search.tried } : meeting);
  ui.print(describeMeeting(meeting, zone, 'Rescheduled'));
  // A search whose window already held the meeting keeps it there (its own time is tried first).
  const stayed = was !== undefined && Date.parse(was) === Date.parse(meeting.date);
  const moved = stayed
    ? `no change: it is already at ${shortTime(was, zone)} (${zone})${search?.input ? `, in "${search.input}"` : ''}`
    : `from ${shortTime(was ?? meeting.date, zone)} to ${shortTime(meeting.date, zone)} (${zone})`;
  ui.print(
    was
      ? `${meetingLine('was', `${formatWithUtc(was, zone)}, as schedctl last recorded it`)}\n${meetingLine('moved', moved)}`
      : meetingLine('was', '(unknown: not booked or moved through schedctl here)'),
  );
}

const DAY_MS = 86_400_000;

/** The flags of one reschedule, checked before any request. */
export interface RescheduleRequest {
  byId: string | undefined;
  email: string | undefined;
  event: string | undefined;
  /** Undefined: picked on a terminal (or the first free time of `range`). */
  start: Date | undefined;
  /** --start named a part of the day: its first free time (`first …`), or picked among its times. */
  range?: { input: string; from: Date; to: Date; first: boolean } | undefined;
  zone: string;
  /** PATCHes a searched move (a `range`) sends at most. */
  tries: number;
}

export async function parseRescheduleOptions(
  meetingId: string | undefined,
  opts: Pick<RescheduleOptions, 'start' | 'tz' | 'event' | 'email' | 'tries'>,
  now: Date,
): Promise<RescheduleRequest> {
  const zone = resolveZone(opts.tz, '--tz');
  const tries = parseTries(opts.tries);
  if (meetingId !== undefined && opts.email !== undefined)
    throw new UsageError('pass either <meeting-id> or --email, not both');
  if (meetingId === undefined && opts.email === undefined) {
    throw new UsageError(
      "missing <meeting-id>: pass the meeting id, or --email <lead> to find the lead's meeting in the local record",
      {
        hint: 'schedctl meetings ls lists the meetings booked or moved through schedctl',
      },
    );
  }
  const byId = meetingId !== undefined ? requireUuid(meetingId, '<meeting-id>', 'meeting') : undefined;
  const email = opts.email !== undefined ? requireEmail(opts.email, '--email') : undefined;
  let start: Date | undefined;
  let range: RescheduleRequest['range'];
  if (opts.start !== undefined) {
    const timeOpts = { zone, now, name: '--start', zoneInput: '--tz', picks: true };
    const reading = await readTime(opts.start, timeOpts);
    if (reading.kind === 'instant') start = requireFuture(reading.at, now, '--start', zone);
    else if (reading.to <= now) requireFuture(reading.to, now, '--start', zone);
    else range = { input: opts.start, from: reading.from, to: reading.to, first: reading.first };
  }
  return { byId, email, event: opts.event, start, range, zone, tries };
}

/** The meeting to move and what the local record knows of it (its time, its event). */
export interface MeetingToMove {
  id: string;
  scope: string;
  known: Awaited<ReturnType<State['meetings']['get']>>;
  journaled: JournalEntry | undefined;
  was: string | undefined;
  event: string | undefined;
  /** The zone the command reads and shows times in. */
  zone?: string | undefined;
  /** Times this meeting's host refused (from the record, then this run's): never offered as free while live. */
  refused: MoveRefusal[];
}

/** By id, or the lead's one upcoming meeting in the local record (several: asked on a terminal, else refused). */
export async function findMeetingToMove(
  ctx: Context,
  state: State,
  scope: string,
  request: RescheduleRequest,
): Promise<MeetingToMove> {
  let known: MeetingToMove['known'];
  let id: string;
  if (request.byId) {
    id = request.byId;
    known = await state.meetings.get(scope, request.byId);
  } else {
    // Checked when parsing: without an id there is an email.
    known = {
      ...(await findMeetingByEmail(ctx, state, scope, {
        email: request.email ?? '',
        event: request.event,
        zone: request.zone,
      })),
      scope,
    };
    id = known.id;
  }
  // Meetings booked before the meetings record existed are still in the journal.
  // The journal's booked entry moves too: re-running the original book command then still reads as the same booking.
  const journaled = await state.journal.findMeeting(scope, id);
  return {
    id,
    scope,
    known,
    journaled,
    was: known?.date ?? journaled?.startTime,
    event: request.event ?? known?.event ?? journaled?.event,
    zone: request.zone,
    refused: [...(known?.refused ?? [])],
  };
}

/**
 * One PATCH (never repeated: a lost answer is outcome unknown), then the local record follows
 * the move. The PATCH and the record's update run under the meeting's lock: parallel moves of
 * one meeting reach the server one at a time, so the record ends at the server's last answer
 * with its history in order. A search (`MoveSearch`) sends one PATCH per candidate until one is
 * accepted: a CONFLICT changes nothing on the server (the spec keeps the meeting's hosts), so
 * the next one is safe to try; each refusal is remembered in the record.
 */
export async function moveMeeting(ctx: Context, found: MeetingToMove, start: Date | MoveSearch): Promise<Meeting> {
  const state = await ctx.state();
  return state.holdMeeting(
    { scope: found.scope, id: found.id },
    (held) => moveHeld(ctx, found, start, held),
    leadWaitPrinter(ctx, `meeting ${found.id}`),
  );
}

async function moveHeld(
  ctx: Context,
  found: MeetingToMove,
  start: Date | MoveSearch,
  held: HeldLock,
): Promise<Meeting> {
  const { id, scope, event } = found;
  const [target, state, api] = await Promise.all([ctx.target(), ctx.state(), ctx.api()]);
  // Another run may have moved it while this one waited: its journal entry is read afresh.
  const journaled = await state.journal.findMeeting(scope, id);
  if (!ctx.globals.json)
    (await ctx.ui()).info(
      `Rescheduling on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}`,
    );
  const search = start instanceof Date ? undefined : start;
  const candidates = search ? search.candidates.slice(0, search.tries) : [(start as Date).toISOString()];
  let meeting: Meeting | undefined;
  for (const at of candidates) {
    try {
      meeting = await api.reschedule(id, at, { beforeSend: async () => held.assertHeld() });
      search?.tried.push({ startTime: at, answer: 'moved' });
      break;
    } catch (error) {
      if (error instanceof OutcomeUnknownError) {
        if (search) search.lost = at;
        const reason = error.message.replace(/; the request may have been processed$/, '');
        throw new OutcomeUnknownError(
          `no answer to the reschedule of meeting ${id} to ${at} (${reason}): it may already have moved`,
          {
            hint: search
              ? `check the meeting (the calendar invite) before trying again; sending the same move again is harmless: schedctl reschedule ${id} --start ${at}`
              : 'check the meeting (the calendar invite) before trying again; running the same command again is harmless (it moves it to the same time)',
            cause: error,
          },
        );
      }
      if (!(error instanceof ApiError)) throw error;
      // The API no longer has the meeting: the record learns it (run/reschedule/gone.ts).
      if (error.code === 'NOT_FOUND' && error.status === 404)
        throw await learnGone(
          ctx,
          { scope, id },
          error.withHint(hintFor(error.code, { operation: 'reschedule', event, meetingId: id })),
          found.zone ?? systemZone(),
        );
      if (error.code === 'CONFLICT') await rememberRefusal(ctx, found, at);
      if (error.code === 'CONFLICT' && search) {
        search.tried.push({ startTime: at, answer: 'CONFLICT' });
        (await ctx.ui()).info(refusalLine(search, at));
        if (search.tried.length < candidates.length) continue;
        throw noneAccepted(error, search, id, event);
      }
      const hinted = error.withHint(hintFor(error.code, { operation: 'reschedule', event, meetingId: id }));
      throw error.code === 'CONFLICT' && event ? await withNearestTimes(ctx, hinted, found, new Date(at)) : hinted;
    }
  }
  if (!meeting) throw new Error('a move ended without a PATCH answered'); // unreachable: candidates is never empty
  try {
    // A meeting on record without its id (booked under a lost answer) learns it from this answer.
    const adopted = journaled ?? (await adoptUnknownId(state, scope, meeting, ctx.clock.now()));
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
  return meeting;
}

/**
 * This meeting's host refused `at`: kept for this run and in the record, with the server's time
 * of the answer (a remembered refusal lapses after REFUSAL_LAPSE_MS). A record that cannot be
 * written loses only the memory, never the move: said once, not failed.
 */
async function rememberRefusal(ctx: Context, found: MeetingToMove, at: string): Promise<void> {
  const refusal = { startTime: at, at: (await serverNow(ctx)).toISOString() };
  found.refused.push(refusal);
  try {
    await (await ctx.state()).meetings.recordRefusal(found.scope, found.id, refusal, await serverNow(ctx));
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

/** The search of a day, a part of it or `first`: the meeting's event is needed to list its free times. */
export async function searchIn(
  ctx: Context,
  found: MeetingToMove,
  range: { input: string; from: Date; to: Date },
  o: { zone: string; tries: number },
): Promise<MoveSearch> {
  found.event ??= ctx.canPrompt() ? await askEvent(ctx, found.id) : undefined;
  if (!found.event)
    throw new UsageError(`--start "${range.input}" needs the meeting's event to find its free times: pass --event`, {
      hint: 'or pass one time in --start',
    });
  return planSearch(
    ctx,
    { event: found.event, was: found.was, history: found.known?.history },
    found.refused,
    range,
    o,
  );
}

/**
 * On a terminal: pick a time, then one PATCH; a refusal (CONFLICT) returns to the picker at that
 * day with the time marked as refused, never to the shell.
 */
async function pickAndMove(
  ctx: Context,
  found: MeetingToMove,
  zone: string,
  range: RescheduleRequest['range'],
  yes: boolean,
): Promise<Meeting> {
  found.event ??= await askEvent(ctx, found.id);
  const m = { id: found.id, event: found.event, was: found.was, title: found.known?.title ?? undefined };
  let openAt: Date | undefined;
  for (;;) {
    const refused = () => liveRefused(ctx, found.refused);
    const chosen = await pickTime(ctx, await ctx.api(), m, zone, openAt ? undefined : range, { refused, openAt, yes });
    const one: MoveSearch = { candidates: [chosen.toISOString()], tries: 1, zone, tried: [] };
    try {
      return await moveMeeting(ctx, found, one);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'CONFLICT') throw error;
      (await ctx.ui()).info(`pick another time: ${readable(chosen.toISOString(), zone)} is marked as refused`);
      openAt = chosen;
    }
  }
}

/** On a terminal, a meeting schedctl has no record of: ask for its event instead of failing. */
async function askEvent(ctx: Context, id: string): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  const answer = await input(
    {
      message: `Event or scheduling link of meeting ${id} (not in the local record), to list free times`,
      validate: (v) => (v.trim() ? true : 'enter an event id or slug'),
    },
    { input: ctx.io.stdin, output: ctx.io.stderr },
  );
  return answer.trim();
}
