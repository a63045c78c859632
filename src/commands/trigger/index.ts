import { Command } from 'commander';
import type { Context } from '../../context.js';
import { triggerFireCommand } from './fire.js';
import { suggestSibling } from './sibling.js';

export function triggerCommand(ctx: Context): Command {
  const group = new Command('trigger')
    .description('fire an API trigger (starts a workflow run)')
    .addCommand(triggerFireCommand(ctx));
  return suggestSibling(group, 'triggers', { ls: 'ls', list: 'ls', show: 'show' });
}
