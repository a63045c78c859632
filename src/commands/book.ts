import { Command } from 'commander';
import type { Context } from '../context.js';
import { MAX_GUESTS } from '../limits.js';
import { collect, runs } from './action.js';

export function bookCommand(ctx: Context): Command {
  return new Command('book')
    .description('book a slot, consuming its reservation (never books twice after a lost response)')
    .argument('<event-or-link>', 'the same event or scheduling link id/slug used to fetch slots')
    .option(
      '--start <time>',
      'start time: a slot (ISO 8601, a local time in --tz, "thu 15:00"), or a day ("first fri"): its first free time (docs/time.md)',
    )
    .option('--reservation <id>', 'reservationId from `schedctl slots` (default: fetched for --start)')
    .option('--email <email>', "the lead's email (with --execution: the email the trigger was fired with)")
    .option('--execution <id>', 'workflow executionId from `schedctl trigger fire` (links and resumes the run)')
    .option('--first-name <name>', "lead's first name")
    .option('--last-name <name>', "lead's last name")
    .option('--phone <phone>', "lead's phone")
    .option('--guest <email>', `additional attendee (repeatable, at most ${MAX_GUESTS})`, collect)
    .option('--lead-tz <zone>', "the lead's time zone (IANA name)")
    .option('--response <key=value>', 'answer to an event question (repeatable)', collect)
    .option(
      '--rebook',
      'book even when the ledger holds an upcoming meeting of the lead (any event) or a booking whose outcome is unknown',
    )
    .option('--yes', 'accepted as in route (book asks no confirmation)')
    .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
    .addHelpText(
      'after',
      '\nA timeout or dropped connection is never retried (exit 7): the booking almost certainly happened.\nRunning the same command again then reports "already booked" (exit 0) instead of booking twice.\nExamples:\n  schedctl book intro-call --start 2026-12-01T14:00:00Z --reservation <id> --email lead@company.com\n  schedctl book intro-call --start "first fri" --email lead@company.com   # its first free time; slots fetched',
    )
    .action(runs(ctx, 'book'));
}
