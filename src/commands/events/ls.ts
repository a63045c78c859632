import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { MAX_EVENTS_PAGE } from '../../limits.js';
import { command, runs } from '../action.js';

export function eventsLsCommand(ctx: Context): Command {
  return command('ls')
    .description('list active events, newest first (one page unless --all)')
    .option('-n, --limit <n>', `page size, 1 to ${MAX_EVENTS_PAGE} (default: the server's)`)
    .option('--all', 'follow nextCursor and list every page')
    .option('--cursor <cursor>', 'start at this nextCursor of an earlier page')
    .addHelpText('after', '\n--json prints {"events": [...], "nextCursor": "..."} ("" when there are no more pages).')
    .action(runs(ctx, 'events/ls'));
}
