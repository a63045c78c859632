import { Command } from 'commander';
import type { Context } from '../../context.js';
import { triggerFireCommand } from './fire.js';

export function triggerCommand(ctx: Context): Command {
  return new Command('trigger')
    .description('fire an API trigger (starts a workflow run)')
    .addCommand(triggerFireCommand(ctx));
}
