import { Command } from 'commander';
import type { Context } from '../../context.js';
import { runs } from '../action.js';

export function profileRmCommand(ctx: Context): Command {
  return new Command('rm')
    .alias('remove')
    .description('remove a profile and its key')
    .argument('<name>', 'profile name')
    .action(runs(ctx, 'profile/rm'));
}
