/**
 * The resource commands, in the order `schedctl --help` lists them. Each module only
 * defines its command (flags, help) at load; its action imports what it needs.
 */
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { apiCommand } from './api.js';
import { completionCommand } from './completion.js';
import { triggersCommand } from './triggers/index.js';
import { triggerCommand } from './trigger/index.js';
import { eventsCommand } from './events/index.js';
import { slotsCommand } from './slots.js';
import { bookCommand } from './book.js';
import { meetingsCommand } from './meetings/index.js';
import { rescheduleCommand } from './reschedule.js';
import { routeCommand } from './route.js';
import { smokeCommand } from './smoke.js';
import { mcpCommand } from './mcp.js';
import { stateCommand } from './state/index.js';

export function extraCommands(ctx: Context): Command[] {
  return [
    routeCommand(ctx),
    triggersCommand(ctx),
    triggerCommand(ctx),
    eventsCommand(ctx),
    slotsCommand(ctx),
    bookCommand(ctx),
    rescheduleCommand(ctx),
    meetingsCommand(ctx),
    stateCommand(ctx),
    apiCommand(ctx),
    smokeCommand(ctx),
    mcpCommand(ctx),
    completionCommand(ctx),
  ];
}
