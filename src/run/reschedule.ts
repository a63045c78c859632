import type { Meeting } from '../api/schemas.js';
import { workspaceOf } from './workspace.js';
import { leadWaitPrinter } from './lead-guard.js';
import type { HeldLock } from '../state/index.js';
import type { Context } from '../context.js';
import { formatRange, parseTimeExpression, readTime } from '../domain/human-time.js';
import { NEAREST_SLOTS } from '../domain/booking.js';
import { fetchSlots, nearestSlots } from '../domain/slots.js';
import { requireEmail, requireUuid } from '../domain/inputs.js';
import { formatWithUtc, requireFuture, resolveZone, systemZone } from '../domain/time.js';
import { ApiError, CliError, EXIT, OutcomeUnknownError, UsageError } from '../errors.js';
import { BATCH_ONLY_FLAGS, batchFile } from './bulk/batch.js';
import { hintFor } from '../hints.js';
import type { JournalEntry, State } from '../state/index.js';
import { describeMeeting, meetingLine } from '../ui/meeting-view.js';
import { rescheduleBatch } from './bulk/reschedule-batch.js';
import { findMeetingByEmail } from './reschedule/find.js';
import { learnGone } from './reschedule/gone.js';
import { adoptUnknownId } from './reschedule/adopt.js';
import { pickTime, shortTime } from './reschedule/pick.js';

export interface RescheduleOptions {
  start?: string;
  tz?: string;
  event?: string;
  email?: string;
  file?: string;
  from?: string;
  dryRun?: boolean;
  skipInvalid?: boolean;
  out?: string;
}

