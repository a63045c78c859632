import { Command } from 'commander';
import type { Context } from '../context.js';
import { runs } from './action.js';

export function mcpCommand(ctx: Context): Command {
  return new Command('mcp')
    .description('serve the booking tools to AI assistants as a Model Context Protocol server (stdio)')
    .option('--print-config', 'print the snippet that registers this server with an MCP client (no key in it)')
    .addHelpText(
      'after',
      [
        '',
        'Tools: list_triggers, list_events, show_event, fire_trigger, find_slots, book_meeting, route_lead,',
        'list_meetings, reschedule_meeting. Same rules as the CLI: nothing is booked unless a tool call asks',
        'for it (book_meeting, route_lead), a lost booking answer never leads to a second meeting, and the',
        'requests share the 30 per minute budget. It uses the default profile, or --profile.',
        'Examples:',
        '  schedctl mcp --print-config --profile prod   # paste into the MCP client configuration',
        '  schedctl mcp --profile prod                   # what the client runs',
      ].join('\n'),
    )
    .action(runs(ctx, 'mcp'));
}
