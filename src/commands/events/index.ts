import { Command } from 'commander';
import type { Context } from '../../context.js';
import { eventsLsCommand } from './ls.js';
import { eventsShowCommand } from './show.js';

export function eventsCommand(ctx: Context): Command {
  return new Command('events')
    .description("list bookable events and show one event's (or scheduling link's) hosts and questions")
    .addCommand(eventsLsCommand(ctx))
    .addCommand(eventsShowCommand(ctx));
}
