import { Command } from 'commander';
import type { Context } from '../../context.js';
import { runs } from '../action.js';

export function profileUseCommand(ctx: Context): Command {
  return new Command('use')
    .description('make a profile the default')
    .argument('<name>', 'profile name')
    .action(runs(ctx, 'profile/use'));
}
