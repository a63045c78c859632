import { Command } from 'commander';
import type { Context } from '../../context.js';
import { command, runs } from '../action.js';

export function meetingsCommand(ctx: Context): Command {
  return new Command('meetings')
    .description(
      'meetings booked or moved through schedctl in this workspace (the local record: the API has no list operation)',
    )
    .addCommand(
      command('ls')
        .description('list recorded meetings, upcoming first: time, lead, title, event, status, id')
        .argument('[text...]', 'only meetings whose title, lead or event contains all these words (any case)')
        .option('--all', 'include past meetings (upcoming ones the API answered 404 for are listed without it)')
        .option('--email <email>', "only this lead's meetings")
        .option(
          '--event <event-or-link>',
          'only meetings booked on this event or scheduling link (its id or slug; routed meetings too)',
        )
        .option('--from <time>', 'only meetings starting at or after this time ("mon", "tue morning"; docs/time.md)')
        .option('--to <time>', 'only meetings starting before this time (a day means through its end)')
        .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
        .option('-n, --limit <n>', 'at most n meetings, the first in time order (default: all that match)')
        .addHelpText(
          'after',
          '\nThe record holds what schedctl booked, moved or recovered after a lost response, per workspace (what the key reaches at the API; docs/meetings.md).\n--json prints an array of the Meeting fields plus "source" (booked | rescheduled | recovered | unresolved), "recordedAt", "event", "history" and, once the API answered 404 for it, "goneAt"; an unresolved entry is a booking sent whose answer was lost (docs/json-output.md).\nExamples: schedctl meetings ls --email ada@acme.example\n          schedctl meetings ls product demo --all   (title, lead or event containing both words)',
        )
        .action(runs(ctx, 'meetings/ls')),
    )
    .addCommand(
      new Command('history')
        .description(
          "a lead's whole record as a timeline: fires, outcomes, booking attempts and what each answer proved, meetings, moves, refusals, 404s",
        )
        .argument('<email>', "the lead's email")
        .option('--tz <zone>', 'display time zone (default: the system zone)')
        .addHelpText(
          'after',
          '\nEach entry names the machine (user@host) that wrote it where the record keeps it. With a team state it is the team\'s record. No API request.\n--json prints {"email", "workspace", "entries": [{"at", "kind", ...}]} (docs/json-output.md).\nExample: schedctl meetings history ada@acme.example --tz Europe/Berlin',
        )
        .action(runs(ctx, 'meetings/history')),
    )
    .addCommand(
      new Command('show')
        .description('everything recorded about one meeting, including its history of moves')
        .argument('<meeting-id>', 'meeting id (from `schedctl meetings ls`)')
        .option('--tz <zone>', 'display time zone (default: the system zone)')
        .action(runs(ctx, 'meetings/show')),
    );
}
