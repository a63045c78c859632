import { Command } from 'commander';
import type { Meeting } from '../api/schemas.js';
import type { Context } from '../context.js';
import { action } from './action.js';

export interface RescheduleOptions {
  start?: string;
  tz?: string;
  event?: string;
}

export function rescheduleCommand(ctx: Context): Command {
  return new Command('reschedule')
    .description('move a meeting to a new start time (it keeps its host)')
    .argument('<meeting-id>', 'meeting id (from `schedctl book`)')
    .option('--start <time>', 'new start time (ISO 8601, or a local time read in --tz); without it, pick from free times on a TTY')
    .option('--event <event-or-link>', "the meeting's event or link, to list free times (default: from the local journal)")
    .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
    .addHelpText('after', '\nExample: schedctl reschedule <meeting-id> --start "2026-12-02 10:00" --tz Europe/Berlin')
    .action(
      action<RescheduleOptions>(ctx, async ([meetingId], opts) => {
        const r = await run(meetingId ?? '', opts, ctx);
        const ui = await ctx.ui();
        if (ctx.globals.json) return ui.json(r.meeting);
        const { describeMeeting } = await import('../ui/meeting-view.js');
        const { formatInZone, formatUtc } = await import('../domain/time.js');
        ui.print(describeMeeting(r.meeting, r.zone, 'Rescheduled'));
        ui.print(
          `  was     ${r.oldTime ? `${formatInZone(r.oldTime, r.zone)} (${formatUtc(r.oldTime)})` : '(unknown: not booked through schedctl on this machine)'}`,
        );
      }),
    );
}

export async function run(meetingId: string, opts: RescheduleOptions, ctx: Context): Promise<{ meeting: Meeting; oldTime: string | undefined; zone: string }> {
  const { UsageError, ApiError, OutcomeUnknownError } = await import('../errors.js');
  const { resolveZone, parseTimeInput } = await import('../domain/time.js');
  const { requireUuid } = await import('../domain/inputs.js');
  const id = requireUuid(meetingId, '<meeting-id>', 'meeting');
  const zone = resolveZone(opts.tz, '--tz');
  let start = opts.start !== undefined ? parseTimeInput(opts.start, { zone, now: ctx.clock.now(), flag: '--start' }) : undefined;
  if (!start && !ctx.canPrompt()) {
    throw new UsageError('missing --start: pass the new start time', { hint: `schedctl reschedule ${id} --start <time> (list free times with schedctl slots <event>)` });
  }
  const [{ openJournal }, { scopeOf }, target, api] = await Promise.all([
    import('../domain/journal.js'),
    import('../config/target.js'),
    ctx.target(),
    ctx.api(),
  ]);
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
      throw new OutcomeUnknownError(`no answer to the reschedule of meeting ${id} (${error.message.replace(/; the request may have been processed$/, '')}): it may already have moved`, {
        hint: 'check the meeting (the calendar invite) before trying again',
        cause: error,
      });
    }
    if (error instanceof ApiError) {
      const slots = `schedctl slots ${event ?? '<event>'}`;
      const hints: Record<string, string> = {
        CONFLICT: `the meeting's host is not free at that time: pick another time from \`${slots}\``,
        NOT_FOUND: `no meeting ${id} in this workspace: check the id (printed by schedctl book)`,
        INVALID_REQUEST: 'fix the inputs named in the details and run the command again',
        MISSING_SCOPE: 'rescheduling needs a key with the scheduling:write permission',
        INVALID_API_KEY: 'the key is missing, malformed or revoked: add a current one with `schedctl profile add <name> --key-stdin`',
      };
      throw error.withHint(hints[error.code]);
    }
    throw error;
  }
  if (known) journal.update(known.id, { startTime: meeting.date, updatedAt: ctx.clock.now().toISOString() });
  return { meeting, oldTime: known?.startTime, zone };
}

/** Interactive: free times of the meeting's event for the next 7 days, pick one, confirm. */
async function pick(ctx: Context, id: string, event: string | undefined, zone: string): Promise<Date> {
  const { UsageError, CancelledError } = await import('../errors.js');
  if (!event) {
    throw new UsageError(`missing --event: meeting ${id} was not booked through schedctl here, so its event is unknown`, {
      hint: `pass --event <event-or-link> to list free times, or --start <time>`,
    });
  }
  const [{ fetchSlots }, { slotChoices }, { formatInZone }, prompts, api] = await Promise.all([
    import('../domain/slots.js'),
    import('../ui/slots-view.js'),
    import('../domain/time.js'),
    import('@inquirer/prompts'),
    ctx.api(),
  ]);
  const now = ctx.clock.now();
  const free = await fetchSlots(api, event, { from: now, to: new Date(now.getTime() + 7 * 86_400_000) });
  if (free.slots.length === 0) throw new UsageError(`no free times for ${event} in the next 7 days: pass --start with a later time`);
  const io = { input: ctx.io.stdin, output: ctx.io.stderr };
  const chosen = await prompts.select({ message: `New time (${zone})`, choices: slotChoices(free.slots, zone), pageSize: 12 }, io);
  const ok = await prompts.confirm({ message: `Move meeting ${id} to ${formatInZone(chosen, zone)}?`, default: true }, io);
  if (!ok) throw new CancelledError('not rescheduled');
  return new Date(chosen);
}
