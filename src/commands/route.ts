import { Command } from 'commander';
import type { Context } from '../context.js';
import { MAX_GUESTS } from '../limits.js';
import { collect, runs } from './action.js';
import { batchOptions } from './batch-options.js';

export function routeCommand(ctx: Context): Command {
  const command = new Command('route')
    .description(
      'route a lead and book: fire a trigger, pick a slot, book it (a wizard on a terminal, flags for scripts)',
    )
    .option('--trigger <id-or-name>', 'the trigger to fire (default: pick from a searchable list)')
    .option('--email <email>', "the lead's email (fills the form's email field)")
    .option(
      '--field <key=value>',
      'a form response; repeatable; select fields take an option value (or its exact label)',
      collect,
    )
    .option(
      '--slot <first|time>',
      'the time to book: first, a time ("tue 15:00", ISO 8601; read in --tz), or "first tue afternoon" (docs/time.md)',
    )
    .option('--first-name <name>', "lead's first name")
    .option('--last-name <name>', "lead's last name")
    .option('--phone <phone>', "lead's phone")
    .option('--guest <email>', `additional attendee (repeatable, at most ${MAX_GUESTS})`, collect)
    .option('--yes', 'skip the confirmations; after an ended scheduling session (CONFLICT) fire again once by itself')
    .option('--refire', 'fire anew even when a scheduler outcome for this trigger and email is remembered')
    .option(
      '--rebook',
      'book even when the ledger holds an upcoming meeting of the lead (any trigger or event) or a booking whose outcome is unknown',
    )
    .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
    .option('--lead-tz <zone>', "the lead's time zone: offered in the picker and sent with the booking")
    .option('--days <n>', 'days of free times per page (default 7, at most 63)')
    .addHelpText(
      'after',
      `
On a terminal every missing value is asked for; without one (or with --no-input) a missing
--trigger, --email, --slot or required --field fails at once naming the flag (exit 2).
A full routed booking costs 4 requests: list triggers, fire, slots, book.

Recovery: a taken slot refreshes the times (same reservation); no host: pick another; an
expired hold fetches a new reservation; an ended scheduling session (CONFLICT) offers to fire
again (a new workflow run repeats CRM writes and counts for routing fairness): with --yes once
by itself, without a terminal and without --yes exit 5. A lost booking response is never
retried (exit 7). A remembered scheduler outcome for the trigger and email is reused (scripts:
by default, saving a request; --refire fires anew).

--json prints {"status": "booked"|"already_booked"|"redirect"|"none"|"other", "executionId",
"outcome", "meeting" (or null), "requests", ...}.

Example: schedctl route --trigger "Inbound demo request" --email ada@acme.example \\
           --field company=Acme --field region=emea --slot first --yes`,
    );
  for (const option of batchOptions()) command.addOption(option);
  return command.action(runs(ctx, 'route'));
}
