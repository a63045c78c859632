import type { Meeting } from '../api/schemas.js';
import { scopeOf } from '../config/target.js';
import type { Context } from '../context.js';
import { requireUuid } from '../domain/inputs.js';
import { openJournal } from '../domain/journal.js';
import { fetchSlots } from '../domain/slots.js';
import { formatInZone, formatUtc, parseTimeInput, resolveZone } from '../domain/time.js';
import { ApiError, CancelledError, OutcomeUnknownError, UsageError } from '../errors.js';
import { hintFor } from '../hints.js';
import { DEFAULT_DAYS } from '../limits.js';
import { describeMeeting } from '../ui/meeting-view.js';
import { slotChoices } from '../ui/slots-view.js';

interface RescheduleOptions {
  start?: string;
  tz?: string;
  event?: string;
}

export async function run(ctx: Context, [meetingId = '']: string[], opts: RescheduleOptions): Promise<void> {
  const id = requireUuid(meetingId, '<meeting-id>', 'meeting');
  const zone = resolveZone(opts.tz, '--tz');
  let start = opts.start !== undefined ? parseTimeInput(opts.start, { zone, now: ctx.clock.now(), flag: '--start' }) : undefined;
  if (!start && !ctx.canPrompt()) {
    throw new UsageError('missing --start: pass the new start time', {
      hint: `schedctl reschedule ${id} --start <time> (list free times with schedctl slots <event>)`,
    });
  }
  const [target, api] = await Promise.all([ctx.target(), ctx.api()]);
  const journal = await openJournal(ctx.configDir());
  const scope = scopeOf(target);
  const known = journal.findMeeting(scope, id);
  const event = opts.event ?? known?.event;
  if (!start) start = await pick(ctx, id, event, zone);

  if (!ctx.globals.json) (await ctx.ui()).info(`Rescheduling on ${target.profileName ? `profile "${target.profileName}"` : 'SCHEDCTL_API_KEY'} at ${target.baseUrl}`);
  let meeting: Meeting;
  try {
    meeting = await api.reschedule(id, start.toISOString());
  } catch (error) {
    if (error instanceof OutcomeUnknownError) {
      const reason = error.message.replace(/; the request may have been processed$/, '');
      throw new OutcomeUnknownError(`no answer to the reschedule of meeting ${id} (${reason}): it may already have moved`, {
        hint: 'check the meeting (the calendar invite) before trying again',
        cause: error,
      });
    }
    if (error instanceof ApiError) throw error.withHint(hintFor(error.code, { operation: 'reschedule', event, meetingId: id }));
    throw error;
  }
  if (known) journal.update(known.id, { startTime: meeting.date, updatedAt: ctx.clock.now().toISOString() });
  const ui = await ctx.ui();
  if (ctx.globals.json) return ui.json(meeting);
  const was = known?.startTime;
  ui.print(describeMeeting(meeting, zone, 'Rescheduled'));
  ui.print(`  was     ${was ? `${formatInZone(was, zone)} (${formatUtc(was)})` : '(unknown: not booked through schedctl on this machine)'}`);
}

/** Interactive: free times of the meeting's event for the next days, pick one, confirm. */
async function pick(ctx: Context, id: string, event: string | undefined, zone: string): Promise<Date> {
  if (!event) {
    throw new UsageError(`missing --event: meeting ${id} was not booked through schedctl here, so its event is unknown`, {
      hint: 'pass --event <event-or-link> to list free times, or --start <time>',
    });
  }
  const api = await ctx.api();
  const now = ctx.clock.now();
  const free = await fetchSlots(api, event, { from: now, to: new Date(now.getTime() + DEFAULT_DAYS * 86_400_000) });
  if (free.slots.length === 0) throw new UsageError(`no free times for ${event} in the next ${DEFAULT_DAYS} days: pass --start with a later time`);
  // The prompts load only when one is shown.
  const prompts = await import('@inquirer/prompts');
  const io = { input: ctx.io.stdin, output: ctx.io.stderr };
  const chosen = await prompts.select({ message: `New time (${zone})`, choices: slotChoices(free.slots, zone), pageSize: 12 }, io);
  const ok = await prompts.confirm({ message: `Move meeting ${id} to ${formatInZone(chosen, zone)}?`, default: true }, io);
  if (!ok) throw new CancelledError('not rescheduled');
  return new Date(chosen);
}
