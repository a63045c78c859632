import { workspaceOf } from './workspace.js';
import type { Context } from '../context.js';
import { readTime } from '../domain/human-time.js';
import { requireEmail, requireUuid } from '../domain/inputs.js';
import { formatWithUtc, requireFuture, resolveZone } from '../domain/time.js';
import { ApiError, UsageError } from '../errors.js';
import { BATCH_ONLY_FLAGS, batchFile } from './bulk/batch.js';
import type { State } from '../state/index.js';
import { describeMeeting, meetingLine } from '../ui/meeting-view.js';
import { rescheduleBatch } from './bulk/reschedule-batch.js';
import { findMeetingByEmail } from './reschedule/find.js';
import { meetingToMove, moveMeeting, type MeetingToMove, type MoveOutcome } from './session/move.js';
import { pickTime, shortTime } from './reschedule/pick.js';
import { liveRefused, parseTries, planSearch, readable, type MoveSearch } from './reschedule/search.js';
import { moveDocument } from './reschedule/document.js';

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
  let outcome: MoveOutcome;
  if (request.start) outcome = await moveMeeting(ctx, found, request.start);
  else if (request.range && (request.range.first || !ctx.canPrompt())) {
    // `first …`, or a day or a part of it with no one to pick: the search tries its free times (one PATCH each).
    search = await searchIn(ctx, found, request.range, { zone, tries: request.tries });
    outcome = await moveMeeting(ctx, found, search);
  } else outcome = await pickAndMove(ctx, found, zone, request.range, Boolean(opts.yes));
  const { meeting } = outcome;
  const ui = await ctx.ui();
  const unchanged = outcome.status === 'unchanged';
  // A move result (docs/json-output.md): the Meeting, where it was, and what was tried.
  if (ctx.globals.json) return ui.json(moveDocument(outcome, was, search));
  if (unchanged) ui.info(`meeting ${meeting.id} is already at that time on record: nothing was sent`);
  ui.print(describeMeeting(meeting, zone, unchanged ? 'Unchanged' : 'Rescheduled'));
  // A search whose window already held the meeting keeps it there (its own time is tried first).
  const stayed = unchanged || (was !== undefined && Date.parse(was) === Date.parse(meeting.date));
  const moved = stayed
    ? `no change: it is already at ${shortTime(was ?? meeting.date, zone)} (${zone})${search?.input ? `, in "${search.input}"` : ''}`
    : `from ${shortTime(was ?? meeting.date, zone)} to ${shortTime(meeting.date, zone)} (${zone})`;
  ui.print(
    was
      ? `${meetingLine('was', `${formatWithUtc(was, zone)}, as schedctl last recorded it`)}\n${meetingLine('moved', moved)}`
      : meetingLine('was', '(unknown: not booked or moved through schedctl here)'),
  );
}

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
  return meetingToMove(state, scope, id, { event: request.event, zone: request.zone, known });
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
): Promise<MoveOutcome> {
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
