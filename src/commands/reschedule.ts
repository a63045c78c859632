import { Command } from 'commander';
import type { Context } from '../context.js';
import { runs } from './action.js';

export function rescheduleCommand(ctx: Context): Command {
  return new Command('reschedule')
    .description('move a meeting to a new start time (it keeps its host)')
    .argument('<meeting-id>', 'meeting id (from `schedctl book`)')
    .option('--start <time>', 'new start time (ISO 8601, or a local time read in --tz); without it, pick from free times on a TTY')
    .option('--event <event-or-link>', "the meeting's event or link, to list free times (default: from the local journal)")
    .option('--tz <zone>', 'display time zone and zone of local times (default: the system zone)')
    .addHelpText('after', '\nExample: schedctl reschedule <meeting-id> --start "2026-12-02 10:00" --tz Europe/Berlin')
    .action(runs(ctx, 'reschedule'));
}
