import { Command } from 'commander';
import type { Context } from '../context.js';
import { runs } from './action.js';

export function slotsCommand(ctx: Context): Command {
  return new Command('slots')
    .description('list bookable start times of an event or scheduling link (creates or reuses a reservation)')
    .argument('<event-or-link>', 'event id or slug, or scheduling link id or slug (e.g. a schedulingLinkId)')
    .option('--from <time>', 'start of the range (default: now; "thurs 15:00", "tue morning"; docs/time.md)')
    .option(
      '--to <time>',
      'end of the range, exclusive (a day means through its end; a part of the day, through its end)',
    )
    .option('--days <n>', 'length of the range in days instead of --to (default 7, at most 365)')
    .option('--reservation <id>', 'reuse this reservation (same host selection)')
    .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
    .option(
      '--lead-tz <zone>',
      "the lead's time zone: on a terminal, the week grid shows the lead's times beside yours when they differ",
    )
    .addHelpText(
      'after',
      '\nTimes: ISO 8601 with offset, "2026-12-01 14:00" (read in --tz), 2026-12-01, today, tomorrow, now.\nRanges over 63 days are fetched in several requests with one reservation.\nOn a terminal: a week grid (days as columns, times as rows; the list when the terminal is too narrow). Piped or --json: the list or the document, as always.\nExample: schedctl slots intro-call --days 14 --tz Europe/Berlin',
    )
    .action(runs(ctx, 'slots'));
}
