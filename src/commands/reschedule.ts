import { Command } from 'commander';
import type { Context } from '../context.js';
import { runs } from './action.js';

export function rescheduleCommand(ctx: Context): Command {
  return new Command('reschedule')
    .description("move a meeting to a new start time (it keeps its host); find it by id or by the lead's email")
    .argument('[meeting-id]', 'meeting id (from `schedctl book` or `schedctl meetings ls`); or pass --email')
    .option(
      '--email <email>',
      "find the lead's upcoming meeting in the local record (meetings booked or moved through schedctl)",
    )
    .option(
      '--start <time>',
      'new start time: ISO 8601, a local time read in --tz, or as people say it ("thu 15:00", "tomorrow 3pm"); without it, pick from free times on a terminal',
    )
    .option(
      '--event <event-or-link>',
      "the meeting's event or link: narrows --email, and lists free times (default: from the local record)",
    )
    .option(
      '--from <file>',
      'run one row at a time from a CSV (header row) or JSON Lines file, or - for stdin; resumable (see "Bulk work")',
    )
    .option(
      '--dry-run',
      'with --from: validate every row and print the plan (rows, requests, minimum duration); send nothing',
    )
    .option('--skip-invalid', 'with --from: send the valid rows even when some rows are invalid')
    .option('--out <file>', 'with --from: also write one result per row to this CSV file')
    .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
    .addHelpText(
      'after',
      '\nWith --email, several matching meetings are offered on a terminal; a script gets exit 2 listing them.\n--json prints the moved Meeting.\nExamples:\n  schedctl reschedule <meeting-id> --start "2026-12-02 10:00" --tz Europe/Berlin\n  schedctl reschedule --email ada@acme.example --start "thu 15:00" --tz America/Chicago',
    )
    .action(runs(ctx, 'reschedule'));
}
