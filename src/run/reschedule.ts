import type { Meeting } from '../api/schemas.js';
import { scopeOf } from '../config/target.js';
import type { Context } from '../context.js';
import { parseTimeExpression } from '../domain/human-time.js';
import { requireEmail, requireUuid } from '../domain/inputs.js';
import { formatInZone, formatUtc, requireFuture, resolveZone } from '../domain/time.js';
import { ApiError, OutcomeUnknownError, UsageError } from '../errors.js';
import { hintFor } from '../hints.js';
import { describeMeeting } from '../ui/meeting-view.js';
import { rescheduleBatch } from './bulk/reschedule-batch.js';
import { findMeetingByEmail } from './reschedule/find.js';
import { pickTime, shortTime } from './reschedule/pick.js';

interface RescheduleOptions {
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
      throw new UsageError('--from takes the meetings and times from the file: leave out <meeting-id>, --email and --start');
    }
    return rescheduleBatch(ctx, { from: opts.from, tz: opts.tz, dryRun: opts.dryRun, skipInvalid: opts.skipInvalid, out: opts.out });
  }
  if (opts.dryRun || opts.skipInvalid || opts.out) throw new UsageError('--dry-run, --skip-invalid and --out go with --from <file>');
  // Every flag first: a typo costs no request.
  const zone = resolveZone(opts.tz, '--tz');
  const now = ctx.clock.now();
  if (meetingId !== undefined && opts.email !== undefined) throw new UsageError('pass either <meeting-id> or --email, not both');
  if (meetingId === undefined && opts.email === undefined) {
    throw new UsageError("missing <meeting-id>: pass the meeting id, or --email <lead> to find the lead's meeting in the local record", {
      hint: 'schedctl meetings ls lists the meetings booked or moved through schedctl',
    });
  }
  const byId = meetingId !== undefined ? requireUuid(meetingId, '<meeting-id>', 'meeting') : undefined;
  const email = opts.email !== undefined ? requireEmail(opts.email, '--email') : undefined;
  let start = opts.start !== undefined ? requireFuture(await parseTimeExpression(opts.start, { zone, now, flag: '--start' }), now, '--start', zone) : undefined;
  if (!start && !ctx.canPrompt()) {
    throw new UsageError('missing --start: pass the new start time', {
      hint: `schedctl reschedule ${byId ?? `--email ${email}`} --start <time> (free times: schedctl slots <event>)`,
    });
  }

  const [target, state] = await Promise.all([ctx.target(), ctx.state()]);
  const scope = scopeOf(target);
  const known = byId ? await state.meetings.get(scope, byId) : await findMeetingByEmail(ctx, state, scope, { email: email!, event: opts.event, zone });
  const id = byId ?? known!.id;
  // Meetings booked before the meetings record existed are still in the journal.
  const journaled = known ? undefined : await state.journal.findMeeting(scope, id);
  const was = known?.date ?? journaled?.startTime;
  let event = opts.event ?? known?.event ?? journaled?.event;
  const api = await ctx.api();
  if (!start) {
    if (!event) event = await askEvent(ctx, id);
    start = await pickTime(ctx, api, { id, event, was }, zone);
  }

  if (!ctx.globals.json) (await ctx.ui()).info(`Rescheduling on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}`);
  let meeting: Meeting;
  try {
    meeting = await api.reschedule(id, start.toISOString());
  } catch (error) {
    if (error instanceof OutcomeUnknownError) {
      const reason = error.message.replace(/; the request may have been processed$/, '');
      throw new OutcomeUnknownError(`no answer to the reschedule of meeting ${id} (${reason}): it may already have moved`, {
        hint: 'check the meeting (the calendar invite) before trying again; running the same command again is harmless (it moves it to the same time)',
        cause: error,
      });
    }
    if (error instanceof ApiError) throw error.withHint(hintFor(error.code, { operation: 'reschedule', event, meetingId: id }));
    throw error;
  }
  const ui = await ctx.ui();
  try {
    await state.meetings.recordMove(scope, id, meeting, ctx.clock.now());
    if (journaled) await state.journal.update(journaled.id, { startTime: meeting.date, updatedAt: ctx.clock.now().toISOString() });
  } catch (error) {
    ui.warn(`the meeting moved, but the local record could not be updated (${error instanceof Error ? error.message : String(error)})`);
  }
  if (ctx.globals.json) return ui.json(meeting);
  ui.print(describeMeeting(meeting, zone, 'Rescheduled'));
  ui.print(
    was
      ? `  was     ${formatInZone(was, zone)} (${formatUtc(was)}), as schedctl last recorded it\n  moved   from ${shortTime(was, zone)} to ${shortTime(meeting.date, zone)} (${zone})`
      : '  was     (unknown: not booked or moved through schedctl here)',
  );
}

/** On a terminal, a meeting schedctl has no record of: ask for its event instead of failing. */
async function askEvent(ctx: Context, id: string): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  const answer = await input(
    { message: `Event or scheduling link of meeting ${id} (not in the local record), to list free times`, validate: (v) => (v.trim() ? true : 'enter an event id or slug') },
    { input: ctx.io.stdin, output: ctx.io.stderr },
  );
  return answer.trim();
}