export async function run(ctx: Context, [meetingId]: string[], opts: RescheduleOptions): Promise<void> {
  const file = batchFile(opts);
  if (file !== undefined) {
    if (meetingId !== undefined || opts.email !== undefined || opts.start !== undefined) {
      throw new UsageError(
        '--file takes the meetings and times from the file: leave out <meeting-id>, --email and --start',
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
  if (request.range && !request.range.first && !ctx.canPrompt()) {
    // No one to pick in the range: the same refusal as any one-time input (it says how to write it).
    await parseTimeExpression(request.range.input, {
      zone,
      now: ctx.clock.now(),
      name: '--start',
      zoneInput: '--tz',
      picks: true,
    });
  }
  if (!request.start && !request.range && !ctx.canPrompt()) {
    throw new UsageError('missing --start: pass the new start time', {
      hint: `schedctl reschedule ${byId ?? `--email ${email}`} --start <time> (free times: schedctl slots <event>)`,
    });
  }

  const state = await ctx.state();
  const found = await findMeetingToMove(ctx, state, await workspaceOf(ctx), request);
  const { id, was } = found;
  let start = request.start;
  if (!start && request.range?.first) {
    found.event ??= ctx.canPrompt() ? await askEvent(ctx, id) : undefined;
    if (!found.event)
      throw new UsageError(
        `--start "${request.range.input}" needs the meeting's event to find its free times: pass --event`,
        {
          hint: 'or pass one time in --start',
        },
      );
    start = await firstFreeIn(ctx, found.event, request.range, zone);
  }
  if (!start) {
    found.event ??= await askEvent(ctx, id);
    start = await pickTime(
      ctx,
      await ctx.api(),
      { id, event: found.event, was, title: found.known?.title ?? undefined },
      zone,
      request.range,
    );
  }
  const meeting = await moveMeeting(ctx, found, start);
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(meeting);
  ui.print(describeMeeting(meeting, zone, 'Rescheduled'));
  ui.print(
    was
      ? `${meetingLine('was', `${formatWithUtc(was, zone)}, as schedctl last recorded it`)}\n${meetingLine('moved', `from ${shortTime(was, zone)} to ${shortTime(meeting.date, zone)} (${zone})`)}`
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
}

export async function parseRescheduleOptions(
  meetingId: string | undefined,
  opts: Pick<RescheduleOptions, 'start' | 'tz' | 'event' | 'email'>,
  now: Date,
): Promise<RescheduleRequest> {
  const zone = resolveZone(opts.tz, '--tz');
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
  return { byId, email, event: opts.event, start, range, zone };
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
  };
}

/**
 * One PATCH (never repeated: a lost answer is outcome unknown), then the local record follows
 * the move. The PATCH and the record's update run under the meeting's lock: parallel moves of
 * one meeting reach the server one at a time, so the record ends at the server's last answer
 * with its history in order.
 */
export async function moveMeeting(ctx: Context, found: MeetingToMove, start: Date): Promise<Meeting> {
  const state = await ctx.state();
  return state.holdMeeting(
    { scope: found.scope, id: found.id },
    (held) => moveHeld(ctx, found, start, held),
    leadWaitPrinter(ctx, `meeting ${found.id}`),
  );
}

async function moveHeld(ctx: Context, found: MeetingToMove, start: Date, held: HeldLock): Promise<Meeting> {
  const { id, scope, event } = found;
  const [target, state, api] = await Promise.all([ctx.target(), ctx.state(), ctx.api()]);
  // Another run may have moved it while this one waited: its journal entry is read afresh.
  const journaled = await state.journal.findMeeting(scope, id);
  if (!ctx.globals.json)
    (await ctx.ui()).info(
      `Rescheduling on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}`,
    );
  let meeting: Meeting;
  try {
    meeting = await api.reschedule(id, start.toISOString(), { beforeSend: async () => held.assertHeld() });
  } catch (error) {
    if (error instanceof OutcomeUnknownError) {
      const reason = error.message.replace(/; the request may have been processed$/, '');
      throw new OutcomeUnknownError(
        `no answer to the reschedule of meeting ${id} (${reason}): it may already have moved`,
        {
          hint: 'check the meeting (the calendar invite) before trying again; running the same command again is harmless (it moves it to the same time)',
          cause: error,
        },
      );
    }
    if (error instanceof ApiError && error.code === 'NOT_FOUND' && error.status === 404)
      throw await learnGone(
        ctx,
        { scope, id },
        error.withHint(hintFor(error.code, { operation: 'reschedule', event, meetingId: id })),
        found.zone ?? systemZone(),
      );
    if (error instanceof ApiError) {
      const hinted = error.withHint(hintFor(error.code, { operation: 'reschedule', event, meetingId: id }));
      throw error.code === 'CONFLICT' && event ? await withNearestTimes(ctx, hinted, event, id, start) : hinted;
    }
    throw error;
  }
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
 * A CONFLICT (the host is not free then) offers the nearest free times of the meeting's event, as
 * book does after SLOT_TAKEN (one slots request, a week either side); when they cannot be looked
 * up, the error stands as it was.
 */
async function withNearestTimes(ctx: Context, error: ApiError, event: string, id: string, wanted: Date) {
  const now = ctx.clock.now();
  const from = new Date(Math.max(now.getTime(), wanted.getTime() - 7 * DAY_MS));
  const to = new Date(wanted.getTime() + 7 * DAY_MS);
  let nearest: string[];
  try {
    nearest = nearestSlots((await fetchSlots(await ctx.api(), event, { from, to })).slots, wanted, NEAREST_SLOTS);
  } catch {
    return error;
  }
  if (nearest.length === 0) return error;
  return new ApiError({
    ...error.fields(),
    details: [...(error.details ?? []), ...nearest.map((s) => `free: ${s}   --start ${s}`)],
    hint: `move it to one of the nearest free times: schedctl reschedule ${id} --start <time> (more: schedctl slots ${event})`,
  });
}

/** `--start "first tue afternoon"`: the first free time of the event in the range (one slots request). */
async function firstFreeIn(ctx: Context, event: string, range: { input: string; from: Date; to: Date }, zone: string) {
  const now = ctx.clock.now();
  const from = range.from > now ? range.from : now;
  const page = await fetchSlots(await ctx.api(), event, { from, to: range.to });
  const [first] = page.slots;
  if (!first)
    throw new CliError(
      'NO_SLOTS',
      `no free times of ${event} in "${range.input}" (${formatRange({ from, to: range.to }, zone)})`,
      EXIT.notFound,
      {
        hint: `pick another day or part of it, or see the free times: schedctl slots ${event}`,
      },
    );
  return new Date(first);
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
