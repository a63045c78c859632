import type { Meeting } from '../api/schemas.js';
import { workspaceOf } from './workspace.js';
import { leadWaitPrinter } from './lead-guard.js';
import type { HeldLock } from '../state/index.js';
import type { Context } from '../context.js';
import { parseTimeExpression } from '../domain/human-time.js';
import { requireEmail, requireUuid } from '../domain/inputs.js';
import { formatInZone, formatUtc, requireFuture, resolveZone } from '../domain/time.js';
import { ApiError, OutcomeUnknownError, UsageError } from '../errors.js';
import { BATCH_ONLY_FLAGS } from './bulk/batch.js';
import { hintFor } from '../hints.js';
import type { JournalEntry, State } from '../state/index.js';
import { describeMeeting } from '../ui/meeting-view.js';
import { rescheduleBatch } from './bulk/reschedule-batch.js';
import { findMeetingByEmail } from './reschedule/find.js';
import { pickTime, shortTime } from './reschedule/pick.js';

export interface RescheduleOptions {
  start?: string;
  tz?: string;
  event?: string;
  email?: string;
  from?: string;
  dryRun?: boolean;
  skipInvalid?: boolean;
  out?: string;
}

export async function run(ctx: Context, [meetingId]: string[], opts: RescheduleOptions): Promise<void> {
  if (opts.from !== undefined) {
    if (meetingId !== undefined || opts.email !== undefined || opts.start !== undefined) {
      throw new UsageError(
        '--from takes the meetings and times from the file: leave out <meeting-id>, --email and --start',
      );
    }
    return rescheduleBatch(ctx, {
      from: opts.from,
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
  if (!request.start && !ctx.canPrompt()) {
    throw new UsageError('missing --start: pass the new start time', {
      hint: `schedctl reschedule ${byId ?? `--email ${email}`} --start <time> (free times: schedctl slots <event>)`,
    });
  }

  const state = await ctx.state();
  const found = await findMeetingToMove(ctx, state, await workspaceOf(ctx), request);
  const { id, was } = found;
  let start = request.start;
  if (!start) {
    found.event ??= await askEvent(ctx, id);
    start = await pickTime(ctx, await ctx.api(), { id, event: found.event, was }, zone);
  }
  const meeting = await moveMeeting(ctx, found, start);
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(meeting);
  ui.print(describeMeeting(meeting, zone, 'Rescheduled'));
  ui.print(
    was
      ? `  was     ${formatInZone(was, zone)} (${formatUtc(was)}), as schedctl last recorded it\n  moved   from ${shortTime(was, zone)} to ${shortTime(meeting.date, zone)} (${zone})`
      : '  was     (unknown: not booked or moved through schedctl here)',
  );
}

/** The flags of one reschedule, checked before any request. */
export interface RescheduleRequest {
  byId: string | undefined;
  email: string | undefined;
  event: string | undefined;
  /** Undefined: picked on a terminal. */
  start: Date | undefined;
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
  const start =
    opts.start !== undefined
      ? requireFuture(
          await parseTimeExpression(opts.start, { zone, now, name: '--start', zoneInput: '--tz' }),
          now,
          '--start',
          zone,
        )
      : undefined;
  return { byId, email, event: opts.event, start, zone };
}

/** The meeting to move and what the local record knows of it (its time, its event). */
export interface MeetingToMove {
  id: string;
  scope: string;
  known: Awaited<ReturnType<State['meetings']['get']>>;
  journaled: JournalEntry | undefined;
  was: string | undefined;
  event: string | undefined;
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
    if (error instanceof ApiError)
      throw error.withHint(hintFor(error.code, { operation: 'reschedule', event, meetingId: id }));
    throw error;
  }
  try {
    await state.meetings.recordMove(scope, id, meeting, ctx.clock.now());
    if (journaled)
      await state.journal.update(journaled.id, { startTime: meeting.date, updatedAt: ctx.clock.now().toISOString() });
  } catch (error) {
    (await ctx.ui()).warn(
      `the meeting moved, but the local record could not be updated (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  return meeting;
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
