import { Command } from 'commander';
import type { Context } from '../../context.js';
import { triggersLsCommand } from './ls.js';
import { triggersShowCommand } from './show.js';
import { suggestSibling } from '../trigger/sibling.js';

export function triggersCommand(ctx: Context): Command {
  const group = new Command('triggers')
    .description('list API triggers and the form fields each expects')
    .addCommand(triggersLsCommand(ctx))
    .addCommand(triggersShowCommand(ctx));
  return suggestSibling(group, 'trigger', { fire: 'fire' });
}
