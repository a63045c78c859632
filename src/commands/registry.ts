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

const EXTRA: Record<string, (ctx: Context) => Command> = {
  route: routeCommand,
  triggers: triggersCommand,
  trigger: triggerCommand,
  events: eventsCommand,
  slots: slotsCommand,
  book: bookCommand,
  reschedule: rescheduleCommand,
  meetings: meetingsCommand,
  state: stateCommand,
  api: apiCommand,
  smoke: smokeCommand,
  mcp: mcpCommand,
  completion: completionCommand,
};

export const isExtraCommand = (name: string): boolean => Object.hasOwn(EXTRA, name);

/** All of them, or with `only`, just the one of that name (none when it is not one of them). */
export function extraCommands(ctx: Context, only?: string): Command[] {
  if (only !== undefined) return Object.hasOwn(EXTRA, only) ? [EXTRA[only]!(ctx)] : [];
  return Object.values(EXTRA).map((make) => make(ctx));
}
