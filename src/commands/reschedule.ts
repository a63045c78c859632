import { Command } from 'commander';
import type { Context } from '../context.js';
import { runs } from './action.js';
import { batchOptions } from './batch-options.js';

export function rescheduleCommand(ctx: Context): Command {
  const command = new Command('reschedule')
    .description("move a meeting to a new start time (it keeps its host); find it by id or by the lead's email")
    .argument('[meeting-id]', 'meeting id (from `schedctl book` or `schedctl meetings ls`); or pass --email')
    .option(
      '--email <email>',
      "find the lead's upcoming meeting in the local record (meetings booked or moved through schedctl)",
    )
    .option(
      '--start <time>',
      'new start time: ISO 8601, a local time read in --tz, or as people say it ("tues 15:00", "first tue afternoon"; docs/time.md); without it, pick a day then a time on a terminal',
    )
    .option(
      '--event <event-or-link>',
      "the meeting's event or link: narrows --email, and lists free times (default: from the local record)",
    )
    .option('--yes', 'move to the time picked on a terminal without confirming')
    .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
    .option(
      '--tries <n>',
      "with --start naming a day or a part of it: free times to try at most, one request each, until the meeting's host accepts one (default 5, at most 20)",
    )
    .addHelpText(
      'after',
      '\nWith --email, several matching meetings are offered on a terminal; a script gets exit 2 listing them.\nA day or a part of it in --start ("first fri", "tue afternoon"; without a terminal also "tue") tries the event\'s free times in it until the meeting\'s host accepts one (docs/slots-booking-rescheduling.md).\n--json prints a move result: {"status" (moved, unchanged), "meeting", "from", "tried"} (docs/json-output.md).\nExamples:\n  schedctl reschedule <meeting-id> --start "2026-12-02 10:00" --tz Europe/Berlin\n  schedctl reschedule --email ada@acme.example --start "thu 15:00" --tz America/Chicago',
    );
  for (const option of batchOptions()) command.addOption(option);
  return command.action(runs(ctx, 'reschedule'));
}
